"""JAX lowerings of random ops.

Seeded ``RandomUniform``, ``RandomUniformInt``, ``RandomStandardNormal`` and
``TruncatedNormal`` (either of the ``seed``/``seed2`` attrs nonzero) are TF's exact streams
(``lowering/philox.py``): TF's ``GuardedPhiloxRandom`` is ``Philox(key=seed, counter=seed2 <<
64)`` and every run of the op reserves ``256 * size`` blocks. The op's k-th run draws at
offset ``(k - 1) * 256 * size`` where k is the Session's run counter (``compile.RunSeed``),
so the values equal TF's for the first run of a fresh Session (seeded initializers give TF's
exact initial weights) and for every run of an op that runs in every ``Session.run``; an op
skipped in some runs still draws new values each run, at other offsets than TF's.

The other ops (and every unseeded op) derive a JAX key from the attrs and the run seed:

* seeded ops: ``key(seed, seed2)`` folded with the run counter, so a fresh Session repeats
  the same values run by run, and each run draws new ones;
* unseeded ops (both zero, TF's "nondeterministic"): the Session's entropy and the op's
  name folded with the run counter, so Sessions differ and ops differ from each other.

Two ops with the same seeds draw the same values, as in TF. JAX's generators give other
values than TF's; the distributions are TF's. Output shapes must be static.
"""

from __future__ import annotations

import zlib

import jax
import jax.numpy as jnp
import numpy as np

from lowering import philox
from lowering.array import static_int, static_ints
from lowering.compile import RANDOM_OP_TYPES
from lowering.registry import STEP_PREPARERS, lowering
from tfcompat.ops.random_ops import RANDOM_OP_TYPES as _OP_TYPES

RANDOM_OP_TYPES.update(_OP_TYPES)

# TF's truncated normal redraws samples more than two standard deviations from the mean.
TRUNCATION = 2.0
_SEEDED, _UNSEEDED = 0, 1  # distinct root keys for the two kinds of streams


def _fold_int64(key, value):
    """Folds a (possibly 64-bit) Python int into ``key`` as two 32-bit words."""
    value = int(value) % (1 << 64)
    key = jax.random.fold_in(key, value & 0xFFFFFFFF)
    return jax.random.fold_in(key, value >> 32)


def op_key(ctx, op):
    """The key of ``op`` for this run (see the module docstring)."""
    seed, seed2 = op.attrs["seed"], op.attrs["seed2"]
    run = ctx.rng_key
    if seed == 0 and seed2 == 0:
        key = jax.random.fold_in(jax.random.key(_UNSEEDED), run.entropy)
        key = jax.random.fold_in(key, zlib.crc32(op.name.encode()))
    else:
        # The seeds are attributes: their four fold-ins run now, once, instead of in every
        # compiled step (each is a threefry hash: the wide & deep initializer's 29 random ops
        # made 145 of them, and XLA:GPU took 22 s to compile that program).
        with jax.ensure_compile_time_eval():
            key = _fold_int64(_fold_int64(jax.random.key(_SEEDED), seed), seed2)
    return jax.random.fold_in(key, run.counter)


def _np_dtype(op, attr):
    return op.attrs[attr].as_numpy_dtype


def _float_sample(draw, dtype):
    """Draws in at least float32 (JAX's samplers for 16-bit floats are coarse) and casts."""
    wide = jnp.promote_types(dtype, jnp.float32)
    return draw(wide).astype(dtype)


def is_seeded(op) -> bool:
    return op.attrs["seed"] != 0 or op.attrs["seed2"] != 0


def tf_stream(ctx, op, size):
    """``(key, counter_lo, counter_hi)`` of a seeded op's TF generator in this run."""
    run_index = jnp.asarray(ctx.rng_key.counter).astype(jnp.uint32) - jnp.uint32(1)
    counter = philox.stateful_counter(jnp, op.attrs["seed2"], run_index, size)
    return (jnp.uint64(op.attrs["seed"] % (1 << 64)), *counter)


def _tf_sample(ctx, op, shape, dtype, distribution):
    """TF's exact values of a seeded op: ``distribution(blocks)`` over its stream."""
    size = int(np.prod(shape, dtype=np.int64))
    stream = tf_stream(ctx, op, size)
    return philox.fill(jnp, *stream, size, dtype, distribution).reshape(shape)


@lowering("RandomUniform")
def _random_uniform(ctx, op, shape):
    dtype = _np_dtype(op, "dtype")
    shape = tuple(static_ints(op, 0, shape))
    if is_seeded(op):
        return _tf_sample(ctx, op, shape, dtype, lambda b: philox.uniform_float(jnp, b, dtype))
    sample = jax.random.uniform(op_key(ctx, op), shape, jnp.promote_types(dtype, jnp.float32))
    # Rounding to a narrower float must not reach 1.0: the range is [0, 1).
    below_one = np.nextafter(np.asarray(1, dtype), np.asarray(0, dtype))
    return jnp.minimum(sample.astype(dtype), below_one)


@lowering("RandomUniformInt")
def _random_uniform_int(ctx, op, shape, minval, maxval):
    dtype = _np_dtype(op, "Tout")
    shape = tuple(static_ints(op, 0, shape))
    if is_seeded(op):
        return _tf_sample(
            ctx, op, shape, dtype, lambda b: philox.uniform_int(jnp, b, dtype, minval, maxval)
        )
    return jax.random.randint(op_key(ctx, op), shape, minval, maxval, dtype=dtype)


@lowering("RandomStandardNormal")
def _random_standard_normal(ctx, op, shape):
    shape = tuple(static_ints(op, 0, shape))
    dtype = _np_dtype(op, "dtype")
    if is_seeded(op):
        return _tf_sample(ctx, op, shape, dtype, lambda b: philox.normal(jnp, b, dtype))
    key = op_key(ctx, op)
    return _float_sample(lambda d: jax.random.normal(key, shape, d), dtype)


def _predraw_truncated_normals(ops, ctx):
    """Draws a step's seeded truncated normals of each dtype in one loop
    (``philox.truncated_normals``) and leaves them in ``ctx.truncated_normals``: an
    initializer of 26 embedding tables compiled the redraw loop 26 times (about 8 s on
    XLA:CPU) where one loop over all the tables compiles once. Ops with a static shape
    only; the rest draw alone."""
    by_dtype = {}
    for op in ops:
        if op.type == "TruncatedNormal" and is_seeded(op):
            if op.outputs[0].shape.is_fully_defined():
                by_dtype.setdefault(_np_dtype(op, "dtype"), []).append(op)
    ctx.truncated_normals = drawn = {}
    for dtype, group in by_dtype.items():
        if len(group) < 2:
            continue
        shapes = [tuple(op.outputs[0].shape.as_list()) for op in group]
        sizes = [int(np.prod(shape, dtype=np.int64)) for shape in shapes]
        streams = [(*tf_stream(ctx, op, size), size) for op, size in zip(group, sizes)]
        for op, shape, values in zip(group, shapes, philox.truncated_normals(streams, dtype)):
            drawn[id(op)] = values.reshape(shape)


STEP_PREPARERS.append(_predraw_truncated_normals)


@lowering("TruncatedNormal")
def _truncated_normal(ctx, op, shape):
    shape = tuple(static_ints(op, 0, shape))
    dtype = _np_dtype(op, "dtype")
    drawn = getattr(ctx, "truncated_normals", {}).get(id(op))
    if drawn is not None:
        return drawn
    if is_seeded(op):
        size = int(np.prod(shape, dtype=np.int64))
        return philox.truncated_normal_jax(*tf_stream(ctx, op, size), size, dtype).reshape(shape)
    key = op_key(ctx, op)
    return _float_sample(
        lambda d: jax.random.truncated_normal(key, -TRUNCATION, TRUNCATION, shape, d), dtype
    )


@lowering("RandomShuffle")
def _random_shuffle(ctx, op, value):
    if jnp.ndim(value) == 0:
        return value
    return jax.random.permutation(op_key(ctx, op), value, axis=0)


@lowering("Multinomial")
def _multinomial(ctx, op, logits, num_samples):
    samples = static_int(op, 1, num_samples)
    logits = jnp.asarray(logits).astype(jnp.promote_types(logits.dtype, jnp.float32))
    batch = logits.shape[0]
    draws = jax.random.categorical(op_key(ctx, op), logits, axis=-1, shape=(samples, batch))
    return draws.T.astype(_np_dtype(op, "output_dtype"))


@lowering("RandomGamma")
def _random_gamma(ctx, op, shape, alpha):
    dtype = _np_dtype(op, "T")
    out_shape = tuple(static_ints(op, 0, shape)) + tuple(jnp.shape(alpha))
    wide = jnp.promote_types(dtype, jnp.float32)
    key = op_key(ctx, op)
    return jax.random.gamma(key, jnp.asarray(alpha, wide), out_shape, wide).astype(dtype)


@lowering("RandomPoissonV2")
def _random_poisson(ctx, op, shape, rate):
    out_shape = tuple(static_ints(op, 0, shape)) + tuple(jnp.shape(rate))
    rate = jnp.asarray(rate).astype(jnp.float64)
    counts = jax.random.poisson(op_key(ctx, op), rate, out_shape, dtype=jnp.int64)
    return counts.astype(_np_dtype(op, "dtype"))


@lowering("BroadcastArgs")
def _broadcast_args(ctx, op, s0, s1):
    # Left-pads the shorter shape with ones; a 1 takes the other side's size.
    rank = max(jnp.shape(s0)[0], jnp.shape(s1)[0])
    x = jnp.concatenate([jnp.ones(rank - jnp.shape(s0)[0], s0.dtype), s0])
    y = jnp.concatenate([jnp.ones(rank - jnp.shape(s1)[0], s1.dtype), s1])
    return jnp.where(x == 1, y, x)


@lowering("RandomGammaGrad")
def _random_gamma_grad(ctx, op, alpha, sample):
    alpha, sample = jnp.broadcast_arrays(alpha, sample)
    return jax.lax.random_gamma_grad(alpha, sample)
