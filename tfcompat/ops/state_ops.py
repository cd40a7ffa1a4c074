"""TF1 reference-variable ops: ``VariableV2``, ``Assign*``, ``Scatter*``,
``IsVariableInitialized``, and their ``tf.assign*`` / ``tf.scatter_*`` wrappers."""

from __future__ import annotations

from tfcompat.framework import common_shapes, dtypes, tensor_shape
from tfcompat.framework.gradient_registry import no_gradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op
from tfcompat.util.tf_export import tf_export

register_op(
    "VariableV2",
    outputs=["ref: Ref(dtype)"],
    attrs=["shape: shape", "dtype: type", "container: string = ''", "shared_name: string = ''"],
    shape_fn=lambda op: [op.attrs["shape"]],
    is_stateful=True,
)


def variable_op_v2(shape, dtype, name="Variable", container="", shared_name=""):
    return apply_op(
        "VariableV2",
        name=name,
        shape=tensor_shape.as_shape(shape),
        dtype=dtypes.as_dtype(dtype),
        container=container,
        shared_name=shared_name,
    ).outputs[0]


def _assign_shape(op):
    if op.attrs.get("validate_shape", True):
        return [op.inputs[0].shape.merge_with(op.inputs[1].shape)]
    return [op.inputs[1].shape]


register_op(
    "Assign",
    inputs=["ref: Ref(T)", "value: T"],
    outputs=["output_ref: Ref(T)"],
    attrs=["T: type", "validate_shape: bool = true", "use_locking: bool = true"],
    shape_fn=_assign_shape,
    allows_uninitialized_input=True,
)

for _name in ("AssignAdd", "AssignSub"):
    register_op(
        _name,
        inputs=["ref: Ref(T)", "value: T"],
        outputs=["output_ref: Ref(T)"],
        attrs=["T: numbertype", "use_locking: bool = false"],
        shape_fn=lambda op: [op.inputs[0].shape.merge_with(op.inputs[1].shape)],
    )

for _name, _types, _locking in (
    ("ScatterUpdate", "type", "true"),
    ("ScatterAdd", "numbertype", "false"),
    ("ScatterSub", "numbertype", "false"),
    ("ScatterMul", "numbertype", "false"),
    ("ScatterDiv", "numbertype", "false"),
    ("ScatterMin", "{half, bfloat16, float, double, int32, int64}", "false"),
    ("ScatterMax", "{half, bfloat16, float, double, int32, int64}", "false"),
):
    register_op(
        _name,
        inputs=["ref: Ref(T)", "indices: Tindices", "updates: T"],
        outputs=["output_ref: Ref(T)"],
        attrs=[f"T: {_types}", "Tindices: {int32, int64}", f"use_locking: bool = {_locking}"],
        shape_fn=common_shapes.unchanged,
    )

# TF marks the assignments and the arithmetic scatters not differentiable; VariableV2,
# IsVariableInitialized and ScatterUpdate/Min/Max have no gradient entry (backprop stops at
# a variable, which is an x or a stop op, before reaching them).
for _name in (
    "Assign",
    "AssignAdd",
    "AssignSub",
    "ScatterAdd",
    "ScatterSub",
    "ScatterMul",
    "ScatterDiv",
):
    no_gradient(_name)

register_op(
    "CountUpTo",
    inputs=["ref: Ref(T)"],
    outputs=["output: T"],
    attrs=["limit: int", "T: {int32, int64}"],
    shape_fn=lambda op: [op.inputs[0].shape.with_rank(0)],
    is_stateful=True,
)
no_gradient("CountUpTo")

register_op(
    "IsVariableInitialized",
    inputs=["ref: Ref(dtype)"],
    outputs=["is_initialized: bool"],
    attrs=["dtype: type"],
    shape_fn=common_shapes.scalar,
    allows_uninitialized_input=True,
)


def _ref(ref):
    """The ref tensor of a Variable, or ``ref`` itself."""
    return ref._ref() if hasattr(ref, "_ref") else ref


def _is_resource(ref) -> bool:
    """Whether ``ref`` is a resource variable: its own methods write it (TF dispatches
    ``tf.assign``, ``tf.scatter_*`` ... to them)."""
    from tfcompat.resource_variables import is_resource_variable

    return is_resource_variable(ref)


@tf_export("assign")
def assign(ref, value, validate_shape=None, use_locking=None, name=None):
    """Stores ``value`` in variable ``ref``; returns ``ref`` after the assignment."""
    if _is_resource(ref):
        return ref.assign(value, name=name)
    return apply_op(
        "Assign",
        name=name,
        ref=_ref(ref),
        value=value,
        validate_shape=validate_shape,
        use_locking=use_locking,
    ).outputs[0]


@tf_export("assign_add")
def assign_add(ref, value, use_locking=None, name=None):
    if _is_resource(ref):
        return ref.assign_add(value)
    return apply_op(
        "AssignAdd", name=name, ref=_ref(ref), value=value, use_locking=use_locking
    ).outputs[0]


@tf_export("assign_sub")
def assign_sub(ref, value, use_locking=None, name=None):
    if _is_resource(ref):
        return ref.assign_sub(value)
    return apply_op(
        "AssignSub", name=name, ref=_ref(ref), value=value, use_locking=use_locking
    ).outputs[0]


def _scatter(op_type):
    def scatter(ref, indices, updates, use_locking=None, name=None):
        if _is_resource(ref):
            return _resource_scatter(op_type, ref, indices, updates, name)
        return apply_op(
            op_type,
            name=name,
            ref=_ref(ref),
            indices=indices,
            updates=updates,
            use_locking=use_locking,
        ).outputs[0]

    scatter.__name__ = "scatter_" + op_type[len("Scatter") :].lower()
    scatter.__doc__ = f"Applies ``{op_type}`` to rows ``indices`` of variable ``ref``."
    return scatter


def _resource_scatter(op_type, ref, indices, updates, name):
    from tfcompat.framework.op_helper import convert_to_tensor

    op = apply_op(
        "Resource" + op_type,
        name=name,
        resource=ref.handle,
        indices=indices,
        updates=convert_to_tensor(updates, dtype=ref.dtype),
    )
    return ref._lazy_read(op)


scatter_update = _scatter("ScatterUpdate")
scatter_add = _scatter("ScatterAdd")
scatter_sub = _scatter("ScatterSub")
scatter_mul = _scatter("ScatterMul")
scatter_div = _scatter("ScatterDiv")
scatter_min = _scatter("ScatterMin")
scatter_max = _scatter("ScatterMax")


@tf_export("is_variable_initialized")
def is_variable_initialized(ref, name=None):
    """A bool scalar: whether variable ``ref`` holds a value in this session."""
    if _is_resource(ref):
        return ref.is_initialized(name=name)
    return apply_op("IsVariableInitialized", name=name, ref=_ref(ref)).outputs[0]


for _fn in (
    scatter_update,
    scatter_add,
    scatter_sub,
    scatter_mul,
    scatter_div,
    scatter_min,
    scatter_max,
):
    tf_export(_fn.__name__)(_fn)


@tf_export("count_up_to")
def count_up_to(ref, limit, name=None):
    """The variable's value, which is then incremented; once it has reached ``limit``,
    running the op raises OutOfRangeError (how TF1 input pipelines count epochs)."""
    return apply_op("CountUpTo", name=name, ref=_ref(ref), limit=limit).outputs[0]
