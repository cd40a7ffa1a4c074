"""Session.run semantics: fetch structures, feeds, errors, caching, backends, state."""

import collections

import numpy as np
import pytest

import tfcompat as tf
from tests.oracle import tf1

BACKENDS = ["xla", "reference"]


def _build(tf):
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.Variable(np.arange(6, dtype=np.float32).reshape(3, 2), name="w")
    y = tf.matmul(x, w, name="y")
    return x, w, y


def _run_both(program):
    """Runs ``program(tf, sess)`` under TF and tfcompat; returns both results."""
    results = []
    for module in (tf1(), tf):
        graph = module.Graph()
        with graph.as_default(), module.Session(graph=graph) as sess:
            results.append(program(module, sess))
    return results


# ---------------------------------------------------------------------------------------------
# Fetches
# ---------------------------------------------------------------------------------------------
Pair = collections.namedtuple("Pair", "a b")


@pytest.mark.parametrize("backend", BACKENDS)
def test_fetch_structures(backend):
    x, w, y = _build(tf)
    feed = {x: np.ones((2, 3), np.float32)}
    with tf.Session(backend=backend) as sess:
        sess.run(w.initializer)
        out = sess.run(
            {"y": y, "nested": [x, (w, "y:0")], "op": w.initializer, "p": Pair(y, x)}, feed
        )
    expected_y = np.ones((2, 3), np.float32) @ np.arange(6, dtype=np.float32).reshape(3, 2)
    np.testing.assert_array_equal(out["y"], expected_y)
    assert isinstance(out["nested"], list) and isinstance(out["nested"][1], tuple)
    np.testing.assert_array_equal(out["nested"][0], np.ones((2, 3)))
    np.testing.assert_array_equal(out["nested"][1][0], np.arange(6).reshape(3, 2))
    np.testing.assert_array_equal(out["nested"][1][1], expected_y)
    assert out["op"] is None
    assert isinstance(out["p"], Pair)
    np.testing.assert_array_equal(out["p"].a, expected_y)


def test_fetch_by_operation_name_returns_none_and_runs_it():
    x, w, y = _build(tf)
    with tf.Session() as sess:
        assert sess.run("w/Assign") is None
        np.testing.assert_array_equal(sess.run("w:0"), np.arange(6).reshape(3, 2))


def test_fetch_scalar_types_match_tf():
    def program(m, sess):
        return sess.run(
            [m.constant(1.5), m.constant([1, 2]), m.constant(b"abc"), m.constant(["a"])]
        )

    theirs, ours = _run_both(program)
    for a, b in zip(ours, theirs):
        assert type(a) is type(b)
        np.testing.assert_array_equal(a, b)


def test_duplicate_fetches_share_one_value():
    x, w, y = _build(tf)
    with tf.Session() as sess:
        sess.run(w.initializer)
        a, b = sess.run([y, y], {x: np.ones((1, 3))})
    np.testing.assert_array_equal(a, b)


# ---------------------------------------------------------------------------------------------
# Feeds
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_feed_by_name_and_non_placeholder(backend):
    x, w, y = _build(tf)
    read = tf.get_default_graph().get_tensor_by_name("w/read:0")
    with tf.Session(backend=backend) as sess:
        sess.run(w.initializer)
        by_name = sess.run(y, {"x:0": np.ones((1, 3))})
        np.testing.assert_array_equal(by_name, [[6.0, 9.0]])
        # Feeding the variable's read tensor replaces it, without needing the variable.
        overridden = sess.run(y, {x: np.ones((1, 3)), read: np.ones((3, 2))})
        np.testing.assert_array_equal(overridden, [[3.0, 3.0]])


def test_fed_tensor_can_be_fetched():
    x = tf.placeholder(tf.float32, [2])
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(x, {x: [1.0, 2.0]}), [1.0, 2.0])


def test_uninitialized_variable_not_needed_when_its_read_is_fed():
    x, w, y = _build(tf)
    read = tf.get_default_graph().get_tensor_by_name("w/read:0")
    with tf.Session() as sess:
        out = sess.run(y, {x: np.ones((1, 3)), read: np.zeros((3, 2))})
    np.testing.assert_array_equal(out, [[0.0, 0.0]])


def test_feed_value_conversion_matches_tf():
    def program(m, sess):
        i = m.placeholder(m.int32, [], name="i")
        f = m.placeholder(m.float32, [2], name="f")
        return sess.run([i, f], {i: 3.7, f: [1, 2]})

    theirs, ours = _run_both(program)
    assert ours[0] == theirs[0] and type(ours[0]) is type(theirs[0])
    np.testing.assert_array_equal(ours[1], theirs[1])
    assert ours[1].dtype == theirs[1].dtype


@pytest.mark.parametrize(
    "case",
    [
        "wrong_shape",
        "missing_feed",
        "int_overflow",
        "tensor_value",
        "unknown_key",
        "bad_fetch",
        "none_fetch",
        "unknown_fetch",
    ],
)
def test_errors_match_tf(case):
    def program(m, sess):
        x = m.placeholder(m.float32, [None, 3], name="x")
        i = m.placeholder(m.int32, [], name="i")
        y = m.identity(x)
        actions = {
            "wrong_shape": lambda: sess.run(y, {x: np.ones((2, 4))}),
            "missing_feed": lambda: sess.run(y),
            "int_overflow": lambda: sess.run(i, {i: 2**40}),
            "tensor_value": lambda: sess.run(y, {x: m.constant(1.0)}),
            "unknown_key": lambda: sess.run(y, {"nope:0": 1.0}),
            "bad_fetch": lambda: sess.run(1),
            "none_fetch": lambda: sess.run(None),
            "unknown_fetch": lambda: sess.run("nope:0"),
        }
        try:
            actions[case]()
        except Exception as e:  # noqa: BLE001 - the exception is what we compare
            return type(e).__name__, str(e)
        return None

    theirs, ours = _run_both(program)
    assert ours is not None and theirs is not None
    assert ours[0] == theirs[0]
    if case == "missing_feed":
        # TF adds a traceback of where the node was defined; the core message must match.
        core = "You must feed a value for placeholder tensor 'x' with dtype float and shape [?,3]"
        assert core in ours[1] and core in theirs[1]
    elif case == "tensor_value":
        assert ours[1].split(" For reference")[0] == theirs[1].split(" For reference")[0]
    else:
        assert ours[1] == theirs[1]


def test_uninitialized_variable_error_names_variable_and_reader():
    x, w, y = _build(tf)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.FailedPreconditionError) as info:
            sess.run(y, {x: np.ones((1, 3))})
    assert "Attempting to use uninitialized value w" in str(info.value)
    assert "{{node w/read}}" in str(info.value)


def test_fetch_from_another_graph_is_an_error():
    with tf.Graph().as_default():
        other = tf.constant(1.0)
    with tf.Session() as sess:
        with pytest.raises(ValueError, match="cannot be interpreted as a Tensor"):
            sess.run(other)


def test_closed_session_raises_runtime_error():
    c = tf.constant(1.0)
    sess = tf.Session()
    sess.close()
    with pytest.raises(RuntimeError, match="Attempted to use a closed Session."):
        sess.run(c)


def test_unknown_backend_is_rejected():
    with pytest.raises(ValueError, match="Unknown backend"):
        tf.Session(backend="tpu-magic")


def test_backend_from_environment(monkeypatch):
    monkeypatch.setenv("TFCOMPAT_BACKEND", "reference")
    assert tf.Session().backend == "reference"


# ---------------------------------------------------------------------------------------------
# Default session, eval, run, InteractiveSession
# ---------------------------------------------------------------------------------------------
def test_eval_and_run_use_default_session():
    x, w, y = _build(tf)
    with tf.Session() as sess:
        assert tf.get_default_session() is sess
        w.initializer.run()
        np.testing.assert_array_equal(y.eval({x: np.ones((1, 3))}), [[6.0, 9.0]])
    assert tf.get_default_session() is None
    with pytest.raises(ValueError, match="No default session is registered"):
        y.eval({x: np.ones((1, 3))})


def test_interactive_session_installs_itself():
    c = tf.constant(3.0)
    sess = tf.InteractiveSession()
    try:
        assert c.eval() == 3.0
    finally:
        sess.close()
    assert tf.get_default_session() is None


def test_make_callable():
    x, w, y = _build(tf)
    with tf.Session() as sess:
        sess.run(w.initializer)
        f = sess.make_callable(y, [x])
        np.testing.assert_array_equal(f(np.ones((1, 3), np.float32)), [[6.0, 9.0]])


# ---------------------------------------------------------------------------------------------
# State and ordering
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("backend", BACKENDS)
def test_state_persists_across_runs_and_sessions_are_independent(backend):
    v = tf.Variable(1.0, name="v")
    inc = tf.assign_add(v, 2.0)
    with tf.Session(backend=backend) as s1, tf.Session(backend=backend) as s2:
        s1.run(v.initializer)
        s2.run(v.initializer)
        s1.run(inc)
        s1.run(inc)
        assert s1.run(v) == 5.0
        assert s2.run(v) == 1.0


@pytest.mark.parametrize("backend", BACKENDS)
def test_control_dependencies_order_reads_after_writes(backend):
    v = tf.Variable(0.0, name="v")
    assign = tf.assign(v, 10.0)
    with tf.control_dependencies([assign]):
        read = tf.identity(v)
    with tf.Session(backend=backend) as sess:
        sess.run(v.initializer)
        assert sess.run(read) == 10.0


def test_assign_output_is_value_after_assignment():
    def program(m, sess):
        v = m.Variable(np.float32(1.0), name="v")
        out = m.assign_add(v, 5.0)
        sess.run(v.initializer)
        return sess.run(out)

    theirs, ours = _run_both(program)
    assert ours == theirs == 6.0


# ---------------------------------------------------------------------------------------------
# Lowering: one executable per step, cached
# ---------------------------------------------------------------------------------------------
def test_one_device_segment_and_cached_compilation():
    x, w, y = _build(tf)
    update = tf.assign_add(w, tf.constant(np.ones((3, 2), np.float32)))
    metadata = tf.RunMetadata()
    with tf.Session() as sess:
        sess.run(w.initializer)
        for _ in range(3):
            sess.run([y, update], {x: np.ones((4, 3), np.float32)}, run_metadata=metadata)
        executable = metadata.executable
        assert len(executable.plan.device_segments) == 1
        assert executable.compile_count == 1
        # A new batch size compiles once more; then it is cached too.
        for _ in range(2):
            sess.run([y, update], {x: np.ones((7, 3), np.float32)}, run_metadata=metadata)
        assert metadata.executable is executable
        assert executable.compile_count == 2
        np.testing.assert_array_equal(sess.run(w), np.arange(6).reshape(3, 2) + 5)


def test_graph_mutation_invalidates_cached_plans():
    a = tf.constant(1.0)
    b = tf.Variable(0.0, name="b")
    inc = tf.assign_add(b, 1.0)
    c = tf.identity(a)
    with tf.Session() as sess:
        sess.run(b.initializer)
        sess.run(c)
        c.op._add_control_input(inc.op)
        sess.run(c)
        assert sess.run(b) == 1.0


def test_cycle_is_reported():
    a = tf.identity(tf.constant(1.0), name="a")
    b = tf.identity(a, name="b")
    a.op._add_control_input(b.op)
    with tf.Session() as sess:
        with pytest.raises(tf.errors.InvalidArgumentError, match="cycle"):
            sess.run(b)
