"""``tf.bitcast``: TF's ``Bitcast``, the bytes of a tensor reinterpreted as another dtype
(a wider type consumes the last axis, a narrower one adds an axis)."""

from __future__ import annotations

from tfcompat.framework import dtypes, tensor_shape
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op
from tfcompat.util.tf_export import tf_export

_BITCAST_TYPES = (
    "{bfloat16, half, float, double, int64, int32, uint8, uint16, uint32, uint64, int8, "
    "int16, complex64, complex128, qint8, quint8, qint16, quint16, qint32}"
)


def _bitcast_shape(op):
    shape = op.inputs[0].shape
    if shape.rank is None:
        return [tensor_shape.unknown_shape()]
    source, target = dtypes.as_dtype(op.attrs["T"]), dtypes.as_dtype(op.attrs["type"])
    in_size, out_size = source.size, target.size
    if in_size == out_size:
        return [shape]
    if in_size > out_size:
        return [shape.concatenate([in_size // out_size])]
    shape = shape.with_rank_at_least(1)
    last, ratio = shape.dims[-1].value, out_size // in_size
    if last is not None and last != ratio:
        raise ValueError(
            f"Cannot bitcast from {source.as_datatype_enum} to {target.as_datatype_enum} due "
            f"to shape. {last} does not match {ratio} for '{{{{node {op.name}}}}} = "
            f"Bitcast[T={source.name}, type={target.name}]' with input shapes: "
            f"{shape.as_list()}."
        )
    return [shape[:-1]]


# No gradient: TF registers none.
register_op(
    "Bitcast",
    inputs=["input: T"],
    outputs=["output: type"],
    attrs=[f"T: {_BITCAST_TYPES}", f"type: {_BITCAST_TYPES}"],
    shape_fn=_bitcast_shape,
)


@tf_export("bitcast")
def bitcast(input, type, name=None):  # noqa: A002 - TF's argument names
    """The bytes of ``input`` read as ``type``: same shape for equal sizes, a new last axis
    of ``size(T) / size(type)`` elements for a narrower type, the last axis (which must
    hold ``size(type) / size(T)`` elements) consumed for a wider one."""
    return apply_op("Bitcast", name=name, input=input, type=type).outputs[0]
