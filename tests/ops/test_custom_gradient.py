"""tf.custom_gradient and Graph.gradient_override_map against TF 2.21 (graph mode):
gradients, GraphDefs (the IdentityN and the Identity ops TF leaves), functions reading
variables (``grad_fn(..., variables=...)``), nested results, and TF's errors."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, assert_same_graph_def, tf1

X = np.array([[-1.5, 0.25, 2.0], [0.5, -0.75, 3.0]], np.float32)
# The registered gradient's name carries a process-wide counter (TF's ops.uid()).
_IGNORED = ("_output_shapes", "_gradient_op_type")


def _clipped_identity(tf):
    @tf.custom_gradient
    def clip_gradient(x):
        def grad(dy):
            return tf.clip_by_value(dy, -0.1, 0.1)

        return tf.identity(x) * 1.0, grad

    return clip_gradient


def _log1pexp(tf):
    @tf.custom_gradient
    def log1pexp(x):
        e = tf.exp(x)

        def grad(dy):
            return dy * (1 - 1 / (1 + e))

        return tf.log(1 + e), grad

    return log1pexp


def test_gradients_and_graph_def_match_tf():
    def program(tf):
        x = tf.placeholder(tf.float32, [2, 3], name="x")
        y = _clipped_identity(tf)(x * 3.0)
        z = _log1pexp(tf)(x)
        loss = tf.reduce_sum(y * 5.0) + tf.reduce_sum(z)
        return [y, z, tf.gradients(loss, x)], {x: X}

    assert_parity(program)
    assert_same_graph_def(program, ignore_attrs=_IGNORED)


def test_several_arguments_and_nested_results():
    def program(tf):
        a = tf.placeholder(tf.float32, [2, 3], name="a")
        b = tf.placeholder(tf.float32, [2, 3], name="b")

        @tf.custom_gradient
        def pair(a, b):
            def grad(d_sum, d_prod):
                return d_sum * 2.0 + d_prod, d_sum - d_prod * 3.0

            return (a + b, a * b), grad

        s, p = pair(a, b)
        loss = tf.reduce_sum(s * X) + tf.reduce_sum(p)
        return [s, p, tf.gradients(loss, [a, b])], {a: X, b: X * 0.5}

    assert_parity(program)
    assert_same_graph_def(program, ignore_attrs=_IGNORED)


def _dense_with_variable(tf, use_resource):
    x = tf.placeholder(tf.float32, [2, 3], name="x")
    w = tf.get_variable(
        "w", initializer=np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4),
        use_resource=use_resource,
    )  # fmt: skip

    @tf.custom_gradient
    def dense(x):
        def grad(dy, variables=None):
            (v,) = variables
            return tf.matmul(dy, v, transpose_b=True) * 2.0, [tf.matmul(x, dy, transpose_a=True)]

        return tf.matmul(x, w), grad

    y = dense(x)
    return [y, tf.gradients(tf.reduce_sum(y * y), [x, w])], {x: X}


@pytest.mark.parametrize("use_resource", [False, True], ids=["ref", "resource"])
def test_variables_read_by_the_function(use_resource):
    assert_parity(lambda tf: _dense_with_variable(tf, use_resource))
    if not use_resource:  # resource reads get TF's per-read names elsewhere
        assert_same_graph_def(lambda tf: _dense_with_variable(tf, False), ignore_attrs=_IGNORED)


@pytest.mark.parametrize("tf", [tfcompat, "tf"], ids=["tfcompat", "tf"])
def test_errors(tf):
    tf = tf1() if tf == "tf" else tf
    with tf.Graph().as_default():
        x = tf.constant(X)
        w = tf.Variable(np.ones((3, 1), np.float32), name="w")

        @tf.custom_gradient
        def no_variables_kwarg(x):
            return tf.matmul(x, w), lambda dy: dy

        with pytest.raises(TypeError, match="grad_fn must accept keyword argument 'variables'"):
            no_variables_kwarg(x)

        @tf.custom_gradient
        def makes_a_ref_variable(x):
            v = tf.get_variable("v", [], use_resource=False)
            return x * v, lambda dy: dy

        with pytest.raises(TypeError, match="must be `ResourceVariable`s"):
            makes_a_ref_variable(x)

        with pytest.raises(ValueError, match="supports keywords arguments only when eager"):
            _log1pexp(tf)(x=x)


def test_gradient_override_map_applies_to_ops_made_in_the_block():
    def program(tf):
        x = tf.placeholder(tf.float32, [2, 3], name="x")
        graph = tf.get_default_graph()
        with graph.gradient_override_map({"Sign": "Identity", "Square": "Identity"}):
            s = tf.sign(x)  # straight-through estimator
        sq = tf.square(x)  # made outside the block: its own gradient
        # Taken outside the block: the override recorded on the op still applies.
        return [tf.gradients(tf.reduce_sum(s * X) + tf.reduce_sum(sq), x)], {x: X}

    assert_parity(program)
    assert_same_graph_def(program)
