"""Numpy reference kernel of ``Bucketize``: count the boundaries at or below each value."""

from __future__ import annotations

import numpy as np

from lowering.registry import reference


@reference("Bucketize")
def _bucketize(ctx, op, x):
    x = np.asarray(x)
    bounds = np.asarray(op.attrs["boundaries"], np.float32)
    if x.dtype == np.float64:
        values, bounds = x, bounds.astype(np.float64)
    else:
        values = x.astype(np.float32)
    # upper_bound: the first boundary with value < boundary; so the bucket is the number
    # of boundaries that are not greater than the value (all of them for NaN)
    flat = values.reshape(-1, 1)
    counts = np.logical_not(flat < bounds[None, :]).sum(axis=1)
    return counts.astype(np.int32).reshape(x.shape)
