"""Philox4x32-10 and TF's random distributions on top of it, bit-exact with TF's CPU kernels.

TF's random kernels (``philox_random.h``, ``random_distributions.h``) draw blocks of four
uint32 from Philox4x32-10 under a 64-bit key and a 128-bit counter, and turn each block into
a fixed group of outputs (four floats, two doubles, two int64 ...). The kernels shard the
output by group and ``Skip`` the generator to the group's first block, so output group ``g``
is always made from block ``counter + g``: values never depend on threading. The truncated
normal draws a variable number of blocks per group; TF reserves 256 * group_size / 4 blocks
per group and restarts each group at its reserved region.

The code is written once over an array module ``xp``: ``numpy`` for the reference kernels
(``lowering/reference/stateless_random.py``, ``lowering/reference/random.py``) and
``jax.numpy`` for the lowerings (``lowering/stateless_random.py``, ``lowering/random.py``).
It is element arithmetic only, with no Python loop over elements, so it traces under
``jit``. The truncated normal's redraws are a numpy loop over draws in the reference
kernels and, under XLA, a ``lax.while_loop`` over a work queue of the groups still short
(``truncated_normals``, which also draws several ops' streams in one loop).

The Box-Muller transform of float samples calls glibc's ``logf`` and ``sincosf`` in TF. They
are not correctly rounded (about 1% of their results differ from the rounded exact value),
so ``glibc_logf`` / ``glibc_sincosf`` replay glibc's own algorithms (table + polynomial in
double precision, with the fused multiply-adds of its x86-64 FMA build) to get its float
results bit for bit: checked against the C library on all 2^23 inputs Box-Muller can pass
them, in numpy and under XLA:CPU. Float64 normals use the C library's double ``log`` /
``sin`` / ``cos`` (TF's), which XLA:CPU calls too; numpy's own SIMD ``log`` differs in the
last bit, so the numpy side calls ``math``'s.
"""

from __future__ import annotations

import math

import numpy as np

# Philox4x32 multipliers and Weyl key increments (philox_random.h).
_M0, _M1 = 0xD2511F53, 0xCD9E8D57
_W0, _W1 = 0x9E3779B9, 0xBB67AE85
_MASK32 = 0xFFFFFFFF

# TF's key/counter scrambling of a stateless op's two seeds (stateless_random_ops.cc).
SEED_SCRAMBLE_KEY = 0x02461E293EC8F720

TRUNCATED_RESERVED_SAMPLES = 256  # FillPhiloxRandomTask<..., true>::kReservedSamplesPerOutput


# ---------------------------------------------------------------------------------------------
# Bit helpers over xp
# ---------------------------------------------------------------------------------------------
def _bitcast(xp, x, dtype):
    if xp is np:
        return np.asarray(x).view(dtype)
    import jax

    return jax.lax.bitcast_convert_type(x, dtype)


def _u32(xp, x):
    """The low 32 bits of a uint64 array, as uint32."""
    return (x & xp.uint64(_MASK32)).astype(xp.uint32)


def _mulhilo(xp, a, m):
    product = a.astype(xp.uint64) * xp.uint64(m)
    return _u32(xp, product >> xp.uint64(32)), _u32(xp, product)


def philox_words(xp, key, counter_lo, counter_hi, index):
    """The four uint32 words ``(c0, c1, c2, c3)`` of the Philox4x32-10 blocks at counters
    ``counter + index`` (128-bit addition), each shaped like ``index``.

    ``key``, ``counter_lo`` and ``counter_hi`` are uint64 scalars (the V2 ops' key and
    counter words); ``index`` is an integer array. Kept as four arrays so that a consumer
    reading several words of one block computes the block once per element (a stacked
    array makes XLA recompute all ten rounds for every word it reads)."""
    key = xp.asarray(key, xp.uint64)
    counter_lo = xp.asarray(counter_lo, xp.uint64)
    counter_hi = xp.asarray(counter_hi, xp.uint64)
    index = xp.asarray(index).astype(xp.uint64)
    lo = counter_lo + index  # wraps mod 2^64; the carry goes to the high word
    hi = counter_hi + (lo < counter_lo).astype(xp.uint64)
    c0, c1 = _u32(xp, lo), _u32(xp, lo >> xp.uint64(32))
    c2, c3 = _u32(xp, hi), _u32(xp, hi >> xp.uint64(32))
    k0 = key & xp.uint64(_MASK32)
    k1 = key >> xp.uint64(32)
    for round_ in range(10):
        hi0, lo0 = _mulhilo(xp, c0, _M0)
        hi1, lo1 = _mulhilo(xp, c2, _M1)
        c0, c1, c2, c3 = (
            hi1 ^ c1 ^ _u32(xp, k0),
            lo1,
            hi0 ^ c3 ^ _u32(xp, k1),
            lo0,
        )
        if round_ < 9:
            k0 = (k0 + xp.uint64(_W0)) & xp.uint64(_MASK32)
            k1 = (k1 + xp.uint64(_W1)) & xp.uint64(_MASK32)
    return c0, c1, c2, c3


def philox_blocks(xp, key, counter_lo, counter_hi, index):
    """Philox4x32-10 blocks at counters ``counter + index``: uint32 of shape
    ``index.shape + (4,)``; ``out[..., j]`` is element ``j`` of TF's ``PhiloxRandom()``."""
    return xp.stack(philox_words(xp, key, counter_lo, counter_hi, index), axis=-1)


def _join64(xp, lo, hi):
    return lo.astype(xp.uint64) | (hi.astype(xp.uint64) << xp.uint64(32))


def key_counter_from_seed(xp, seed):
    """TF's ``GenerateKey``: (key, counter_lo, counter_hi) uint64 of a 2-vector int seed.

    An int32 seed is sign-extended to 64 bits (TF copies it into an ``int64``)."""
    seed = xp.asarray(seed).astype(xp.int64).astype(xp.uint64)
    block = philox_blocks(xp, SEED_SCRAMBLE_KEY, seed[0], seed[1], xp.zeros((), xp.uint64))
    key = _join64(xp, block[0], block[1])
    return key, xp.zeros((), xp.uint64), _join64(xp, block[2], block[3])


# ---------------------------------------------------------------------------------------------
# glibc's logf and sincosf (sysdeps/ieee754/flt-32), replayed in double precision
# ---------------------------------------------------------------------------------------------
_LOGF_INVC = np.array(
    [float.fromhex(h) for h in (
        "0x1.661ec79f8f3bep+0", "0x1.571ed4aaf883dp+0", "0x1.49539f0f010bp+0",
        "0x1.3c995b0b80385p+0", "0x1.30d190c8864a5p+0", "0x1.25e227b0b8eap+0",
        "0x1.1bb4a4a1a343fp+0", "0x1.12358f08ae5bap+0", "0x1.0953f419900a7p+0", "0x1p+0",
        "0x1.e608cfd9a47acp-1", "0x1.ca4b31f026aap-1", "0x1.b2036576afce6p-1",
        "0x1.9c2d163a1aa2dp-1", "0x1.886e6037841edp-1", "0x1.767dcf5534862p-1",
    )]
)  # fmt: skip
_LOGF_LOGC = np.array(
    [float.fromhex(h) for h in (
        "-0x1.57bf7808caadep-2", "-0x1.2bef0a7c06ddbp-2", "-0x1.01eae7f513a67p-2",
        "-0x1.b31d8a68224e9p-3", "-0x1.6574f0ac07758p-3", "-0x1.1aa2bc79c81p-3",
        "-0x1.a4e76ce8c0e5ep-4", "-0x1.1973c5a611cccp-4", "-0x1.252f438e10c1ep-5", "0x0p+0",
        "0x1.aa5aa5df25984p-5", "0x1.c5e53aa362eb4p-4", "0x1.526e57720db08p-3",
        "0x1.bc2860d22477p-3", "0x1.1058bc8a07ee1p-2", "0x1.4043057b6ee09p-2",
    )]
)  # fmt: skip
_LN2 = float.fromhex("0x1.62e42fefa39efp-1")
_LOGF_A = [
    float.fromhex(h)
    for h in ("-0x1.00ea348b88334p-2", "0x1.5575b0be00b6ap-2", "-0x1.ffffef20a4123p-2")
]


def _fma(xp, a, b, c):
    """``a * b + c`` rounded once (x86-64 glibc runs its FMA build of the float functions).

    Dekker's exact product ``a * b = p + e`` then a compensated sum; exact for the
    operands here (no overflow, no underflow)."""
    split = 134217729.0  # 2^27 + 1
    t = a * split
    a_hi = t - (t - a)
    a_lo = a - a_hi
    t = b * split
    b_hi = t - (t - b)
    b_lo = b - b_hi
    p = a * b
    e = ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo
    s = p + c
    bb = s - p
    t = (p - (s - bb)) + (c - bb)  # TwoSum(p, c) error
    return s + (t + e)


def glibc_logf(xp, x):
    """glibc's ``logf`` of positive normal float32 ``x`` (float32 result)."""
    ix = _bitcast(xp, xp.asarray(x, xp.float32), xp.uint32)
    tmp = ix - xp.uint32(0x3F330000)
    i = ((tmp >> xp.uint32(19)) % xp.uint32(16)).astype(xp.int32)
    k = _bitcast(xp, tmp, xp.int32) >> xp.int32(23)
    iz = ix - (tmp & xp.uint32(0x1FF << 23))
    invc = xp.asarray(_LOGF_INVC)[i]
    logc = xp.asarray(_LOGF_LOGC)[i]
    z = _bitcast(xp, iz, xp.float32).astype(xp.float64)
    r = _fma(xp, z, invc, xp.float64(-1.0))
    y0 = _fma(xp, k.astype(xp.float64), xp.float64(_LN2), logc)
    r2 = r * r
    y = _fma(xp, xp.float64(_LOGF_A[1]), r, xp.float64(_LOGF_A[2]))
    y = _fma(xp, xp.float64(_LOGF_A[0]), r2, y)
    y = _fma(xp, y, r2, y0 + r)
    return xp.where(ix == xp.uint32(0x3F800000), xp.float64(0.0), y).astype(xp.float32)


_HPI_INV = float.fromhex("0x1.45F306DC9C883p+23")  # 2/pi * 2^24
_HPI = float.fromhex("0x1.921FB54442D18p0")
_COS_POLY = [
    float.fromhex(h)
    for h in ("0x1p0", "-0x1.ffffffd0c621cp-2", "0x1.55553e1068f19p-5", "-0x1.6c087e89a359dp-10")
] + [float.fromhex("0x1.99343027bf8c3p-16")]
_SIN_POLY = [
    float.fromhex(h)
    for h in ("-0x1.555545995a603p-3", "0x1.1107605230bc4p-7", "-0x1.994eb3774cf24p-13")
]


def glibc_sincosf(xp, y):
    """glibc's ``sincosf`` of float32 ``y`` in ``[0, 120)`` (float32 sine and cosine)."""
    y = xp.asarray(y, xp.float32)
    top = (_bitcast(xp, y, xp.uint32) >> xp.uint32(20)) & xp.uint32(0x7FF)
    x = y.astype(xp.float64)
    small = top < xp.uint32(0x3F4)  # |y| < pi/4: no reduction
    n = ((x * _HPI_INV).astype(xp.int32) + xp.int32(0x800000)) >> xp.int32(24)
    n = xp.where(small, xp.int32(0), n)
    x = xp.where(small, x, _fma(xp, -n.astype(xp.float64), xp.float64(_HPI), x))
    sign = xp.where((n & 3) == 1, -1.0, xp.where((n & 3) == 2, -1.0, 1.0))
    neg = (n & 2) != 0  # the second table negates the cosine polynomial
    c = [xp.where(neg, -coef, coef) for coef in _COS_POLY]
    x2 = x * x
    x = x * sign
    x4 = x2 * x2
    x3 = x2 * x
    c2 = _fma(xp, x2, c[4], c[3])
    s1 = _fma(xp, x2, xp.float64(_SIN_POLY[2]), xp.float64(_SIN_POLY[1]))
    c1 = _fma(xp, x2, c[1], c[0])
    x5 = x3 * x2
    x6 = x4 * x2
    s = _fma(xp, x3, xp.float64(_SIN_POLY[0]), x)
    cc = _fma(xp, x4, c[2], c1)
    sin_poly = _fma(xp, x5, s1, s).astype(xp.float32)
    cos_poly = _fma(xp, x6, c2, cc).astype(xp.float32)
    odd = (n & 1) != 0
    sin = xp.where(odd, cos_poly, sin_poly)
    cos = xp.where(odd, sin_poly, cos_poly)
    tiny = top < xp.uint32(0x398)  # |y| < 2^-12: sin y = y, cos y = 1
    return xp.where(tiny, y, sin), xp.where(tiny, xp.float32(1.0), cos)


# ---------------------------------------------------------------------------------------------
# TF's distributions (random_distributions.h): one Philox block -> one output group
# ---------------------------------------------------------------------------------------------
def group_size(dtype) -> int:
    """Outputs per Philox block: two for 64-bit types, four otherwise."""
    return 2 if np.dtype(dtype).itemsize == 8 else 4


def _pairs64(xp, blocks):
    """The two uint64 of each block: ``s[0] | s[1] << 32`` and ``s[2] | s[3] << 32``."""
    return xp.stack(
        [_join64(xp, blocks[..., 0], blocks[..., 1]), _join64(xp, blocks[..., 2], blocks[..., 3])],
        axis=-1,
    )


def _unit_float32(xp, bits):
    """TF's ``Uint32ToFloat``: the low 23 bits as the mantissa of [1, 2), minus 1 (exact)."""
    return (bits & xp.uint32(0x7FFFFF)).astype(xp.float32) * xp.float32(2.0**-23)


def _unit_float64(xp, x0, x1):
    """TF's ``Uint64ToDouble(x0, x1)``: 20 bits of ``x0`` over the 32 of ``x1`` as the
    mantissa of [1, 2), minus 1 (exact)."""
    mantissa = _join64(xp, x1, x0 & xp.uint32(0xFFFFF))
    return mantissa.astype(xp.float64) * xp.float64(2.0**-52)


def _unit_float64_pairs(xp, blocks):
    """``Uint64ToDouble`` of words (0, 1) and (2, 3) of each block."""
    return xp.stack(
        [_unit_float64(xp, blocks[..., 0], blocks[..., 1]),
         _unit_float64(xp, blocks[..., 2], blocks[..., 3])],
        axis=-1,
    )  # fmt: skip


def uniform_float(xp, blocks, dtype):
    """``UniformDistribution<float-type>``: [0, 1) with 10 (half), 7 (bfloat16), 23 (float)
    or 52 (double) random mantissa bits; values are ``m * 2^-bits`` exactly."""
    dtype = np.dtype(dtype)
    if dtype == np.float64:
        return _unit_float64_pairs(xp, blocks)
    bits = {np.dtype(np.float16): 10, np.dtype(np.float32): 23}.get(dtype, 7)  # else bfloat16
    mantissa = blocks & xp.uint32((1 << bits) - 1)
    return (mantissa.astype(xp.float32) * xp.float32(2.0**-bits)).astype(dtype)


def _unsigned(dtype):
    return np.dtype(f"uint{np.dtype(dtype).itemsize * 8}")


def uniform_int(xp, blocks, dtype, minval, maxval):
    """``UniformDistribution<int-type>(lo, hi)``: ``lo + bits % (hi - lo)`` on 32- or 64-bit
    draws, in wrapping unsigned arithmetic (TF's range is ``uint(hi) - uint(lo)``)."""
    dtype = np.dtype(dtype)
    unsigned = _unsigned(dtype)
    bits = _pairs64(xp, blocks) if dtype.itemsize == 8 else blocks
    lo = xp.asarray(minval).astype(dtype).astype(unsigned)
    span = xp.asarray(maxval).astype(dtype).astype(unsigned) - lo
    return _bitcast(xp, (lo + bits % span).astype(unsigned), dtype)


def full_int(xp, blocks, dtype):
    """``UniformFullIntDistribution``: the raw bits (two words per 64-bit value)."""
    dtype = np.dtype(dtype)
    bits = _pairs64(xp, blocks) if dtype.itemsize == 8 else blocks
    return _bitcast(xp, bits.astype(_unsigned(dtype)), dtype)


_TWO_PI = 2.0 * np.pi  # TF multiplies by ``2.0f * M_PI`` in double, then rounds to float


def _box_muller_float(xp, x0, x1):
    """TF's ``BoxMullerFloat`` with glibc's ``logf`` / ``sincosf``: two float32 normals."""
    u1 = _unit_float32(xp, x0)
    u1 = xp.where(u1 < xp.float32(1e-7), xp.float32(1e-7), u1)
    v1 = (_unit_float32(xp, x1).astype(xp.float64) * _TWO_PI).astype(xp.float32)
    # sqrt of a float32 in double rounds to the correctly rounded float32 sqrt.
    u2 = xp.sqrt((xp.float32(-2.0) * glibc_logf(xp, u1)).astype(xp.float64))
    u2 = u2.astype(xp.float32).astype(xp.float64)
    sin, cos = glibc_sincosf(xp, v1)
    # float32 * float32 is exact in double; one rounding to float32 as TF's ``*=``.
    f0 = (sin.astype(xp.float64) * u2).astype(xp.float32)
    f1 = (cos.astype(xp.float64) * u2).astype(xp.float32)
    return f0, f1


def _box_muller_double(xp, blocks):
    """TF's ``BoxMullerDouble``: two float64 normals from the four words of a block."""
    return _box_muller_double_words(xp, *(blocks[..., j] for j in range(4)))


def _box_muller_double_words(xp, c0, c1, c2, c3):
    u1 = _unit_float64(xp, c0, c1)
    u1 = xp.where(u1 < 1e-7, 1e-7, u1)
    v1 = _TWO_PI * _unit_float64(xp, c2, c3)
    log, sin, cos = (
        (_libm(f) for f in (math.log, math.sin, math.cos)) if xp is np else (xp.log, xp.sin, xp.cos)
    )
    u2 = xp.sqrt(-2.0 * log(u1))
    return sin(v1) * u2, cos(v1) * u2


def _libm(fn):
    """``fn`` (``math``'s, i.e. the C library's) elementwise: numpy's own SIMD ``log`` is not
    glibc's to the last bit, XLA:CPU's double functions are."""
    vectorized = np.frompyfunc(fn, 1, 1)
    return lambda x: np.asarray(vectorized(x), np.float64)


def normal(xp, blocks, dtype):
    """``NormalDistribution``: Box-Muller on word pairs (floats, computed in float32 and
    rounded for half / bfloat16) or on whole blocks (double)."""
    dtype = np.dtype(dtype)
    if dtype == np.float64:
        return xp.stack(_box_muller_double(xp, blocks), axis=-1)
    f0, f1 = _box_muller_float(xp, blocks[..., 0::2], blocks[..., 1::2])
    # (f0, f1) of pair 0, then of pair 1: interleave back to block order.
    return xp.stack([f0, f1], axis=-1).reshape(blocks.shape).astype(dtype)


def truncated_candidates(xp, blocks, dtype):
    """The normals one block gives ``TruncatedNormalDistribution``, in TF's order, and
    whether each is kept (``|x| < 2``, tested before rounding to half / bfloat16)."""
    dtype = np.dtype(dtype)
    if dtype == np.float64:
        values = xp.stack(_box_muller_double(xp, blocks), axis=-1)
    else:
        f0, f1 = _box_muller_float(xp, blocks[..., 0::2], blocks[..., 1::2])
        values = xp.stack([f0, f1], axis=-1).reshape(blocks.shape)
    return values.astype(dtype), xp.abs(values) < 2.0


def truncated_blocks_per_group(dtype) -> int:
    """The Philox blocks TF reserves per truncated-normal output group."""
    return group_size(dtype) * TRUNCATED_RESERVED_SAMPLES // 4


def take_accepted(xp, results, count, values, accepted):
    """Appends each group's accepted candidates (in order) after its ``count`` results,
    keeping at most ``results.shape[-1]``. Returns the new ``(results, count)``.

    ``values`` and ``accepted`` are ``[..., candidates]`` arrays or lists of the
    candidates' ``[...]`` columns. Unrolled over the few candidates with selects on the
    output's slot index, so that XLA makes it one elementwise loop (reductions over the
    short last axis, or columns stacked back, cost a kernel call or a branch each)."""
    values, accepted = (_columns(x) for x in (values, accepted))
    slots = xp.arange(results.shape[-1])
    landed = count  # the slot after the last one filled so far
    for value, keep in zip(values, accepted):
        landed = landed + keep.astype(count.dtype)
        take = keep[..., None] & (slots == landed[..., None] - 1)
        results = xp.where(take, value[..., None], results)
    return results, xp.minimum(landed, results.shape[-1])


def _columns(x):
    return list(x) if isinstance(x, (list, tuple)) else [x[..., j] for j in range(x.shape[-1])]


# ---------------------------------------------------------------------------------------------
# Output streams: which block makes which output
# ---------------------------------------------------------------------------------------------
def fill(xp, key, counter_lo, counter_hi, size, dtype, distribution):
    """TF's ``FillPhiloxRandom``: ``size`` outputs, group ``g`` from block ``counter + g``.

    ``distribution(blocks)`` maps uint32 ``[groups, 4]`` to ``[groups, group_size]``."""
    per = group_size(dtype)
    groups = -(-size // per)
    blocks = philox_blocks(xp, key, counter_lo, counter_hi, xp.arange(groups, dtype=xp.int64))
    return distribution(blocks).reshape(-1)[:size]


def _packed_normal_pairs(key, counter_lo, counter_hi, index, dtype):
    """The Box-Muller pairs of the blocks at ``index`` (1-D), one array element per pair,
    so that XLA's elementwise code computes each pair's Philox block, ``logf`` and
    ``sincosf`` once: an array of single normals recomputes them for every normal it
    holds. Float types: uint64 ``[2 * n]``, pair ``p`` of block ``i`` at ``2 * i + p``,
    its two float32 normals (before any rounding to half / bfloat16) packed as
    ``bits(first) | bits(second) << 32`` (a 1-D elementwise loop vectorizes; complex64
    elements or a ``[n, 2]`` layout ran at half the speed). Double: complex128 ``[n]``.

    ``key`` and the counter words are arrays shaped like ``index``."""
    import jax
    import jax.numpy as jnp

    if np.dtype(dtype) == np.float64:
        words = philox_words(jnp, key, counter_lo, counter_hi, index)
        return jax.lax.complex(*_box_muller_double_words(jnp, *words))
    key, counter_lo, counter_hi, index = (
        jnp.repeat(x, 2) for x in (key, counter_lo, counter_hi, index)
    )
    first = jnp.arange(index.shape[0]) % 2 == 0
    words = philox_words(jnp, key, counter_lo, counter_hi, index)
    x0 = jnp.where(first, words[0], words[2])
    x1 = jnp.where(first, words[1], words[3])
    f0, f1 = _box_muller_float(jnp, x0, x1)
    bits = [jax.lax.bitcast_convert_type(f, jnp.uint32).astype(jnp.uint64) for f in (f0, f1)]
    return bits[0] | (bits[1] << jnp.uint64(32))


def _unpacked_normals(pairs, blocks):
    """The ``group_size`` columns ``[blocks]`` of normals, in TF's order, from
    ``_packed_normal_pairs``."""
    import jax
    import jax.numpy as jnp

    if pairs.dtype == jnp.complex128:
        return [jnp.real(pairs), jnp.imag(pairs)]
    pairs = pairs.reshape(blocks, 2)
    return [
        jax.lax.bitcast_convert_type((pairs[:, p] >> shift).astype(jnp.uint32), jnp.float32)
        for p in range(2)
        for shift in (jnp.uint64(0), jnp.uint64(32))
    ]


def truncated_normal_jax(key, counter_lo, counter_hi, size, dtype):
    """TF's truncated normal of ``size`` values from one stream (see ``truncated_normals``)."""
    return truncated_normals([(key, counter_lo, counter_hi, size)], dtype)[0]


def truncated_normals(streams, dtype):
    """TF's truncated normals of several streams ``(key, counter_lo, counter_hi, size)``
    at once: each output group draws blocks from its reserved region until it has
    ``group_size`` samples within two standard deviations.

    About 17% of the groups need a second block, one in 10^5 a third. Drawing for every
    group until the last one is full (the reference kernel's way) costs three or four full
    passes; here a work queue of the groups still short feeds chunks of a fixed size to
    one ``while_loop`` body, so the work is the blocks actually drawn (about 1.2 passes)
    plus a few chunks at the end. The streams share the loop (their groups are numbered
    one after another), so a program drawing many tables, such as an initializer of
    embedding columns, traces and compiles the Box-Muller code once. Each iteration first
    absorbs the chunk drawn by the previous one, then draws the next: the drawn pairs leave
    the body as loop state, which makes XLA compute them once."""
    import jax
    import jax.numpy as jnp

    per = group_size(dtype)
    sizes = [int(size) for *_, size in streams]
    starts = np.cumsum([0] + [-(-size // per) for size in sizes])
    groups = int(starts[-1])
    if groups == 0:
        return [jnp.zeros((0,), dtype) for _ in streams]
    chunk = min(groups, QUEUE_CHUNK)
    reserved = truncated_blocks_per_group(dtype)
    keys, counter_lo, counter_hi = (
        jnp.stack([jnp.asarray(stream[j], jnp.uint64) for stream in streams]) for j in range(3)
    )
    lanes = jnp.arange(chunk)
    # A group's bookkeeping in one int32 (one scatter per chunk): the blocks it has drawn,
    # times 8, plus the samples it has kept (at most 4).
    steps_unit = 8

    def write(dense, ids, live, results, meta, rows, row_meta):
        """Stores a chunk's rows: a contiguous slice on the first pass (the queue still
        holds ``0, 1, 2, ...`` there), a scatter afterwards; XLA:CPU's scatter costs
        ~10 ns a row, the slice next to nothing."""

        def contiguous(arrays):
            results, meta = arrays
            start = ids[0]
            return (
                jax.lax.dynamic_update_slice(results, rows, (start, jnp.int32(0))),
                jax.lax.dynamic_update_slice(meta, row_meta, (start,)),
            )

        def scattered(arrays):
            results, meta = arrays
            index = jnp.where(live, ids, groups + lanes)  # distinct, out of range: dropped
            return (
                results.at[index].set(rows, mode="drop", unique_indices=True),
                meta.at[index].set(row_meta, mode="drop", unique_indices=True),
            )

        return jax.lax.cond(dense, contiguous, scattered, (results, meta))

    def absorb(state):
        results, meta, queue, head, tail, ids, live, dense, drawn, pairs = state
        values = _unpacked_normals(pairs, chunk)
        rows, count = take_accepted(
            jnp,
            results.at[ids].get(mode="fill", fill_value=0),
            drawn % steps_unit,
            [value.astype(dtype) for value in values],
            [jnp.abs(value) < 2.0 for value in values],
        )
        row_meta = drawn - drawn % steps_unit + steps_unit + count
        results, meta = write(dense, ids, live, results, meta, rows, row_meta)
        short = live & (count < per)
        slot = tail + jnp.cumsum(short) - 1
        index = jnp.where(short, slot % groups, groups + lanes)
        queue = queue.at[index].set(ids, mode="drop", unique_indices=True)
        return results, meta, queue, tail + jnp.sum(short)

    def draw(state):
        results, meta, queue, tail = absorb(state)
        head = state[3]
        live = lanes < tail - head
        dense = head + chunk <= groups  # still in the queue's first pass
        ids = queue[(head + lanes) % groups]
        drawn = meta[ids]
        stream = _stream_of(starts, ids)
        block = (ids - jnp.asarray(starts)[stream]).astype(jnp.int64) * reserved
        pairs = _packed_normal_pairs(
            keys[stream],
            counter_lo[stream],
            counter_hi[stream],
            block + drawn // steps_unit,
            dtype,
        )
        head = head + jnp.minimum(chunk, tail - head)
        return results, meta, queue, head, tail, ids, live, dense, drawn, pairs

    state = (
        jnp.zeros((groups, per), dtype),
        jnp.zeros((groups,), jnp.int32),
        jnp.arange(groups, dtype=jnp.int32),
        jnp.zeros((), jnp.int64),
        jnp.full((), groups, jnp.int64),
        jnp.zeros((chunk,), jnp.int32),
        jnp.zeros((chunk,), bool),
        jnp.zeros((), bool),
        jnp.zeros((chunk,), jnp.int32),
        jnp.zeros((chunk,), jnp.complex128)
        if np.dtype(dtype) == np.float64
        else jnp.zeros((2 * chunk,), jnp.uint64),
    )
    state = jax.lax.while_loop(lambda s: jnp.any(s[6]) | (s[4] > s[3]), draw, state)
    flat = absorb(state)[0].reshape(-1)
    return [flat[start * per : start * per + size] for start, size in zip(starts, sizes)]


def _stream_of(starts, ids):
    """The stream each group id belongs to (``starts``: the first group of each stream,
    then the total): a binary search unrolled into selects, which XLA fuses into one
    loop (``jnp.searchsorted`` runs a kernel per step)."""
    import jax.numpy as jnp

    streams = len(starts) - 1
    stream = jnp.zeros(ids.shape, jnp.int32)
    if streams == 1:
        return stream
    depth = (streams - 1).bit_length()
    # Padded so that every probe is in range; padding entries are never <= an id.
    bounds = jnp.asarray(np.concatenate([starts[:-1], np.full(1 << depth, starts[-1])]))
    for level in reversed(range(depth)):
        probe = stream + (1 << level)
        stream = jnp.where(bounds[probe] <= ids, probe, stream)
    return stream


# Groups drawn per loop iteration: small enough that the last few iterations, which draw
# for a handful of groups, cost little, and that a chunk's arrays stay in cache.
QUEUE_CHUNK = 32768


def multinomial_uniforms(xp, key, counter_lo, counter_hi, batch, num_samples):
    """The ``[batch, num_samples]`` doubles TF's multinomial kernel draws with
    ``SimplePhilox::RandDouble`` (two words each, rows one after another): the layout of a
    single shard, which is how TF runs batches whose cost is small."""
    words = 2 * batch * num_samples
    blocks = philox_blocks(
        xp, key, counter_lo, counter_hi, xp.arange(-(-words // 4), dtype=xp.int64)
    ).reshape(-1)[:words]
    return _unit_float64(xp, blocks[0::2], blocks[1::2]).reshape(batch, num_samples)


def stateful_counter(xp, seed2, run_index, size):
    """The 128-bit counter ``(lo, hi)`` of a seeded stateful op (TF's ``GuardedPhiloxRandom``:
    ``PhiloxRandom(seed, seed2)`` has counter ``seed2 << 64``) after ``run_index`` earlier
    runs, each of which reserved ``size * 256`` blocks (``ReserveRandomOutputs(size, 256)``).

    ``run_index`` may be traced (uint32 or smaller); ``size`` is a Python int."""
    reserved = size * 256
    run = xp.asarray(run_index).astype(xp.uint64)
    limbs = [xp.uint64((reserved >> shift) & _MASK32) for shift in (0, 32, 64)]
    low = run * limbs[0]  # each partial product < 2^64
    mid = run * limbs[1]
    lo = low + (mid << xp.uint64(32))
    carry = (lo < low).astype(xp.uint64)
    hi = xp.asarray(seed2 % (1 << 64), xp.uint64) + (mid >> xp.uint64(32)) + carry
    return lo, hi + run * limbs[2]
