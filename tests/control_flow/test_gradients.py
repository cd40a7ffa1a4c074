"""tf.gradients through tf.cond / tf.case / tf.while_loop against TF 2.21 (v1 control flow):
gradient values on both backends, cond gradient graphs, gradcheck and finite differences,
the stack bucket growing for long loops, and training steps through loops (nested loops:
test_nested_while_grad.py)."""

import numpy as np
import pytest

import tfcompat
from lowering.gradcheck import check_gradients
from tests.oracle import assert_parity, assert_same_graph_def, tf1


# --- cond / case -------------------------------------------------------------------------------
def _square_or_triple(x_value):
    def program(tf):
        x = tf.placeholder(tf.float32, [], name="x")
        y = tf.cond(x > 0, lambda: tf.square(x), lambda: 3.0 * x)
        return [y, tf.gradients(y, x)[0]], {x: x_value}

    return program


@pytest.mark.parametrize("x_value", [3.0, -2.0, 0.0])
def test_cond_gradient(x_value):
    assert_parity(_square_or_triple(x_value))


def test_cond_gradient_graph_def_matches_tf():
    assert_same_graph_def(_square_or_triple(1.0))


def _nested_cond(x_value):
    def program(tf):
        x = tf.placeholder(tf.float32, [], name="x")
        w = tf.Variable(np.float32(1.5), name="w")
        y = tf.cond(
            x > 0,
            lambda: tf.cond(x > 10, lambda: x * w * 100.0, lambda: tf.sin(x) * w),
            lambda: -x * x,
        )
        return [y] + tf.gradients(y, [x, w]), {x: x_value}

    return program


@pytest.mark.parametrize("x_value", [20.0, 5.0, -2.0])
def test_nested_cond_gradient(x_value):
    assert_parity(_nested_cond(x_value), rtol=1e-5)


@pytest.mark.parametrize("x_value", [1, 2, 7])
def test_case_gradient(x_value):
    def program(tf):
        k = tf.placeholder(tf.int32, [], name="k")
        x = tf.constant(np.array([0.5, -1.0, 2.0], np.float32))
        y = tf.case(
            [
                (tf.equal(k, 1), lambda: tf.reduce_sum(x * x)),
                (tf.equal(k, 2), lambda: tf.reduce_sum(tf.exp(x))),
            ],
            default=lambda: tf.reduce_sum(x),
        )
        return [y, tf.gradients(y, x)[0]], {k: x_value}

    assert_parity(program, rtol=1e-5)


@pytest.mark.parametrize("flag", [True, False])
def test_cond_gradient_of_several_outputs_and_outside_values(flag):
    def program(tf):
        p = tf.placeholder(tf.bool, [], name="p")
        a = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3) - 2.0)
        b = tf.constant(np.ones((3,), np.float32) * 0.5)
        u, v = tf.cond(p, lambda: (a * b, a), lambda: (tf.nn.relu(a), a + b))
        loss = tf.reduce_sum(u * 3.0) + tf.reduce_sum(v * v)
        return tf.gradients(loss, [a, b]), {p: flag}

    assert_parity(program)


@pytest.mark.parametrize("x_value", [2.0, -1.5])
def test_cond_gradcheck_against_jax_vjp(x_value):
    tf = tfcompat
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [3], name="x")
        y = tf.cond(
            tf.reduce_sum(x) > 0, lambda: tf.reduce_sum(tf.tanh(x) * x), lambda: tf.reduce_prod(x)
        )
        value = np.array([x_value, 0.5, 1.0], np.float32)
        check_gradients(y, x, {x: value}).assert_close()


# --- while_loop --------------------------------------------------------------------------------
def _power(n_value, x_value=1.3):
    def program(tf):
        x = tf.placeholder(tf.float32, [], name="x")
        n = tf.placeholder(tf.int32, [], name="n")
        _, y = tf.while_loop(
            lambda i, y: i < n, lambda i, y: (i + 1, y * x), [tf.constant(0), tf.constant(1.0)]
        )
        return [y, tf.gradients(y, x)[0]], {x: x_value, n: n_value}

    return program


@pytest.mark.parametrize("n_value", [0, 1, 5])
def test_while_gradient_with_trip_count_fed_at_run_time(n_value):
    assert_parity(_power(n_value), rtol=1e-5)


def test_while_gradient_matches_finite_differences():
    tf = tfcompat
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float64, [2], name="x")
        n = tf.placeholder(tf.int32, [], name="n")
        _, y = tf.while_loop(
            lambda i, y: i < n,
            lambda i, y: (i + 1, tf.sin(y) * x + y),
            [tf.constant(0), tf.ones([2], tf.float64)],
        )
        loss = tf.reduce_sum(y * y)
        dx = tf.gradients(loss, x)[0]
        value = np.array([0.3, -0.7])
        for backend in ("xla", "reference"):
            with tf.Session(backend=backend) as sess:
                grad = sess.run(dx, {x: value, n: 6})
                eps = 1e-6
                numeric = []
                for k in range(2):
                    step = np.eye(2)[k] * eps
                    hi = sess.run(loss, {x: value + step, n: 6})
                    lo = sess.run(loss, {x: value - step, n: 6})
                    numeric.append((hi - lo) / (2 * eps))
                np.testing.assert_allclose(grad, numeric, rtol=1e-6, atol=1e-8)


def test_while_gradient_wrt_captured_variable():
    def program(tf):
        w = tf.Variable(np.array([[0.5, -0.2], [0.1, 0.9]], np.float32), name="w")
        x0 = tf.constant(np.array([[1.0, 2.0]], np.float32))
        _, h = tf.while_loop(
            lambda i, h: i < 4, lambda i, h: (i + 1, tf.tanh(tf.matmul(h, w))), [0, x0]
        )
        loss = tf.reduce_sum(h)
        return [loss, tf.gradients(loss, w)[0]]

    assert_parity(program, rtol=1e-5)


@pytest.mark.parametrize("limit", [3, 100])
def test_while_gradient_with_maximum_iterations(limit):
    def program(tf):
        x = tf.placeholder(tf.float32, [], name="x")
        y = tf.while_loop(lambda y: y < 50.0, lambda y: y * x, [x], maximum_iterations=limit)
        return [y, tf.gradients(y, x)[0]], {x: 1.7}

    assert_parity(program, rtol=1e-5)


def test_while_gradient_of_unused_and_integer_loop_vars():
    def program(tf):
        x = tf.placeholder(tf.float32, [], name="x")
        _, a, b = tf.while_loop(
            lambda i, a, b: i < 3, lambda i, a, b: (i + 1, a * x, b + a), [0, x, tf.constant(0.0)]
        )
        return tf.gradients(b, x) + tf.gradients(a, x), {x: 0.7}

    assert_parity(program, rtol=1e-5)


@pytest.mark.parametrize("x_value", [0.5, 3.0])
def test_while_gradient_with_cond_in_body(x_value):
    def program(tf):
        x = tf.placeholder(tf.float32, [], name="x")
        _, y = tf.while_loop(
            lambda i, y: i < 6,
            lambda i, y: (i + 1, tf.cond(y < 4.0, lambda: y * x, lambda: y - x)),
            [0, x],
        )
        return [y, tf.gradients(y, x)[0]], {x: x_value}

    assert_parity(program, rtol=1e-5)


def test_long_loop_grows_the_stack_bucket():
    from lowering import regions

    tf = tfcompat
    n_value = regions.INITIAL_STACK_BUCKET * 3
    with tf.Graph().as_default():
        fetches, feeds = _power(n_value, 1.01)(tf)
        with tf.Session() as sess:
            y, dx = sess.run(fetches, feeds)
            (device_function,) = [
                f for e in sess._executables.values() for f in e.device_functions.values()
            ]
            assert device_function.stack_bucket == 4 * regions.INITIAL_STACK_BUCKET
            assert device_function.compile_count == 3
            y, dx = sess.run(fetches, feeds)  # the grown bucket is kept
            assert device_function.compile_count == 3
    np.testing.assert_allclose(y, 1.01**n_value, rtol=1e-4)
    np.testing.assert_allclose(dx, n_value * 1.01 ** (n_value - 1), rtol=1e-4)


def test_gradient_descent_through_while_loop_with_stateful_body():
    def program(tf):
        w = tf.Variable(np.float32(0.9), name="w")
        calls = tf.Variable(0, name="calls")
        x = tf.placeholder(tf.float32, [], name="x")

        def body(i, y):
            with tf.control_dependencies([tf.assign_add(calls, 1)]):
                return i + 1, y * w + x

        _, y = tf.while_loop(lambda i, y: i < 5, body, [0, x])
        loss = tf.square(y - 2.0)
        step = tf.train.GradientDescentOptimizer(0.01).minimize(loss)
        with tf.control_dependencies([step]):
            after = [tf.identity(w.read_value()), tf.identity(calls.read_value())]
        return after, {x: 0.5}

    assert_parity(program, rtol=1e-5)


@pytest.mark.parametrize("module", ["tf", "ours"])
def test_second_order_gradient_through_while_loop_raises_as_tf(module):
    """TF 2.21's v1 loops: a second gradient reaching xs through a gradient loop raises
    TypeError; one reaching them only through stacked values is None."""
    tf = tf1() if module == "tf" else tfcompat
    with tf.Graph().as_default():
        x = tf.placeholder(tf.float32, [])
        _, y = tf.while_loop(lambda i, y: i < 2, lambda i, y: (i + 1, y * x), [0, x])
        dx = tf.gradients(y, x)[0]
        with pytest.raises(TypeError, match="Second-order gradient for while loops"):
            tf.gradients(dx, x)
        z = tf.while_loop(lambda z: z < 100.0, lambda z: z * z + x, [x])
        assert tf.gradients(tf.gradients(z, x)[0], x) == [None]
