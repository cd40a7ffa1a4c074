"""Numpy reference kernels of the resource-variable ops (errors as TF's CPU kernels)."""

from __future__ import annotations

import numpy as np

from lowering.interpreter import VarRef
from lowering.plan import var_name
from lowering.registry import REFERENCE, reference
from lowering.resource_variables import lookup_resource, read_resource, resource_apply_rule
from tfcompat.framework import errors
from tfcompat.ops import training_ops


@reference("VarHandleOp")
def _var_handle(ctx, op):
    return VarRef(var_name(op), op)


@reference("ReadVariableOp")
def _read(ctx, op, ref):
    return np.array(read_resource(ctx, ref, op))


@reference("VarIsInitializedOp")
def _is_initialized(ctx, op, ref):
    return np.asarray(ctx.is_initialized(ref))


@reference("AssignVariableOp")
def _assign(ctx, op, ref, value):
    ctx.write_var(ref, np.array(value, op.attrs["dtype"].as_numpy_dtype))


@reference("AssignAddVariableOp")
def _assign_add(ctx, op, ref, value):
    ctx.write_var(ref, np.asarray(lookup_resource(ctx, ref, op) + value))


@reference("AssignSubVariableOp")
def _assign_sub(ctx, op, ref, value):
    ctx.write_var(ref, np.asarray(lookup_resource(ctx, ref, op) - value))


def _check_rows(op, indices, limit):
    flat = np.asarray(indices).reshape(-1)
    bad = np.flatnonzero((flat < 0) | (flat >= limit))
    if bad.size:
        i = int(bad[0])
        raise errors.InvalidArgumentError(
            None,
            op,
            f"indices[{i}] = {flat[i]} is not in [0, {limit})\n\t [[{{{{node {op.name}}}}}]]",
        )


@reference("ResourceGather")
def _gather(ctx, op, ref, indices):
    params, indices = np.asarray(lookup_resource(ctx, ref, op)), np.asarray(indices)
    if op.attrs["batch_dims"] != 0:
        raise errors.UnimplementedError(
            None, op, f"ResourceGather with batch_dims != 0 (node {op.name})"
        )
    _check_rows(op, indices, params.shape[0])
    return np.take(params, indices, axis=0)


def _scatter(ufunc):
    def kernel(ctx, op, ref, indices, updates):
        current = np.array(lookup_resource(ctx, ref, op))
        _check_rows(op, indices, current.shape[0])
        updates = np.asarray(updates, current.dtype)
        if ufunc is None:
            current[indices] = updates
        else:
            ufunc.at(current, indices, updates)
        ctx.write_var(ref, current)

    return kernel


for _kind, _ufunc in {
    "Update": None,
    "Add": np.add,
    "Sub": np.subtract,
    "Mul": np.multiply,
    "Div": np.divide,
    "Min": np.minimum,
    "Max": np.maximum,
}.items():
    reference("ResourceScatter" + _kind)(_scatter(_ufunc))


# The optimizer updates: the Apply* kernels of reference/training.py on the handles.
for _op_type, _ref_type in training_ops.RESOURCE_APPLY_OP_TYPES.items():
    reference(_op_type)(resource_apply_rule(REFERENCE, _ref_type))
