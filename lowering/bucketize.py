"""JAX lowering of ``Bucketize`` as one ``searchsorted`` over the boundaries."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from lowering.registry import lowering


def comparison_boundaries(boundaries, dtype):
    """TF's kernel keeps boundaries as C++ floats and compares ``value < boundary`` under
    C++ promotion: float32 for integer and float inputs, float64 for double inputs."""
    bounds = np.asarray(boundaries, np.float32)
    compare_dtype = np.float64 if np.dtype(dtype) == np.float64 else np.float32
    return bounds.astype(compare_dtype), compare_dtype


@lowering("Bucketize")
def _bucketize(ctx, op, x):
    bounds, compare_dtype = comparison_boundaries(op.attrs["boundaries"], x.dtype)
    values = jnp.asarray(x).astype(compare_dtype)
    return jnp.searchsorted(jnp.asarray(bounds), values, side="right").astype(jnp.int32)
