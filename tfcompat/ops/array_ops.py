"""Array ops (TF's ``array_ops``): placeholders, identity, shapes, reshaping and transposing,
filling; with their gradients.

TF's ``array_ops`` module holds more wrappers than this one: joining and splitting live in
``join_ops``, tiling/padding/reversing/broadcasting in ``pad_ops``, slicing in
``slicing_ops`` and gathering/scattering/one-hot/masks in ``gather_ops``; their wrappers
are re-exported at the bottom of this module, as TF's ``array_ops`` exposes them.
"""

from __future__ import annotations

import numpy as np

from tfcompat.framework import common_shapes, dtypes, tensor_shape
from tfcompat.framework import graph as graph_lib
from tfcompat.framework.constant_op import constant
from tfcompat.framework.constant_value import (
    CONSTANT_VALUE_FNS,
    constant_value,
    constant_value_as_shape,
)
from tfcompat.framework.gradient_registry import RegisterGradient, no_gradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import (
    apply_op,
    convert_to_tensor,
    register_tensor_conversion_function,
)
from tfcompat.framework.tensor import Tensor
from tfcompat.framework.tensor_shape import TensorShape, unknown_shape
from tfcompat.util.tf_export import tf_export

newaxis = None  # tf.newaxis (exported by tfcompat.framework.scopes)

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


def _placeholder_with_default_shape(op):
    shape = op.attrs["shape"]
    if not shape.is_compatible_with(op.inputs[0].shape):
        raise ValueError(
            f"Incompatible shapes: input shape {op.inputs[0].shape} vs. placeholder shape {shape}"
        )
    return [shape]


register_op(
    "PlaceholderWithDefault",
    inputs=["input: dtype"],
    outputs=["output: dtype"],
    attrs=["dtype: type", "shape: shape"],
    shape_fn=_placeholder_with_default_shape,
)


@tf_export("placeholder_with_default")
def placeholder_with_default(input, shape, name=None):  # noqa: A002 - TF's argument name
    """``input`` unless fed; ``shape`` may be less specific than ``input``'s."""
    return apply_op(
        "PlaceholderWithDefault", name=name, input=input, shape=tensor_shape.as_shape(shape)
    ).outputs[0]


# Const has no inputs; TF marks it not differentiable (Placeholder has no entry at all).
no_gradient("Const")


# ---------------------------------------------------------------------------------------------
# Identity
# ---------------------------------------------------------------------------------------------
register_op(
    "Identity",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=["T: type"],
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
    "StopGradient",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=["T: type"],
    shape_fn=common_shapes.unchanged,
)


@tf_export("stop_gradient")
def stop_gradient(input, name=None):  # noqa: A002
    """Identity in the forward pass; blocks gradients."""
    return apply_op("StopGradient", name=name, input=input).outputs[0]


@RegisterGradient("PlaceholderWithDefault")
@RegisterGradient("Identity")
@RegisterGradient("RefIdentity")
def _identity_grad(op, grad):
    return grad


@RegisterGradient("IdentityN")
def _identity_n_grad(op, *grads):
    return grads


no_gradient("StopGradient")


# ---------------------------------------------------------------------------------------------
# Helpers shared by the shape functions
# ---------------------------------------------------------------------------------------------
def _static_ints(tensor):
    """The tensor's value as a flat list of Python ints when known at build time, else None."""
    value = constant_value(tensor)
    return None if value is None else [int(v) for v in np.asarray(value).reshape(-1)]


def _static_int(tensor):
    value = constant_value(tensor)
    return None if value is None or np.ndim(value) != 0 else int(value)


def _dims(shape):
    """A shape's dims as a list of ints/None; None when the rank is unknown."""
    return None if shape.rank is None else shape.as_list()


def _shape_list_text(dims):
    return "[" + ",".join("?" if d is None else str(d) for d in dims) + "]"


def _merge_dims(a, b, shapes):
    if a is not None and b is not None and a != b:
        raise ValueError(
            f"Dimension {shapes[2]} in both shapes must be equal, but are {a} and {b}. Shapes "
            f"are {_shape_list_text(shapes[0])} and {_shape_list_text(shapes[1])}."
        )
    return a if a is not None else b


def _canonical_axis(axis, rank, message):
    if not -rank <= axis < rank:
        raise ValueError(message)
    return axis % rank if rank else 0


def dense_gradient(grad):
    """A gradient as a Tensor: IndexedSlices are summed into rows with ``UnsortedSegmentSum``
    (TF's conversion, without its sparse-to-dense warning)."""
    from tfcompat.framework.indexed_slices import IndexedSlices  # imports the session

    if not isinstance(grad, IndexedSlices):
        return grad
    if grad.dense_shape is None:
        raise ValueError(
            f"Tensor conversion requested for IndexedSlices without dense_shape: {grad}"
        )
    from tfcompat.ops import segment_ops

    return segment_ops.unsorted_segment_sum(grad.values, grad.indices, grad.dense_shape[0])


# ---------------------------------------------------------------------------------------------
# Shape, ShapeN, Size, Rank
# ---------------------------------------------------------------------------------------------
_OUT_TYPE = "out_type: {int32, int64} = int32"


def _shape_shape(op):
    return [TensorShape([t.shape.rank]) for t in op.inputs]


register_op(
    "Shape",
    inputs=["input: T"],
    outputs=["output: out_type"],
    attrs=["T: type", _OUT_TYPE],
    shape_fn=_shape_shape,
)
register_op(
    "ShapeN",
    inputs=["input: N * T"],
    outputs=["output: N * out_type"],
    attrs=["N: int >= 1", "T: type", _OUT_TYPE],
    shape_fn=_shape_shape,
)
register_op(
    "Size",
    inputs=["input: T"],
    outputs=["output: out_type"],
    attrs=["T: type", _OUT_TYPE],
    shape_fn=common_shapes.scalar,
)
register_op(
    "Rank",
    inputs=["input: T"],
    outputs=["output: int32"],
    attrs=["T: type"],
    shape_fn=common_shapes.scalar,
)


def _shape_as_tensor(shape, dtype=None, name=None):
    """A fully defined TensorShape as a ``Const`` (int64 only if a dim needs it), as TF's
    TensorShape-to-Tensor conversion builds it."""
    shape = tensor_shape.as_shape(shape)
    if not shape.is_fully_defined():
        raise ValueError(f"Cannot convert a partially known TensorShape {shape} to a Tensor.")
    dims = shape.as_list()
    big = any(d >= 2**31 for d in dims)
    if dtype is None:
        dtype = dtypes.int64 if big else dtypes.int32
    dtype = dtypes.as_dtype(dtype)
    if dtype not in (dtypes.int32, dtypes.int64):
        raise TypeError(
            f"Cannot convert TensorShape {shape} to dtype {dtype}. Allowed dtypes are "
            "tf.int32 and tf.int64."
        )
    if dtype == dtypes.int32 and big:
        raise ValueError(
            f"Cannot convert TensorShape {shape} to dtype int32; a dimension is too large."
        )
    return constant(dims, dtype=dtype, name=name or "shape_as_tensor")


register_tensor_conversion_function(
    TensorShape, lambda s, dtype=None, name=None, as_ref=False: _shape_as_tensor(s, dtype, name)
)


def _scope(name, default):
    """TF's ``name_scope(name, default_name)`` on the default graph."""
    return graph_lib.get_default_graph().name_scope(name or default)


def shape_internal(input, name=None, optimize=True, out_type=None):  # noqa: A002
    """``tf.shape``; a fully defined static shape folds into a ``Const`` as in TF."""
    with _scope(name, "Shape") as scope:
        from tfcompat.framework import sparse_tensor

        if sparse_tensor.is_sparse(input):  # TF: the dense_shape, cast to out_type
            from tfcompat.ops import math_ops

            dense_shape = sparse_tensor.SparseTensor.from_value(input).dense_shape
            return math_ops.cast(dense_shape, out_type or dtypes.int32)
        input = convert_to_tensor(input)
        if optimize and input.shape.is_fully_defined():
            if out_type is None:
                return _shape_as_tensor(input.shape)
            return constant(input.shape.as_list(), dtype=out_type, name=scope)
        return apply_op(
            "Shape", name=scope, input=input, out_type=out_type or dtypes.int32
        ).outputs[0]


@tf_export("shape")
def shape(input, name=None, out_type=None):  # noqa: A002
    """The shape of ``input`` as a 1-D int tensor (a Const when statically known)."""
    return shape_internal(input, name, optimize=True, out_type=out_type or dtypes.int32)


@tf_export("shape_n")
def shape_n(input, out_type=dtypes.int32, name=None):  # noqa: A002
    """``ShapeN``: the shapes of a list of tensors."""
    return apply_op("ShapeN", name=name, input=list(input), out_type=out_type).outputs


@tf_export("size")
def size(input, name=None, out_type=None):  # noqa: A002
    """The number of elements of ``input`` (a Const when statically known)."""
    out_type = dtypes.as_dtype(out_type or dtypes.int32)
    with _scope(name, "Size") as scope:
        input = convert_to_tensor(input)
        dims = _dims(input.shape)
        if input.shape.is_fully_defined():
            return constant(input.shape.num_elements(), dtype=out_type, name=scope)
        if dims and any(d == 0 for d in dims):
            return constant(0, dtype=out_type, name=scope)
        return apply_op("Size", name=scope, input=input, out_type=out_type).outputs[0]


@tf_export("rank")
def rank(input, name=None):  # noqa: A002
    """The rank of ``input`` (a Const when statically known)."""
    with _scope(name, "Rank") as scope:
        input = convert_to_tensor(input)
        if input.shape.rank is not None:
            return constant(input.shape.rank, dtype=dtypes.int32, name=scope)
        return apply_op("Rank", name=scope, input=input).outputs[0]


for _op_type in ("Shape", "ShapeN", "Rank", "Size"):
    no_gradient(_op_type)


# ---------------------------------------------------------------------------------------------
# Reshape, ExpandDims, Squeeze, Transpose
# ---------------------------------------------------------------------------------------------
def _reshape_shape(op):
    in_shape = op.inputs[0].shape
    value = _static_ints(op.inputs[1])
    if value is not None:
        if sum(1 for d in value if d == -1) > 1:
            minus = [i for i, d in enumerate(value) if d == -1]
            raise ValueError(
                f"Cannot infer multiple unknown dimensions in shape {value}: "
                f"only one input size may be -1, not both {minus[0]} and {minus[1]}"
            )
        out = [None if d == -1 else d for d in value]
    else:
        out = _dims(constant_value_as_shape(op.inputs[1]))
        if out is None:
            return [unknown_shape()]
    unknown = [i for i, d in enumerate(out) if d is None]
    known = int(np.prod([d for d in out if d is not None], dtype=np.int64))
    n_in = in_shape.num_elements()
    if n_in is None:
        return [TensorShape(out)]
    if not unknown and known != n_in:
        raise ValueError(
            f"Cannot reshape a tensor with {n_in} elements to shape {_shape_list_text(out)} "
            f"({known} elements)"
        )
    if len(unknown) == 1 and known > 0:
        if n_in % known:
            raise ValueError(f"Dimension size must be evenly divisible by {known} but is {n_in}")
        out[unknown[0]] = n_in // known
    return [TensorShape(out)]


register_op(
    "Reshape",
    inputs=["tensor: T", "shape: Tshape"],
    outputs=["output: T"],
    attrs=["T: type", "Tshape: {int32, int64} = int32"],
    shape_fn=_reshape_shape,
)


@tf_export("reshape", "manip.reshape")
def reshape(tensor, shape, name=None):  # noqa: A002
    """``tensor`` with its elements laid out in ``shape`` (one entry may be -1)."""
    return apply_op("Reshape", name=name, tensor=tensor, shape=shape).outputs[0]


def _expand_dims_shape(op):
    dims = _dims(op.inputs[0].shape)
    axis = _static_ints(op.inputs[1])  # a scalar, or a vector of one value (as TF takes)
    if axis is not None and len(axis) != 1:
        raise ValueError("'dim' input must be a tensor with a single value")
    axis = None if axis is None else axis[0]
    if dims is None:
        return [unknown_shape()]
    if axis is None:
        return [unknown_shape(rank=len(dims) + 1)]
    rank = len(dims)
    if not -rank - 1 <= axis <= rank:
        raise ValueError(f"dim {axis} not in the interval [{-rank - 1}, {rank}].")
    axis = axis + rank + 1 if axis < 0 else axis
    return [TensorShape(dims[:axis] + [1] + dims[axis:])]


register_op(
    "ExpandDims",
    inputs=["input: T", "dim: Tdim"],
    outputs=["output: T"],
    attrs=["T: type", "Tdim: {int32, int64} = int32"],
    shape_fn=_expand_dims_shape,
)


@tf_export("expand_dims")
def expand_dims(input, axis=None, name=None, dim=None):  # noqa: A002
    """Inserts a dimension of size 1 at ``axis`` (``dim`` is the deprecated alias)."""
    if axis is None:
        axis = dim
    elif dim is not None:
        raise ValueError("Cannot specify both 'dim' and 'axis'.")
    if axis is None:
        raise ValueError("Must specify an axis argument to tf.expand_dims()")
    return apply_op("ExpandDims", name=name, input=input, dim=axis).outputs[0]


def _squeeze_shape(op):
    dims = _dims(op.inputs[0].shape)
    if dims is None:
        return [unknown_shape()]
    rank = len(dims)
    wanted = set()
    for d in op.attrs["squeeze_dims"]:
        if not -rank <= d < rank:
            raise ValueError(f"Tried to squeeze dim index {d} for tensor with {rank} dimensions.")
        wanted.add(d % rank)
    out = []
    for i, d in enumerate(dims):
        if wanted:
            if i in wanted:
                if d is not None and d != 1:
                    raise ValueError(
                        f"Can not squeeze dim[{i}], expected a dimension of 1, got {d}"
                    )
                continue
        elif d is None:
            return [unknown_shape()]  # may or may not be squeezed
        elif d == 1:
            continue
        out.append(d)
    return [TensorShape(out)]


register_op(
    "Squeeze",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=["T: type", "squeeze_dims: list(int) >= 0 = []"],
    shape_fn=_squeeze_shape,
)


@tf_export("squeeze")
def squeeze(input, axis=None, name=None, squeeze_dims=None):  # noqa: A002
    """Removes size-1 dimensions (all of them, or those in ``axis``)."""
    if axis is None:
        axis = squeeze_dims
    elif squeeze_dims is not None:
        raise ValueError("Cannot specify both 'squeeze_dims' and 'axis'.")
    if np.isscalar(axis):
        axis = [axis]
    return apply_op("Squeeze", name=name, input=input, squeeze_dims=list(axis or [])).outputs[0]


def _transpose_shape(op):
    dims = _dims(op.inputs[0].shape)
    perm = _static_ints(op.inputs[1])
    perm_len = op.inputs[1].shape.as_list()[0] if op.inputs[1].shape.rank == 1 else None
    rank = len(dims) if dims is not None else perm_len
    if dims is not None and perm_len is not None and perm_len != len(dims):
        raise ValueError(f"Dimension must be {len(dims)} but is {perm_len}")
    if rank is None:
        return [unknown_shape()]
    if perm is None or dims is None:
        return [unknown_shape(rank=rank)]
    if sorted(p % rank if -rank <= p < rank else p for p in perm) != list(range(rank)):
        raise ValueError(f"{perm} is not a permutation of 0..{rank - 1}")
    return [TensorShape([dims[p] for p in perm])]


for _name in ("Transpose", "ConjugateTranspose"):
    register_op(
        _name,
        inputs=["x: T", "perm: Tperm"],
        outputs=["y: T"],
        attrs=["T: type", "Tperm: {int32, int64} = int32"],
        shape_fn=_transpose_shape,
    )


@tf_export("transpose", "linalg.transpose")
def transpose(a, perm=None, name="transpose", conjugate=False):
    """Permutes the dimensions of ``a`` (reversed when ``perm`` is None)."""
    with _scope(name, "transpose") as scope:
        if not isinstance(a, Tensor):
            a = convert_to_tensor(a, name="a")
        op_type = "ConjugateTranspose" if conjugate and a.dtype.is_complex else "Transpose"
        if perm is None:
            if a.shape.rank is None:
                # The reversed range of the run-time rank, built as TF builds it.
                last = apply_op("Rank", input=a).outputs[0] - 1
                perm = apply_op("Range", start=last, limit=-1, delta=-1).outputs[0]
            else:
                perm = np.arange(a.shape.rank - 1, -1, -1, dtype=np.int32)
        return apply_op(op_type, name=scope, x=a, perm=perm).outputs[0]


@RegisterGradient("Reshape")
def _reshape_grad(op, grad):
    """Reshapes back; a static shape with one unknown dimension becomes a -1 (no Shape op),
    unless a zero dimension makes the -1 ambiguous."""
    dims = _dims(op.inputs[0].shape)
    if dims is not None and dims.count(None) == 1 and 0 not in dims:
        target = [-1 if d is None else d for d in dims]
        return [reshape(dense_gradient(grad), target), None]
    return [reshape(dense_gradient(grad), shape(op.inputs[0])), None]


def _reshape_to_input(op, grad):
    return reshape(dense_gradient(grad), shape(op.inputs[0]))


@RegisterGradient("ExpandDims")
def _expand_dims_grad(op, grad):
    return [_reshape_to_input(op, grad), None]


@RegisterGradient("Squeeze")
def _squeeze_grad(op, grad):
    return _reshape_to_input(op, grad)


@RegisterGradient("Transpose")
def _transpose_grad(op, grad):
    from tfcompat.ops.reduction_ops import invert_permutation

    return [transpose(grad, invert_permutation(op.inputs[1])), None]


@RegisterGradient("ConjugateTranspose")
def _conjugate_transpose_grad(op, grad):
    from tfcompat.ops.reduction_ops import invert_permutation

    return [transpose(grad, invert_permutation(op.inputs[1]), conjugate=True), None]


# ---------------------------------------------------------------------------------------------
# Fill, ZerosLike, OnesLike and the zeros/ones family
# ---------------------------------------------------------------------------------------------
def _fill_shape(op):
    if op.inputs[0].shape.rank not in (None, 1):
        raise ValueError(f"Shape must be rank 1 but is rank {op.inputs[0].shape.rank}")
    if op.inputs[1].shape.rank not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {op.inputs[1].shape.rank}")
    dims = constant_value(op.inputs[0])
    if dims is not None and (np.asarray(dims) < 0).any():
        raise ValueError(f"Fill dimensions must be >= 0, got {np.asarray(dims).tolist()}")
    return [constant_value_as_shape(op.inputs[0])]


register_op(
    "Fill",
    inputs=["dims: index_type", "value: T"],
    outputs=["output: T"],
    attrs=["T: type", "index_type: {int32, int64} = int32"],
    shape_fn=_fill_shape,
)
register_op(
    "ZerosLike",
    inputs=["x: T"],
    outputs=["y: T"],
    attrs=["T: type"],
    shape_fn=common_shapes.unchanged,
)
register_op(
    "OnesLike",
    inputs=["x: T"],
    outputs=["y: T"],
    attrs=[
        "T: {bfloat16, half, float, double, int8, uint8, int16, uint16, int32, uint32, int64, "
        "uint64, complex64, complex128, bool}"
    ],
    shape_fn=common_shapes.unchanged,
)


@tf_export("fill")
def fill(dims, value, name=None):
    """A tensor of shape ``dims`` filled with the scalar ``value`` (``Fill``)."""
    return apply_op("Fill", name=name, dims=dims, value=value).outputs[0]


def _static_shape_list(shape):
    """``shape`` (list, tuple, TensorShape, ndarray) as a list of ints, or None if it holds
    Tensors or unknown dimensions."""
    if isinstance(shape, Tensor):
        return None
    try:
        s = tensor_shape.as_shape(shape)
    except (TypeError, ValueError):
        return None
    return s.as_list() if s.is_fully_defined() else None


def _filled(shape, dtype, value, name, default_name):
    """TF's zeros/ones: a ``Const`` when the shape is static with under 1000 elements, else
    ``Fill`` of a shape tensor and a scalar ``Const``."""
    dtype = dtypes.as_dtype(dtype).base_dtype
    with _scope(name, default_name) as scope:
        if not isinstance(shape, Tensor):
            static = _static_shape_list(shape)
            # TF's small-constant path fails on a bare int shape (``ones(3)``): it builds Fill.
            small = static is not None and np.prod(static) < 1000
            if small and not isinstance(shape, (int, np.integer)):
                return constant(value, dtype=dtype, shape=static, name=scope)
            if static is not None:
                shape = _shape_as_tensor(TensorShape(static))
            else:
                shape = convert_to_tensor(shape, dtype=dtypes.int32)
        if shape.shape.rank is None or shape.shape.rank == 0:
            shape = reshape(shape, [-1])
        return fill(shape, constant(value, dtype=dtype), name=scope)


def _zero_of(dtype):
    dtype = dtypes.as_dtype(dtype).base_dtype
    if dtype == dtypes.bool:
        return False
    if dtype == dtypes.string:
        return ""
    return 0


@tf_export("zeros")
def zeros(shape, dtype=dtypes.float32, name=None):
    """A tensor of zeros (``Const`` when small and static, ``Fill`` otherwise)."""
    return _filled(shape, dtype, _zero_of(dtype), name, "zeros")


@tf_export("ones")
def ones(shape, dtype=dtypes.float32, name=None):
    """A tensor of ones (``Const`` when small and static, ``Fill`` otherwise)."""
    one = True if dtypes.as_dtype(dtype).base_dtype == dtypes.bool else 1
    return _filled(shape, dtype, one, name, "ones")


def _array_like(make, like_op, tensor, dtype, scope, optimize=True):
    """TF's ``array_like_impl``: ``make`` (``zeros`` / ``ones``) of a static shape (a Const),
    of the run-time shape when ``dtype`` changes, else the ``like_op`` of ``tensor``."""
    if not isinstance(tensor, Tensor):
        tensor = convert_to_tensor(tensor, name="tensor")
    dtype = None if dtype is None else dtypes.as_dtype(dtype).base_dtype
    if optimize and tensor.shape.is_fully_defined() and tensor.dtype != dtypes.variant:
        return make(tensor.shape, dtype=dtype or tensor.dtype, name=scope)
    if dtype is not None and dtype != tensor.dtype.base_dtype:
        return make(shape_internal(tensor, optimize=optimize), dtype=dtype, name=scope)
    return apply_op(like_op, name=scope, x=tensor).outputs[0]


@tf_export("zeros_like")
def zeros_like(tensor, dtype=None, name=None, optimize=True):
    """Zeros shaped like ``tensor``: static shapes fold to ``zeros``; else ``ZerosLike`` (or
    ``Fill`` of its shape when ``dtype`` changes)."""
    with _scope(name, "zeros_like") as scope:
        return _array_like(zeros, "ZerosLike", tensor, dtype, scope, optimize)


@tf_export("ones_like")
def ones_like(tensor, dtype=None, name=None, optimize=True):
    """Ones shaped like ``tensor``: ``Fill`` of its shape (a Const when static)."""
    with _scope(name, "ones_like") as scope:
        tensor = convert_to_tensor(tensor, name="tensor")
        ones_shape = shape_internal(tensor, optimize=optimize)
        result = ones(ones_shape, dtype=dtype or tensor.dtype.base_dtype, name=scope)
        result.set_shape(tensor.shape)
        return result


def ones_like_v2(tensor, dtype=None, name=None):
    """TF2's ``tf.ones_like`` (what Keras layers call), built as ``zeros_like`` is: a Const
    for a static shape, else ``OnesLike``; TF1's ``ones_like`` always builds a ``Fill``."""
    with _scope(name, "ones_like") as scope:
        return _array_like(ones, "OnesLike", tensor, dtype, scope)


@RegisterGradient("Fill")
def _fill_grad(op, grad):
    from tfcompat.ops.reduction_ops import reduce_sum

    return None, reduce_sum(grad)


no_gradient("ZerosLike")
no_gradient("OnesLike")


# ---------------------------------------------------------------------------------------------
# Build-time values of array ops (TF's constant_value covers these)
# ---------------------------------------------------------------------------------------------
def _fold_fill(op, index):
    dims, value = constant_value(op.inputs[0]), constant_value(op.inputs[1])
    if dims is None or value is None:
        return None
    return np.full([int(d) for d in dims], value, dtype=op.attrs["T"].as_numpy_dtype)


def _fold_unpack(op, index):
    value = constant_value(op.inputs[0])
    return None if value is None else np.take(value, index, axis=op.attrs["axis"])


def _fold_reshape(op, index):
    value, shape_value = constant_value(op.inputs[0]), constant_value(op.inputs[1])
    if value is None or shape_value is None:
        return None
    return np.reshape(value, [int(d) for d in shape_value])


def _fold_expand_dims(op, index):
    value, axis = constant_value(op.inputs[0]), constant_value(op.inputs[1])
    return None if value is None or axis is None else np.expand_dims(value, int(axis))


CONSTANT_VALUE_FNS.update(
    {
        "Fill": _fold_fill,
        "Unpack": _fold_unpack,
        "Reshape": _fold_reshape,
        "ExpandDims": _fold_expand_dims,
    }
)


# ---------------------------------------------------------------------------------------------
# Re-exports: TF's array_ops also holds the slicing and gathering wrappers
# ---------------------------------------------------------------------------------------------
from tfcompat.ops import embedding_ops  # noqa: E402, F401 - registers tf.nn.embedding_lookup
from tfcompat.ops.gather_ops import (  # noqa: E402, F401
    boolean_mask,
    diag,
    gather,
    gather_nd,
    matrix_band_part,
    matrix_diag,
    matrix_diag_part,
    one_hot,
    scatter_nd,
    sequence_mask,
    tensor_diag_part,
    unique,
)
from tfcompat.ops.join_ops import (  # noqa: E402, F401
    concat,
    split,
    stack,
    unstack,
)
from tfcompat.ops.pad_ops import broadcast_to, pad, reverse, tile  # noqa: E402, F401
from tfcompat.ops.slicing_ops import slice, strided_slice  # noqa: E402, F401, A004
