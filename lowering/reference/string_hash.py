"""TensorFlow's string hashes, computed for whole arrays of strings at once.

* ``fingerprint64``: FarmHash Fingerprint64 (pyfarmhash is the same function TF links).
* ``siphash``: SipHash-2-4 with a 128-bit key (``StringToHashBucketStrong``).
* ``legacy_hash64``: TF's MurmurHash64A-style ``Hash64`` with seed 0xDECAFCAFFE
  (``StringToHashBucket``).

The two block hashes are vectorised over strings: strings are grouped by their number of
8-byte blocks, each group becomes a ``[strings, blocks]`` uint64 matrix, and the rounds run
on whole columns (numpy uint64 arithmetic wraps modulo 2**64, as C's does).
"""

from __future__ import annotations

import farmhash
import numpy as np

_U64 = np.uint64


def fingerprint64(strings) -> np.ndarray:
    """FarmHash Fingerprint64 of each bytes object in ``strings`` (a flat sequence)."""
    fp = farmhash.fingerprint64
    return np.fromiter((fp(s) for s in strings), dtype=np.uint64, count=len(strings))


def _grouped(strings, block_count):
    """Yields ``(positions, words, lengths)``: for every block count, the positions of the
    strings with that count, their little-endian uint64 words (zero-padded) and lengths."""
    lengths = np.fromiter(map(len, strings), dtype=np.int64, count=len(strings))
    # numpy's fixed-width bytes pad with zeros (trailing NULs of a string merge into that
    # padding, which is why lengths are taken from the strings themselves).
    packed = np.asarray(strings, dtype=object).astype(bytes)
    counts = block_count(lengths)
    for count in np.unique(counts):
        count = int(count)
        positions = np.flatnonzero(counts == count)
        if count == 0:
            words = np.zeros((len(positions), 0), dtype=_U64)
        else:
            words = packed[positions].astype(f"S{count * 8}").view("<u8")
            words = words.reshape(len(positions), count).astype(_U64)
        yield positions, words, lengths[positions].astype(_U64)


def _rotl(x, b, tmp):
    """``x`` rotated left by ``b`` bits, in place (``tmp`` is scratch space)."""
    np.right_shift(x, _U64(64 - b), out=tmp)
    np.left_shift(x, _U64(b), out=x)
    np.bitwise_or(x, tmp, out=x)


def _sip_round(v0, v1, v2, v3, tmp):
    """One SipRound on whole columns, in place (fewer temporaries: hashing is memory bound)."""
    v0 += v1
    _rotl(v1, 13, tmp)
    v1 ^= v0
    _rotl(v0, 32, tmp)
    v2 += v3
    _rotl(v3, 16, tmp)
    v3 ^= v2
    v0 += v3
    _rotl(v3, 21, tmp)
    v3 ^= v0
    v2 += v1
    _rotl(v1, 17, tmp)
    v1 ^= v2
    _rotl(v2, 32, tmp)


def siphash(strings, key0: int, key1: int) -> np.ndarray:
    """SipHash-2-4 of each string under the key ``(key0, key1)``."""
    out = np.empty(len(strings), dtype=np.uint64)
    if not len(strings):
        return out
    k0, k1 = _U64(key0 % 2**64), _U64(key1 % 2**64)
    with np.errstate(over="ignore"):
        # SipHash pads every message to whole words, the length's low byte in the top byte
        # of the last word: ``len // 8 + 1`` words in all.
        for positions, words, lengths in _grouped(strings, lambda n: n // 8 + 1):
            words = words.copy()
            words[:, -1] |= (lengths & _U64(0xFF)) << _U64(56)
            n = len(positions)
            v0 = np.full(n, k0 ^ _U64(0x736F6D6570736575))
            v1 = np.full(n, k1 ^ _U64(0x646F72616E646F6D))
            v2 = np.full(n, k0 ^ _U64(0x6C7967656E657261))
            v3 = np.full(n, k1 ^ _U64(0x7465646279746573))
            tmp = np.empty(n, dtype=_U64)
            for j in range(words.shape[1]):
                m = words[:, j]
                v3 ^= m
                for _ in range(2):
                    _sip_round(v0, v1, v2, v3, tmp)
                v0 ^= m
            v2 ^= _U64(0xFF)
            for _ in range(4):
                _sip_round(v0, v1, v2, v3, tmp)
            out[positions] = v0 ^ v1 ^ v2 ^ v3
    return out


_MURMUR_M = _U64(0xC6A4A7935BD1E995)
_MURMUR_R = _U64(47)
LEGACY_SEED = 0xDECAFCAFFE


def legacy_hash64(strings, seed: int = LEGACY_SEED) -> np.ndarray:
    """TF's ``Hash64(data, n, seed)`` of each string."""
    out = np.empty(len(strings), dtype=np.uint64)
    if not len(strings):
        return out
    m, r = _MURMUR_M, _MURMUR_R
    with np.errstate(over="ignore"):
        # Whole 8-byte words first, then the tail bytes as one zero-padded word.
        for positions, words, lengths in _grouped(strings, lambda n: (n + 7) // 8):
            h = _U64(seed) ^ (lengths * m)
            full = lengths // _U64(8)
            for j in range(words.shape[1]):
                word = words[:, j]
                is_full = full > _U64(j)
                k = word * m
                k = k ^ (k >> r)
                k = k * m
                mixed = (h ^ k) * m
                tail = (h ^ word) * m  # the last, partial word (present when length % 8)
                h = np.where(is_full, mixed, tail)
            h = h ^ (h >> r)
            h = h * m
            h = h ^ (h >> r)
            out[positions] = h
    return out
