"""``tf.sort`` and ``tf.argsort``, built as TF 2.21 builds them: a full ``TopKV2`` along the
last axis (so equal values keep their index order), with transposes when sorting another
axis and a negation (or ``max - x``, ``-x - 1`` for integers) for ascending order."""

from __future__ import annotations

import numpy as np

from tfcompat.framework.constant_op import constant
from tfcompat.framework.constant_value import constant_value
from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.framework.scopes import name_scope
from tfcompat.ops import nn_ops
from tfcompat.util.tf_export import tf_export


@tf_export("sort")
def sort(values, axis=-1, direction="ASCENDING", name=None):
    """``values`` sorted along ``axis`` (a constant), ``'ASCENDING'`` or ``'DESCENDING'``."""
    with name_scope(name, "sort"):
        return _sort_or_argsort(values, axis, direction, return_argsort=False)


@tf_export("argsort")
def argsort(values, axis=-1, direction="ASCENDING", stable=False, name=None):
    """int32 indices that sort ``values`` along ``axis``; the sort is always stable (equal
    values keep their order), whatever ``stable`` says."""
    del stable  # TF's argsort is stable either way
    with name_scope(name, "argsort"):
        return _sort_or_argsort(values, axis, direction, return_argsort=True)


def _sort_or_argsort(values, axis, direction, return_argsort):
    if direction not in _SORT_IMPL:
        raise ValueError(
            f"Argument `direction` should be one of {', '.join(sorted(_SORT_IMPL))}. "
            f"Received: direction={direction}"
        )
    axis = convert_to_tensor(axis, name="axis")
    axis_static = constant_value(axis)
    if axis.shape.rank not in (None, 0) or axis_static is None:
        raise ValueError(f"Argument `axis` must be a constant scalar. Received: axis={axis}.")
    values = convert_to_tensor(values, name="values")
    return _SORT_IMPL[direction](values, int(axis_static), return_argsort)


def _descending_sort(values, axis, return_argsort=False):
    """Sorts by a ``top_k`` of the whole axis, moved last by a transposition if needed."""
    from tfcompat.ops import array_ops, reduction_ops

    k = array_ops.shape(values)[axis]
    rank = array_ops.rank(values)
    static_rank = values.shape.rank
    transposition = None
    top_k_input = values
    if not (axis == -1 or axis + 1 == static_rank):
        if axis < 0:
            axis += static_rank or rank
        if static_rank is not None:
            perm = np.r_[
                np.arange(axis), [static_rank - 1], np.arange(axis + 1, static_rank - 1), [axis]
            ]
            transposition = constant(perm, name="transposition")
        else:
            transposition = array_ops.tensor_scatter_update(
                reduction_ops.range(rank), [[axis], [rank - 1]], [rank - 1, axis]
            )
        top_k_input = array_ops.transpose(values, transposition)
    sorted_values, indices = nn_ops.top_k(top_k_input, k)
    result = indices if return_argsort else sorted_values
    if transposition is not None:
        result = array_ops.transpose(result, transposition)
    return result


def _ascending_sort(values, axis, return_argsort=False):
    """A descending sort of an order-reversing map of ``values``, mapped back: ``max - x``
    for unsigned types, ``-x - 1`` for signed integers (no overflow at the minimum) and
    ``-x`` for floats."""
    dtype = values.dtype
    if dtype.is_unsigned:
        offset = dtype.max
        result = _descending_sort(offset - values, axis, return_argsort)
        return result if return_argsort else offset - result
    if dtype.is_integer:
        result = _descending_sort(-values - 1, axis, return_argsort)
        return result if return_argsort else -result - 1
    result = _descending_sort(-values, axis, return_argsort)
    return result if return_argsort else -result


_SORT_IMPL = {"ASCENDING": _ascending_sort, "DESCENDING": _descending_sort}
