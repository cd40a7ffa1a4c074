"""Indexing ops: ``GatherV2``/``Gather``/``GatherNd``, ``ScatterNd``, ``OneHot``,
``Unique``, matrix band/diagonal ops; and the composites ``tf.boolean_mask`` and
``tf.sequence_mask`` built from them as TF builds them.

Out-of-range indices: TF's CPU kernels fail with InvalidArgumentError, which the reference
kernels reproduce (naming the op). The XLA lowerings cannot raise at run time; they follow
TF's GPU kernels instead: a gather reads zeros for an out-of-range index and a scatter drops
the update.
"""

from __future__ import annotations

import numpy as np

from tfcompat.framework import common_shapes, dtypes, tensor_shape
from tfcompat.framework.constant_op import constant
from tfcompat.framework.constant_value import constant_value, constant_value_as_shape
from tfcompat.framework.gradient_registry import RegisterGradient, no_gradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op, convert_to_tensor, op_outputs
from tfcompat.framework.tensor_shape import TensorShape, unknown_shape
from tfcompat.ops import array_ops
from tfcompat.ops.array_ops import _dims, _scope, _static_int
from tfcompat.util.tf_export import tf_export


# ---------------------------------------------------------------------------------------------
# Gather
# ---------------------------------------------------------------------------------------------
def gather_v2_output_shape(params, indices, axis, batch_dims):
    """``params[:axis] + indices[batch_dims:] + params[axis + 1:]`` as partial shapes."""
    p, i = _dims(params), _dims(indices)
    if p is None or i is None or axis is None:
        if p is not None and i is not None and axis is None:
            return unknown_shape(rank=len(p) + len(i) - 1 - batch_dims)
        return unknown_shape()
    if batch_dims < 0:
        batch_dims += len(i)
    if axis < 0:
        axis += len(p)
    if not 0 <= axis < len(p):
        raise ValueError(f"Shape must be at least rank {axis + 1} but is rank {len(p)}")
    if batch_dims > axis:
        raise ValueError(f"batch_dims ({batch_dims}) must be less than or equal to axis ({axis}).")
    if batch_dims > len(i):
        raise ValueError(f"batch_dims ({batch_dims}) must be less than rank(indices) ({len(i)}).")
    # The batch dims come from params (TF does not refine them with the indices' dims).
    return TensorShape(p[:axis] + i[batch_dims:] + p[axis + 1 :])


register_op(
    "GatherV2",
    inputs=["params: Tparams", "indices: Tindices", "axis: Taxis"],
    outputs=["output: Tparams"],
    attrs=[
        "batch_dims: int = 0",
        "Tparams: type",
        "Tindices: {int16, int32, int64}",
        "Taxis: {int32, int64}",
    ],
    shape_fn=lambda op: [
        gather_v2_output_shape(
            op.inputs[0].shape,
            op.inputs[1].shape,
            _static_int(op.inputs[2]),
            op.attrs["batch_dims"],
        )
    ],
)
register_op(
    "Gather",
    inputs=["params: Tparams", "indices: Tindices"],
    outputs=["output: Tparams"],
    attrs=["validate_indices: bool = true", "Tparams: type", "Tindices: {int32, int64}"],
    shape_fn=lambda op: [gather_v2_output_shape(op.inputs[0].shape, op.inputs[1].shape, 0, 0)],
)


@tf_export("gather")
def gather(params, indices, validate_indices=None, name=None, axis=None, batch_dims=0):
    """Slices of ``params`` along ``axis`` at ``indices`` (``GatherV2``)."""
    del validate_indices  # TF ignores it: indices are always validated on CPU
    if axis is None:
        axis = batch_dims
    axis_value = constant_value(axis) if hasattr(axis, "op") else axis
    if axis_value is None or axis_value != 0:
        return apply_op(
            "GatherV2", name=name, params=params, indices=indices, axis=axis, batch_dims=batch_dims
        ).outputs[0]
    if hasattr(params, "sparse_read"):
        return params.sparse_read(indices, name=name)
    return apply_op("GatherV2", name=name, params=params, indices=indices, axis=axis).outputs[0]


def _params_shape(params):
    """``Shape`` of the gathered params, colocated with them (params may be large)."""
    with params.graph.colocate_with(params.op):
        return array_ops.shape(params)


@RegisterGradient("Gather")
def _gather_grad(op, grad):
    """IndexedSlices: the gradient's rows (one per index) at the gathered indices."""
    from tfcompat.framework.indexed_slices import IndexedSlices

    params_shape = _params_shape(op.inputs[0])
    indices = op.inputs[1]
    size = array_ops.expand_dims(array_ops.size(indices), 0)
    values_shape = array_ops.concat([size, params_shape[1:]], 0)
    values = array_ops.reshape(array_ops.dense_gradient(grad), values_shape)
    indices = array_ops.reshape(indices, size)
    return [IndexedSlices(values, indices, params_shape), None]


def _batch_indices(params_shape, indices, batch_dims):
    """``indices`` plus the flat offset of each batch position (batch dims flattened)."""
    from tfcompat.ops import math_ops, reduction_ops

    batch_indices = indices
    dtype = indices.dtype.base_dtype
    cast_shape = math_ops.cast(params_shape, dtype)
    accumulated = array_ops.ones((), dtype=dtype)
    for dim in range(batch_dims, 0, -1):
        dim_value = cast_shape[dim - 1]
        accumulated *= cast_shape[dim]
        start = array_ops.zeros((), dtype=dtype)
        step = array_ops.ones((), dtype=dtype)
        dim_indices = reduction_ops.range(start, dim_value, step)
        dim_indices *= accumulated
        dim_shape = array_ops.concat(
            [
                array_ops.tile([1], [dim - 1]),
                [dim_value],
                array_ops.tile([1], [array_ops.rank(indices) - dim]),
            ],
            axis=0,
        )
        batch_indices += array_ops.reshape(dim_indices, dim_shape)
    return batch_indices


def _batch_gather_grad(params_shape, values, indices, batch_dims, gather_dim_size):
    """Dense gradient of a gather along the first non-batch axis: rows summed per index
    (``UnsortedSegmentSum``), batch dims flattened into the segment ids and restored."""
    from tfcompat.ops import reduction_ops, segment_ops

    indices_size = array_ops.expand_dims(array_ops.size(indices), 0)
    if batch_dims:
        values_shape = array_ops.shape(values)
        outer_shape = values_shape[:batch_dims]
        inner_shape = values_shape[batch_dims:][1:]
        batch_size = reduction_ops.reduce_prod(outer_shape, [0], False)
        flat_values_shape = array_ops.concat([[-1], inner_shape], 0)
        gather_dim_size *= batch_size
        indices = _batch_indices(params_shape, indices, batch_dims)
        values = array_ops.reshape(array_ops.dense_gradient(values), flat_values_shape)
    indices = array_ops.reshape(indices, indices_size)
    params_grad = segment_ops.unsorted_segment_sum(values, indices, gather_dim_size)
    if batch_dims:
        params_grad = array_ops.reshape(
            params_grad, array_ops.concat([outer_shape, flat_values_shape], 0)
        )
    return params_grad


def _gather_v2_axis_grad(grad, params_shape, indices, axis, batch_dims):
    """A gather along ``axis`` > 0: move that axis next to the batch dims, take the batch
    gather gradient, and move it back."""
    from tfcompat.ops import reduction_ops

    outer_shape = params_shape[:axis]
    inner_shape = params_shape[axis:][1:]
    values_shape = array_ops.concat([outer_shape, [-1], inner_shape], 0)
    values_dims = array_ops.size(values_shape)
    axis_dims = array_ops.size(outer_shape)
    outer_batches = reduction_ops.range(batch_dims)
    batch_axes = reduction_ops.range(batch_dims, axis_dims)
    inner_axes = reduction_ops.range(axis_dims + 1, values_dims)
    values = array_ops.reshape(array_ops.dense_gradient(grad), values_shape)
    transpose_dims = array_ops.concat([outer_batches, [axis_dims], batch_axes, inner_axes], 0)
    values_transpose = array_ops.transpose(values, transpose_dims)
    params_shape_transpose = array_ops.gather(params_shape, transpose_dims)
    params_grad = _batch_gather_grad(
        params_shape_transpose, values_transpose, indices, batch_dims, params_shape[axis]
    )
    invert_dims = array_ops.concat([outer_batches, batch_axes + 1, [batch_dims], inner_axes], 0)
    return array_ops.transpose(params_grad, invert_dims)


@RegisterGradient("GatherV2")
def _gather_v2_grad(op, grad):
    """Axis 0: IndexedSlices (what makes sparse optimizer updates possible); other axes: a
    dense ``UnsortedSegmentSum`` of the rows, reshaped to the params' shape."""
    from tfcompat.framework.indexed_slices import IndexedSlices

    params = op.inputs[0]
    params_shape = _params_shape(params)
    indices = op.inputs[1]
    indices_size = array_ops.expand_dims(array_ops.size(indices), 0)
    axis = op.inputs[2]
    axis_static = constant_value(axis)
    batch_dims = int(op.attrs["batch_dims"])
    if batch_dims < 0:
        if indices.shape.rank is None:
            raise ValueError(
                "Currently, it is unsupported to take the gradient of tf.gather when "
                "batch_dims < 0 and the rank of the indices is unknown. Please pass a positive "
                "batch_dims or use tf.ensure_shape to update the shape of indices when calling "
                f"tf.gather. Got batch_dims={batch_dims} and indices={indices}"
            )
        batch_dims += indices.shape.rank
    if axis_static is not None and int(axis_static) == 0:
        values_shape = array_ops.concat([indices_size, params_shape[1:]], 0)
        values = array_ops.reshape(array_ops.dense_gradient(grad), values_shape)
        indices = array_ops.reshape(indices, indices_size)
        return [IndexedSlices(values, indices, params_shape), None, None]
    params_grad = _gather_v2_axis_grad(grad, params_shape, indices, axis, batch_dims)
    # Reshaping to the params' shape keeps static shapes right when some dimension is 0.
    return [array_ops.reshape(params_grad, array_ops.shape(params)), None, None]


def _gather_nd_shape(op):
    p, i = _dims(op.inputs[0].shape), _dims(op.inputs[1].shape)
    if i is None:
        return [unknown_shape()]
    if not i:
        raise ValueError("indices must have rank >= 1")
    depth = i[-1]
    if depth is None or p is None:
        return [unknown_shape()]
    if depth > len(p):
        raise ValueError(
            f"indices.shape[-1] must be <= params.rank, but saw indices shape: "
            f"{array_ops._shape_list_text(i)} and params shape: {array_ops._shape_list_text(p)}"
        )
    return [TensorShape(i[:-1] + p[depth:])]


register_op(
    "GatherNd",
    inputs=["params: Tparams", "indices: Tindices"],
    outputs=["output: Tparams"],
    attrs=["Tparams: type", "Tindices: {int16, int32, int64}", "bad_indices_policy: string = ''"],
    shape_fn=_gather_nd_shape,
)


@tf_export("gather_nd", "manip.gather_nd")
def gather_nd(params, indices, name=None, batch_dims=0):
    """Gathers slices of ``params`` addressed by the last axis of ``indices``; with
    ``batch_dims``, per element of the leading batch dimensions they share."""
    from tfcompat.framework.tensor import Tensor

    static = constant_value(batch_dims) if isinstance(batch_dims, Tensor) else None
    batch_dims = int(static) if static is not None else batch_dims
    if isinstance(batch_dims, int) and batch_dims == 0:
        return apply_op("GatherNd", name=name, params=params, indices=indices).outputs[0]
    return _batch_gather_nd(params, indices, batch_dims, name)


def _batch_gather_nd(params, indices, batch_dims, name):
    """TF's composition: the batch coordinates (a meshgrid over the batch dimensions)
    prepended to each index, one ``GatherNd`` over the flattened batch, reshaped back."""
    from tfcompat.framework import dtypes
    from tfcompat.framework.scopes import name_scope
    from tfcompat.ops import join_ops, pad_ops, tensor_scatter_ops

    with name_scope(name, "BatchGatherND", [params, indices]):
        indices = convert_to_tensor(indices, name="indices")
        params = convert_to_tensor(params, name="params")
        if not isinstance(batch_dims, int):
            raise TypeError(f"Argument `batch_dims` must be an int; got {batch_dims}")
        if batch_dims < 0:
            raise ValueError("tf.gather_nd does not allow negative batch_dims.")
        for what, rank in (("indices", indices.shape.rank), ("params", params.shape.rank)):
            if rank is not None and batch_dims >= rank:
                raise ValueError(
                    f"Argument `batch_dims` = {batch_dims} must be less than rank(`{what}`) "
                    f"= {rank}"
                )
        params_shape = array_ops.shape(params)
        indices_shape = array_ops.shape(indices)
        batch_shape = params_shape[:batch_dims]
        batch_size = apply_op("Prod", input=batch_shape, reduction_indices=[0]).outputs[0]
        index_internal_ndims = array_ops.rank(indices) - batch_dims - 1
        indices_internal_shape = indices_shape[batch_dims:-1]
        # A grid of the batch coordinates, one row per batch element.
        dim_ranges = [
            apply_op(
                "Cast",
                x=apply_op(
                    "Range",
                    start=0,
                    limit=apply_op("Cast", x=x, DstT=dtypes.int32).outputs[0],
                    delta=1,
                ).outputs[0],
                DstT=indices.dtype,
            ).outputs[0]
            for x in join_ops.unstack(batch_shape, axis=0)
        ]
        mesh = tensor_scatter_ops.meshgrid(*dim_ranges, indexing="ij") if dim_ranges else []
        flat = [array_ops.reshape(x, shape=(-1,)) for x in mesh]
        index_grid = array_ops.transpose(join_ops.stack(flat, axis=0))
        grid_shape = array_ops.shape(index_grid)
        ones = array_ops.ones(index_internal_ndims, dtype=grid_shape.dtype)
        index_grid = array_ops.reshape(
            index_grid, join_ops.concat([grid_shape[:1], ones, grid_shape[1:]], axis=0)
        )
        tile_shape = join_ops.concat(((1,), indices_internal_shape, (1,)), axis=0)
        index_grid = pad_ops.tile(index_grid, multiples=tile_shape)
        flat_shape = join_ops.concat(([batch_size], indices_shape[batch_dims:]), axis=0)
        flat_indices = array_ops.reshape(indices, shape=flat_shape)
        indices = join_ops.concat((index_grid, flat_indices), axis=-1)
        out = apply_op("GatherNd", params=params, indices=indices).outputs[0]
        out_shape = array_ops.shape(out)
        return array_ops.reshape(out, shape=join_ops.concat((batch_shape, out_shape[1:]), axis=0))


@RegisterGradient("GatherNd")
def _gather_nd_grad(op, grad):
    """IndexedSlices when ``indices`` is ``[n, 1]`` (whole rows); else a ``ScatterNd``."""
    from tfcompat.framework.indexed_slices import IndexedSlices

    ref, indices = op.inputs
    ref_shape = array_ops.shape(ref, out_type=indices.dtype)
    dims = _dims(indices.shape)
    if dims is not None and len(dims) == 2 and dims[-1] == 1:
        return [IndexedSlices(grad, array_ops.squeeze(indices, axis=-1), ref_shape), None]
    policy = op.attrs["bad_indices_policy"]
    return [scatter_nd(indices, grad, ref_shape, bad_indices_policy=policy), None]


def _scatter_nd_shape(op):
    out = constant_value_as_shape(op.inputs[2])
    i, u = _dims(op.inputs[0].shape), _dims(op.inputs[1].shape)
    dims = _dims(out)
    if i and u is not None and dims is not None and i[-1] is not None:
        expected = i[:-1] + dims[i[-1] :]
        if not TensorShape(u).is_compatible_with(TensorShape(expected)):
            raise ValueError(
                f"Dimensions [{len(i) - 1},{len(u)}) of updates[shape="
                f"{array_ops._shape_list_text(u)}] must match dimensions of output shape "
                f"{array_ops._shape_list_text(dims)}"
            )
    return [out]


register_op(
    "ScatterNd",
    inputs=["indices: Tindices", "updates: T", "shape: Tindices"],
    outputs=["output: T"],
    attrs=["T: type", "Tindices: {int16, int32, int64}", "bad_indices_policy: string = ''"],
    shape_fn=_scatter_nd_shape,
)


@tf_export("scatter_nd", "manip.scatter_nd")
def scatter_nd(indices, updates, shape, bad_indices_policy="", name=None):
    """A zero tensor of ``shape`` with ``updates`` summed in at ``indices``."""
    return apply_op(
        "ScatterNd",
        name=name,
        indices=indices,
        updates=updates,
        shape=shape,
        bad_indices_policy=bad_indices_policy,
    ).outputs[0]


@RegisterGradient("ScatterNd")
def _scatter_nd_grad(op, grad):
    return [None, gather_nd(grad, op.inputs[0]), None]


# ---------------------------------------------------------------------------------------------
# OneHot
# ---------------------------------------------------------------------------------------------
def _one_hot_shape(op):
    dims = _dims(op.inputs[0].shape)
    axis = op.attrs["axis"]
    if axis < -1:
        raise ValueError(
            f"Expected axis to be -1 or between [0, {len(dims or [])}).  But received: {axis}"
        )
    if dims is None:
        return [unknown_shape()]
    if axis > len(dims):
        raise ValueError(
            f"Expected axis to be -1 or between [0, {len(dims) + 1}).  But received: {axis}"
        )
    depth = _static_int(op.inputs[1])
    if depth is not None and depth < 0:
        raise ValueError(f"depth must be non-negative, got: {depth}")
    axis = len(dims) if axis == -1 else axis
    return [TensorShape(dims[:axis] + [depth] + dims[axis:])]


register_op(
    "OneHot",
    inputs=["indices: TI", "depth: int32", "on_value: T", "off_value: T"],
    outputs=["output: T"],
    attrs=["axis: int = -1", "T: type", "TI: {uint8, int8, int32, int64} = int64"],
    shape_fn=_one_hot_shape,
)


@tf_export("one_hot")
def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=None, name=None):
    """``on_value`` where ``indices`` hits a position of a new ``depth``-long axis, else
    ``off_value``; the dtype comes from the values or ``dtype`` (float32 by default)."""
    with _scope(name, "one_hot") as scope:
        dtype = None if dtype is None else dtypes.as_dtype(dtype)
        values = {}
        for key, given in (("on", on_value), ("off", off_value)):
            if given is not None:
                values[key] = convert_to_tensor(given, preferred_dtype=dtype)
                if dtype is not None and values[key].dtype.base_dtype != dtype:
                    raise TypeError(
                        f"dtype {values[key].dtype.base_dtype} of {key}_value does not match "
                        f"dtype parameter {dtype}"
                    )
        if dtype is None:
            dtype = next(iter(values.values())).dtype.base_dtype if values else dtypes.float32
        for key, default in (("on", 1), ("off", 0)):
            if key not in values:
                values[key] = convert_to_tensor(default, dtype=dtype, name=f"{key}_value")
        if values["on"].dtype.base_dtype != values["off"].dtype.base_dtype:
            raise TypeError(
                f"dtype {values['on'].dtype.base_dtype} of on_value does not match dtype "
                f"{values['off'].dtype.base_dtype} of off_value"
            )
        return apply_op(
            "OneHot",
            name=scope,
            indices=indices,
            depth=depth,
            on_value=values["on"],
            off_value=values["off"],
            axis=-1 if axis is None else axis,
        ).outputs[0]


no_gradient("OneHot")


# ---------------------------------------------------------------------------------------------
# Unique: the output size depends on the values, so it runs on the host
# ---------------------------------------------------------------------------------------------
def _unique_shape(op):
    x = op.inputs[0].shape
    if x.rank is not None and x.rank != 1:
        raise ValueError(f"Shape must be rank 1 but is rank {x.rank}")
    return [unknown_shape(rank=1), x.with_rank(1) if x.rank is not None else unknown_shape(1)]


register_op(
    "Unique",
    inputs=["x: T"],
    outputs=["y: T", "idx: out_idx"],
    attrs=["T: type", "out_idx: {int32, int64} = int32"],
    shape_fn=_unique_shape,
    host=True,
)


@tf_export("unique")
def unique(x, out_idx=dtypes.int32, name=None):
    """The distinct values of 1-D ``x`` in order of first occurrence, and for each element of
    ``x`` the index of its value in that list."""
    return op_outputs(apply_op("Unique", name=name, x=x, out_idx=out_idx))


def _unique_with_counts_shape(op):
    y, idx = _unique_shape(op)
    return [y, idx, unknown_shape(rank=1)]


register_op(
    "UniqueWithCounts",
    inputs=["x: T"],
    outputs=["y: T", "idx: out_idx", "count: out_idx"],
    attrs=["T: type", "out_idx: {int32, int64} = int32"],
    shape_fn=_unique_with_counts_shape,
    host=True,
)


@tf_export("unique_with_counts")
def unique_with_counts(x, out_idx=dtypes.int32, name=None):
    """``unique`` and, for each distinct value, how often it occurs in ``x``."""
    return op_outputs(apply_op("UniqueWithCounts", name=name, x=x, out_idx=out_idx))


# ---------------------------------------------------------------------------------------------
# Band and diagonal matrices
# ---------------------------------------------------------------------------------------------
def _matrix_shape(op):
    shape = op.inputs[0].shape
    if shape.rank is not None and shape.rank < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {shape.rank}")
    return [shape]


register_op(
    "MatrixBandPart",
    inputs=["input: T", "num_lower: Tindex", "num_upper: Tindex"],
    outputs=["band: T"],
    attrs=["T: type", "Tindex: {int32, int64} = int64"],
    shape_fn=_matrix_shape,
)


@tf_export("linalg.band_part", "matrix_band_part")
def matrix_band_part(input, num_lower, num_upper, name=None):  # noqa: A002
    """Keeps the band of each innermost matrix: ``num_lower`` subdiagonals and ``num_upper``
    superdiagonals (negative: all of them); zeros elsewhere."""
    return apply_op(
        "MatrixBandPart", name=name, input=input, num_lower=num_lower, num_upper=num_upper
    ).outputs[0]


@RegisterGradient("MatrixBandPart")
def _matrix_band_part_grad(op, grad):
    return matrix_band_part(grad, op.inputs[1], op.inputs[2]), None, None


_DIAG_TYPES = "{bfloat16, half, float, double, int32, int64, complex64, complex128}"


def _diag_shape(op):
    dims = _dims(op.inputs[0].shape)
    if dims is not None and not dims:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    return [unknown_shape() if dims is None else TensorShape(dims + dims)]


def _diag_part_shape(op):
    dims = _dims(op.inputs[0].shape)
    if dims is None:
        return [unknown_shape()]
    if not dims or len(dims) % 2:
        raise ValueError(f"Input must have even rank, got {len(dims)}")
    half = len(dims) // 2
    return [
        TensorShape(
            [
                array_ops._merge_dims(a, b, (dims[:half], dims[half:], i))
                for i, (a, b) in enumerate(zip(dims[:half], dims[half:]))
            ]
        )
    ]


register_op(
    "Diag",
    inputs=["diagonal: T"],
    outputs=["output: T"],
    attrs=[f"T: {_DIAG_TYPES}"],
    shape_fn=_diag_shape,
)
register_op(
    "DiagPart",
    inputs=["input: T"],
    outputs=["diagonal: T"],
    attrs=[f"T: {_DIAG_TYPES}"],
    shape_fn=_diag_part_shape,
)


@tf_export("linalg.tensor_diag", "diag")
def diag(diagonal, name=None):
    """The rank-2k tensor with ``diagonal`` (rank k) on its diagonal (``Diag``)."""
    return apply_op("Diag", name=name, diagonal=diagonal).outputs[0]


@tf_export("linalg.tensor_diag_part", "diag_part")
def tensor_diag_part(input, name=None):  # noqa: A002
    """The diagonal of a rank-2k tensor (``DiagPart``)."""
    return apply_op("DiagPart", name=name, input=input).outputs[0]


@RegisterGradient("Diag")
def _diag_grad(op, grad):
    return tensor_diag_part(grad)


@RegisterGradient("DiagPart")
def _diag_part_grad(op, grad):
    return diag(grad)


def _matrix_diag_shape(op):
    dims = _dims(op.inputs[0].shape)
    if dims is None:
        return [unknown_shape()]
    if not dims:
        raise ValueError("Shape must be at least rank 1 but is rank 0")
    return [TensorShape(dims + dims[-1:])]


def _matrix_diag_part_shape(op):
    dims = _dims(op.inputs[0].shape)
    if dims is None:
        return [unknown_shape()]
    if len(dims) < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {len(dims)}")
    rows, cols = dims[-2:]
    return [TensorShape(dims[:-2] + [None if rows is None or cols is None else min(rows, cols)])]


register_op(
    "MatrixDiag",
    inputs=["diagonal: T"],
    outputs=["output: T"],
    attrs=["T: type"],
    shape_fn=_matrix_diag_shape,
)
register_op(
    "MatrixDiagPart",
    inputs=["input: T"],
    outputs=["diagonal: T"],
    attrs=["T: type"],
    shape_fn=_matrix_diag_part_shape,
)

_ALIGN = "align: {'LEFT_RIGHT', 'RIGHT_LEFT', 'LEFT_LEFT', 'RIGHT_RIGHT'} = 'RIGHT_LEFT'"


def single_diagonal(k_value):
    """The one diagonal offset ``k`` selects, or ValueError for a band of diagonals (the
    kernels support a single diagonal)."""
    k = np.asarray(k_value).reshape(-1)
    if k.size == 0 or k.size > 2 or (k.size == 2 and k[0] != k[1]):
        raise ValueError(f"tfcompat supports a single diagonal offset k, got {k.tolist()}")
    return int(k[0])


def _matrix_diag_v3_shape(op):
    dims = _dims(op.inputs[0].shape)
    k = constant_value(op.inputs[1])
    rows, cols = _static_int(op.inputs[2]), _static_int(op.inputs[3])
    if dims is None or k is None or rows is None or cols is None or not dims:
        return [unknown_shape()]
    k = single_diagonal(k)
    length = dims[-1]
    if length is None:
        return [unknown_shape(rank=len(dims) + 1)]
    side = length + abs(k)
    rows = side if rows == -1 else rows
    cols = side if cols == -1 else cols
    return [TensorShape(dims[:-1] + [rows, cols])]


def _matrix_diag_part_v3_shape(op):
    dims = _dims(op.inputs[0].shape)
    k = constant_value(op.inputs[1])
    if dims is None or k is None:
        return [unknown_shape()]
    if len(dims) < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {len(dims)}")
    k = single_diagonal(k)
    rows, cols = dims[-2:]
    if rows is None or cols is None:
        return [TensorShape(dims[:-2] + [None])]
    return [TensorShape(dims[:-2] + [max(0, min(rows + min(k, 0), cols - max(k, 0)))])]


register_op(
    "MatrixDiagV3",
    inputs=["diagonal: T", "k: int32", "num_rows: int32", "num_cols: int32", "padding_value: T"],
    outputs=["output: T"],
    attrs=["T: type", _ALIGN],
    shape_fn=_matrix_diag_v3_shape,
)
register_op(
    "MatrixDiagPartV3",
    inputs=["input: T", "k: int32", "padding_value: T"],
    outputs=["diagonal: T"],
    attrs=["T: type", _ALIGN],
    shape_fn=_matrix_diag_part_v3_shape,
)


def _matrix_set_diag_shape(op):
    dims = _dims(op.inputs[0].shape)
    if dims is not None and len(dims) < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {len(dims)}")
    return [op.inputs[0].shape]


register_op(
    "MatrixSetDiagV3",
    inputs=["input: T", "diagonal: T", "k: int32"],
    outputs=["output: T"],
    attrs=["T: type", _ALIGN],
    shape_fn=_matrix_set_diag_shape,
)


@tf_export("linalg.set_diag", "matrix_set_diag")
def matrix_set_diag(input, diagonal, name="set_diag", k=0, align="RIGHT_LEFT"):  # noqa: A002
    """``input`` with diagonal ``k`` of each innermost matrix replaced by ``diagonal``
    (``MatrixSetDiagV3``)."""
    with _scope(name, "set_diag") as scope:
        return apply_op(
            "MatrixSetDiagV3",
            name=scope,
            input=input,
            diagonal=diagonal,
            k=k,
            align=align,
        ).outputs[0]


@RegisterGradient("MatrixSetDiagV3")
def _matrix_set_diag_v3_grad(op, grad):
    from tfcompat.ops import array_ops

    diag_shape = op.inputs[1].shape
    if not diag_shape.is_fully_defined():
        raise NotImplementedError(
            "tfcompat: the gradient of matrix_set_diag needs a diagonal of static shape"
        )
    k, align = op.inputs[2], op.attrs["align"]
    grad_input = matrix_set_diag(
        grad, array_ops.zeros(diag_shape, dtype=grad.dtype), k=k, align=align
    )
    grad_diag = matrix_diag_part(grad, k=k, align=align)
    return grad_input, grad_diag, None


@tf_export("linalg.diag", "matrix_diag")
def matrix_diag(
    diagonal, name="diag", k=0, num_rows=-1, num_cols=-1, padding_value=0, align="RIGHT_LEFT"
):
    """Batched diagonal matrices with ``diagonal`` on diagonal ``k`` (``MatrixDiagV3``)."""
    with _scope(name, "diag") as scope:
        diagonal = convert_to_tensor(diagonal, name="diagonal")
        return apply_op(
            "MatrixDiagV3",
            name=scope,
            diagonal=diagonal,
            k=k,
            num_rows=num_rows,
            num_cols=num_cols,
            padding_value=padding_value,
            align=align,
        ).outputs[0]


@tf_export("linalg.diag_part", "matrix_diag_part")
def matrix_diag_part(input, name="diag_part", k=0, padding_value=0, align="RIGHT_LEFT"):  # noqa: A002
    """Diagonal ``k`` of each innermost matrix (``MatrixDiagPartV3``)."""
    with _scope(name, "diag_part") as scope:
        input = convert_to_tensor(input, name="input")
        return apply_op(
            "MatrixDiagPartV3",
            name=scope,
            input=input,
            k=k,
            padding_value=padding_value,
            align=align,
        ).outputs[0]


@RegisterGradient("MatrixDiag")
def _matrix_diag_grad(op, grad):
    return matrix_diag_part(grad)


@RegisterGradient("MatrixDiagV3")
def _matrix_diag_v3_grad(op, grad):
    return matrix_diag_part(grad, k=op.inputs[1], align=op.attrs["align"]), None, None, None, None


def _square_matrix_dims(tensor):
    """The innermost matrix dims when statically known, else None."""
    dims = _dims(tensor.shape)
    if dims is None or len(dims) < 2 or None in dims[-2:]:
        return None
    return dims[-2:]


@RegisterGradient("MatrixDiagPart")
def _matrix_diag_part_grad(op, grad):
    matrix = _square_matrix_dims(op.inputs[0])
    if matrix is None or matrix[0] != matrix[1]:
        # TF writes the diagonal into zeros with MatrixSetDiag, which tfcompat lacks.
        raise NotImplementedError(
            "tfcompat: the gradient of matrix_diag_part needs square innermost matrices of "
            "static shape"
        )
    return matrix_diag(grad)


@RegisterGradient("MatrixDiagPartV3")
def _matrix_diag_part_v3_grad(op, grad):
    matrix = _square_matrix_dims(op.inputs[0])
    if matrix is None:
        raise NotImplementedError(
            "tfcompat: the gradient of matrix_diag_part needs innermost matrix dims of static shape"
        )
    return (
        matrix_diag(
            grad,
            k=op.inputs[1],
            num_rows=matrix[0],
            num_cols=matrix[1],
            align=op.attrs["align"],
        ),
        None,
        None,
    )


# ---------------------------------------------------------------------------------------------
# Composites: boolean_mask, sequence_mask
# ---------------------------------------------------------------------------------------------
def _where(condition):
    return apply_op("Where", name="Where", input=condition).outputs[0]


@tf_export("boolean_mask")
def boolean_mask(tensor, mask, name="boolean_mask", axis=None):
    """The entries of ``tensor`` where ``mask`` (covering dims ``axis..``) is true,
    flattened over the masked dims; built from Reshape, Where and GatherV2 as TF does."""
    with _scope(name, "boolean_mask"):
        tensor = convert_to_tensor(tensor, name="tensor")
        mask = convert_to_tensor(mask, name="mask")
        mask_rank = mask.shape.rank
        if mask_rank == 0:
            raise ValueError("mask cannot be scalar.")
        if mask_rank is None:
            raise ValueError(
                "Number of mask dimensions must be specified, even if some dimensions are "
                "None.  E.g. shape=[None] is ok, but shape=None is not."
            )
        axis = 0 if axis is None else axis
        axis_value = constant_value(axis) if hasattr(axis, "op") else axis
        if axis_value is not None:
            axis = int(axis_value)
            tensor.shape[axis : axis + mask_rank].assert_is_compatible_with(mask.shape)
        leading = apply_op(
            "Prod", input=array_ops.shape(tensor)[axis : axis + mask_rank], reduction_indices=[0]
        ).outputs[0]
        static_shape = tensor.shape
        tensor = array_ops.reshape(
            tensor,
            array_ops.concat(
                [
                    array_ops.shape(tensor)[:axis],
                    [leading],
                    array_ops.shape(tensor)[axis + mask_rank :],
                ],
                0,
            ),
        )
        if axis_value is not None:
            first = static_shape[axis : axis + mask_rank].num_elements()
            tensor.set_shape(
                tensor_shape.as_shape(static_shape[:axis])
                .concatenate([first])
                .concatenate(static_shape[axis + mask_rank :])
            )
        mask = array_ops.reshape(mask, [-1])
        indices = array_ops.squeeze(_where(mask), axis=[1])
        return gather(tensor, indices, axis=axis)


def _all_dimensions(x):
    if x.shape.rank is not None:
        return constant(np.arange(x.shape.rank, dtype=np.int32), dtype=dtypes.int32)
    return apply_op("Range", start=0, limit=array_ops.rank(x), delta=1).outputs[0]


@tf_export("sequence_mask")
def sequence_mask(lengths, maxlen=None, dtype=dtypes.bool, name=None):
    """``mask[..., j] = j < lengths[...]`` for ``j`` below ``maxlen`` (default: the largest
    length); built from Range, ExpandDims and Less as TF does."""
    with _scope(name, "SequenceMask"):
        lengths = convert_to_tensor(lengths)
        if maxlen is None:
            maxlen = apply_op(
                "Max", input=lengths, reduction_indices=_all_dimensions(lengths)
            ).outputs[0]
            maxlen = apply_op("Maximum", x=constant(0, dtype=maxlen.dtype), y=maxlen).outputs[0]
        else:
            maxlen = convert_to_tensor(maxlen)
        if maxlen.shape.rank is not None and maxlen.shape.rank != 0:
            raise ValueError(
                "Argument `maxlen` must be scalar for sequence_mask, received `maxlen` = "
                f"{maxlen} with shape '{maxlen.shape}' instead"
            )
        row = apply_op(
            "Range",
            start=constant(0, dtype=maxlen.dtype),
            limit=maxlen,
            delta=constant(1, dtype=maxlen.dtype),
        ).outputs[0]
        matrix = apply_op("Cast", x=array_ops.expand_dims(lengths, -1), DstT=maxlen.dtype).outputs[
            0
        ]
        result = apply_op("Less", x=row, y=matrix).outputs[0]
        if dtype is None or result.dtype.is_compatible_with(dtypes.as_dtype(dtype)):
            return result
        return apply_op("Cast", x=result, DstT=dtype).outputs[0]


_ = common_shapes
