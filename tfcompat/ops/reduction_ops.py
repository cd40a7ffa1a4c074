"""Reductions, arg-reductions, scans, ``AddN``, ``Einsum``, ``Range`` and ``LinSpace``, with
TF1's wrappers (``reduce_*`` with ``axis``/``keepdims`` and their deprecated spellings) and
the composites TF builds from them (``reduce_logsumexp``, ``norm``, ``count_nonzero``).

Composites that need array ops (``Rank``, ``Shape``, ``Reshape``, ``Squeeze``) create them
by op type, so only those OpDefs have to be registered.
"""

from __future__ import annotations

import builtins
import collections
import re
import weakref

import numpy as np

from tfcompat.framework import constant_value as constant_value_lib
from tfcompat.framework import dtypes, tensor_shape
from tfcompat.framework import graph as graph_lib
from tfcompat.framework.constant_op import constant
from tfcompat.framework.gradient_registry import RegisterGradient, no_gradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op, convert_to_tensor, op_outputs
from tfcompat.framework.tensor import Tensor
from tfcompat.ops import math_ops
from tfcompat.ops.math_ops import _scope
from tfcompat.util.tf_export import tf_export

_NUMBER = "numbertype"
_REAL_NUMBER = (
    "{float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64, "
    "qint8, quint8, qint32, qint16, quint16}"
)


# ---------------------------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------------------------
def _reduction_shape(op):
    """TF's ReductionShape: exact when the axes are constant and the rank known."""
    input_shape = op.inputs[0].shape
    indices_shape = op.inputs[1].shape
    if indices_shape.rank is not None and indices_shape.rank > 1:
        raise ValueError(f"Shape must be at most rank 1 but is rank {indices_shape.rank}")
    keep_dims = op.attrs["keep_dims"]
    axes = constant_value_lib.constant_value(op.inputs[1])
    if axes is None or input_shape.rank is None:
        if keep_dims and input_shape.rank is not None:
            return [tensor_shape.unknown_shape(rank=input_shape.rank)]
        return [tensor_shape.unknown_shape()]
    rank = input_shape.rank
    reduced = set()
    for axis in np.asarray(axes).reshape(-1):
        if not -rank <= axis < rank:
            raise ValueError(
                f"Invalid reduction dimension {axis} for input with {rank} dimensions."
            )
        reduced.add(int(axis) % rank)
    dims = []
    for i, dim in enumerate(input_shape.as_list()):
        if i in reduced:
            if keep_dims:
                dims.append(1)
        else:
            dims.append(dim)
    return [tensor_shape.TensorShape(dims)]


_REDUCTION_TYPES = {
    "Sum": _NUMBER,
    "Mean": _NUMBER,
    "Prod": _NUMBER,
    "EuclideanNorm": _NUMBER,
    "Max": _REAL_NUMBER,
    "Min": _REAL_NUMBER,
}
for _op_type, _types in _REDUCTION_TYPES.items():
    register_op(
        _op_type,
        inputs=["input: T", "reduction_indices: Tidx"],
        outputs=["output: T"],
        attrs=["keep_dims: bool = false", f"T: {_types}", "Tidx: {int32, int64} = int32"],
        shape_fn=_reduction_shape,
    )
for _op_type in ("All", "Any"):
    register_op(
        _op_type,
        inputs=["input: bool", "reduction_indices: Tidx"],
        outputs=["output: bool"],
        attrs=["keep_dims: bool = false", "Tidx: {int32, int64} = int32"],
        shape_fn=_reduction_shape,
    )


def _rank(x):
    """``tf.rank`` as TF builds it: a ``Const`` named ``Rank`` when the rank is static."""
    with _scope(None, "Rank", [x]) as name:
        x = convert_to_tensor(x)
        if x.shape.rank is not None:
            return constant(x.shape.rank, dtypes.int32, name=name)
        return apply_op("Rank", name=name, input=x).outputs[0]


def _reduction_dims(x, axis):
    """The axes TF passes when ``axis`` is None: all of them (a Const, or a Range over
    the rank where the rank is unknown or 0)."""
    if axis is not None:
        return axis
    rank = x.shape.rank if isinstance(x, Tensor) else None
    if rank:
        return constant(np.arange(rank, dtype=np.int32))
    return range(0, _rank(x))


def _reduce(op_type, input_tensor, axis, keepdims, name, dims=None):
    keepdims = False if keepdims is None else bool(keepdims)
    if dims is None:
        dims = _reduction_dims(input_tensor, axis)
    output = apply_op(
        op_type, name=name, input=input_tensor, reduction_indices=dims, keep_dims=keepdims
    ).outputs[0]
    # Reducing over every axis gives a scalar even where the rank is unknown.
    if not output.shape.is_fully_defined() and not keepdims and axis is None:
        output.set_shape(())
    return output


def _deprecated_lookup(new_name, new_value, old_name, old_value):
    if new_value is not None and old_value is not None:
        raise ValueError(f"Cannot specify both '{old_name}' and '{new_name}'.")
    return old_value if new_value is None else new_value


def _reduction_wrapper(op_type, api_name):
    def reduce(
        input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None
    ):
        axis = _deprecated_lookup("axis", axis, "reduction_indices", reduction_indices)
        keepdims = _deprecated_lookup("keepdims", keepdims, "keep_dims", keep_dims)
        return _reduce(op_type, input_tensor, axis, keepdims, name)

    reduce.__name__ = api_name
    reduce.__doc__ = (
        f"``{op_type}`` of ``input_tensor`` over ``axis`` (all axes when None); "
        "``keepdims`` keeps reduced axes with length 1."
    )
    return tf_export(api_name, f"math.{api_name}")(reduce)


reduce_sum = _reduction_wrapper("Sum", "reduce_sum")
reduce_mean = _reduction_wrapper("Mean", "reduce_mean")
reduce_prod = _reduction_wrapper("Prod", "reduce_prod")
reduce_max = _reduction_wrapper("Max", "reduce_max")
reduce_min = _reduction_wrapper("Min", "reduce_min")
reduce_all = _reduction_wrapper("All", "reduce_all")


@tf_export("math.reduce_euclidean_norm")
def reduce_euclidean_norm(input_tensor, axis=None, keepdims=False, name=None):
    """sqrt(sum(x * conj(x))) over ``axis`` (all axes when None)."""
    return _reduce("EuclideanNorm", input_tensor, axis, keepdims, name)


reduce_any = _reduction_wrapper("Any", "reduce_any")


@tf_export("reduce_logsumexp", "math.reduce_logsumexp")
def reduce_logsumexp(
    input_tensor, axis=None, keepdims=None, name=None, reduction_indices=None, keep_dims=None
):
    """``log(sum(exp(x)))`` computed stably around the (finite) maximum, as TF builds it."""
    axis = _deprecated_lookup("axis", axis, "reduction_indices", reduction_indices)
    keepdims = _deprecated_lookup("keepdims", keepdims, "keep_dims", keep_dims)
    keepdims = bool(keepdims)
    with _scope(name, "ReduceLogSumExp", [input_tensor]) as name:
        raw_max = reduce_max(input_tensor, axis=axis, keepdims=True)
        finite_max = apply_op(
            "SelectV2", condition=math_ops.is_finite(raw_max), t=raw_max, e=0
        ).outputs[0]
        my_max = apply_op("StopGradient", input=finite_max).outputs[0]
        shifted = math_ops.exp(math_ops.subtract(input_tensor, my_max))
        result = math_ops.log(reduce_sum(shifted, axis=axis, keepdims=keepdims))
        if not keepdims:
            shape = apply_op("Shape", input=result).outputs[0]
            my_max = apply_op("Reshape", tensor=my_max, shape=shape).outputs[0]
        result = math_ops.add(result, my_max, name=name)
        if not result.shape.is_fully_defined() and not keepdims and axis is None:
            result.set_shape(())
        return result


@tf_export("count_nonzero", "math.count_nonzero")
def count_nonzero(
    input_tensor=None,
    axis=None,
    keepdims=None,
    dtype=dtypes.int64,
    name=None,
    reduction_indices=None,
    keep_dims=None,
    input=None,
):  # noqa: A002
    """The number of non-zero (true) elements over ``axis``, as ``dtype``."""
    keepdims = _deprecated_lookup("keepdims", keepdims, "keep_dims", keep_dims)
    input_tensor = _deprecated_lookup("input", input, "input_tensor", input_tensor)
    axis = _deprecated_lookup("axis", axis, "reduction_indices", reduction_indices)
    with _scope(name, "count_nonzero", [input_tensor]):
        input_tensor = convert_to_tensor(input_tensor, name="input")
        if input_tensor.dtype == dtypes.bool:
            predicate = input_tensor
        else:
            zero = constant(np.zeros((), input_tensor.dtype.as_numpy_dtype), name="zeros")
            predicate = math_ops.not_equal(input_tensor, zero)
        counts = math_ops.cast(predicate, dtypes.int64)
        return math_ops.cast(reduce_sum(counts, axis=axis, keepdims=bool(keepdims)), dtype=dtype)


def _squeeze(x, axis):
    return apply_op("Squeeze", input=x, squeeze_dims=list(axis or [])).outputs[0]


@tf_export("norm", "linalg.norm")
def norm(tensor, ord="euclidean", axis=None, keepdims=None, name=None, keep_dims=None):  # noqa: A002
    """Vector norms (``'euclidean'``, 1, 2, ``np.inf``, any p > 0) over ``axis`` or all
    elements, and matrix norms (``'fro'``, 1, 2, ``np.inf``) over a pair of axes."""
    keepdims = bool(_deprecated_lookup("keepdims", keepdims, "keep_dims", keep_dims))
    is_matrix_norm = isinstance(axis, (tuple, list)) and len(axis) == 2
    if is_matrix_norm:
        axis = tuple(axis)
        if not isinstance(axis[0], int) or not isinstance(axis[1], int) or axis[0] == axis[1]:
            raise ValueError(
                f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}"
            )
        supported = ["euclidean", "fro", 1, 2, np.inf]
        if ord not in supported:
            raise ValueError(f"'ord' must be a supported matrix norm in {supported}, got {ord}")
    else:
        if not (isinstance(axis, int) or axis is None):
            raise ValueError(
                f"'axis' must be None, an integer, or a tuple of 2 unique integers, got {axis}"
            )
        supported = ["euclidean", 1, 2, np.inf]
        if (not np.isreal(ord) or ord <= 0) and ord not in supported:
            raise ValueError(f"'ord' must be a supported vector norm, got {ord}")
        if axis is not None:
            axis = (axis,)
    with _scope(name, "norm", [tensor]):
        tensor = convert_to_tensor(tensor)
        if is_matrix_norm and ord in (2, 2.0):
            result = _matrix_2_norm(tensor, axis)
        elif ord in ["fro", "euclidean", 2, 2.0]:
            from tfcompat.ops import unary_math_ops

            squares = tensor * unary_math_ops.conj(tensor)  # no Conj op for real types
            result = math_ops.sqrt(reduce_sum(squares, axis, keepdims=True))
        else:
            result = math_ops.abs(tensor)
            if ord == 1:
                result = reduce_sum(result, None if axis is None else axis[0], keepdims=True)
                if is_matrix_norm:
                    result = reduce_max(result, axis[-1], keepdims=True)
            elif ord == np.inf:
                if is_matrix_norm:
                    result = reduce_sum(result, axis[1], keepdims=True)
                result = reduce_max(result, None if axis is None else axis[0], keepdims=True)
            else:
                powered = reduce_sum(math_ops.pow(result, ord), axis, keepdims=True)
                result = math_ops.pow(powered, 1.0 / ord)
        if not keepdims:
            result = _squeeze(result, axis)
        return result


def _matrix_2_norm(tensor, axis):
    """The largest singular value over the two ``axis`` dimensions, kept as size-1 dims:
    the matrix axes moved last, ``Svd`` without vectors, the maximum of their absolute
    values, moved back (TF's ops). TF computes the two permutations in the graph with
    ``map_fn`` loops even when the rank is known; here they are constants (the same values),
    since XLA needs a transpose's permutation when it compiles."""
    from tfcompat.ops import array_ops, unary_math_ops

    rank = tensor.shape.rank
    if rank is None:
        raise NotImplementedError("the matrix 2-norm needs a tensor of known rank")
    positive_axis = [a if a >= 0 else a + rank for a in axis]
    perm_before = [a for a in builtins.range(rank) if a not in positive_axis] + positive_axis
    perm_after = [perm_before.index(a) for a in builtins.range(rank)]
    permed = array_ops.transpose(tensor, perm=perm_before)
    singular = apply_op("Svd", input=permed, compute_uv=False).outputs[0]
    largest = reduce_max(unary_math_ops.abs(singular), axis=-1, keepdims=True)
    return array_ops.transpose(array_ops.expand_dims(largest, axis=-1), perm=perm_after)


# ---------------------------------------------------------------------------------------------
# Index ops the reduction gradients build: DynamicStitch (reduced shapes of dynamic shapes),
# ListDiff and InvertPermutation (Prod's gradient). Their outputs are index-valued.
# ---------------------------------------------------------------------------------------------
def _dynamic_stitch_shape(op):
    n = op.attrs["N"]
    data = op.inputs[n:]
    extra = tensor_shape.unknown_shape()
    for index, value in zip(op.inputs[:n], data):
        if index.shape.rank is not None and value.shape.rank is not None:
            extra = extra.merge_with(value.shape[index.shape.rank :])
    # With every index known, the first dimension is the largest index plus one (as TF).
    known = [constant_value_lib.constant_value(index) for index in op.inputs[:n]]
    rows = None
    if all(k is not None for k in known):
        rows = 1 + max((int(np.max(k)) for k in known if np.size(k)), default=-1)
    return [tensor_shape.TensorShape([rows]).concatenate(extra)]


register_op(
    "DynamicStitch",
    inputs=["indices: N * int32", "data: N * T"],
    outputs=["merged: T"],
    attrs=["N: int >= 1", "T: type"],
    shape_fn=_dynamic_stitch_shape,
)
register_op(
    "ListDiff",
    inputs=["x: T", "y: T"],
    outputs=["out: T", "idx: out_idx"],
    attrs=["T: type", "out_idx: {int32, int64} = int32"],
    shape_fn=lambda op: [tensor_shape.TensorShape([None])] * 2,
)
register_op(
    "InvertPermutation",
    inputs=["x: T"],
    outputs=["y: T"],
    attrs=["T: {int32, int64} = int32"],
    shape_fn=lambda op: [op.inputs[0].shape.with_rank(1)],
)
for _op_type in ("ListDiff", "InvertPermutation"):
    no_gradient(_op_type)
# DynamicStitch's gradient (a Gather per data input) is shared with ParallelDynamicStitch's
# in embedding_ops.


def reduced_shape(input_shape, axes):
    """The shape a reduction over ``axes`` keeps (reduced axes as 1): numpy when both are
    known, else the ops TF builds (a DynamicStitch of the shape and ones)."""
    shape_value = _maybe_constant(input_shape)
    if shape_value is not None:
        axes_value = _maybe_constant(axes)
        if axes_value is not None:
            out = np.array(shape_value, dtype=np.int32)
            out[np.array(axes_value, dtype=np.int32)] = 1
            return out
    from tfcompat.ops import array_ops

    axes = convert_to_tensor(axes)
    input_rank = array_ops.size(input_shape, out_type=axes.dtype)
    axes = (axes + input_rank) % input_rank
    axes_shape = array_ops.shape(axes)
    ones = array_ops.ones(axes_shape, dtype=input_shape.dtype)
    return apply_op(
        "DynamicStitch", indices=[range(input_rank), axes], data=[input_shape, ones]
    ).outputs[0]


def _maybe_constant(value):
    if isinstance(value, Tensor):
        return constant_value_lib.constant_value(value)
    return value


# ---------------------------------------------------------------------------------------------
# Gradients of the reductions (TF's formulas and ops)
# ---------------------------------------------------------------------------------------------
_REDUCED_SHAPE_CACHE: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def _static_reduced_shape_and_tiling(graph, input_shape, axes):
    """(kept-dims shape, tile multiples) for a static shape, cached per graph as TF caches
    them; the first time, TF's ops computing them are added to the graph as TF adds them."""
    cache = _REDUCED_SHAPE_CACHE.setdefault(graph, {})
    key = (input_shape, axes)
    if key not in cache:
        kept = reduced_shape(input_shape, axes)
        # TF evaluates ``input_shape // maximum(kept, 1)`` as graph ops, then folds them.
        _ = input_shape // math_ops.maximum(kept, 1)
        tiling = np.array(input_shape) // np.maximum(kept, 1)
        cache[key] = (tuple(int(d) for d in kept), tuple(int(d) for d in tiling))
    return cache[key]


def _shape_tuple(tensor):
    shape = tensor.shape
    return None if shape.rank is None else tuple(shape.as_list())


@RegisterGradient("Sum")
def _sum_grad(op, grad):
    """Reshape the gradient to the kept-dims shape, then tile (or broadcast) it back."""
    from tfcompat.ops import array_ops

    input_shape_tuple = _shape_tuple(op.inputs[0])
    if input_shape_tuple is not None:
        axes = constant_value_lib.constant_value(op.inputs[1])
        if axes is not None:
            rank = len(input_shape_tuple)
            if np.array_equal(axes, np.arange(rank)):  # every axis reduced
                grad = array_ops.reshape(grad, [1] * rank)
                if None not in input_shape_tuple:
                    input_shape = constant(input_shape_tuple, dtype=dtypes.int32)
                else:
                    input_shape = array_ops.shape(op.inputs[0])
                return [array_ops.tile(grad, input_shape), None]
            if None not in input_shape_tuple:
                axes = tuple(np.asarray(axes).reshape(-1).tolist())
                kept, tiling = _static_reduced_shape_and_tiling(op.graph, input_shape_tuple, axes)
                grad = array_ops.reshape(grad, kept)
                return [array_ops.tile(grad, tiling), None]
    input_shape = array_ops.shape(op.inputs[0])
    if not op.attrs["keep_dims"]:
        with op.graph.colocate_with(input_shape.op):
            kept = reduced_shape(input_shape, op.inputs[1])
        grad = array_ops.reshape(grad, kept)
    return [array_ops.broadcast_to(grad, input_shape), None]


@RegisterGradient("Mean")
def _mean_grad(op, grad):
    """Sum's gradient divided by the number of elements averaged."""
    from tfcompat.ops import array_ops

    sum_grad = _sum_grad(op, grad)[0]
    input_shape = _shape_tuple(op.inputs[0])
    output_shape = _shape_tuple(op.outputs[0])
    if (
        input_shape is not None
        and output_shape is not None
        and None not in input_shape
        and None not in output_shape
    ):
        factor = int(np.prod(input_shape)) // max(int(np.prod(output_shape)), 1)
        factor = constant(factor, dtype=sum_grad.dtype)
    else:
        input_shape = array_ops.shape(op.inputs[0])
        input_rank = array_ops.size(input_shape)
        axes = math_ops.cast(op.inputs[1], input_rank.dtype)
        axes = (axes + input_rank) % input_rank
        factor = reduce_prod(array_ops.gather(input_shape, axes))
    return math_ops.truediv(sum_grad, math_ops.cast(factor, sum_grad.dtype)), None


def _min_or_max_grad(op, grad):
    """The gradient goes to the elements equal to the extremum, split evenly among ties."""
    from tfcompat.ops import array_ops

    input_shape = array_ops.shape(op.inputs[0])
    y = op.outputs[0]
    if not op.attrs["keep_dims"]:
        kept = reduced_shape(input_shape, op.inputs[1])
        y = array_ops.reshape(y, kept)
        grad = array_ops.reshape(grad, kept)
    else:
        kept = array_ops.shape(y)
    indicators = math_ops.cast(math_ops.equal(y, op.inputs[0]), grad.dtype)
    num_selected = array_ops.reshape(reduce_sum(indicators, op.inputs[1]), kept)
    return [math_ops.divide(indicators, num_selected) * grad, None]


RegisterGradient("Max")(_min_or_max_grad)
RegisterGradient("Min")(_min_or_max_grad)


@RegisterGradient("Prod")
def _prod_grad(op, grad):
    """Products of everything before and after each element (two exclusive cumprods over
    the reduced axes, moved to the front), so zeros in the input need no division."""
    from tfcompat.ops import array_ops

    x = op.inputs[0]
    input_shape = array_ops.shape(x)
    reduction_indices = array_ops.reshape(op.inputs[1], [-1])
    if not op.attrs["keep_dims"]:
        grad = array_ops.reshape(grad, reduced_shape(input_shape, op.inputs[1]))
    grad = array_ops.broadcast_to(grad, input_shape)
    rank = array_ops.rank(x)
    reduction_indices = math_ops.cast(reduction_indices, rank.dtype)
    reduced = (reduction_indices + rank) % rank
    other, _ = list_diff(range(0, rank), reduced, reduced.dtype)
    perm = array_ops.concat([reduced, other], 0)
    reduced_num = reduce_prod(array_ops.gather(input_shape, reduced))
    other_num = reduce_prod(array_ops.gather(input_shape, other))
    permuted = array_ops.transpose(x, perm)
    permuted_shape = array_ops.shape(permuted)
    reshaped = array_ops.reshape(permuted, (reduced_num, other_num))
    left = cumprod(reshaped, axis=0, exclusive=True)
    right = cumprod(reshaped, axis=0, exclusive=True, reverse=True)
    y = array_ops.reshape(math_ops.conj(left) * math_ops.conj(right), permuted_shape)
    out = grad * array_ops.transpose(y, invert_permutation(perm))
    return array_ops.reshape(out, input_shape), None


def list_diff(x, y, out_idx=dtypes.int32, name=None):
    """Values of ``x`` not in ``y``, in order, and their indices in ``x``."""
    return op_outputs(apply_op("ListDiff", name=name, x=x, y=y, out_idx=out_idx))


@tf_export("invert_permutation", "math.invert_permutation")
def invert_permutation(x, name=None):
    """The inverse permutation of the 1-D ``x`` (``y[x[i]] = i``); an entry out of range
    or repeated raises InvalidArgumentError when run."""
    return apply_op("InvertPermutation", name=name, x=x).outputs[0]


# Bool reductions never carry a gradient.
for _op_type in ("All", "Any"):
    no_gradient(_op_type)


# ---------------------------------------------------------------------------------------------
# Arg-reductions and scans
# ---------------------------------------------------------------------------------------------
def _arg_shape(op):
    input_shape = op.inputs[0].shape
    dimension_shape = op.inputs[1].shape
    if dimension_shape.rank not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {dimension_shape.rank}")
    if input_shape.rank is None:
        return [tensor_shape.unknown_shape()]
    rank = input_shape.rank
    dimension = constant_value_lib.constant_value(op.inputs[1])
    if dimension is None:
        return [tensor_shape.unknown_shape(rank=max(rank - 1, 0))]
    axis = int(dimension)
    if not -rank <= axis < rank:
        raise ValueError(f"Expected dimension in the range [{-rank}, {rank}), but got {axis}")
    dims = input_shape.as_list()
    del dims[axis % rank]
    return [tensor_shape.TensorShape(dims)]


_ARG_T = (
    "{float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, uint64, "
    "qint8, quint8, qint32, qint16, quint16, bool}"
)
register_op(
    "ArgMax",
    inputs=["input: T", "dimension: Tidx"],
    outputs=["output: output_type"],
    attrs=[
        f"T: {_ARG_T}",
        "Tidx: {int16, int32, int64} = int32",
        "output_type: {int16, uint16, int32, int64} = int64",
    ],
    shape_fn=_arg_shape,
)
register_op(
    "ArgMin",
    inputs=["input: T", "dimension: Tidx"],
    outputs=["output: output_type"],
    attrs=[f"T: {_ARG_T}", "Tidx: {int32, int64} = int32", "output_type: {int32, int64} = int64"],
    shape_fn=_arg_shape,
)


def _arg_wrapper(op_type, api_name):
    def arg_reduce(input, axis=None, name=None, dimension=None, output_type=dtypes.int64):  # noqa: A002
        axis = _deprecated_lookup("axis", axis, "dimension", dimension)
        if axis is None:
            axis = 0
        if hasattr(axis, "dtype"):
            if axis.dtype not in (
                dtypes.int8,
                dtypes.uint8,
                dtypes.int16,
                dtypes.uint16,
                dtypes.int32,
                dtypes.int64,
            ):
                raise TypeError(f"axis tensor dtypes {axis.dtype} is not supported")
            if axis.dtype in (dtypes.int8, dtypes.int16, dtypes.uint8, dtypes.uint16):
                axis = math_ops.cast(axis, dtypes.int32)
        elif not isinstance(axis, (int, np.integer)):
            raise TypeError("axis must be int or Tensor with integer datatype")
        return apply_op(
            op_type, name=name, input=input, dimension=axis, output_type=output_type
        ).outputs[0]

    arg_reduce.__name__ = api_name
    arg_reduce.__doc__ = f"Index of the {api_name[3:]}imum along ``axis`` (``{op_type}``)."
    return tf_export(api_name, f"math.{api_name}")(arg_reduce)


argmax = _arg_wrapper("ArgMax", "argmax")
argmin = _arg_wrapper("ArgMin", "argmin")


@RegisterGradient("ArgMax")
@RegisterGradient("ArgMin")
def _arg_grad(op, grad):
    return [None, None]  # index-valued: registered (as TF does) with no gradient


def _axis_scalar_shape(op):
    axis_shape = op.inputs[1].shape
    if axis_shape.rank not in (None, 0):
        raise ValueError(f"Shape must be rank 0 but is rank {axis_shape.rank}")
    return [op.inputs[0].shape]


for _op_type in ("Cumsum", "Cumprod"):
    register_op(
        _op_type,
        inputs=["x: T", "axis: Tidx"],
        outputs=["out: T"],
        attrs=[
            "exclusive: bool = false",
            "reverse: bool = false",
            f"T: {_NUMBER}",
            "Tidx: {int32, int64} = int32",
        ],
        shape_fn=_axis_scalar_shape,
    )


def _scan_wrapper(op_type, scope_name, *names):
    def scan(x, axis=0, exclusive=False, reverse=False, name=None):
        with _scope(name, scope_name, [x]) as name:
            x = convert_to_tensor(x, name="x")
            return apply_op(
                op_type, name=name, x=x, axis=axis, exclusive=exclusive, reverse=reverse
            ).outputs[0]

    scan.__name__ = names[0]
    scan.__doc__ = (
        f"Running {'sum' if op_type == 'Cumsum' else 'product'} along ``axis``; "
        "``exclusive`` leaves out the current element, ``reverse`` runs from the end."
    )
    return tf_export(*names)(scan)


register_op(
    "CumulativeLogsumexp",
    inputs=["x: T", "axis: Tidx"],
    outputs=["out: T"],
    attrs=[
        "exclusive: bool = false",
        "reverse: bool = false",
        "T: {bfloat16, half, float, double}",
        "Tidx: {int32, int64} = int32",
    ],
    shape_fn=_axis_scalar_shape,
)
cumsum = _scan_wrapper("Cumsum", "Cumsum", "cumsum", "math.cumsum")
cumulative_logsumexp = _scan_wrapper(
    "CumulativeLogsumexp",
    "CumulativeLogsumexp",
    "cumulative_logsumexp",
    "math.cumulative_logsumexp",
)
cumprod = _scan_wrapper("Cumprod", "Cumprod", "cumprod", "math.cumprod")


@RegisterGradient("Cumsum")
def _cumsum_grad(op, grad):
    """A cumulative sum of the gradient in the opposite direction."""
    exclusive, reverse = op.attrs["exclusive"], op.attrs["reverse"]
    return [cumsum(grad, op.inputs[1], exclusive=exclusive, reverse=not reverse), None]


@RegisterGradient("Cumprod")
def _cumprod_grad(op, grad):
    """``reverse cumsum(cumprod(x) * grad) / x`` (0 where x is 0, via DivNoNan)."""
    x, axis = op.inputs
    exclusive, reverse = op.attrs["exclusive"], op.attrs["reverse"]
    prod = cumprod(x, axis, exclusive=exclusive, reverse=reverse)
    out = cumsum(prod * grad, axis, exclusive=exclusive, reverse=not reverse)
    return [math_ops.div_no_nan(out, x), None]


# ---------------------------------------------------------------------------------------------
# AddN and Einsum
# ---------------------------------------------------------------------------------------------
def _add_n_shape(op):
    shape = tensor_shape.unknown_shape()
    for t in op.inputs:
        other = t.shape
        if shape.rank is not None and other.rank is not None and shape.rank != other.rank:
            raise ValueError(
                f"Shapes must be equal rank, but are {other.rank} and {shape.rank}\n\tFrom "
                "merging shape 0 with other shapes."
            )
        shape = shape.merge_with(other)
    return [shape]


register_op(
    "AddN",
    inputs=["inputs: N * T"],
    outputs=["sum: T"],
    attrs=[
        "N: int >= 1",
        "T: {float, double, int32, uint8, int16, int8, complex64, int64, qint8, quint8, "
        "qint32, bfloat16, qint16, quint16, uint16, complex128, half, uint32, uint64, "
        "variant}",
    ],
    shape_fn=_add_n_shape,
    is_commutative=True,
)


@tf_export("add_n", "math.add_n")
def add_n(inputs, name=None):
    """Elementwise sum of a list of same-shaped tensors."""
    if not inputs or not isinstance(inputs, collections.abc.Iterable):
        raise ValueError(
            "Inputs must be an iterable of at least one Tensor/IndexedSlices with the same "
            "dtype and shape."
        )
    inputs = [convert_to_tensor(x) for x in inputs]
    if len(inputs) == 1:
        if name:
            return apply_op("Identity", name=name, input=inputs[0]).outputs[0]
        return inputs[0]
    return apply_op("AddN", name=name, inputs=inputs).outputs[0]


@RegisterGradient("AddN")
def _add_n_grad(op, grad):
    return [grad] * len(op.inputs)  # no broadcasting: every input gets the gradient


def _parse_einsum(equation, num_inputs):
    """(input label strings, output labels) of an explicit equation; '.' marks ellipsis."""
    inputs_part, output = equation.split("->")
    labels = inputs_part.split(",")
    if len(labels) != num_inputs:
        raise ValueError(
            f"Expecting {len(labels)} inputs but got {num_inputs} for equation {equation}"
        )
    return [s.replace("...", ".") for s in labels], output.replace("...", ".")


def _einsum_shape(op):
    equation = op.attrs["equation"].decode()
    labels, output = _parse_einsum(equation, len(op.inputs))
    label_dims = {}
    batch = tensor_shape.scalar()
    for subscripts, t in zip(labels, op.inputs):
        shape = t.shape
        if shape.rank is None:
            return [tensor_shape.unknown_shape()]
        named = subscripts.replace(".", "")
        if "." in subscripts:
            if shape.rank < len(named):
                raise ValueError(
                    f"Expected input to have rank at least {len(named)} but got: {shape.rank}"
                )
            start = subscripts.index(".")
            n_batch = shape.rank - len(named)
            dims = shape.as_list()
            batch = _broadcast_batch(batch, dims[start : start + n_batch])
            dims = dims[:start] + dims[start + n_batch :]
        else:
            if shape.rank != len(named):
                raise ValueError(
                    f"Expected input {t.name} to have rank {len(named)} but got: {shape.rank}"
                )
            dims = shape.as_list()
        for label, dim in zip(named, dims):
            known = label_dims.get(label)
            if known is not None and dim is not None and known != dim and 1 not in (known, dim):
                raise ValueError(
                    f"Expected dimension {known} at axis of the input shaped {shape} but got "
                    f"dimension {dim}"
                )
            if known is None or known == 1:
                label_dims[label] = dim
    out = []
    for label in output:
        if label == ".":
            out.extend(batch.as_list() if batch.rank is not None else [])
        else:
            out.append(label_dims.get(label))
    if "." in output and batch.rank is None:
        return [tensor_shape.unknown_shape()]
    return [tensor_shape.TensorShape(out)]


def _broadcast_batch(a, dims):
    from tfcompat.framework import common_shapes

    return common_shapes.broadcast(a, tensor_shape.TensorShape(dims))


register_op(
    "Einsum",
    inputs=["inputs: N * T"],
    outputs=["output: T"],
    attrs=["equation: string", "N: int >= 1", "T: type"],
    shape_fn=_einsum_shape,
)


def _resolve_einsum_equation(equation, num_inputs):
    """Removes spaces, checks the labels and makes an implicit output explicit (the labels
    used once, in alphabetical order), as TF does before building the op."""
    resolved = equation.replace(" ", "")
    ellipsis_label = "0" if "..." in equation else None
    if ellipsis_label:
        resolved = resolved.replace("...", ellipsis_label)
    allowed = "a-zA-Z" + (ellipsis_label or "")
    match = re.match(f"^([{allowed},]*)(->[{allowed}]*)?$", resolved)
    if not match:
        raise ValueError(f"Subscripts have incorrect format: {resolved}")
    input_labels = match.group(1).split(",")
    output_labels = match.group(2)[2:] if match.group(2) else None
    if num_inputs != len(input_labels):
        raise ValueError(
            f'Got {num_inputs} inputs for equation "{equation}", expecting {len(input_labels)}'
        )
    if "->" not in resolved:
        counts = collections.Counter(match.group(1))
        output_labels = "".join(x for x in sorted(counts) if x != "," and counts[x] == 1)
        resolved += "->" + output_labels
    if output_labels and len(set(output_labels)) != len(output_labels):
        raise ValueError(f"Output subscripts contain a label appearing more than once: {equation}")
    for label in output_labels:
        if label != ellipsis_label and label not in set(match.group(1)):
            raise ValueError(
                f"Output subscripts contain the label {label} not present in the input subscripts."
            )
    if ellipsis_label:
        resolved = resolved.replace(ellipsis_label, "...")
    return resolved


@tf_export("einsum", "linalg.einsum")
def einsum(equation, *inputs, **kwargs):
    """Einstein summation; with more than two operands the contractions are done pairwise
    in opt_einsum's greedy order (one ``Einsum`` op per pair)."""
    name = kwargs.pop("name", None)
    optimize = kwargs.pop("optimize", "greedy")
    if kwargs:
        raise TypeError(
            f"Invalid keyword arguments for einsum: {', '.join(kwargs)}. Valid arguments: "
            "name, optimize, greedy."
        )
    with _scope(name, "einsum", [equation, inputs]):
        inputs = list(inputs)
        resolved = _resolve_einsum_equation(equation, len(inputs))
        if len(inputs) <= 2:
            return apply_op("Einsum", inputs=inputs, equation=resolved).outputs[0]
        return _einsum_pairwise(resolved, inputs, optimize)


def _einsum_pairwise(equation, inputs, optimize):
    import opt_einsum

    if "..." in equation:
        raise NotImplementedError("einsum with an ellipsis and more than two operands")
    inputs = [convert_to_tensor(x) for x in inputs]
    shapes = []
    for t in inputs:
        if not t.shape.is_fully_defined():
            raise NotImplementedError("einsum of more than two operands needs static shapes")
        shapes.append(tuple(t.shape.as_list()))
    _, info = opt_einsum.contract_path(equation, *shapes, shapes=True, optimize=optimize)
    for operand_indices, _, binary_equation, _, _ in info.contraction_list:
        operands = [inputs.pop(i) for i in operand_indices]
        inputs.append(apply_op("Einsum", inputs=operands, equation=binary_equation).outputs[0])
    return inputs[0]


# ---------------------------------------------------------------------------------------------
# Range and LinSpace
# ---------------------------------------------------------------------------------------------
def _range_size(start, limit, delta):
    if delta == 0:
        raise ValueError("Requires delta != 0")
    if (delta > 0 and start > limit) or (delta < 0 and start < limit):
        relation, sign = ("<=", ">") if delta > 0 else (">=", "<")
        raise ValueError(f"Requires start {relation} limit when delta {sign} 0: {start}/{limit}")
    if all(isinstance(v, (int, np.integer)) for v in (start, limit, delta)):
        return (abs(int(limit) - int(start)) + abs(int(delta)) - 1) // abs(int(delta))
    return int(np.ceil(abs((limit - start) / delta)))


def _range_shape(op):
    for t in op.inputs:
        if t.shape.rank not in (None, 0):
            raise ValueError(f"Shape must be rank 0 but is rank {t.shape.rank}")
    # What shape inference knows: integer arithmetic on constants too (tf.sparse.eye's
    # range(min(rows, columns)) has TF's static length).
    values = [constant_value_lib.inferred_value(t) for t in op.inputs]
    if any(v is None for v in values):
        return [tensor_shape.TensorShape([None])]
    start, limit, delta = (np.asarray(v).item() for v in values)
    return [tensor_shape.TensorShape([_range_size(start, limit, delta)])]


register_op(
    "Range",
    inputs=["start: Tidx", "limit: Tidx", "delta: Tidx"],
    outputs=["output: Tidx"],
    attrs=[
        "Tidx: {bfloat16, half, float, double, int8, int16, int32, int64, uint16, uint32, "
        "uint64} = int32"
    ],
    shape_fn=_range_shape,
)


def _range_constant_value(op, index):
    values = [constant_value_lib.constant_value(t) for t in op.inputs]
    if any(v is None for v in values):
        return None
    start, limit, delta = (np.asarray(v).item() for v in values)
    size = _range_size(start, limit, delta)
    dtype = op.attrs["Tidx"].as_numpy_dtype
    return (start + np.arange(size) * delta).astype(dtype)


constant_value_lib.CONSTANT_VALUE_FNS["Range"] = _range_constant_value
no_gradient("Range")

# tf.range infers the widest of its arguments' types in this order.
_RANGE_DTYPE_HIERARCHY = [
    dtypes.int32,
    dtypes.int64,
    dtypes.float16,
    dtypes.bfloat16,
    dtypes.float32,
    dtypes.float64,
]


@tf_export("range")
def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001
    """``[start, start + delta, ...)`` up to ``limit``; ``range(n)`` counts from 0."""
    if limit is None:
        start, limit = 0, start
    with _scope(name, "Range", [start, limit, delta]) as name:
        args = {"start": start, "limit": limit, "delta": delta}
        for key, value in args.items():
            if not isinstance(value, Tensor):
                args[key] = convert_to_tensor(value, dtype=dtype, name=key)
        if dtype is None:
            for t in args.values():
                if t.dtype.base_dtype not in _RANGE_DTYPE_HIERARCHY:
                    raise TypeError(f"Unsupported dtype {t.dtype.name} for tf.range")
            dtype = max(
                (t.dtype.base_dtype for t in args.values()), key=_RANGE_DTYPE_HIERARCHY.index
            )
        args = {k: math_ops.cast(v, dtype) for k, v in args.items()}
        return apply_op("Range", name=name, **args).outputs[0]


def _lin_space_shape(op):
    for t in op.inputs:
        if t.shape.rank not in (None, 0):
            raise ValueError(f"Shape must be rank 0 but is rank {t.shape.rank}")
    num = constant_value_lib.constant_value(op.inputs[2])
    if num is None:
        return [tensor_shape.TensorShape([None])]
    if int(num) <= 0:
        raise ValueError(f"Requires num > 0: {int(num)}")
    return [tensor_shape.TensorShape([int(num)])]


register_op(
    "LinSpace",
    inputs=["start: T", "stop: T", "num: Tidx"],
    outputs=["output: T"],
    attrs=["T: {bfloat16, half, float, double}", "Tidx: {int32, int64} = int32"],
    shape_fn=_lin_space_shape,
)


@tf_export("lin_space", "linspace")
def lin_space(start, stop, num, name=None, axis=0):
    """``num`` evenly spaced values from ``start`` to ``stop`` inclusive (``LinSpace``).

    TF 2.21 builds this from about thirty array ops to support N-d ``start``/``stop``; here
    scalar endpoints give the single ``LinSpace`` op, with the same values and shape."""
    if axis != 0:
        raise NotImplementedError("linspace(axis=...) is not supported")
    with _scope(name, "LinSpace", [start, stop]) as name:
        start = convert_to_tensor(start, name="start")
        stop = convert_to_tensor(stop, name="stop", dtype=start.dtype)
        if start.shape.rank != 0 or stop.shape.rank != 0:
            raise NotImplementedError("linspace of non-scalar start/stop is not supported")
        return apply_op("LinSpace", name=name, start=start, stop=stop, num=num).outputs[0]


no_gradient("LinSpace")


@tf_export("math.reduce_variance")
def reduce_variance(input_tensor, axis=None, keepdims=False, name=None):
    """The mean squared deviation from the mean over ``axis`` (TF's graph: ``Mean``,
    ``sub``, ``Square``, ``Mean`` under ``reduce_variance``); integers are rejected."""
    graph = graph_lib.get_default_graph()
    with graph.name_scope(name or "reduce_variance"):
        input_tensor = convert_to_tensor(input_tensor)
        means = reduce_mean(input_tensor, axis=axis, keepdims=True)
        if means.dtype.is_integer:
            raise TypeError(
                f"Input must be either real or complex. Received integer type {means.dtype}."
            )
        squared = math_ops.square(input_tensor - means)
        return reduce_mean(squared, axis=axis, keepdims=keepdims)


@tf_export("math.reduce_std")
def reduce_std(input_tensor, axis=None, keepdims=False, name=None):
    """The standard deviation over ``axis``: ``sqrt(reduce_variance(...))``."""
    graph = graph_lib.get_default_graph()
    with graph.name_scope(name or "reduce_std"):
        input_tensor = convert_to_tensor(input_tensor)
        return math_ops.sqrt(reduce_variance(input_tensor, axis=axis, keepdims=keepdims))


@RegisterGradient("EuclideanNorm")
def _euclidean_norm_grad(op, grad):
    """x / (norm / grad), with the reduced axes kept so that the two broadcast."""
    from tfcompat.ops import array_ops, math_ops

    output = op.outputs[0]
    if not op.attrs["keep_dims"]:
        kept = reduced_shape(array_ops.shape(op.inputs[0]), op.inputs[1])
        output = array_ops.reshape(output, kept)
        grad = array_ops.reshape(grad, kept)
    return math_ops.truediv(op.inputs[0], output / grad), None


@RegisterGradient("CumulativeLogsumexp")
def _cumulative_logsumexp_grad(op, grad):
    """TF's formula: the gradient split into its positive and negative parts, each summed
    in log space by a cumulative logsumexp in the opposite direction."""
    from tfcompat.ops import math_ops, unary_math_ops

    x, axis = op.inputs
    result = op.outputs[0]
    exclusive, reverse = op.attrs["exclusive"], op.attrs["reverse"]
    lowest = grad.dtype.min
    log_positive = math_ops.where_v2(math_ops.greater(grad, 0), unary_math_ops.log(grad), lowest)
    log_negative = math_ops.where_v2(math_ops.less(grad, 0), unary_math_ops.log(-grad), lowest)

    def part(log_grad):
        scanned = cumulative_logsumexp(
            log_grad - result, axis=axis, reverse=not reverse, exclusive=exclusive
        )
        return unary_math_ops.exp(scanned + x)

    return [part(log_positive) - part(log_negative), None]
