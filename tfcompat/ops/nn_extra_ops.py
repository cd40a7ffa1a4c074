"""More of ``tf.nn``, built node for node as TF 2.21 builds it: the activations ``crelu``,
``swish`` / ``silu`` (with TF's custom gradient) and ``gelu``;
``weighted_cross_entropy_with_logits``; ``weighted_moments``; and ``in_top_k`` with its op
``InTopKV2`` (not differentiable: TF registers no gradient for it)."""

from __future__ import annotations

from tfcompat.framework import dtypes, tensor_shape
from tfcompat.framework import graph as graph_lib
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op, convert_to_tensor
from tfcompat.framework.scopes import name_scope
from tfcompat.ops.custom_gradient import custom_gradient
from tfcompat.util.tf_export import tf_export


# ---------------------------------------------------------------------------------------------
# InTopKV2
# ---------------------------------------------------------------------------------------------
def _in_top_k_shape(op):
    predictions = op.inputs[0].shape.with_rank(2)
    targets = op.inputs[1].shape.with_rank(1)
    op.inputs[2].shape.with_rank(0)
    batch = predictions[0]
    if not batch.is_compatible_with(targets[0]):
        raise ValueError(f"Dimensions must be equal, but are {batch} and {targets[0]}")
    return [tensor_shape.TensorShape([batch.merge_with(targets[0])])]


register_op(
    "InTopKV2",
    inputs=["predictions: float", "targets: T", "k: T"],
    outputs=["precision: bool"],
    attrs=["T: {int32, int64} = DT_INT32"],
    shape_fn=_in_top_k_shape,
)


@tf_export("nn.in_top_k", "math.in_top_k")
def in_top_k(predictions, targets, k, name=None):
    """Whether each ``targets[i]`` is among the ``k`` largest ``predictions[i]`` (ties
    count in its favour; a non-finite row or out-of-range target gives False)."""
    with name_scope(name, "in_top_k"):
        return apply_op(
            "InTopKV2", name=name, predictions=predictions, targets=targets, k=k
        ).outputs[0]


# ---------------------------------------------------------------------------------------------
# Activations
# ---------------------------------------------------------------------------------------------
@tf_export("nn.crelu")
def crelu(features, name=None, axis=-1):
    """``relu(concat([x, -x], axis))``: the positive and negative parts side by side."""
    from tfcompat.ops import activation_ops, join_ops

    with name_scope(name, "CRelu", [features]) as name:
        features = convert_to_tensor(features, name="features")
        c = join_ops.concat([features, -features], axis, name=name)
        return activation_ops.relu(c)


@tf_export("nn.gelu")
def gelu(features, approximate=False, name=None):
    """``x * P(X <= x)`` for standard normal X: ``0.5 x erfc(-x / sqrt 2)``, or TF's tanh
    approximation when ``approximate``."""
    from tfcompat.ops import math_ops

    with name_scope(name, "Gelu", [features]):
        features = convert_to_tensor(features, name="features")
        if not features.dtype.is_floating:
            raise ValueError(
                "`features.dtype` must be a floating point tensor."
                f"Received:features.dtype={features.dtype}"
            )
        if approximate:
            coeff = math_ops.cast(0.044715, features.dtype)
            # One expression, so the nodes are created (and numbered) in TF's order.
            return (
                0.5
                * features
                * (
                    1.0
                    + math_ops.tanh(
                        0.7978845608028654 * (features + coeff * math_ops.pow(features, 3))
                    )
                )
            )
        scale = math_ops.cast(0.7071067811865476, features.dtype)
        return 0.5 * features * math_ops.erfc(-features * scale)


@tf_export("nn.swish", "nn.silu")
def swish(features, beta=1.0):
    """``x * sigmoid(beta * x)``, with TF's gradient (in ``features`` and ``beta``)."""
    from tfcompat.ops import math_ops, reduction_ops

    features = convert_to_tensor(features, name="features")
    beta = convert_to_tensor(beta, name="beta")
    beta = math_ops.cast(beta, features.dtype)

    @custom_gradient
    def swish_impl(features, beta):
        def grad(dy):
            with graph_lib.get_default_graph().control_dependencies([dy]):
                sigmoid_features = math_ops.sigmoid(beta * features)
            activation_grad = sigmoid_features * (
                1.0 + (beta * features) * (1.0 - sigmoid_features)
            )
            beta_grad = reduction_ops.reduce_sum(
                dy * math_ops.square(features) * sigmoid_features * (1.0 - sigmoid_features)
            )
            return dy * activation_grad, beta_grad

        return features * math_ops.sigmoid(beta * features), grad

    return swish_impl(features, beta)


# ---------------------------------------------------------------------------------------------
# Losses and statistics
# ---------------------------------------------------------------------------------------------
@tf_export("nn.weighted_cross_entropy_with_logits")
def weighted_cross_entropy_with_logits(
    labels=None, logits=None, pos_weight=None, name=None, targets=None
):
    """The logistic loss with positive examples weighted by ``pos_weight``:
    ``(1 - z) x + (1 + (q - 1) z) (log(1 + exp(-|x|)) + max(-x, 0))``."""
    from tfcompat.ops import activation_ops, math_ops
    from tfcompat.ops.conv_ops import deprecated_argument_lookup

    labels = deprecated_argument_lookup("labels", labels, "targets", targets)
    with name_scope(name, "logistic_loss", [logits, labels]) as name:
        logits = convert_to_tensor(logits, name="logits")
        labels = convert_to_tensor(labels, name="labels")
        if not labels.shape.is_compatible_with(logits.shape):
            raise ValueError(
                "`logits` and `labels` must have the same shape, received "
                f"({logits.shape} vs {labels.shape})."
            )
        log_weight = 1 + (pos_weight - 1) * labels
        softplus_neg = math_ops.log1p(math_ops.exp(-math_ops.abs(logits)))
        return math_ops.add(
            (1 - labels) * logits,
            log_weight * (softplus_neg + activation_ops.relu(-logits)),
            name=name,
        )


@tf_export("nn.weighted_moments")
def weighted_moments(x, axes, frequency_weights, name=None, keep_dims=None, keepdims=None):
    """The mean and variance of ``x`` over ``axes`` with each element counted
    ``frequency_weights`` times (broadcast against ``x``); 0/0 gives 0."""
    from tfcompat.ops import array_ops, math_ops, reduction_ops
    from tfcompat.ops.conv_ops import deprecated_argument_lookup

    keep_dims = deprecated_argument_lookup("keepdims", keepdims, "keep_dims", keep_dims)
    keep_dims = bool(keep_dims)
    with name_scope(name, "weighted_moments", [x, frequency_weights, axes]):
        x = convert_to_tensor(x, name="x")
        frequency_weights = convert_to_tensor(frequency_weights, name="frequency_weights")
        needs_cast = x.dtype == dtypes.float16
        if needs_cast:
            x = math_ops.cast(x, dtypes.float32)
        if frequency_weights.dtype != x.dtype:
            frequency_weights = math_ops.cast(frequency_weights, x.dtype)
        weighted_input_sum = reduction_ops.reduce_sum(
            frequency_weights * x, axes, name="weighted_input_sum", keepdims=True
        )
        broadcasted_weights = frequency_weights + array_ops.zeros_like(x)
        sum_of_weights = reduction_ops.reduce_sum(
            broadcasted_weights, axes, name="sum_of_weights", keepdims=True
        )
        weighted_mean = math_ops.div_no_nan(weighted_input_sum, sum_of_weights)
        weighted_distsq = reduction_ops.reduce_sum(
            frequency_weights * math_ops.squared_difference(x, weighted_mean),
            axes,
            name="weighted_distsq",
            keepdims=True,
        )
        weighted_variance = math_ops.div_no_nan(weighted_distsq, sum_of_weights)
        if not keep_dims:
            weighted_mean = array_ops.squeeze(weighted_mean, axis=axes)
            weighted_variance = array_ops.squeeze(weighted_variance, axis=axes)
        if needs_cast:
            weighted_mean = math_ops.cast(weighted_mean, dtypes.float16)
            weighted_variance = math_ops.cast(weighted_variance, dtypes.float16)
        return weighted_mean, weighted_variance
