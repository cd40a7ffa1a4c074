"""Shape-function building blocks shared by op families (TF's ``shape_inference`` helpers)."""

from __future__ import annotations

from tfcompat.framework import tensor_shape
from tfcompat.framework.tensor_shape import TensorShape


def unchanged(op):
    """Output 0 has the shape of input 0."""
    return [op.inputs[0].shape]


def scalar(op):
    return [tensor_shape.scalar()] * len(op.outputs)


def unknown(op):
    return [tensor_shape.unknown_shape()] * len(op.outputs)


def broadcast(shape_x: TensorShape, shape_y: TensorShape) -> TensorShape:
    """The numpy-style broadcast of two partial shapes; ValueError when incompatible."""
    if shape_x.rank is None or shape_y.rank is None:
        return tensor_shape.unknown_shape()
    x, y = shape_x.as_list(), shape_y.as_list()
    rank = max(len(x), len(y))
    x = [1] * (rank - len(x)) + x
    y = [1] * (rank - len(y)) + y
    out = []
    for a, b in zip(x, y):
        if a == 1:
            out.append(b)
        elif b == 1:
            out.append(a)
        elif a is None or b is None:
            # One side unknown, the other known and > 1: the result is the known one.
            out.append(a if b is None else b)
        elif a == b:
            out.append(a)
        else:
            raise ValueError(f"Dimensions must be equal, but are {a} and {b}")
    return TensorShape(out)


def broadcast_binary(op):
    return [broadcast(op.inputs[0].shape, op.inputs[1].shape)]


def canonical_axis(axis: int, rank: int, op_name: str = "") -> int:
    if not -rank <= axis < rank:
        raise ValueError(
            f"axis {axis} is out of range for a tensor of rank {rank}"
            + (f" in {op_name}" if op_name else "")
        )
    return axis % rank if rank else 0
