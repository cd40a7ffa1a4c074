"""Neural-network ops (TF's ``nn_ops``): activations, bias add, softmax, cross entropy,
``L2Loss`` and top-k.

OpDefs follow ``tensorflow/core/ops/nn_ops.cc``; wrappers build the graphs that TF 2.21's
``tf.compat.v1`` builds (same ops, same names), including the transposes TF inserts when
softmax works on an axis other than the last one.
"""

from __future__ import annotations

import collections

import numpy as np

from tfcompat.framework import dtypes, errors, tensor_shape
from tfcompat.framework.constant_value import constant_value
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op, convert_to_tensor
from tfcompat.framework.scopes import name_scope
from tfcompat.framework.tensor import Tensor
from tfcompat.framework.tensor_shape import TensorShape
from tfcompat.util.tf_export import tf_export

_FLOAT = "{half, bfloat16, float, double}"


# ---------------------------------------------------------------------------------------------
# Shape-function helpers, worded as TF's C++ shape inference words its errors
# ---------------------------------------------------------------------------------------------
def with_rank_at_least(shape: TensorShape, rank: int) -> TensorShape:
    if shape.rank is not None and shape.rank < rank:
        raise ValueError(f"Shape must be at least rank {rank} but is rank {shape.rank}")
    return shape


def with_rank(shape: TensorShape, rank: int) -> TensorShape:
    if shape.rank is None:
        return tensor_shape.unknown_shape(rank=rank)
    if shape.rank != rank:
        raise ValueError(f"Shape must be rank {rank} but is rank {shape.rank}")
    return shape


def merge_dim(a, b):
    """The known one of two dimensions (ints or None); ValueError when both are known and
    differ."""
    if a is not None and b is not None and a != b:
        raise ValueError(f"Dimensions must be equal, but are {a} and {b}")
    return a if a is not None else b


def static_scalar(op, index: int):
    """The value of scalar input ``index`` when the graph determines it, else None; a
    negative value is rejected as TF rejects a negative dimension size."""
    value = constant_value(op.inputs[index])
    if value is None:
        return None
    value = int(np.asarray(value).reshape(()))
    if value < 0:
        raise ValueError(
            f"Dimension size, given by scalar input {index}, must be non-negative but is {value}"
        )
    return value


# ---------------------------------------------------------------------------------------------
# Activations: elementwise, one input ``features`` and one output ``activations``
# ---------------------------------------------------------------------------------------------
def _unchanged(op):
    return [op.inputs[0].shape]


# op type -> allowed types of T, as in nn_ops.cc
_ACTIVATION_TYPES = {
    "Relu": "{realnumbertype, qint8}",
    "Relu6": "realnumbertype",
    "Elu": _FLOAT,
    "Selu": _FLOAT,
    "Softplus": _FLOAT,
    "Softsign": _FLOAT,
}
for _op_type, _types in _ACTIVATION_TYPES.items():
    register_op(
        _op_type,
        inputs=["features: T"],
        outputs=["activations: T"],
        attrs=[f"T: {_types}"],
        shape_fn=_unchanged,
    )

register_op(
    "LeakyRelu",
    inputs=["features: T"],
    outputs=["activations: T"],
    attrs=["alpha: float = 0.2", f"T: {_FLOAT} = float"],
    shape_fn=_unchanged,
)


def _activation(op_type, features, name):
    return apply_op(op_type, name=name, features=features).outputs[0]


@tf_export("nn.relu")
def relu(features, name=None):
    """``max(features, 0)``."""
    return _activation("Relu", features, name)


@tf_export("nn.relu6")
def relu6(features, name=None):
    """``min(max(features, 0), 6)``."""
    return _activation("Relu6", features, name)


@tf_export("nn.elu")
def elu(features, name=None):
    """``features`` where positive, ``exp(features) - 1`` elsewhere."""
    return _activation("Elu", features, name)


@tf_export("nn.selu")
def selu(features, name=None):
    """Scaled ELU: ``scale * (features if > 0 else alpha * (exp(features) - 1))``."""
    return _activation("Selu", features, name)


@tf_export("nn.softplus", "math.softplus")
def softplus(features, name=None):
    """``log(exp(features) + 1)``, computed without overflow."""
    return _activation("Softplus", features, name)


@tf_export("nn.softsign", "math.softsign")
def softsign(features, name=None):
    """``features / (abs(features) + 1)``."""
    return _activation("Softsign", features, name)


@tf_export("nn.leaky_relu")
def leaky_relu(features, alpha=0.2, name=None):
    """``features`` where positive, ``alpha * features`` elsewhere; integer inputs are cast
    to float32 first, as TF does."""
    with name_scope(name, "LeakyRelu", [features]) as scope:
        features = convert_to_tensor(features, name="features")
        if features.dtype.is_integer:
            from tfcompat.ops import math_ops

            features = math_ops.cast(features, dtypes.float32)
        if isinstance(alpha, np.ndarray):
            alpha = alpha.item()
        return apply_op("LeakyRelu", name=scope, features=features, alpha=alpha).outputs[0]


# ---------------------------------------------------------------------------------------------
# BiasAdd
# ---------------------------------------------------------------------------------------------
def _bias_add_shape(op):
    value, bias = op.inputs[0].shape, op.inputs[1].shape
    bias = with_rank(bias, 1)
    nchw = op.attrs.get("data_format", b"NHWC") == b"NCHW"
    if nchw and value.rank is None:
        return [value]
    value = with_rank_at_least(value, 3 if nchw else 2)
    if value.rank is None:
        return [value]
    dims = value.as_list()
    channel = 1 if nchw else -1
    dims[channel] = merge_dim(dims[channel], bias.as_list()[0])
    return [TensorShape(dims)]


register_op(
    "BiasAdd",
    inputs=["value: T", "bias: T"],
    outputs=["output: T"],
    attrs=["T: numbertype", "data_format: {'NHWC', 'NCHW'} = 'NHWC'"],
    shape_fn=_bias_add_shape,
)
# The pre-``data_format`` op, still found in old GraphDefs.
register_op(
    "BiasAddV1",
    inputs=["value: T", "bias: T"],
    outputs=["output: T"],
    attrs=["T: numbertype"],
    shape_fn=_bias_add_shape,
)


@tf_export("nn.bias_add")
def bias_add(value, bias, data_format=None, name=None):
    """Adds the 1-D ``bias`` along the channel dimension of ``value`` (the last one for
    ``N...C`` data formats, dimension 1 for ``NC...``)."""
    with name_scope(name, "BiasAdd", [value, bias]) as scope:
        if data_format is not None:
            if data_format.startswith("NC"):
                data_format = "NCHW"
            elif data_format.startswith("N") and data_format.endswith("C"):
                data_format = "NHWC"
            else:
                raise ValueError(
                    "`data_format` must be of the form `N...C` or `NC...`. Received: "
                    f"data_format={data_format}"
                )
        value = convert_to_tensor(value, name="input")
        bias = convert_to_tensor(bias, dtype=value.dtype, name="bias")
        return apply_op(
            "BiasAdd", name=scope, value=value, bias=bias, data_format=data_format
        ).outputs[0]


# ---------------------------------------------------------------------------------------------
# Softmax and LogSoftmax
# ---------------------------------------------------------------------------------------------
def _softmax_shape(op):
    return [with_rank_at_least(op.inputs[0].shape, 1)]


register_op(
    "Softmax",
    inputs=["logits: T"],
    outputs=["softmax: T"],
    attrs=[f"T: {_FLOAT}"],
    shape_fn=_softmax_shape,
)
register_op(
    "LogSoftmax",
    inputs=["logits: T"],
    outputs=["logsoftmax: T"],
    attrs=[f"T: {_FLOAT}"],
    shape_fn=_softmax_shape,
)


def _swap_with_last(x, dim_index, last_index, name=None):
    """``x`` with dimensions ``dim_index`` and ``last_index`` exchanged, the permutation
    built from ranges and packs as TF builds it."""
    from tfcompat.ops import array_ops, reduction_ops

    perm = array_ops.concat(
        [
            reduction_ops.range(dim_index),
            [last_index],
            reduction_ops.range(dim_index + 1, last_index),
            [dim_index],
        ],
        0,
    )
    return array_ops.transpose(x, perm, name=name)


def _on_last_axis(op_type, inputs, dim, name):
    """Applies the last-axis op ``op_type`` along ``dim``: directly when ``dim`` is the last
    axis, else between two transposes that swap ``dim`` and the last axis."""
    from tfcompat.ops import array_ops, math_ops

    inputs = convert_to_tensor(inputs)
    shape = inputs.shape
    ndims = shape.rank
    if not isinstance(dim, Tensor) and dim != -1 and ndims is None:
        raise TypeError(
            f"{op_type} along axis {dim} needs the rank of its input to be known statically"
        )
    if not isinstance(dim, Tensor) and (dim == -1 or dim == ndims - 1):
        return apply_op(op_type, name=name, logits=inputs).outputs[0]

    dim_value = constant_value(dim) if isinstance(dim, Tensor) else dim
    if dim_value is not None and not -ndims <= int(dim_value) < ndims:
        raise errors.InvalidArgumentError(
            None,
            None,
            f"`dim` must be in the range [{-ndims}, {ndims}) where {ndims} is the number of "
            f"dimensions in the input. Received: dim={dim_value}",
        )
    rank = array_ops.rank(inputs)
    if not isinstance(dim, Tensor):
        if dim < 0:
            dim += rank
    else:
        dim = math_ops.where(math_ops.less(dim, 0), dim + rank, dim)
    input_rank = array_ops.rank(inputs)
    dim_axis = dim % ndims
    swapped = _swap_with_last(inputs, dim_axis, math_ops.subtract(input_rank, 1))
    output = apply_op(op_type, logits=swapped).outputs[0]
    output = _swap_with_last(output, dim_axis, math_ops.subtract(input_rank, 1), name=name)
    output.set_shape(shape)  # the transposes may lose the static shape
    return output


def _axis_or_dim(axis, dim):
    """TF's deprecated-argument lookup: ``dim`` is the old name of ``axis``."""
    if axis is not None and dim is not None:
        raise ValueError("Cannot specify both 'dim' and 'axis'.")
    return dim if axis is None else axis


@tf_export("nn.softmax", "math.softmax")
def softmax(logits, axis=None, name=None, dim=None):
    """``exp(logits) / reduce_sum(exp(logits), axis)``, computed stably; ``dim`` is the
    deprecated name of ``axis`` (default -1)."""
    axis = _axis_or_dim(axis, dim)
    return _on_last_axis("Softmax", logits, -1 if axis is None else axis, name)


@tf_export("nn.log_softmax", "math.log_softmax")
def log_softmax(logits, axis=None, name=None, dim=None):
    """``logits - log(reduce_sum(exp(logits), axis))``; ``dim`` is the deprecated name of
    ``axis`` (default -1)."""
    axis = _axis_or_dim(axis, dim)
    return _on_last_axis("LogSoftmax", logits, -1 if axis is None else axis, name)


# ---------------------------------------------------------------------------------------------
# Cross entropy and L2Loss
# ---------------------------------------------------------------------------------------------
def _broadcast_batch(a, b):
    """Batch dimension of two rank-2 operands that may broadcast (one of them 1)."""
    if a == 1:
        return b
    if b == 1:
        return a
    return merge_dim(a, b)


def _xent_shape(op):
    features, labels = op.inputs[0].shape, op.inputs[1].shape
    if features.rank is None and labels.rank is None:
        return [tensor_shape.unknown_shape(rank=1), tensor_shape.unknown_shape(rank=2)]
    for shape in (features, labels):
        if shape.rank is not None and shape.rank != 2:
            raise ValueError(f"Shape must be broadcasted with rank 2, but is rank {shape.rank}")
    f = features.as_list() if features.rank is not None else [None, None]
    lab = labels.as_list() if labels.rank is not None else [None, None]
    if features.rank is None or labels.rank is None:
        batch = f[0] if features.rank is not None else lab[0]
    else:
        batch = _broadcast_batch(f[0], lab[0])
    classes = merge_dim(f[1], lab[1])
    return [TensorShape([batch]), TensorShape([batch, classes])]


register_op(
    "SoftmaxCrossEntropyWithLogits",
    inputs=["features: T", "labels: T"],
    outputs=["loss: T", "backprop: T"],
    attrs=[f"T: {_FLOAT}"],
    shape_fn=_xent_shape,
)


def _sparse_xent_shape(op):
    features = with_rank(op.inputs[0].shape, 2)
    labels = with_rank(op.inputs[1].shape, 1)
    batch = merge_dim(features.as_list()[0], labels.as_list()[0])
    return [TensorShape([batch]), TensorShape([batch, features.as_list()[1]])]


register_op(
    "SparseSoftmaxCrossEntropyWithLogits",
    inputs=["features: T", "labels: Tlabels"],
    outputs=["loss: T", "backprop: T"],
    attrs=[f"T: {_FLOAT}", "Tlabels: {int32, int64} = int64"],
    shape_fn=_sparse_xent_shape,
)

register_op(
    "L2Loss",
    inputs=["t: T"],
    outputs=["output: T"],
    attrs=[f"T: {_FLOAT}"],
    shape_fn=lambda op: [tensor_shape.scalar()],
)


@tf_export("nn.l2_loss")
def l2_loss(t, name=None):
    """``sum(t ** 2) / 2``."""
    return apply_op("L2Loss", name=name, t=t).outputs[0]


def _ensure_xent_args(name, labels, logits):
    if labels is None or logits is None:
        raise ValueError(
            f"Both `labels` and `logits` must be provided for {name}"
            f"Received: labels={labels} and logits={logits}"
        )


def _flatten_outer_dims(x):
    """``x`` reshaped to a matrix ``[-1, last_dim]``, with the static shape TF gives it."""
    from tfcompat.ops import array_ops, math_ops

    rank = array_ops.rank(x)
    last_dim_size = array_ops.slice(array_ops.shape(x), [math_ops.subtract(rank, 1)], [1])
    output = array_ops.reshape(x, array_ops.concat([[-1], last_dim_size], 0))
    if x.shape.rank is not None:
        dims = x.shape.as_list()
        if all(d is not None for d in dims[:-1]):
            output.set_shape([int(np.prod(dims[:-1], dtype=np.int64)), dims[-1]])
    return output


def _move_axis_to_end(x, axis, rank):
    """``x`` transposed so that dimension ``axis`` (an int) comes last."""
    from tfcompat.ops import array_ops, reduction_ops

    perm = array_ops.concat(
        [reduction_ops.range(axis), reduction_ops.range(axis + 1, rank), [axis]], 0
    )
    return array_ops.transpose(x, perm)


@tf_export("nn.softmax_cross_entropy_with_logits_v2")
def softmax_cross_entropy_with_logits_v2(labels, logits, axis=None, name=None, dim=None):
    """Cross entropy between the distributions ``labels`` and ``softmax(logits)`` along
    ``axis`` (default -1): one loss per remaining position. Gradients flow into both."""
    from tfcompat.ops import array_ops, math_ops

    axis = _axis_or_dim(axis, dim)
    axis = -1 if axis is None else axis
    with name_scope(name, "softmax_cross_entropy_with_logits", [logits, labels]) as scope:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        # Half-precision inputs are computed in float32, as TF does.
        widen = logits.dtype in (dtypes.float16, dtypes.bfloat16)
        precise_logits = math_ops.cast(logits, dtypes.float32) if widen else logits
        labels = math_ops.cast(labels, precise_logits.dtype)
        input_rank = array_ops.rank(precise_logits)
        shape = logits.shape
        if axis != -1:
            precise_logits = _move_axis_to_end(precise_logits, axis, input_rank)
            labels = _move_axis_to_end(labels, axis, input_rank)
        input_shape = array_ops.shape(precise_logits)
        precise_logits = _flatten_outer_dims(precise_logits)
        labels = _flatten_outer_dims(labels)
        cost = apply_op(
            "SoftmaxCrossEntropyWithLogits", name=scope, features=precise_logits, labels=labels
        ).outputs[0]
        output_shape = array_ops.slice(input_shape, [0], [math_ops.subtract(input_rank, 1)])
        cost = array_ops.reshape(cost, output_shape)
        if shape.rank is not None:
            dims = shape.as_list()
            del dims[axis]
            cost.set_shape(dims)
        return math_ops.cast(cost, logits.dtype) if widen else cost


@tf_export("nn.softmax_cross_entropy_with_logits")
def softmax_cross_entropy_with_logits(labels=None, logits=None, dim=-1, name=None, axis=None):
    """The TF1 softmax cross entropy: as ``softmax_cross_entropy_with_logits_v2`` but no
    gradient flows into ``labels`` (they pass through ``StopGradient``)."""
    from tfcompat.ops import array_ops

    dim = _axis_or_dim(axis, dim)  # TF too rejects ``axis`` unless ``dim=None`` is passed
    _ensure_xent_args("softmax_cross_entropy_with_logits", labels, logits)
    with name_scope(name, "softmax_cross_entropy_with_logits_sg", [logits, labels]) as scope:
        labels = array_ops.stop_gradient(labels, name="labels_stop_gradient")
    return softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits, axis=dim, name=scope)


def _shape_equality_checks(labels, logits):
    """Run-time check that ``labels``' shape is ``logits``' without the last dimension, as
    TF adds when the static shapes cannot prove it (an ``assert_equal``)."""
    from tfcompat.ops import array_ops

    try:
        from tfcompat.ops import check_ops
    except ImportError:
        # Without the assertion ops the graph lacks TF's check; valid inputs compute the
        # same, and mismatched ones fail in the Reshape instead.
        return []
    return [check_ops.assert_equal(array_ops.shape(labels), array_ops.shape(logits)[:-1])]


@tf_export("nn.sparse_softmax_cross_entropy_with_logits")
def sparse_softmax_cross_entropy_with_logits(labels=None, logits=None, name=None):
    """Cross entropy between class indices ``labels`` (shape ``logits.shape[:-1]``, values
    in ``[0, num_classes)``) and ``softmax(logits)`` along the last axis."""
    from tfcompat.framework.scopes import control_dependencies
    from tfcompat.ops import array_ops, math_ops

    _ensure_xent_args("sparse_softmax_cross_entropy_with_logits", labels, logits)
    with name_scope(name, "SparseSoftmaxCrossEntropyWithLogits", [labels, logits]):
        labels = convert_to_tensor(labels)
        logits = convert_to_tensor(logits)
        widen = logits.dtype == dtypes.float16
        precise_logits = math_ops.cast(logits, dtypes.float32) if widen else logits
        labels_static_shape = labels.shape
        labels_shape = array_ops.shape(labels)
        logits_rank = logits.shape.rank
        static_shapes_fully_defined = (
            labels_static_shape.is_fully_defined() and logits.shape[:-1].is_fully_defined()
        )
        _check_sparse_xent_shapes(labels_static_shape, logits.shape, static_shapes_fully_defined)

        def finish(cost):
            return math_ops.cast(cost, dtypes.float16) if widen else cost

        if logits_rank == 2:
            return finish(_sparse_xent_op(precise_logits, labels, name))
        checks = [] if static_shapes_fully_defined else _shape_equality_checks(labels, logits)
        with control_dependencies(checks):
            num_classes = array_ops.shape(logits)[array_ops.rank(logits) - 1]
            precise_logits = array_ops.reshape(precise_logits, [-1, num_classes])
            labels = array_ops.reshape(labels, [-1])
            cost = _sparse_xent_op(precise_logits, labels, name)
            cost = array_ops.reshape(cost, labels_shape)
            cost.set_shape(labels_static_shape)
            return finish(cost)


def _sparse_xent_op(logits, labels, name):
    return apply_op(
        "SparseSoftmaxCrossEntropyWithLogits", name=name, features=logits, labels=labels
    ).outputs[0]


def _check_sparse_xent_shapes(labels_shape, logits_shape, fully_defined):
    if logits_shape.rank == 0:
        raise ValueError(f"`logits` cannot be a scalar. Received logits={logits_shape}`")
    if (
        logits_shape.rank is not None
        and labels_shape.rank is not None
        and labels_shape.rank != logits_shape.rank - 1
    ):
        raise ValueError(
            "`labels.shape.rank` must equal `logits.shape.rank - 1`. Received: "
            f"labels.shape={labels_shape} of rank {labels_shape.rank} and "
            f"logits.shape={logits_shape} of rank {logits_shape.rank}"
        )
    if fully_defined and labels_shape != logits_shape[:-1]:
        raise ValueError(
            "`labels.shape` must equal `logits.shape` except for the last dimension. "
            f"Received: labels.shape={labels_shape} and logits.shape={logits_shape}"
        )


# ---------------------------------------------------------------------------------------------
# TopKV2
# ---------------------------------------------------------------------------------------------
def _top_k_shape(op):
    shape = with_rank_at_least(op.inputs[0].shape, 1)
    k_rank = op.inputs[1].shape.rank
    if k_rank not in (None, 0):
        raise ValueError(f"Input must be scalar but has rank {k_rank}")
    k = static_scalar(op, 1)
    if shape.rank is None:
        return [shape, shape]
    dims = shape.as_list()
    if k is not None and dims[-1] is not None and dims[-1] < k:
        raise ValueError(f"input must have last dimension >= k = {k} but is {dims[-1]}")
    out = TensorShape(dims[:-1] + [k])
    return [out, out]


register_op(
    "TopKV2",
    inputs=["input: T", "k: Tk"],
    outputs=["values: T", "indices: index_type"],
    attrs=[
        "sorted: bool = true",
        "T: realnumbertype",
        "Tk: {int16, int32, int64} = int32",
        "index_type: {int16, int32, int64} = int32",
    ],
    shape_fn=_top_k_shape,
)

TopKV2 = collections.namedtuple("TopKV2", ["values", "indices"])


@tf_export("nn.top_k", "math.top_k")
def top_k(input, k=1, sorted=True, index_type=dtypes.int32, name=None):  # noqa: A002
    """The ``k`` largest entries of the last dimension and their indices; equal values
    keep their order (lower index first)."""
    op = apply_op("TopKV2", name=name, input=input, k=k, sorted=sorted, index_type=index_type)
    return TopKV2(*op.outputs)
