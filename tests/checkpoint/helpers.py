"""Shared pieces of the checkpoint tests: a model of variables of every saved dtype, built
the same way with tfcompat or TF 2.21's ``tf.compat.v1``, and helpers to save/restore it."""

from __future__ import annotations

import numpy as np

import tfcompat
from tests.oracle import tf1

_rng = np.random.default_rng(0)

# name -> value: float32/float64/int32/int64/bool/string, scalars, and one large tensor.
VALUES = {
    "dense/kernel": _rng.standard_normal((3, 4)).astype(np.float32),
    "dense/bias": _rng.standard_normal(4).astype(np.float64),
    "counts": _rng.integers(-(2**31), 2**31 - 1, size=(2, 5), dtype=np.int32),
    "ids": _rng.integers(-(2**62), 2**62, size=7, dtype=np.int64),
    "mask": _rng.random((2, 3)) > 0.5,
    "words": np.array([b"alpha", b"", b"\x00\xff bytes", "ünïcode".encode()], dtype=object),
    "scalar": np.float32(2.5),
    "word": np.array(b"scalar string", dtype=object),
    "big": _rng.standard_normal((300, 500)).astype(np.float32),
}
GLOBAL_STEP = 42


def other_values():
    """Values of the same dtypes and shapes, all different from VALUES."""
    out = {}
    for name, value in VALUES.items():
        value = np.asarray(value)
        if value.dtype == object:
            out[name] = np.full(value.shape, b"x", dtype=object)
        elif value.dtype == bool:
            out[name] = ~value
        else:
            out[name] = (value + 1).astype(value.dtype)
    return out


def build_model(tf, values=None):
    """The variables of VALUES (initialized to ``values``) and a global step; returns
    ``{name: variable}`` with the step under ``"global_step"``."""
    values = VALUES if values is None else values
    variables = {name: tf.Variable(np.asarray(value), name=name) for name, value in values.items()}
    variables["global_step"] = tf.train.get_or_create_global_step()
    return variables


def fetch(sess, variables):
    return dict(zip(variables, sess.run(list(variables.values()))))


def assert_model_values(got, step=GLOBAL_STEP, values=None):
    values = VALUES if values is None else values
    for name, value in values.items():
        value = np.asarray(value)
        got_value = np.asarray(got[name], dtype=object if value.dtype == object else None)
        assert got_value.dtype == value.dtype, name
        np.testing.assert_array_equal(got_value, value, err_msg=name)
    assert got["global_step"] == step


def save_model(tf, path, step=GLOBAL_STEP, **saver_kwargs):
    """Builds the model with ``tf`` in a fresh graph, sets the step and saves; returns the
    checkpoint prefix."""
    graph = tf.Graph()
    with graph.as_default():
        variables = build_model(tf)
        saver = tf.train.Saver(**saver_kwargs)
        with tf.Session(graph=graph) as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(tf.assign(variables["global_step"], step))
            return saver.save(sess, str(path), global_step=step)


def restore_model(tf, prefix, **saver_kwargs):
    """Builds the model with different initial values, restores ``prefix``; returns the
    restored values."""
    graph = tf.Graph()
    with graph.as_default():
        variables = build_model(tf, other_values())
        saver = tf.train.Saver(**saver_kwargs)
        with tf.Session(graph=graph) as sess:
            saver.restore(sess, str(prefix))
            return fetch(sess, variables)


def frameworks():
    """``[("tfcompat", module), ("tf", tf.compat.v1)]`` for parametrizing writer/reader."""
    return {"tfcompat": tfcompat, "tf": tf1()}
