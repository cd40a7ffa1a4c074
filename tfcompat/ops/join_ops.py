"""Joining and splitting ops (TF's ``array_ops``): ``ConcatV2``/``Concat``, ``Split``/``SplitV``,
``Pack``/``Unpack``, and the auto-packing of lists that hold Tensors; with their gradients.

TF's ``array_ops`` exposes these wrappers; ``array_ops`` re-exports them.
"""

from __future__ import annotations

import numbers

from tfcompat.framework import dtypes, tensor_shape
from tfcompat.framework import graph as graph_lib
from tfcompat.framework.constant_op import constant
from tfcompat.framework.constant_value import constant_value
from tfcompat.framework.gradient_registry import RegisterGradient, no_gradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import (
    apply_op,
    convert_to_tensor,
    register_tensor_conversion_function,
)
from tfcompat.framework.tensor import Tensor
from tfcompat.framework.tensor_shape import TensorShape, unknown_shape
from tfcompat.ops import array_ops
from tfcompat.ops.array_ops import (
    _canonical_axis,
    _dims,
    _merge_dims,
    _scope,
    _static_int,
    _static_ints,
    identity,
)
from tfcompat.util.tf_export import tf_export


# ---------------------------------------------------------------------------------------------
# Concat, Split, Pack, Unpack
# ---------------------------------------------------------------------------------------------
def _concat_shape_of(values, axis):
    ranks = {t.shape.rank for t in values} - {None}
    if len(ranks) > 1:
        rs = sorted(ranks)
        raise ValueError(f"Shape must be rank {rs[0]} but is rank {rs[1]}")
    if not ranks:
        return unknown_shape()
    rank = ranks.pop()
    if axis is None:
        return unknown_shape(rank=rank)
    if rank == 0:
        raise ValueError("Can't concatenate scalars (use tf.stack instead)")
    axis = _canonical_axis(
        axis,
        rank,
        f"ConcatOp : Expected concatenating dimensions in the range [{-rank}, "
        f"{rank}), but got {axis}",
    )
    out = None
    for t in values:
        dims = _dims(t.shape)
        if dims is None:
            continue
        if out is None:
            out = list(dims)
            continue
        size = None if out[axis] is None or dims[axis] is None else out[axis] + dims[axis]
        rest_a = out[:axis] + out[axis + 1 :]
        rest_b = dims[:axis] + dims[axis + 1 :]
        merged = [
            _merge_dims(x, y, (rest_a, rest_b, i)) for i, (x, y) in enumerate(zip(rest_a, rest_b))
        ]
        out = merged[:axis] + [size] + merged[axis:]
    if any(t.shape.rank is None for t in values):
        out[axis] = None
    return TensorShape(out)


def _concat_v2_shape(op):
    return [_concat_shape_of(op.inputs[:-1], _static_int(op.inputs[-1]))]


register_op(
    "ConcatV2",
    inputs=["values: N * T", "axis: Tidx"],
    outputs=["output: T"],
    attrs=["N: int >= 2", "T: type", "Tidx: {int32, int64} = int32"],
    shape_fn=_concat_v2_shape,
)
register_op(
    "Concat",
    inputs=["concat_dim: int32", "values: N * T"],
    outputs=["output: T"],
    attrs=["N: int >= 2", "T: type"],
    shape_fn=lambda op: [_concat_shape_of(op.inputs[1:], _static_int(op.inputs[0]))],
)


@tf_export("concat")
def concat(values, axis, name="concat"):
    """Joins ``values`` along ``axis``; a single value passes through an ``Identity``."""
    if not isinstance(values, (list, tuple)):
        values = [values]
    if len(values) == 1:
        with _scope(name, "concat"):
            axis_t = convert_to_tensor(axis, name="concat_dim", dtype=dtypes.int32)
            axis_t.shape.with_rank(0)
            return identity(values[0], name=name)
    return apply_op("ConcatV2", name=name, values=list(values), axis=axis).outputs[0]


# ConcatOffset: where each input of a concat starts in its output (the concat gradient's slices).
def _concat_offset_shape(op):
    return [t.shape for t in op.inputs[1:]]


register_op(
    "ConcatOffset",
    inputs=["concat_dim: int32", "shape: N * shape_type"],
    outputs=["offset: N * shape_type"],
    attrs=["N: int >= 2", "shape_type: {int32, int64} = int32"],
    shape_fn=_concat_offset_shape,
)
no_gradient("ConcatOffset")


def concat_offset(concat_dim, shape, name=None):
    """Per shape in ``shape``, its start offset in the concatenation along ``concat_dim``."""
    return apply_op("ConcatOffset", name=name, concat_dim=concat_dim, shape=list(shape)).outputs


def _input_shapes(inputs):
    """The inputs' shapes: one folded ``Shape`` Const each when all are static, else one
    ``ShapeN`` (Consts made before the first dynamic shape stay in the graph, as in TF)."""
    sizes = []
    for x in inputs:
        size = array_ops.shape(x)
        if size.op.type != "Const":
            return array_ops.shape_n(inputs)
        sizes.append(size)
    return sizes


def _concat_dense_grads(grad, concat_dim, inputs):
    """Slices of a dense gradient, one per input: ConcatOffset + Slice, or one SplitV when
    there are more than 16 inputs (TF's choice)."""
    from tfcompat.ops import control_flow_contexts as cfc

    if concat_dim.op.type == "Const" and (
        cfc.output_context(concat_dim.op) is not cfc.output_context(grad.op)
    ):
        # As TF: a constant axis from another control-flow context (a loop body's, read by
        # the gradient loop) is copied here rather than brought in through the context.
        value = constant_value(concat_dim)
        concat_dim = constant(value, dtype=concat_dim.dtype)
    non_neg_dim = concat_dim % array_ops.rank(inputs[0])
    sizes = _input_shapes(inputs)
    if len(sizes) > 16:
        stacked = stack(sizes, axis=1)
        sizes = array_ops.squeeze(array_ops.slice(stacked, [non_neg_dim, 0], [1, -1]))
        # TF infers num from the sizes' static shape (its shape inference folds the mod);
        # passing it builds the same SplitV.
        return split(grad, sizes, non_neg_dim, num=len(inputs))
    offsets = concat_offset(non_neg_dim, sizes)
    return [array_ops.slice(grad, begin, size) for begin, size in zip(offsets, sizes)]


def _static_concat_dim(concat_dim, first):
    value = constant_value(concat_dim)
    if value is None:
        raise ValueError("Can only compute IndexedSlices gradient with statically-known concat_dim")
    value = int(value)
    if value < 0:
        rank = first.shape.rank
        if rank is None:
            raise ValueError(
                "Can only compute IndexedSlices gradient with negative concat_dim when first "
                "value rank is statically-known."
            )
        value %= rank
    return value


def _concat_sparse_grads(grad, concat_dim, inputs):
    """IndexedSlices per input: along dim 0 each keeps the rows in its range (indices
    shifted); along a later dim each keeps all rows and its slice of the values."""
    from tfcompat.framework.indexed_slices import IndexedSlices
    from tfcompat.ops import math_ops

    non_neg_dim = concat_dim % array_ops.rank(inputs[0])
    static_dim = _static_concat_dim(concat_dim, inputs[0])
    sizes = [array_ops.shape(x) for x in inputs]
    out = []
    if static_dim > 0:
        shape_of_shape = array_ops.shape(sizes[0])
        mask = concat(
            [
                array_ops.zeros(array_ops.expand_dims(non_neg_dim, 0), dtype=dtypes.int32),
                [1],
                array_ops.zeros(shape_of_shape - non_neg_dim - 1, dtype=dtypes.int32),
            ],
            0,
        )
        begin = array_ops.zeros(shape_of_shape, dtype=dtypes.int32)
        for size in sizes:
            rest = concat([[-1], array_ops.slice(size, [1], [-1])], 0)
            values = array_ops.slice(grad.values, begin, rest)
            out.append(IndexedSlices(values, grad.indices, size))
            begin = math_ops.add(begin, size * mask)
        return out
    start = constant(0, dtype=grad.indices.dtype)
    for size in sizes:
        size_along = array_ops.gather(size, non_neg_dim)
        if size_along.dtype != grad.indices.dtype:
            size_along = math_ops.cast(size_along, dtype=grad.indices.dtype)
        end = start + size_along
        in_range = math_ops.logical_and(grad.indices >= start, grad.indices < end)
        selected = array_ops.squeeze(math_ops.where(in_range), axis=[1])
        indices = array_ops.gather(grad.indices, selected) - start
        out.append(IndexedSlices(array_ops.gather(grad.values, selected), indices, size))
        start = end
    return out


def _concat_grad(op, grad, values, concat_dim, dim_first):
    from tfcompat.framework.indexed_slices import IndexedSlices

    if isinstance(grad, Tensor):
        grads = _concat_dense_grads(grad, concat_dim, values)
    elif isinstance(grad, IndexedSlices):
        grads = _concat_sparse_grads(grad, concat_dim, values)
    else:
        raise TypeError(f"Expected Tensor or IndexedSlices, got {type(grad)}")
    return [None] + grads if dim_first else grads + [None]


@RegisterGradient("Concat")
def _concat_v1_grad(op, grad):
    return _concat_grad(op, grad, op.inputs[1:], op.inputs[0], dim_first=True)


@RegisterGradient("ConcatV2")
def _concat_v2_grad(op, grad):
    return _concat_grad(op, grad, op.inputs[:-1], op.inputs[-1], dim_first=False)


def _split_along(op, value, axis, sizes):
    """Output shapes for splitting ``value`` along static-or-None ``axis`` into ``sizes``."""
    dims = _dims(value.shape)
    if dims is None:
        return [unknown_shape()] * len(sizes)
    if axis is None:
        return [unknown_shape(rank=len(dims))] * len(sizes)
    rank = len(dims)
    axis = _canonical_axis(
        axis, rank, f"Dimension size {axis} must be in the range [{-rank}, {rank})"
    )
    return [TensorShape(dims[:axis] + [s] + dims[axis + 1 :]) for s in sizes]


def _split_shape(op):
    value, num = op.inputs[1], op.attrs["num_split"]
    axis = _static_int(op.inputs[0])
    dims = _dims(value.shape)
    size = None
    if dims is not None and axis is not None and -len(dims) <= axis < len(dims):
        size = dims[axis]
        if size is not None:
            if size % num:
                raise ValueError(f"Dimension size must be evenly divisible by {num} but is {size}")
            size //= num
    return _split_along(op, value, axis, [size] * num)


register_op(
    "Split",
    inputs=["split_dim: int32", "value: T"],
    outputs=["output: num_split * T"],
    attrs=["num_split: int >= 1", "T: type"],
    shape_fn=_split_shape,
)


def _split_v_shape(op):
    value, num = op.inputs[0], op.attrs["num_split"]
    axis = _static_int(op.inputs[2])
    sizes = _static_ints(op.inputs[1])
    if sizes is None:
        return _split_along(op, value, axis, [None] * num)
    if len(sizes) != num:
        raise ValueError(f"Length of size_splits should be {num} but is {len(sizes)}")
    dims = _dims(value.shape)
    total = None
    if dims is not None and axis is not None and -len(dims) <= axis < len(dims):
        total = dims[axis]
    minus = [i for i, s in enumerate(sizes) if s == -1]
    if len(minus) > 1:
        raise ValueError(
            f"Only one dimensions can have a value of -1. Second one found at dimension {minus[1]}"
        )
    known = sum(s for s in sizes if s != -1)
    out = [None if s == -1 else s for s in sizes]
    if total is not None:
        if (not minus and known != total) or (minus and known > total):
            raise ValueError(
                f"can't split axis of size {total} into pieces of size "
                f"[{','.join(str(s) for s in sizes)}]"
            )
        if minus:
            out[minus[0]] = total - known
    return _split_along(op, value, axis, out)


register_op(
    "SplitV",
    inputs=["value: T", "size_splits: Tlen", "split_dim: int32"],
    outputs=["output: num_split * T"],
    attrs=["num_split: int >= 1", "T: type", "Tlen: {int8, int32, int64} = int64"],
    shape_fn=_split_v_shape,
)


@tf_export("split")
def split(value, num_or_size_splits, axis=0, num=None, name="split"):
    """Splits ``value`` along ``axis`` into N equal parts (``Split``) or parts of the given
    sizes (``SplitV``, one size may be -1)."""
    if isinstance(num_or_size_splits, (numbers.Integral, tensor_shape.Dimension)):
        return apply_op(
            "Split",
            name=name,
            split_dim=axis,
            value=value,
            num_split=int(num_or_size_splits),
        ).outputs
    size_splits = convert_to_tensor(num_or_size_splits)
    if size_splits.shape.rank == 0:
        raise ValueError(
            "Rank-0 tensors are not supported as the num_or_size_splits argument to split. "
            f"Argument provided: {num_or_size_splits}"
        )
    if num is None:
        if size_splits.shape.rank is not None:
            num = size_splits.shape.as_list()[0]
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {num_or_size_splits}")
    return apply_op(
        "SplitV",
        name=name,
        value=value,
        size_splits=size_splits,
        split_dim=axis,
        num_split=num,
    ).outputs


@RegisterGradient("Split")
def _split_grad(op, *grads):
    return None, concat(list(grads), op.inputs[0])


@RegisterGradient("SplitV")
def _split_v_grad(op, *grads):
    return [concat(list(grads), op.inputs[2]), None, None]


def _merged_shape(tensors):
    out = unknown_shape()
    for t in tensors:
        try:
            out = out.merge_with(t.shape)
        except ValueError:
            a, b = _dims(out), _dims(t.shape)
            if len(a) != len(b):
                raise ValueError(
                    f"Shapes must be equal rank, but are {len(a)} and {len(b)}"
                ) from None
            for i, (x, y) in enumerate(zip(a, b)):
                _merge_dims(x, y, (a, b, i))
    return out


def _pack_shape(op):
    dims = _dims(_merged_shape(op.inputs))
    if dims is None:
        return [unknown_shape()]
    rank = len(dims) + 1
    axis = _canonical_axis(
        op.attrs["axis"],
        rank,
        f"Invalid axis: {op.attrs['axis']}; must be in [{-rank},{rank})",
    )
    return [TensorShape(dims[:axis] + [op.attrs["N"]] + dims[axis:])]


register_op(
    "Pack",
    inputs=["values: N * T"],
    outputs=["output: T"],
    attrs=["N: int >= 1", "T: type", "axis: int = 0"],
    shape_fn=_pack_shape,
)


def _unpack_shape(op):
    dims = _dims(op.inputs[0].shape)
    num = op.attrs["num"]
    if dims is None:
        return [unknown_shape()] * num
    rank = len(dims)
    axis = _canonical_axis(
        op.attrs["axis"], rank, f"Invalid axis: {op.attrs['axis']}; must be in [{-rank},{rank})"
    )
    if dims[axis] is not None and dims[axis] != num:
        raise ValueError(f"Dimension must be {num} but is {dims[axis]}")
    return [TensorShape(dims[:axis] + dims[axis + 1 :])] * num


register_op(
    "Unpack",
    inputs=["value: T"],
    outputs=["output: num * T"],
    attrs=["num: int >= 0", "T: type", "axis: int = 0"],
    shape_fn=_unpack_shape,
)


@tf_export("stack")
def stack(values, axis=0, name="stack"):
    """Packs a list of rank-R tensors into one rank-(R+1) tensor along ``axis``."""
    if axis == 0:
        try:
            return convert_to_tensor(values, name=name)
        except (TypeError, ValueError, NotImplementedError):
            pass  # the list holds Tensors of other dtypes or shapes: let Pack report it
    first_shape = convert_to_tensor(values[0], name=name).shape
    if first_shape.rank is not None:
        expanded = first_shape.rank + 1
        if not -expanded <= axis < expanded:
            raise ValueError(f"Argument `axis` = {axis} not in range [{-expanded}, {expanded})")
    return apply_op("Pack", name=name, values=list(values), axis=axis).outputs[0]


@tf_export("unstack")
def unstack(value, num=None, axis=0, name="unstack"):
    """Splits ``value`` along ``axis`` into a list of its slices (``num`` inferred)."""
    if num is None:
        value = convert_to_tensor(value)
        dims = _dims(value.shape)
        if dims is not None:
            if not -len(dims) <= axis < len(dims):
                raise ValueError(
                    f"Argument `axis` = {axis} not in range [{-len(dims)}, {len(dims)})"
                )
            num = dims[axis]
        if num is None:
            raise ValueError(f"Cannot infer argument `num` from shape {value.shape}")
    return apply_op("Unpack", name=name, value=value, num=num, axis=axis).outputs


@RegisterGradient("Pack")
def _pack_grad(op, grad):
    return unstack(grad, num=op.attrs["N"], axis=op.attrs["axis"])


@RegisterGradient("Unpack")
def _unpack_grad(op, *grads):
    return stack(grads, axis=op.attrs["axis"])


# ---------------------------------------------------------------------------------------------
# Auto-packing: lists holding Tensors convert to Pack ops (TF's conversion for list/tuple)
# ---------------------------------------------------------------------------------------------
def _nested_tensor_dtype(values):
    """The dtype of the first Tensor found in nested lists, or None if there is none."""
    for v in values:
        if isinstance(v, Tensor):
            return v.dtype.base_dtype
        if isinstance(v, (list, tuple)):
            found = _nested_tensor_dtype(v)
            if found is not None:
                return found
    return None


def _autopack(values, dtype, name):
    """Packs each nested level that holds a Tensor; scopes are the list indices."""
    graph = graph_lib.get_default_graph()
    must_pack = False
    items = []
    with graph.name_scope(name) as scope:
        for i, v in enumerate(values):
            if isinstance(v, Tensor):
                if v.dtype.base_dtype != dtype:
                    raise TypeError(
                        f"Cannot convert a list containing a tensor of dtype {v.dtype} to "
                        f"{dtype} (Tensor is: {v!r})"
                    )
                must_pack = True
            elif isinstance(v, (list, tuple)):
                v = _autopack(v, dtype, str(i))
                must_pack = must_pack or isinstance(v, Tensor)
            items.append(v)
        if not must_pack:
            return items
        tensors = [
            v if isinstance(v, Tensor) else constant(v, dtype=dtype, name=str(i))
            for i, v in enumerate(items)
        ]
        return apply_op("Pack", name=scope, values=tensors).outputs[0]


def _autopacking_conversion(value, dtype=None, name=None, as_ref=False):
    inferred = _nested_tensor_dtype(value)
    if as_ref or inferred is None:
        return NotImplemented  # plain Python/numpy data: a Const
    if dtype is not None and dtypes.as_dtype(dtype) != inferred:
        raise TypeError(f"Cannot convert a list containing a tensor of dtype {inferred} to {dtype}")
    return _autopack(value, inferred, name or "packed")


register_tensor_conversion_function((list, tuple), _autopacking_conversion, priority=99)
