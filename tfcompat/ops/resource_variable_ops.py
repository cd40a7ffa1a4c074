"""Resource-variable ops (``VarHandleOp``, ``ReadVariableOp``, ``AssignVariableOp``,
``ResourceGather``, ``ResourceScatter*``...), their gradients and thin wrappers.

A resource variable is a ``VarHandleOp`` whose output (dtype ``resource``, a scalar) names
the variable; every read and write is a separate op taking that handle. The variable's
shape and dtype are the handle op's attrs: ``handle_shape`` finds them from any handle
tensor, so shape functions know what TF's handle data gives TF's.
"""

from __future__ import annotations

from tfcompat.framework import common_shapes, dtypes, tensor_shape
from tfcompat.framework.constant_op import constant
from tfcompat.framework.gradient_registry import RegisterGradient, no_gradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op

# Ops that pass a handle through unchanged (what TF's handle data follows).
_HANDLE_FORWARDING = frozenset({"Identity", "Enter", "Switch", "RefEnter", "RefSwitch"})


def handle_source(handle):
    """The ``VarHandleOp`` a handle tensor comes from, or None if it cannot be told."""
    op = handle.op
    while op.type in _HANDLE_FORWARDING and op.inputs:
        op = op.inputs[0].op
    return op if op.type == "VarHandleOp" else None


def handle_shape(handle) -> tensor_shape.TensorShape:
    """The static shape of the variable behind ``handle`` (unknown if not known)."""
    source = handle_source(handle)
    if source is None:
        return tensor_shape.unknown_shape()
    return source.attrs["shape"]


# ---------------------------------------------------------------------------------------------
# Creation, reads, assignments
# ---------------------------------------------------------------------------------------------
register_op(
    "VarHandleOp",
    outputs=["resource: resource"],
    attrs=[
        "container: string = ''",
        "shared_name: string = ''",
        "debug_name: string = ''",
        "dtype: type",
        "shape: shape",
        "allowed_devices: list(string) = []",
    ],
    shape_fn=common_shapes.scalar,
    is_stateful=True,
)

register_op(
    "ReadVariableOp",
    inputs=["resource: resource"],
    outputs=["value: dtype"],
    attrs=["dtype: type"],
    shape_fn=lambda op: [handle_shape(op.inputs[0])],
    is_stateful=True,
)

register_op(
    "VarIsInitializedOp",
    inputs=["resource: resource"],
    outputs=["is_initialized: bool"],
    shape_fn=common_shapes.scalar,
    is_stateful=True,
)


def _assign_shape(op):
    """TF checks the value against the variable's shape (when both are known)."""
    var, value = handle_shape(op.inputs[0]), op.inputs[1].shape
    if op.attrs.get("validate_shape", True) and not var.is_compatible_with(value):
        raise ValueError(f"Shapes {var} and {value} are incompatible")
    return []


register_op(
    "AssignVariableOp",
    inputs=["resource: resource", "value: dtype"],
    attrs=["dtype: type", "validate_shape: bool = false"],
    shape_fn=_assign_shape,
    is_stateful=True,
)
for _name in ("AssignAddVariableOp", "AssignSubVariableOp"):
    register_op(
        _name,
        inputs=["resource: resource", "value: dtype"],
        attrs=["dtype: type"],
        shape_fn=_assign_shape,
        is_stateful=True,
    )


def _gather_shape(op):
    from tfcompat.ops.gather_ops import gather_v2_output_shape

    batch_dims = op.attrs["batch_dims"]
    params = handle_shape(op.inputs[0])
    return [gather_v2_output_shape(params, op.inputs[1].shape, batch_dims, batch_dims)]


register_op(
    "ResourceGather",
    inputs=["resource: resource", "indices: Tindices"],
    outputs=["output: dtype"],
    attrs=[
        "batch_dims: int = 0",
        "validate_indices: bool = true",
        "dtype: type",
        "Tindices: {int32, int64}",
    ],
    shape_fn=_gather_shape,
    is_stateful=True,
)

# ResourceScatter<Kind>: kind -> allowed dtypes (TF's)
SCATTER_KINDS = {
    "Add": "numbertype",
    "Sub": "numbertype",
    "Mul": "numbertype",
    "Div": "numbertype",
    "Min": "numbertype",
    "Max": "numbertype",
    "Update": "type",
}
for _kind, _types in SCATTER_KINDS.items():
    register_op(
        "ResourceScatter" + _kind,
        inputs=["resource: resource", "indices: Tindices", "updates: dtype"],
        attrs=[f"dtype: {_types}", "Tindices: {int32, int64}"],
        shape_fn=lambda op: [],
        is_stateful=True,
    )

# TF registers no gradient for the writes and for the handle op itself.
for _name in (
    "VarHandleOp",
    "VarIsInitializedOp",
    "AssignVariableOp",
    "AssignAddVariableOp",
    "AssignSubVariableOp",
    *("ResourceScatter" + k for k in SCATTER_KINDS),
):
    no_gradient(_name)


# ---------------------------------------------------------------------------------------------
# Wrappers (TF's gen_resource_variable_ops functions)
# ---------------------------------------------------------------------------------------------
def var_handle_op(dtype, shape, container="", shared_name="", debug_name="", name=None):
    return apply_op(
        "VarHandleOp",
        name=name,
        dtype=dtypes.as_dtype(dtype),
        shape=tensor_shape.as_shape(shape),
        container=container,
        shared_name=shared_name,
        debug_name=debug_name,
    ).outputs[0]


def read_variable_op(resource, dtype, name=None):
    return apply_op("ReadVariableOp", name=name, resource=resource, dtype=dtype).outputs[0]


def var_is_initialized_op(resource, name=None):
    return apply_op("VarIsInitializedOp", name=name, resource=resource).outputs[0]


def assign_variable_op(resource, value, validate_shape=False, name=None):
    return apply_op(
        "AssignVariableOp", name=name, resource=resource, value=value, validate_shape=validate_shape
    )


def assign_add_variable_op(resource, value, name=None):
    return apply_op("AssignAddVariableOp", name=name, resource=resource, value=value)


def assign_sub_variable_op(resource, value, name=None):
    return apply_op("AssignSubVariableOp", name=name, resource=resource, value=value)


def resource_gather(resource, indices, dtype, batch_dims=0, validate_indices=True, name=None):
    return apply_op(
        "ResourceGather",
        name=name,
        resource=resource,
        indices=indices,
        dtype=dtype,
        batch_dims=batch_dims,
        validate_indices=validate_indices,
    ).outputs[0]


def _scatter_wrapper(kind):
    op_type = "ResourceScatter" + kind

    def wrapper(resource, indices, updates, name=None):
        return apply_op(op_type, name=name, resource=resource, indices=indices, updates=updates)

    wrapper.__name__ = "resource_scatter_" + kind.lower()
    wrapper.__doc__ = f"Adds a ``{op_type}`` op (no output: the variable is updated in place)."
    return wrapper


resource_scatter_add = _scatter_wrapper("Add")
resource_scatter_sub = _scatter_wrapper("Sub")
resource_scatter_mul = _scatter_wrapper("Mul")
resource_scatter_div = _scatter_wrapper("Div")
resource_scatter_min = _scatter_wrapper("Min")
resource_scatter_max = _scatter_wrapper("Max")
resource_scatter_update = _scatter_wrapper("Update")


def variable_shape(handle, out_type=dtypes.int32):
    """The variable's shape as a Tensor: a ``Const`` when static (as TF's handle data
    gives it). A dynamic one needs TF's ``VariableShape`` op, not provided here."""
    shape = handle_shape(handle)
    if not shape.is_fully_defined():
        raise NotImplementedError(
            f"The shape of variable {handle.name} is not static; VariableShape is not supported"
        )
    return constant(shape.as_list(), dtype=out_type)


# ---------------------------------------------------------------------------------------------
# Gradients: a read passes its gradient to the handle; a gather gives IndexedSlices
# ---------------------------------------------------------------------------------------------
@RegisterGradient("ReadVariableOp")
def _read_grad(op, grad):
    return [grad]


@RegisterGradient("ResourceGather")
def _resource_gather_grad(op, grad):
    from tfcompat.framework.indexed_slices import IndexedSlices
    from tfcompat.ops import array_ops

    if op.attrs["batch_dims"] != 0:
        raise NotImplementedError("The gradient of ResourceGather with batch_dims != 0")
    params_shape = variable_shape(op.inputs[0])
    indices = op.inputs[1]
    size = array_ops.expand_dims(array_ops.size(indices), 0)
    values_shape = array_ops.concat([size, params_shape[1:]], 0)
    values = array_ops.reshape(array_ops.dense_gradient(grad), values_shape)
    indices = array_ops.reshape(indices, size)
    return [IndexedSlices(values, indices, params_shape), None]


def is_resource_handle(value) -> bool:
    """Whether ``value`` is a Tensor of dtype ``resource``."""
    return getattr(value, "dtype", None) == dtypes.resource
