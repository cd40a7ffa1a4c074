"""Saver and checkpoints with resource variables, against TF 2.21: the same keys as ref
variables, checkpoints written by either side restore on the other (into resource or ref
variables), the Saver's graph, and ``init_from_checkpoint``."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from tests.checkpoint.helpers import frameworks
from tests.oracle import assert_same_graph_def, tf1

_rng = np.random.default_rng(7)
VALUES = {
    "dense/kernel": _rng.standard_normal((3, 4)).astype(np.float32),
    "dense/bias": _rng.standard_normal(4).astype(np.float64),
    "ids": _rng.integers(-(2**40), 2**40, size=5, dtype=np.int64),
    "mask": _rng.random((2, 3)) > 0.5,
    "scalar": np.float32(2.5),
}


def _build(tf, values, use_resource):
    return {
        name: tf.Variable(np.asarray(value), name=name, use_resource=use_resource)
        for name, value in values.items()
    }


def _changed(values):
    """Values of the same dtypes and shapes, all different."""
    values = {k: np.asarray(v) for k, v in values.items()}
    return {k: (~v if v.dtype == bool else v + 1) for k, v in values.items()}


def _save(tf, path, use_resource):
    with tf.Graph().as_default() as graph:
        _build(tf, VALUES, use_resource)
        saver = tf.train.Saver()
        with tf.Session(graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            return saver.save(sess, str(path))


def _restore(tf, prefix, use_resource):
    with tf.Graph().as_default() as graph:
        variables = _build(tf, _changed(VALUES), use_resource)
        saver = tf.train.Saver()
        with tf.Session(graph=graph) as sess:
            saver.restore(sess, prefix)
            return dict(zip(variables, sess.run(list(variables.values()))))


@pytest.mark.parametrize("writer", ["tfcompat", "tf"])
@pytest.mark.parametrize("reader", ["tfcompat", "tf"])
@pytest.mark.parametrize("kinds", [(True, True), (True, False), (False, True)])
def test_round_trip(tmp_path, writer, reader, kinds):
    """Written with resource (or ref) variables by one side, read into resource (or ref)
    variables by the other: the keys are the variables' names either way."""
    modules = frameworks()
    prefix = _save(modules[writer], tmp_path / "model", kinds[0])
    restored = _restore(modules[reader], prefix, kinds[1])
    for name, value in VALUES.items():
        np.testing.assert_array_equal(restored[name], value, err_msg=name)
        assert np.asarray(restored[name]).dtype == np.asarray(value).dtype, name


def test_checkpoint_keys_match_tf(tmp_path):
    keys = []
    for i, tf in enumerate((tfcompat, tf1())):
        prefix = _save(tf, tmp_path / str(i) / "model", True)
        keys.append(sorted(tf.train.list_variables(prefix)))
    assert keys[0] == keys[1]


def test_saver_graph_def_matches_tf():
    def program(tf):
        _build(tf, VALUES, True)
        tf.Variable(1.0, name="ref")
        tf.train.Saver()
        return []

    assert_same_graph_def(program)


@pytest.mark.parametrize("backend", ["xla", "reference"])
def test_init_from_checkpoint(tmp_path, backend):
    prefix = _save(tf1(), tmp_path / "model", True)
    with tfcompat.Graph().as_default():
        with tfcompat.variable_scope("new", use_resource=True):
            kernel = tfcompat.get_variable("kernel", shape=(3, 4))
        tfcompat.train.init_from_checkpoint(prefix, {"dense/kernel": "new/kernel"})
        with tfcompat.Session(backend=backend) as sess:
            sess.run(tfcompat.global_variables_initializer())
            np.testing.assert_array_equal(sess.run(kernel), VALUES["dense/kernel"])
