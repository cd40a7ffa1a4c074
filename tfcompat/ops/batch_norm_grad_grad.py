"""Second derivatives of batch normalization: the gradients TF 2.21 registers for
``FusedBatchNormGrad``, ``V2`` and ``V3``. As in TF, the first derivative is rebuilt from
elementwise ops and reductions (``_batch_norm_grad``) and differentiated again, here with
``tf.gradients`` from ``StopGradient`` copies of the op's inputs (TF uses a GradientTape;
the ops are of the same kinds, their names differ)."""

from __future__ import annotations

from tfcompat.framework import dtypes
from tfcompat.framework.gradient_registry import RegisterGradient

_TRAINING_AXES = {b"NHWC": [0, 1, 2], b"NDHWC": [0, 1, 2, 3], b"NCHW": [0, 2, 3],
                  b"NCDHW": [0, 2, 3, 4]}  # fmt: skip


def _per_channel_shape(data_format, vector):
    from tfcompat.ops import array_ops

    rank = 5 if data_format == b"NCDHW" else 4
    return [1, array_ops.size(vector)] + [1] * (rank - 2)


def _batch_norm_grad(grad_y, x, scale, pop_mean, pop_var, epsilon, data_format, is_training):
    """``(dx, dscale, doffset)`` of batch normalization from elementwise ops."""
    from tfcompat.ops import array_ops, math_ops
    from tfcompat.ops.reduction_ops import reduce_mean, reduce_sum

    x_dtype = x.dtype.base_dtype
    if x_dtype in (dtypes.float16, dtypes.bfloat16):
        x = math_ops.cast(x, dtypes.float32)
        grad_y = math_ops.cast(grad_y, dtypes.float32)
    axes = _TRAINING_AXES[data_format]
    channels_first = data_format in (b"NCHW", b"NCDHW")
    if is_training:
        if channels_first:
            scale = array_ops.reshape(scale, _per_channel_shape(data_format, scale))
        mean_grad_y = reduce_mean(grad_y, axes, keepdims=channels_first)
        mean_x = reduce_mean(x, axes, keepdims=channels_first)
        var_x = reduce_mean(
            math_ops.squared_difference(x, array_ops.stop_gradient(mean_x)),
            axes,
            keepdims=channels_first,
        )
        grad_y_offset = grad_y - mean_grad_y
        x_offset = x - mean_x
        mean = reduce_mean(grad_y * x_offset, axis=axes, keepdims=channels_first)
        grad_x = (
            scale
            * math_ops.rsqrt(var_x + epsilon)
            * (grad_y_offset - math_ops.reciprocal(var_x + epsilon) * mean * x_offset)
        )
        grad_scale = math_ops.rsqrt(var_x + epsilon) * reduce_sum(
            grad_y * x_offset, axis=axes, keepdims=channels_first
        )
        if channels_first:
            grad_scale = array_ops.squeeze(grad_scale)
        grad_offset = reduce_sum(grad_y, axis=axes)
        return math_ops.cast(grad_x, x_dtype), grad_scale, grad_offset
    if channels_first:
        shape = _per_channel_shape(data_format, pop_mean)
        pop_mean = array_ops.reshape(pop_mean, shape)
        pop_var = array_ops.reshape(pop_var, shape)
        scale = array_ops.reshape(scale, shape)
    grad_offset = reduce_sum(grad_y, axis=axes)
    var_rsqrt = math_ops.rsqrt(pop_var + epsilon)
    grad_scale = reduce_sum(grad_y * (x - pop_mean) * var_rsqrt, axis=axes)
    grad_x = grad_y * scale * var_rsqrt
    return math_ops.cast(grad_x, x_dtype), grad_scale, grad_offset


def _fused_batch_norm_grad_grad(op, *grads):
    from tfcompat.gradients_impl import gradients
    from tfcompat.ops import array_ops

    # Like TF's tape, differentiate the rebuilt first derivative only: its inputs are cut
    # from the graph above them (``grad_y`` itself depends on ``x``).
    grad_y, x, scale = (array_ops.stop_gradient(t) for t in op.inputs[:3])
    pop_mean, pop_var = op.inputs[3:5]
    first = _batch_norm_grad(
        grad_y, x, scale, pop_mean, pop_var, op.attrs["epsilon"], op.attrs["data_format"],
        op.attrs["is_training"],
    )  # fmt: skip
    grad_grad_y, grad_x, grad_scale = gradients(
        list(first), [grad_y, x, scale], grad_ys=list(grads[:3])
    )
    extra = [None] * (len(op.inputs) - 3)
    return [grad_grad_y, grad_x, grad_scale] + extra


for _op_type in ("FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3"):
    RegisterGradient(_op_type)(_fused_batch_norm_grad_grad)
