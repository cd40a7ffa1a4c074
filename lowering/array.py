"""JAX lowerings of array ops (placeholders, identity, shape manipulation)."""

from __future__ import annotations

import jax.numpy as jnp

from lowering.registry import lowering
from tfcompat.framework import errors


@lowering("Const")
def _const(ctx, op):
    return jnp.asarray(op.attrs["value"])


@lowering("Placeholder")
def _placeholder(ctx, op):
    # Reached only when not fed; plan.build_plan reports this before tracing.
    raise errors.InvalidArgumentError(
        None, op, f"You must feed a value for placeholder tensor '{op.name}'"
    )


@lowering("PlaceholderWithDefault", "Identity", "StopGradient")
def _identity(ctx, op, x):
    return x


@lowering("IdentityN")
def _identity_n(ctx, op, *xs):
    return tuple(xs)
