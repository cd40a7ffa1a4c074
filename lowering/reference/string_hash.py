"""TensorFlow's string hashes, computed for whole arrays of strings at once.

* ``fingerprint64``: FarmHash Fingerprint64 (``StringToHashBucketFast``, SparseCross).
* ``siphash``: SipHash-2-4 with a 128-bit key (``StringToHashBucketStrong``).
* ``legacy_hash64``: TF's MurmurHash64A-style ``Hash64`` with seed 0xDECAFCAFFE
  (``StringToHashBucket``).

The two block hashes are vectorised over strings: strings are grouped by their number of
8-byte blocks, each group becomes a ``[strings, blocks]`` uint64 matrix, and the rounds run
on whole columns (numpy uint64 arithmetic wraps modulo 2**64, as C's does).

Fingerprint64 is FarmHash's ``farmhashna::Hash64``, written out here for strings of up to
64 bytes: pyfarmhash (the same C++ function TF links) has no batch API, and one Python call
per string dominated host time when a batch of categorical features is hashed (a wide &
deep step hashes tens of thousands of short strings). Up to 64 bytes the hash reads a fixed
set of little-endian words at distances from the start and the end of the string, the set
depending on the length class (0, 1..3, 4..7, 8..16, 17..32, 33..64). So the strings are
joined into one buffer (by a 0xFF byte, whose positions then give every string's bounds
without a ``len`` call per string), and each word is loaded for a whole class at once: a
strided view of the buffer when all strings have one width (the usual batch of one
feature), else a gather from a view whose uint64 items start at every byte. Longer strings
(FarmHash's 64-byte block loop, rare for categorical values), small batches and small
classes, where the numpy set-up costs more than it saves, still call pyfarmhash; it also
stays the oracle the tests compare against, string by string.
"""

from __future__ import annotations

import farmhash
import numpy as np

_U64 = np.uint64


def _constant(value: int) -> np.ndarray:
    # A 0-d array rather than a numpy scalar: ufuncs take it without converting a scalar
    # on every call, which matters for the per-call overhead on small batches.
    return np.array(value, dtype=np.uint64)


# FarmHash's multipliers (shared with CityHash).
_K0 = _constant(0xC3A5C85C97CB3127)
_K1 = _constant(0xB492B66FBE98F273)
_K2 = _constant(0x9AE16A3B2F90404F)
_BITS = tuple(_constant(b) for b in range(65))
# Below this many strings (of a batch, or of one length class in it) one pyfarmhash call
# per string is cheaper than the numpy set-up (measured: a class costs ~30 ufunc calls).
_TINY_BATCH = 128
_SMALL_CLASS = 256
# Length class of each length 0..65 (65 standing for all longer ones): farmhashna::Hash64
# treats 0, 1..3, 4..7, 8..16, 17..32, 33..64 and longer strings differently.
_CLASS_EDGES = (1, 4, 8, 17, 33, 65)
_CLASS_OF_LENGTH = np.searchsorted(_CLASS_EDGES, np.arange(66), side="right")
# Joins the strings: 0xFF never occurs in UTF-8 text, so it usually marks every boundary.
_SEPARATOR = b"\xff"


def fingerprint64(strings) -> np.ndarray:
    """FarmHash Fingerprint64 of each string in ``strings`` (a flat sequence of ``bytes``;
    ``str`` items are hashed as their UTF-8 encoding, as pyfarmhash does)."""
    if isinstance(strings, np.ndarray):
        strings = strings.tolist()
    n = len(strings)
    if n < _TINY_BATCH:
        return _fingerprint64_each(strings)
    try:
        buffer = _SEPARATOR.join(strings)
    except TypeError:  # str items among the bytes
        strings = [s.encode() if isinstance(s, str) else s for s in strings]
        buffer = _SEPARATOR.join(strings)
    width = len(strings[0])
    if n < _SMALL_CLASS and len(buffer) != n * (width + 1) - 1:
        return _fingerprint64_each(strings)  # several widths, and no class can be large
    at_separator = np.frombuffer(buffer, dtype=np.uint8) == _SEPARATOR[0]
    separated = np.count_nonzero(at_separator) == n - 1  # no string holds the separator
    if separated and _one_width(at_separator, n, width):
        return _hash_class(_class_of(width), _Strings.uniform(buffer, n, width), strings)
    starts, lengths = _bounds(strings, at_separator if separated else None)
    if len(buffer) == n * (width + 1) - 1 and (lengths == width).all():
        return _hash_class(_class_of(width), _Strings.uniform(buffer, n, width), strings)
    return _hash_mixed(strings, buffer, starts, lengths)


def _fingerprint64_each(strings) -> np.ndarray:
    """One pyfarmhash call per string."""
    fp = farmhash.fingerprint64
    return np.fromiter((fp(s) for s in strings), dtype=np.uint64, count=len(strings))


def _class_of(length: int) -> int:
    return int(_CLASS_OF_LENGTH[min(length, 65)])


def _one_width(at_separator, n: int, width: int) -> bool:
    """Whether the buffer (holding exactly ``n - 1`` separators) is ``n`` strings of
    ``width`` bytes: then the separators are all at the strided positions."""
    if len(at_separator) != n * (width + 1) - 1:
        return False
    return bool(at_separator[width :: width + 1].all())


def _bounds(strings, at_separator):
    """``(starts, lengths)`` of the strings in the joined buffer: from the positions of the
    separators when no string holds one (``at_separator`` is then the buffer's separator
    mask; cheaper than a ``len`` call per string), else from the strings' lengths."""
    n = len(strings)
    if at_separator is not None:
        ends = np.flatnonzero(at_separator)
        bounds = np.empty(n + 1, dtype=np.int64)  # separator positions, one before, one after
        bounds[0], bounds[-1] = -1, len(at_separator)
        bounds[1:-1] = ends
        starts = bounds[:-1] + 1
        return starts, bounds[1:] - starts
    lengths = np.fromiter(map(len, strings), dtype=np.int64, count=n)
    return np.cumsum(lengths + 1) - (lengths + 1), lengths


def _hash_mixed(strings, buffer: bytes, starts, lengths) -> np.ndarray:
    """Strings of several lengths: each length class with many strings is hashed on its own
    (gathers by position); the strings of the small classes go through pyfarmhash."""
    classes = _CLASS_OF_LENGTH[np.minimum(lengths, 65)]
    counts = np.bincount(classes, minlength=len(_CLASS_EDGES) + 1)[: len(_BY_CLASS)]
    large = np.flatnonzero(counts >= _SMALL_CLASS).tolist()
    if not large:
        return _fingerprint64_each(strings)
    out = np.empty(len(strings), dtype=np.uint64)
    rest = np.ones(len(strings), dtype=bool)
    for cls in large:
        positions = np.flatnonzero(classes == cls)
        rest[positions] = False
        group = _Strings.gathered(buffer, starts[positions], lengths[positions])
        out[positions] = _BY_CLASS[cls](group)
    rest = np.flatnonzero(rest)
    out[rest] = _fingerprint64_each([strings[i] for i in rest.tolist()])
    return out


def _hash_class(cls: int, group: _Strings, strings) -> np.ndarray:
    if cls == len(_BY_CLASS):  # longer than 64 bytes: FarmHash's block loop, in C
        return _fingerprint64_each(strings)
    return _BY_CLASS[cls](group)


class _Strings:
    """Strings of one length class inside the joined buffer, with the little-endian loads
    FarmHash makes at fixed distances from each string's start or end.

    Strings of one width lie at a constant stride (the usual batch of one fixed-width
    feature), so each load is a strided view of the buffer. Otherwise each load is a gather
    from a view of the buffer whose items start at every byte."""

    def __init__(self, buffer: bytes, n: int, length, stride=None, starts=None, ends=None):
        self.buffer, self.n, self.length = buffer, n, length
        self.stride, self.starts, self.ends = stride, starts, ends

    @classmethod
    def uniform(cls, buffer: bytes, n: int, width: int) -> _Strings:
        return cls(buffer, n, _constant(width), stride=width + 1)

    @classmethod
    def gathered(cls, buffer: bytes, starts, lengths) -> _Strings:
        ends = starts + lengths
        return cls(buffer, len(starts), lengths.astype(np.uint64), starts=starts, ends=ends)

    def _load(self, dtype, distance: int, from_end: bool):
        if self.stride is not None:
            offset = self.stride - 1 - distance if from_end else distance
            shape, strides = (self.n,), (self.stride,)
            view = np.ndarray(shape, dtype, self.buffer, offset=offset, strides=strides)
            return view.astype(np.uint64)
        size = len(self.buffer) - np.dtype(dtype).itemsize + 1
        every_byte = np.ndarray((size,), dtype, self.buffer, strides=(1,))
        offsets = self.ends - distance if from_end else self.starts + distance
        return every_byte[offsets].astype(np.uint64)

    def word(self, distance: int = 0):
        """The 8 bytes ``distance`` bytes after the start."""
        return self._load("<u8", distance, from_end=False)

    def word_before_end(self, distance: int):
        """The 8 bytes ``distance`` bytes before the end."""
        return self._load("<u8", distance, from_end=True)

    def half(self, distance: int = 0):
        return self._load("<u4", distance, from_end=False)

    def half_before_end(self, distance: int):
        return self._load("<u4", distance, from_end=True)

    def byte(self, distance: int = 0):
        return self._load("u1", distance, from_end=False)

    def byte_before_end(self, distance: int):
        return self._load("u1", distance, from_end=True)

    def middle_byte(self):
        """``s[len // 2]``."""
        if self.stride is not None:
            return self.byte((self.stride - 1) // 2)
        middle = self.starts + (self.ends - self.starts) // 2
        return np.frombuffer(self.buffer, dtype=np.uint8)[middle].astype(np.uint64)


def _rotr(x, b):
    """``x`` rotated right by ``b`` bits (FarmHash's ``Rotate``)."""
    return (x >> _BITS[b]) | (x << _BITS[64 - b])


def _shift_mix(x):
    return x ^ (x >> _BITS[47])


def _hash_len16(u, v, mul):
    """FarmHash's Murmur-style mix of two words under a length-dependent multiplier."""
    a = _shift_mix((u ^ v) * mul)
    b = _shift_mix((v ^ a) * mul)
    return b * mul


def _len_mul(length):
    return _K2 + (length << _BITS[1])


def _hash_len0(g: _Strings):
    return np.full(g.n, _K2, dtype=np.uint64)


def _hash_len1to3(g: _Strings):
    y = g.byte() + (g.middle_byte() << _BITS[8])
    z = g.length + (g.byte_before_end(1) << _BITS[2])
    return _shift_mix((y * _K2) ^ (z * _K0)) * _K2


def _hash_len4to7(g: _Strings):
    return _hash_len16(g.length + (g.half() << _BITS[3]), g.half_before_end(4), _len_mul(g.length))


def _hash_len8to16(g: _Strings):
    mul = _len_mul(g.length)
    a = g.word() + _K2
    b = g.word_before_end(8)
    c = _rotr(b, 37) * mul + a
    d = (_rotr(a, 25) + b) * mul
    return _hash_len16(c, d, mul)


def _first_32(g: _Strings, mul, k):
    """What the 17..32 and 33..64 classes share: ``a`` (the first word times ``k``) and the
    two mixes of the first and the last 16 bytes."""
    a = g.word() * k
    b = g.word(8)
    c = g.word_before_end(8) * mul
    d = g.word_before_end(16) * _K2
    y = _rotr(a + b, 43) + _rotr(c, 30) + d
    x = a + _rotr(b + _K2, 18) + c
    return a, y, x


def _hash_len17to32(g: _Strings):
    mul = _len_mul(g.length)
    _, y, x = _first_32(g, mul, _K1)
    return _hash_len16(y, x, mul)


def _hash_len33to64(g: _Strings):
    mul = _len_mul(g.length)
    a, y, x = _first_32(g, mul, _K2)
    z = _hash_len16(y, x, mul)
    e = g.word(16) * mul
    f = g.word(24)
    p = (y + g.word_before_end(32)) * mul
    q = (z + g.word_before_end(24)) * mul
    return _hash_len16(_rotr(e + f, 43) + _rotr(p, 30) + q, e + _rotr(f + a, 18) + p, mul)


# Indexed by the class number ``searchsorted(_CLASS_EDGES, length, "right")``.
_BY_CLASS = (
    _hash_len0,
    _hash_len1to3,
    _hash_len4to7,
    _hash_len8to16,
    _hash_len17to32,
    _hash_len33to64,
)


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
