"""``tf.searchsorted``: TF's ``LowerBound`` / ``UpperBound`` ops on the innermost axis,
row by row (the leading axes flattened, as TF's wrapper does)."""

from __future__ import annotations

from tfcompat.framework import dtypes, tensor_shape
from tfcompat.framework.gradient_registry import no_gradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op
from tfcompat.util.tf_export import tf_export


def _bound_shape(op):
    sequence, values = op.inputs[0].shape, op.inputs[1].shape
    for shape in (sequence, values):
        if shape.rank is not None and shape.rank < 1:
            raise ValueError(
                f"Shape must be at least rank 1 but is rank {shape.rank} for "
                f"'{{{{node {op.name}}}}} = {op.type}[]'"
            )
    if sequence.rank is not None and values.rank is not None:
        sequence[:-1].merge_with(values[:-1])
    return [values if values.rank is not None else tensor_shape.unknown_shape()]


for _op_type in ("LowerBound", "UpperBound"):
    register_op(
        _op_type,
        inputs=["sorted_inputs: T", "values: T"],
        outputs=["output: out_type"],
        attrs=["T: type", "out_type: {int32, int64} = DT_INT32"],
        shape_fn=_bound_shape,
    )
    no_gradient(_op_type)


@tf_export("searchsorted")
def searchsorted(sorted_sequence, values, side="left", out_type=dtypes.int32, name=None):
    """Per row of ``sorted_sequence`` (sorted along its last axis), the index each of
    ``values`` would be inserted at: before equal entries (``side='left'``) or after them
    (``'right'``)."""
    from tfcompat.ops import array_ops

    sequence_size = array_ops.shape_internal(sorted_sequence)[-1]
    values_size = array_ops.shape_internal(values)[-1]
    sorted_sequence_2d = array_ops.reshape(sorted_sequence, [-1, sequence_size])
    values_2d = array_ops.reshape(values, [-1, values_size])
    if side == "right":
        op_type = "UpperBound"
    elif side == "left":
        op_type = "LowerBound"
    else:
        raise ValueError(
            f"Argument `side` must be either 'right' or 'left'. Received: `side` = '{side}'."
        )
    output = apply_op(
        op_type, name=name, sorted_inputs=sorted_sequence_2d, values=values_2d, out_type=out_type
    ).outputs[0]
    return array_ops.reshape(output, array_ops.shape_internal(values))
