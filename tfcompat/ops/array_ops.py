"""Array ops: placeholders, identity, and shape manipulation (TF's ``array_ops``)."""

from __future__ import annotations

from tfcompat.framework import common_shapes, dtypes, graph as graph_lib, tensor_shape
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op, convert_to_tensor
from tfcompat.util.tf_export import tf_export

# ---------------------------------------------------------------------------------------------
# Placeholders
# ---------------------------------------------------------------------------------------------
register_op(
    "Placeholder",
    outputs=["output: dtype"],
    attrs=["dtype: type", "shape: shape = { unknown_rank: true }"],
    shape_fn=lambda op: [op.attrs["shape"]],
)


@tf_export("placeholder")
def placeholder(dtype, shape=None, name=None):
    """A tensor that must be fed in ``Session.run``; ``shape`` may be partial."""
    shape = tensor_shape.unknown_shape() if shape is None else tensor_shape.as_shape(shape)
    return apply_op("Placeholder", name=name, dtype=dtypes.as_dtype(dtype), shape=shape).outputs[0]


register_op(
    "PlaceholderWithDefault",
    inputs=["input: dtype"],
    outputs=["output: dtype"],
    attrs=["dtype: type", "shape: shape"],
    shape_fn=lambda op: [op.attrs["shape"]],
)


@tf_export("placeholder_with_default")
def placeholder_with_default(input, shape, name=None):  # noqa: A002 - TF's argument name
    """``input`` unless fed; ``shape`` may be less specific than ``input``'s."""
    input = convert_to_tensor(input)
    shape = tensor_shape.as_shape(shape)
    if not shape.is_compatible_with(input.shape):
        raise ValueError(
            f"Incompatible shapes: input shape {input.shape} vs. placeholder shape {shape}"
        )
    return apply_op(
        "PlaceholderWithDefault", name=name, input=input, dtype=input.dtype, shape=shape
    ).outputs[0]


# ---------------------------------------------------------------------------------------------
# Identity
# ---------------------------------------------------------------------------------------------
register_op(
    "Identity", inputs=["input: T"], outputs=["output: T"], attrs=["T: type"],
    shape_fn=common_shapes.unchanged,
)


@tf_export("identity")
def identity(input, name=None):  # noqa: A002
    """Returns a tensor with the same value (reads a variable's current value)."""
    if hasattr(input, "_identity") and not hasattr(input, "op"):
        return input._identity(name)
    return apply_op("Identity", name=name, input=input).outputs[0]


register_op(
    "IdentityN",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=["T: list(type) >= 1"],
    shape_fn=lambda op: [t.shape for t in op.inputs],
)


@tf_export("identity_n")
def identity_n(input, name=None):  # noqa: A002
    return apply_op("IdentityN", name=name, input=list(input)).outputs


register_op(
    "StopGradient", inputs=["input: T"], outputs=["output: T"], attrs=["T: type"],
    shape_fn=common_shapes.unchanged,
)


@tf_export("stop_gradient")
def stop_gradient(input, name=None):  # noqa: A002
    """Identity in the forward pass; blocks gradients."""
    return apply_op("StopGradient", name=name, input=input).outputs[0]


_ = graph_lib  # re-exported helpers use the default graph through apply_op
