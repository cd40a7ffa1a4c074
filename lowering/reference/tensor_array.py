"""Numpy kernels of TF's TensorArrays: each array is a numpy buffer in the step's run
locals, replaced (not mutated) on each write so branch and loop bodies thread it like any
other local. Handles are the JAX lowering's static ``ArrayHandle`` values.

A dynamic array's buffer is exactly as long as the array (it grows on writes past its end);
its size is kept beside it under ``handle.size_key`` so that an array never written still has
its initial size. Forward arrays also keep which elements were written (``written_key``):
TF refuses to write an element twice."""

from __future__ import annotations

import numpy as np

from lowering import regions
from lowering.registry import reference
from lowering.tensor_array import (
    check_concat,
    check_split,
    create_handle,
    element_shape_for,
    grad_handle,
)
from tfcompat.framework import errors


def _written_key(handle):
    return handle.key + ("written",)


def _size(ctx, handle):
    if not handle.dynamic:
        return handle.size
    return int(regions.run_locals(ctx).get(handle.size_key, handle.size))


def _buffer(ctx, op, handle, value_shape=None):
    """A copy of the array's buffer, at least ``_size`` long."""
    size = _size(ctx, handle)
    found = regions.run_locals(ctx).get(handle.key)
    if found is None:
        return np.zeros((size,) + element_shape_for(op, handle, value_shape), handle.dtype)
    found = np.array(found, copy=True)
    if len(found) < size:  # a gradient array made before its forward array grew
        pad = np.zeros((size - len(found),) + found.shape[1:], found.dtype)
        found = np.concatenate([found, pad])
    return found


def _check_index(op, handle, index, size, verb="access"):
    index = np.asarray(index)
    if np.any(index < 0) or np.any(index >= size):
        bad = index[(index < 0) | (index >= size)].reshape(-1)[0]
        if verb == "read":
            message = f"Tried to read from index {bad} but array size is: {size}"
        elif verb == "write":
            message = (
                f"Tried to write to index {bad} but array is not resizeable and size is: {size}"
            )
        else:
            message = (
                f"Tried to access index {index.tolist()} of TensorArray {handle.key[1]} of size "
                f"{size}"
            )
        raise errors.InvalidArgumentError(None, op, message)
    return index


def _write_elements(ctx, op, handle, indices, values, value_shape):
    """Writes ``values[i]`` at ``indices[i]``, growing a dynamic array as needed."""
    local_values = regions.run_locals(ctx)
    size = _size(ctx, handle)
    if handle.grows:
        if np.any(indices < 0):
            _check_index(op, handle, indices, size, "write")
        size = max([size] + [int(i) + 1 for i in indices])
    else:
        _check_index(op, handle, indices, size, "write")
    buffer = _buffer(ctx, op, handle, value_shape)
    if len(buffer) < size:
        pad = np.zeros((size - len(buffer),) + buffer.shape[1:], buffer.dtype)
        buffer = np.concatenate([buffer, pad])
    written = np.zeros(size, bool)
    if not handle.aggregate:
        previous = local_values.get(_written_key(handle), written)
        written[: len(previous)] = previous
    for i, index in enumerate(indices):
        if handle.aggregate:
            buffer[index] = buffer[index] + values[i]
            continue
        if written[index]:
            raise errors.InvalidArgumentError(
                None,
                op,
                f"TensorArray {handle.key[1]}: Could not write to TensorArray index {index} "
                "because it has already been written to.",
            )
        written[index] = True
        buffer[index] = values[i]
    local_values[handle.key] = buffer
    if not handle.aggregate:
        local_values[_written_key(handle)] = written
    if handle.dynamic:
        local_values[handle.size_key] = np.int32(size)


@reference("TensorArrayV3")
def _tensor_array(ctx, op, size):
    return create_handle(op, int(size)), np.float32(0.0)


@reference("TensorArrayGradV3")
def _tensor_array_grad(ctx, op, handle, flow_in):
    grad = grad_handle(op, handle, regions.run_locals(ctx))
    if grad.dynamic:  # the forward array's size now; the gradient array does not grow
        regions.run_locals(ctx)[grad.size_key] = np.int32(_size(ctx, handle))
    return grad, flow_in


@reference("TensorArrayWriteV3")
def _write(ctx, op, handle, index, value, flow_in):
    value = np.asarray(value, handle.dtype)
    _write_elements(ctx, op, handle, np.asarray(index).reshape(1), value[None], value.shape)
    return flow_in


@reference("TensorArrayReadV3")
def _read(ctx, op, handle, index, flow_in):
    index = int(_check_index(op, handle, index, _size(ctx, handle), "read"))
    return _buffer(ctx, op, handle)[index]


@reference("TensorArrayScatterV3")
def _scatter(ctx, op, handle, indices, value, flow_in):
    value = np.asarray(value, handle.dtype)
    indices = np.asarray(indices).reshape(-1)
    _write_elements(ctx, op, handle, indices, value, value.shape[1:])
    return flow_in


@reference("TensorArrayGatherV3")
def _gather(ctx, op, handle, indices, flow_in):
    indices = _check_index(op, handle, indices, _size(ctx, handle))
    return _buffer(ctx, op, handle)[indices]


@reference("TensorArraySplitV3")
def _split(ctx, op, handle, value, lengths, flow_in):
    value = np.asarray(value, handle.dtype)
    count, length = check_split(op, handle, value.shape, np.asarray(lengths), _size(ctx, handle))
    elements = value.reshape((count, length) + value.shape[1:])
    _write_elements(ctx, op, handle, np.arange(count), elements, elements.shape[1:])
    return flow_in


@reference("TensorArrayConcatV3")
def _concat(ctx, op, handle, flow_in):
    buffer = _buffer(ctx, op, handle)
    check_concat(op, buffer.shape[1:])
    size, length = _size(ctx, handle), buffer.shape[1]
    value = buffer[:size].reshape((size * length,) + buffer.shape[2:])
    return value, np.full(size, length, np.int64)


@reference("TensorArraySizeV3")
def _size_kernel(ctx, op, handle, flow_in):
    return np.int32(_size(ctx, handle))


@reference("TensorArrayCloseV3")
def _close(ctx, op, handle):
    return None
