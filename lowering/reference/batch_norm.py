"""numpy reference kernels of the fused batch normalization ops and their gradient ops,
computed in float64 and rounded to the op's types (written from the formulas, separately
from the JAX rules)."""

from __future__ import annotations

import numpy as np

from lowering.registry import reference


def _moveaxis_channel_last(op, array):
    """``array`` with its channel axis moved last (a view), per the op's data format."""
    if op.attrs["data_format"].startswith(b"NC"):
        return np.moveaxis(array, 1, -1)
    return array


def _restore_layout(op, array):
    if op.attrs["data_format"].startswith(b"NC"):
        return np.moveaxis(array, -1, 1)
    return array


@reference("FusedBatchNorm", "FusedBatchNormV2", "FusedBatchNormV3")
def _fused_batch_norm(ctx, op, x, scale, offset, mean, variance):
    stat_dtype = np.asarray(scale).dtype
    flat = _moveaxis_channel_last(op, np.asarray(x, np.float64))
    rows = flat.reshape(-1, flat.shape[-1])
    epsilon = float(np.float32(op.attrs["epsilon"]))
    if op.attrs["is_training"]:
        batch_mean = rows.mean(axis=0)
        batch_var = rows.var(axis=0)
        n = rows.shape[0]
        unbiased = batch_var * (n / (n - 1) if n > 1 else 1.0)
        factor = float(np.float32(op.attrs["exponential_avg_factor"]))
        if factor == 1.0:
            running = batch_mean, unbiased
        else:
            running = (
                (1 - factor) * np.asarray(mean, np.float64) + factor * batch_mean,
                (1 - factor) * np.asarray(variance, np.float64) + factor * unbiased,
            )
        use_mean, use_var = batch_mean, batch_var
        saved = batch_mean, batch_var
    else:
        use_mean = np.asarray(mean, np.float64)
        use_var = np.asarray(variance, np.float64)
        running = saved = use_mean, use_var
    y = (flat - use_mean) / np.sqrt(use_var + epsilon) * np.asarray(scale, np.float64)
    y = _restore_layout(op, y + np.asarray(offset, np.float64))
    outputs = [np.asarray(y, np.asarray(x).dtype)]
    outputs += [np.asarray(v, stat_dtype) for v in running + saved]
    if op.type == "FusedBatchNormV3":
        outputs.append(np.zeros((0,), stat_dtype))
    return tuple(outputs)


@reference("FusedBatchNormGrad", "FusedBatchNormGradV2", "FusedBatchNormGradV3")
def _fused_batch_norm_grad(ctx, op, dy, x, scale, saved_mean, saved_var, *unused):
    stat_dtype = np.asarray(saved_mean).dtype
    g = _moveaxis_channel_last(op, np.asarray(dy, np.float64))
    xs = _moveaxis_channel_last(op, np.asarray(x, np.float64))
    g_rows = g.reshape(-1, g.shape[-1])
    x_rows = xs.reshape(-1, xs.shape[-1])
    epsilon = float(np.float32(op.attrs["epsilon"]))
    std = np.sqrt(np.asarray(saved_var, np.float64) + epsilon)
    xhat = (x_rows - np.asarray(saved_mean, np.float64)) / std
    gamma = np.asarray(scale, np.float64)
    d_offset = g_rows.sum(axis=0)
    d_scale = (g_rows * xhat).sum(axis=0)
    if op.attrs["is_training"]:
        n = x_rows.shape[0]
        dx_rows = gamma / std * (g_rows - d_offset / n - xhat * d_scale / n)
    else:
        dx_rows = g_rows * gamma / std
    dx = _restore_layout(op, dx_rows.reshape(xs.shape))
    empty = np.zeros((0,), stat_dtype)
    return (
        np.asarray(dx, np.asarray(x).dtype),
        np.asarray(d_scale, stat_dtype),
        np.asarray(d_offset, stat_dtype),
        empty,
        empty,
    )
