"""Numpy reference kernels of array ops."""

from __future__ import annotations

import numpy as np

from lowering.registry import reference
from tfcompat.framework import errors


@reference("Const")
def _const(ctx, op):
    return op.attrs["value"]


@reference("Placeholder")
def _placeholder(ctx, op):
    raise errors.InvalidArgumentError(
        None, op, f"You must feed a value for placeholder tensor '{op.name}'"
    )


@reference("PlaceholderWithDefault", "Identity", "StopGradient")
def _identity(ctx, op, x):
    return np.asarray(x) if not isinstance(x, np.ndarray) else x


@reference("IdentityN")
def _identity_n(ctx, op, *xs):
    return tuple(xs)
