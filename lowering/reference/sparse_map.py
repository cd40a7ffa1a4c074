"""Kernels of the SparseTensorsMap ops (host ops: these kernels are the implementation).

A map lives in the Session state under ``"sparse_map:" + name``, where ``name`` is the
op's ``shared_name`` or, for an ``Add*`` op without one, its node name (the name the
matching ``TakeManySparseFromTensorsMap`` is given). Handles count up from 0 per map, as
in TF; a taken SparseTensor leaves the map. Queue-runner threads add while the training
loop takes, so each map has a lock.
"""

from __future__ import annotations

import threading

import numpy as np

from lowering.registry import reference
from tfcompat.framework import errors


def _text(value) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


class _SparseTensorsMap:
    def __init__(self):
        self.lock = threading.Lock()
        self.counter = 0
        self.tensors = {}  # handle -> (indices, values, shape)

    def add(self, items) -> np.ndarray:
        with self.lock:
            handles = np.arange(self.counter, self.counter + len(items), dtype=np.int64)
            self.counter += len(items)
            self.tensors.update(zip(handles.tolist(), items))
        return handles


def _map(ctx, op, default_to_node_name) -> tuple:
    name = _text(op.attrs["shared_name"]) or (op.name if default_to_node_name else "")
    return name, ctx.state.setdefault("sparse_map:" + name, _SparseTensorsMap())


def _error(op, message):
    return errors.InvalidArgumentError(None, op, f"{message}\n\t [[{{{{node {op.name}}}}}]]")


def _checked(op, indices, values, shape):
    indices, values, shape = np.asarray(indices), np.asarray(values), np.asarray(shape)
    if indices.ndim != 2:
        raise _error(op, f"Input indices should be a matrix but received shape {indices.shape}")
    if values.ndim != 1:
        raise _error(op, f"Input values should be a vector but received shape {values.shape}")
    if shape.ndim != 1:
        raise _error(op, f"Input shape should be a vector but received shape {shape.shape}")
    if indices.shape[0] != values.shape[0] or indices.shape[1] != shape.shape[0]:
        raise _error(
            op,
            f"Number of elements of indices ({indices.shape[0]}) and values "
            f"({values.shape[0]}) or rank of indices ({indices.shape[1]}) and shape "
            f"({shape.shape[0]}) do not match",
        )
    return indices.astype(np.int64), values, shape.astype(np.int64)


@reference("AddSparseToTensorsMap")
def _add_sparse(ctx, op, indices, values, shape):
    item = _checked(op, indices, values, shape)
    _, sparse_map = _map(ctx, op, default_to_node_name=True)
    return sparse_map.add([item])[0]


@reference("AddManySparseToTensorsMap")
def _add_many_sparse(ctx, op, indices, values, shape):
    indices, values, shape = _checked(op, indices, values, shape)
    if shape.size < 2:
        raise _error(op, f"Rank of input SparseTensor should be > 1, but saw rank: {shape.size}")
    rows = indices[:, 0]
    if rows.size and np.any(np.diff(rows) < 0):
        raise _error(op, "Input SparseTensor's first dimension must be sorted")
    count = int(shape[0])
    bounds = np.searchsorted(rows, np.arange(count + 1))
    items = [
        (indices[a:b, 1:].copy(), values[a:b].copy(), shape[1:].copy())
        for a, b in zip(bounds[:-1], bounds[1:])
    ]
    _, sparse_map = _map(ctx, op, default_to_node_name=True)
    return sparse_map.add(items)


@reference("TakeManySparseFromTensorsMap")
def _take_many_sparse(ctx, op, handles):
    handles = np.asarray(handles)
    if handles.ndim != 1:
        raise _error(op, f"sparse_handles should be a vector but received shape {handles.shape}")
    name, sparse_map = _map(ctx, op, default_to_node_name=False)
    with sparse_map.lock:
        missing = [h for h in handles.tolist() if h not in sparse_map.tensors]
        if missing:
            raise _error(op, f"Unable to find SparseTensor: {missing[0]} in map: {name}")
        items = [sparse_map.tensors.pop(h) for h in handles.tolist()]
    dtype = np.dtype(op.attrs["dtype"].as_numpy_dtype)
    rank = None
    for i, (_, values, shape) in enumerate(items):
        if values.dtype != dtype and not (dtype.kind == "O" and values.dtype.kind in "OS"):
            raise _error(
                op,
                f"Requested SparseTensor of type {op.attrs['dtype'].name} but "
                f"SparseTensor[{i}].values.dtype() == {values.dtype}",
            )
        if rank is not None and shape.size != rank:
            raise _error(
                op,
                "Inconsistent rank across SparseTensors: rank prior to SparseTensor["
                f"{i}] was: {rank} but rank of SparseTensor[{i}] is: {shape.size}",
            )
        rank = shape.size
    rank = 0 if rank is None else rank
    shape = np.zeros(rank, np.int64)
    for _, _, item_shape in items:
        shape = np.maximum(shape, item_shape)
    batch_index = np.concatenate(
        [np.full(len(values), i, np.int64) for i, (_, values, _) in enumerate(items)]
        or [np.zeros(0, np.int64)]
    )
    indices = np.concatenate(
        [item_indices for item_indices, _, _ in items] or [np.zeros((0, rank), np.int64)]
    )
    values = np.concatenate([v for _, v, _ in items] or [np.zeros(0, dtype)]).astype(dtype)
    return (
        np.concatenate([batch_index[:, None], indices.reshape(-1, rank)], axis=1),
        values,
        np.concatenate([[len(items)], shape]).astype(np.int64),
    )
