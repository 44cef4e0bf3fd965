"""Counter storage for fixed-window limits, the per-IP token bucket and the optional per-team cap on
requests in flight (``REELSCOPE_TEAM_MAX_IN_FLIGHT``, issue 33 item 6).

In memory when embedded (one process); Redis when ``REELSCOPE_REDIS_URL`` is set, with Lua scripts so
that checking every window and counting them is one atomic step (a rejected request consumes nothing).

The Redis client's pool is a ``BlockingConnectionPool`` (runtime.py): under a burst a request waits for
a free connection, up to ``REELSCOPE_REDIS_TIMEOUT_SECONDS``, instead of failing at once (issue 14).
Whatever still fails here (Redis down, a pool still busy after the wait) is ``LimiterUnavailable``;
what a request then gets is decided once, in rate_limit/service.py.
"""

from __future__ import annotations

import math
import threading
from typing import NamedTuple, Protocol

from redis.asyncio import Redis
from redis.exceptions import RedisError


class WindowSpec(NamedTuple):
    """A tuple: three are built on every counted request, and a tuple is the cheapest to build."""

    key: str  # counter key, unique per (api key, endpoint, window kind, window start)
    limit: int
    expires_at: float  # Unix seconds when the window ends


class LimiterUnavailable(Exception):
    """The limiter's store could not answer (Redis unreachable, or no connection free in time)."""


class LimiterStorage(Protocol):
    async def hit(self, windows: list[WindowSpec], now: float) -> tuple[bool, list[int]]:
        """Count one request in every window if none is full. (allowed, counts after)."""
        ...

    async def release(self, windows: list[WindowSpec]) -> None:
        """Give back one counted request (a 402 does not count, §8.1)."""
        ...

    async def peek(self, windows: list[WindowSpec]) -> list[int]:
        """Each window's count, counting nothing (a dry run asks, issue 30)."""
        ...

    async def take_token(self, key: str, capacity: int, refill_per_second: float, now: float) -> bool:
        """Token bucket for the per-IP limiter (§5.5)."""
        ...

    async def enter_flight(self, team_id: str, request_id: str, cap: int, now: float) -> bool:
        """Count a request of the team as in flight, unless ``cap`` of them already are."""
        ...

    async def leave_flight(self, team_id: str, request_id: str) -> None:
        """The request has its answer: it is no longer in flight."""
        ...


_NONE_YET = (0, 0.0)


class MemoryStorage:
    """One process's counters. Window keys carry the window start, so a new window is a new key."""

    def __init__(self) -> None:
        self._counts: dict[str, tuple[int, float]] = {}
        self._buckets: dict[str, tuple[float, float]] = {}
        self._in_flight: dict[str, int] = {}
        self._lock = threading.Lock()

    async def hit(self, windows: list[WindowSpec], now: float) -> tuple[bool, list[int]]:
        with self._lock:
            counts = self._counts
            current = [counts.get(w.key, _NONE_YET)[0] for w in windows]
            for count, w in zip(current, windows, strict=True):
                if count >= w.limit:
                    return False, current
            for count, w in zip(current, windows, strict=True):
                counts[w.key] = (count + 1, w.expires_at)
            if len(counts) > 100_000:
                self._counts = {k: v for k, v in counts.items() if v[1] > now}
            return True, [c + 1 for c in current]

    async def release(self, windows: list[WindowSpec]) -> None:
        with self._lock:
            for w in windows:
                count, expires_at = self._counts.get(w.key, (0, 0.0))
                if count > 0:
                    self._counts[w.key] = (count - 1, expires_at)

    async def peek(self, windows: list[WindowSpec]) -> list[int]:
        with self._lock:
            return [self._counts.get(w.key, _NONE_YET)[0] for w in windows]

    async def take_token(self, key: str, capacity: int, refill_per_second: float, now: float) -> bool:
        with self._lock:
            tokens, last = self._buckets.get(key, (float(capacity), now))
            tokens = min(float(capacity), tokens + max(0.0, now - last) * refill_per_second)
            allowed = tokens >= 1.0
            self._buckets[key] = (tokens - 1.0 if allowed else tokens, now)
            if len(self._buckets) > 100_000:
                self._buckets = {k: v for k, v in self._buckets.items() if now - v[1] < 3600}
            return allowed

    async def enter_flight(self, team_id: str, request_id: str, cap: int, now: float) -> bool:
        with self._lock:
            count = self._in_flight.get(team_id, 0)
            if count >= cap:
                return False
            self._in_flight[team_id] = count + 1
            return True

    async def leave_flight(self, team_id: str, request_id: str) -> None:
        with self._lock:
            count = self._in_flight.get(team_id, 0) - 1
            if count > 0:
                self._in_flight[team_id] = count
            else:
                self._in_flight.pop(team_id, None)


# KEYS: the window counters; ARGV: limit and ttl per window, in order.
_HIT_SCRIPT = """
local n = #KEYS
for i = 1, n do
  local c = tonumber(redis.call('GET', KEYS[i]) or '0')
  if c >= tonumber(ARGV[2 * i - 1]) then
    local counts = {}
    for j = 1, n do counts[j] = tonumber(redis.call('GET', KEYS[j]) or '0') end
    return {0, unpack(counts)}
  end
end
local counts = {}
for i = 1, n do
  counts[i] = redis.call('INCR', KEYS[i])
  if counts[i] == 1 then redis.call('EXPIRE', KEYS[i], tonumber(ARGV[2 * i])) end
end
return {1, unpack(counts)}
"""

_RELEASE_SCRIPT = """
for i = 1, #KEYS do
  local c = tonumber(redis.call('GET', KEYS[i]) or '0')
  if c > 0 then redis.call('DECR', KEYS[i]) end
end
return 1
"""

# KEYS[1]: bucket; ARGV: capacity, refill per second, now (seconds, float)
_BUCKET_SCRIPT = """
local capacity = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local now = tonumber(ARGV[3])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1]) or capacity
local at = tonumber(state[2]) or now
tokens = math.min(capacity, tokens + math.max(0, now - at) * rate)
local allowed = 0
if tokens >= 1 then
  tokens = tokens - 1
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
redis.call('EXPIRE', KEYS[1], math.ceil(capacity / rate) + 60)
return allowed
"""


# KEYS[1]: the team's requests in flight (a sorted set: request id → when its lease ends);
# ARGV: request id, cap, now, lease (seconds). A lease lapses a request a process never gave back
# (the process died), so a crash costs the team a slot for the lease's length at most
_ENTER_FLIGHT_SCRIPT = """
local now = tonumber(ARGV[3])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], now + tonumber(ARGV[4]), ARGV[1])
redis.call('EXPIRE', KEYS[1], math.ceil(tonumber(ARGV[4])) + 60)
return 1
"""

# a request in flight longer than this stops counting (see _ENTER_FLIGHT_SCRIPT)
FLIGHT_LEASE_SECONDS = 600


class RedisStorage:
    def __init__(self, redis: Redis, prefix: str = "reelscope:rl:") -> None:
        self._redis = redis
        self._prefix = prefix
        self._hit = redis.register_script(_HIT_SCRIPT)
        self._release = redis.register_script(_RELEASE_SCRIPT)
        self._bucket = redis.register_script(_BUCKET_SCRIPT)
        self._enter_flight = redis.register_script(_ENTER_FLIGHT_SCRIPT)

    async def hit(self, windows: list[WindowSpec], now: float) -> tuple[bool, list[int]]:
        keys = [self._prefix + w.key for w in windows]
        args: list[int] = []
        for w in windows:
            # the key names its window, so the TTL only cleans up; a minute of slack covers clock skew
            args += [w.limit, ceil_seconds(w.expires_at - now) + 60]
        try:
            result = await self._hit(keys=keys, args=args)
        except RedisError as exc:
            raise LimiterUnavailable(str(exc)) from exc
        return bool(int(result[0])), [int(c) for c in result[1:]]

    async def release(self, windows: list[WindowSpec]) -> None:
        try:
            await self._release(keys=[self._prefix + w.key for w in windows], args=[])
        except RedisError as exc:
            raise LimiterUnavailable(str(exc)) from exc

    async def peek(self, windows: list[WindowSpec]) -> list[int]:
        try:
            counts = await self._redis.mget([self._prefix + w.key for w in windows])
        except RedisError as exc:
            raise LimiterUnavailable(str(exc)) from exc
        return [int(count or 0) for count in counts]

    async def take_token(self, key: str, capacity: int, refill_per_second: float, now: float) -> bool:
        try:
            result = await self._bucket(
                keys=[self._prefix + "ip:" + key], args=[capacity, refill_per_second, now]
            )
        except RedisError as exc:
            raise LimiterUnavailable(str(exc)) from exc
        return bool(int(result))

    async def enter_flight(self, team_id: str, request_id: str, cap: int, now: float) -> bool:
        try:
            result = await self._enter_flight(
                keys=[self._prefix + "flight:" + team_id], args=[request_id, cap, now, FLIGHT_LEASE_SECONDS]
            )
        except RedisError as exc:
            raise LimiterUnavailable(str(exc)) from exc
        return bool(int(result))

    async def leave_flight(self, team_id: str, request_id: str) -> None:
        try:
            await self._redis.zrem(self._prefix + "flight:" + team_id, request_id)
        except RedisError as exc:
            raise LimiterUnavailable(str(exc)) from exc


def ceil_seconds(value: float) -> int:
    return max(1, math.ceil(value))
