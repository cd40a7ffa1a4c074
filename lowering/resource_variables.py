"""Resource-variable ops in JAX: the handle is a ``VarRef`` (state key: the VarHandleOp's
``shared_name``), reads and writes go to ``Context.state`` when the op runs.

Errors are TF's: a read of a variable that holds no value is a FailedPreconditionError,
any other use (an assignment that reads, a gather, a scatter) a NotFoundError, and an
optimizer update an InternalError.

The optimizer updates (``ResourceApplyAdam``...) reuse the ``Apply*`` rules of
``lowering/training.py``: both forms receive the variable and slots as VarRefs.
"""

from __future__ import annotations

import jax.numpy as jnp

from lowering.interpreter import VarRef
from lowering.plan import var_name
from lowering.registry import LOWERINGS, lowering
from tfcompat.framework import dtypes, errors
from tfcompat.framework import op_def as op_def_lib
from tfcompat.ops import training_ops


def _missing(ref):
    return f"Resource localhost/{ref.name}/N10tensorflow3VarE does not exist."


def read_resource(ctx, ref, op):
    """The value of ``ref`` for ``ReadVariableOp`` (FailedPreconditionError if unset)."""
    if not ctx.is_initialized(ref):
        raise errors.FailedPreconditionError(
            None,
            op,
            f"Could not find variable {ref.name}. This could mean that the variable has been "
            "deleted. In TF1, it can also mean the variable is uninitialized. Debug info: "
            f"container=localhost, status error message={_missing(ref)}"
            f"\n\t [[{{{{node {op.name}}}}}]]",
        )
    return ctx.state[ref.name]


def lookup_resource(ctx, ref, op):
    """The value of ``ref`` for an op that updates or gathers it (NotFoundError if unset)."""
    if not ctx.is_initialized(ref):
        raise errors.NotFoundError(None, op, f"{_missing(ref)}\n\t [[{{{{node {op.name}}}}}]]")
    return ctx.state[ref.name]


@lowering("VarHandleOp")
def _var_handle(ctx, op):
    return VarRef(var_name(op), op)


@lowering("ReadVariableOp")
def _read(ctx, op, ref):
    return read_resource(ctx, ref, op)


@lowering("VarIsInitializedOp")
def _is_initialized(ctx, op, ref):
    return jnp.asarray(ctx.is_initialized(ref))


@lowering("AssignVariableOp")
def _assign(ctx, op, ref, value):
    ctx.write_var(ref, jnp.asarray(value, op.attrs["dtype"].as_numpy_dtype))


@lowering("AssignAddVariableOp")
def _assign_add(ctx, op, ref, value):
    ctx.write_var(ref, lookup_resource(ctx, ref, op) + value)


@lowering("AssignSubVariableOp")
def _assign_sub(ctx, op, ref, value):
    ctx.write_var(ref, lookup_resource(ctx, ref, op) - value)


@lowering("ResourceGather")
def _gather(ctx, op, ref, indices):
    from lowering.gather import gather

    params, indices = lookup_resource(ctx, ref, op), jnp.asarray(indices)
    batch_dims = op.attrs["batch_dims"]
    if batch_dims < 0:
        batch_dims += indices.ndim
    return gather(params, indices, batch_dims, batch_dims)


def _scatter(update):
    def rule(ctx, op, ref, indices, updates):
        current = lookup_resource(ctx, ref, op)
        ctx.write_var(ref, update(current.at[indices], jnp.asarray(updates, current.dtype)))

    return rule


# Out-of-range rows are dropped (XLA's scatter; TF's CPU kernel raises, as the reference).
for _kind, _update in {
    "Update": lambda at, u: at.set(u, mode="drop"),
    "Add": lambda at, u: at.add(u, mode="drop"),
    "Sub": lambda at, u: at.add(-u, mode="drop"),
    "Mul": lambda at, u: at.multiply(u, mode="drop"),
    "Div": lambda at, u: at.divide(u, mode="drop"),
    "Min": lambda at, u: at.min(u, mode="drop"),
    "Max": lambda at, u: at.max(u, mode="drop"),
}.items():
    lowering("ResourceScatter" + _kind)(_scatter(_update))


# ---------------------------------------------------------------------------------------------
# ResourceApply* / ResourceSparseApply*: the Apply* rules, given handles instead of refs
# ---------------------------------------------------------------------------------------------
class RefView:
    """An op seen as its ref form (``ResourceApplyAdam`` as ``ApplyAdam``): the update rules
    tell the variable and slot args by their ``Ref(T)`` type in ``op.op_def``; the inputs
    (VarRefs for both kinds) and attrs are the same."""

    def __init__(self, op, ref_type):
        self._op = op
        self.op_def = op_def_lib.get_op_def(ref_type)

    def __getattr__(self, name):
        return getattr(self._op, name)


def resource_apply_rule(table, ref_type):
    """The rule of ``Resource<ref_type>``: ``table[ref_type]`` (looked up when it runs) on
    the handles, after TF's check that the variable and every slot hold a value (an
    InternalError there); no output."""

    def rule(ctx, op, *inputs):
        for arg, value in zip(op.op_def.inputs, inputs):
            if arg.dtype == dtypes.resource and not ctx.is_initialized(value):
                raise errors.InternalError(
                    None, op, f"Invalid variable reference.\n\t [[{{{{node {op.name}}}}}]]"
                )
        table[ref_type](ctx, RefView(op, ref_type), *inputs)

    return rule


for _op_type, _ref_type in training_ops.RESOURCE_APPLY_OP_TYPES.items():
    lowering(_op_type)(resource_apply_rule(LOWERINGS, _ref_type))
