"""Seeded, stateless randomness: every value of the world is a hash of (seed, entity, field).

splitmix64 over numpy ``uint64`` arrays (wrapping arithmetic), so a whole column of a slice of the
world (every creator's niche, every slot's posting second) is one vectorised call, and a single entity
costs the same formula on a one-element array. No random generator state exists anywhere: the same
(seed, keys) always give the same value, whatever was asked before (ADR 0007).
"""

from __future__ import annotations

import hashlib
from functools import lru_cache
from typing import Any

import numpy as np
import numpy.typing as npt

U64 = npt.NDArray[np.uint64]
F64 = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]

_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)
_TWO53 = float(2**53)
_MASK = 0xFFFFFFFFFFFFFFFF


@lru_cache(maxsize=1024)
def label(name: str) -> int:
    """A stable 64-bit key for a field or stream name."""
    return int.from_bytes(hashlib.blake2b(name.encode(), digest_size=8).digest(), "little")


def _mix(x: U64) -> U64:
    z = x + _GOLDEN
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


def hash64(seed: int, *keys: Any) -> U64:
    """Hash of the seed and keys; keys may be ints or integer arrays (broadcast together).

    Leading int keys (a field label, a platform code) are mixed as Python ints (``_mix_int``, the same
    bits): numpy's fixed cost per operation is most of what hashing a few values costs.
    """
    x = _mix_int(int(seed) & _MASK)
    first = 0
    while first < len(keys) and type(keys[first]) is int:
        x = _mix_int(x ^ (keys[first] & _MASK))
        first += 1
    z = np.asarray([x], dtype=np.uint64)
    with np.errstate(over="ignore"):
        for key in keys[first:]:
            arr = np.asarray(key)
            if arr.dtype != np.uint64:
                arr = (arr.astype(np.int64) if arr.dtype.kind in "iub" else arr).astype(np.uint64)
            z = _mix(z ^ arr)
    return z


def uniform(seed: int, *keys: Any) -> F64:
    """Uniform floats in [0, 1)."""
    return (hash64(seed, *keys) >> np.uint64(11)).astype(np.float64) / _TWO53


def normal(seed: int, *keys: Any) -> F64:
    """Standard normal values (Box-Muller over two independent uniforms)."""
    u1 = uniform(seed, *keys, 1)
    u2 = uniform(seed, *keys, 2)
    return np.sqrt(-2.0 * np.log1p(-u1)) * np.cos(2.0 * np.pi * u2)


def pick(seed: int, count: int, *keys: Any) -> I64:
    """Uniform indices in [0, count)."""
    return (hash64(seed, *keys) % np.uint64(count)).astype(np.int64)


def weighted(cumulative: F64, u: F64) -> I64:
    """Indices drawn with the weights whose normalised running sum is ``cumulative``."""
    return np.searchsorted(cumulative, u, side="right").astype(np.int64)


def cumulative(weights: list[float] | F64) -> F64:
    w = np.asarray(weights, dtype=np.float64)
    c: F64 = np.cumsum(w) / w.sum()
    c[-1] = 1.0
    return c


def _mix_int(z: int) -> int:
    """``_mix`` on one Python int: the same bits, without numpy's per-call cost."""
    z = (z + 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def scalar_h(seed: int, *keys: int) -> int:
    """``hash64`` of integer keys, as one int (what a single entity needs, ~20x cheaper)."""
    x = _mix_int(int(seed) & _MASK)
    for key in keys:
        x = _mix_int(x ^ (int(key) & _MASK))
    return x


def scalar_u(seed: int, *keys: int) -> float:
    return (scalar_h(seed, *keys) >> 11) / _TWO53
