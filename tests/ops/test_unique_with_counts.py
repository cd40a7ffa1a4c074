"""tf.unique_with_counts against TF 2.21: values for numbers, strings, repeats, NaN and
empty inputs, both index dtypes, the GraphDef, and TF's error (a host op: its outputs' sizes
depend on the values)."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, assert_same_graph_def, tf1
from tfcompat.framework import errors

CASES = {
    "ints": np.array([4, 1, 4, 7, 1, 1, 9], np.int64),
    "floats_nan": np.array([0.5, np.nan, -0.0, 2.0, np.nan, 0.0], np.float32),
    "strings": np.array([b"b", b"a", b"b", b""], object),
    "empty": np.zeros(0, np.int32),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_values_match_tf(case):
    x_value = CASES[case]

    def program(tf):
        dtype = tf.as_dtype(x_value.dtype) if x_value.dtype != object else tf.string
        x = tf.placeholder(dtype, [None], name="x")
        values, idx, count = tf.unique_with_counts(x)
        wide = tf.unique_with_counts(x, out_idx=tf.int64)
        return [values, idx, count, list(wide)], {x: x_value}

    assert_parity(program)


def test_graph_def_matches_tf():
    def program(tf):
        x = tf.placeholder(tf.int32, [None], name="x")
        y, idx, count = tf.unique_with_counts(x * 2, name="uwc")
        # Device ops on each side of the host op.
        return [y + 1, idx, count * 3], {x: [3, 1, 3, 2]}

    assert_same_graph_def(program)
    assert_parity(program)


@pytest.mark.parametrize("backend", ["xla", "reference"])
def test_not_a_vector_raises_tf_error(backend):
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            x = tf.placeholder(tf.int32, None)
            y = tf.unique_with_counts(x)[0]
            kwargs = {"backend": backend} if tf is tfcompat else {}
            error = (
                errors.InvalidArgumentError if tf is tfcompat else tf.errors.InvalidArgumentError
            )
            with tf.Session(**kwargs) as sess, pytest.raises(error, match="unique expects a 1D"):
                sess.run(y, {x: [[1, 2]]})
