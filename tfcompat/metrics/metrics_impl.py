"""``tf.metrics`` averages: mean, mean_tensor, accuracy, the error means, percentage_below,
mean_per_class_accuracy and mean_iou, built with the same ops and names as TF 2.21's
``tf.compat.v1.metrics``. Each returns ``(value, update_op)``."""

from __future__ import annotations

from tfcompat.framework import dtypes
from tfcompat.framework.op_helper import convert_to_tensor
from tfcompat.framework.scopes import control_dependencies
from tfcompat.losses.util import remove_squeezable_dimensions
from tfcompat.losses.weights_broadcast import broadcast_weights
from tfcompat.metrics.metric_utils import metric_variable, publish, remove_squeezable, safe_div
from tfcompat.ops import array_ops, math_ops, reduction_ops, state_ops
from tfcompat.ops.confusion_matrix import confusion_matrix_v2 as confusion_matrix
from tfcompat.ops.variable_scope import variable_scope
from tfcompat.util.tf_export import tf_export


def _mean_of(total, count):
    return safe_div(total, math_ops.maximum(count, 0), "value")


@tf_export("metrics.mean")
def mean(values, weights=None, metrics_collections=None, updates_collections=None, name=None):
    """The (weighted) mean of all ``values`` seen: running ``total`` and ``count``."""
    with variable_scope(name, "mean", (values, weights)):
        values = math_ops.cast(values, dtypes.float32)
        total = metric_variable([], dtypes.float32, name="total")
        count = metric_variable([], dtypes.float32, name="count")
        if weights is None:
            num_values = math_ops.cast(array_ops.size(values), dtypes.float32)
        else:
            values, _, weights = remove_squeezable(values, None, weights)
            weights = broadcast_weights(math_ops.cast(weights, dtypes.float32), values)
            values = math_ops.multiply(values, weights)
            num_values = reduction_ops.reduce_sum(weights)
        update_total_op = state_ops.assign_add(total, reduction_ops.reduce_sum(values))
        with control_dependencies([values]):
            update_count_op = state_ops.assign_add(count, num_values)
        mean_t = _mean_of(total, count)
        update_op = safe_div(update_total_op, math_ops.maximum(update_count_op, 0), "update_op")
        return publish(mean_t, update_op, metrics_collections, updates_collections)


@tf_export("metrics.mean_tensor")
def mean_tensor(
    values, weights=None, metrics_collections=None, updates_collections=None, name=None
):
    """The elementwise (weighted) mean of all ``values`` tensors seen."""
    with variable_scope(name, "mean", (values, weights)):
        values = math_ops.cast(values, dtypes.float32)
        total = metric_variable(values.shape, dtypes.float32, name="total_tensor")
        count = metric_variable(values.shape, dtypes.float32, name="count_tensor")
        num_values = array_ops.ones_like(values)
        if weights is not None:
            values, _, weights = remove_squeezable(predictions=values, labels=None, weights=weights)
            weights = broadcast_weights(math_ops.cast(weights, dtypes.float32), values)
            values = math_ops.multiply(values, weights)
            num_values = math_ops.multiply(num_values, weights)
        update_total_op = state_ops.assign_add(total, values)
        with control_dependencies([values]):
            update_count_op = state_ops.assign_add(count, num_values)
        mean_t = _mean_of(total, count)
        update_op = safe_div(update_total_op, math_ops.maximum(update_count_op, 0), "update_op")
        return publish(mean_t, update_op, metrics_collections, updates_collections)


@tf_export("metrics.accuracy")
def accuracy(
    labels,
    predictions,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """How often ``predictions`` equals ``labels`` (weighted mean of the matches)."""
    predictions, labels, weights = remove_squeezable(predictions, labels, weights)
    predictions.shape.assert_is_compatible_with(labels.shape)
    if labels.dtype != predictions.dtype:
        predictions = math_ops.cast(predictions, labels.dtype)
    is_correct = math_ops.cast(math_ops.equal(predictions, labels), dtypes.float32)
    return mean(is_correct, weights, metrics_collections, updates_collections, name or "accuracy")


@tf_export("metrics.mean_absolute_error")
def mean_absolute_error(
    labels,
    predictions,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """The (weighted) mean of ``|predictions - labels|``."""
    predictions, labels, weights = remove_squeezable(predictions, labels, weights)
    errors = math_ops.abs(predictions - labels)
    return mean(
        errors, weights, metrics_collections, updates_collections, name or "mean_absolute_error"
    )


@tf_export("metrics.mean_squared_error")
def mean_squared_error(
    labels,
    predictions,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """The (weighted) mean of ``(labels - predictions) ** 2``."""
    predictions, labels, weights = remove_squeezable(predictions, labels, weights)
    squared_error = math_ops.squared_difference(labels, predictions)
    return mean(
        squared_error,
        weights,
        metrics_collections,
        updates_collections,
        name or "mean_squared_error",
    )


@tf_export("metrics.root_mean_squared_error")
def root_mean_squared_error(
    labels,
    predictions,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """The square root of ``mean_squared_error``."""
    predictions, labels, weights = remove_squeezable(predictions, labels, weights)
    mse, update_mse_op = mean_squared_error(
        labels, predictions, weights, None, None, name or "root_mean_squared_error"
    )
    rmse = math_ops.sqrt(mse)
    update_rmse_op = math_ops.sqrt(update_mse_op)
    return publish(rmse, update_rmse_op, metrics_collections, updates_collections)


@tf_export("metrics.mean_relative_error")
def mean_relative_error(
    labels,
    predictions,
    normalizer,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """The (weighted) mean of ``|labels - predictions| / normalizer`` (0 where the
    normalizer is 0)."""
    predictions, labels, weights = remove_squeezable(predictions, labels, weights)
    predictions, normalizer = remove_squeezable_dimensions(predictions, normalizer)
    predictions.shape.assert_is_compatible_with(normalizer.shape)
    relative_errors = math_ops.where(
        math_ops.equal(normalizer, 0.0),
        array_ops.zeros_like(labels),
        math_ops.divide(math_ops.abs(labels - predictions), normalizer),
    )
    return mean(
        relative_errors,
        weights,
        metrics_collections,
        updates_collections,
        name or "mean_relative_error",
    )


@tf_export("metrics.mean_cosine_distance")
def mean_cosine_distance(
    labels,
    predictions,
    dim,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """``1 -`` the (weighted) mean of ``sum(predictions * labels, dim)``."""
    predictions, labels, weights = remove_squeezable(predictions, labels, weights)
    radial_diffs = math_ops.multiply(predictions, labels)
    radial_diffs = reduction_ops.reduce_sum(radial_diffs, axis=[dim], keepdims=True)
    mean_distance, update_op = mean(
        radial_diffs, weights, None, None, name or "mean_cosine_distance"
    )
    mean_distance = math_ops.subtract(1.0, mean_distance)
    update_op = math_ops.subtract(1.0, update_op)
    return publish(mean_distance, update_op, metrics_collections, updates_collections)


@tf_export("metrics.percentage_below")
def percentage_below(
    values,
    threshold,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """The (weighted) fraction of ``values`` below ``threshold``."""
    is_below = math_ops.cast(math_ops.less(values, threshold), dtypes.float32)
    return mean(
        is_below,
        weights,
        metrics_collections,
        updates_collections,
        name or "percentage_below_threshold",
    )


# ---------------------------------------------------------------------------------------------
# Per-class metrics
# ---------------------------------------------------------------------------------------------
def _flatten(x):
    return array_ops.reshape(x, [-1]) if x.shape.rank > 1 else x


@tf_export("metrics.mean_per_class_accuracy")
def mean_per_class_accuracy(
    labels,
    predictions,
    num_classes,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """The mean over classes of each class's (weighted) accuracy; per class, running sums
    of weights (``total``) and of correct weights (``count``) kept by ``ScatterAdd``."""
    with variable_scope(name, "mean_accuracy", (predictions, labels, weights)):
        labels = _flatten(math_ops.cast(labels, dtypes.int64))
        predictions = _flatten(convert_to_tensor(predictions))
        predictions.shape.assert_is_compatible_with(labels.shape)
        total = metric_variable([num_classes], dtypes.float32, name="total")
        count = metric_variable([num_classes], dtypes.float32, name="count")
        ones = array_ops.ones([array_ops.size(labels)], dtypes.float32)
        if labels.dtype != predictions.dtype:
            predictions = math_ops.cast(predictions, labels.dtype)
        is_correct = math_ops.cast(math_ops.equal(predictions, labels), dtypes.float32)
        if weights is not None:
            weights = _flatten(convert_to_tensor(weights))
            weights = math_ops.cast(weights, dtypes.float32)
            is_correct *= weights
            ones *= weights
        update_total_op = state_ops.scatter_add(total, labels, ones)
        update_count_op = state_ops.scatter_add(count, labels, is_correct)
        per_class = math_ops.div_no_nan(count, math_ops.maximum(total, 0))
        mean_accuracy_v = reduction_ops.reduce_mean(per_class, name="mean_accuracy")
        update_op = safe_div(update_count_op, math_ops.maximum(update_total_op, 0), "update_op")
        return publish(mean_accuracy_v, update_op, metrics_collections, updates_collections)


def _streaming_confusion_matrix(labels, predictions, num_classes, weights=None):
    total_cm = metric_variable(
        [num_classes, num_classes], dtypes.float64, name="total_confusion_matrix"
    )
    predictions = math_ops.cast(predictions, dtypes.int64)
    labels = math_ops.cast(labels, dtypes.int64)
    num_classes = math_ops.cast(num_classes, dtypes.int64)
    predictions, labels = _flatten(predictions), _flatten(labels)
    if weights is not None and weights.shape.rank > 1:
        weights = array_ops.reshape(weights, [-1])
    current_cm = confusion_matrix(labels, predictions, num_classes, weights, dtypes.float64)
    return total_cm, state_ops.assign_add(total_cm, current_cm)


def _mean_iou_of(total_cm):
    """Mean over classes that occur (in labels or predictions) of the class's
    intersection over union ``cm[i, i] / (row_i + col_i - cm[i, i])``."""
    sum_over_row = math_ops.cast(reduction_ops.reduce_sum(total_cm, 0), dtypes.float32)
    sum_over_col = math_ops.cast(reduction_ops.reduce_sum(total_cm, 1), dtypes.float32)
    cm_diag = math_ops.cast(array_ops.tensor_diag_part(total_cm), dtypes.float32)
    denominator = sum_over_row + sum_over_col - cm_diag
    num_valid_entries = reduction_ops.reduce_sum(
        math_ops.cast(math_ops.not_equal(denominator, 0), dtype=dtypes.float32)
    )
    denominator = math_ops.where(
        math_ops.greater(denominator, 0), denominator, array_ops.ones_like(denominator)
    )
    iou = math_ops.divide(cm_diag, denominator)
    return math_ops.where(
        math_ops.greater(num_valid_entries, 0),
        reduction_ops.reduce_sum(iou, name="mean_iou") / num_valid_entries,
        0,
    )


@tf_export("metrics.mean_iou")
def mean_iou(
    labels,
    predictions,
    num_classes,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """Mean intersection-over-union over a running confusion matrix. The update op returns
    the updated confusion matrix (not the mean), as in TF."""
    with variable_scope(name, "mean_iou", (predictions, labels, weights)):
        predictions.shape.assert_is_compatible_with(labels.shape)
        total_cm, update_op = _streaming_confusion_matrix(labels, predictions, num_classes, weights)
        return publish(_mean_iou_of(total_cm), update_op, metrics_collections, updates_collections)
