"""TF parity of the nn wrappers TF builds from several ops: softmax on a non-last axis
(transposes), the cross-entropy wrappers (reshapes, StopGradient, casts), and their graphs
node for node."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from tests.ops.nn_helpers import sample
from tests.oracle import assert_parity, assert_same_graph_def, tf1


def _labels(shape, seed, axis=-1):
    p = np.random.default_rng(seed).random(shape).astype(np.float32)
    return p / p.sum(axis=axis, keepdims=True)


# ---------------------------------------------------------------------------------------------
# Softmax / LogSoftmax along any axis
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
@pytest.mark.parametrize("axis", [0, 1, -2, -3, 2, -1])
def test_softmax_any_axis(fn, axis):
    values = sample((2, 3, 4), seed=30, scale=5.0)

    def program(tf):
        x = tf.placeholder(tf.float32, [2, 3, 4])
        return getattr(tf.nn, fn)(x, axis=axis), {x: values}

    assert_parity(program, rtol=1e-5)
    assert_same_graph_def(program)


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_legacy_dim_and_name(fn):
    values = sample((3, 5), seed=31)

    def program(tf):
        x = tf.placeholder(tf.float32, [None, 5])
        return [getattr(tf.nn, fn)(x, dim=0, name="s0"), getattr(tf.math, fn)(x, dim=1)], {
            x: values
        }

    assert_parity(program, rtol=1e-5)
    assert_same_graph_def(program)


def test_softmax_axis_errors():
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [2, 3])
            with pytest.raises(
                tf.errors.InvalidArgumentError, match=r"`dim` must be in the range \[-2, 2\)"
            ):
                tf.nn.softmax(x, axis=2)
            with pytest.raises(ValueError, match="Cannot specify both 'dim' and 'axis'."):
                tf.nn.softmax(x, axis=0, dim=0)


# ---------------------------------------------------------------------------------------------
# softmax_cross_entropy_with_logits (v1: labels stop gradients) and _v2
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "fn", ["softmax_cross_entropy_with_logits", "softmax_cross_entropy_with_logits_v2"]
)
@pytest.mark.parametrize(
    "shape, axis", [((4, 5), -1), ((2, 3, 4), -1), ((2, 3, 4), 1), ((3, 4), 0)]
)
def test_softmax_xent_wrappers(fn, shape, axis):
    logits = sample(shape, seed=32, scale=4.0)
    labels = _labels(shape, 33, axis)

    def program(tf):
        x = tf.placeholder(tf.float32, shape)
        y = tf.placeholder(tf.float32, shape)
        kwargs = {"dim": axis} if fn.endswith("logits") else {"axis": axis}
        return getattr(tf.nn, fn)(labels=y, logits=x, **kwargs), {x: logits, y: labels}

    assert_parity(program, rtol=1e-5)
    assert_same_graph_def(program)


def test_softmax_xent_unknown_batch_and_name():
    logits, labels = sample((6, 3), seed=34), _labels((6, 3), 35)

    def program(tf):
        x = tf.placeholder(tf.float32, [None, 3])
        y = tf.placeholder(tf.float32, [None, 3])
        loss = tf.nn.softmax_cross_entropy_with_logits_v2(y, x, name="xent")
        return loss, {x: logits, y: labels}

    assert_parity(program, rtol=1e-5)
    assert_same_graph_def(program)


def test_softmax_xent_half_precision_is_computed_in_float32():
    logits = sample((3, 4), np.float16, seed=36)
    labels = _labels((3, 4), 37).astype(np.float16)

    def program(tf):
        return tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)

    assert_parity(program, rtol=1e-3, atol=1e-3)
    assert_same_graph_def(program)


def test_softmax_xent_large_logits():
    logits = np.array([[1000.0, -1000.0, 0.0], [-5e4, 5e4, 1.0]], np.float32)
    labels = np.array([[0.5, 0.25, 0.25], [0.0, 1.0, 0.0]], np.float32)

    def program(tf):
        return tf.nn.softmax_cross_entropy_with_logits_v2(labels=labels, logits=logits)

    assert_parity(program, rtol=1e-5)


def test_softmax_xent_requires_both_arguments():
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            with pytest.raises(ValueError, match="Both `labels` and `logits` must be provided"):
                tf.nn.softmax_cross_entropy_with_logits(labels=tf.constant([[1.0]]))


def test_softmax_xent_v1_rejects_axis_with_default_dim():
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            x = tf.constant([[1.0, 2.0]])
            with pytest.raises(ValueError, match="Cannot specify both 'dim' and 'axis'."):
                tf.nn.softmax_cross_entropy_with_logits(labels=x, logits=x, axis=0)


# ---------------------------------------------------------------------------------------------
# sparse_softmax_cross_entropy_with_logits
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("label_dtype", [np.int32, np.int64])
@pytest.mark.parametrize("logits_shape", [(5, 4), (2, 3, 4)])
def test_sparse_xent_wrapper(label_dtype, logits_shape):
    logits = sample(logits_shape, seed=38, scale=10.0)
    labels = np.random.default_rng(39).integers(0, 4, size=logits_shape[:-1]).astype(label_dtype)

    def program(tf):
        x = tf.placeholder(tf.float32, logits_shape)
        y = tf.placeholder(tf.as_dtype(label_dtype), logits_shape[:-1])
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=x)
        return loss, {x: logits, y: labels}

    assert_parity(program, rtol=1e-5)
    assert_same_graph_def(program)


def test_sparse_xent_half_precision_and_name():
    logits = sample((3, 5), np.float16, seed=40)

    def program(tf):
        return tf.nn.sparse_softmax_cross_entropy_with_logits(
            labels=[0, 4, 2], logits=logits, name="loss"
        )

    assert_parity(program, rtol=1e-3, atol=1e-3)
    assert_same_graph_def(program)


@pytest.mark.parametrize(
    "labels_shape, logits_shape, match",
    [
        ([3], [2, 4], "`labels.shape` must equal `logits.shape` except for the last dimension"),
        ([2, 3], [2, 4], "`labels.shape.rank` must equal `logits.shape.rank - 1`"),
        ([], [], "`logits` cannot be a scalar"),
    ],
)
def test_sparse_xent_shape_errors(labels_shape, logits_shape, match):
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            labels = tf.placeholder(tf.int32, labels_shape)
            logits = tf.placeholder(tf.float32, logits_shape)
            with pytest.raises(ValueError, match=match):
                tf.nn.sparse_softmax_cross_entropy_with_logits(labels=labels, logits=logits)


@pytest.mark.parametrize("axis", [0, -2])  # TF itself fails on a last-axis tensor
def test_softmax_tensor_axis(axis):
    values = sample((2, 3), seed=41)

    def program(tf):
        x = tf.placeholder(tf.float32, [2, 3])
        return tf.nn.softmax(x, axis=tf.constant(axis)), {x: values}

    assert_parity(program, rtol=1e-5)
    assert_same_graph_def(program)


def test_sparse_xent_partially_known_rank3_values():
    logits = sample((2, 3, 4), seed=42)
    labels = np.array([[0, 3, 1], [2, 2, 0]], np.int64)

    def program(tf):
        x = tf.placeholder(tf.float32, [None, 3, 4])
        y = tf.placeholder(tf.int64, [None, 3])
        loss = tf.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=x)
        return loss, {x: logits, y: labels}

    assert_parity(program, rtol=1e-5)
