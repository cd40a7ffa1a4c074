"""Numpy reference kernels of variable ops."""

from __future__ import annotations

import numpy as np

from lowering.interpreter import VarRef
from lowering.plan import var_name
from lowering.registry import reference
from tfcompat.framework import errors


@reference("VariableV2")
def _variable(ctx, op):
    return VarRef(var_name(op), op)


@reference("Assign")
def _assign(ctx, op, ref, value):
    ctx.write_var(ref, np.array(value))
    return ref


@reference("AssignAdd")
def _assign_add(ctx, op, ref, value):
    ctx.write_var(ref, np.asarray(ctx.read_var(ref, op) + value))
    return ref


def count_up_to_message(op):
    return f"Reached limit of {op.attrs['limit']}\n\t [[{{{{node {op.name}}}}}]]"


@reference("CountUpTo")
def _count_up_to(ctx, op, ref):
    value = np.asarray(ctx.read_var(ref, op))
    if value >= op.attrs["limit"]:
        raise errors.OutOfRangeError(None, op, count_up_to_message(op))
    ctx.write_var(ref, np.asarray(value + 1, dtype=value.dtype))
    return value


@reference("AssignSub")
def _assign_sub(ctx, op, ref, value):
    ctx.write_var(ref, np.asarray(ctx.read_var(ref, op) - value))
    return ref


def _scatter(ufunc):
    def kernel(ctx, op, ref, indices, updates):
        current = np.array(ctx.read_var(ref, op))
        if ufunc is None:
            current[indices] = updates
        else:
            ufunc.at(current, indices, updates)
        ctx.write_var(ref, current)
        return ref

    return kernel


for _op_type, _ufunc in {
    "ScatterUpdate": None,
    "ScatterAdd": np.add,
    "ScatterSub": np.subtract,
    "ScatterMul": np.multiply,
    "ScatterDiv": np.divide,
    "ScatterMin": np.minimum,
    "ScatterMax": np.maximum,
}.items():
    reference(_op_type)(_scatter(_ufunc))


@reference("IsVariableInitialized")
def _is_initialized(ctx, op, ref):
    return np.asarray(ctx.is_initialized(ref))
