"""JAX lowerings of convolution and pooling ops.

Convolutions are ``lax.conv_general_dilated`` with the op's data format as dimension
numbers and TF's padding (SAME splits the total padding with the smaller half first, as
XLA's SAME does). The backprop ops are the linear transposes of the forward convolution
(``jax.linear_transpose``), which XLA emits as convolutions with dilated inputs or flipped,
transposed kernels: the same HLO a hand-written transposed convolution gives. On CPU they
run on XLA's multi-threaded Eigen kernels (``compile.CPU_COMPILER_OPTIONS``) at about the
speed of a matmul of the same FLOPs, so im2col + dot only adds the patches (the LeNet
bench's second layer: forward 5.1 -> 37 ms, filter gradient 7.6 -> 43 ms; first layer,
one input channel: forward 2.0 -> 2.6 ms; ``bench/conv_lowering.py``). A one-channel
forward convolution as a sum of shifted slices times the taps ran 0.7 ms alone but made the
training step slower (35 vs 38 steps/s), so it is not used.

Max pooling follows TF's CPU kernels on NaN and ties (measured on TF 2.21): the spatial
forward ops skip NaN, 2-D ``MaxPoolGrad`` picks each window's first element and then only
strictly greater ones, ``MaxPool3DGrad`` every element equal to a finite output, and the
second-order ops the first element equal to ``orig_output`` (see each function).

Pooling gradients avoid ``select_and_scatter`` (what ``jax.vjp`` of a max ``reduce_window``
gives), which XLA's CPU backend runs slowly. ``MaxPoolGrad`` routes each output gradient to
the first maximum of its window in row-major order (TF's choice among tied values): one
strided slice of the padded input per window offset (a loop over the ``prod(ksize)``
offsets, not over elements) finds each window's first maximum with strict comparisons, and
each offset's share of the gradient is placed back with an interior-padded ``lax.pad``.

Measured with ``bench/pooling_grad.py`` (CPU, float32 [64, 28, 28, 32], jitted gradient
alone, two runs on a shared 2-core machine): 2x2/2 VALID: select_and_scatter 79-83 ms,
offset scheme 2.1-2.9 ms (28-37x); 3x3/2 SAME: 133-142 ms vs 4.9-13.5 ms (10-29x). A
reshape scheme for windows that tile the input (``[..., out, window, ...]``, compare with
the window maximum, take the smallest in-window index) took 7.8 ms on the 2x2/2 case,
slower than the offsets. Disjoint windows (stride == window, no padding) still take a
reshaped form (``_first_max_tiled``): the offsets' first-maximum index, then one
elementwise select over ``[out, window, ...]``, 0.6 vs 1.0 ms alone and, unlike the
scattered shares, fusing into a training step's consumers of the gradient.
"""

from __future__ import annotations

import functools
import itertools

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from lowering.array import static_ints
from lowering.registry import lowering
from tfcompat.framework import errors


# ---------------------------------------------------------------------------------------------
# Windows and padding
# ---------------------------------------------------------------------------------------------
def data_layout(data_format: bytes, rank: int):
    """``(batch axis, channel axis, spatial axes)`` of ``data_format``."""
    if data_format.startswith(b"NC"):
        return 0, 1, list(range(2, rank))
    return 0, rank - 1, list(range(1, rank - 1))


def window_pads(sizes, windows, strides, dilations, padding, explicit=None):
    """Per axis ``(before, after)`` padding as TF computes it: none for VALID, the given
    pairs for EXPLICIT, and for SAME the padding that gives ``ceil(size / stride)`` outputs,
    its smaller half first."""
    pads = []
    for axis, (size, k, s, d) in enumerate(zip(sizes, windows, strides, dilations)):
        if padding == b"EXPLICIT":
            pads.append((explicit[2 * axis], explicit[2 * axis + 1]))
        elif padding == b"VALID":
            pads.append((0, 0))
        else:
            out = -(-size // s)
            total = max((out - 1) * s + (k - 1) * d + 1 - size, 0)
            pads.append((total // 2, total - total // 2))
    return pads


def _check_unit(op, values, what):
    """TF's kernels convolve and pool over the spatial dims only (MaxPool may also pool the
    channel dim, which the pooling rules handle)."""
    batch, channel, _ = data_layout(op.attrs["data_format"], len(values))
    if values[batch] != 1 or values[channel] != 1:
        raise errors.InvalidArgumentError(
            None,
            op,
            f"Current implementation does not yet support {what} in the batch and depth "
            f"dimensions.\n\t [[{{{{node {op.name}}}}}]]",
        )


# ---------------------------------------------------------------------------------------------
# Convolution
# ---------------------------------------------------------------------------------------------
_SPATIAL_LETTERS = {1: "W", 2: "HW", 3: "DHW"}


def _dimension_numbers(data_format: bytes, n: int):
    fmt = data_format.decode()
    return (fmt, _SPATIAL_LETTERS[n] + "IO", fmt)


def _conv_fn(op, x_shape, w_shape, depthwise):
    """``f(x, w)``: the op's forward convolution for inputs of these shapes."""
    rank = len(x_shape)
    data_format = op.attrs["data_format"]
    _, channel, spatial = data_layout(data_format, rank)
    strides, dilations = op.attrs["strides"], op.attrs["dilations"]
    _check_unit(op, strides, "strides")
    _check_unit(op, dilations, "dilations")
    n = rank - 2
    window_strides = [strides[a] for a in spatial]
    rhs_dilation = [dilations[a] for a in spatial]
    explicit = op.attrs.get("explicit_paddings") or None
    if explicit:
        explicit = [explicit[i] for a in spatial for i in (2 * a, 2 * a + 1)]
    pads = window_pads(
        [x_shape[a] for a in spatial],
        list(w_shape[:n]),
        window_strides,
        rhs_dilation,
        op.attrs["padding"],
        explicit,
    )
    in_depth = x_shape[channel]
    if depthwise:
        groups = in_depth
    else:
        filter_in = w_shape[n]
        if filter_in == 0 or in_depth % filter_in:
            raise errors.InvalidArgumentError(
                None,
                op,
                f"input depth must be evenly divisible by filter depth: {in_depth} vs {filter_in}",
            )
        groups = in_depth // filter_in
    dimension_numbers = _dimension_numbers(data_format, n)

    def f(x, w):
        if depthwise:  # [..., in, multiplier] -> [..., 1, in * multiplier]
            w = w.reshape(tuple(w.shape[:n]) + (1, -1))
        return lax.conv_general_dilated(
            x,
            w,
            window_strides,
            pads,
            rhs_dilation=rhs_dilation,
            dimension_numbers=dimension_numbers,
            feature_group_count=groups,
        )

    return f


def _full_input_sizes(op, sizes, filt, grad):
    """``input_sizes`` of Conv2DBackpropInput may give only the spatial dims."""
    sizes = static_ints(op, 0, sizes)
    if len(sizes) != 2:
        return tuple(sizes)
    batch, _, spatial = data_layout(op.attrs["data_format"], 4)
    dims = [0] * 4
    dims[batch] = grad.shape[batch]
    dims[1 if op.attrs["data_format"] == b"NCHW" else 3] = filt.shape[2]
    for axis, size in zip(spatial, sizes):
        dims[axis] = size
    return tuple(dims)


def _forward_rule(depthwise):
    def rule(ctx, op, x, w):
        return _conv_fn(op, x.shape, w.shape, depthwise)(x, w)

    return rule


def _backprop_input_rule(depthwise):
    def rule(ctx, op, sizes, w, grad):
        x_shape = _full_input_sizes(op, sizes, w, grad)
        f = _conv_fn(op, x_shape, w.shape, depthwise)
        x_aval = jax.ShapeDtypeStruct(x_shape, grad.dtype)
        (dx,) = jax.linear_transpose(lambda x: f(x, w), x_aval)(grad)
        return dx

    return rule


def _filter_grad(f, x, w_shape, grad):
    """``d f(x, w) / d w`` applied to ``grad``: the linear transpose of ``f`` in ``w``, one
    convolution. (Summed over batch chunks it ran 2-3x faster on YNNPACK's convolutions,
    but no faster on the Eigen ones ``compile.CPU_COMPILER_OPTIONS`` picks: LeNet's second
    layer 7.6 ms whole vs 7.6 / 8.3 / 11.6 ms in chunks of 16 / 8 / 4 examples, a
    [128, 32, 32, 64] 3x3 layer 79 ms vs 79-97 ms.)"""
    w_aval = jax.ShapeDtypeStruct(w_shape, grad.dtype)
    (dw,) = jax.linear_transpose(lambda w: f(x, w), w_aval)(grad)
    return dw


def _backprop_filter_rule(depthwise):
    def rule(ctx, op, x, sizes, grad):
        w_shape = tuple(static_ints(op, 1, sizes))
        f = _conv_fn(op, x.shape, w_shape, depthwise)
        return _filter_grad(f, x, w_shape, grad)

    return rule


for _prefix, _depthwise, _bp_input, _bp_filter in (
    ("Conv2D", False, "Conv2DBackpropInput", "Conv2DBackpropFilter"),
    ("Conv3D", False, "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2"),
    (
        "DepthwiseConv2dNative",
        True,
        "DepthwiseConv2dNativeBackpropInput",
        "DepthwiseConv2dNativeBackpropFilter",
    ),
):
    lowering(_prefix)(_forward_rule(_depthwise))
    lowering(_bp_input)(_backprop_input_rule(_depthwise))
    lowering(_bp_filter)(_backprop_filter_rule(_depthwise))


# ---------------------------------------------------------------------------------------------
# Pooling windows
# ---------------------------------------------------------------------------------------------
def pool_window(op, shape, ksize=None, strides=None):
    """``(ksize, strides, pads)`` over every axis of a pooling op's input of ``shape``."""
    ksize = list(op.attrs["ksize"] if ksize is None else ksize)
    strides = list(op.attrs["strides"] if strides is None else strides)
    batch, _, _ = data_layout(op.attrs["data_format"], len(shape))
    if ksize[batch] != 1 or strides[batch] != 1:
        raise errors.InvalidArgumentError(
            None,
            op,
            f"Pooling is not yet supported on the batch dimension.\n\t [[{{{{node {op.name}}}}}]]",
        )
    pads = window_pads(
        shape,
        ksize,
        strides,
        [1] * len(shape),
        op.attrs["padding"],
        op.attrs.get("explicit_paddings") or None,
    )
    return ksize, strides, pads


def _lowest(dtype):
    # A numpy scalar, so that lax.reduce_window sees a known monoid (max with identity
    # -inf) and stays differentiable for jax.vjp.
    if jnp.issubdtype(dtype, jnp.floating):
        return np.array(-np.inf, dtype)
    return np.array(jnp.iinfo(dtype).min, dtype)


# Where TF's default x86 build runs a MaxPool / MaxPool3D graph without its gradient, it
# runs oneDNN kernels, which compute 16-bit floats in float32: a window with no number gives
# float32's lowest value, -inf once rounded to float16 / bfloat16. TF's own kernels (MaxPoolV2
# always, the others beside a gradient or under TF_ENABLE_ONEDNN_OPTS=0) start from the
# dtype's lowest finite value (-65504 in float16). We follow the forward-only graphs.
_FLOAT32_START = frozenset({"MaxPool", "MaxPool3D"})


def empty_window_value(dtype, float32_start=False):
    """What TF's max pooling gives for a window with no number in it (only NaN, -inf or
    padding): the lowest finite value of the dtype it computes in (float32 for 16-bit
    floats when ``float32_start``; integers: the minimum)."""
    dtype = np.dtype(dtype)
    if not jnp.issubdtype(dtype, jnp.floating):
        return np.array(jnp.iinfo(dtype).min, dtype)
    narrow = float32_start and jnp.finfo(dtype).bits < 32
    lowest = np.finfo(np.float32).min if narrow else jnp.finfo(dtype).min
    with np.errstate(over="ignore"):
        return np.asarray(lowest).astype(dtype)


def _in_bounds(shape, offset, out, strides, pads):
    """Which windows' element at ``offset`` lies in the input rather than the padding: a
    static boolean array that broadcasts against the output, or ``None`` when all do."""
    if all(p == (0, 0) for p in pads):
        return None
    mask = np.ones([1] * len(shape), bool)
    for axis, (size, o, n, s, (lo, _)) in enumerate(zip(shape, offset, out, strides, pads)):
        position = o - lo + np.arange(n) * s
        inside = (position >= 0) & (position < size)
        if not inside.all():
            dims = [1] * len(shape)
            dims[axis] = n
            mask = mask & inside.reshape(dims)
    return None if mask.all() else mask


# Max pooling takes the maximum of one strided slice per window offset when a window has at
# most this many offsets; larger windows use ``reduce_window``.
_MAX_POOL_OFFSETS = 32


def pool_output_shape(shape, ksize, strides, pads):
    return tuple(
        (size + lo + hi - k) // s + 1 for size, k, s, (lo, hi) in zip(shape, ksize, strides, pads)
    )


def max_pool(x, ksize, strides, pads, empty=None):
    """Max pooling as TF's spatial kernels do it: NaN, values below ``empty`` and padding
    count as absent, so a window gives the maximum of its other elements, or ``empty``
    (default: the dtype's lowest finite value) when none is left.

    Replacing the absent values by ``empty`` is one select that XLA fuses into the slices.
    The maximum is that of the padded input's strided slices, one per window offset (as
    ``first_max_index`` reads them): XLA:CPU runs this 1.5-4x faster than a max
    ``reduce_window`` and fuses it with the producer (the ReLU before each pool of a CNN):
    ``bench/conv_lowering.py``, ReLU + pool of float32 [64, 28, 28, 32], min ms: 2x2/2 VALID
    0.48 -> 0.29, 3x3/2 SAME 3.5 -> 1.3, 3x3/1 SAME 5.9 -> 1.5; [64, 14, 14, 64] 2x2/2:
    0.27 -> 0.16.
    """
    if empty is None:
        empty = empty_window_value(x.dtype)
    if jnp.issubdtype(x.dtype, jnp.floating):
        x = jnp.where(x > empty, x, empty)  # NaN compares false
    out = pool_output_shape(x.shape, ksize, strides, pads)
    if x.size == 0 or min(out) < 1 or int(np.prod(ksize)) > _MAX_POOL_OFFSETS:
        pooled = lax.reduce_window(x, _lowest(x.dtype), lax.max, ksize, strides, pads)
        return jnp.maximum(pooled, empty)  # windows of padding alone
    if any(p != (0, 0) for p in pads):
        x = lax.pad(x, empty, [(lo, hi, 0) for lo, hi in pads])
    slices = [_window_slice(x, offset, out, strides) for offset in _offsets(ksize)]
    return functools.reduce(lax.max, slices)


def depth_max_pool(x, ksize, strides, pads):
    """Max pooling over channels as TF's CPU kernel does it (a sequential ``max`` from each
    window's first element): NaN when the window starts with NaN, else the maximum of its
    other numbers (so a window of -inf gives -inf). Measured on windows of up to 5 channels
    (3 in float64); TF's vectorized reduction of wider windows depends on NaN positions."""
    out = pool_output_shape(x.shape, ksize, strides, pads)
    numbers = max_pool(x, ksize, strides, pads, _lowest(x.dtype))
    if not jnp.issubdtype(x.dtype, jnp.floating):
        return numbers
    first = _window_slice(
        lax.pad(x, _lowest(x.dtype), [(lo, hi, 0) for lo, hi in pads]), [0] * x.ndim, out, strides
    )
    return jnp.where(jnp.isnan(first), first, numbers)


def window_counts(shape, ksize, strides, pads):
    """How many in-bounds elements each output window covers (numpy, from shapes alone):
    per axis a 1-D count, multiplied across axes."""
    total = np.ones((), np.int64)
    for axis, (size, k, s, (lo, hi)) in enumerate(zip(shape, ksize, strides, pads)):
        out = (size + lo + hi - k) // s + 1
        starts = np.arange(out) * s - lo
        counts = np.minimum(starts + k, size) - np.maximum(starts, 0)
        total = np.multiply.outer(total, counts) if axis else counts
    return total


def avg_pool(x, ksize, strides, pads):
    sums = lax.reduce_window(x, np.zeros((), x.dtype), lax.add, ksize, strides, pads)
    return sums / window_counts(x.shape, ksize, strides, pads).astype(x.dtype)


def _offsets(ksize):
    return list(itertools.product(*[range(k) for k in ksize]))


def _window_slice(xp, offset, out, strides):
    limit = [o + (n - 1) * s + 1 for o, n, s in zip(offset, out, strides)]
    return lax.slice(xp, offset, limit, strides)


# ---------------------------------------------------------------------------------------------
# Max-pool gradients: which window elements receive each output's gradient
# ---------------------------------------------------------------------------------------------
def first_max_index(x, ksize, strides, pads, out):
    """For each output window: the row-major offset index of the element TF's 2-D
    ``MaxPoolGrad`` picks: the window's first in-bounds element, replaced by every later
    one strictly greater than the pick. Ties keep the earlier element, a later NaN is never
    taken, and a NaN first element keeps the gradient (TF's forward ignores it)."""
    xp = lax.pad(x, _lowest(x.dtype), [(lo, hi, 0) for lo, hi in pads])
    best = best_index = None
    seen = None  # static: whether each window's pick is in bounds yet (None: all are)
    for i, offset in enumerate(_offsets(ksize)):
        values = _window_slice(xp, offset, out, strides)
        inside = _in_bounds(x.shape, offset, out, strides, pads)
        if best is None:
            best, best_index, seen = values, jnp.zeros(values.shape, jnp.int32), inside
            continue
        take = values > best
        if seen is not None:  # a padded pick gives way to the first in-bounds element
            take = take | ~seen
            seen = None if inside is None else seen | inside
            seen = None if seen is not None and seen.all() else seen
        if inside is not None:
            take = take & inside
        best = jnp.where(take, values, best)
        best_index = jnp.where(take, jnp.int32(i), best_index)
    return best_index


def _scatter_shares(x_shape, grad, ksize, strides, pads, receives):
    """``sum`` over window offsets ``i`` of ``grad`` where ``receives(i, offset)`` placed back
    at that offset of each window (an interior-padded ``lax.pad``), cropped to the input."""
    padded = [s + lo + hi for s, (lo, hi) in zip(x_shape, pads)]
    zero = jnp.zeros((), grad.dtype)
    total = jnp.zeros(padded, grad.dtype)
    for i, offset in enumerate(_offsets(ksize)):
        share = jnp.where(receives(i, offset), grad, zero)
        config = [
            (o, p - o - (n - 1) * s - 1, s - 1)
            for o, p, n, s in zip(offset, padded, grad.shape, strides)
        ]
        total = total + lax.pad(share, zero, config)
    return lax.slice(total, [lo for lo, _ in pads], [lo + s for s, (lo, _) in zip(x_shape, pads)])


def _first_max_general(x, grad, ksize, strides, pads):
    index = first_max_index(x, ksize, strides, pads, grad.shape)
    return _scatter_shares(x.shape, grad, ksize, strides, pads, lambda i, _: index == i)


def _tiles_input(ksize, strides, pads):
    """Whether the windows are disjoint and unpadded (stride == window on every axis), so
    each input element lies in at most one window."""
    return all(k == s for k, s in zip(ksize, strides)) and all(p == (0, 0) for p in pads)


def _tiled(x_shape, grad, ksize, receives):
    """Disjoint windows: ``grad`` broadcast over each window where ``receives`` (a boolean
    array over ``[out0, k0, out1, k1, ...]``), as one elementwise expression (elements past
    the last full window get zero).

    In the training step each scattered share of the offset scheme becomes its own
    full-size buffer once the result has several consumers (the filter gradient read in
    batch chunks cost the LeNet bench's first layer 4 extra passes over [64,28,28,32]);
    this form fuses into its consumers."""
    spread = [d for n in grad.shape for d in (n, 1)]
    share = jnp.where(receives, grad.reshape(spread), jnp.zeros((), grad.dtype))
    covered = share.reshape([n * k for n, k in zip(grad.shape, ksize)])
    rest = [(0, size - n * k, 0) for size, n, k in zip(x_shape, grad.shape, ksize)]
    return lax.pad(covered, jnp.zeros((), grad.dtype), rest)


def _first_max_tiled(x, grad, ksize, strides, pads):
    """Disjoint windows: the gradient kept at each window's ``first_max_index`` offset."""
    index = first_max_index(x, ksize, strides, pads, grad.shape)
    spread = [d for n in grad.shape for d in (n, 1)]
    offset = np.arange(int(np.prod(ksize)), dtype=np.int32).reshape(ksize)
    offset = offset.reshape([d for k in ksize for d in (1, k)])
    return _tiled(x.shape, grad, ksize, index.reshape(spread) == offset)


def max_pool_grad(x, grad, ksize, strides, pads):
    """Gradient of 2-D max pooling (TF's ``MaxPoolGrad``): each output's gradient added at
    its window's ``first_max_index``."""
    if _tiles_input(ksize, strides, pads):
        return _first_max_tiled(x, grad, ksize, strides, pads)
    return _first_max_general(x, grad, ksize, strides, pads)


def _equal_finite(y):
    """``y`` with its infinities as NaN: TF's 3-D max-pool gradient routes to the elements
    whose difference from the window's output is zero, which an infinite output has none."""
    if not jnp.issubdtype(y.dtype, jnp.floating):
        return y
    return jnp.where(jnp.isfinite(y), y, jnp.full((), jnp.nan, y.dtype))


def max_pool_3d_grad(x, y, grad, ksize, strides, pads):
    """Gradient of 3-D max pooling (TF's ``MaxPool3DGrad``): each output's gradient added at
    every element of its window equal to the output ``y`` when that is finite (all tied
    maxima; none for a window of NaN / -inf)."""
    target = _equal_finite(y)
    if _tiles_input(ksize, strides, pads):
        covered = [slice(0, n * k) for n, k in zip(grad.shape, ksize)]
        windows = x[tuple(covered)].reshape([d for n, k in zip(grad.shape, ksize) for d in (n, k)])
        spread = [d for n in grad.shape for d in (n, 1)]
        return _tiled(x.shape, grad, ksize, windows == target.reshape(spread))
    xp = lax.pad(x, _lowest(x.dtype), [(lo, hi, 0) for lo, hi in pads])

    def receives(i, offset):
        match = _window_slice(xp, offset, grad.shape, strides) == target
        inside = _in_bounds(x.shape, offset, grad.shape, strides, pads)
        return match if inside is None else match & inside

    return _scatter_shares(x.shape, grad, ksize, strides, pads, receives)


def max_pool_grad_grad(x, y, grad, ksize, strides, pads):
    """Second order (TF's ``MaxPoolGradGrad`` / ``MaxPool3DGradGrad``): each output takes
    ``grad`` at the first in-bounds element of its window equal to the output ``y``, or
    zero when none is (a window of NaN)."""
    xp = lax.pad(x, _lowest(x.dtype), [(lo, hi, 0) for lo, hi in pads])
    gp = lax.pad(grad, jnp.zeros((), grad.dtype), [(lo, hi, 0) for lo, hi in pads])
    result = jnp.zeros(y.shape, grad.dtype)
    for offset in reversed(_offsets(ksize)):  # the first match is written last
        match = _window_slice(xp, offset, y.shape, strides) == y
        inside = _in_bounds(x.shape, offset, y.shape, strides, pads)
        if inside is not None:
            match = match & inside
        result = jnp.where(match, _window_slice(gp, offset, y.shape, strides), result)
    return result


# ---------------------------------------------------------------------------------------------
# Pooling rules
# ---------------------------------------------------------------------------------------------
def _check_format(op):
    if op.attrs["data_format"] == b"NCHW_VECT_C":
        raise errors.UnimplementedError(
            None, op, f"{op.type} with data_format NCHW_VECT_C is not supported (node {op.name})"
        )


def _max_pool_op(op, x, ksize, strides, pads):
    """Depth pooling (a channel window) or spatial pooling, with TF's NaN rules."""
    _, channel, _ = data_layout(op.attrs["data_format"], x.ndim)
    if ksize[channel] != 1:
        return depth_max_pool(x, ksize, strides, pads)
    empty = empty_window_value(x.dtype, op.type in _FLOAT32_START)
    return max_pool(x, ksize, strides, pads, empty)


@lowering("MaxPool", "MaxPool3D")
def _max_pool(ctx, op, x):
    _check_format(op)
    return _max_pool_op(op, x, *pool_window(op, x.shape))


@lowering("MaxPoolV2")
def _max_pool_v2(ctx, op, x, ksize, strides):
    _check_format(op)
    window = pool_window(op, x.shape, static_ints(op, 1, ksize), static_ints(op, 2, strides))
    return _max_pool_op(op, x, *window)


@lowering("AvgPool", "AvgPool3D")
def _avg_pool(ctx, op, x):
    return avg_pool(x, *pool_window(op, x.shape))


@lowering("AvgPoolGrad", "AvgPool3DGrad")
def _avg_pool_grad(ctx, op, shape, grad):
    shape = tuple(static_ints(op, 0, shape))
    window = pool_window(op, shape)
    aval = jax.ShapeDtypeStruct(shape, grad.dtype)
    (dx,) = jax.linear_transpose(lambda x: avg_pool(x, *window), aval)(grad)
    return dx


@lowering("MaxPoolGrad")
def _max_pool_grad(ctx, op, x, y, grad):
    return max_pool_grad(x, grad, *pool_window(op, x.shape)).astype(grad.dtype)


@lowering("MaxPool3DGrad")
def _max_pool_3d_grad(ctx, op, x, y, grad):
    return max_pool_3d_grad(x, y, grad, *pool_window(op, x.shape)).astype(grad.dtype)


@lowering("MaxPoolGradV2")
def _max_pool_grad_v2(ctx, op, x, y, grad, ksize, strides):
    window = pool_window(op, x.shape, static_ints(op, 3, ksize), static_ints(op, 4, strides))
    return max_pool_grad(x, grad, *window)


@lowering("MaxPoolGradGrad", "MaxPool3DGradGrad")
def _max_pool_grad_grad(ctx, op, x, y, grad):
    return max_pool_grad_grad(x, y, grad, *pool_window(op, x.shape))


@lowering("MaxPoolGradGradV2")
def _max_pool_grad_grad_v2(ctx, op, x, y, grad, ksize, strides):
    window = pool_window(op, x.shape, static_ints(op, 3, ksize), static_ints(op, 4, strides))
    return max_pool_grad_grad(x, y, grad, *window)
