"""``Bucketize``: the bucket index of each value given sorted float boundaries.

TF builds it for ``bucketized_column`` (``math_ops._bucketize``); a value equal to a
boundary falls in the bucket above it (``upper_bound``).
"""

from __future__ import annotations

from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op


def _bucketize_shape(op):
    return [op.inputs[0].shape]


register_op(
    "Bucketize",
    inputs=["input: T"],
    outputs=["output: int32"],
    attrs=["T: {int32, int64, float, double}", "boundaries: list(float)"],
    shape_fn=_bucketize_shape,
)


def bucketize(input, boundaries, name=None):  # noqa: A002 - TF's argument name
    """int32 bucket ids of ``input`` for sorted ``boundaries`` (``len + 1`` buckets)."""
    boundaries = [float(b) for b in boundaries]
    if any(a > b for a, b in zip(boundaries, boundaries[1:])):
        raise ValueError("Expected sorted boundaries")
    return apply_op("Bucketize", name=name, input=input, boundaries=boundaries).outputs[0]
