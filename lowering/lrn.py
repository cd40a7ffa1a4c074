"""JAX lowerings of ``LRN`` and ``LRNGrad``: the reference formulas on jax.numpy (a window
sum over channels by cumulative sums)."""

from __future__ import annotations

import jax.numpy as jnp

from lowering.reference.lrn import lrn, lrn_grad
from lowering.registry import lowering


def _attrs(op):
    return {k: op.attrs[k] for k in ("depth_radius", "bias", "alpha", "beta")}


@lowering("LRN")
def _lrn(ctx, op, x):
    return lrn(x.astype(jnp.float32), _attrs(op), jnp).astype(x.dtype)


@lowering("LRNGrad")
def _lrn_grad(ctx, op, grads, image, output):
    out = lrn_grad(grads.astype(jnp.float32), image.astype(jnp.float32), _attrs(op), jnp)
    return out.astype(image.dtype)
