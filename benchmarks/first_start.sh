#!/bin/bash
# First start of an empty data dir: seconds from `make serve` to the first HTTP answer, and to the end of
# the background history job (every region's runs of the backfilled period). Run from the repository
# root with the virtualenv already built: benchmarks/first_start.sh [port]. Prints one line per figure;
# the server's output is in $DATA/../serve.out. (issue 17 item 4; results: benchmarks/results/first_start.md)
set -um  # job control: `make serve` gets its own process group, stopped as one at the end
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
since=$(date -u -d '15 days ago' +%Y-%m-%d)
for region in global us gb au; do
  curl -s -H "Authorization: Bearer $key" "http://127.0.0.1:$PORT/v1/trends?region=$region&start_date=$since" \
    | python3 -c "
import collections, json, sys
groups = json.load(sys.stdin)['data']
rows = [t for g in groups for t in g['trends']]
status = collections.Counter((t.get('momentum') or {}).get('status') for t in rows)
print('$region: day groups', len(groups), 'trend rows', len(rows), 'momentum', dict(status))"
done
echo "runs per region: $(sqlite3 "$REELSCOPE_DATA_DIR/reelscope.db" "select group_concat(region || '=' || n, ' ') from (select region, count(*) n from trend_runs group by region)")"
kill -INT -- -$pid; wait $pid
echo "output in $WORK/serve.out"
