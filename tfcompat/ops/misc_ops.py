"""Small TF1 names that had no home elsewhere, with TF 2.21's OpDefs, graphs and gradients:

* ``tf.fingerprint`` (``Fingerprint``: FarmHash Fingerprint64 of each row's bytes, a host op
  since it hashes the raw buffer of any dtype, strings included);
* ``tf.batch_scatter_update`` (TF's composition over ``scatter_nd_update``);
* ``tf.guarantee_const`` (``GuaranteeConst``: an identity TF's optimisers may constant-fold);
* ``tf.grad_pass_through`` (forward as the wrapped function, gradient as an identity, built
  with ``custom_gradient`` as TF builds it);
* ``tf.extract_volume_patches`` (``ExtractVolumePatches``: the 3-D ``extract_image_patches``)
  with TF's gradient;
* ``tf.math.erfcinv`` (TF's composition over ``ndtri``), ``tf.math.nextafter``
  (``NextAfter``), ``tf.nn.approx_max_k`` / ``approx_min_k`` (``ApproxTopK``; TF's CPU
  computes the exact top-k, and so do the kernels here), ``tf.nn.compute_average_loss`` and
  ``tf.nn.scale_regularization_loss`` (one replica: no distribution strategy in TF1 graphs);
* ``tf.IdentityReader`` (``IdentityReaderV2``: a reader whose records are the queued work
  strings, kept in the Session state as ``reader_ops``' readers are);
* ``tf.timestamp`` (``Timestamp``: the wall-clock time in seconds, a stateful host op read
  each time the step runs it).

Kernels: ``lowering/misc.py`` (jnp) and ``lowering/reference/misc.py`` (numpy).
"""

from __future__ import annotations

import functools
import operator

import numpy as np

from tfcompat.framework import common_shapes, dtypes, tensor_shape
from tfcompat.framework.constant_value import constant_value
from tfcompat.framework.gradient_registry import RegisterGradient, no_gradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op, convert_to_tensor
from tfcompat.framework.scopes import control_dependencies, name_scope
from tfcompat.ops.reader_ops import ReaderBase
from tfcompat.util.tf_export import tf_export

# ---------------------------------------------------------------------------------------------
# Fingerprint
# ---------------------------------------------------------------------------------------------
FINGERPRINT_SIZE = 8  # bytes of one farmhash64 value


def _fingerprint_shape(op):
    data, method = op.inputs[0].shape, op.inputs[1].shape
    if data.rank is not None and data.rank < 1:
        raise ValueError(f"Shape must be at least rank 1 but is rank {data.rank}")
    if method.rank is not None and method.rank != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {method.rank}")
    size = None
    value = constant_value(op.inputs[1])
    if value is not None:
        value = np.asarray(value).item()
        if value != b"farmhash64":
            raise ValueError(f"Unsupported method: {value.decode(errors='replace')}")
        size = FINGERPRINT_SIZE
    batch = None if data.rank is None else data.as_list()[0]
    return [tensor_shape.TensorShape([batch, size])]


register_op(
    "Fingerprint",
    inputs=["data: T", "method: string"],
    outputs=["fingerprint: uint8"],
    attrs=["T: type"],
    shape_fn=_fingerprint_shape,
    host=True,
)


@tf_export("fingerprint")
def fingerprint(data, method="farmhash64", name=None):
    """FarmHash64 fingerprints of ``data``'s rows: ``output[i]`` (8 ``uint8``, little-endian)
    hashes the raw bytes of ``data[i, ...]`` (for strings: of their fingerprints), so it is
    invariant under reshapes and bitcasts that keep the first dimension."""
    return apply_op("Fingerprint", name=name, data=data, method=method).outputs[0]


# ---------------------------------------------------------------------------------------------
# GuaranteeConst
# ---------------------------------------------------------------------------------------------
register_op(
    "GuaranteeConst",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=["T: type"],
    shape_fn=common_shapes.unchanged,
    is_stateful=True,
)


@tf_export("guarantee_const")
def guarantee_const(input, name=None):  # noqa: A002 - TF's name
    """``input`` unchanged, promising the runtime that it is constant (TF's optimisers may
    fold it; here it is an identity). Deprecated in TF: not needed any more."""
    return apply_op("GuaranteeConst", name=name, input=input).outputs[0]


# ---------------------------------------------------------------------------------------------
# batch_scatter_update, grad_pass_through
# ---------------------------------------------------------------------------------------------
@tf_export("batch_scatter_update")
def batch_scatter_update(ref, indices, updates, use_locking=True, name=None):
    """``ref[i_1, ..., i_n, indices[i_1, ..., i_n, j]] = updates[i_1, ..., i_n, j]`` for
    variable ``ref``: the leading dimensions of ``ref``, ``indices`` and ``updates`` are
    batch dimensions (TF's ``scatter_nd_update`` of coordinates built with ``range``)."""
    from tfcompat.ops import array_extras_ops, array_ops, math_ops

    with name_scope(name):
        indices = convert_to_tensor(indices, name="indices")
        indices_shape = array_ops.shape(indices)
        rank = indices.shape.rank
        if rank is None:
            # TF's message (it names batch_gather).
            raise ValueError("batch_gather does not allow indices with unknown shape.")
        nd_indices = array_ops.expand_dims(indices, axis=-1)
        coordinates = []
        # Coordinate d of every index is its position along dimension d: a range over that
        # dimension, broadcast over the others.
        for dimension in range(rank - 1):
            size = indices_shape[dimension]
            broadcast_shape = [1] * (rank + 1)
            broadcast_shape[dimension] = size
            positions = array_ops.reshape(
                apply_op("Range", start=0, limit=size, delta=1).outputs[0], broadcast_shape
            )
            if positions.dtype.base_dtype != nd_indices.dtype:
                positions = math_ops.cast(positions, nd_indices.dtype)
            coordinates.append(positions * array_ops.ones_like(nd_indices))
        coordinates.append(nd_indices)
        final_indices = array_ops.concat(coordinates, axis=-1)
        return array_extras_ops.scatter_nd_update(
            ref, final_indices, updates, use_locking=use_locking
        )


@tf_export("grad_pass_through")
def grad_pass_through(f):
    """Wraps ``f(*x)``: the result is ``f``'s, while ``tf.gradients`` flows through it as
    through an identity (variables ``f`` reads get no gradient)."""
    from tfcompat.ops.custom_gradient import custom_gradient

    @custom_gradient
    def _grad_pass_through_op(*args):
        def grad(*dys, **kwargs):
            variables = kwargs.get("variables")
            if variables is not None:
                return dys, [None] * len(variables)
            return dys

        return f(*args), grad

    return functools.wraps(f)(_grad_pass_through_op)


# ---------------------------------------------------------------------------------------------
# ExtractVolumePatches
# ---------------------------------------------------------------------------------------------
def windowed_output_size(size, ksize, stride, padding):
    """TF's ``GetWindowedOutputSizeVerbose`` (dilation 1): ``(output size, pad before)``."""
    padding = padding.encode() if isinstance(padding, str) else padding
    if stride <= 0:
        raise ValueError(f"Stride must be > 0, but got {stride}")
    if padding == b"SAME":
        out = (size + stride - 1) // stride
        need = max(0, (out - 1) * stride + ksize - size)
        return out, need // 2
    out = (size - ksize + stride) // stride
    if out < 0:
        raise ValueError(
            f"Computed output size would be negative: {out} [input_size: {size}, "
            f"effective_filter_size: {ksize}, stride: {stride}]"
        )
    return out, 0


def _extract_volume_patches_shape(op):
    shape = op.inputs[0].shape
    if shape.rank is not None and shape.rank != 5:
        raise ValueError(f"Shape must be rank 5 but is rank {shape.rank}")
    for key in ("ksizes", "strides"):
        if len(op.attrs[key]) != 5:
            raise ValueError(
                f"ExtractVolumePatches requires the {key} attribute to contain 5 values, "
                f"but got: {len(op.attrs[key])}"
            )
    dims = [None] * 5 if shape.rank is None else shape.as_list()
    ksizes, strides = list(op.attrs["ksizes"])[1:4], list(op.attrs["strides"])[1:4]
    depth = None if dims[4] is None else dims[4] * ksizes[0] * ksizes[1] * ksizes[2]
    spatial = [None] * 3
    if None not in dims[1:4]:  # TF infers none of them unless all three are known
        spatial = [
            windowed_output_size(size, k, s, op.attrs["padding"])[0]
            for size, k, s in zip(dims[1:4], ksizes, strides)
        ]
    return [tensor_shape.TensorShape([dims[0], *spatial, depth])]


register_op(
    "ExtractVolumePatches",
    inputs=["input: T"],
    outputs=["patches: T"],
    attrs=[
        "ksizes: list(int) >= 5",
        "strides: list(int) >= 5",
        "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, "
        "uint64}",
        "padding: {'SAME', 'VALID'}",
    ],
    shape_fn=_extract_volume_patches_shape,
)


@tf_export("extract_volume_patches")
def extract_volume_patches(input, ksizes, strides, padding, name=None):  # noqa: A002
    """``ExtractVolumePatches``: the ``ksizes`` patches of a 5-D ``[batch, planes, rows,
    cols, depth]`` input at ``strides``, each flattened (planes, rows, cols, depth order)
    into the depth axis of ``[batch, out_planes, out_rows, out_cols, kp * kr * kc * depth]``."""
    return apply_op(
        "ExtractVolumePatches",
        name=name,
        input=input,
        ksizes=ksizes,
        strides=strides,
        padding=padding,
    ).outputs[0]


@RegisterGradient("ExtractVolumePatches")
def _extract_volume_patches_grad(op, grad):
    # TF's: patch an image of input indices (1-based, 0 marking padding) as the op patched
    # the input; the (input index, output index) pairs form a sparse Jacobian whose product
    # with the flattened gradient sums each output gradient back onto its input position.
    # Needs the spatial sizes statically, as TF's.
    from tfcompat.framework.sparse_tensor import SparseTensor
    from tfcompat.ops import array_ops, sparse_ops, sparse_slice_ops
    from tfcompat.ops.image_extras_ops import _dense
    from tfcompat.ops.reduction_ops import range as range_

    _, planes_in, rows_in, cols_in, _ = op.inputs[0].shape.as_list()
    input_bphwc = array_ops.shape(op.inputs[0])
    batch_size = input_bphwc[0]
    channels = input_bphwc[4]
    input_indices_num = 1 + planes_in * rows_in * cols_in
    input_idx = array_ops.reshape(
        range_(1, input_indices_num, dtype=dtypes.int64), (1, planes_in, rows_in, cols_in, 1)
    )
    input_idx_patched = extract_volume_patches(
        input_idx, list(op.attrs["ksizes"]), list(op.attrs["strides"]), op.attrs["padding"]
    )
    _, planes_out, rows_out, cols_out, _ = op.outputs[0].shape.as_list()
    _, ksize_p, ksize_r, ksize_c, _ = op.attrs["ksizes"]
    prc_indices_num = planes_out * rows_out * cols_out
    output_indices_num = prc_indices_num * ksize_p * ksize_r * ksize_c
    output_idx = array_ops.reshape(
        range_(output_indices_num, dtype=dtypes.int64),
        (1, planes_out, rows_out, cols_out, ksize_p * ksize_r * ksize_c),
    )
    idx_matrix = array_ops.concat(
        [
            array_ops.expand_dims(input_idx_patched, axis=-1),
            array_ops.expand_dims(output_idx, axis=-1),
        ],
        axis=-1,
    )
    idx_map = array_ops.reshape(idx_matrix, (-1, 2))
    sp_shape = (input_indices_num, output_indices_num)
    sp_mat_full = SparseTensor(
        idx_map, array_ops.ones([output_indices_num], dtype=grad.dtype), sp_shape
    )
    sp_mat = sparse_slice_ops.sparse_slice(
        sp_mat_full, (1, 0), (input_indices_num - 1, output_indices_num)
    )
    grad_expanded = array_ops.transpose(
        array_ops.reshape(
            _dense(grad),
            (batch_size, planes_out, rows_out, cols_out, ksize_p, ksize_r, ksize_c, channels),
        ),
        (1, 2, 3, 4, 5, 6, 0, 7),
    )
    grad_flat = array_ops.reshape(grad_expanded, (-1, batch_size * channels))
    jac = sparse_ops.sparse_tensor_dense_matmul(sp_mat, grad_flat)
    grad_out = array_ops.reshape(jac, (planes_in, rows_in, cols_in, batch_size, channels))
    return [array_ops.transpose(grad_out, (3, 0, 1, 2, 4))]


# ---------------------------------------------------------------------------------------------
# erfcinv, NextAfter
# ---------------------------------------------------------------------------------------------
@tf_export("math.erfcinv")
def erfcinv(x, name=None):
    """The inverse of ``erfc`` on ``[0, 2]``: ``-ndtri(x / 2) / sqrt(2)``, as TF computes it."""
    from tfcompat.ops import special_math_ops

    with name_scope(name, "erfcinv", [x]):
        x = convert_to_tensor(x, name="start")
        half = 0.5 * x
        with name_scope(None, "ndtri", [half]):  # TF's math_ops.ndtri scope
            quantile = special_math_ops.ndtri(half)
        return -quantile * np.sqrt(0.5)


register_op(
    "NextAfter",
    inputs=["x1: T", "x2: T"],
    outputs=["output: T"],
    attrs=["T: {double, float} = DT_FLOAT"],
    shape_fn=common_shapes.broadcast_binary,
)


@tf_export("math.nextafter")
def nextafter(x1, x2, name=None):
    """The next representable value after ``x1`` in the direction of ``x2`` (elementwise,
    broadcasting)."""
    return apply_op("NextAfter", name=name, x1=x1, x2=x2).outputs[0]


@RegisterGradient("NextAfter")
def _next_after_grad(op, grad):
    # TF's: one for x1 and zero for x2, each reduced over its broadcast axes.
    from tfcompat.ops import array_ops, math_ops, reduction_ops

    x1, x2 = op.inputs
    s_x1 = array_ops.shape(x1)
    s_x2 = array_ops.shape(x2)
    r_x1, r_x2 = math_ops.broadcast_gradient_args(s_x1, s_x2)
    with control_dependencies([grad]):
        partial_x1 = array_ops.ones(s_x1, dtype=x1.dtype)
        partial_x2 = array_ops.zeros(s_x2, dtype=x2.dtype)
        return (
            array_ops.reshape(reduction_ops.reduce_sum(partial_x1 * grad, r_x1), s_x1),
            array_ops.reshape(reduction_ops.reduce_sum(partial_x2 * grad, r_x2), s_x2),
        )


# ---------------------------------------------------------------------------------------------
# ApproxTopK
# ---------------------------------------------------------------------------------------------
def _approx_top_k_shape(op):
    # TF's: the reduction dimension must be known and hold at least k entries (an unknown
    # one reads as -1, so it fails too).
    shape = op.inputs[0].shape
    if shape.rank is not None and shape.rank < 1:
        raise ValueError(f"Shape must be at least rank 1 but is rank {shape.rank}")
    k = op.attrs["k"]
    axis = op.attrs["reduction_dimension"]
    size = -1
    if shape.rank is not None:
        axis = axis + shape.rank if axis < 0 else axis
        if not 0 <= axis < shape.rank:
            raise ValueError(f"Invalid reduction dimension {axis} for rank {shape.rank}")
        size = -1 if shape.as_list()[axis] is None else shape.as_list()[axis]
    if size < k:
        raise ValueError(f"input must have last dimension >= k = {k} but was {size}")
    if not op.attrs["aggregate_to_topk"]:
        # TF's static size then follows XLA's approximate reduction (a TPU detail) while
        # its CPU kernel returns k entries; only the aggregated form is supported here.
        raise NotImplementedError("ApproxTopK with aggregate_to_topk=False is not supported")
    dims = shape.as_list()
    dims[axis] = k
    out = tensor_shape.TensorShape(dims)
    return [out, out]


register_op(
    "ApproxTopK",
    inputs=["input: T"],
    outputs=["values: T", "indices: int32"],
    attrs=[
        "k: int >= 0",
        "reduction_dimension: int = -1",
        "recall_target: float = 0.95",
        "is_max_k: bool = true",
        "reduction_input_size_override: int = -1",
        "aggregate_to_topk: bool = true",
        "T: {half, bfloat16, float}",
    ],
    shape_fn=_approx_top_k_shape,
)


def _approx_top_k(is_max_k, export):
    def approx_top_k(
        operand,
        k,
        reduction_dimension=-1,
        recall_target=0.95,
        reduction_input_size_override=-1,
        aggregate_to_topk=True,
        name=None,
    ):
        op = apply_op(
            "ApproxTopK",
            name=name,
            input=operand,
            k=k,
            reduction_dimension=reduction_dimension,
            recall_target=recall_target,
            is_max_k=is_max_k,
            reduction_input_size_override=reduction_input_size_override,
            aggregate_to_topk=aggregate_to_topk,
        )
        return tuple(op.outputs)

    approx_top_k.__name__ = export
    approx_top_k.__doc__ = (
        f"The {'largest' if is_max_k else 'smallest'} ``k`` values of ``operand`` along "
        "``reduction_dimension`` and their int32 indices (``ApproxTopK``; exact here, as on "
        "TF's CPU)."
    )
    return tf_export(f"math.{export}", f"nn.{export}")(approx_top_k)


approx_max_k = _approx_top_k(True, "approx_max_k")
approx_min_k = _approx_top_k(False, "approx_min_k")


@RegisterGradient("ApproxTopK")
def _approx_top_k_grad(op, grad, _):
    # TF's: scatter the values' gradient to the input positions the indices name; the
    # coordinates are built from static shapes, as TF's are.
    from tfcompat.ops import array_ops
    from tfcompat.ops.reduction_ops import range as range_

    idx_shape = op.outputs[1].shape.as_list()
    lifted_idx_shape = idx_shape + [1]
    flat_shape_len = functools.reduce(operator.mul, idx_shape)
    rank = len(idx_shape)
    reduction_dim = op.attrs["reduction_dimension"]
    if reduction_dim < 0:
        reduction_dim += rank

    def lifted_idx(d):
        if d == reduction_dim:
            return array_ops.reshape(op.outputs[1], lifted_idx_shape)
        iota_shape = [1] * (rank + 1)
        iota_shape[d] = idx_shape[d]
        iota = array_ops.reshape(range_(idx_shape[d]), iota_shape)
        return array_ops.broadcast_to(iota, lifted_idx_shape)

    lifted = array_ops.concat([lifted_idx(d) for d in range(rank)], axis=rank)
    flat_idx = array_ops.reshape(lifted, [flat_shape_len, rank])
    flat_grad = array_ops.reshape(grad, [flat_shape_len])
    return array_ops.scatter_nd(flat_idx, flat_grad, op.inputs[0].shape)


# ---------------------------------------------------------------------------------------------
# compute_average_loss, scale_regularization_loss (one replica)
# ---------------------------------------------------------------------------------------------
@tf_export("nn.compute_average_loss")
def compute_average_loss(per_example_loss, sample_weight=None, global_batch_size=None):
    """``sum(per_example_loss * sample_weight) / global_batch_size``; the global batch
    size defaults to the first dimension of ``per_example_loss`` times the replicas (one in
    a TF1 graph), and an empty batch averages to 0."""
    from tfcompat.ops import array_ops, check_ops, math_ops, reduction_ops

    per_example_loss = convert_to_tensor(per_example_loss)
    input_dtype = per_example_loss.dtype
    rank = per_example_loss.shape.rank
    if rank == 0:
        raise ValueError(
            "Invalid value passed for `per_example_loss`. Expected a tensor with at least "
            f"rank 1. Received per_example_loss={per_example_loss} with rank {rank}"
        )
    checks = []
    if rank is None:  # TF checks an unknown rank when the loss is computed
        checks.append(
            check_ops.assert_greater_equal(
                array_ops.rank(per_example_loss),
                math_ops.cast(1, dtype=dtypes.int32),
                message="Invalid value passed for `per_example_loss`. Expected a tensor with "
                "at least rank 1.",
            )
        )
    with control_dependencies(checks):
        if sample_weight is not None:
            sample_weight = convert_to_tensor(sample_weight)
            per_example_loss = _scale_losses_by_sample_weight(per_example_loss, sample_weight)
        per_example_loss = math_ops.cast(per_example_loss, input_dtype)
        if global_batch_size is None:
            global_batch_size = array_ops.shape(per_example_loss)[0] * 1  # one replica
        check_ops.assert_scalar(global_batch_size, message="global_batch_size must be scalar.")
        check_ops.assert_integer(global_batch_size, message="global_batch_size must be an integer.")
        check_ops.assert_non_negative(
            global_batch_size, message="global_batch_size must be non-negative."
        )
        loss = reduction_ops.reduce_sum(per_example_loss)
        global_batch_size = math_ops.cast(global_batch_size, input_dtype)
        return math_ops.div_no_nan(loss, global_batch_size)


def _scale_losses_by_sample_weight(losses, sample_weight):
    # TF's losses_util.scale_losses_by_sample_weight: float32 products, the weight's rank
    # matched to the losses' where it differs by one.
    from tfcompat.ops import math_ops

    losses = math_ops.cast(losses, dtypes.float32)
    sample_weight = math_ops.cast(sample_weight, dtypes.float32)
    sample_weight = _match_weight_rank(losses, sample_weight)
    return math_ops.multiply(losses, sample_weight)


def _match_weight_rank(losses, sample_weight):
    """TF's ``squeeze_or_expand_dimensions`` for the weights: drop or add a last axis of
    ``sample_weight`` when its rank is one more or one less than the losses' (statically
    where both ranks are known, else with TF's run-time conds)."""
    from tfcompat.ops import array_ops, control_flow_ops, math_ops

    losses_rank, weights_rank = losses.shape.rank, sample_weight.shape.rank
    if weights_rank == 0:
        return sample_weight
    if losses_rank is not None and weights_rank is not None:
        if weights_rank - losses_rank == 1:
            return array_ops.squeeze(sample_weight, [-1])
        if losses_rank - weights_rank == 1:
            return array_ops.expand_dims(sample_weight, [-1])
        return sample_weight
    weights_rank_tensor = array_ops.rank(sample_weight)
    rank_diff = weights_rank_tensor - array_ops.rank(losses)

    def maybe_expand():
        return control_flow_ops.cond(
            math_ops.equal(rank_diff, -1),
            lambda: array_ops.expand_dims(sample_weight, [-1]),
            lambda: sample_weight,
        )

    def maybe_adjust():
        return control_flow_ops.cond(
            math_ops.equal(rank_diff, 1),
            lambda: array_ops.squeeze(sample_weight, [-1]),
            maybe_expand,
        )

    return control_flow_ops.cond(
        math_ops.equal(weights_rank_tensor, 0), lambda: sample_weight, maybe_adjust
    )


@tf_export("nn.scale_regularization_loss")
def scale_regularization_loss(regularization_loss):
    """``sum(regularization_loss)`` divided by the number of replicas (one in a TF1 graph)."""
    from tfcompat.ops import reduction_ops

    return reduction_ops.reduce_sum(regularization_loss) / 1


# ---------------------------------------------------------------------------------------------
# IdentityReader
# ---------------------------------------------------------------------------------------------
register_op(
    "IdentityReaderV2",
    outputs=["reader_handle: resource"],
    attrs=["container: string = ''", "shared_name: string = ''"],
    shape_fn=lambda op: [tensor_shape.TensorShape([])],
    is_stateful=True,
    host=True,
)


@tf_export("IdentityReader")
class IdentityReader(ReaderBase):
    """A reader whose records are the queued work strings themselves: ``read`` dequeues
    one string ``w`` and returns ``(w, w)``."""

    def __init__(self, name=None):
        super().__init__(apply_op("IdentityReaderV2", name=name).outputs[0], True)


# ---------------------------------------------------------------------------------------------
# Timestamp
# ---------------------------------------------------------------------------------------------
register_op(
    "Timestamp",
    outputs=["ts: float64"],
    is_stateful=True,
    host=True,
    shape_fn=lambda op: [tensor_shape.scalar()],
)
no_gradient("Timestamp")


@tf_export("timestamp")
def timestamp(name=None):
    """Seconds since the epoch (float64) when the op runs."""
    return apply_op("Timestamp", name=name).outputs[0]
