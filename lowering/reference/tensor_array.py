"""Numpy kernels of TF's TensorArrays: each array is a numpy buffer in the step's run
locals, replaced (not mutated) on each write so branch and loop bodies thread it like any
other local. Handles are the JAX lowering's static ``ArrayHandle`` values."""

from __future__ import annotations

import numpy as np

from lowering import regions
from lowering.registry import reference
from lowering.tensor_array import create_handle, element_shape_for, grad_handle
from tfcompat.framework import errors


def _buffer(ctx, op, handle, value_shape=None):
    found = regions.run_locals(ctx).get(handle.key)
    if found is not None:
        return np.array(found, copy=True)
    return np.zeros((handle.size,) + element_shape_for(op, handle, value_shape), handle.dtype)


def _check_index(op, handle, index):
    index = np.asarray(index)
    if np.any(index < 0) or np.any(index >= handle.size):
        raise errors.InvalidArgumentError(
            None,
            op,
            f"Tried to access index {index.tolist()} of TensorArray {handle.key[1]} of size "
            f"{handle.size}",
        )
    return index


@reference("TensorArrayV3")
def _tensor_array(ctx, op, size):
    return create_handle(op, int(size)), np.float32(0.0)


@reference("TensorArrayGradV3")
def _tensor_array_grad(ctx, op, handle, flow_in):
    return grad_handle(op, handle, regions.run_locals(ctx)), flow_in


@reference("TensorArrayWriteV3")
def _write(ctx, op, handle, index, value, flow_in):
    index = int(_check_index(op, handle, index))
    value = np.asarray(value, handle.dtype)
    buffer = _buffer(ctx, op, handle, value.shape)
    buffer[index] = buffer[index] + value if handle.aggregate else value
    regions.run_locals(ctx)[handle.key] = buffer
    return flow_in


@reference("TensorArrayReadV3")
def _read(ctx, op, handle, index, flow_in):
    index = int(_check_index(op, handle, index))
    return _buffer(ctx, op, handle)[index]


@reference("TensorArrayScatterV3")
def _scatter(ctx, op, handle, indices, value, flow_in):
    indices = _check_index(op, handle, indices)
    value = np.asarray(value, handle.dtype)
    buffer = _buffer(ctx, op, handle, value.shape[1:])
    for i, index in enumerate(indices.reshape(-1)):
        buffer[index] = buffer[index] + value[i] if handle.aggregate else value[i]
    regions.run_locals(ctx)[handle.key] = buffer
    return flow_in


@reference("TensorArrayGatherV3")
def _gather(ctx, op, handle, indices, flow_in):
    indices = _check_index(op, handle, indices)
    return _buffer(ctx, op, handle)[indices]


@reference("TensorArraySizeV3")
def _size(ctx, op, handle, flow_in):
    return np.int32(handle.size)


@reference("TensorArrayCloseV3")
def _close(ctx, op, handle):
    return None
