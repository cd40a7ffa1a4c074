"""Ops that repeat, pad or reorder a tensor (TF's ``array_ops``): ``Tile``, ``Pad``/``PadV2``/
``MirrorPad``, ``ReverseV2``/``Reverse``, ``BroadcastTo``; with their gradients.

TF's ``array_ops`` exposes these wrappers; ``array_ops`` re-exports them.
"""

from __future__ import annotations

import numpy as np

from tfcompat.framework.constant_op import constant
from tfcompat.framework.constant_value import constant_value, constant_value_as_shape
from tfcompat.framework.gradient_registry import RegisterGradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op
from tfcompat.framework.tensor import Tensor
from tfcompat.framework.tensor_shape import TensorShape, unknown_shape
from tfcompat.ops import array_ops
from tfcompat.ops.array_ops import _dims, _shape_list_text, _static_ints
from tfcompat.util.tf_export import tf_export


# ---------------------------------------------------------------------------------------------
# Tile, Pad, Reverse, BroadcastTo
# ---------------------------------------------------------------------------------------------
def _tile_shape(op):
    dims = _dims(op.inputs[0].shape)
    multiples = _dims(constant_value_as_shape(op.inputs[1]))
    if dims is None:
        return [unknown_shape() if multiples is None else unknown_shape(rank=len(multiples))]
    if multiples is None:
        return [unknown_shape(rank=len(dims))]
    if len(multiples) != len(dims):
        raise ValueError(f"Shape must be rank {len(dims)} but is rank {len(multiples)}")
    return [
        TensorShape([None if d is None or m is None else d * m for d, m in zip(dims, multiples)])
    ]


register_op(
    "Tile",
    inputs=["input: T", "multiples: Tmultiples"],
    outputs=["output: T"],
    attrs=["T: type", "Tmultiples: {int32, int64} = int32"],
    shape_fn=_tile_shape,
)


@tf_export("tile", "manip.tile")
def tile(input, multiples, name=None):  # noqa: A002
    """Repeats ``input`` ``multiples[i]`` times along dimension i."""
    return apply_op("Tile", name=name, input=input, multiples=multiples).outputs[0]


@RegisterGradient("Tile")
def _tile_grad(op, grad):
    """Sums the tiled copies: grad reshaped to interleaved ``[multiple, dim, ...]`` pairs and
    reduced over the multiples' axes (IndexedSlices rows are first folded modulo dim 0)."""
    from tfcompat.framework.indexed_slices import IndexedSlices
    from tfcompat.ops import math_ops, reduction_ops, segment_ops

    input_shape = array_ops.shape(op.inputs[0], out_type=op.inputs[1].dtype)
    split_shape = array_ops.reshape(
        array_ops.transpose(array_ops.stack([op.inputs[1], input_shape])), [-1]
    )
    axes = reduction_ops.range(0, array_ops.size(split_shape), 2)
    if isinstance(grad, IndexedSlices):
        rows = math_ops.cast(input_shape[0], grad.indices.dtype)
        grad = segment_ops.unsorted_segment_sum(grad.values, math_ops.mod(grad.indices, rows), rows)
        split_shape = array_ops.concat([[1], split_shape[1:]], axis=0)
    input_grad = reduction_ops.reduce_sum(array_ops.reshape(grad, split_shape), axes)
    input_grad.set_shape(op.inputs[0].shape)
    return [input_grad, None]


def _pad_shape(op):
    dims = _dims(op.inputs[0].shape)
    pad_shape = _dims(op.inputs[1].shape)
    rank = len(dims) if dims is not None else None
    if pad_shape is not None and pad_shape[0] is not None:
        if rank is not None and pad_shape[0] != rank:
            raise ValueError(f"Dimension must be {rank} but is {pad_shape[0]}")
        rank = pad_shape[0]
    if rank is None:
        return [unknown_shape()]
    paddings = constant_value(op.inputs[1])
    if paddings is None or dims is None:
        return [unknown_shape(rank=rank)]
    paddings = np.asarray(paddings).reshape(rank, 2)
    if (paddings < 0).any():
        raise ValueError(
            f"The first dimension of paddings must be non-negative: {paddings.tolist()}"
        )
    if op.type == "MirrorPad":
        limit = 0 if op.attrs["mode"] == b"REFLECT" else 1
        for d, (lo, hi) in zip(dims, paddings.tolist()):
            if d is not None and (lo > d - 1 + limit or hi > d - 1 + limit):
                raise ValueError(
                    f"paddings must be no greater than the dimension size: {lo}, {hi} "
                    f"greater than {d - 1 + limit}"
                )
    return [TensorShape([None if d is None else d + int(p.sum()) for d, p in zip(dims, paddings)])]


_PAD_ATTRS = ["T: type", "Tpaddings: {int32, int64} = int32"]
register_op(
    "Pad",
    inputs=["input: T", "paddings: Tpaddings"],
    outputs=["output: T"],
    attrs=_PAD_ATTRS,
    shape_fn=_pad_shape,
)
register_op(
    "PadV2",
    inputs=["input: T", "paddings: Tpaddings", "constant_values: T"],
    outputs=["output: T"],
    attrs=_PAD_ATTRS,
    shape_fn=_pad_shape,
)
register_op(
    "MirrorPad",
    inputs=["input: T", "paddings: Tpaddings"],
    outputs=["output: T"],
    attrs=_PAD_ATTRS + ["mode: {'REFLECT', 'SYMMETRIC'}"],
    shape_fn=_pad_shape,
)


@tf_export("pad")
def pad(tensor, paddings, mode="CONSTANT", name=None, constant_values=0):
    """Pads ``tensor``: ``Pad`` (zeros), ``PadV2`` (other constants) or ``MirrorPad``."""
    mode = mode.upper()
    if mode == "CONSTANT":
        if (
            not isinstance(constant_values, Tensor)
            and np.ndim(constant_values) == 0
            and constant_values == np.zeros_like(constant_values)
        ):
            return apply_op("Pad", name=name, input=tensor, paddings=paddings).outputs[0]
        return apply_op(
            "PadV2", name=name, input=tensor, paddings=paddings, constant_values=constant_values
        ).outputs[0]
    if mode in ("REFLECT", "SYMMETRIC"):
        return apply_op("MirrorPad", name=name, input=tensor, paddings=paddings, mode=mode).outputs[
            0
        ]
    raise ValueError(
        'Value of argument `mode` expected to be one of "CONSTANT", "REFLECT", or '
        f'"SYMMETRIC". Received `mode` = {mode}'
    )


def _pad_grad(op, grad):
    """The unpadded block of the gradient: a Slice from the paddings' first column."""
    x, paddings = op.inputs[0], op.inputs[1]
    pad_before = array_ops.slice(paddings, [0, 0], array_ops.stack([array_ops.rank(x), 1]))
    begin = array_ops.reshape(pad_before, [-1])
    sizes = array_ops.shape(x, out_type=begin.dtype)
    x_grad = array_ops.slice(grad, begin, sizes)
    return (x_grad, None, None) if len(op.inputs) == 3 else (x_grad, None)


RegisterGradient("Pad")(_pad_grad)
RegisterGradient("PadV2")(_pad_grad)


def _mirror_pad_grad_shape(op):
    dims = _dims(op.inputs[0].shape)
    paddings = constant_value(op.inputs[1])
    if dims is None:
        return [unknown_shape()]
    if paddings is None:
        return [unknown_shape(rank=len(dims))]
    paddings = np.asarray(paddings).reshape(len(dims), 2)
    return [TensorShape([None if d is None else d - int(p.sum()) for d, p in zip(dims, paddings)])]


register_op(
    "MirrorPadGrad",
    inputs=["input: T", "paddings: Tpaddings"],
    outputs=["output: T"],
    attrs=["T: type", "Tpaddings: {int32, int64} = int32", "mode: {'REFLECT', 'SYMMETRIC'}"],
    shape_fn=_mirror_pad_grad_shape,
)


def mirror_pad_grad(input, paddings, mode, name=None):  # noqa: A002
    """Folds the mirrored borders of ``input`` back onto the block they copy."""
    return apply_op("MirrorPadGrad", name=name, input=input, paddings=paddings, mode=mode).outputs[
        0
    ]


@RegisterGradient("MirrorPad")
def _mirror_pad_grad(op, grad):
    return [mirror_pad_grad(grad, op.inputs[1], mode=op.attrs["mode"]), None]


@RegisterGradient("MirrorPadGrad")
def _mirror_pad_grad_grad(op, grad):
    return [
        apply_op("MirrorPad", input=grad, paddings=op.inputs[1], mode=op.attrs["mode"]).outputs[0],
        None,
    ]


_REVERSE_TYPES = (
    "{uint8, int8, uint16, int16, int32, uint32, int64, uint64, bool, bfloat16, half, float, "
    "double, complex64, complex128, string}"
)


def _reverse_v2_shape(op):
    dims = _dims(op.inputs[0].shape)
    axes = _static_ints(op.inputs[1])
    if dims is not None and axes is not None:
        rank = len(dims)
        seen = set()
        for a in axes:
            if not -rank <= a < rank:
                raise ValueError(f"'axis'[{a}] = {a} is out of valid range [{-rank}, {rank - 1}]")
            if a % rank in seen:
                raise ValueError(f"axis {a % rank} specified more than once.")
            seen.add(a % rank)
    return [op.inputs[0].shape]


register_op(
    "ReverseV2",
    inputs=["tensor: T", "axis: Tidx"],
    outputs=["output: T"],
    attrs=["Tidx: {int32, int64} = int32", f"T: {_REVERSE_TYPES}"],
    shape_fn=_reverse_v2_shape,
)


def _reverse_shape(op):
    dims, flags = op.inputs[0].shape, op.inputs[1].shape
    if dims.rank is not None and flags.rank == 1 and flags[0].value not in (None, dims.rank):
        raise ValueError(f"Dimension must be {dims.rank} but is {flags[0].value}")
    return [dims]


register_op(
    "Reverse",
    inputs=["tensor: T", "dims: bool"],
    outputs=["output: T"],
    attrs=[f"T: {_REVERSE_TYPES}"],
    shape_fn=_reverse_shape,
)


@tf_export("reverse", "reverse_v2", "manip.reverse")
def reverse(tensor, axis, name=None):
    """Reverses ``tensor`` along the dimensions in ``axis`` (``ReverseV2``)."""
    return apply_op("ReverseV2", name=name, tensor=tensor, axis=axis).outputs[0]


@RegisterGradient("ReverseV2")
def _reverse_v2_grad(op, grad):
    return apply_op("ReverseV2", tensor=grad, axis=op.inputs[1]).outputs[0], None


@RegisterGradient("Reverse")
def _reverse_grad(op, grad):
    return apply_op("Reverse", tensor=grad, dims=op.inputs[1]).outputs[0], None


def _broadcast_to_shape(op):
    target = _dims(constant_value_as_shape(op.inputs[1]))
    dims = _dims(op.inputs[0].shape)
    if target is None:
        return [unknown_shape()]
    if dims is None:
        return [TensorShape(target)]
    if len(dims) > len(target):
        raise ValueError(
            f"Rank of input ({len(dims)}) must be no greater than rank of output shape "
            f"({len(target)})."
        )
    out = list(target)
    for i in range(1, len(dims) + 1):
        d, t = dims[-i], target[-i]
        if t is None:
            out[-i] = d if d is not None and d != 1 else None
        elif d is not None and d != 1 and d != t:
            raise ValueError(
                f"Incompatible shapes: {_shape_list_text(dims)} vs. {_shape_list_text(target)}"
            )
    return [TensorShape(out)]


register_op(
    "BroadcastTo",
    inputs=["input: T", "shape: Tidx"],
    outputs=["output: T"],
    attrs=["T: type", "Tidx: {int32, int64} = int32"],
    shape_fn=_broadcast_to_shape,
)


@tf_export("broadcast_to")
def broadcast_to(input, shape, name=None):  # noqa: A002
    """Broadcasts ``input`` to ``shape`` with numpy rules."""
    return apply_op("BroadcastTo", name=name, input=input, shape=shape).outputs[0]


@RegisterGradient("BroadcastTo")
def _broadcast_to_grad(op, grad):
    """Sums the gradient over the broadcast axes (``BroadcastGradientArgs`` of the target and
    input shapes; a static target becomes a Const) and reshapes it to the input."""
    from tfcompat.ops import math_ops, reduction_ops

    target = op.inputs[1]
    shape_dtype = target.dtype
    input_shape = array_ops.shape(op.inputs[0], out_type=shape_dtype)
    static = constant_value(target)
    if static is not None:
        target = constant(np.asarray(static).tolist(), dtype=shape_dtype)
    _, axes = math_ops.broadcast_gradient_args(target, input_shape)
    summed = reduction_ops.reduce_sum(grad, axis=axes, keepdims=True)
    return [array_ops.reshape(summed, input_shape), None]
