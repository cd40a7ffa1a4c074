"""JAX lowerings of math ops."""

from __future__ import annotations

import jax.numpy as jnp
from jax import lax

from lowering.registry import LOWERINGS, elementwise, lowering

elementwise(LOWERINGS, {"AddV2": jnp.add})


@lowering("MatMul")
def _matmul(ctx, op, a, b):
    dims = (((0,) if op.attrs["transpose_a"] else (1,), (1,) if op.attrs["transpose_b"] else (0,)), ((), ()))
    return lax.dot_general(a, b, dims, preferred_element_type=a.dtype)
