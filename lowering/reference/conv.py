"""Numpy reference kernels of convolution and pooling ops.

Written as the definitions read: loops over output positions, each taking its (dilated)
window of the padded input. Slow, and meant for small tests only. Arithmetic is in float64
and cast back to the op's dtype.
"""

from __future__ import annotations

import numpy as np

from lowering.registry import reference


# ---------------------------------------------------------------------------------------------
# Layout and windows
# ---------------------------------------------------------------------------------------------
def _channels_first(op):
    return op.attrs["data_format"].startswith(b"NC")


def _to_channels_last(x, op):
    return np.moveaxis(x, 1, -1) if _channels_first(op) else x


def _from_channels_last(x, op):
    return np.moveaxis(x, -1, 1) if _channels_first(op) else x


def _per_axis_last(values, op):
    """A per-dimension attr (strides, ksize, ...) reordered as for a channels-last tensor."""
    values = list(values)
    if _channels_first(op):
        return [values[0]] + values[2:] + [values[1]]
    return values


def _pads(op, sizes, windows, strides, dilations):
    """``(before, after)`` per axis of a channels-last tensor of ``sizes``."""
    padding = op.attrs["padding"]
    if padding == b"EXPLICIT":
        pairs = np.asarray(op.attrs["explicit_paddings"]).reshape(-1, 2).tolist()
        return [tuple(p) for p in _per_axis_last(pairs, op)]
    pads = []
    for size, k, s, d in zip(sizes, windows, strides, dilations):
        if padding == b"VALID":
            pads.append((0, 0))
            continue
        span = d * (k - 1) + 1
        out = (size + s - 1) // s
        need = max(0, s * (out - 1) + span - size)
        pads.append((need // 2, need - need // 2))
    return pads


def _windows(sizes, windows, strides, dilations, pads):
    """Yields ``(output index, window slices into the padded input)``."""
    out = []
    for size, k, s, d, (lo, hi) in zip(sizes, windows, strides, dilations, pads):
        out.append((size + lo + hi - d * (k - 1) - 1) // s + 1)
    for position in np.ndindex(*out):
        slices = tuple(
            slice(p * s, p * s + d * (k - 1) + 1, d)
            for p, k, s, d in zip(position, windows, strides, dilations)
        )
        yield position, slices


def _output_dims(sizes, windows, strides, dilations, pads):
    return [
        (size + lo + hi - d * (k - 1) - 1) // s + 1
        for size, k, s, d, (lo, hi) in zip(sizes, windows, strides, dilations, pads)
    ]


# ---------------------------------------------------------------------------------------------
# Convolution: channels-last input [N, *S, C], filter [*K, C / groups, O]
# ---------------------------------------------------------------------------------------------
class _Conv:
    """The geometry of a convolution op applied to a channels-last input shape."""

    def __init__(self, op, x_shape, w_shape, depthwise):
        n = len(x_shape) - 2
        self.n = n
        self.x_shape = tuple(x_shape)
        strides = _per_axis_last(op.attrs["strides"], op)[1:-1]
        dilations = _per_axis_last(op.attrs["dilations"], op)[1:-1]
        self.kernel = list(w_shape[:n])
        sizes = list(x_shape[1:-1])
        pads = _pads(
            op,
            [1] + sizes + [1],
            [1] + self.kernel + [1],
            [1] + strides + [1],
            [1] + dilations + [1],
        )[1:-1]
        self.pads = pads
        self.geometry = (sizes, self.kernel, strides, dilations, pads)
        channels = x_shape[-1]
        if depthwise:
            self.groups = channels
            self.out_channels = w_shape[-2] * w_shape[-1]
        else:
            self.groups = channels // w_shape[-2]
            self.out_channels = w_shape[-1]
        self.out_shape = (x_shape[0], *_output_dims(*self.geometry), self.out_channels)

    def padded_zeros(self):
        shape = [self.x_shape[0]]
        shape += [s + lo + hi for s, (lo, hi) in zip(self.x_shape[1:-1], self.pads)]
        return np.zeros(shape + [self.x_shape[-1]])

    def pad(self, x):
        return np.pad(x, [(0, 0), *self.pads, (0, 0)])

    def crop(self, xp):
        index = tuple(slice(lo, lo + s) for s, (lo, _) in zip(self.x_shape[1:-1], self.pads))
        return xp[(slice(None),) + index]

    def group_slices(self):
        cin = self.x_shape[-1] // self.groups
        cout = self.out_channels // self.groups
        for g in range(self.groups):
            yield slice(g * cin, (g + 1) * cin), slice(g * cout, (g + 1) * cout)


def _grouped_filter(w, depthwise, n):
    """Depthwise filters ``[*K, C, M]`` as grouped filters ``[*K, 1, C * M]``."""
    w = np.asarray(w, np.float64)
    return w.reshape(w.shape[:n] + (1, -1)) if depthwise else w


def _conv_forward(conv, x, w):
    xp = conv.pad(np.asarray(x, np.float64))
    out = np.zeros(conv.out_shape)
    axes = (list(range(1, conv.n + 2)), list(range(conv.n + 1)))
    for position, window in _windows(*conv.geometry):
        patch = xp[(slice(None),) + window]
        for cin, cout in conv.group_slices():
            out[(slice(None),) + position + (cout,)] = np.tensordot(
                patch[..., cin], w[..., cout], axes=axes
            )
    return out


def _conv_input_grad(conv, w, grad):
    dxp = conv.padded_zeros()
    for position, window in _windows(*conv.geometry):
        g = grad[(slice(None),) + position]
        for cin, cout in conv.group_slices():
            # [N, O] x [*K, I, O] -> [N, *K, I]
            dxp[(slice(None),) + window + (cin,)] += np.tensordot(
                g[:, cout], w[..., cout], axes=([1], [conv.n + 1])
            )
    return conv.crop(dxp)


def _conv_filter_grad(conv, x, w_shape, grad):
    xp = conv.pad(np.asarray(x, np.float64))
    dw = np.zeros(w_shape)
    for position, window in _windows(*conv.geometry):
        patch = xp[(slice(None),) + window]
        g = grad[(slice(None),) + position]
        for cin, cout in conv.group_slices():
            # [N, *K, I] x [N, O] -> [*K, I, O]
            dw[..., cout] += np.tensordot(patch[..., cin], g[:, cout], axes=([0], [0]))
    return dw


def _input_shape_from_sizes(op, sizes, w, grad):
    sizes = [int(v) for v in np.asarray(sizes).reshape(-1)]
    if len(sizes) == 2:  # Conv2DBackpropInput with spatial sizes only
        batch, channels = grad.shape[0], w.shape[2]
        return [batch, channels] + sizes if _channels_first(op) else [batch] + sizes + [channels]
    return sizes


def _conv_rules(depthwise):
    def forward(ctx, op, x, w):
        xl = _to_channels_last(x, op)
        conv = _Conv(op, xl.shape, w.shape, depthwise)
        wg = _grouped_filter(w, depthwise, conv.n)
        return _from_channels_last(_conv_forward(conv, xl, wg), op).astype(x.dtype)

    def backprop_input(ctx, op, sizes, w, grad):
        x_shape = _to_channels_last(np.empty(_input_shape_from_sizes(op, sizes, w, grad)), op)
        conv = _Conv(op, x_shape.shape, w.shape, depthwise)
        gl = np.asarray(_to_channels_last(grad, op), np.float64)
        dx = _conv_input_grad(conv, _grouped_filter(w, depthwise, conv.n), gl)
        return _from_channels_last(dx, op).astype(grad.dtype)

    def backprop_filter(ctx, op, x, sizes, grad):
        w_shape = tuple(int(v) for v in np.asarray(sizes).reshape(-1))
        xl = _to_channels_last(x, op)
        conv = _Conv(op, xl.shape, w_shape, depthwise)
        gl = np.asarray(_to_channels_last(grad, op), np.float64)
        grouped_shape = _grouped_filter(np.empty(w_shape), depthwise, conv.n).shape
        dw = _conv_filter_grad(conv, xl, grouped_shape, gl)
        return dw.reshape(w_shape).astype(grad.dtype)

    return forward, backprop_input, backprop_filter


for _names, _depthwise in (
    (("Conv2D", "Conv2DBackpropInput", "Conv2DBackpropFilter"), False),
    (("Conv3D", "Conv3DBackpropInputV2", "Conv3DBackpropFilterV2"), False),
    (
        (
            "DepthwiseConv2dNative",
            "DepthwiseConv2dNativeBackpropInput",
            "DepthwiseConv2dNativeBackpropFilter",
        ),
        True,
    ),
):
    for _name, _rule in zip(_names, _conv_rules(_depthwise)):
        reference(_name)(_rule)


# ---------------------------------------------------------------------------------------------
# Pooling: windows over every axis of the channels-last input (batch and channel windows 1,
# except MaxPool's depthwise pooling)
# ---------------------------------------------------------------------------------------------
def _pool_geometry(op, shape, ksize=None, strides=None):
    ksize = _per_axis_last(op.attrs["ksize"] if ksize is None else ksize, op)
    strides = _per_axis_last(op.attrs["strides"] if strides is None else strides, op)
    ones = [1] * len(shape)
    pads = _pads(op, shape, ksize, strides, ones)
    return list(shape), ksize, strides, ones, pads


def _padded(x, pads, fill):
    return np.pad(x, pads, constant_values=fill)


def _crop(xp, shape, pads):
    return xp[tuple(slice(lo, lo + s) for s, (lo, _) in zip(shape, pads))]


def _numbers(x):
    """``x`` as float64 (exact for every float dtype) or as its integers."""
    x = np.asarray(x)
    return x if np.issubdtype(x.dtype, np.integer) else x.astype(np.float64)


def _window_elements(x, geometry):
    """Yields ``(output index, flat input indices, values)`` of each window's in-bounds
    elements in row-major order (padding cells are absent)."""
    flat = _numbers(x).ravel()
    index = _padded(np.arange(x.size).reshape(x.shape), geometry[4], -1)
    for position, window in _windows(*geometry):
        inside = index[window].ravel()
        inside = inside[inside >= 0]
        yield position, inside, flat[inside]


# 16-bit floats max-pooled by these ops start from float32's lowest value (TF's default x86
# build runs forward-only graphs of them by oneDNN in float32): -inf for a window with no
# number.
_FLOAT32_START = ("MaxPool", "MaxPool3D")


def _empty_window(op, dtype):
    """TF's result for a window holding no number (only NaN, -inf): the lowest value."""
    import ml_dtypes

    if np.issubdtype(dtype, np.integer):
        return np.iinfo(dtype).min
    if op.type in _FLOAT32_START and ml_dtypes.finfo(dtype).bits == 16:
        return float(np.finfo(np.float32).min)
    return float(ml_dtypes.finfo(dtype).min)


def _max_pool(x, geometry, empty):
    """Spatial max pooling: NaN is skipped; the window's maximum never falls below ``empty``."""
    out = np.empty(_output_dims(*geometry), _numbers(x).dtype)
    for position, _, values in _window_elements(x, geometry):
        numbers = values[~np.isnan(values)] if values.dtype.kind == "f" else values
        out[position] = max(np.max(numbers, initial=empty), empty)
    return out


def _depth_max_pool(x, geometry):
    """Pooling over channels: ``a = max(a, next)`` from the window's first element, which
    keeps a NaN first element and skips later NaNs."""
    out = np.empty(_output_dims(*geometry), _numbers(x).dtype)
    for position, _, values in _window_elements(x, geometry):
        first = values[0]
        out[position] = first if first != first else np.nanmax(values)
    return out


def _first_then_greater(values):
    """Position of the element a running ``if v > pick: pick = v`` from the first element
    ends on (MaxPoolGrad's choice): the first, when it is NaN; else the first maximum of
    the numbers."""
    if values.dtype.kind == "f" and np.isnan(values[0]):
        return 0
    return int(np.nanargmax(values) if values.dtype.kind == "f" else np.argmax(values))


def _max_pool_grad(x, grad, geometry):
    dx = np.zeros(x.size)
    flat_grad = np.asarray(grad, np.float64)
    for position, indices, values in _window_elements(x, geometry):
        dx[indices[_first_then_greater(values)]] += flat_grad[position]
    return dx.reshape(x.shape)


def _max_pool_3d_grad(x, y, grad, geometry):
    """Every element equal to its window's finite output ``y`` gets the window's gradient."""
    dx = np.zeros(x.size)
    y, flat_grad = _numbers(y), np.asarray(grad, np.float64)
    for position, indices, values in _window_elements(x, geometry):
        target = y[position]
        if np.isfinite(target):
            dx[indices[values == target]] += flat_grad[position]
    return dx.reshape(x.shape)


def _max_pool_grad_grad(x, y, grad, geometry):
    """Each output takes ``grad`` at the first element of its window equal to ``y``."""
    out = np.zeros(_output_dims(*geometry))
    y, flat_grad = _numbers(y), np.asarray(grad, np.float64).ravel()
    for position, indices, values in _window_elements(x, geometry):
        hits = np.flatnonzero(values == y[position])
        if hits.size:
            out[position] = flat_grad[indices[hits[0]]]
    return out


def _avg_pool(x, geometry):
    xp = _padded(np.asarray(x, np.float64), geometry[4], 0.0)
    inside = _padded(np.ones(x.shape), geometry[4], 0.0)
    out = np.empty(_output_dims(*geometry))
    for position, window in _windows(*geometry):
        out[position] = np.sum(xp[window]) / np.sum(inside[window])
    return out


def _avg_pool_grad(shape, grad, geometry):
    inside = _padded(np.ones(shape), geometry[4], 0.0)
    dxp = np.zeros(inside.shape)
    for position, window in _windows(*geometry):
        dxp[window] += grad[position] / np.sum(inside[window])
    return _crop(dxp, shape, geometry[4])


def _max_pool_forward(op, x, ksize=None, strides=None):
    xl = _to_channels_last(x, op)
    geometry = _pool_geometry(op, xl.shape, ksize, strides)
    if geometry[1][-1] != 1:
        out = _depth_max_pool(xl, geometry)
    else:
        out = _max_pool(xl, geometry, _empty_window(op, x.dtype))
    with np.errstate(over="ignore"):  # float32's lowest in 16 bits: -inf, as TF
        return _from_channels_last(out, op).astype(x.dtype)


@reference("MaxPool", "MaxPool3D")
def _max_pool_rule(ctx, op, x):
    return _max_pool_forward(op, x)


@reference("MaxPoolV2")
def _max_pool_v2_rule(ctx, op, x, ksize, strides):
    return _max_pool_forward(op, x, list(ksize), list(strides))


@reference("AvgPool", "AvgPool3D")
def _avg_pool_rule(ctx, op, x):
    xl = _to_channels_last(x, op)
    out = _avg_pool(xl, _pool_geometry(op, xl.shape))
    return _from_channels_last(out, op).astype(x.dtype)


@reference("AvgPoolGrad", "AvgPool3DGrad")
def _avg_pool_grad_rule(ctx, op, shape, grad):
    shape = _per_axis_last([int(v) for v in np.asarray(shape)], op)
    gl = _to_channels_last(grad, op)
    dx = _avg_pool_grad(shape, gl, _pool_geometry(op, shape))
    return _from_channels_last(dx, op).astype(grad.dtype)


def _max_pool_backward(kernel, op, x, y, grad, ksize=None, strides=None):
    """Runs a max-pool gradient ``kernel(x, y, grad, geometry)`` channels-last."""
    xl, yl, gl = (_to_channels_last(t, op) for t in (x, y, grad))
    out = kernel(xl, yl, gl, _pool_geometry(op, xl.shape, ksize, strides))
    return _from_channels_last(out, op).astype(grad.dtype)


def _grad_2d(x, y, grad, geometry):
    return _max_pool_grad(x, grad, geometry)


@reference("MaxPoolGrad")
def _max_pool_grad_rule(ctx, op, x, y, grad):
    return _max_pool_backward(_grad_2d, op, x, y, grad)


@reference("MaxPool3DGrad")
def _max_pool_3d_grad_rule(ctx, op, x, y, grad):
    return _max_pool_backward(_max_pool_3d_grad, op, x, y, grad)


@reference("MaxPoolGradV2")
def _max_pool_grad_v2_rule(ctx, op, x, y, grad, ksize, strides):
    return _max_pool_backward(_grad_2d, op, x, y, grad, list(ksize), list(strides))


@reference("MaxPoolGradGrad", "MaxPool3DGradGrad")
def _max_pool_grad_grad_rule(ctx, op, x, y, grad):
    return _max_pool_backward(_max_pool_grad_grad, op, x, y, grad)


@reference("MaxPoolGradGradV2")
def _max_pool_grad_grad_v2_rule(ctx, op, x, y, grad, ksize, strides):
    kernel = _max_pool_grad_grad
    return _max_pool_backward(kernel, op, x, y, grad, list(ksize), list(strides))
