"""tf.bitcast against TF 2.21: equal, narrower and wider types (floats, ints, complex),
batched; TF's shape error."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, tf1

F32 = np.array([[1.5, -2.0], [np.inf, 3.25e-3]], np.float32)
I8 = np.arange(-8, 8, dtype=np.int8).reshape(2, 2, 4)


def test_bitcast_matches_tf():
    def program(tf):
        f, b = tf.constant(F32), tf.constant(I8)
        return [
            tf.bitcast(f, tf.int32),
            tf.bitcast(f, tf.uint8),
            tf.bitcast(f, tf.float16),
            tf.bitcast(b, tf.int32),
            tf.bitcast(b, tf.float32),
            tf.bitcast(tf.constant(F32.astype(np.float64)), tf.complex64),
            tf.bitcast(tf.constant(np.array([1 + 2j], np.complex128)), tf.int64),
        ]

    assert_parity(program)


def test_bitcast_shape_error_matches_tf():
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            with pytest.raises(ValueError, match="Cannot bitcast from 6 to 3 due to shape. 3 does"):
                tf.bitcast(tf.constant([1, 2, 3], tf.int8), tf.int32)
