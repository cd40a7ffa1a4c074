"""Numpy reference kernels of the extra nn ops: ``InTopKV2``."""

from __future__ import annotations

import numpy as np

from lowering.registry import reference


@reference("InTopKV2")
def _in_top_k(ctx, op, predictions, targets, k):
    predictions = np.asarray(predictions)
    out = np.zeros(len(targets), bool)
    for row, (scores, target) in enumerate(zip(predictions, np.asarray(targets))):
        if 0 <= target < scores.size and np.isfinite(scores).all():
            out[row] = np.count_nonzero(scores > scores[target]) < int(k)
    return out
