"""What every streaming metric shares: its local accumulator variables, the alignment of
predictions, labels and weights, and how the value and update tensors are published.

A metric keeps running sums in variables of the ``LOCAL_VARIABLES`` and ``METRIC_VARIABLES``
collections (zeros until ``tf.local_variables_initializer()`` runs); its ``update_op``
adds one batch and returns the new value, its value tensor reads the sums.
"""

from __future__ import annotations

from tfcompat.framework import dtypes
from tfcompat.framework.graph import GraphKeys
from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.framework.scopes import add_to_collections
from tfcompat.losses.util import remove_squeezable_dimensions
from tfcompat.ops import array_ops, math_ops
from tfcompat.ops.cond import cond
from tfcompat.variables import Variable


def metric_variable(shape, dtype, validate_shape=True, name=None):
    """A zero-initialized, non-trainable local variable holding a metric's running sums."""
    return Variable(
        lambda: array_ops.zeros(shape, dtype),
        trainable=False,
        collections=[GraphKeys.LOCAL_VARIABLES, GraphKeys.METRIC_VARIABLES],
        validate_shape=validate_shape,
        name=name,
    )


def publish(value, update_op, metrics_collections, updates_collections):
    """Adds the value and update tensors to their collections; returns the pair."""
    if metrics_collections:
        add_to_collections(metrics_collections, value)
    if updates_collections:
        add_to_collections(updates_collections, update_op)
    return value, update_op


def read_variable(var, metrics_collections):
    """The value tensor of a metric that is a variable itself (an Identity of it)."""
    value = array_ops.identity(var)
    if metrics_collections:
        add_to_collections(metrics_collections, value)
    return value


def _align_weights_statically(weights, p_rank, w_rank):
    if w_rank - p_rank == 1:
        return array_ops.squeeze(weights, [-1])
    if p_rank - w_rank == 1:
        return array_ops.expand_dims(weights, [-1])
    return weights


def _align_weights_dynamically(predictions, weights):
    """``weights`` squeezed or expanded by ``tf.cond`` on the run-time rank difference."""
    w_rank_t = array_ops.rank(weights)
    rank_diff = w_rank_t - array_ops.rank(predictions)
    w_shape = weights.shape

    def maybe_expand():
        return cond(
            math_ops.equal(rank_diff, -1),
            lambda: array_ops.expand_dims(weights, [-1]),
            lambda: weights,
        )

    if w_shape.rank is not None and not w_shape.dims[-1].is_compatible_with(1):
        maybe_squeeze = lambda: weights  # noqa: E731 - a last dim other than 1 stays
    else:
        maybe_squeeze = lambda: array_ops.squeeze(weights, [-1])  # noqa: E731

    def maybe_adjust():
        return cond(math_ops.equal(rank_diff, 1), maybe_squeeze, maybe_expand)

    return cond(math_ops.equal(w_rank_t, 0), lambda: weights, maybe_adjust)


def remove_squeezable(predictions, labels, weights):
    """``(predictions, labels, weights)`` with ranks aligned: a trailing size-1 dimension of
    predictions or labels is dropped, and weights lose or gain a trailing dimension to
    match predictions (TF's ``metrics_impl._remove_squeezable_dimensions``)."""
    predictions = convert_to_tensor(predictions)
    if labels is not None:
        labels, predictions = remove_squeezable_dimensions(labels, predictions)
        predictions.shape.assert_is_compatible_with(labels.shape)
    if weights is None:
        return predictions, labels, None
    weights = convert_to_tensor(weights)
    w_rank, p_rank = weights.shape.rank, predictions.shape.rank
    if w_rank == 0:
        return predictions, labels, weights
    if p_rank is not None and w_rank is not None:
        weights = _align_weights_statically(weights, p_rank, w_rank)
    else:
        weights = _align_weights_dynamically(predictions, weights)
    return predictions, labels, weights


def safe_div(numerator, denominator, name):
    """``numerator / denominator``, 0 where the denominator is 0."""
    return math_ops.div_no_nan(numerator, denominator, name=name)


def as_float(x):
    return math_ops.cast(x, dtypes.float32)
