"""nn functions TF builds from math ops (TF's ``nn_impl``): ``l2_normalize``, ``moments``
and ``sigmoid_cross_entropy_with_logits``, node for node as TF 2.21's ``tf.compat.v1``."""

from __future__ import annotations

from tfcompat.framework import dtypes
from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.framework.scopes import name_scope
from tfcompat.ops.nn_ops import _axis_or_dim, _ensure_xent_args
from tfcompat.util.tf_export import tf_export


@tf_export("nn.l2_normalize", "math.l2_normalize", "linalg.l2_normalize")
def l2_normalize(x, axis=None, epsilon=1e-12, name=None, dim=None):
    """``x / sqrt(max(sum(x**2, axis), epsilon))``; ``dim`` is the deprecated name of
    ``axis`` (default: all axes)."""
    from tfcompat.ops import math_ops, reduction_ops

    axis = _axis_or_dim(axis, dim)
    with name_scope(name, "l2_normalize", [x]) as scope:
        x = convert_to_tensor(x, name="x")
        if x.dtype.is_complex:
            real, imag = math_ops.real(x), math_ops.imag(x)
            square_sum = math_ops.real(
                reduction_ops.reduce_sum(
                    math_ops.square(real) + math_ops.square(imag), axis, keepdims=True
                )
            )
            x_inv_norm = math_ops.rsqrt(math_ops.maximum(square_sum, epsilon))
            return math_ops.complex(
                math_ops.multiply(real, x_inv_norm),
                math_ops.multiply(imag, x_inv_norm),
                name=scope,
            )
        square_sum = reduction_ops.reduce_sum(math_ops.square(x), axis, keepdims=True)
        x_inv_norm = math_ops.rsqrt(math_ops.maximum(square_sum, epsilon))
        return math_ops.multiply(x, x_inv_norm, name=scope)


@tf_export("nn.moments")
def moments(x, axes, shift=None, name=None, keep_dims=None, keepdims=None):
    """Mean and variance of ``x`` over ``axes`` (the variance about the mean, which is not
    differentiated through). ``shift`` is accepted and unused, as in TF; float16 inputs are
    reduced in float32."""
    from tfcompat.ops import array_ops, math_ops, reduction_ops

    del shift  # TF ignores it too
    if keepdims is not None and keep_dims is not None:
        raise ValueError("Cannot specify both 'keep_dims' and 'keepdims'.")
    keep_dims = bool(keepdims if keepdims is not None else keep_dims)
    with name_scope(name, "moments", [x, axes]):
        half = dtypes.as_dtype(x.dtype) == dtypes.float16
        y = math_ops.cast(x, dtypes.float32) if half else x
        mean = reduction_ops.reduce_mean(y, axes, keepdims=True, name="mean")
        variance = reduction_ops.reduce_mean(
            math_ops.squared_difference(y, array_ops.stop_gradient(mean)),
            axes,
            keepdims=True,
            name="variance",
        )
        if not keep_dims:
            mean = array_ops.squeeze(mean, axes)
            variance = array_ops.squeeze(variance, axes)
        if half:
            return math_ops.cast(mean, dtypes.float16), math_ops.cast(variance, dtypes.float16)
        return mean, variance


@tf_export("nn.sigmoid_cross_entropy_with_logits")
def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """Elementwise logistic loss ``max(x, 0) - x * z + log(1 + exp(-|x|))`` of logits ``x``
    and labels ``z`` (the form that cannot overflow)."""
    from tfcompat.ops import array_ops, math_ops

    _ensure_xent_args("sigmoid_cross_entropy_with_logits", labels, logits)
    with name_scope(name, "logistic_loss", [logits, labels]) as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        if not labels.shape.is_compatible_with(logits.shape):
            raise ValueError(
                "`logits` and `labels` must have the same shape, received "
                f"({logits.shape} vs {labels.shape})."
            )
        zeros = array_ops.zeros_like(logits, dtype=logits.dtype)
        cond = logits >= zeros
        relu_logits = math_ops.where(cond, logits, zeros)
        neg_abs_logits = math_ops.where(cond, -logits, logits)
        return math_ops.add(
            relu_logits - logits * labels,
            math_ops.log1p(math_ops.exp(neg_abs_logits)),
            name=scope,
        )
