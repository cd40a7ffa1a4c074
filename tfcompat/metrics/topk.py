"""``tf.metrics`` over the top ``k`` predicted classes: precision@k, recall@k and average
precision@k (and their ``*_at_top_k`` forms taking class indices), built with the same ops
and names as TF 2.21's ``tf.compat.v1.metrics``.

Labels are int64 class ids, dense ``[D1, ... DN, num_labels]`` (``-1`` pads) or a
SparseTensor, or ``[D1, ... DN]`` for one label per row. Per row, true positives are the
size of the intersection of the top-k ids with the labels, false positives / negatives the
sizes of the set differences; these set ops (``tfcompat/ops/sets_ops.py``) run on the host,
the running sums in float64 local variables on the device.
"""

from __future__ import annotations

from tfcompat.framework import dtypes
from tfcompat.framework.scopes import add_to_collections, control_dependencies, name_scope
from tfcompat.framework.sparse_tensor import (
    SparseTensor,
    SparseTensorValue,
    convert_to_tensor_or_sparse_tensor,
)
from tfcompat.losses.weights_broadcast import assert_broadcastable, broadcast_weights
from tfcompat.metrics.metric_utils import metric_variable, safe_div
from tfcompat.ops import array_ops, join_ops, math_ops, reduction_ops, sparse_ops, state_ops
from tfcompat.ops import sets_ops as sets
from tfcompat.ops.cond import cond
from tfcompat.ops.nn_ops import top_k
from tfcompat.ops.pad_ops import tile
from tfcompat.ops.slicing_ops import slice as slice_
from tfcompat.util.tf_export import tf_export


def _at_k_name(name, k=None, class_id=None):
    name = f"{name}_at_{k}" if k is not None else f"{name}_at_k"
    return name if class_id is None else f"{name}_class{class_id}"


def _publish(collections, value):
    if collections:
        add_to_collections(collections, value)


# ---------------------------------------------------------------------------------------------
# Labels against top-k ids
# ---------------------------------------------------------------------------------------------
def _maybe_expand_labels(labels, predictions):
    """``labels`` with the rank of ``predictions`` (a trailing label dimension added to
    ``[D1, ... DN]`` labels), statically where ranks are known, else by ``tf.cond``."""
    with name_scope(None, "expand_labels", (labels, predictions)) as scope:
        labels = convert_to_tensor_or_sparse_tensor(labels)
        if isinstance(labels, SparseTensor):
            return cond(
                math_ops.equal(array_ops.rank(predictions), array_ops.size(labels.dense_shape) + 1),
                lambda: sparse_ops.sparse_reshape(
                    labels,
                    shape=join_ops.concat((labels.dense_shape, (1,)), 0),
                    name=scope,
                ),
                lambda: labels,
            )
        labels_rank = labels.shape.rank
        predictions_rank = predictions.shape.rank
        if labels_rank is not None and predictions_rank is not None:
            if predictions_rank == labels_rank:
                return labels
            if predictions_rank == labels_rank + 1:
                return array_ops.expand_dims(labels, -1, name=scope)
            raise ValueError(
                f"Unexpected labels shape {labels.shape} for predictions shape "
                f"{predictions.shape}. Predictions rank should be the same rank as labels "
                "rank or labels rank plus one ."
            )
        return cond(
            math_ops.equal(array_ops.rank(predictions), array_ops.rank(labels) + 1),
            lambda: array_ops.expand_dims(labels, -1, name=scope),
            lambda: labels,
        )


def _select_class_id(ids, selected_id):
    """Only the entries of ``ids`` equal to ``selected_id``, as a SparseTensor of ``ids``'
    dense shape."""
    ids = convert_to_tensor_or_sparse_tensor(ids)
    if isinstance(ids, SparseTensor):
        return sparse_ops.sparse_retain(ids, math_ops.equal(ids.values, selected_id))
    ids_shape = array_ops.shape(ids, out_type=dtypes.int64)
    ids_last_dim = array_ops.size(ids_shape) - 1
    filled_selected_id_shape = reduction_ops.reduced_shape(
        ids_shape, array_ops.reshape(ids_last_dim, [1])
    )
    filled_selected_id = array_ops.fill(
        filled_selected_id_shape, math_ops.cast(selected_id, dtypes.int64)
    )
    result = sets.set_intersection(filled_selected_id, ids)
    return SparseTensor(indices=result.indices, values=result.values, dense_shape=ids_shape)


def _maybe_select_class_id(labels, predictions_idx, selected_id=None):
    if selected_id is None:
        return labels, predictions_idx
    return (
        _select_class_id(labels, selected_id),
        _select_class_id(predictions_idx, selected_id),
    )


def _weighted_set_size(sparse, weights):
    """float64 sizes of the sets of ``sparse``, times ``weights`` (checked to broadcast)."""
    counts = math_ops.cast(sets.set_size(sparse), dtypes.float64)
    if weights is None:
        return counts
    with control_dependencies((assert_broadcastable(weights, counts),)):
        weights = math_ops.cast(weights, dtypes.float64)
        return math_ops.multiply(counts, weights)


# Per-row counts: scope name and the set operation of (predictions_idx, labels) counted.
_COUNTS = {
    "true_positives": lambda p, labels: sets.set_intersection(p, labels),
    "false_positives": lambda p, labels: sets.set_difference(p, labels, aminusb=True),
    "false_negatives": lambda p, labels: sets.set_difference(p, labels, aminusb=False),
}


def _sparse_count_at_k(kind, labels, predictions_idx, class_id=None, weights=None, name=None):
    """A ``[D1, ... DN]`` float64 tensor of per-row ``kind`` counts (see ``_COUNTS``)."""
    with name_scope(name, kind, (predictions_idx, labels, weights)):
        labels, predictions_idx = _maybe_select_class_id(labels, predictions_idx, class_id)
        return _weighted_set_size(_COUNTS[kind](predictions_idx, labels), weights)


# Streaming counter scope names (TF's ``true_positive_at_<k>``, ...) by count kind.
_COUNTER_NAMES = {
    "true_positives": "true_positive",
    "false_positives": "false_positive",
    "false_negatives": "false_negative",
}


def _streaming_count_at_k(kind, labels, predictions_idx, k, class_id, weights):
    """A float64 local variable summing the batch totals of ``kind`` counts, and its
    ``assign_add`` update."""
    default = _at_k_name(_COUNTER_NAMES[kind], k, class_id=class_id)
    with name_scope(None, default, (predictions_idx, labels, weights)) as scope:
        counts = _sparse_count_at_k(
            kind, labels, predictions_idx, class_id=class_id, weights=weights
        )
        batch_total = math_ops.cast(reduction_ops.reduce_sum(counts), dtypes.float64)
        var = metric_variable([], dtypes.float64, name=scope)
        return var, state_ops.assign_add(var, batch_total, name="update")


def _ratio_at_top_k(
    kind,
    labels,
    predictions_idx,
    k,
    class_id,
    weights,
    metrics_collections,
    updates_collections,
    name,
    metric_name,
):
    """``tp / (tp + other)`` over running sums, ``other`` being false positives (precision)
    or false negatives (recall)."""
    default = _at_k_name(metric_name, k, class_id)
    with name_scope(name, default, (predictions_idx, labels, weights)) as scope:
        labels = _maybe_expand_labels(labels, predictions_idx)
        top_k_idx = math_ops.cast(predictions_idx, dtypes.int64)
        tp, tp_update = _streaming_count_at_k(
            "true_positives", labels, top_k_idx, k, class_id, weights
        )
        other, other_update = _streaming_count_at_k(kind, labels, top_k_idx, k, class_id, weights)
        metric = math_ops.divide(tp, math_ops.add(tp, other), name=scope)
        _publish(metrics_collections, metric)
        update = math_ops.divide(tp_update, math_ops.add(tp_update, other_update), name="update")
        _publish(updates_collections, update)
        return metric, update


# ---------------------------------------------------------------------------------------------
# Precision and recall
# ---------------------------------------------------------------------------------------------
@tf_export("metrics.precision_at_top_k")
def precision_at_top_k(
    labels,
    predictions_idx,
    k=None,
    class_id=None,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """Precision of top-k class ids ``predictions_idx`` ``[D1, ... DN, k]`` against
    ``labels``: running true positives over true plus false positives. With ``class_id``,
    only that class counts. ``k`` only names the scope."""
    return _ratio_at_top_k(
        "false_positives",
        labels,
        predictions_idx,
        k,
        class_id,
        weights,
        metrics_collections,
        updates_collections,
        name,
        "precision",
    )


@tf_export("metrics.precision_at_k")
def precision_at_k(
    labels,
    predictions,
    k,
    class_id=None,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """``precision_at_top_k`` of the ``k`` largest ``predictions`` (logits per class)."""
    default = _at_k_name("precision", k, class_id)
    with name_scope(name, default, (predictions, labels, weights)) as scope:
        _, top_k_idx = top_k(predictions, k)
        return precision_at_top_k(
            labels,
            top_k_idx,
            k,
            class_id,
            weights,
            metrics_collections,
            updates_collections,
            scope,
        )


@tf_export("metrics.sparse_precision_at_k")
def sparse_precision_at_k(
    labels,
    predictions,
    k,
    class_id=None,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """Deprecated alias of ``precision_at_k``."""
    return precision_at_k(
        labels,
        predictions,
        k,
        class_id,
        weights,
        metrics_collections,
        updates_collections,
        name,
    )


@tf_export("metrics.recall_at_top_k")
def recall_at_top_k(
    labels,
    predictions_idx,
    k=None,
    class_id=None,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """Recall of top-k class ids ``predictions_idx`` against ``labels``: running true
    positives over true positives plus false negatives."""
    return _ratio_at_top_k(
        "false_negatives",
        labels,
        predictions_idx,
        k,
        class_id,
        weights,
        metrics_collections,
        updates_collections,
        name,
        "recall",
    )


@tf_export("metrics.recall_at_k")
def recall_at_k(
    labels,
    predictions,
    k,
    class_id=None,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """``recall_at_top_k`` of the ``k`` largest ``predictions``."""
    default = _at_k_name("recall", k, class_id)
    with name_scope(name, default, (predictions, labels, weights)) as scope:
        _, top_k_idx = top_k(predictions, k)
        return recall_at_top_k(
            labels,
            top_k_idx,
            k,
            class_id,
            weights,
            metrics_collections,
            updates_collections,
            scope,
        )


# ---------------------------------------------------------------------------------------------
# Average precision
# ---------------------------------------------------------------------------------------------
def _expand_and_tile(tensor, multiple, dim=0, name=None):
    """``tensor`` with a new dimension ``dim`` repeated ``multiple`` times (dense or
    sparse)."""
    if multiple < 1:
        raise ValueError(
            f"Invalid argument multiple={multiple} for expand_and_tile  call. `multiple` "
            "must be an integer > 0"
        )
    with name_scope(name, "expand_and_tile", (tensor, multiple, dim)) as scope:
        tensor = convert_to_tensor_or_sparse_tensor(tensor)
        if isinstance(tensor, SparseTensor):
            return _expand_and_tile_sparse(tensor, multiple, dim, scope)
        expanded = array_ops.expand_dims(tensor, dim if dim >= 0 else dim - 1, name="expand")
        if multiple == 1:
            return expanded
        ones = array_ops.ones_like(array_ops.shape(tensor))
        tile_multiples = join_ops.concat((ones[:dim], (multiple,), ones[dim:]), 0, name="multiples")
        return tile(expanded, tile_multiples, name=scope)


def _expand_and_tile_sparse(tensor, multiple, dim, scope):
    if dim < 0:
        expand_dims = array_ops.reshape(array_ops.size(tensor.dense_shape) + dim, [1])
    else:
        expand_dims = [dim]
    expanded_shape = join_ops.concat(
        (
            slice_(tensor.dense_shape, [0], expand_dims),
            [1],
            slice_(tensor.dense_shape, expand_dims, [-1]),
        ),
        0,
        name="expanded_shape",
    )
    expanded = sparse_ops.sparse_reshape(tensor, shape=expanded_shape, name="expand")
    if multiple == 1:
        return expanded
    return sparse_ops.sparse_concat(dim - 1 if dim < 0 else dim, [expanded] * multiple, name=scope)


def _num_relevant(labels, k):
    """Per row, ``min(k, number of labels)`` (dense labels: the non-negative ones)."""
    if k < 1:
        raise ValueError(f"Invalid k={k}")
    with name_scope(None, "num_relevant", (labels,)) as scope:
        labels = convert_to_tensor_or_sparse_tensor(labels)
        if isinstance(labels, SparseTensor):
            return math_ops.minimum(sets.set_size(labels), k, name=scope)
        num_labels = reduction_ops.reduce_sum(
            math_ops.where_v2(
                math_ops.greater_equal(labels, 0),
                array_ops.ones_like(labels),
                array_ops.zeros_like(labels),
            ),
            axis=-1,
        )
        return math_ops.minimum(num_labels, k, name=scope)


def _sparse_average_precision_at_top_k(labels, predictions_idx):
    """Per row, the average over its relevant items of the precision at each rank where a
    label was retrieved: ``sum_i P(i) rel(i) / min(k, num_labels)``."""
    with name_scope(None, "average_precision", (predictions_idx, labels)) as scope:
        predictions_idx = math_ops.cast(predictions_idx, dtypes.int64, name="predictions_idx")
        if predictions_idx.shape.rank == 0:
            raise ValueError("The rank of `predictions_idx` must be at least 1.")
        k = predictions_idx.shape.as_list()[-1]
        if k is None:
            raise ValueError(
                "The last dimension of predictions_idx must be set. Currently, it is None."
            )
        labels = _maybe_expand_labels(labels, predictions_idx)
        # One prediction per rank ([D1, ... DN, k, 1]) against the labels repeated k times.
        predictions_idx_per_k = array_ops.expand_dims(
            predictions_idx, -1, name="predictions_idx_per_k"
        )
        labels_per_k = _expand_and_tile(labels, multiple=k, dim=-1, name="labels_per_k")
        relevant_per_k = _sparse_count_at_k(
            "true_positives", labels_per_k, predictions_idx_per_k, name="relevant_per_k"
        )
        tp_per_k = reduction_ops.cumsum(relevant_per_k, axis=-1, name="tp_per_k")
        retrieved_per_k = reduction_ops.cumsum(
            array_ops.ones_like(relevant_per_k), axis=-1, name="retrieved_per_k"
        )
        precision_per_k = math_ops.divide(
            math_ops.cast(tp_per_k, dtypes.float64),
            math_ops.cast(retrieved_per_k, dtypes.float64),
            name="precision_per_k",
        )
        relevant_precision_per_k = math_ops.multiply(
            precision_per_k,
            math_ops.cast(relevant_per_k, dtypes.float64),
            name="relevant_precision_per_k",
        )
        precision_sum = reduction_ops.reduce_sum(
            relevant_precision_per_k, axis=(-1,), name="precision_sum"
        )
        num_relevant_items = math_ops.cast(_num_relevant(labels, k), dtypes.float64)
        return math_ops.divide(precision_sum, num_relevant_items, name=scope)


def _streaming_average_precision_at_top_k(
    labels, predictions_idx, weights, metrics_collections, updates_collections, name
):
    """Running (weighted) sum of per-row average precisions over the running sum of the
    row weights (each row's maximum is 1)."""
    default = "average_precision_at_top_k"
    with name_scope(name, default, (predictions_idx, labels, weights)) as scope:
        average_precision = _sparse_average_precision_at_top_k(labels, predictions_idx)
        if weights is not None:
            weights = broadcast_weights(math_ops.cast(weights, dtypes.float64), average_precision)
            average_precision = math_ops.multiply(average_precision, weights)
        with name_scope(None, "max", (average_precision,)) as max_scope:
            max_var = metric_variable([], dtypes.float64, name=max_scope)
            if weights is None:
                batch_max = math_ops.cast(
                    array_ops.size(average_precision, name="batch_max"), dtypes.float64
                )
            else:
                batch_max = reduction_ops.reduce_sum(weights, name="batch_max")
            max_update = state_ops.assign_add(max_var, batch_max, name="update")
        with name_scope(None, "total", (average_precision,)) as total_scope:
            total_var = metric_variable([], dtypes.float64, name=total_scope)
            batch_total = reduction_ops.reduce_sum(average_precision, name="batch_total")
            total_update = state_ops.assign_add(total_var, batch_total, name="update")
        mean_average_precision = safe_div(total_var, max_var, name="mean")
        _publish(metrics_collections, mean_average_precision)
        update = safe_div(total_update, max_update, name=scope)
        _publish(updates_collections, update)
        return mean_average_precision, update


def _clean_out_of_range_indices(labels, num_classes):
    """``labels`` with ids ``>= num_classes`` replaced by ``-1`` (by ``tf.cond`` on the
    largest label)."""
    is_sparse = isinstance(labels, (SparseTensor, SparseTensorValue))

    def clean(values):
        return math_ops.where_v2(
            math_ops.greater_equal(values, num_classes), -1 * array_ops.ones_like(values), values
        )

    def clean_labels():
        if is_sparse:
            return type(labels)(
                indices=labels.indices,
                values=clean(labels.values),
                dense_shape=labels.dense_shape,
            )
        return clean(labels)

    max_labels = reduction_ops.reduce_max(labels.values if is_sparse else labels)
    return cond(math_ops.greater_equal(max_labels, num_classes), clean_labels, lambda: labels)


@tf_export("metrics.average_precision_at_k")
def average_precision_at_k(
    labels,
    predictions,
    k,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """Mean average precision@k of ``predictions`` (logits per class) against ``labels``;
    labels ``>= num_classes`` are ignored."""
    if k < 1:
        raise ValueError(f"Invalid k={k}. `k` should be >= 1.")
    default = _at_k_name("average_precision", k)
    with name_scope(name, default, (predictions, labels, weights)) as scope:
        _, predictions_idx = top_k(predictions, k)
        num_classes = math_ops.cast(array_ops.shape(predictions)[-1], dtypes.int64)
        labels = _clean_out_of_range_indices(labels, num_classes)
        return _streaming_average_precision_at_top_k(
            labels, predictions_idx, weights, metrics_collections, updates_collections, scope
        )


@tf_export("metrics.sparse_average_precision_at_k")
def sparse_average_precision_at_k(
    labels,
    predictions,
    k,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """Deprecated alias of ``average_precision_at_k``."""
    return average_precision_at_k(
        labels, predictions, k, weights, metrics_collections, updates_collections, name
    )
