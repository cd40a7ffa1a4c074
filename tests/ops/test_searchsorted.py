"""tf.searchsorted (TF's LowerBound / UpperBound) against TF 2.21: both sides, int32 and
int64 outputs, batched rows, ties and values outside the range; TF's side error."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, assert_same_graph_def, tf1

SEQ = np.array([[0.0, 1.0, 1.0, 3.0, 7.0], [-2.0, -1.0, 0.0, 0.0, 5.0]], np.float32)
VALUES = np.array([[1.0, -5.0, 3.5, 7.0], [0.0, 9.0, -1.0, -1.5]], np.float32)


def _program(tf):
    seq, values = tf.constant(SEQ), tf.constant(VALUES)
    ints = tf.constant([1, 3, 3, 9])
    return [
        tf.searchsorted(seq, values),
        tf.searchsorted(seq, values, side="right", out_type=tf.int64),
        tf.searchsorted(ints, tf.constant([[3, 0], [10, 2]])[0]),
        tf.searchsorted(tf.constant(SEQ[None]), tf.constant(VALUES[None]), side="right"),
    ]


def test_searchsorted_matches_tf():
    assert_parity(_program)


def test_searchsorted_graph_def_matches_tf():
    assert_same_graph_def(_program)


def test_bad_side_raises_like_tf():
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            with pytest.raises(ValueError, match="must be either 'right' or 'left'"):
                tf.searchsorted(tf.constant(SEQ), tf.constant(VALUES), side="middle")
