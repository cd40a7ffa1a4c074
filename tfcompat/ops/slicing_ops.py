"""Slicing ops: ``Slice`` (``tf.slice``), ``StridedSlice`` (``tf.strided_slice``) and
``Tensor.__getitem__``, which builds ``StridedSlice`` with TF's masks.

``strided_slice_layout`` is the one description of what a strided slice selects (TF's sparse
to dense spec expansion and index canonicalization); the shape function uses it with
partially known values, the kernels with concrete ones.
"""

from __future__ import annotations

import dataclasses
import numbers

import numpy as np

from tfcompat.framework import dtypes, tensor_shape
from tfcompat.framework import graph as graph_lib
from tfcompat.framework.constant_op import constant
from tfcompat.framework.constant_value import (
    CONSTANT_VALUE_FNS,
    constant_value,
    constant_value_as_shape,
)
from tfcompat.framework.gradient_registry import RegisterGradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op, convert_to_tensor
from tfcompat.framework.tensor import Tensor
from tfcompat.framework.tensor_shape import TensorShape, unknown_shape
from tfcompat.ops import array_ops
from tfcompat.util.tf_export import tf_export


# ---------------------------------------------------------------------------------------------
# Slice
# ---------------------------------------------------------------------------------------------
def _slice_shape(op):
    dims = array_ops._dims(op.inputs[0].shape)
    begin = array_ops._static_ints(op.inputs[1])
    sizes = array_ops._static_ints(op.inputs[2])
    n = op.inputs[1].shape.as_list()[0] if op.inputs[1].shape.rank == 1 else None
    if dims is not None and n is not None and n != len(dims):
        raise ValueError(f"Shape must be rank {len(dims)} but is rank {n}")
    rank = len(dims) if dims is not None else n
    if rank is None:
        return [unknown_shape()]
    if sizes is None:
        partial = array_ops._dims(constant_value_as_shape(op.inputs[2]))
        return [TensorShape(partial) if partial and len(partial) == rank else unknown_shape(rank)]
    out = []
    for i, size in enumerate(sizes):
        d = None if dims is None else dims[i]
        b = None if begin is None else begin[i]
        if size < -1:
            raise ValueError(f"Expected size[{i}] >= -1, but got {size}")
        if b is not None and d is not None and (b < 0 or b > d):
            raise ValueError(f"Expected begin[{i}] in [0, {d}], but got {b}")
        if size == -1:
            out.append(None if b is None or d is None else d - b)
        else:
            if b is not None and d is not None and b + size > d:
                raise ValueError(f"Expected size[{i}] in [0, {d - b}], but got {size}")
            out.append(size)
    return [TensorShape(out)]


register_op(
    "Slice",
    inputs=["input: T", "begin: Index", "size: Index"],
    outputs=["output: T"],
    attrs=["T: type", "Index: {int32, int64}"],
    shape_fn=_slice_shape,
)


@tf_export("slice")
def slice(input_, begin, size, name=None):  # noqa: A001 - TF's name
    """The block of ``input_`` starting at ``begin`` with extent ``size`` (-1: to the end)."""
    return apply_op("Slice", name=name, input=input_, begin=begin, size=size).outputs[0]


@RegisterGradient("Slice")
def _slice_grad(op, grad):
    """The gradient padded back to the input's shape: ``begin`` zeros before each dimension
    and ``shape - size - begin`` after."""
    x, begin = op.inputs[0], op.inputs[1]
    input_rank = array_ops.rank(x)
    index_dtype = begin.dtype
    slice_size = array_ops.shape(op.outputs[0], out_type=index_dtype)
    column = array_ops.stack([input_rank, 1])
    before = array_ops.reshape(begin, column)
    after = array_ops.reshape(array_ops.shape(x, out_type=index_dtype) - slice_size - begin, column)
    paddings = array_ops.concat([before, after], 1)
    return array_ops.pad(grad, paddings), None, None


# ---------------------------------------------------------------------------------------------
# StridedSlice: the layout of a slice
# ---------------------------------------------------------------------------------------------
@dataclasses.dataclass
class DenseDim:
    """What a strided slice takes from one input dimension: canonical ``begin`` (a forward
    index), ``stride``, ``size`` of the result (None when unknown) and whether the dimension
    is removed (``shrink``). Values are None where unknown at build time."""

    begin: int | None
    stride: int | None
    size: int | None
    shrink: bool


@dataclasses.dataclass
class Layout:
    dense: list  # one DenseDim per input dimension
    final_shape: list  # the output shape (ints / None), new axes included


_NEW_AXIS, _SHRINK = "new", "shrink"


def _sparse_to_dense(rank, n, ellipsis_mask, new_axis_mask, shrink_axis_mask):
    """Maps the ``n`` entries of the slice spec onto the input's ``rank`` dims.

    Returns (entries, gather): entries[k] is the spec index for dense dim k, or None when
    dim k is spanned by the ellipsis; gather lists output dims as dense indices, _NEW_AXIS
    or _SHRINK."""
    if bin(ellipsis_mask & ((1 << n) - 1)).count("1") > 1:
        raise ValueError("Multiple ellipses in slice spec not allowed")
    after_ellipsis = 0
    seen = False
    for i in range(n):
        if seen and new_axis_mask & (1 << i):
            after_ellipsis += 1
        if ellipsis_mask & (1 << i):
            seen = True
    if not seen:  # an implicit trailing ellipsis covers the remaining dims
        ellipsis_mask |= 1 << n
        n += 1
    entries, gather = [], []
    for i in range(n):
        if ellipsis_mask & (1 << i):
            stop = min(rank - (n - i) + 1 + after_ellipsis, rank)
            while len(entries) < stop:
                gather.append(len(entries))
                entries.append(None)
        elif new_axis_mask & (1 << i):
            gather.append(_NEW_AXIS)
        else:
            if len(entries) == rank:
                raise ValueError(
                    f"Index out of range using input dim {len(entries)}; input has only {rank} dims"
                )
            gather.append(_SHRINK if shrink_axis_mask & (1 << i) else len(entries))
            entries.append(i)
    return entries, gather


def _dense_dim(k, dim, begin, end, stride, begin_masked, end_masked, shrink):
    """Canonicalizes one dimension's slice as TF does (clamping, negative indices)."""
    if stride == 0:
        raise ValueError(f"strides[{k}] must be non-zero")
    if shrink:
        if begin is None or dim is None:
            return DenseDim(None if begin is None or begin < 0 else begin, 1, 1, True)
        index = begin + dim if begin < 0 else begin
        if not 0 <= index < dim:
            raise ValueError(f"slice index {begin} of dimension {k} out of bounds.")
        return DenseDim(index, 1, 1, True)
    if dim is None or stride is None:
        return DenseDim(None, stride, None, False)
    lo, hi = (0, dim) if stride > 0 else (-1, dim - 1)

    def canonical(x, masked, is_end):
        if masked:
            return (hi if is_end else lo) if stride > 0 else (lo if is_end else hi)
        x = x + dim if x < 0 else x
        return min(max(x, lo), hi)

    if (begin is None and not begin_masked) or (end is None and not end_masked):
        return DenseDim(None, stride, None, False)
    b = canonical(begin, begin_masked, False)
    e = canonical(end, end_masked, True)
    interval = e - b
    if interval == 0 or (interval < 0) != (stride < 0):
        size = 0
    else:
        size = -(-abs(interval) // abs(stride))
    return DenseDim(b, stride, size, False)


def strided_slice_layout(
    dims,
    begin,
    end,
    strides,
    begin_mask=0,
    end_mask=0,
    ellipsis_mask=0,
    new_axis_mask=0,
    shrink_axis_mask=0,
) -> Layout:
    """What ``StridedSlice`` selects from a tensor of shape ``dims``; ``begin``, ``end``
    and ``strides`` are equal-length lists whose entries may be None (unknown)."""
    entries, gather = _sparse_to_dense(
        len(dims), len(strides), ellipsis_mask, new_axis_mask, shrink_axis_mask
    )
    dense = []
    for k, i in enumerate(entries):
        if i is None:  # spanned by the ellipsis: the whole dimension
            dense.append(_dense_dim(k, dims[k], 0, 0, 1, True, True, False))
            continue
        bit = 1 << i
        dense.append(
            _dense_dim(
                k,
                dims[k],
                begin[i],
                end[i],
                strides[i],
                bool(begin_mask & bit),
                bool(end_mask & bit),
                bool(shrink_axis_mask & bit),
            )
        )
    final = []
    for g in gather:
        if g == _NEW_AXIS:
            final.append(1)
        elif g != _SHRINK:
            final.append(dense[g].size)
    return Layout(dense, final)


_MASKS = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")


def _known_ints(tensor, length):
    """A 1-D index tensor's entries if all are known at build time, else all None (TF's
    shape inference does not use partially known begin/end vectors)."""
    value = constant_value(tensor)
    if value is not None:
        return [int(v) for v in np.asarray(value).reshape(-1)]
    return [None] * length


def _strided_slice_shape(op):
    dims = array_ops._dims(op.inputs[0].shape)
    lengths = {t.shape.as_list()[0] for t in op.inputs[1:] if t.shape.rank == 1} - {None}
    if len(lengths) > 1:
        raise ValueError("Expected begin, end, and strides to be 1D equal size tensors")
    strides = constant_value(op.inputs[3])
    if dims is None or not lengths or strides is None:
        return [unknown_shape()]
    n = lengths.pop()
    layout = strided_slice_layout(
        dims,
        _known_ints(op.inputs[1], n),
        _known_ints(op.inputs[2], n),
        [int(s) for s in np.asarray(strides).reshape(-1)],
        *(op.attrs[m] for m in _MASKS),
    )
    return [TensorShape(layout.final_shape)]


register_op(
    "StridedSlice",
    inputs=["input: T", "begin: Index", "end: Index", "strides: Index"],
    outputs=["output: T"],
    attrs=["T: type", "Index: {int16, int32, int64}"] + [f"{m}: int = 0" for m in _MASKS],
    shape_fn=_strided_slice_shape,
)


def layout_index(layout: Layout) -> tuple:
    """The basic-indexing tuple that selects a layout's elements (shrunk dims as integers)."""
    index = []
    for d in layout.dense:
        if d.shrink:
            index.append(d.begin)
        elif d.size == 0:
            index.append(np.s_[0:0])
        else:
            stop = d.begin + d.size * d.stride
            index.append(np.s_[d.begin : (None if stop < 0 else stop) : d.stride])
    return tuple(index)


def selected_shape(layout: Layout) -> list:
    """The shape ``x[layout_index(layout)]`` has: the kept dims' sizes, before new axes."""
    return [d.size for d in layout.dense if not d.shrink]


def apply_layout(x, layout: Layout):
    """``x[layout]`` for a numpy-style array ``x`` (numpy or jax.numpy): basic indexing with
    the canonical indices, then a reshape that drops shrunk dims and adds new axes."""
    out = x[layout_index(layout)]
    if not hasattr(out, "reshape"):  # one element of an object (string) array: a bytes
        out = np.asarray(out, dtype=object)
    return out.reshape(layout.final_shape)


def _fold_strided_slice(op, index):
    value = constant_value(op.inputs[0])
    specs = [constant_value(t) for t in op.inputs[1:]]
    if value is None or any(s is None for s in specs):
        return None
    begin, end, strides = ([int(v) for v in np.asarray(s).reshape(-1)] for s in specs)
    value = np.asarray(value)
    layout = strided_slice_layout(
        list(value.shape), begin, end, strides, *(op.attrs[m] for m in _MASKS)
    )
    return np.asarray(apply_layout(value, layout))


CONSTANT_VALUE_FNS["StridedSlice"] = _fold_strided_slice


@tf_export("strided_slice")
def strided_slice(
    input_,
    begin,
    end,
    strides=None,
    begin_mask=0,
    end_mask=0,
    ellipsis_mask=0,
    new_axis_mask=0,
    shrink_axis_mask=0,
    var=None,
    name=None,
):
    """``input_[begin:end:strides]`` per dimension, with TF's masks (``StridedSlice``).

    With ``var`` (the variable ``input_`` reads) the result has ``assign(value, name=None)``,
    which writes into that slice of the variable (``StridedSliceAssign``, or
    ``ResourceStridedSliceAssign`` for a resource variable), named ``<slice name>_assign``.
    """
    if strides is None:
        strides = array_ops.ones_like(begin)
    masks = dict(
        begin_mask=begin_mask,
        end_mask=end_mask,
        ellipsis_mask=ellipsis_mask,
        new_axis_mask=new_axis_mask,
        shrink_axis_mask=shrink_axis_mask,
    )
    result = apply_op(
        "StridedSlice", name=name, input=input_, begin=begin, end=end, strides=strides, **masks
    ).outputs[0]
    if var is not None:
        parent_name = name

        def assign(val, name=None):
            if name is None:
                name = parent_name + "_assign"
            return var._strided_slice_assign(begin, end, strides, val, name, **masks)

        result._sliced_assign = assign
    return result


def slice_broadcast_message(value_shape, final_shape, node):
    """TF's message for a sliced assignment whose value does not broadcast to the slice."""
    shapes = [",".join(str(d) for d in shape) for shape in (value_shape, final_shape)]
    return (
        f"Cannot broadcast input shape [{shapes[0]}] into final shape [{shapes[1]}]"
        f"\n\t [[{{{{node {node}}}}}]]"
    )


def _strided_slice_assign_shape(op):
    if op.outputs:
        return [op.inputs[0].shape]
    return []


_SLICE_ASSIGN_ATTRS = ["T: type", "Index: {int32, int64}"] + [f"{m}: int = 0" for m in _MASKS]
register_op(
    "StridedSliceAssign",
    inputs=["ref: Ref(T)", "begin: Index", "end: Index", "strides: Index", "value: T"],
    outputs=["output_ref: Ref(T)"],
    attrs=_SLICE_ASSIGN_ATTRS,
    shape_fn=_strided_slice_assign_shape,
)
register_op(
    "ResourceStridedSliceAssign",
    inputs=["ref: resource", "begin: Index", "end: Index", "strides: Index", "value: T"],
    attrs=_SLICE_ASSIGN_ATTRS,
    shape_fn=_strided_slice_assign_shape,
    is_stateful=True,
)


def strided_slice_assign(ref, begin, end, strides, value, name=None, **masks):
    """Writes ``value`` (broadcast to the slice's shape) into ``ref[begin:end:strides]``;
    returns the ref (TF's ``gen_array_ops.strided_slice_assign``)."""
    op_type = "ResourceStridedSliceAssign" if ref.dtype == dtypes.resource else "StridedSliceAssign"
    op = apply_op(
        op_type, name=name, ref=ref, begin=begin, end=end, strides=strides, value=value, **masks
    )
    return op.outputs[0] if op.outputs else op


def _strided_slice_grad_shape(op):
    if op.inputs[0].shape.rank not in (None, 1):
        raise ValueError(f"Shape must be rank 1 but is rank {op.inputs[0].shape.rank}")
    return [constant_value_as_shape(op.inputs[0])]


register_op(
    "StridedSliceGrad",
    inputs=["shape: Index", "begin: Index", "end: Index", "strides: Index", "dy: T"],
    outputs=["output: T"],
    attrs=["T: type", "Index: {int32, int64}"] + [f"{m}: int = 0" for m in _MASKS],
    shape_fn=_strided_slice_grad_shape,
)


def strided_slice_grad(
    shape,
    begin,
    end,
    strides,
    dy,
    begin_mask=0,
    end_mask=0,
    ellipsis_mask=0,
    new_axis_mask=0,
    shrink_axis_mask=0,
    name=None,
):
    """A zero tensor of ``shape`` with ``dy`` written where ``StridedSlice`` with the same
    spec reads (the slice's gradient)."""
    return apply_op(
        "StridedSliceGrad",
        name=name,
        shape=shape,
        begin=begin,
        end=end,
        strides=strides,
        dy=dy,
        begin_mask=begin_mask,
        end_mask=end_mask,
        ellipsis_mask=ellipsis_mask,
        new_axis_mask=new_axis_mask,
        shrink_axis_mask=shrink_axis_mask,
    ).outputs[0]


def _known_or_tensor(tensor):
    value = constant_value(tensor)
    return tensor if value is None else value


@RegisterGradient("StridedSlice")
def _strided_slice_grad(op, grad):
    """``StridedSliceGrad`` of the input's shape (in the index dtype) with the same spec;
    spec values known at build time are passed as constants."""
    begin, end, strides = op.inputs[1:]
    x_shape = array_ops.shape(op.inputs[0], out_type=begin.dtype)
    masks = {m: op.attrs[m] for m in _MASKS}
    return (
        strided_slice_grad(
            _known_or_tensor(x_shape),
            _known_or_tensor(begin),
            _known_or_tensor(end),
            _known_or_tensor(strides),
            grad,
            **masks,
        ),
        None,
        None,
        None,
    )


@RegisterGradient("StridedSliceGrad")
def _strided_slice_grad_grad(op, grad):
    begin, end, strides = op.inputs[1:4]
    masks = {m: op.attrs[m] for m in _MASKS}
    return None, None, None, None, strided_slice(grad, begin, end, strides, **masks)


# ---------------------------------------------------------------------------------------------
# Tensor.__getitem__
# ---------------------------------------------------------------------------------------------
_SLICE_INDEX_TYPES = (dtypes.int16, dtypes.int32, dtypes.int64)
_SLICE_TYPE_ERROR = (
    "Only integers, slices (`:`), ellipsis (`...`), tf.newaxis (`None`) and scalar "
    "tf.int32/tf.int64 tensors are valid indices"
)


def _check_index(idx):
    if isinstance(idx, (numbers.Integral, tensor_shape.Dimension)):
        return
    dtype = getattr(idx, "dtype", None)
    if (
        dtype is None
        or dtypes.as_dtype(dtype).base_dtype not in _SLICE_INDEX_TYPES
        or (getattr(idx, "shape", None) and len(idx.shape) == 1)
    ):
        raise TypeError(_SLICE_TYPE_ERROR + f", got {idx!r}")


def _is_unknown_dim(d):
    return isinstance(d, tensor_shape.Dimension) and d.value is None


def _index_dtype(parts):
    """TF's choice of index dtype for a slice whose parts are Tensors: the widest of them."""
    found = None
    for t in parts:
        if isinstance(t, Tensor):
            base = t.dtype.base_dtype
            if base == dtypes.int64:
                found = dtypes.int64
            elif base == dtypes.int32 and found != dtypes.int64:
                found = dtypes.int32
            elif base == dtypes.int16 and found is None:
                found = dtypes.int16
    return found


def _slice_entry(s, index, spec):
    """Appends one ``slice`` object's begin/end/stride to ``spec`` and sets its masks."""
    dtype = _index_dtype([s.start, s.stop, s.step])

    def default(value):
        return value if dtype is None else constant(value, dtype=dtype)

    for attr, key, mask, fill in (
        ("start", "begin", "begin_mask", 0),
        ("stop", "end", "end_mask", 0),
        ("step", "strides", None, 1),
    ):
        part = getattr(s, attr)
        if part is not None and not _is_unknown_dim(part):
            _check_index(part)
            spec[key].append(part)
        else:
            spec[key].append(default(fill))
            if mask:
                spec[mask] |= 1 << index


def _cast_to(t, dtype):
    return t if t.dtype.base_dtype == dtype else apply_op("Cast", x=t, DstT=dtype).outputs[0]


def _slice_helper(tensor, slice_spec, var=None):
    """``tensor[slice_spec]`` with TF's semantics (``StridedSlice`` named ``strided_slice``;
    a boolean mask becomes ``tf.boolean_mask``)."""
    from tfcompat.ops import gather_ops

    tensor = convert_to_tensor(tensor)
    if (
        isinstance(slice_spec, bool)
        or (isinstance(slice_spec, Tensor) and slice_spec.dtype.base_dtype == dtypes.bool)
        or (isinstance(slice_spec, np.ndarray) and slice_spec.dtype == bool)
    ):
        return gather_ops.boolean_mask(tensor=tensor, mask=slice_spec)
    if not isinstance(slice_spec, (list, tuple)):
        slice_spec = [slice_spec]
    spec = {"begin": [], "end": [], "strides": []}
    spec.update(dict.fromkeys(_MASKS, 0))
    for index, s in enumerate(slice_spec):
        if isinstance(s, type(np.s_[:])):
            _slice_entry(s, index, spec)
            continue
        if s is Ellipsis or s is None:
            spec["begin"].append(0)
            spec["end"].append(0)
            spec["strides"].append(1)
            spec["ellipsis_mask" if s is Ellipsis else "new_axis_mask"] |= 1 << index
            continue
        _check_index(s)
        spec["begin"].append(s)
        spec["end"].append(s + 1)
        if isinstance(s, Tensor) and s.dtype.base_dtype in (dtypes.int16, dtypes.int64):
            spec["strides"].append(constant(1, dtype=s.dtype.base_dtype))
        else:
            spec["strides"].append(1)
        spec["shrink_axis_mask"] |= 1 << index
    graph = graph_lib.get_default_graph()
    with graph.name_scope("strided_slice") as name:
        if spec["begin"]:
            packed = [array_ops.stack(spec[k]) for k in ("begin", "end", "strides")]
            index_dtypes = {p.dtype.base_dtype for p in packed}
            if dtypes.int64 in index_dtypes:
                packed = [_cast_to(p, dtypes.int64) for p in packed]
        else:
            empty = constant([], dtype=dtypes.int32)
            packed = [empty] * 3
        return strided_slice(tensor, *packed, var=var, name=name, **{m: spec[m] for m in _MASKS})


Tensor.__getitem__ = _slice_helper
