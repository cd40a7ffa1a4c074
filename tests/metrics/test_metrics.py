"""tf.metrics against TF 2.21: every metric run over several update steps (update_op's
result and the value after each step), its GraphDef, and its collections."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_same_graph_def, assert_values_close, tf1

STEPS = 3
BATCH = 8
NUM_CLASSES = 4
THRESHOLDS = [0.15, 0.5, 0.85]


def _binary(rng):
    return {
        "labels": rng.integers(0, 2, BATCH).astype(np.int64),
        "predictions": np.round(rng.uniform(0, 1, BATCH), 2).astype(np.float32),
        "weights": np.round(rng.uniform(0, 2, BATCH), 1).astype(np.float32),
    }


def _binary_decisions(rng):
    batch = _binary(rng)
    batch["predictions"] = (batch["predictions"] > 0.5).astype(np.int32)
    return batch


def _classes(rng):
    return {
        "labels": rng.integers(0, NUM_CLASSES, BATCH).astype(np.int64),
        "predictions": rng.integers(0, NUM_CLASSES, BATCH).astype(np.int64),
        "weights": np.round(rng.uniform(0, 2, BATCH), 1).astype(np.float32),
    }


def _regression(rng):
    return {
        "labels": rng.normal(size=(BATCH, 2)).astype(np.float32),
        "predictions": rng.normal(size=(BATCH, 2)).astype(np.float32),
        "weights": np.round(rng.uniform(0, 2, (BATCH, 1)), 1).astype(np.float32),
        "normalizer": np.round(rng.uniform(0, 2, (BATCH, 2)), 0).astype(np.float32),
    }


def _values(rng):
    return {
        "values": rng.normal(size=(BATCH, 3)).astype(np.float32),
        "weights": np.round(rng.uniform(0, 2, (BATCH, 3)), 1).astype(np.float32),
    }


def _lp(fn, **kw):
    """A builder calling ``fn(labels, predictions, **kw)`` (with weights when fed)."""

    def build(tf, ph):
        extra = {"weights": ph["weights"]} if "weights" in ph else {}
        return getattr(tf.metrics, fn)(ph["labels"], ph["predictions"], **kw, **extra)

    return build


def _values_metric(fn, **kw):
    def build(tf, ph):
        extra = {"weights": ph["weights"]} if "weights" in ph else {}
        return getattr(tf.metrics, fn)(ph["values"], **kw, **extra)

    return build


def _relative(tf, ph):
    extra = {"weights": ph["weights"]} if "weights" in ph else {}
    return tf.metrics.mean_relative_error(
        ph["labels"], ph["predictions"], ph["normalizer"], **extra
    )


# name -> (builder, batch maker)
METRICS = {
    "mean": (_values_metric("mean"), _values),
    "mean_tensor": (_values_metric("mean_tensor"), _values),
    "percentage_below": (_values_metric("percentage_below", threshold=0.2), _values),
    "accuracy": (_lp("accuracy"), _classes),
    "mean_absolute_error": (_lp("mean_absolute_error"), _regression),
    "mean_squared_error": (_lp("mean_squared_error"), _regression),
    "root_mean_squared_error": (_lp("root_mean_squared_error"), _regression),
    "mean_relative_error": (_relative, _regression),
    "mean_cosine_distance": (_lp("mean_cosine_distance", dim=1), _regression),
    "mean_per_class_accuracy": (
        _lp("mean_per_class_accuracy", num_classes=NUM_CLASSES),
        _classes,
    ),
    "mean_iou": (_lp("mean_iou", num_classes=NUM_CLASSES), _classes),
    "true_positives": (_lp("true_positives"), _binary_decisions),
    "false_positives": (_lp("false_positives"), _binary_decisions),
    "true_negatives": (_lp("true_negatives"), _binary_decisions),
    "false_negatives": (_lp("false_negatives"), _binary_decisions),
    "precision": (_lp("precision"), _binary_decisions),
    "recall": (_lp("recall"), _binary_decisions),
    "true_positives_at_thresholds": (
        _lp("true_positives_at_thresholds", thresholds=THRESHOLDS),
        _binary,
    ),
    "false_positives_at_thresholds": (
        _lp("false_positives_at_thresholds", thresholds=THRESHOLDS),
        _binary,
    ),
    "true_negatives_at_thresholds": (
        _lp("true_negatives_at_thresholds", thresholds=THRESHOLDS),
        _binary,
    ),
    "false_negatives_at_thresholds": (
        _lp("false_negatives_at_thresholds", thresholds=THRESHOLDS),
        _binary,
    ),
    "precision_at_thresholds": (_lp("precision_at_thresholds", thresholds=THRESHOLDS), _binary),
    "recall_at_thresholds": (_lp("recall_at_thresholds", thresholds=THRESHOLDS), _binary),
    "sensitivity_at_specificity": (
        _lp("sensitivity_at_specificity", specificity=0.6, num_thresholds=11),
        _binary,
    ),
    "specificity_at_sensitivity": (
        _lp("specificity_at_sensitivity", sensitivity=0.4, num_thresholds=11),
        _binary,
    ),
}
for _curve in ("ROC", "PR"):
    for _method in ("trapezoidal", "careful_interpolation", "minoring", "majoring"):
        METRICS[f"auc_{_curve}_{_method}"] = (
            _lp("auc", curve=_curve, summation_method=_method, num_thresholds=20),
            _binary,
        )
METRICS["auc_given_thresholds"] = (_lp("auc", thresholds=[0.7, 0.2, 0.5]), _binary)

COLLECTION_KEYS = ("local_variables", "metric_variables", "my_values", "my_updates")


def _batches(make):
    rng = np.random.default_rng(3)
    return [make(rng) for _ in range(STEPS)]


def _placeholders(tf, batch):
    return {k: tf.placeholder(tf.as_dtype(v.dtype), v.shape, name=k) for k, v in batch.items()}


def run_metric(tf, build, batches, weighted, backend=None):
    """Builds the metric, initializes its local variables, then per batch runs update_op
    and reads the value. Returns ([initial value, (update result, value) per step...],
    {collection: names})."""
    graph = tf.Graph()
    with graph.as_default():
        batch0 = {k: v for k, v in batches[0].items() if weighted or k != "weights"}
        ph = _placeholders(tf, batch0)
        value, update_op = build(tf, ph)
        kwargs = {"backend": backend} if backend else {}
        outputs = []
        with tf.Session(graph=graph, **kwargs) as sess:
            sess.run(tf.local_variables_initializer())
            outputs.append(sess.run(value))
            for batch in batches:
                feed = {ph[k]: batch[k] for k in ph}
                outputs.append((sess.run(update_op, feed), sess.run(value)))
        names = {key: [x.name for x in graph.get_collection(key)] for key in COLLECTION_KEYS}
    return outputs, names


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("metric", sorted(METRICS))
def test_metric_steps(metric, weighted):
    build, make = METRICS[metric]
    batches = _batches(make)
    theirs, their_names = run_metric(tf1(), build, batches, weighted)
    for backend in ("xla", "reference"):
        ours, our_names = run_metric(tfcompat, build, batches, weighted, backend)
        assert_values_close(ours, theirs, 1e-5, 1e-6, f"[{backend}]")
        assert our_names == their_names


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("metric", sorted(METRICS))
def test_metric_graph_def(metric, weighted):
    build, make = METRICS[metric]
    batch = {k: v for k, v in _batches(make)[0].items() if weighted or k != "weights"}

    def program(tf):
        ph = _placeholders(tf, batch)
        value, update_op = build(tf, ph)
        return value, {ph[k]: batch[k] for k in ph}

    assert_same_graph_def(program)


# metric -> (batch maker, call(tf, ph, **kw)) for the collections test
NAMED = {
    "mean": (_values, lambda tf, ph, **kw: tf.metrics.mean(ph["values"], ph["weights"], **kw)),
    "accuracy": (
        _classes,
        lambda tf, ph, **kw: tf.metrics.accuracy(ph["labels"], ph["predictions"], **kw),
    ),
    "auc": (_binary, lambda tf, ph, **kw: tf.metrics.auc(ph["labels"], ph["predictions"], **kw)),
    "precision": (
        _binary_decisions,
        lambda tf, ph, **kw: tf.metrics.precision(ph["labels"], ph["predictions"], **kw),
    ),
    "true_positives_at_thresholds": (
        _binary,
        lambda tf, ph, **kw: tf.metrics.true_positives_at_thresholds(
            ph["labels"], ph["predictions"], THRESHOLDS, **kw
        ),
    ),
}


@pytest.mark.parametrize("metric", sorted(NAMED))
def test_collections_scopes_and_names(metric):
    """A metric under a variable scope, then a named one publishing to custom collections:
    variable names, local/metric variable collections and the custom collections agree."""
    make, call = NAMED[metric]

    def build(tf, ph):
        with tf.variable_scope("outer"):
            first = call(tf, ph)
        call(
            tf,
            ph,
            metrics_collections=["my_values"],
            updates_collections=["my_updates"],
            name="named_metric",
        )
        return first

    batches = _batches(make)
    theirs, their_names = run_metric(tf1(), build, batches, True)
    ours, our_names = run_metric(tfcompat, build, batches, True)
    assert_values_close(ours, theirs, 1e-5, 1e-6)
    assert our_names == their_names
    assert len(our_names["my_values"]) == 1 and len(our_names["my_updates"]) == 1
    assert all(n.startswith(("outer/", "named_metric/")) for n in our_names["local_variables"])


def test_mean_iou_update_returns_confusion_matrix():
    build, make = METRICS["mean_iou"]
    batches = _batches(make)
    theirs, _ = run_metric(tf1(), build, batches, False)
    ours, _ = run_metric(tfcompat, build, batches, False)
    assert np.asarray(ours[-1][0]).shape == (NUM_CLASSES, NUM_CLASSES)
    assert_values_close(ours, theirs, 1e-6, 1e-6)


def test_rank_one_labels_with_trailing_dim():
    """Labels [n, 1] against predictions [n] are squeezed; weights [n] are expanded."""
    rng = np.random.default_rng(5)
    labels = rng.integers(0, 2, (BATCH, 1)).astype(np.int64)
    preds = rng.uniform(size=BATCH).astype(np.float32)
    weights = rng.uniform(size=(BATCH,)).astype(np.float32)

    def build(tf, ph):
        return tf.metrics.auc(labels, preds, weights=weights, num_thresholds=7)

    theirs, _ = run_metric(tf1(), build, [{}], False)
    ours, _ = run_metric(tfcompat, build, [{}], False)
    assert_values_close(ours, theirs, 1e-6, 1e-6)


ERROR_CASES = {
    "auc_curve": lambda tf: tf.metrics.auc([1, 0], [0.2, 0.4], curve="XY"),
    "auc_summation": lambda tf: tf.metrics.auc(
        [1, 0], tf.constant([0.2, 0.4]), summation_method="x"
    ),
    "specificity": lambda tf: tf.metrics.sensitivity_at_specificity([1], [0.2], 1.5),
    "sensitivity": lambda tf: tf.metrics.specificity_at_sensitivity([1], [0.2], -0.1),
    "weights_rank": lambda tf: tf.metrics.true_positives(
        [1, 0], [1, 1], weights=np.ones((2, 3, 1), np.float32)
    ),
}


@pytest.mark.parametrize("case", sorted(ERROR_CASES))
def test_construction_errors(case):
    with tf1().Graph().as_default(), pytest.raises(ValueError) as theirs:
        ERROR_CASES[case](tf1())
    with tfcompat.Graph().as_default(), pytest.raises(ValueError) as ours:
        ERROR_CASES[case](tfcompat)
    assert str(ours.value).split(".")[0] == str(theirs.value).split(".")[0]


def test_static_out_of_range_predictions():
    for tf in (tf1(), tfcompat):
        with tf.Graph().as_default(), pytest.raises(tf.errors.InvalidArgumentError) as e:
            tf.metrics.auc([1, 0], tf.constant([0.2, 1.4]))
        assert "predictions must be in [0, 1]" in str(e.value)


def test_runtime_out_of_range_predictions():
    messages = []
    for tf in (tf1(), tfcompat):
        with tf.Graph().as_default():
            preds = tf.placeholder(tf.float32, [2])
            _, update_op = tf.metrics.auc([1, 0], preds)
            with tf.Session() as sess:
                sess.run(tf.local_variables_initializer())
                with pytest.raises(tf.errors.InvalidArgumentError) as e:
                    sess.run(update_op, {preds: [0.5, -0.5]})
                messages.append(str(e.value))
    assert all("predictions must be in [0, 1]" in m for m in messages)
