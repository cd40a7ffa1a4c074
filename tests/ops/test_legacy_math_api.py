"""TF1-era helpers against TF 2.21: tf.arg_max / arg_min, accumulate_n, clip_by_average_norm,
is_non_decreasing / is_strictly_increasing (values, gradients where they have one, GraphDefs,
TF's errors)."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, assert_same_graph_def, tf1

X = np.array([[3.0, -1.0, 2.0], [0.5, 4.0, -2.0]], np.float32)


def _program(tf):
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    v = tf.placeholder(tf.float32, [None], name="v")
    clipped = tf.clip_by_average_norm(x, 0.3)
    summed = tf.accumulate_n([x, x * 2.0, tf.ones_like(x)], shape=[2, 3])
    return [
        tf.arg_max(x, 1),
        tf.arg_min(x, 0, output_type=tf.int32, name="amin"),
        summed,
        tf.accumulate_n([x], name="single"),
        clipped,
        tf.gradients(tf.reduce_sum(clipped * X) + tf.reduce_sum(summed), x),
        tf.is_non_decreasing(v),
        tf.is_strictly_increasing(v),
        tf.is_strictly_increasing(tf.constant([1, 1, 2])),
        tf.is_non_decreasing(tf.constant([[1, 1], [2, 3]])),
    ]


@pytest.mark.parametrize("values", [[1.0, 2.0, 2.0, 5.0], [3.0], [], [1.0, 0.5]], ids=str)
def test_values_and_gradients_match_tf(values):
    assert_parity(lambda tf: (_program(tf), _feeds(tf, values)))


def _feeds(tf, values):
    graph = tf.get_default_graph()
    return {
        graph.get_tensor_by_name("x:0"): X,
        graph.get_tensor_by_name("v:0"): np.array(values, np.float32),
    }


def test_graph_def_matches_tf():
    assert_same_graph_def(lambda tf: (_program(tf), _feeds(tf, [1.0])))


@pytest.mark.parametrize("tf", [tfcompat, "tf"], ids=["tfcompat", "tf"])
def test_errors(tf):
    tf = tf1() if tf == "tf" else tf
    with tf.Graph().as_default():
        a, b = tf.zeros([2]), tf.zeros([2], tf.int32)
        with pytest.raises(ValueError, match="inputs must be a list of at least one Tensor"):
            tf.accumulate_n([a, b])
        with pytest.raises(ValueError, match="inputs must be a list of at least one Tensor"):
            tf.accumulate_n([])
        with pytest.raises(TypeError, match="The `tensor_dtype` argument is"):
            tf.accumulate_n([a, a], tensor_dtype=tf.float64)
        with pytest.raises(ValueError):
            tf.accumulate_n([a, tf.zeros([3])])
        with pytest.raises(TypeError, match="Expected x to be numeric"):
            tf.is_non_decreasing(tf.constant([True, False]))
