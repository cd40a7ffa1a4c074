"""Numpy reference kernels of math ops."""

from __future__ import annotations

import numpy as np

from lowering.registry import REFERENCE, elementwise, reference

elementwise(REFERENCE, {"AddV2": np.add})


@reference("MatMul")
def _matmul(ctx, op, a, b):
    a = a.T if op.attrs["transpose_a"] else a
    b = b.T if op.attrs["transpose_b"] else b
    return np.matmul(a, b)
