"""Numpy reference kernels of array ops (placeholders, identity, shapes, reshaping,
joining, padding, filling)."""

from __future__ import annotations

import math

import numpy as np

from lowering.reference.const_inputs import derived
from lowering.registry import reference
from tfcompat.framework import errors


def _ints(value):
    return [int(v) for v in np.asarray(value).reshape(-1)]


@reference("Const")
def _const(ctx, op):
    return op.attrs["value"]


@reference("Placeholder")
def _placeholder(ctx, op):
    raise errors.InvalidArgumentError(
        None, op, f"You must feed a value for placeholder tensor '{op.name}'"
    )


@reference("PlaceholderWithDefault", "Identity", "StopGradient")
def _identity(ctx, op, x):
    return np.asarray(x) if not isinstance(x, np.ndarray) else x


@reference("IdentityN")
def _identity_n(ctx, op, *xs):
    return tuple(xs)


# -- shapes -------------------------------------------------------------------------------------
@reference("Shape")
def _shape(ctx, op, x):
    return np.array(np.shape(x), dtype=op.attrs["out_type"].as_numpy_dtype)


@reference("ShapeN")
def _shape_n(ctx, op, *xs):
    return tuple(np.array(np.shape(x), dtype=op.attrs["out_type"].as_numpy_dtype) for x in xs)


@reference("Size")
def _size(ctx, op, x):
    return np.array(np.size(x), dtype=op.attrs["out_type"].as_numpy_dtype)


@reference("Rank")
def _rank(ctx, op, x):
    return np.array(np.ndim(x), dtype=np.int32)


# -- reshaping ----------------------------------------------------------------------------------
def _reshape_target(_, shape):
    """(target dims, product of the known ones, whether one is -1)."""
    target = _ints(shape)
    return target, math.prod(d for d in target if d != -1), -1 in target


@reference("Reshape")
def _reshape(ctx, op, x, shape):
    x = np.asarray(x)
    target, known, inferred = derived(op, 1, (shape,), None, _reshape_target)
    if inferred and (known == 0 or x.size % known) or not inferred and known != x.size:
        raise errors.InvalidArgumentError(
            None,
            op,
            f"Input to reshape is a tensor with {x.size} values, but the requested shape "
            f"has {known}\n\t [[{{{{node {op.name}}}}}]]",
        )
    return x.reshape(target)


@reference("ExpandDims")
def _expand_dims(ctx, op, x, axis):
    return np.expand_dims(np.asarray(x), int(np.asarray(axis).reshape(())))


@reference("Squeeze")
def _squeeze(ctx, op, x):
    x = np.asarray(x)
    axes = op.attrs["squeeze_dims"] or [i for i, d in enumerate(x.shape) if d == 1]
    return np.squeeze(x, axis=tuple(axes))


@reference("Transpose")
def _transpose(ctx, op, x, perm):
    return np.transpose(np.asarray(x), _ints(perm)).copy()


@reference("ConjugateTranspose")
def _conjugate_transpose(ctx, op, x, perm):
    return np.conj(np.transpose(np.asarray(x), _ints(perm)))


# -- joining and splitting ----------------------------------------------------------------------
@reference("ConcatV2")
def _concat_v2(ctx, op, *args):
    return np.concatenate([np.asarray(v) for v in args[:-1]], axis=int(args[-1]))


@reference("Concat")
def _concat(ctx, op, axis, *values):
    return np.concatenate([np.asarray(v) for v in values], axis=int(axis))


@reference("Split")
def _split(ctx, op, axis, x):
    x = np.asarray(x)
    axis = int(axis)
    num = op.attrs["num_split"]
    if x.shape[axis] % num:
        raise errors.InvalidArgumentError(
            None,
            op,
            f"Number of ways to split should evenly divide the split dimension, "
            f"but got split_dim {axis} (size = {x.shape[axis]}) and num_split {num}",
        )
    return tuple(np.split(x, num, axis=axis))


@reference("SplitV")
def _split_v(ctx, op, x, sizes, axis):
    x = np.asarray(x)
    axis = int(axis)
    sizes = _ints(sizes)
    total = x.shape[axis]
    if -1 in sizes:
        sizes[sizes.index(-1)] = total - sum(s for s in sizes if s != -1)
    if sum(sizes) != total or min(sizes) < 0:
        raise errors.InvalidArgumentError(
            None,
            op,
            f"Determined shape must either match input shape along split_dim "
            f"exactly if fully specified, or be less than the size of the input along "
            f"split_dim if not fully specified.  Got: {sum(sizes)}",
        )
    bounds = np.cumsum([0] + sizes)
    index = [slice(None)] * x.ndim
    pieces = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        index[axis] = slice(int(lo), int(hi))
        pieces.append(x[tuple(index)])
    return tuple(pieces)


@reference("ConcatOffset")
def _concat_offset(ctx, op, axis, *shapes):
    axis = int(np.asarray(axis))
    out, start = [], 0
    for s in shapes:
        offset = np.zeros_like(np.asarray(s))
        offset[axis] = start
        start += int(np.asarray(s)[axis])
        out.append(offset)
    return tuple(out)


@reference("Pack")
def _pack(ctx, op, *xs):
    axis = op.attrs["axis"]
    if axis == 0 and all(isinstance(x, (np.ndarray, np.generic)) and not x.ndim for x in xs):
        # Scalars (shape arithmetic): one array from the list, without np.stack's checks.
        dtype = xs[0].dtype
        if dtype.kind != "O" and all(x.dtype == dtype for x in xs):
            return np.array(xs, dtype=dtype)
    return np.stack([np.asarray(x) for x in xs], axis=axis)


@reference("Unpack")
def _unpack(ctx, op, x):
    x = np.asarray(x)
    return tuple(np.take(x, i, axis=op.attrs["axis"]) for i in range(op.attrs["num"]))


# -- tiling, padding, reversing, broadcasting ---------------------------------------------------
@reference("Tile")
def _tile(ctx, op, x, multiples):
    return np.tile(np.asarray(x), _ints(multiples))


def _pad_widths(op, x, paddings):
    widths = np.asarray(paddings).reshape(-1, 2)
    if widths.shape[0] != np.ndim(x) or (widths < 0).any():
        raise errors.InvalidArgumentError(
            None,
            op,
            f"The first dimension of paddings must be the rank of inputs"
            f"{list(widths.shape)} {list(np.shape(x))}",
        )
    return [tuple(int(v) for v in row) for row in widths]


@reference("Pad")
def _pad(ctx, op, x, paddings):
    return np.pad(np.asarray(x), _pad_widths(op, x, paddings))


@reference("PadV2")
def _pad_v2(ctx, op, x, paddings, value):
    return np.pad(np.asarray(x), _pad_widths(op, x, paddings), constant_values=value)


@reference("MirrorPad")
def _mirror_pad(ctx, op, x, paddings):
    widths = _pad_widths(op, x, paddings)
    mode = op.attrs["mode"].decode().lower()
    return np.pad(np.asarray(x), widths, mode=mode)


@reference("MirrorPadGrad")
def _mirror_pad_grad(ctx, op, grad, paddings):
    """Adds each mirrored border back onto the rows it copies, one dimension at a time."""
    grad = np.asarray(grad)
    skip_edge = 1 if op.attrs["mode"] == b"REFLECT" else 0
    for axis, (lo, hi) in enumerate(_pad_widths(op, grad, paddings)):
        g = np.moveaxis(grad, axis, 0)
        n = g.shape[0] - lo - hi
        core = g[lo : lo + n].copy()
        for i in range(lo):  # padded row i mirrors input row lo - i - 1 + skip_edge
            core[lo - i - 1 + skip_edge] += g[i]
        for i in range(hi):  # padded row lo + n + i mirrors row n - 1 - i - skip_edge
            core[n - 1 - i - skip_edge] += g[lo + n + i]
        grad = np.moveaxis(core, 0, axis)
    return grad


@reference("ReverseV2")
def _reverse_v2(ctx, op, x, axis):
    return np.flip(np.asarray(x), tuple(_ints(axis))).copy()


@reference("Reverse")
def _reverse(ctx, op, x, dims):
    flags = np.asarray(dims).reshape(-1)
    return np.flip(np.asarray(x), tuple(np.flatnonzero(flags).tolist())).copy()


@reference("BroadcastTo")
def _broadcast_to(ctx, op, x, shape):
    return np.broadcast_to(np.asarray(x), _ints(shape)).copy()


# -- filling ------------------------------------------------------------------------------------
@reference("Fill")
def _fill(ctx, op, dims, value):
    dims = _ints(dims)
    if any(d < 0 for d in dims):
        raise errors.InvalidArgumentError(
            None, op, f"dims must be a vector of non-negative integers, got {dims}"
        )
    value = np.asarray(value)
    return np.full(dims, value.reshape(()), dtype=value.dtype)


@reference("ZerosLike")
def _zeros_like(ctx, op, x):
    x = np.asarray(x)
    if x.dtype == object:
        return np.full(x.shape, b"", dtype=object)
    return np.zeros_like(x)


@reference("OnesLike")
def _ones_like(ctx, op, x):
    return np.ones_like(np.asarray(x))


@reference("EnsureShape")
def _ensure_shape(ctx, op, x):
    from tfcompat.ops.tensor_utils_api import check_shape

    check_shape(op, np.shape(x))
    return x


# ---------------------------------------------------------------------------------------------
# ReverseSequence
# ---------------------------------------------------------------------------------------------
def reverse_sequence_sources(lengths, size, xp=np):
    """``[batch, size]``: for each batch entry, the position along the sequence axis each
    output position reads (the first ``lengths[b]`` reversed, the rest in place)."""
    position = xp.arange(size)[None, :]
    lengths = lengths.astype(position.dtype)[:, None]
    return xp.where(position < lengths, lengths - 1 - position, position)


def reverse_sequence_message(op, index, length):
    """TF's CPU kernel's text for the first bad length."""
    seq_dim = op.attrs["seq_dim"]
    relation = "< 0" if length < 0 else f"> input.dims({seq_dim})"
    return f"seq_lens({int(index)}) {relation}\n\t [[{{{{node {op.name}}}}}]]"


def check_reverse_sequence_lengths(op, shape, count):
    """TF's kernel's checks of the axes and of one length per batch entry (all static
    under XLA)."""
    seq_dim, batch_dim = op.attrs["seq_dim"], op.attrs["batch_dim"]
    for axis_name, axis in (("batch_dim", batch_dim), ("seq_dim", seq_dim)):
        if axis < 0:
            raise errors.InvalidArgumentError(
                None, op, f"Invalid {axis_name} {axis}\n\t [[{{{{node {op.name}}}}}]]"
            )
    if batch_dim == seq_dim:
        raise errors.InvalidArgumentError(
            None, op, f"batch_dim == seq_dim == {seq_dim}\n\t [[{{{{node {op.name}}}}}]]"
        )
    if count != shape[batch_dim]:
        raise errors.InvalidArgumentError(
            None,
            op,
            f"Length of seq_lengths != input.dims({batch_dim}), ({count} vs. "
            f"{shape[batch_dim]})\n\t [[{{{{node {op.name}}}}}]]",
        )


def reverse_sequence(x, lengths, seq_dim, batch_dim, xp=np):
    """The reversal, as a gather along the sequence axis with per-batch sources."""
    sources = reverse_sequence_sources(lengths, x.shape[seq_dim], xp)  # [batch, size]
    shape = [1] * x.ndim
    shape[batch_dim], shape[seq_dim] = x.shape[batch_dim], x.shape[seq_dim]
    if batch_dim > seq_dim:
        sources = sources.T
    index = xp.broadcast_to(sources.reshape(shape), x.shape)
    return xp.take_along_axis(x, index, axis=seq_dim)


@reference("ReverseSequence")
def _reverse_sequence(ctx, op, x, lengths):
    x, lengths = np.asarray(x), np.asarray(lengths).reshape(-1)
    seq_dim, batch_dim = op.attrs["seq_dim"], op.attrs["batch_dim"]
    check_reverse_sequence_lengths(op, x.shape, lengths.size)
    bad = np.flatnonzero((lengths < 0) | (lengths > x.shape[seq_dim]))
    if bad.size:
        raise errors.InvalidArgumentError(
            None, op, reverse_sequence_message(op, bad[0], lengths[bad[0]])
        )
    return reverse_sequence(x, lengths, seq_dim, batch_dim)


def _bound(side):
    def kernel(ctx, op, sorted_inputs, values):
        sorted_inputs, values = np.asarray(sorted_inputs), np.asarray(values)
        if sorted_inputs.shape[:-1] != values.shape[:-1]:
            raise errors.InvalidArgumentError(
                None,
                op,
                "Leading dim_size of both tensors must match.",
            )
        dtype = op.attrs["out_type"].as_numpy_dtype
        rows = [np.searchsorted(s, v, side=side) for s, v in zip(sorted_inputs, values)]
        return np.array(rows, dtype=dtype).reshape(values.shape)

    return kernel


reference("LowerBound")(_bound("left"))
reference("UpperBound")(_bound("right"))


@reference("Bitcast")
def _bitcast(ctx, op, x):
    x = np.ascontiguousarray(x)
    target = np.dtype(op.attrs["type"].as_numpy_dtype)
    if x.dtype.itemsize == target.itemsize:
        return x.view(target)
    if x.dtype.itemsize > target.itemsize:
        return x.reshape(x.shape + (1,)).view(target)
    ratio = target.itemsize // x.dtype.itemsize
    if x.ndim == 0 or x.shape[-1] != ratio:
        raise errors.InvalidArgumentError(
            None,
            op,
            f"Cannot bitcast due to shape. {x.shape[-1] if x.ndim else 0} does not match {ratio}",
        )
    return x.view(target).reshape(x.shape[:-1])
