"""Pooling ops (TF's ``nn_ops``): MaxPool/MaxPoolV2, AvgPool, their 3-D forms, the
gradient ops (MaxPoolGrad, MaxPoolGradGrad, AvgPoolGrad, ...) with their gradients, and the
``tf.nn`` wrappers (``max_pool``, ``max_pool2d``, ``avg_pool``, ``pool``, ...).

OpDefs follow ``tensorflow/core/ops/nn_ops.cc`` in TF 2.21. Window arithmetic is shared with
``conv_ops``.
"""

from __future__ import annotations

import numpy as np

from tfcompat.framework import tensor_shape
from tfcompat.framework.gradient_registry import RegisterGradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op, convert_to_tensor
from tfcompat.framework.scopes import name_scope
from tfcompat.ops.conv_ops import (
    EXPLICIT_PADDING_ATTRS,
    FORMAT_2D,
    FORMAT_3D,
    PADDING_ATTR,
    check_attr_length,
    check_explicit_paddings,
    convert_padding,
    deprecated_argument_lookup,
    get_sequence,
    layout,
    shape_from_tensor,
    static_ints,
    windowed_output_size,
)
from tfcompat.ops.nn_ops import with_rank
from tfcompat.util.tf_export import tf_export

_MAX_POOL_TYPES = "{half, bfloat16, float, double, int32, int64, uint8, int16, int8, uint16, qint8}"


# ---------------------------------------------------------------------------------------------
# Shape functions
# ---------------------------------------------------------------------------------------------
def pooled_shape(shape, ksize, strides, padding, data_format, explicit=(), pool_depth=False):
    """Output shape of a pooling window ``ksize`` moved by ``strides`` over ``shape``; the
    channel dimension is pooled too when ``pool_depth`` (MaxPool allows depthwise pooling)."""
    rank = len(ksize)
    dims = with_rank(shape, rank).as_list()
    _, channel, spatial = layout(data_format, rank)
    axes = spatial + ([channel] if pool_depth else [])
    out = list(dims)
    for axis in axes:
        before, after = (explicit[2 * axis], explicit[2 * axis + 1]) if explicit else (0, 0)
        out[axis] = windowed_output_size(
            dims[axis], ksize[axis], 1, strides[axis], padding, before, after
        )
    return tensor_shape.TensorShape(out)


def _pool_shape(op_label, rank, pool_depth):
    def shape_fn(op):
        ksize, strides = op.attrs["ksize"], op.attrs["strides"]
        check_attr_length(ksize, rank, op_label, "ksize")
        check_attr_length(strides, rank, op_label, "stride")
        explicit = op.attrs.get("explicit_paddings", [])
        data_format = op.attrs["data_format"]
        if "explicit_paddings" in op.attrs:
            check_explicit_paddings(op.attrs["padding"], explicit, rank, data_format)
        shape = pooled_shape(
            op.inputs[0].shape,
            ksize,
            strides,
            op.attrs["padding"],
            data_format,
            explicit,
            pool_depth,
        )
        return [shape]

    return shape_fn


def _max_pool_v2_shape(op):
    ksize, strides = static_ints(op.inputs[1]), static_ints(op.inputs[2])
    if ksize is None or strides is None:
        with_rank(op.inputs[0].shape, 4)
        return [tensor_shape.unknown_shape(rank=4)]
    check_attr_length(ksize, 4, "MaxPool", "ksize")
    check_attr_length(strides, 4, "MaxPool", "stride")
    data_format = op.attrs["data_format"]
    return [
        pooled_shape(op.inputs[0].shape, ksize, strides, op.attrs["padding"], data_format, (), True)
    ]


def _like_input(rank):
    """Output 0 has the shape of input 0, which has rank ``rank``."""
    return lambda op: [with_rank(op.inputs[0].shape, rank)]


def _like_output(rank):
    """MaxPoolGradGrad: the shape of ``orig_output`` (input 1)."""
    return lambda op: [with_rank(op.inputs[1].shape, rank)]


def _from_shape_input(rank):
    return lambda op: [shape_from_tensor(op.inputs[0], rank)]


# ---------------------------------------------------------------------------------------------
# OpDefs
# ---------------------------------------------------------------------------------------------
_POOL_2D = ["ksize: list(int) >= 4", "strides: list(int) >= 4"]
_POOL_3D = ["ksize: list(int) >= 5", "strides: list(int) >= 5"]

register_op(
    "MaxPool",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=[
        f"T: {_MAX_POOL_TYPES} = DT_FLOAT",
        *_POOL_2D,
        *EXPLICIT_PADDING_ATTRS,
        "data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'",
    ],
    shape_fn=_pool_shape("MaxPool", 4, pool_depth=True),
)
register_op(
    "MaxPoolV2",
    inputs=["input: T", "ksize: int32", "strides: int32"],
    outputs=["output: T"],
    attrs=[
        f"T: {_MAX_POOL_TYPES} = DT_FLOAT",
        PADDING_ATTR,
        "data_format: {'NHWC', 'NCHW', 'NCHW_VECT_C'} = 'NHWC'",
    ],
    shape_fn=_max_pool_v2_shape,
)
register_op(
    "MaxPoolGrad",
    inputs=["orig_input: T", "orig_output: T", "grad: T"],
    outputs=["output: T"],
    attrs=[*_POOL_2D, *EXPLICIT_PADDING_ATTRS, FORMAT_2D, "T: realnumbertype = DT_FLOAT"],
    shape_fn=_like_input(4),
)
register_op(
    "MaxPoolGradV2",
    inputs=["orig_input: T", "orig_output: T", "grad: T", "ksize: int32", "strides: int32"],
    outputs=["output: T"],
    attrs=[PADDING_ATTR, FORMAT_2D, "T: realnumbertype = DT_FLOAT"],
    shape_fn=_like_input(4),
)
register_op(
    "MaxPoolGradGrad",
    inputs=["orig_input: T", "orig_output: T", "grad: T"],
    outputs=["output: T"],
    attrs=[*_POOL_2D, PADDING_ATTR, FORMAT_2D, "T: realnumbertype"],
    shape_fn=_like_output(4),
)
register_op(
    "MaxPoolGradGradV2",
    inputs=["orig_input: T", "orig_output: T", "grad: T", "ksize: int32", "strides: int32"],
    outputs=["output: T"],
    attrs=[PADDING_ATTR, FORMAT_2D, "T: realnumbertype"],
    shape_fn=_like_output(4),
)
register_op(
    "AvgPool",
    inputs=["value: T"],
    outputs=["output: T"],
    attrs=[*_POOL_2D, PADDING_ATTR, FORMAT_2D, "T: {half, bfloat16, float, double}"],
    shape_fn=_pool_shape("AvgPool", 4, pool_depth=False),
)
register_op(
    "AvgPoolGrad",
    inputs=["orig_input_shape: int32", "grad: T"],
    outputs=["output: T"],
    attrs=[*_POOL_2D, PADDING_ATTR, FORMAT_2D, "T: {half, bfloat16, float, double}"],
    shape_fn=_from_shape_input(4),
)
register_op(
    "MaxPool3D",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=[*_POOL_3D, PADDING_ATTR, FORMAT_3D, "T: {half, bfloat16, float}"],
    shape_fn=_pool_shape("MaxPool3D", 5, pool_depth=False),
)
register_op(
    "MaxPool3DGrad",
    inputs=["orig_input: TInput", "orig_output: TInput", "grad: T"],
    outputs=["output: T"],
    attrs=[
        *_POOL_3D,
        PADDING_ATTR,
        FORMAT_3D,
        "T: {half, bfloat16, float} = DT_FLOAT",
        "TInput: {half, bfloat16, float} = DT_FLOAT",
    ],
    shape_fn=_like_input(5),
)
register_op(
    "MaxPool3DGradGrad",
    inputs=["orig_input: T", "orig_output: T", "grad: T"],
    outputs=["output: T"],
    attrs=[*_POOL_3D, PADDING_ATTR, FORMAT_3D, "T: realnumbertype"],
    shape_fn=_like_output(5),
)
register_op(
    "AvgPool3D",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=[*_POOL_3D, PADDING_ATTR, FORMAT_3D, "T: {half, bfloat16, float, double}"],
    shape_fn=_pool_shape("AvgPool3D", 5, pool_depth=False),
)
register_op(
    "AvgPool3DGrad",
    inputs=["orig_input_shape: int32", "grad: T"],
    outputs=["output: T"],
    attrs=[*_POOL_3D, PADDING_ATTR, FORMAT_3D, "T: {half, bfloat16, float, double}"],
    shape_fn=_from_shape_input(5),
)


# ---------------------------------------------------------------------------------------------
# Gradients, as TF registers them
# ---------------------------------------------------------------------------------------------
def _window_attrs(op, with_explicit=False):
    attrs = {k: op.attrs[k] for k in ("ksize", "strides", "padding", "data_format")}
    if with_explicit:
        attrs["explicit_paddings"] = op.attrs["explicit_paddings"]
    return attrs


def _max_pool_grad_op(op_type, orig_input, orig_output, grad, attrs):
    return apply_op(
        op_type, orig_input=orig_input, orig_output=orig_output, grad=grad, **attrs
    ).outputs[0]


def _zeros_like(t):
    from tfcompat.ops import array_ops

    return array_ops.zeros_like(t)


@RegisterGradient("MaxPool")
def _max_pool_grad(op, grad):
    attrs = _window_attrs(op, with_explicit=True)
    return _max_pool_grad_op("MaxPoolGrad", op.inputs[0], op.outputs[0], grad, attrs)


@RegisterGradient("MaxPoolV2")
def _max_pool_v2_grad(op, grad):
    attrs = {k: op.attrs[k] for k in ("padding", "data_format")}
    out = apply_op(
        "MaxPoolGradV2",
        orig_input=op.inputs[0],
        orig_output=op.outputs[0],
        grad=grad,
        ksize=op.inputs[1],
        strides=op.inputs[2],
        **attrs,
    ).outputs[0]
    return out, None, None


@RegisterGradient("MaxPoolGrad")
def _max_pool_grad_grad(op, grad):
    # MaxPoolGradGrad takes no explicit paddings (TF passes none).
    return (
        _zeros_like(op.inputs[0]),
        _zeros_like(op.inputs[1]),
        _max_pool_grad_op("MaxPoolGradGrad", op.inputs[0], op.inputs[1], grad, _window_attrs(op)),
    )


@RegisterGradient("MaxPoolGradV2")
def _max_pool_grad_v2_grad(op, grad):
    """As MaxPoolGrad's, with the window still given by the ksize/strides inputs."""
    out = apply_op(
        "MaxPoolGradGradV2",
        orig_input=op.inputs[0],
        orig_output=op.inputs[1],
        grad=grad,
        ksize=op.inputs[3],
        strides=op.inputs[4],
        padding=op.attrs["padding"],
        data_format=op.attrs["data_format"],
    ).outputs[0]
    return _zeros_like(op.inputs[0]), _zeros_like(op.inputs[1]), out, None, None


@RegisterGradient("MaxPoolGradGrad")
def _max_pool_grad_grad_grad(op, grad):
    return (
        _zeros_like(op.inputs[0]),
        _zeros_like(op.inputs[1]),
        _max_pool_grad_op("MaxPoolGrad", op.inputs[0], op.inputs[1], grad, _window_attrs(op)),
    )


@RegisterGradient("MaxPool3D")
def _max_pool3d_grad(op, grad):
    return _max_pool_grad_op("MaxPool3DGrad", op.inputs[0], op.outputs[0], grad, _window_attrs(op))


@RegisterGradient("MaxPool3DGrad")
def _max_pool3d_grad_grad(op, grad):
    return (
        _zeros_like(op.inputs[0]),
        _zeros_like(op.inputs[1]),
        _max_pool_grad_op("MaxPool3DGradGrad", op.inputs[0], op.inputs[1], grad, _window_attrs(op)),
    )


@RegisterGradient("MaxPool3DGradGrad")
def _max_pool3d_grad_grad_grad(op, grad):
    return (
        _zeros_like(op.inputs[0]),
        _zeros_like(op.inputs[1]),
        _max_pool_grad_op("MaxPool3DGrad", op.inputs[0], op.inputs[1], grad, _window_attrs(op)),
    )


def _register_avg_pool_gradients(forward, backward):
    from tfcompat.framework import dtypes
    from tfcompat.ops import array_ops

    @RegisterGradient(forward)
    def _avg_pool_grad(op, grad):
        shape = array_ops.shape(op.inputs[0], out_type=dtypes.int32)
        return apply_op(backward, orig_input_shape=shape, grad=grad, **_window_attrs(op)).outputs[0]

    @RegisterGradient(backward)
    def _avg_pool_grad_grad(op, grad):
        pooled = apply_op(forward, **{_POOL_INPUT[forward]: grad}, **_window_attrs(op))
        return array_ops.stop_gradient(op.inputs[0]), pooled.outputs[0]


_POOL_INPUT = {"AvgPool": "value", "AvgPool3D": "input"}
_register_avg_pool_gradients("AvgPool", "AvgPoolGrad")
_register_avg_pool_gradients("AvgPool3D", "AvgPool3DGrad")


# ---------------------------------------------------------------------------------------------
# Wrappers
# ---------------------------------------------------------------------------------------------
def _check_ksize(ksize):
    if (np.isscalar(ksize) and ksize == 0) or (
        isinstance(ksize, (list, tuple, np.ndarray)) and any(v == 0 for v in ksize)
    ):
        raise ValueError(f"`ksize` cannot be zero. Received: ksize={ksize}")


def _max_pool_2d(value, ksize, strides, padding, data_format, scope, check_zero):
    data_format = data_format or "NHWC"
    channel_index = 1 if data_format.startswith("NC") else 3
    ksize = get_sequence(ksize, 2, channel_index, "ksize")
    strides = get_sequence(strides, 2, channel_index, "strides")
    if isinstance(padding, (list, tuple)) and data_format == "NCHW_VECT_C":
        raise ValueError(
            "`data_format='NCHW_VECT_C'` is not supported with explicit padding. Received: "
            f"padding={padding}"
        )
    padding, explicit_paddings = convert_padding(padding)
    if check_zero:
        _check_ksize(ksize)
    return apply_op(
        "MaxPool",
        name=scope,
        input=value,
        ksize=ksize,
        strides=strides,
        padding=padding,
        explicit_paddings=explicit_paddings,
        data_format=data_format,
    ).outputs[0]


@tf_export("nn.max_pool")
def max_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):  # noqa: A002
    """Max pooling of a 4-D tensor over windows ``ksize`` moved by ``strides``."""
    value = deprecated_argument_lookup("input", input, "value", value)
    with name_scope(name, "MaxPool", [value]) as scope:
        return _max_pool_2d(value, ksize, strides, padding, data_format, scope, check_zero=True)


@tf_export("nn.max_pool2d")
def max_pool2d(input, ksize, strides, padding, data_format="NHWC", name=None):  # noqa: A002
    """Max pooling of a 4-D tensor (the TF2 name of ``max_pool``)."""
    with name_scope(name, "MaxPool2d", [input]) as scope:
        return _max_pool_2d(input, ksize, strides, padding, data_format, scope, check_zero=False)


@tf_export("nn.avg_pool", "nn.avg_pool2d")
def avg_pool(value, ksize, strides, padding, data_format="NHWC", name=None, input=None):  # noqa: A002
    """Average pooling of a 4-D tensor; SAME windows average over their in-bounds part."""
    with name_scope(name, "AvgPool", [value]) as scope:
        value = deprecated_argument_lookup("input", input, "value", value)
        data_format = data_format or "NHWC"
        channel_index = 1 if data_format.startswith("NC") else 3
        return apply_op(
            "AvgPool",
            name=scope,
            value=value,
            ksize=get_sequence(ksize, 2, channel_index, "ksize"),
            strides=get_sequence(strides, 2, channel_index, "strides"),
            padding=padding,
            data_format=data_format,
        ).outputs[0]


def _pool_3d(op_type, arg, input, ksize, strides, padding, data_format, name, default):  # noqa: A002
    with name_scope(name, default, [input]) as scope:
        data_format = data_format or "NDHWC"
        channel_index = 1 if data_format.startswith("NC") else 4
        return apply_op(
            op_type,
            name=scope,
            **{arg: input},
            ksize=get_sequence(ksize, 3, channel_index, "ksize"),
            strides=get_sequence(strides, 3, channel_index, "strides"),
            padding=padding,
            data_format=data_format,
        ).outputs[0]


@tf_export("nn.max_pool3d")
def max_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """Max pooling of a 5-D tensor."""
    return _pool_3d(
        "MaxPool3D", "input", input, ksize, strides, padding, data_format, name, "MaxPool3D"
    )


@tf_export("nn.avg_pool3d")
def avg_pool3d(input, ksize, strides, padding, data_format="NDHWC", name=None):  # noqa: A002
    """Average pooling of a 5-D tensor."""
    return _pool_3d(
        "AvgPool3D", "input", input, ksize, strides, padding, data_format, name, "AvgPool3D"
    )


@tf_export("nn.pool")
def pool(
    input,  # noqa: A002
    window_shape,
    pooling_type,
    padding,
    dilation_rate=None,
    strides=None,
    name=None,
    data_format=None,
    dilations=None,
):
    """N-d max or average pooling as TF1 builds it: the pooling op named after the
    ``max_pool``/``avg_pool`` scope, expanded to 2-D for 1-D windows, between
    SpaceToBatchND and BatchToSpaceND for dilation rates above 1."""
    from tfcompat.ops import array_ops, space_batch_ops

    dilation_rate = deprecated_argument_lookup(
        "dilations", dilations, "dilation_rate", dilation_rate
    )
    with name_scope(name, f"{pooling_type.lower()}_pool", [input]) as scope:
        input = convert_to_tensor(input, name="input")  # noqa: A001
        n = len(window_shape)
        if not 1 <= n <= 3:
            raise ValueError(
                "`len(window_shape)` must be 1, 2, or 3. Received: "
                f"window_shape={window_shape} of length {n}"
            )
        input.shape.with_rank(n + 2)
        strides = np.ones(n, int) if strides is None else np.asarray(strides)
        rate = np.ones(n, int) if dilation_rate is None else np.asarray(dilation_rate)
        if padding == "SAME" and np.any(rate > 1):
            raise ValueError(
                "pooling with 'SAME' padding is not implemented for `dilation_rate` > 1. "
                f"Received: padding={padding} and dilation_rate={rate}"
            )
        if np.any(strides > np.asarray(window_shape)):
            raise ValueError(
                "`strides` > `window_shape` not supported due to inconsistency between CPU "
                f"and GPU implementations. Received: strides={strides} and "
                f"window_shape={window_shape}"
            )
        if pooling_type not in ("MAX", "AVG"):
            raise ValueError(f"{n}-D {pooling_type} pooling is not supported.")
        channels_first = data_format is not None and data_format.startswith("NC")
        window = [int(w) for w in window_shape]
        steps = [int(s) for s in strides]
        lead = [1, 1] if channels_first else [1]
        trail = [] if channels_first else [1]
        ksize, stride_list = lead + window + trail, lead + steps + trail
        spatial_start = 2 if channels_first else 1
        fmt = {}
        if n == 1:
            if data_format in (None, "NWC"):
                fmt = {"data_format": "NHWC"}
            elif data_format == "NCW":
                fmt = {"data_format": "NCHW"}
            else:
                raise ValueError(
                    "data_format must be either 'NWC' or 'NCW'. Received: "
                    f"data_format={data_format}"
                )
            ksize, stride_list = [1] + ksize, [1] + stride_list
        elif data_format is not None:
            fmt = {"data_format": data_format}

        def op(x, _, pad):
            x = array_ops.expand_dims(x, spatial_start) if n == 1 else x
            result = wrapper(x, ksize, stride_list, pad, name=scope, **fmt)
            return array_ops.squeeze(result, [spatial_start]) if n == 1 else result

        wrapper = {
            ("MAX", 1): max_pool,
            ("MAX", 2): max_pool,
            ("MAX", 3): max_pool3d,
            ("AVG", 1): avg_pool,
            ("AVG", 2): avg_pool,
            ("AVG", 3): avg_pool3d,
        }[(pooling_type, n)]
        return space_batch_ops.with_space_to_batch(
            input, rate.astype(np.int32), padding, op,
            spatial_dims=range(spatial_start, spatial_start + n), filter_shape=window_shape,
        )  # fmt: skip
