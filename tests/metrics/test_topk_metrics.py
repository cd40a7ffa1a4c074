"""The top-k metrics of tf.metrics against TF 2.21: precision/recall at k (and at top k,
from class indices), average precision at k and the sparse_* aliases, over several update
steps on both backends, with and without weights and class_id, for labels given as dense
ids (one per row or padded lists) and as SparseTensors; their GraphDefs and collections."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_same_graph_def, assert_values_close, tf1

STEPS = 3
BATCH = 6
NUM_CLASSES = 5
K = 2
MAX_LABELS = 3


def _labels(rng, kind):
    """Per row 1..MAX_LABELS - 1 distinct class ids (the first row also has the out-of-range
    id NUM_CLASSES), as ``kind``: ``dense`` ([BATCH, MAX_LABELS] padded with -1), ``single``
    ([BATCH]) or ``sparse`` (a SparseTensorValue of [BATCH, MAX_LABELS])."""
    if kind == "single":
        return rng.integers(0, NUM_CLASSES, BATCH).astype(np.int64)
    rows = [
        np.sort(rng.choice(NUM_CLASSES, rng.integers(1, MAX_LABELS), replace=False))
        for _ in range(BATCH)
    ]
    rows[0] = np.append(rows[0], NUM_CLASSES)  # out of range: average precision drops it
    if kind == "dense":
        dense = np.full((BATCH, MAX_LABELS), -1, np.int64)
        for i, row in enumerate(rows):
            dense[i, : len(row)] = row
        return dense
    indices = np.array([[i, j] for i, row in enumerate(rows) for j in range(len(row))], np.int64)
    values = np.concatenate(rows).astype(np.int64)
    return tfcompat.SparseTensorValue(indices, values, np.array([BATCH, MAX_LABELS], np.int64))


def _label_ids(labels):
    if isinstance(labels, tfcompat.SparseTensorValue):
        ids = np.full((BATCH, MAX_LABELS), -1, np.int64)
        ids[tuple(labels.indices.T)] = labels.values
        return ids
    return labels.reshape(BATCH, -1)


def _batch(rng, kind):
    """Labels, logits that favour the labels (so class_id metrics are not all 0 or NaN),
    their top-K class indices and per-row weights."""
    labels = _labels(rng, kind)
    logits = rng.normal(size=(BATCH, NUM_CLASSES))
    for i, row in enumerate(_label_ids(labels)):
        row = row[(row >= 0) & (row < NUM_CLASSES)]
        logits[i, row] += 0.8
    logits = np.round(logits, 3).astype(np.float32)
    return {
        "labels": labels,
        "predictions": logits,
        "predictions_idx": np.argsort(-logits, axis=1, kind="stable")[:, :K].astype(np.int32),
        "weights": np.round(rng.uniform(0, 2, BATCH), 1).astype(np.float32),
    }


def _batches(kind, seed=11):
    rng = np.random.default_rng(seed)
    return [_batch(rng, kind) for _ in range(STEPS)]


def _placeholders(tf, batch, weighted):
    ph = {}
    for key, value in batch.items():
        if key == "weights" and not weighted:
            continue
        if isinstance(value, tfcompat.SparseTensorValue):
            ph[key] = tf.sparse_placeholder(tf.int64, [BATCH, MAX_LABELS], name=key)
        else:
            ph[key] = tf.placeholder(tf.as_dtype(value.dtype), value.shape, name=key)
    return ph


def _feed(tf, ph, batch):
    feed = {}
    for key, p in ph.items():
        value = batch[key]
        if isinstance(value, tfcompat.SparseTensorValue):
            value = tf.SparseTensorValue(*value)
        feed[p] = value
    return feed


# metric -> (argument holding the predictions, takes class_id)
METRICS = {
    "precision_at_k": ("predictions", True),
    "recall_at_k": ("predictions", True),
    "precision_at_top_k": ("predictions_idx", True),
    "recall_at_top_k": ("predictions_idx", True),
    "average_precision_at_k": ("predictions", False),
    "sparse_precision_at_k": ("predictions", True),
    "sparse_average_precision_at_k": ("predictions", False),
}
ALIASES = {"sparse_precision_at_k", "sparse_average_precision_at_k"}


def _builder(metric, class_id=None):
    argument, _ = METRICS[metric]

    def build(tf, ph, **kw):
        extra = {"weights": ph["weights"]} if "weights" in ph else {}
        if class_id is not None:
            extra["class_id"] = class_id
        return getattr(tf.metrics, metric)(ph["labels"], ph[argument], k=K, **extra, **kw)

    return build


def run_metric(tf, build, batches, weighted, backend=None):
    """Initial value, then (update result, value) per step, and the collections."""
    graph = tf.Graph()
    with graph.as_default():
        ph = _placeholders(tf, batches[0], weighted)
        value, update_op = build(tf, ph)
        kwargs = {"backend": backend} if backend else {}
        with tf.Session(graph=graph, **kwargs) as sess:
            sess.run(tf.local_variables_initializer())
            outputs = [sess.run(value)]
            for batch in batches:
                feed = _feed(tf, ph, batch)
                outputs.append((sess.run(update_op, feed), sess.run(value, feed)))
        keys = ("local_variables", "metric_variables", "my_values", "my_updates")
        names = {key: [x.name for x in graph.get_collection(key)] for key in keys}
    return outputs, names


def _assert_same_runs(build, batches, weighted):
    theirs, their_names = run_metric(tf1(), build, batches, weighted)
    for backend in ("xla", "reference"):
        ours, our_names = run_metric(tfcompat, build, batches, weighted, backend)
        assert_values_close(ours, theirs, 1e-9, 1e-12, f"[{backend}]")
        assert our_names == their_names
    return theirs


def _cases():
    for metric, (_, takes_class_id) in METRICS.items():
        for labels in ("dense", "single", "sparse"):
            for class_id in (None, 2) if takes_class_id else (None,):
                if metric in ALIASES and (labels != "dense" or class_id is not None):
                    continue
                yield pytest.param(metric, labels, class_id, id=f"{metric}-{labels}-{class_id}")


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("metric, labels, class_id", list(_cases()))
def test_metric_steps(metric, labels, class_id, weighted):
    theirs = _assert_same_runs(_builder(metric, class_id), _batches(labels), weighted)
    # The data make the counts informative: some step's value is neither 0 nor NaN.
    assert any(0 < v[1] < 1 for v in theirs[1:])


@pytest.mark.parametrize("weighted", [False, True], ids=["unweighted", "weighted"])
@pytest.mark.parametrize("labels", ["dense", "single", "sparse"])
@pytest.mark.parametrize(
    "metric, class_id",
    [
        ("precision_at_k", None),
        ("precision_at_k", 3),
        ("recall_at_k", None),
        ("recall_at_k", 1),
        ("precision_at_top_k", None),
        ("recall_at_top_k", 4),
        ("average_precision_at_k", None),
    ],
)
def test_metric_graph_def(metric, class_id, labels, weighted):
    batch = _batches(labels)[0]
    build = _builder(metric, class_id)

    def program(tf):
        ph = _placeholders(tf, batch, weighted)
        value, update_op = build(tf, ph)
        return [value, update_op], _feed(tf, ph, batch)

    assert_same_graph_def(program)


@pytest.mark.parametrize("metric", ["precision_at_k", "recall_at_top_k", "average_precision_at_k"])
def test_collections_and_names(metric):
    """Under a variable scope, then named with custom collections: names agree with TF."""
    base = _builder(metric)

    def build(tf, ph):
        with tf.variable_scope("outer"):
            first = base(tf, ph)
        base(tf, ph, metrics_collections=["my_values"], updates_collections=["my_updates"],
             name="named")  # fmt: skip
        return first

    _assert_same_runs(build, _batches("dense"), True)


def test_three_dimensional_predictions():
    """Predictions [2, BATCH, NUM_CLASSES] against labels [2, BATCH] (sets of rank 3)."""
    rng = np.random.default_rng(3)
    batches = [
        {
            "labels": rng.integers(0, NUM_CLASSES, (2, BATCH)).astype(np.int64),
            "predictions": rng.normal(size=(2, BATCH, NUM_CLASSES)).astype(np.float32),
            "weights": rng.uniform(size=(2, BATCH)).astype(np.float32),
        }
        for _ in range(STEPS)
    ]
    for metric in ("precision_at_k", "recall_at_k", "average_precision_at_k"):
        _assert_same_runs(_builder(metric), batches, True)


ERRORS = {
    "average_precision_k_0": lambda tf: tf.metrics.average_precision_at_k(
        tf.constant([[1]], tf.int64), tf.constant([[0.5, 0.2]]), k=0
    ),
    "labels_rank": lambda tf: tf.metrics.recall_at_top_k(
        tf.constant([[[1]]], tf.int64), tf.constant([1, 0])
    ),
    "average_precision_labels_rank": lambda tf: tf.metrics.average_precision_at_k(
        tf.constant([[[1]]], tf.int64), tf.constant([[0.5, 0.2]]), k=1
    ),
}


@pytest.mark.parametrize("case", sorted(ERRORS))
def test_construction_errors(case):
    with tf1().Graph().as_default(), pytest.raises(ValueError) as theirs:
        ERRORS[case](tf1())
    with tfcompat.Graph().as_default(), pytest.raises(ValueError) as ours:
        ERRORS[case](tfcompat)
    assert str(ours.value).split(".")[0] == str(theirs.value).split(".")[0]


def test_weights_that_do_not_broadcast_fail_at_run_time():
    """Counts have no static shape (SetSize), so weights are checked by the run-time Assert:
    here [2, 1] weights against [2] counts (their product would broadcast)."""
    for tf in (tf1(), tfcompat):
        with tf.Graph().as_default():
            weights = tf.placeholder(tf.float32, [None, None])
            _, update_op = tf.metrics.recall_at_k(
                tf.constant([[1], [2]], tf.int64), tf.constant([[0.5, 0.2, 0.1]] * 2), 1,
                weights=weights,
            )  # fmt: skip
            with tf.Session() as sess:
                sess.run(tf.local_variables_initializer())
                with pytest.raises(tf.errors.InvalidArgumentError) as e:
                    sess.run(update_op, {weights: np.ones((2, 1), np.float32)})
                assert "weights can not be broadcast to values." in str(e.value)


def test_update_step_runs_set_ops_on_the_host_and_sums_on_the_device():
    """The update step splits into host segments (set ops, and the top-k of the fed
    predictions that only they read) and device segments (the variable updates)."""
    from lowering import inspect as inspect_lib

    batch = _batches("dense")[0]
    graph = tfcompat.Graph()
    with graph.as_default():
        ph = _placeholders(tfcompat, batch, True)
        _, update_op = _builder("precision_at_k")(tfcompat, ph)
        report = inspect_lib.inspect(graph, update_op, feed_dict=_feed(tfcompat, ph, batch))
    types = {kind: {t for s in report.segments if s.kind == kind for _, t in s.ops}
             for kind in ("host", "device")}  # fmt: skip
    assert {"DenseToDenseSetOperation", "SetSize", "TopKV2"} <= types["host"]
    assert {"AssignAdd"} <= types["device"]
