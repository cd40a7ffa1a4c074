"""tf.tensordot, tf.math.reduce_variance and tf.math.reduce_std against TF 2.21: values,
static shapes (a dynamic batch dimension included) and gradients."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity

rng = np.random.default_rng(0)
A = rng.normal(size=(2, 3, 4)).astype(np.float32)
B = rng.normal(size=(4, 3, 5)).astype(np.float32)


def test_tensordot_matches_tf():
    def program(tf):
        a = tf.placeholder(tf.float32, [None, 3, 4], name="a")
        b = tf.constant(B)
        outs = [
            tf.tensordot(a, b, 1),
            tf.tensordot(a, b, [[1, 2], [1, 0]]),
            tf.tensordot(tf.constant(A), b, [[2], [0]]),
            tf.tensordot(tf.constant(A), b, 0),
            tf.tensordot(a, b, [[-1], [0]]),
        ]
        return outs + tf.gradients(tf.reduce_sum(outs[0] * outs[4]), [a, b]), {a: A}

    assert_parity(program, rtol=1e-5, atol=1e-5)


def test_moments_match_tf():
    def program(tf):
        a = tf.placeholder(tf.float32, [None, 3, 4], name="a")
        outs = [
            tf.math.reduce_std(a, axis=1),
            tf.math.reduce_variance(a),
            tf.math.reduce_std(a, axis=[0, 2], keepdims=True),
            tf.math.reduce_variance(tf.cast(a, tf.float64), axis=-1),
        ]
        return outs + tf.gradients(tf.reduce_sum(outs[0]) + outs[1], a), {a: A}

    assert_parity(program, rtol=1e-5, atol=1e-6)


def test_errors_as_tf():
    with tfcompat.Graph().as_default():
        with pytest.raises(TypeError, match="Received integer type"):
            tfcompat.math.reduce_variance(tfcompat.constant([1, 2]))
        with pytest.raises(ValueError, match="Different number of contraction axes"):
            tfcompat.tensordot(tfcompat.constant(A), tfcompat.constant(B), [[1, 2], [0]])
