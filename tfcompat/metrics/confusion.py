"""``tf.metrics`` of binary decisions: true/false positive/negative counts (at a 0/1
decision or at thresholds), precision, recall, AUC and sensitivity/specificity, built with
the same ops and names as TF 2.21's ``tf.compat.v1.metrics``."""

from __future__ import annotations

from tfcompat.framework import dtypes
from tfcompat.framework.scopes import control_dependencies
from tfcompat.losses.weights_broadcast import broadcast_weights
from tfcompat.metrics import asserts
from tfcompat.metrics.metric_utils import metric_variable, publish, read_variable, remove_squeezable
from tfcompat.ops import array_ops, math_ops, reduction_ops, state_ops
from tfcompat.ops.variable_scope import variable_scope
from tfcompat.util.tf_export import tf_export

_KEPSILON = 1e-7  # thresholds just outside [0, 1] so every prediction falls on one side

# ---------------------------------------------------------------------------------------------
# Counts at the 0/1 decision
# ---------------------------------------------------------------------------------------------
# kind -> (label value, prediction value) that the count accepts
_CONDITIONS = {
    "true_positives": (True, True),
    "false_positives": (False, True),
    "true_negatives": (False, False),
    "false_negatives": (True, False),
}


def _count_condition(values, weights, metrics_collections, updates_collections):
    """A running (weighted) count of the true elements of boolean ``values``."""
    asserts.assert_type(values, dtypes.bool)
    count = metric_variable([], dtypes.float32, name="count")
    values = math_ops.cast(values, dtypes.float32)
    if weights is not None:
        rank_check = asserts.assert_rank_in(weights, (0, array_ops.rank(values)))
        with control_dependencies((rank_check,)):
            weights = math_ops.cast(weights, dtypes.float32)
            values = math_ops.multiply(values, weights)
    value_tensor = read_variable(count, metrics_collections)
    update_op = state_ops.assign_add(count, reduction_ops.reduce_sum(values))
    return publish(value_tensor, update_op, None, updates_collections)


def _count(kind, labels, predictions, weights, metrics_collections, updates_collections, name):
    with variable_scope(name, kind, (predictions, labels, weights)):
        predictions, labels, weights = remove_squeezable(
            math_ops.cast(predictions, dtype=dtypes.bool),
            math_ops.cast(labels, dtype=dtypes.bool),
            weights,
        )
        label_value, prediction_value = _CONDITIONS[kind]
        hits = math_ops.logical_and(
            math_ops.equal(labels, label_value), math_ops.equal(predictions, prediction_value)
        )
        return _count_condition(hits, weights, metrics_collections, updates_collections)


def _count_metric(kind):
    def metric(
        labels,
        predictions,
        weights=None,
        metrics_collections=None,
        updates_collections=None,
        name=None,
    ):
        return _count(
            kind, labels, predictions, weights, metrics_collections, updates_collections, name
        )

    label_value, prediction_value = _CONDITIONS[kind]
    metric.__name__ = metric.__qualname__ = kind
    metric.__doc__ = (
        f"The (weighted) number of elements with label {label_value} and prediction "
        f"{prediction_value} (both cast to bool)."
    )
    return tf_export(f"metrics.{kind}")(metric)


true_positives = _count_metric("true_positives")
false_positives = _count_metric("false_positives")
true_negatives = _count_metric("true_negatives")
false_negatives = _count_metric("false_negatives")


def _ratio_of_counts(kind, other, labels, predictions, weights, collections, name):
    """precision (tp / (tp + fp)) or recall (tp / (tp + fn)), 0 while nothing is counted."""
    metrics_collections, updates_collections = collections
    with variable_scope(name, kind, (predictions, labels, weights)):
        predictions, labels, weights = remove_squeezable(
            math_ops.cast(predictions, dtype=dtypes.bool),
            math_ops.cast(labels, dtype=dtypes.bool),
            weights,
        )
        true_p, true_p_update = true_positives(labels, predictions, weights)
        other_v, other_update = _COUNT_METRICS[other](labels, predictions, weights)

        def ratio(tp, rest, name):
            return math_ops.where(
                math_ops.greater(tp + rest, 0), math_ops.divide(tp, tp + rest), 0, name
            )

        value = ratio(true_p, other_v, "value")
        update_op = ratio(true_p_update, other_update, "update_op")
        return publish(value, update_op, metrics_collections, updates_collections)


_COUNT_METRICS = {"false_positives": false_positives, "false_negatives": false_negatives}


@tf_export("metrics.precision")
def precision(
    labels,
    predictions,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """``tp / (tp + fp)`` over all batches seen (0 while there are no positives)."""
    collections = (metrics_collections, updates_collections)
    return _ratio_of_counts(
        "precision", "false_positives", labels, predictions, weights, collections, name
    )


@tf_export("metrics.recall")
def recall(
    labels,
    predictions,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """``tp / (tp + fn)`` over all batches seen (0 while there are no positive labels)."""
    collections = (metrics_collections, updates_collections)
    return _ratio_of_counts(
        "recall", "false_negatives", labels, predictions, weights, collections, name
    )


# ---------------------------------------------------------------------------------------------
# Counts at thresholds
# ---------------------------------------------------------------------------------------------
_ALL_INCLUDES = ("tp", "fn", "tn", "fp")
# key -> (variable name, label is positive, prediction is positive)
_THRESHOLD_COUNTS = {
    "tp": ("true_positives", True, True),
    "fn": ("false_negatives", True, False),
    "tn": ("true_negatives", False, False),
    "fp": ("false_positives", False, True),
}


def _range_checked(predictions, labels, weights):
    """Predictions (float32) after checks that they lie in [0, 1], labels as bool."""
    checks = [
        asserts.assert_greater_equal(
            predictions,
            math_ops.cast(0.0, dtype=predictions.dtype),
            message="predictions must be in [0, 1]",
        ),
        asserts.assert_less_equal(
            predictions,
            math_ops.cast(1.0, dtype=predictions.dtype),
            message="predictions must be in [0, 1]",
        ),
    ]
    with control_dependencies(checks):
        return remove_squeezable(
            math_ops.cast(predictions, dtypes.float32),
            math_ops.cast(labels, dtype=dtypes.bool),
            weights,
        )


def _confusion_matrix_at_thresholds(labels, predictions, thresholds, weights=None, includes=None):
    """Running counts per threshold (a prediction is positive when ``> threshold``) of the
    ``includes`` kinds; returns ``({kind: variable}, {kind: update op})``. The comparisons
    are one ``[num_thresholds, num_predictions]`` tile, summed along its rows."""
    includes = _ALL_INCLUDES if includes is None else includes
    for include in includes:
        if include not in _ALL_INCLUDES:
            raise ValueError(f"Invalid key: {include}")
    predictions, labels, weights = _range_checked(predictions, labels, weights)
    num_thresholds = len(thresholds)
    predictions_2d = array_ops.reshape(predictions, [-1, 1])
    labels_2d = array_ops.reshape(math_ops.cast(labels, dtype=dtypes.bool), [1, -1])
    num_predictions = predictions_2d.shape.as_list()[0]
    if num_predictions is None:
        num_predictions = array_ops.shape(predictions_2d)[0]
    thresh_tiled = array_ops.tile(
        array_ops.expand_dims(array_ops.constant(thresholds), [1]),
        array_ops.stack([1, num_predictions]),
    )
    pred_is = {
        True: math_ops.greater(
            array_ops.tile(array_ops.transpose(predictions_2d), [num_thresholds, 1]),
            thresh_tiled,
        )
    }
    if "fn" in includes or "tn" in includes:
        pred_is[False] = math_ops.logical_not(pred_is[True])
    label_is = {True: array_ops.tile(labels_2d, [num_thresholds, 1])}
    if "fp" in includes or "tn" in includes:
        label_is[False] = math_ops.logical_not(label_is[True])
    weights_tiled = None
    if weights is not None:
        weights = broadcast_weights(math_ops.cast(weights, dtypes.float32), predictions)
        weights_tiled = array_ops.tile(array_ops.reshape(weights, [1, -1]), [num_thresholds, 1])
        thresh_tiled.shape.assert_is_compatible_with(weights_tiled.shape)
    values, update_ops = {}, {}
    for key in _ALL_INCLUDES:  # TF's order, which fixes the node names
        if key not in includes:
            continue
        var_name, label_pos, pred_pos = _THRESHOLD_COUNTS[key]
        var = metric_variable([num_thresholds], dtypes.float32, name=var_name)
        hits = math_ops.cast(
            math_ops.logical_and(label_is[label_pos], pred_is[pred_pos]), dtypes.float32
        )
        if weights_tiled is not None:
            hits *= weights_tiled
        update_ops[key] = state_ops.assign_add(var, reduction_ops.reduce_sum(hits, 1))
        values[key] = var
    return values, update_ops


def _count_at_thresholds_metric(key):
    kind = _THRESHOLD_COUNTS[key][0]

    def metric(
        labels,
        predictions,
        thresholds,
        weights=None,
        metrics_collections=None,
        updates_collections=None,
        name=None,
    ):
        with variable_scope(name, kind, (predictions, labels, weights)):
            values, update_ops = _confusion_matrix_at_thresholds(
                labels, predictions, thresholds, weights=weights, includes=(key,)
            )
            value = read_variable(values[key], metrics_collections)
            return publish(value, update_ops[key], None, updates_collections)

    metric.__name__ = metric.__qualname__ = f"{kind}_at_thresholds"
    metric.__doc__ = f"Running {kind.replace('_', ' ')} per threshold (``> threshold``)."
    return tf_export(f"metrics.{kind}_at_thresholds")(metric)


true_positives_at_thresholds = _count_at_thresholds_metric("tp")
false_positives_at_thresholds = _count_at_thresholds_metric("fp")
true_negatives_at_thresholds = _count_at_thresholds_metric("tn")
false_negatives_at_thresholds = _count_at_thresholds_metric("fn")


def _ratio_at_thresholds(kind, other, labels, predictions, thresholds, weights, collections, name):
    """precision (tp / (tp + fp + eps)) or recall (tp / (tp + fn + eps)) per threshold."""
    metrics_collections, updates_collections = collections
    scope_name = f"{kind}_at_thresholds"
    with variable_scope(name, scope_name, (predictions, labels, weights)):
        values, update_ops = _confusion_matrix_at_thresholds(
            labels, predictions, thresholds, weights, includes=("tp", other)
        )

        def ratio(tp, rest, suffix):
            return math_ops.divide(tp, _KEPSILON + tp + rest, name=f"{kind}_{suffix}")

        value = ratio(values["tp"], values[other], "value")
        update_op = ratio(update_ops["tp"], update_ops[other], "update_op")
        return publish(value, update_op, metrics_collections, updates_collections)


@tf_export("metrics.precision_at_thresholds")
def precision_at_thresholds(
    labels,
    predictions,
    thresholds,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """Precision of the decisions ``predictions > threshold``, one per threshold."""
    collections = (metrics_collections, updates_collections)
    return _ratio_at_thresholds(
        "precision", "fp", labels, predictions, thresholds, weights, collections, name
    )


@tf_export("metrics.recall_at_thresholds")
def recall_at_thresholds(
    labels,
    predictions,
    thresholds,
    weights=None,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """Recall of the decisions ``predictions > threshold``, one per threshold."""
    collections = (metrics_collections, updates_collections)
    return _ratio_at_thresholds(
        "recall", "fn", labels, predictions, thresholds, weights, collections, name
    )


# ---------------------------------------------------------------------------------------------
# Curves
# ---------------------------------------------------------------------------------------------
def _auc_thresholds(num_thresholds, thresholds):
    if thresholds is not None:
        inner = sorted(thresholds)
        num_thresholds = len(inner) + 2
    else:
        inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return [0.0 - _KEPSILON] + inner + [1.0 + _KEPSILON], num_thresholds


def _interpolate_pr_auc(tp, fp, fn, n):
    """PR-AUC by interpolating precision between thresholds (Davis & Goadrich 2006):
    within a step, precision is ``slope * p + intercept`` in the number of positives p."""
    dtp = tp[: n - 1] - tp[1:]
    p = tp + fp
    prec_slope = math_ops.div_no_nan(
        dtp, math_ops.maximum(p[: n - 1] - p[1:], 0), name="prec_slope"
    )
    intercept = tp[1:] - math_ops.multiply(prec_slope, p[1:])
    safe_p_ratio = math_ops.where(
        math_ops.logical_and(p[: n - 1] > 0, p[1:] > 0),
        math_ops.div_no_nan(p[: n - 1], math_ops.maximum(p[1:], 0), name="recall_relative_ratio"),
        array_ops.ones_like(p[1:]),
    )
    return reduction_ops.reduce_sum(
        math_ops.div_no_nan(
            prec_slope * (dtp + intercept * math_ops.log(safe_p_ratio)),
            math_ops.maximum(tp[1:] + fn[1:], 0),
            name="pr_auc_increment",
        ),
        name="interpolate_pr_auc",
    )


# summation_method -> how the height of a step is taken from its two ends
_STEP_HEIGHTS = {
    "trapezoidal": lambda a, b: (a + b) / 2.0,
    "careful_interpolation": lambda a, b: (a + b) / 2.0,  # ROC: same as trapezoidal
    "minoring": math_ops.minimum,
    "majoring": math_ops.maximum,
}


def _compute_auc(counts, curve, summation_method, n, name):
    tp, fn, tn, fp = (counts[k] for k in ("tp", "fn", "tn", "fp"))
    if curve == "PR" and summation_method == "careful_interpolation":
        return _interpolate_pr_auc(tp, fp, fn, n)
    epsilon = 1e-6
    rec = math_ops.divide(tp + epsilon, tp + fn + epsilon)
    if curve == "ROC":
        x, y = math_ops.divide(fp, fp + tn + epsilon), rec
    else:
        x, y = rec, math_ops.divide(tp + epsilon, tp + fp + epsilon)
    if summation_method not in _STEP_HEIGHTS:
        raise ValueError(
            f"Invalid summation_method: {summation_method} summation_method should be "
            "'trapezoidal', 'careful_interpolation', 'minoring', or 'majoring'."
        )
    width = x[: n - 1] - x[1:]
    height = _STEP_HEIGHTS[summation_method](y[: n - 1], y[1:])
    return reduction_ops.reduce_sum(math_ops.multiply(width, height), name=name)


@tf_export("metrics.auc")
def auc(
    labels,
    predictions,
    weights=None,
    num_thresholds=200,
    metrics_collections=None,
    updates_collections=None,
    curve="ROC",
    name=None,
    summation_method="trapezoidal",
    thresholds=None,
):
    """Area under the ROC or PR curve, by Riemann sums over running counts at
    ``num_thresholds`` evenly spaced thresholds (or the given ``thresholds``)."""
    with variable_scope(name, "auc", (labels, predictions, weights)):
        if curve not in ("ROC", "PR"):
            raise ValueError(f"Curve must be either ROC or PR. Curve {curve} is unknown.")
        thresholds, n = _auc_thresholds(num_thresholds, thresholds)
        values, update_ops = _confusion_matrix_at_thresholds(
            labels, predictions, thresholds, weights
        )
        value = _compute_auc(values, curve, summation_method, n, "value")
        update_op = _compute_auc(update_ops, curve, summation_method, n, "update_op")
        return publish(value, update_op, metrics_collections, updates_collections)


def _even_thresholds(num_thresholds, last):
    inner = [(i + 1) * 1.0 / (num_thresholds - 1) for i in range(num_thresholds - 2)]
    return [0.0 - _KEPSILON] + inner + [last]


def _sensitivity_at(counts, specificity, name):
    """Sensitivity at the threshold whose specificity is closest to ``specificity``."""
    tp, tn, fp, fn = (counts[k] for k in ("tp", "tn", "fp", "fn"))
    specificities = math_ops.divide(tn, tn + fp + _KEPSILON)
    index = reduction_ops.argmin(math_ops.abs(specificities - specificity), 0)
    index = math_ops.cast(index, dtypes.int32)
    return math_ops.divide(tp[index], tp[index] + fn[index] + _KEPSILON, name)


def _specificity_at(counts, sensitivity, name):
    """Specificity at the last threshold whose sensitivity is closest to ``sensitivity``
    (the cumulative sum of the matches peaks first at the last match)."""
    tp, tn, fp, fn = (counts[k] for k in ("tp", "tn", "fp", "fn"))
    sensitivities = math_ops.divide(tp, tp + fn + _KEPSILON)
    min_val = reduction_ops.reduce_min(math_ops.abs(sensitivities - sensitivity))
    at_min = math_ops.equal(math_ops.abs(sensitivities - sensitivity), min_val)
    at_min = reduction_ops.cumsum(math_ops.cast(at_min, dtypes.int64))
    index = math_ops.cast(reduction_ops.argmax(at_min, 0), dtypes.int32)
    return math_ops.divide(tn[index], tn[index] + fp[index] + _KEPSILON, name)


def _rate_at_rate(
    kind, compute, target, labels, predictions, weights, num_thresholds, last, collections, name
):
    metrics_collections, updates_collections = collections
    with variable_scope(name, kind, (predictions, labels, weights)):
        thresholds = _even_thresholds(num_thresholds, last)
        values, update_ops = _confusion_matrix_at_thresholds(
            labels, predictions, thresholds, weights
        )
        value = compute(values, target, "value")
        update_op = compute(update_ops, target, "update_op")
        return publish(value, update_op, metrics_collections, updates_collections)


@tf_export("metrics.sensitivity_at_specificity")
def sensitivity_at_specificity(
    labels,
    predictions,
    specificity,
    weights=None,
    num_thresholds=200,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """Sensitivity (recall) at the threshold whose specificity is nearest ``specificity``."""
    if specificity < 0 or specificity > 1:
        raise ValueError(
            "`specificity` must be in the range [0, 1]. Currently, `specificity` got "
            f"{specificity}."
        )
    return _rate_at_rate(
        "sensitivity_at_specificity",
        _sensitivity_at,
        specificity,
        labels,
        predictions,
        weights,
        num_thresholds,
        1.0 + _KEPSILON,
        (metrics_collections, updates_collections),
        name,
    )


@tf_export("metrics.specificity_at_sensitivity")
def specificity_at_sensitivity(
    labels,
    predictions,
    sensitivity,
    weights=None,
    num_thresholds=200,
    metrics_collections=None,
    updates_collections=None,
    name=None,
):
    """Specificity at the threshold whose sensitivity is nearest ``sensitivity``."""
    if sensitivity < 0 or sensitivity > 1:
        raise ValueError(
            f"`sensitivity` must be in the range [0, 1]. Currently, `sensitivity` is {sensitivity}."
        )
    # TF's last threshold here is 1 - epsilon (not 1 + epsilon as for AUC).
    return _rate_at_rate(
        "specificity_at_sensitivity",
        _specificity_at,
        sensitivity,
        labels,
        predictions,
        weights,
        num_thresholds,
        1.0 - _KEPSILON,
        (metrics_collections, updates_collections),
        name,
    )
