"""Numpy reference kernels of the extra nn ops: ``InTopKV2``."""

from __future__ import annotations

import numpy as np

from lowering.registry import reference


@reference("InTopKV2")
def _in_top_k(ctx, op, predictions, targets, k):
    predictions, targets = np.asarray(predictions), np.asarray(targets)
    classes = predictions.shape[1]
    # A row counts only if its target is a class and all its scores are finite (TF).
    valid = (targets >= 0) & (targets < classes) & np.isfinite(predictions).all(axis=1)
    target_scores = predictions[np.arange(len(targets)), np.clip(targets, 0, classes - 1)]
    above = np.count_nonzero(predictions > target_scores[:, None], axis=1)
    return valid & (above < int(k))
