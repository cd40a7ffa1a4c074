"""Stacks (TF's ``StackV2`` family): the per-step LIFO buffers that gradients through
``tf.while_loop`` use to hand each forward iteration's values to the backward loop.

Only ``tf.gradients`` builds them (``control_flow_grad_state``): a push in the forward loop
body per iteration, a pop in the gradient loop body. The lowering keeps each stack in the
step's run locals as a fixed-size buffer (``lowering/stack.py``).
"""

from __future__ import annotations

from tfcompat.framework import tensor_shape
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op

register_op(
    "StackV2",
    inputs=["max_size: int32"],
    outputs=["handle: resource"],
    attrs=["elem_type: type", "stack_name: string = ''"],
    # TF's shape function gives the handle two elements (as a TensorArray's); TF checks a
    # GraphDef's ``_output_shapes`` against it on import.
    shape_fn=lambda op: [tensor_shape.TensorShape([2])],
    is_stateful=True,
)
register_op(
    "StackPushV2",
    inputs=["handle: resource", "elem: T"],
    outputs=["output: T"],
    attrs=["T: type", "swap_memory: bool = false"],
    shape_fn=lambda op: [op.inputs[1].shape],
    is_stateful=True,
)
register_op(
    "StackPopV2",
    inputs=["handle: resource"],
    outputs=["elem: elem_type"],
    attrs=["elem_type: type"],
    shape_fn=lambda op: [tensor_shape.unknown_shape()],
    is_stateful=True,
)
register_op("StackCloseV2", inputs=["handle: resource"], is_stateful=True)


def stack(max_size, elem_type, stack_name="", name=None):
    """A new stack of ``elem_type`` values (``max_size`` -1: unbounded)."""
    return apply_op(
        "StackV2", max_size=max_size, elem_type=elem_type, stack_name=stack_name, name=name
    ).outputs[0]


def stack_push(handle, elem, swap_memory=False, name=None):
    """Pushes ``elem``; returns it."""
    return apply_op(
        "StackPushV2", handle=handle, elem=elem, swap_memory=swap_memory, name=name
    ).outputs[0]


def stack_pop(handle, elem_type, name=None):
    """The last pushed value, removed from the stack."""
    return apply_op("StackPopV2", handle=handle, elem_type=elem_type, name=name).outputs[0]
