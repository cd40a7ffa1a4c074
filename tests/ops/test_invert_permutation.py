"""tf.invert_permutation against TF 2.21: values (int32, int64, empty), the GraphDef, and
TF's errors for the first bad entry (out of range, repeated, not a vector) from the
compiled step and from the reference kernels."""

import pytest

import tfcompat
from tests.oracle import assert_parity, assert_same_graph_def, tf1
from tfcompat.framework import errors


@pytest.mark.parametrize("value", [[2, 0, 1], [0], [], [3, 4, 0, 2, 1]], ids=str)
@pytest.mark.parametrize("dtype", ["int32", "int64"])
def test_values_match_tf(value, dtype):
    def program(tf):
        p = tf.placeholder(getattr(tf, dtype), [None], name="p")
        return [tf.invert_permutation(p), tf.invert_permutation(p) * 2], {p: value}

    assert_parity(program)


def test_graph_def_matches_tf():
    def program(tf):
        p = tf.placeholder(tf.int32, [None], name="p")
        return tf.math.invert_permutation(p, name="inverse"), {p: [1, 0]}

    assert_same_graph_def(program)


@pytest.mark.parametrize("backend", ["xla", "reference"])
@pytest.mark.parametrize(
    "value, message",
    [
        ([0, 3, 1], "3 is not between 0 and 3"),
        ([1, 1, 0], "1 is duplicated in the input."),
        ([-1, 0, 1], "-1 is not between 0 and 3"),
        ([2, 0, 2, 7], "2 is duplicated in the input."),
        ([[0, 1]], "invert_permutation expects a 1D vector."),
    ],
)
def test_bad_permutation_raises_tf_error(backend, value, message):
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            p = tf.placeholder(tf.int32, None)
            y = tf.invert_permutation(p)
            kwargs = {"backend": backend} if tf is tfcompat else {}
            error = (
                errors.InvalidArgumentError if tf is tfcompat else tf.errors.InvalidArgumentError
            )
            with tf.Session(**kwargs) as sess, pytest.raises(error, match=message):
                sess.run(y, {p: value})
