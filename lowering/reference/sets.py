"""Numpy kernels of the set ops (``tfcompat/ops/sets_ops.py``), with TF's CPU-kernel checks
and messages. They are host ops: the result sizes depend on the values.

Every operand becomes a list of ``(group, value)`` entries, where ``group`` is the flat
index of the set over all dimensions but the last. Values of both operands are coded by
their rank among the distinct values of the two, so a set operation is one numpy set routine
over integer keys ``group * n_codes + code``: sorted keys give the groups in row-major order
and each group's values in ascending order, which is how TF writes its results.
"""

from __future__ import annotations

import numpy as np

from lowering.reference.sparse import check_indices_valid
from lowering.registry import reference
from tfcompat.framework import errors


def _invalid(op, message):
    return errors.InvalidArgumentError(None, op, message)


def _join(values):
    return ",".join(str(int(v)) for v in values)


# ---------------------------------------------------------------------------------------------
# Operands as (group, value) entries
# ---------------------------------------------------------------------------------------------
def _group_shape(op, shape):
    if len(shape) < 2:
        raise _invalid(op, f"Shape [{_join(shape)}] has rank {len(shape)} < 2")
    return tuple(int(d) for d in shape[:-1])


def _sparse_operand(op, indices, values, shape):
    """``(group_shape, groups, values)`` of a SparseTensor given by its parts."""
    indices = np.asarray(indices, np.int64)
    values = np.asarray(values)
    shape = np.asarray(shape, np.int64)
    if shape.ndim != 1:
        raise _invalid(op, "Shape must be a 1D tensor.")
    if np.any(shape < 0):
        raise _invalid(op, f"Dimension {int(shape.min())} must be >= 0")
    if len(shape) < 2:
        raise _invalid(op, f"Invalid rank {len(shape)}.")
    indices = indices.reshape(-1, len(shape))
    if len(indices) != len(values):
        raise _invalid(
            op,
            f"Number of elements in indices ({len(indices)}) and values ({len(values)}) "
            "do not match",
        )
    if op.attrs["validate_indices"]:
        check_indices_valid(op, indices, shape)
    elif np.any(indices >= shape):
        bad = np.argwhere(indices >= shape)[0]
        raise errors.InternalError(
            None,
            op,
            f"indices[{bad[0]}, {bad[1]}] expected < {shape[bad[1]]}, "
            f"got {indices[bad[0], bad[1]]}.",
        )
    group_shape = _group_shape(op, shape)
    groups = np.ravel_multi_index(tuple(indices[:, :-1].T), group_shape) if len(indices) else []
    return group_shape, np.asarray(groups, np.int64), values


def _dense_operand(op, dense):
    dense = np.asarray(dense)
    group_shape = _group_shape(op, dense.shape)
    groups = np.repeat(np.arange(int(np.prod(group_shape)), dtype=np.int64), dense.shape[-1])
    return group_shape, groups, dense.reshape(-1)


# ---------------------------------------------------------------------------------------------
# Keys and results
# ---------------------------------------------------------------------------------------------
def _keys(groups_list, values_list):
    """Distinct sorted keys of each operand, the distinct values they code, and n_codes."""
    every = np.concatenate([np.asarray(v) for v in values_list])
    distinct, codes = np.unique(every, return_inverse=True)
    codes = codes.reshape(-1).astype(np.int64)
    n_codes = max(len(distinct), 1)
    keys, start = [], 0
    for groups, values in zip(groups_list, values_list):
        stop = start + len(values)
        keys.append(np.unique(groups * n_codes + codes[start:stop]))
        start = stop
    return keys, distinct, n_codes


_SET_ROUTINES = {
    b"a-b": lambda k1, k2: np.setdiff1d(k1, k2, assume_unique=True),
    b"b-a": lambda k1, k2: np.setdiff1d(k2, k1, assume_unique=True),
    b"intersection": lambda k1, k2: np.intersect1d(k1, k2, assume_unique=True),
    b"union": np.union1d,
}


def _routine(op):
    name = op.attrs["set_operation"].lower()
    if name not in _SET_ROUTINES:
        raise _invalid(op, f"Invalid set_operation {name.decode()}.")
    return _SET_ROUTINES[name]


def _result(group_shape, keys, distinct, n_codes, dtype):
    """The SparseTensor of sorted ``keys``: position within its set is the last index."""
    groups, codes = keys // n_codes, keys % n_codes
    _, first, counts = np.unique(groups, return_index=True, return_counts=True)
    position = np.arange(len(keys)) - np.repeat(first, counts)
    leading = np.unravel_index(groups, group_shape) if len(keys) else [[]] * len(group_shape)
    indices = (
        np.stack([*leading, position], axis=1).astype(np.int64).reshape(-1, 1 + len(group_shape))
    )
    values = distinct[codes] if len(keys) else np.zeros(0, dtype)
    shape = np.array([*group_shape, counts.max() if len(counts) else 0], np.int64)
    return indices, np.asarray(values, dtype), shape


def _set_operation(op, first, second, dtype):
    (shape1, groups1, values1), (shape2, groups2, values2) = first, second
    if shape1 != shape2:
        raise _invalid(op, f"Mismatched shapes [{_join(shape1)}] vs [{_join(shape2)}]")
    (k1, k2), distinct, n_codes = _keys([groups1, groups2], [values1, values2])
    return _result(shape1, _routine(op)(k1, k2), distinct, n_codes, dtype)


@reference("DenseToDenseSetOperation")
def _dense_to_dense(ctx, op, set1, set2):
    _routine(op)
    dtype = np.asarray(set1).dtype
    return _set_operation(op, _dense_operand(op, set1), _dense_operand(op, set2), dtype)


@reference("DenseToSparseSetOperation")
def _dense_to_sparse(ctx, op, set1, indices2, values2, shape2):
    _routine(op)
    second = _sparse_operand(op, indices2, values2, shape2)
    first = _dense_operand(op, set1)
    return _set_operation(op, first, second, np.asarray(set1).dtype)


@reference("SparseToSparseSetOperation")
def _sparse_to_sparse(ctx, op, indices1, values1, shape1, indices2, values2, shape2):
    _routine(op)
    first = _sparse_operand(op, indices1, values1, shape1)
    second = _sparse_operand(op, indices2, values2, shape2)
    return _set_operation(op, first, second, np.asarray(values1).dtype)


@reference("SetSize")
def _set_size(ctx, op, indices, values, shape):
    """Distinct values per set; 0 for sets with no entries."""
    group_shape, groups, values = _sparse_operand(op, indices, values, shape)
    (keys,), _, n_codes = _keys([groups], [values])
    sizes = np.bincount(keys // n_codes, minlength=int(np.prod(group_shape)))
    return sizes.astype(np.int32).reshape(group_shape)
