"""Pruning, ordering and the host/device split of lowering.plan."""

import numpy as np
import pytest

import tfcompat as tf
from lowering import plan as plan_lib
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op


def _plan(fetches, feeds=()):
    tensors = [f for f in fetches if isinstance(f, tf.Tensor)]
    targets = [f for f in fetches if isinstance(f, tf.Operation)]
    return plan_lib.build_plan(tuple(tensors), tuple(targets), tuple(feeds))


def test_prune_keeps_only_what_fetches_need():
    a = tf.constant(1.0, name="a")
    b = tf.identity(a, name="b")
    tf.identity(a, name="unused")
    plan = _plan([b])
    assert [op.name for op in plan.ops] == ["a", "b"]


def test_fed_tensor_cuts_the_walk():
    a = tf.placeholder(tf.float32, [], name="a")
    b = tf.identity(a, name="b")
    c = tf.identity(b, name="c")
    plan = _plan([c], feeds=[b])
    assert [op.name for op in plan.ops] == ["c"]


def test_control_inputs_are_kept_and_ordered_first():
    v = tf.Variable(0.0, name="v")
    write = tf.assign(v, 2.0, name="write")
    with tf.control_dependencies([write]):
        read = tf.identity(v, name="read_after")
    names = [op.name for op in _plan([read]).ops]
    assert names.index("write") < names.index("read_after")


def test_unordered_stateful_ops_run_in_creation_order():
    v = tf.Variable(0.0, name="v")
    first = tf.assign(v, 1.0, name="first")
    second = tf.assign(v, 2.0, name="second")
    names = [op.name for op in _plan([second.op, first.op]).ops]
    assert names.index("first") < names.index("second")


def test_string_ops_run_on_the_host_and_numeric_ops_on_the_device():
    s = tf.constant(["a", "b"], name="s")
    t = tf.identity(s, name="t")
    x = tf.constant(np.ones(3, np.float32), name="x")
    y = tf.identity(x, name="y")
    plan = _plan([t, y])
    kinds = {op.name: seg.kind for seg in plan.segments for op in seg.ops}
    assert kinds == {"s": "host", "t": "host", "x": "device", "y": "device"}
    assert len(plan.device_segments) == 1
    with tf.Session() as sess:
        out_t, out_y = sess.run([t, y])
    assert list(out_t) == [b"a", b"b"]
    np.testing.assert_array_equal(out_y, np.ones(3))


@pytest.fixture
def host_nonzero_op():
    """A host op whose output size depends on values (like Where), registered for one test."""
    from lowering.registry import REFERENCE
    from tfcompat.framework.op_def import OPDEFS

    register_op("TestHostNonzero", inputs=["x: float"], outputs=["y: int64"], host=True)
    REFERENCE["TestHostNonzero"] = lambda ctx, op, x: np.flatnonzero(x).astype(np.int64)
    yield "TestHostNonzero"
    del OPDEFS["TestHostNonzero"], REFERENCE["TestHostNonzero"]


def test_device_host_device_makes_three_segments(host_nonzero_op):
    x = tf.placeholder(tf.float32, [4], name="x")
    scale = tf.Variable(np.arange(1.0, 5.0, dtype=np.float32), name="scale")
    scaled = tf.multiply(x, scale, name="on_device")  # reads device state
    idx = apply_op(host_nonzero_op, x=scaled).outputs[0]
    after = tf.gather(scale, idx, name="back_on_device")
    plan = _plan([after], feeds=[x])
    assert [s.kind for s in plan.segments] == ["device", "host", "device"]
    with tf.Session() as sess:
        sess.run(scale.initializer)
        np.testing.assert_array_equal(sess.run(after, {x: [0, 1, 0, 2]}), [2, 4])


def test_host_values_feeding_a_host_op_are_computed_on_the_host(host_nonzero_op):
    """Ops computed from feeds only, whose consumer is a host op, run on the host before
    it (no device round trip, no split step), and so does integer arithmetic on host
    values."""
    x = tf.placeholder(tf.float32, [4], name="x")
    doubled = tf.identity(x * 2.0, name="from_feed")
    idx = apply_op(host_nonzero_op, x=doubled).outputs[0]
    after = tf.identity(idx, name="back_on_device")
    plan = _plan([after], feeds=[x])
    assert [s.kind for s in plan.segments] == ["host"]
    host = {op.name for op in plan.segments[0].ops}
    assert {"mul", "from_feed", "TestHostNonzero", "back_on_device"} <= host
    with tf.Session() as sess:
        np.testing.assert_array_equal(sess.run(after, {x: [0, 1, 0, 2]}), [1, 3])


def test_index_results_go_to_the_host_when_a_host_op_reads_them(host_nonzero_op):
    """An integer result read by a host op and a device op runs on the host; a float one
    read by both stays on the device."""
    x = tf.placeholder(tf.float32, [4], name="x")
    w = tf.Variable(np.ones(4, np.float32), name="w")
    mask = tf.cast(tf.greater(x, 0.0), tf.int64, name="mask")
    dense = tf.identity(x * 3.0, name="dense")
    host_idx = apply_op(host_nonzero_op, x=tf.cast(mask, tf.float32) + dense).outputs[0]
    out = tf.reduce_sum(tf.cast(mask, tf.float32) * w * dense) + tf.cast(
        tf.reduce_sum(host_idx), tf.float32
    )
    plan = _plan([out], feeds=[x])
    kind_of = {op.name: s.kind for s in plan.segments for op in s.ops}
    assert kind_of["mask"] == "host" and kind_of["Greater"] == "host"
    assert kind_of["dense"] == "device"  # float, and a device op reads it too
    with tf.Session() as sess:
        sess.run(w.initializer)
        assert sess.run(out, {x: [0.0, 1.0, -1.0, 2.0]}) == pytest.approx(3 + 6 + (1 + 2 + 3))


def test_constants_and_variable_reads_do_not_cross_segments(host_nonzero_op):
    """Every segment runs its own copy of the constants and ``w/read`` it uses: no segment
    passes them to another (a table would otherwise be copied out of a step)."""
    x = tf.placeholder(tf.float32, [4], name="x")
    w = tf.Variable(np.full(4, 2.0, np.float32), name="w")
    three = tf.constant(3.0, name="three")
    first = tf.multiply(x * three, w, name="first")
    idx = apply_op(host_nonzero_op, x=first).outputs[0]
    second = tf.reduce_sum(tf.gather(w, idx) * three, name="second")
    plan = _plan([second], feeds=[x])
    assert [s.kind for s in plan.segments] == ["device", "host", "device"]
    for segment in plan.segments:
        crossing = [t.op.name for t in segment.inputs + segment.outputs]
        assert not {"three", "w/read", "w"} & set(crossing), crossing
    assert all({"three", "w/read"} <= {op.name for op in s.ops} for s in plan.device_segments)
    with tf.Session() as sess:
        sess.run(w.initializer)
        assert sess.run(second, {x: [0.0, 1.0, 0.0, 2.0]}) == pytest.approx((2 + 2) * 3)


def test_missing_placeholder_is_reported_before_tracing():
    x = tf.placeholder(tf.float32, [None, 2], name="inp")
    y = tf.identity(x)
    with pytest.raises(tf.errors.InvalidArgumentError, match="placeholder tensor 'inp'"):
        _plan([y])
