"""JAX lowerings of the fused batch normalization ops and their gradient ops.

Statistics are computed in the ``U`` type (float32) whatever ``x``'s type, as TF's kernels
do, with plain reductions over every axis but the channel axis; XLA fuses the normalization
into one pass. The gradient ops are closed-form expressions (no ``jax.vjp``), so their cost
is a few reductions of ``y_backprop`` and ``x``.
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
from jax import lax

from lowering.registry import lowering


def _layout(op, ndim):
    """``(reduction axes, broadcast shape of a per-channel vector)`` for the op's format."""
    channel = 1 if op.attrs["data_format"].startswith(b"NC") else ndim - 1
    axes = tuple(a for a in range(ndim) if a != channel)
    return axes, channel


def _per_channel(v, ndim, channel):
    shape = [1] * ndim
    shape[channel] = -1
    return v.reshape(shape)


def _float32_attr(op, name):
    # A C++ float attr: TF's kernels use its float32 value.
    return np.float32(op.attrs[name])


@lowering("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3")
def _fused_batch_norm(ctx, op, x, scale, offset, mean, variance):
    ndim = x.ndim
    axes, channel = _layout(op, ndim)
    stat_dtype = scale.dtype
    xf = x.astype(stat_dtype)
    epsilon = _float32_attr(op, "epsilon").astype(stat_dtype)
    if op.attrs["is_training"]:
        batch_mean = jnp.mean(xf, axis=axes)
        centered = xf - _per_channel(batch_mean, ndim, channel)
        batch_var = jnp.mean(jnp.square(centered), axis=axes)
        count = int(np.prod([x.shape[a] for a in axes]))
        corrected = batch_var * np.asarray(count / max(count - 1, 1), stat_dtype)
        inv = lax.rsqrt(batch_var + epsilon) * scale
        y = centered * _per_channel(inv, ndim, channel) + _per_channel(offset, ndim, channel)
        factor = _float32_attr(op, "exponential_avg_factor").astype(stat_dtype)
        if factor == 1:
            running_mean, running_var = batch_mean, corrected
        else:
            keep = np.asarray(1, stat_dtype) - factor
            running_mean = keep * mean + factor * batch_mean
            running_var = keep * variance + factor * corrected
        saved = batch_mean, batch_var
    else:
        inv = lax.rsqrt(variance + epsilon) * scale
        shift = offset - mean * inv
        y = xf * _per_channel(inv, ndim, channel) + _per_channel(shift, ndim, channel)
        running_mean, running_var = mean, variance
        saved = mean, variance
    outputs = (y.astype(x.dtype), running_mean, running_var) + saved
    if op.type == "FusedBatchNormV3":
        outputs += (jnp.zeros((0,), stat_dtype),)
    return outputs


@lowering("FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3")
def _fused_batch_norm_grad(ctx, op, dy, x, scale, saved_mean, saved_var, *unused):
    """Training: ``dx = scale * inv * (dy - mean(dy) - xhat * mean(dy * xhat))`` with the
    saved batch statistics; inference: ``dx = dy * scale * inv`` with the population ones.
    ``scale_backprop = sum(dy * xhat)`` and ``offset_backprop = sum(dy)`` in both."""
    del unused
    ndim = x.ndim
    axes, channel = _layout(op, ndim)
    stat_dtype = saved_mean.dtype
    dyf, xf = dy.astype(stat_dtype), x.astype(stat_dtype)
    epsilon = _float32_attr(op, "epsilon").astype(stat_dtype)
    inv = lax.rsqrt(saved_var + epsilon)
    xhat = (xf - _per_channel(saved_mean, ndim, channel)) * _per_channel(inv, ndim, channel)
    offset_backprop = jnp.sum(dyf, axis=axes)
    scale_backprop = jnp.sum(dyf * xhat, axis=axes)
    if op.attrs["is_training"]:
        count = np.asarray(np.prod([x.shape[a] for a in axes]), stat_dtype)
        mean_dy = offset_backprop / count
        mean_dy_xhat = scale_backprop / count
        dx = (
            dyf
            - _per_channel(mean_dy, ndim, channel)
            - xhat * _per_channel(mean_dy_xhat, ndim, channel)
        )
        dx = dx * _per_channel(scale * inv, ndim, channel)
    else:
        dx = dyf * _per_channel(scale * inv, ndim, channel)
    empty = jnp.zeros((0,), stat_dtype)
    return dx.astype(x.dtype), scale_backprop, offset_backprop, empty, empty
