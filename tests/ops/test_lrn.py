"""tf.nn.lrn / local_response_normalization against TF 2.21: values for several radii and
parameters, gradients (TF's LRNGrad), and the GraphDef."""

import numpy as np
import pytest

from tests.oracle import assert_parity, assert_same_graph_def

X = np.random.default_rng(2).normal(size=(2, 3, 4, 7)).astype(np.float32)


@pytest.mark.parametrize(
    "params",
    [{}, {"depth_radius": 2, "bias": 2.0, "alpha": 1e-4, "beta": 0.75}, {"depth_radius": 0}],
    ids=str,
)
def test_values_and_gradients_match_tf(params):
    def program(tf):
        x = tf.placeholder(tf.float32, [None, 3, 4, 7], name="x")
        y = tf.nn.lrn(x, **params)
        weights = np.linspace(-1, 1, 7, dtype=np.float32)
        return [y, tf.gradients(tf.reduce_sum(y * weights), x)[0]], {x: X}

    assert_parity(program, rtol=1e-5, atol=1e-5)


def test_graph_def_matches_tf():
    def program(tf):
        x = tf.placeholder(tf.float32, [None, 3, 4, 7], name="x")
        y = tf.nn.local_response_normalization(x, 2, 1.5, 0.01, 0.5, name="norm1")
        return [y, tf.gradients(tf.reduce_sum(y), x)[0]], {x: X}

    assert_same_graph_def(program)
