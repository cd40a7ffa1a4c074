"""``Const``: the op that holds a value in the graph, and ``tf.constant``."""

from __future__ import annotations

import numpy as np

from tfcompat.framework import dtypes, op_helper, tensor_shape, tensor_util
from tfcompat.framework.op_def import register_op


def _const_shape(op):
    return [tensor_shape.TensorShape(op.attrs["value"].shape)]


register_op(
    "Const",
    outputs=["output: dtype"],
    attrs=["value: tensor", "dtype: type"],
    shape_fn=_const_shape,
)


def constant(value, dtype=None, shape=None, name="Const", verify_shape=False):
    """A ``Const`` op holding ``value`` converted to ``dtype`` (inferred as TF does)."""
    array = tensor_util.to_numpy(value, dtype)
    if shape is not None:
        array = tensor_util.broadcast_to_shape(array, shape, verify_shape)
    out_dtype = dtypes.as_dtype(dtype).base_dtype if dtype is not None else None
    if out_dtype is None:
        out_dtype = dtypes.string if array.dtype == object else dtypes.as_dtype(array.dtype)
    if array.dtype != object and (array.size <= 1 or any(array.strides)):
        # Copy (C order) so later changes to the caller's array cannot change the graph.
        array = np.array(array, order="C")
        array.setflags(write=False)
    op = op_helper.apply_op("Const", name=name, value=array, dtype=out_dtype)
    return op.outputs[0]
