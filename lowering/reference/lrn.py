"""Numpy kernels of ``LRN`` and ``LRNGrad`` (float32 arithmetic), shared by the JAX rules.

``LRN``: ``y = x * s ** -beta`` with ``s = bias + alpha * (sum of x**2 over channels
c - r .. c + r)``. ``LRNGrad``: ``dx_j = g_j * s_j ** -beta - 2 * alpha * beta * x_j *
(sum over the channels i whose window holds j of g_i * x_i * s_i ** (-beta - 1))``; the
window is symmetric, so that sum runs over the same ``r`` neighbours."""

from __future__ import annotations

import numpy as np

from lowering.registry import reference


def window_sum(values, radius, xp=np):
    """Sum over channels ``c - radius .. c + radius`` (clipped) of the last axis."""
    depth = values.shape[-1]
    padded = xp.pad(values, [(0, 0)] * (values.ndim - 1) + [(radius, radius)])
    cumulative = xp.cumsum(padded, axis=-1)
    cumulative = xp.concatenate([xp.zeros_like(cumulative[..., :1]), cumulative], axis=-1)
    width = 2 * radius + 1
    return cumulative[..., width : width + depth] - cumulative[..., :depth]


def _scale(x, attrs, xp=np):
    return attrs["bias"] + attrs["alpha"] * window_sum(x * x, attrs["depth_radius"], xp)


def lrn(x, attrs, xp=np):
    return x * _scale(x, attrs, xp) ** -attrs["beta"]


def lrn_grad(grads, x, attrs, xp=np):
    s = _scale(x, attrs, xp)
    beta, alpha, radius = attrs["beta"], attrs["alpha"], attrs["depth_radius"]
    inner = window_sum(grads * x * s ** (-beta - 1), radius, xp)
    return grads * s**-beta - 2 * alpha * beta * x * inner


def _attrs(op):
    return {k: op.attrs[k] for k in ("depth_radius", "bias", "alpha", "beta")}


@reference("LRN")
def _lrn(ctx, op, x):
    x = np.asarray(x)
    return lrn(x.astype(np.float32), _attrs(op)).astype(x.dtype)


@reference("LRNGrad")
def _lrn_grad(ctx, op, grads, image, output):
    image = np.asarray(image)
    out = lrn_grad(np.asarray(grads, np.float32), image.astype(np.float32), _attrs(op))
    return out.astype(image.dtype)
