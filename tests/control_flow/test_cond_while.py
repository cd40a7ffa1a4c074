"""tf.cond / tf.case / tf.while_loop against TF 2.21 (v1 control flow): values, dtypes,
static shapes, node names, and stateful ops inside branches and loop bodies."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, assert_same_graph_def


def _cond_program(x_value):
    def program(tf):
        x = tf.placeholder(tf.float32, [], name="x")
        y = tf.cond(x > 0, lambda: x * 2.0, lambda: tf.square(x) - 1.0)
        return y, {x: x_value}

    return program


@pytest.mark.parametrize("x_value", [3.0, -3.0, 0.0])
def test_cond_values(x_value):
    assert_parity(_cond_program(x_value))


def test_cond_graph_def_matches_tf():
    assert_same_graph_def(_cond_program(1.0))


def _cond_with_assign(x_value):
    def program(tf):
        x = tf.placeholder(tf.float32, [], name="x")
        v = tf.Variable(1.0, name="v")
        r = tf.cond(x > 0, lambda: x * 2.0, lambda: tf.assign_add(v, 1.0))
        with tf.control_dependencies([r]):
            after = tf.identity(v.read_value() if hasattr(v, "read_value") else v)
        return [r, after], {x: x_value}

    return program


@pytest.mark.parametrize("x_value", [3.0, -3.0])
def test_cond_only_taken_branch_writes(x_value):
    assert_parity(_cond_with_assign(x_value))


def test_cond_stateful_graph_def_matches_tf():
    assert_same_graph_def(_cond_with_assign(1.0))


def _nested_structure_cond(flag):
    def program(tf):
        p = tf.placeholder(tf.bool, [], name="p")
        a = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
        out = tf.cond(
            p,
            lambda: {"sum": a + 1.0, "pair": (a * 2.0, tf.constant(1))},
            lambda: {"sum": a - 1.0, "pair": (a, tf.constant(2))},
        )
        return out, {p: flag}

    return program


@pytest.mark.parametrize("flag", [True, False])
def test_cond_nested_structures(flag):
    assert_parity(_nested_structure_cond(flag))


def _nested_cond(x_value):
    def program(tf):
        x = tf.placeholder(tf.float32, [], name="x")
        y = tf.cond(
            x > 0,
            lambda: tf.cond(x > 10, lambda: x * 100.0, lambda: x + 1.0),
            lambda: -x,
        )
        return y, {x: x_value}

    return program


@pytest.mark.parametrize("x_value", [20.0, 5.0, -2.0])
def test_nested_cond(x_value):
    assert_parity(_nested_cond(x_value))


def test_cond_returning_outside_tensor_and_strict():
    def program(tf):
        x = tf.placeholder(tf.float32, [2], name="x")
        p = tf.placeholder(tf.bool, [], name="p")
        a = tf.cond(p, lambda: x, lambda: x + 1.0)
        b = tf.cond(p, lambda: [x], lambda: [x * 3.0], strict=True)
        return [a, b], {x: np.array([1.0, 2.0], np.float32), p: False}

    assert_parity(program)
    assert_same_graph_def(program)


@pytest.mark.parametrize("tf_name", ["cond"])
def test_cond_errors(tf_name):
    import tfcompat as tf

    with tf.Graph().as_default():
        x = tf.constant(1.0)
        with pytest.raises(TypeError, match="true_fn must be callable"):
            tf.cond(x > 0, 1.0, lambda: x)
        with pytest.raises(TypeError, match="pred must not be a Python bool"):
            tf.cond(True, lambda: x, lambda: x)
        with pytest.raises(ValueError, match="Incompatible return values"):
            tf.cond(x > 0, lambda: [x, x], lambda: x)
        with pytest.raises(ValueError, match="must have the same type"):
            tf.cond(x > 0, lambda: x, lambda: tf.constant(1))


# --- case ------------------------------------------------------------------------------------
def _case_program(x_value, exclusive):
    def program(tf):
        x = tf.placeholder(tf.int32, [], name="x")
        r = tf.case(
            [
                (tf.equal(x, 1), lambda: tf.constant(10.0)),
                (tf.equal(x, 2), lambda: tf.constant(20.0)),
            ],
            default=lambda: tf.constant(-1.0),
            exclusive=exclusive,
        )
        return r, {x: x_value}

    return program


@pytest.mark.parametrize("x_value", [1, 2, 3])
@pytest.mark.parametrize("exclusive", [False, True])
def test_case(x_value, exclusive):
    assert_parity(_case_program(x_value, exclusive))


# --- while_loop ------------------------------------------------------------------------------
def _while_program(x_value):
    def program(tf):
        x = tf.placeholder(tf.float32, [], name="x")
        i, a = tf.while_loop(lambda i, a: i < 10, lambda i, a: (i + 1, a * x), [0, 1.0])
        return [i, a], {x: x_value}

    return program


@pytest.mark.parametrize("x_value", [2.0, 0.5])
def test_while_values(x_value):
    assert_parity(_while_program(x_value))


def test_while_graph_def_matches_tf():
    assert_same_graph_def(_while_program(1.0))


def test_while_runtime_trip_count_and_nested_loop_vars():
    def program(tf):
        n = tf.placeholder(tf.int32, [], name="n")
        m = tf.constant(np.eye(2, dtype=np.float64))
        out = tf.while_loop(
            lambda s: s["i"] < n,
            lambda s: [
                {"i": s["i"] + 1, "acc": (tf.matmul(s["acc"][0], m * 2.0), s["acc"][1] + 1.0)}
            ],
            [{"i": tf.constant(0), "acc": (m, tf.constant(0.0))}],
        )
        return out, {n: 5}

    assert_parity(program)


def test_while_maximum_iterations():
    def program(tf):
        x = tf.placeholder(tf.float32, [], name="x")
        r = tf.while_loop(lambda a: a < 1e9, lambda a: a * 2.0, [x], maximum_iterations=7)
        i, a = tf.while_loop(
            lambda i, a: a < 1e9, lambda i, a: (i + 1, a * 3.0), (0, x), maximum_iterations=3
        )
        return [r, i, a], {x: 1.5}

    assert_parity(program)


def test_while_body_assign_runs_each_iteration():
    def program(tf):
        v = tf.Variable(0.0, name="v")

        def body(i):
            with tf.control_dependencies([tf.assign_add(v, 2.0)]):
                return i + 1

        i = tf.while_loop(lambda i: i < 4, body, [tf.constant(0)])
        with tf.control_dependencies([i]):
            total = tf.identity(v.read_value() if hasattr(v, "read_value") else tf.identity(v))
        return [i, total]

    assert_parity(program)


def test_cond_inside_while():
    def program(tf):
        x = tf.placeholder(tf.float32, [3], name="x")

        def body(i, a):
            a = tf.cond(tf.equal(i % 2, 0), lambda: a + x, lambda: a * 2.0)
            return i + 1, a

        return tf.while_loop(lambda i, a: i < 5, body, [0, tf.zeros([3])]), {
            x: np.array([1.0, -1.0, 0.5], np.float32)
        }

    assert_parity(program)


def test_while_shape_invariant_error():
    import tfcompat as tf

    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="enters the loop with shape"):
            tf.while_loop(
                lambda a: tf.size(a) < 5, lambda a: tf.concat([a, a], 0), [tf.constant([1.0])]
            )


def test_while_errors():
    import tfcompat as tf

    with tf.Graph().as_default():
        with pytest.raises(ValueError, match="'loop_vars' must be provided"):
            tf.while_loop(lambda: True, lambda: 1, [])
        with pytest.raises(TypeError, match="'cond' must be callable"):
            tf.while_loop(1, lambda a: a, [1])
        with pytest.raises(ValueError, match="Number of inputs and outputs of 'body'"):
            tf.while_loop(lambda a, b: a < 3, lambda a, b: a + 1, [1, 2])


@pytest.mark.parametrize("trips", [0, 2])
def test_variables_survive_a_loop_and_a_cond_that_write_nothing(trips):
    """A while loop that runs no iteration, and a cond whose branch writes no variable,
    leave every variable as it was (both backends, as TF)."""

    def program(tf):
        w = tf.Variable(np.float32(3.0), name="w")
        n = tf.placeholder(tf.int32, [], name="n")
        _, total = tf.while_loop(lambda i, t: i < n, lambda i, t: (i + 1, t + w), [0, 0.0])
        picked = tf.cond(n > 5, lambda: total * 2.0, lambda: total + 1.0)
        with tf.control_dependencies([picked]):
            after = tf.identity(w.read_value() * 10.0)
        return [total, picked, after], {n: trips}

    assert_parity(program)


def _loop_in_cond(tf):
    """A loop in a branch whose initial value comes from outside the cond: the value is
    switched in within the loop's name scope (``cond/while/Switch``), as TF names it."""
    x = tf.placeholder(tf.float32, [3], name="x")

    def looped():
        return tf.while_loop(lambda i, v: i < 2, lambda i, v: (i + 1, v * x), [0, x])[1]

    return tf.cond(x[0] > 0, looped, lambda: x), {x: [1.0, 2.0, 3.0]}


def test_loop_in_cond_graph_def_matches_tf():
    assert_same_graph_def(_loop_in_cond)


def test_loop_in_cond_values_match_tf():
    assert_parity(_loop_in_cond)


def test_cond_whose_branches_differ_in_shape_specialises_on_a_fed_integer():
    """Branches of different shapes with a predicate computed from a fed integer (rot90 by
    a fed k): the step is compiled per value of the integer, taking only that branch, as
    TF runs only the taken one."""

    def program(tf, k):
        n = tf.placeholder(tf.int32, [], name="n")
        x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3))
        y = tf.cond(n % 2 > 0, lambda: tf.transpose(x) * 2.0, lambda: x)
        return [y, tf.reduce_sum(y)], {n: k}

    for k in (1, 0, 4, 3):
        assert_parity(lambda tf, k=k: program(tf, k))
    with tfcompat.Graph().as_default():
        fetches, feed = program(tfcompat, 1)
        (n,) = feed
        with tfcompat.Session() as sess:
            shapes = [sess.run(fetches[0], {n: k}).shape for k in (1, 0, 1, 2)]
            executable = next(iter(sess._executables.values()))
            compiles = sum(f.compile_count for f in executable.device_functions.values())
    assert shapes == [(3, 2), (2, 3), (3, 2), (2, 3)]
    assert compiles == 4  # the failed generic trace, then one per value of n (1, 0, 2)


def test_cond_on_a_static_predicate_runs_only_the_taken_branch():
    """A predicate known from static shapes (``tf.size(x) < 2`` of a fed vector) selects
    the branch while tracing, as TF runs only the taken one: the branches may then return
    different shapes. A predicate known only at run time still needs equal shapes."""

    def program(tf, values):
        x = tf.placeholder(tf.float32, [None], name="x")
        y = tf.cond(tf.size(x) < 2, lambda: tf.zeros([0]), lambda: x[1:] - x[:-1])
        return [y, tf.reduce_sum(y), tf.gradients(tf.reduce_sum(y * y), x)], {x: values}

    for values in ([1.0, 4.0, 2.0], [5.0], []):
        fed = np.array(values, np.float32)
        assert_parity(lambda tf, v=fed: program(tf, v))

    # A fed bool predicate: the step is specialised on it (see the next test); a float
    # comparison cannot be, and still needs equal shapes.
    with tfcompat.Graph().as_default():
        p = tfcompat.placeholder(tfcompat.bool, [])
        y = tfcompat.cond(p, lambda: tfcompat.zeros([0]), lambda: tfcompat.ones([2]))
        v = tfcompat.placeholder(tfcompat.float32, [])
        z = tfcompat.cond(v > 0, lambda: tfcompat.zeros([0]), lambda: tfcompat.ones([2]))
        with tfcompat.Session() as sess:
            assert sess.run(y, {p: True}).shape == (0,)
            assert sess.run(y, {p: False}).shape == (2,)
            with pytest.raises(tfcompat.errors.UnimplementedError, match="agree on shapes"):
                sess.run(z, {v: 1.0})


def test_while_predicate_computed_by_a_cond_matches_tf():
    """The loop's predicate comes out of a ``tf.cond`` (a nested region): values and
    gradients as TF's, on both backends."""

    def program(tf):
        x = tf.placeholder(tf.float32, [], name="x")

        def keep_going(i, v):
            return tf.cond(v > 1.0, lambda: i < 10, lambda: tf.constant(False))

        i, v = tf.while_loop(keep_going, lambda i, v: (i + 1, v * 0.5 + 0.1), [0, x])
        return [i, v, tf.gradients(v, x)], {x: 7.0}

    assert_parity(program)


def _growing_loop(tf):
    """A loop whose ``shape_invariants`` let a value grow (``[None, 2]`` entering as
    ``[2, 2]``): it runs on the host, gradient stacks included, with device work around."""
    x = tf.placeholder(tf.float32, [2, 2], name="x")
    scale = tf.placeholder(tf.float32, [], name="scale")
    start = tf.matmul(x, x)  # device work before the loop
    _, grown = tf.while_loop(
        lambda i, m: i < 3,
        lambda i, m: [i + 1, tf.concat([m, m * scale], 0)],
        [tf.constant(0), start],
        shape_invariants=[tf.TensorShape([]), tf.TensorShape([None, 2])],
    )
    loss = tf.reduce_sum(tf.tanh(grown))  # and after it
    grads = tf.gradients(loss, [x, scale])
    return [grown, loss, *grads], {x: np.array([[0.1, 0.2], [0.3, 0.4]], np.float32), scale: 0.5}


def test_loop_declaring_changing_shapes_runs_like_tf():
    assert_parity(_growing_loop, rtol=1e-5, atol=1e-6)
