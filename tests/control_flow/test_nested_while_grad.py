"""tf.while_loop nested in tf.while_loop against TF 2.21: values and GraphDefs of the forward
loops, and tf.gradients through them (the inner gradient loop runs inside the outer one; the
inner loop's history is one stack pushed across all outer iterations, and each outer
iteration's inner trip count is saved on a stack of the outer loop)."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, assert_same_graph_def, tf1

W = np.array([[0.5, -1.0, 2.0, 0.25], [1.5, 0.75, -0.5, 1.0], [-2.0, 0.3, 0.6, -0.1]], np.float32)


def _counter_dependent(n_value=3, x_value=1.5, grads=True):
    """The inner loop runs ``i`` times in outer iteration ``i``."""

    def program(tf):
        x = tf.placeholder(tf.float32, [], name="x")
        n = tf.placeholder(tf.int32, [], name="n")

        def inner(i, y):
            return tf.while_loop(lambda j, z: j < i, lambda j, z: (j + 1, z * x + 1.0), [0, y])[1]

        _, y = tf.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, inner(i, y)), [0, x])
        fetches = [y, tf.gradients(y, x)[0]] if grads else [y]
        return fetches, {x: x_value, n: n_value}

    return program


@pytest.mark.parametrize("n_value", [0, 1, 4])
def test_nested_while_values(n_value):
    assert_parity(_counter_dependent(n_value, grads=False))


def test_nested_while_graph_def_matches_tf():
    assert_same_graph_def(_counter_dependent(grads=False))


# --- gradients ---------------------------------------------------------------------------------
@pytest.mark.parametrize("n_value", [0, 1, 2, 5])
def test_gradient_with_inner_trip_count_from_outer_counter(n_value):
    assert_parity(_counter_dependent(n_value), rtol=1e-5)


def test_gradient_of_double_sum_with_fixed_trip_counts():
    """``sum_i sum_j tanh(acc + x * w_ij)``-style accumulation over a 3 x 4 table."""

    def program(tf):
        x = tf.placeholder(tf.float32, [2], name="x")
        w = tf.constant(W)

        def inner(i, acc):
            def body(j, a):
                return j + 1, tf.tanh(a + x * tf.gather(tf.gather(w, i), j))

            return tf.while_loop(lambda j, a: j < 4, body, [0, acc])[1]

        _, acc = tf.while_loop(
            lambda i, a: i < 3, lambda i, a: (i + 1, inner(i, a)), [0, tf.zeros([2])]
        )
        loss = tf.reduce_sum(acc * acc)
        return [acc, tf.gradients(loss, x)[0]], {x: np.array([0.3, -0.6], np.float32)}

    assert_parity(program, rtol=1e-5)


def _fed_trip_counts(n_value, m_value):
    def program(tf):
        x = tf.placeholder(tf.float32, [2], name="x")
        n = tf.placeholder(tf.int32, [], name="n")
        m = tf.placeholder(tf.int32, [], name="m")

        def inner(y):
            def body(j, z):
                return j + 1, tf.sin(z) * x + z

            return tf.while_loop(lambda j, z: j < m, body, [0, y])[1]

        _, y = tf.while_loop(
            lambda i, y: i < n, lambda i, y: (i + 1, inner(y) * 0.9), [0, tf.ones([2])]
        )
        loss = tf.reduce_sum(y * y)
        feeds = {x: np.array([0.4, -0.2], np.float32), n: n_value, m: m_value}
        return [y, tf.gradients(loss, x)[0]], feeds

    return program


@pytest.mark.parametrize("n_value, m_value", [(0, 3), (3, 0), (1, 1), (3, 4)])
def test_gradient_with_trip_counts_fed_at_run_time(n_value, m_value):
    assert_parity(_fed_trip_counts(n_value, m_value), rtol=1e-5)


@pytest.mark.parametrize("inner_limit, outer_limit", [(2, 10), (10, 2), (1, 1)])
def test_gradient_with_maximum_iterations(inner_limit, outer_limit):
    def program(tf):
        x = tf.placeholder(tf.float32, [], name="x")
        limit = tf.placeholder(tf.int32, [], name="limit")

        def inner(y):
            return tf.while_loop(lambda z: z < 40.0, lambda z: z * x, [y], maximum_iterations=limit)

        y = tf.while_loop(
            lambda y: y < 1000.0, lambda y: inner(y) + 1.0, [x], maximum_iterations=outer_limit
        )
        return [y, tf.gradients(y, x)[0]], {x: 1.3, limit: inner_limit}

    assert_parity(program, rtol=1e-5)


def test_gradient_through_outer_body_values_read_by_inner_loop():
    """The inner body reads values the outer body computes (invariants of the inner loop,
    one per outer iteration) and a value from outside both loops."""

    def program(tf):
        x = tf.placeholder(tf.float32, [], name="x")
        c = tf.placeholder(tf.float32, [], name="c")

        def outer_body(i, y):
            s = tf.sin(y) + tf.cast(i, tf.float32)
            z = tf.while_loop(
                lambda j, z: j < 3, lambda j, z: (j + 1, z * s * c + x), [0, tf.ones([])]
            )[1]
            return i + 1, y + z * 0.1

        _, y = tf.while_loop(lambda i, y: i < 3, outer_body, [0, x])
        return [y] + tf.gradients(y, [x, c]), {x: 0.7, c: 0.5}

    assert_parity(program, rtol=1e-5)


@pytest.mark.parametrize("x_value", [0.5, 3.0])
def test_gradient_with_cond_in_inner_body(x_value):
    def program(tf):
        x = tf.placeholder(tf.float32, [], name="x")

        def inner(y):
            def body(j, z):
                return j + 1, tf.cond(z < 4.0, lambda: z * x, lambda: z - x)

            return tf.while_loop(lambda j, z: j < 3, body, [0, y])[1]

        _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, inner(y)), [0, x])
        return [y, tf.gradients(y, x)[0]], {x: x_value}

    assert_parity(program, rtol=1e-5)


def test_gradient_with_unused_inner_output_of_unknown_shape():
    """An inner loop output the outer body drops gets zero gradients in the outer gradient
    loop; its shape is only known at run time."""

    def program(tf):
        x = tf.placeholder(tf.float32, [None], name="x")

        def inner(y):
            def body(j, a, b):
                return j + 1, a * x, b + a

            _, a, _ = tf.while_loop(lambda j, a, b: j < 2, body, [0, y, tf.zeros_like(y)])
            return a

        _, y = tf.while_loop(lambda i, y: i < 3, lambda i, y: (i + 1, inner(y) + 0.5), [0, x])
        return [y, tf.gradients(y, x)[0]], {x: np.array([0.9, -1.1, 0.4], np.float32)}

    assert_parity(program, rtol=1e-5)


def test_gradient_through_three_nested_loops():
    def program(tf):
        x = tf.placeholder(tf.float32, [], name="x")

        def level(depth, y):
            if depth == 0:
                return tf.sin(y) * x + y
            return tf.while_loop(
                lambda k, z: k < depth + 1, lambda k, z: (k + 1, level(depth - 1, z)), [0, y]
            )[1]

        y = level(3, x)
        return [y, tf.gradients(y, x)[0]], {x: 0.3}

    assert_parity(program, rtol=1e-5)


def test_nested_loop_grows_the_stack_bucket():
    """100 inner iterations in all: the inner loop's stacks overflow the first bucket."""
    from lowering import regions

    tf = tfcompat
    with tf.Graph().as_default():
        fetches, feeds = _fed_trip_counts(10, 10)(tf)
        with tf.Session() as sess:
            values = sess.run(fetches, feeds)
            (device_function,) = [
                f for e in sess._executables.values() for f in e.device_functions.values()
            ]
            assert device_function.stack_bucket == 4 * regions.INITIAL_STACK_BUCKET
    with tf.Graph().as_default():
        fetches, feeds = _fed_trip_counts(10, 10)(tf)
        with tf.Session(backend="reference") as sess:
            expected = sess.run(fetches, feeds)
    for ours, ref in zip(values, expected):
        np.testing.assert_allclose(ours, ref, rtol=1e-5)


def test_gradient_inside_outer_loop_body():
    """tf.gradients called in an outer body, through a loop nested there: the gradient loop
    runs inside the forward outer loop, once per outer iteration."""

    def program(tf):
        x = tf.placeholder(tf.float32, [], name="x")

        def body(i, acc):
            s = x + tf.cast(i, tf.float32)
            _, z = tf.while_loop(lambda j, z: j < 3, lambda j, z: (j + 1, z * s), [0, tf.ones([])])
            return i + 1, acc + tf.gradients(z, s)[0]

        _, acc = tf.while_loop(lambda i, a: i < 3, body, [0, tf.zeros([])])
        return [acc], {x: 0.5}

    assert_parity(program, rtol=1e-5)


# --- training ----------------------------------------------------------------------------------
def _train_nested_rnn(tf, steps, backend=None):
    """GradientDescent on ``w`` read in the inner body; ``w`` after each step."""
    w = tf.Variable(np.array([[0.5, -0.2], [0.1, 0.9]], np.float32), name="w")
    h0 = tf.constant(np.array([[1.0, 2.0]], np.float32))

    def inner(h):
        return tf.while_loop(
            lambda j, h: j < 2, lambda j, h: (j + 1, tf.tanh(tf.matmul(h, w))), [0, h]
        )[1]

    _, h = tf.while_loop(lambda i, h: i < 3, lambda i, h: (i + 1, inner(h) + 0.1), [0, h0])
    loss = tf.reduce_sum(tf.square(h - 0.5))
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    kwargs = {"backend": backend} if backend else {}
    with tf.Session(**kwargs) as sess:
        sess.run(tf.global_variables_initializer())
        history = []
        for _ in range(steps):
            _, loss_value = sess.run([train, loss])
            history.append((loss_value, sess.run(w)))
    return history


@pytest.mark.parametrize("backend", ["xla", "reference"])
def test_gradient_descent_through_nested_loops_matches_tf(backend):
    tf = tf1()
    with tf.Graph().as_default():
        theirs = _train_nested_rnn(tf, 4)
    with tfcompat.Graph().as_default():
        ours = _train_nested_rnn(tfcompat, 4, backend)
    for (loss_a, w_a), (loss_b, w_b) in zip(ours, theirs):
        np.testing.assert_allclose(loss_a, loss_b, rtol=1e-5)
        np.testing.assert_allclose(w_a, w_b, rtol=1e-5, atol=1e-6)
