"""JAX lowerings of array ops (placeholders, identity, shapes, reshaping, joining, padding).

Shape-valued inputs (``Reshape``'s ``shape``, ``Fill``'s ``dims``, axes, paddings) must be
known when XLA compiles the function. Two things keep them static: ``Const`` lowers to a
numpy array and ``Shape``/``Size``/``Rank`` to numpy values of the (static) traced shapes,
and the interpreter runs an op by its numpy kernel when all its inputs are numpy values.
So ``tf.reshape(x, [tf.shape(x)[0], -1])`` compiles.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from lowering import static as static_lib
from lowering.registry import lowering
from tfcompat.framework import errors

is_static = static_lib.is_static
static_value = static_lib.static_value
static_ints = static_lib.static_ints
static_int = static_lib.static_int


@lowering("Const")
def _const(ctx, op):
    return op.attrs["value"]  # numpy: stays static for shape computations


@lowering("Placeholder")
def _placeholder(ctx, op):
    # Reached only when not fed; plan.build_plan reports this before tracing.
    raise errors.InvalidArgumentError(
        None, op, f"You must feed a value for placeholder tensor '{op.name}'"
    )


@lowering("PlaceholderWithDefault", "Identity", "StopGradient")
def _identity(ctx, op, x):
    return x


@lowering("IdentityN")
def _identity_n(ctx, op, *xs):
    return tuple(xs)


# -- shapes (always static under jit) ---------------------------------------------------------
def _out_type(op):
    return op.attrs["out_type"].as_numpy_dtype


@lowering("Shape")
def _shape(ctx, op, x):
    return np.asarray(np.shape(x), dtype=_out_type(op))


@lowering("ShapeN")
def _shape_n(ctx, op, *xs):
    return tuple(np.asarray(np.shape(x), dtype=_out_type(op)) for x in xs)


@lowering("Size")
def _size(ctx, op, x):
    return np.asarray(np.size(x), dtype=_out_type(op))


@lowering("Rank")
def _rank(ctx, op, x):
    return np.asarray(np.ndim(x), dtype=np.int32)


# -- reshaping --------------------------------------------------------------------------------
@lowering("Reshape")
def _reshape(ctx, op, x, shape):
    return jnp.reshape(x, static_ints(op, 1, shape))


@lowering("ExpandDims")
def _expand_dims(ctx, op, x, axis):
    return jnp.expand_dims(x, static_int(op, 1, axis))


@lowering("Squeeze")
def _squeeze(ctx, op, x):
    axes = op.attrs["squeeze_dims"]
    if not axes:
        axes = [i for i, d in enumerate(jnp.shape(x)) if d == 1]
    return jnp.squeeze(x, tuple(axes))


@lowering("Transpose")
def _transpose(ctx, op, x, perm):
    return jnp.transpose(x, static_ints(op, 1, perm))


@lowering("ConjugateTranspose")
def _conjugate_transpose(ctx, op, x, perm):
    return jnp.conj(jnp.transpose(x, static_ints(op, 1, perm)))


# -- joining and splitting --------------------------------------------------------------------
@lowering("ConcatV2")
def _concat_v2(ctx, op, *args):
    return jnp.concatenate(args[:-1], axis=static_int(op, len(args) - 1, args[-1]))


@lowering("Concat")
def _concat(ctx, op, axis, *values):
    return jnp.concatenate(values, axis=static_int(op, 0, axis))


@lowering("Split")
def _split(ctx, op, axis, x):
    return tuple(jnp.split(x, op.attrs["num_split"], axis=static_int(op, 0, axis)))


def split_points(sizes, total):
    """Cut points for SplitV: ``sizes`` with one -1 standing for the remainder."""
    sizes = list(sizes)
    if -1 in sizes:
        sizes[sizes.index(-1)] = total - (sum(sizes) + 1)
    return np.cumsum(sizes)[:-1].tolist()


@lowering("SplitV")
def _split_v(ctx, op, x, sizes, axis):
    axis = static_int(op, 2, axis)
    points = split_points(static_ints(op, 1, sizes), jnp.shape(x)[axis])
    return tuple(jnp.split(x, points, axis=axis))


@lowering("ConcatOffset")
def _concat_offset(ctx, op, axis, *shapes):
    # Shapes are static under jit (Shape lowers to numpy), so this usually runs in numpy.
    axis = static_int(op, 0, axis)
    sizes = jnp.stack([jnp.asarray(s)[axis] for s in shapes])
    starts = jnp.cumsum(sizes) - sizes
    one_hot = jnp.zeros(len(shapes[0]), sizes.dtype).at[axis].set(1)
    return tuple(start * one_hot for start in starts)


@lowering("Pack")
def _pack(ctx, op, *xs):
    return jnp.stack(xs, axis=op.attrs["axis"])


@lowering("Unpack")
def _unpack(ctx, op, x):
    moved = jnp.moveaxis(x, op.attrs["axis"], 0)
    return tuple(moved[i] for i in range(op.attrs["num"]))


# -- tiling, padding, reversing, broadcasting -------------------------------------------------
@lowering("Tile")
def _tile(ctx, op, x, multiples):
    return jnp.tile(x, static_ints(op, 1, multiples))


def _paddings(op, value):
    return [tuple(p) for p in static_value(op, 1, value).reshape(-1, 2).tolist()]


@lowering("Pad")
def _pad(ctx, op, x, paddings):
    return jnp.pad(x, _paddings(op, paddings))


@lowering("PadV2")
def _pad_v2(ctx, op, x, paddings, value):
    return jnp.pad(x, _paddings(op, paddings), constant_values=value)


@lowering("MirrorPad")
def _mirror_pad(ctx, op, x, paddings):
    mode = op.attrs["mode"].decode().lower()  # reflect / symmetric, as numpy names them
    return jnp.pad(x, _paddings(op, paddings), mode=mode)


@lowering("MirrorPadGrad")
def _mirror_pad_grad(ctx, op, grad, paddings):
    # The transpose of the mirror pad: JAX derives the fold of each border onto the copied
    # rows from jnp.pad (a linear map, so the vjp at any point is the same).
    widths = _paddings(op, paddings)
    mode = op.attrs["mode"].decode().lower()
    in_shape = [n - lo - hi for n, (lo, hi) in zip(jnp.shape(grad), widths)]
    _, pullback = jax.vjp(lambda x: jnp.pad(x, widths, mode=mode), jnp.zeros(in_shape, grad.dtype))
    return pullback(grad)[0]


@lowering("ReverseV2")
def _reverse_v2(ctx, op, x, axis):
    return jnp.flip(x, tuple(static_ints(op, 1, axis)))


@lowering("Reverse")
def _reverse(ctx, op, x, dims):
    flags = static_value(op, 1, dims).reshape(-1)
    return jnp.flip(x, tuple(i for i, f in enumerate(flags) if f))


@lowering("BroadcastTo")
def _broadcast_to(ctx, op, x, shape):
    return jnp.broadcast_to(x, static_ints(op, 1, shape))


# -- filling -----------------------------------------------------------------------------------
@lowering("Fill")
def _fill(ctx, op, dims, value):
    return jnp.full(static_ints(op, 0, dims), value, dtype=op.attrs["T"].as_numpy_dtype)


@lowering("ZerosLike")
def _zeros_like(ctx, op, x):
    return jnp.zeros_like(x)


@lowering("OnesLike")
def _ones_like(ctx, op, x):
    return jnp.ones_like(x)


@lowering("EnsureShape")
def _ensure_shape(ctx, op, x):
    from tfcompat.ops.tensor_utils_api import check_shape

    check_shape(op, x.shape)  # shapes are static in the step: checked while tracing
    return x


@lowering("ReverseSequence")
def _reverse_sequence(ctx, op, x, lengths):
    from lowering.control_flow import kernel_check
    from lowering.reference import array as reference

    x, lengths = jnp.asarray(x), jnp.asarray(lengths).reshape(-1)
    seq_dim, batch_dim = op.attrs["seq_dim"], op.attrs["batch_dim"]
    reference.check_reverse_sequence_lengths(op, x.shape, lengths.size)
    bad = (lengths < 0) | (lengths > x.shape[seq_dim])
    first = jnp.argmax(bad)
    kernel_check(
        ctx,
        op,
        jnp.any(bad),
        [first, lengths[first]],
        lambda index, length: reference.reverse_sequence_message(op, index, length),
    )
    return reference.reverse_sequence(x, lengths, seq_dim, batch_dim, jnp)


def _bound(side):
    def rule(ctx, op, sorted_inputs, values):
        dtype = op.attrs["out_type"].as_numpy_dtype
        search = jax.vmap(lambda row, v: jnp.searchsorted(row, v, side=side))
        return search(sorted_inputs, values).astype(dtype)

    return rule


lowering("LowerBound")(_bound("left"))
lowering("UpperBound")(_bound("right"))


@lowering("Bitcast")
def _bitcast(ctx, op, x):
    # lax's bitcast has TF's shape rule: a narrower type adds a last axis, a wider one
    # consumes it.
    return jax.lax.bitcast_convert_type(x, op.attrs["type"].as_numpy_dtype)
