#!/bin/bash
# First start of an empty data dir: seconds from `make serve` to the first HTTP answer, and to the end of
# the background history job (every region's runs of the backfilled period). Run from the repository
# root with the virtualenv already built: benchmarks/first_start.sh [port]. Prints one line per figure;
# the server's output is in $DATA/../serve.out. (issue 17 item 4; results: benchmarks/results/first_start.md)
set -u
PORT=${1:-18731}
WORK=$(mktemp -d /tmp/reelscope-first-start.XXXX)
export REELSCOPE_DATA_DIR=$WORK/data REELSCOPE_HOST=127.0.0.1 REELSCOPE_PORT=$PORT
unset REELSCOPE_DATABASE_URL REELSCOPE_REDIS_URL
start=$(date +%s.%N)
make serve > "$WORK/serve.out" 2>&1 &
pid=$!
until curl -s -o /dev/null "http://127.0.0.1:$PORT/"; do
  sleep 0.2
  kill -0 $pid 2>/dev/null || { echo "server exited"; cat "$WORK/serve.out"; exit 1; }
done
echo "first answer: $(echo "$(date +%s.%N) - $start" | bc) s"
key=$(grep -o 'reelscope_tkn_[A-Za-z0-9_-]*' "$WORK/serve.out" | head -1)
until sqlite3 "$REELSCOPE_DATA_DIR/reelscope.db" \
  "select 1 from jobs where task='trend.backfill' and status in ('completed','failed')" 2>/dev/null | grep -q 1; do
  sleep 2
  kill -0 $pid 2>/dev/null || { echo "server exited"; exit 1; }
done
echo "history computed: $(echo "$(date +%s.%N) - $start" | bc) s"
for region in global us gb au; do
  curl -s -H "Authorization: Bearer $key" "http://127.0.0.1:$PORT/v1/trends?region=$region&limit=100" \
    | python3 -c "import json,sys; d=json.load(sys.stdin); print('$region', 'groups', len(d.get('data', [])), d.get('pagination', {}))" 
done
sqlite3 "$REELSCOPE_DATA_DIR/reelscope.db" "select region, count(*) from trend_runs group by region; select momentum_status, count(*) from trend_rankings group by 1" 2>/dev/null
kill -INT $pid; wait $pid
echo "output in $WORK/serve.out"
