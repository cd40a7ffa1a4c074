"""``TensorArray.split`` / ``concat`` (``TensorArraySplitV3`` / ``TensorArrayConcatV3``) vs
TF 2.21: GraphDefs and static shapes, values and gradients (concat's gradient splits, split's
concatenates), a split inside a while loop's array and of a dynamic array, and TF's errors
on both backends. Elements of different lengths need ``infer_shape=False`` in TF; here an
array is one buffer of equal elements, so those are refused (Unimplemented)."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, assert_same_graph_def, tf1

X = np.random.RandomState(5).randn(6, 2).astype(np.float32)
BACKENDS = ("xla", "reference")


def _split_concat(tf):
    x = tf.placeholder(tf.float32, [6, 2])
    ta = tf.TensorArray(tf.float32, size=3, clear_after_read=False).split(x, [2, 2, 2])
    joined = ta.concat()
    second = ta.read(1)
    loss = tf.reduce_sum(joined * joined * tf.range(1.0, 3.0))
    grad = tf.gradients(loss, x)[0]
    grown = tf.TensorArray(tf.float32, size=0, dynamic_size=True)
    grown = grown.split(x, tf.constant([3, 3], tf.int64)).concat()
    return [joined, second, grad, grown], {x: X}


def test_split_and_concat_graph_matches_tf():
    assert_same_graph_def(_split_concat)


def test_split_and_concat_values_and_gradients_match_tf():
    assert_parity(_split_concat)


def test_concat_of_a_loop_built_array_matches_tf():
    def program(tf):
        x = tf.placeholder(tf.float32, [None, 2])
        ta = tf.TensorArray(tf.float32, size=4)

        def body(i, ta):
            return i + 1, ta.write(i, x[:3] * tf.cast(i, tf.float32))

        _, ta = tf.while_loop(lambda i, ta: i < 4, body, [0, ta])
        joined = ta.concat()
        return [joined, tf.gradients(tf.reduce_sum(joined), x)[0]], {x: X}

    assert_parity(program)


def _error(tf, lengths, backend=None, **array_kwargs):
    with tf.Graph().as_default():
        x = tf.constant(X)
        ta = tf.TensorArray(tf.float32, size=3, **array_kwargs)
        kwargs = {"backend": backend} if backend else {}
        with tf.Session(**kwargs) as sess:
            with pytest.raises(tf.errors.OpError) as caught:
                sess.run(ta.split(x, lengths).concat())
            return type(caught.value).__name__, caught.value.message


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(
    "lengths, want",
    [
        ([2, 2], "Expected sum of lengths to be equal to values.shape[0], but sum of lengths "
                 "is 4 and value's shape is: [6,2]"),
        ([6], "TensorArray's size is not equal to the size of lengths (3 vs. 1), and the "
              "TensorArray is not marked as dynamically resizeable"),
        ([1, 5, 0], "Could not write to TensorArray index 1 because the value shape is [5,2] "
                    "which is incompatible with the TensorArray's inferred element shape: "
                    "[1,2] (consider setting infer_shape=False)."),
    ],
)  # fmt: skip
def test_split_errors_match_tf(backend, lengths, want):
    kind, message = _error(tf1(), lengths)
    assert kind == "InvalidArgumentError" and want in message
    ours_kind, ours = _error(tfcompat, lengths, backend)
    assert ours_kind == kind and want in ours


@pytest.mark.parametrize("backend", BACKENDS)
def test_elements_of_different_lengths_are_refused(backend):
    kind, message = _error(tfcompat, [1, 5, 0], backend, infer_shape=False)
    assert kind == "UnimplementedError"
    assert "different lengths [1, 5, 0]" in message


def test_concat_of_scalars_fails_at_build_like_tf():
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            ta = tf.TensorArray(tf.float32, size=2).unstack([1.0, 2.0])
            with pytest.raises(IndexError):
                ta.concat()
