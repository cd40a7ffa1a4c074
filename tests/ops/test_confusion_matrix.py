"""``tf.math.confusion_matrix`` vs TF 2.21: values (counts and weights, squeezable
dimensions, computed size), GraphDefs and run-time bound checks."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, assert_same_graph_def, run

LABELS = np.array([0, 2, 1, 2, 3, 0], np.int32)
PREDICTIONS = np.array([0, 1, 1, 2, 0, 3], np.int64)

CASES = {
    "counts": dict(num_classes=4),
    "weights": dict(num_classes=5, weights=np.arange(6, dtype=np.float32)),
    "float_dtype": dict(num_classes=4, dtype="float64", name="cm"),
    "squeezable": dict(num_classes=4, squeeze=True),
}


def _program(num_classes=None, weights=None, dtype=None, name=None, squeeze=False):
    def program(tf):
        labels = tf.constant(LABELS[:, None] if squeeze else LABELS)
        kwargs = {"weights": weights, "name": name}
        if dtype:
            kwargs["dtype"] = getattr(tf, dtype)
        return tf.math.confusion_matrix(labels, PREDICTIONS, num_classes, **kwargs)

    return program


@pytest.mark.parametrize("case", sorted(CASES))
def test_confusion_matrix_matches_tf(case):
    assert_parity(_program(**CASES[case]))
    assert_same_graph_def(_program(**CASES[case]))


def test_confusion_matrix_of_computed_size():
    """Without num_classes the size is max(labels, predictions) + 1, a run-time value: the
    graph is TF's, and XLA specialises the step on the fed labels (lowering/static.py)."""

    def program(tf, fetch=True):
        labels = tf.placeholder(tf.int32, [6])
        matrix = tf.confusion_matrix(labels, PREDICTIONS)
        return ([matrix] if fetch else []), {labels: LABELS}

    assert_same_graph_def(lambda tf: program(tf, fetch=False))  # builds, runs nothing
    assert_parity(program)


@pytest.mark.parametrize("labels", [[0, 4], [-1, 0]])
def test_confusion_matrix_rejects_out_of_range_values_at_run_time(labels):
    def program(tf):
        p = tf.placeholder(tf.int32, [2])
        return tf.confusion_matrix(p, [0, 1], num_classes=3), {p: np.array(labels, np.int32)}

    with pytest.raises(tfcompat.errors.InvalidArgumentError, match="`labels`"):
        run(tfcompat, program)
