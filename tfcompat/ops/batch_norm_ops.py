"""Batch normalization: the fused ops (``FusedBatchNorm``, ``V2``, ``V3``), their gradient
ops (``FusedBatchNormGrad``, ``V2``, ``V3``), the gradients TF registers for the forward ops,
and the ``tf.nn`` wrappers ``fused_batch_norm`` and ``batch_normalization``.

OpDefs follow ``tensorflow/core/ops/nn_ops.cc``. What the outputs hold (TF's CPU kernels):

* training: ``batch_mean`` / ``batch_variance`` are the batch statistics (the variance with
  Bessel's correction), blended with the ``mean`` / ``variance`` inputs as
  ``(1 - f) * input + f * batch`` when ``exponential_avg_factor`` f is not 1;
  ``reserve_space_1`` / ``reserve_space_2`` are the batch mean and *biased* variance that
  normalized ``x`` and that the gradient op reads back;
* inference: ``y`` uses the ``mean`` / ``variance`` inputs, which the four statistic
  outputs repeat;
* ``reserve_space_3`` (V3) is an empty vector.
"""

from __future__ import annotations

from tfcompat.framework import tensor_shape
from tfcompat.framework.gradient_registry import RegisterGradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op, convert_to_tensor
from tfcompat.framework.scopes import name_scope
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.ops import batch_norm_grad_grad  # noqa: F401 - second derivatives
from tfcompat.ops.nn_ops import merge_dim, with_rank
from tfcompat.util.tf_export import tf_export

_FORMATS_2D = "{'NHWC', 'NCHW'}"
_FORMATS_3D = "{'NHWC', 'NCHW', 'NDHWC', 'NCDHW'}"
_COMMON_ATTRS = [
    "epsilon: float = 0.0001",
    "exponential_avg_factor: float = 1.0",
]


def _forward_attrs(types, formats):
    return types + _COMMON_ATTRS + [f"data_format: {formats} = 'NHWC'", "is_training: bool = true"]


def _grad_attrs(types, formats):
    return types + [
        "epsilon: float = 0.0001",
        f"data_format: {formats} = 'NHWC'",
        "is_training: bool = true",
    ]


def _layout(op, x_shape):
    """The rank a data format requires and the channel axis it names."""
    data_format = op.attrs["data_format"]
    rank = 5 if data_format in (b"NDHWC", b"NCDHW") else 4
    shape = with_rank(x_shape, rank)
    channel = 1 if data_format.startswith(b"NC") else rank - 1
    return shape, channel


def _merge_channel(shape, channel, vectors):
    """Merges the channel dimension of ``shape`` with each 1-D ``vectors`` entry's length;
    returns the merged shape and the channel count."""
    dims = shape.as_list() if shape.rank is not None else None
    depth = dims[channel] if dims is not None else None
    for vector in vectors:
        vector = with_rank(vector, 1)
        depth = merge_dim(depth, vector.as_list()[0])
    if dims is not None:
        dims[channel] = depth
        shape = TensorShape(dims)
    return shape, depth


def _fused_batch_norm_shape(op):
    """TF's ``FusedBatchNormShape``: x of rank 4 (5 for 3-D formats), per-channel vectors for
    scale and offset, and for mean and variance too where the op reads them (inference, or
    training with a running average)."""
    x_shape, channel = _layout(op, op.inputs[0].shape)
    vectors = [op.inputs[1].shape, op.inputs[2].shape]
    reads_stats = not op.attrs["is_training"] or op.attrs["exponential_avg_factor"] != 1.0
    if reads_stats:
        vectors += [op.inputs[3].shape, op.inputs[4].shape]
    y_shape, depth = _merge_channel(x_shape, channel, vectors)
    outputs = [y_shape] + [TensorShape([depth])] * 4
    if len(op.outputs) == 6:
        outputs.append(tensor_shape.unknown_shape())
    return outputs


def _fused_batch_norm_grad_shape(op):
    """TF's ``FusedBatchNormGradShape``: ``y_backprop`` and ``x`` agree, the scale and the
    two saved statistics are per-channel vectors; the trailing outputs are empty."""
    dy_shape, channel = _layout(op, op.inputs[0].shape)
    x_shape, _ = _layout(op, op.inputs[1].shape)
    merged = dy_shape.merge_with(x_shape)
    merged, depth = _merge_channel(merged, channel, [t.shape for t in op.inputs[2:5]])
    return [merged, TensorShape([depth]), TensorShape([depth]), TensorShape([0]), TensorShape([0])]


_STATS = ["scale: {}", "offset: {}", "mean: {}", "variance: {}"]
_FORWARD_OUTPUTS = ["y: T", "batch_mean: {}", "batch_variance: {}"]
_RESERVES = ["reserve_space_1: {}", "reserve_space_2: {}"]

register_op(
    "FusedBatchNorm",
    inputs=["x: T"] + [s.format("T") for s in _STATS],
    outputs=_FORWARD_OUTPUTS[:1] + [s.format("T") for s in _FORWARD_OUTPUTS[1:] + _RESERVES],
    attrs=_forward_attrs(["T: {float}"], _FORMATS_2D),
    shape_fn=_fused_batch_norm_shape,
)
register_op(
    "FusedBatchNormV2",
    inputs=["x: T"] + [s.format("U") for s in _STATS],
    outputs=_FORWARD_OUTPUTS[:1] + [s.format("U") for s in _FORWARD_OUTPUTS[1:] + _RESERVES],
    attrs=_forward_attrs(["T: {half, bfloat16, float}", "U: {float}"], _FORMATS_2D),
    shape_fn=_fused_batch_norm_shape,
)
register_op(
    "FusedBatchNormV3",
    inputs=["x: T"] + [s.format("U") for s in _STATS],
    outputs=_FORWARD_OUTPUTS[:1]
    + [s.format("U") for s in _FORWARD_OUTPUTS[1:] + _RESERVES + ["reserve_space_3: {}"]],
    attrs=_forward_attrs(["T: {half, bfloat16, float}", "U: {bfloat16, float}"], _FORMATS_3D),
    shape_fn=_fused_batch_norm_shape,
)

_GRAD_OUTPUTS = ["x_backprop: T", "scale_backprop: {}", "offset_backprop: {}"]
register_op(
    "FusedBatchNormGrad",
    inputs=["y_backprop: T", "x: T", "scale: T", "reserve_space_1: T", "reserve_space_2: T"],
    outputs=_GRAD_OUTPUTS[:1]
    + [s.format("T") for s in _GRAD_OUTPUTS[1:]]
    + ["reserve_space_3: T", "reserve_space_4: T"],
    attrs=_grad_attrs(["T: {float}"], _FORMATS_2D),
    shape_fn=_fused_batch_norm_grad_shape,
)
register_op(
    "FusedBatchNormGradV2",
    inputs=["y_backprop: T", "x: T", "scale: float", "reserve_space_1: U", "reserve_space_2: U"],
    outputs=_GRAD_OUTPUTS[:1]
    + [s.format("U") for s in _GRAD_OUTPUTS[1:]]
    + ["reserve_space_3: U", "reserve_space_4: U"],
    attrs=_grad_attrs(["T: {half, bfloat16, float}", "U: {float}"], _FORMATS_2D),
    shape_fn=_fused_batch_norm_grad_shape,
)
register_op(
    "FusedBatchNormGradV3",
    inputs=[
        "y_backprop: T",
        "x: T",
        "scale: float",
        "reserve_space_1: U",
        "reserve_space_2: U",
        "reserve_space_3: U",
    ],
    outputs=_GRAD_OUTPUTS[:1]
    + [s.format("U") for s in _GRAD_OUTPUTS[1:]]
    + ["reserve_space_4: U", "reserve_space_5: U"],
    attrs=_grad_attrs(["T: {half, bfloat16, float}", "U: {float}"], _FORMATS_3D),
    shape_fn=_fused_batch_norm_grad_shape,
)


# ---------------------------------------------------------------------------------------------
# Gradients of the forward ops (TF's ``_BaseFusedBatchNormGrad``)
# ---------------------------------------------------------------------------------------------
_GRAD_OP = {"FusedBatchNorm": "FusedBatchNormGrad", "FusedBatchNormV2": "FusedBatchNormGradV2",
            "FusedBatchNormV3": "FusedBatchNormGradV3"}  # fmt: skip
# Inference-mode gradients are computed channels-last: (to channels-last, back) permutations.
_TO_CHANNELS_LAST = {
    b"NCHW": ([0, 2, 3, 1], [0, 3, 1, 2]),
    b"NCDHW": ([0, 2, 3, 4, 1], [0, 4, 1, 2, 3]),
}


def _fused_batch_norm_grad(op, *grads):
    """Training: the gradient op reads the saved batch statistics. Inference: it reads the
    population statistics (inputs 3 and 4), in a channels-last layout."""
    from tfcompat.ops import array_ops

    x, grad_y, scale = op.inputs[0], grads[0], op.inputs[1]
    data_format = op.attrs["data_format"]
    is_training = op.attrs["is_training"]
    keywords = dict(epsilon=op.attrs["epsilon"], data_format=data_format, is_training=is_training)
    if is_training:
        saved = op.outputs[3], op.outputs[4]
    else:
        saved = op.inputs[3], op.inputs[4]
        if data_format in _TO_CHANNELS_LAST:
            perm = _TO_CHANNELS_LAST[data_format][0]
            x = array_ops.transpose(x, perm)
            grad_y = array_ops.transpose(grad_y, perm)
        keywords["data_format"] = "NHWC" if data_format in (b"NCHW", b"NHWC") else "NDHWC"
    if op.type == "FusedBatchNormV3":
        keywords["reserve_space_3"] = op.outputs[5]
    grad_op = apply_op(
        _GRAD_OP[op.type],
        y_backprop=grad_y,
        x=x,
        scale=scale,
        reserve_space_1=saved[0],
        reserve_space_2=saved[1],
        **keywords,
    )
    dx, dscale, doffset = grad_op.outputs[:3]
    if not is_training and data_format in _TO_CHANNELS_LAST:
        dx = array_ops.transpose(dx, _TO_CHANNELS_LAST[data_format][1])
    return dx, dscale, doffset, None, None


for _op_type in _GRAD_OP:
    RegisterGradient(_op_type)(_fused_batch_norm_grad)


# ---------------------------------------------------------------------------------------------
# Wrappers
# ---------------------------------------------------------------------------------------------
@tf_export("nn.fused_batch_norm")
def fused_batch_norm(
    x,
    scale,
    offset,
    mean=None,
    variance=None,
    epsilon=0.001,
    data_format="NHWC",
    is_training=True,
    name=None,
    exponential_avg_factor=1.0,
):
    """Batch normalization as one ``FusedBatchNormV3`` op; returns ``(y, batch_mean,
    batch_variance)``. ``mean`` and ``variance`` may be omitted only when training without
    a running average (``exponential_avg_factor`` 1)."""
    from tfcompat.framework.constant_op import constant

    if (not is_training or exponential_avg_factor != 1.0) and (mean is None or variance is None):
        raise ValueError(
            "Both `mean` and `variance` must be a 1D tensor when `is_training` is False or "
            f"`exponential_avg_factor` != 1.0. Received: `mean` {mean!r} and `variance` "
            f"{variance!r}"
        )
    x = convert_to_tensor(x, name="input")
    scale = convert_to_tensor(scale, name="scale")
    offset = convert_to_tensor(offset, name="offset")
    if mean is None:
        mean = constant([])
    if variance is None:
        variance = constant([])
    op = apply_op(
        "FusedBatchNormV3",
        name=name,
        x=x,
        scale=scale,
        offset=offset,
        mean=mean,
        variance=variance,
        epsilon=epsilon,
        exponential_avg_factor=exponential_avg_factor,
        data_format=data_format,
        is_training=is_training,
    )
    return op.outputs[0], op.outputs[1], op.outputs[2]


@tf_export("nn.batch_normalization")
def batch_normalization(x, mean, variance, offset, scale, variance_epsilon, name=None):
    """``(x - mean) * scale / sqrt(variance + epsilon) + offset`` from elementwise ops, as
    ``x * inv + (offset - mean * inv)`` with ``inv = rsqrt(variance + epsilon) * scale``."""
    from tfcompat.ops import math_ops

    with name_scope(name, "batchnorm", [x, mean, variance, scale, offset]):
        inv = math_ops.rsqrt(variance + variance_epsilon)
        if scale is not None:
            inv *= scale
        scaled = x * math_ops.cast(inv, x.dtype)  # built before the shift, as in TF
        shift = offset - mean * inv if offset is not None else -mean * inv
        return scaled + math_ops.cast(shift, x.dtype)
