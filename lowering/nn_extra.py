"""JAX lowerings of the extra nn ops: ``InTopKV2``."""

from __future__ import annotations

import jax.numpy as jnp

from lowering.registry import lowering


@lowering("InTopKV2")
def _in_top_k(ctx, op, predictions, targets, k):
    # A target is in the top k when fewer than k classes score strictly higher; an
    # out-of-range target or any non-finite score in the row makes the answer False.
    num_classes = predictions.shape[1]
    in_range = (targets >= 0) & (targets < num_classes)
    safe = jnp.where(in_range, targets, 0).astype(jnp.int32)
    target_score = jnp.take_along_axis(predictions, safe[:, None], axis=1)
    higher = jnp.sum(predictions > target_score, axis=1)
    finite = jnp.all(jnp.isfinite(predictions), axis=1)
    return in_range & finite & (higher < k)
