"""``var[...].assign(value)`` (TF's ``_SliceHelperVar``): ``StridedSliceAssign`` on ref
variables and ``ResourceStridedSliceAssign`` on resource variables, with TF 2.21's graph
(names ``strided_slice/_assign``, the resource variable's reads), values (static slices,
run-time indices, strides, broadcast values, successive runs) and errors, on both
backends."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_same_graph_def, run, tf1

BACKENDS = ("xla", "reference")


def _program(use_resource):
    def program(tf):
        v = tf.Variable(np.arange(12, dtype=np.float32).reshape(3, 4), name="v",
                        use_resource=use_resource)  # fmt: skip
        i = tf.placeholder(tf.int32, [], name="i")
        block = v[1:, :2].assign(tf.ones([2, 2]))
        with tf.control_dependencies([block]):
            row = v[i].assign(tf.fill([4], 5.0))
        with tf.control_dependencies([row]):
            strided = v[::2, 3].assign([7.0, 8.0], name="strided")
        with tf.control_dependencies([strided]):
            scalar = v[-1, 1:3].assign(-1.0)
        with tf.control_dependencies([scalar]):
            first_row = tf.identity(v[0] + 0.0)
            final = v.read_value()
        # Only values ordered after every write: an assignment's own result read while the
        # later writes run is read in whatever order TF's executor picks.
        return [first_row, final], {i: 2}

    return program


@pytest.mark.parametrize("use_resource", [False, True], ids=["ref", "resource"])
def test_sliced_assignment_graph_matches_tf(use_resource):
    assert_same_graph_def(_program(use_resource))


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("use_resource", [False, True], ids=["ref", "resource"])
def test_sliced_assignment_values_match_tf(use_resource, backend):
    theirs = run(tf1(), _program(use_resource))
    ours = run(tfcompat, _program(use_resource), backend=backend)
    assert ours.shapes == theirs.shapes and ours.dtypes == theirs.dtypes
    for a, b in zip(ours.values, theirs.values):
        np.testing.assert_array_equal(a, b)


def _runs(tf, use_resource, backend=None):
    """The same assignment run three times with a fed row: each run sees the last."""
    with tf.Graph().as_default():
        v = tf.Variable(np.zeros((3, 2), np.int64), use_resource=use_resource)
        i = tf.placeholder(tf.int32, [])
        bump = v[i].assign(v[i] + [1, 10])
        kwargs = {"backend": backend} if backend else {}
        with tf.Session(**kwargs) as sess:
            sess.run(tf.global_variables_initializer())
            return [sess.run(bump, {i: k}) for k in (0, 2, 0)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("use_resource", [False, True], ids=["ref", "resource"])
def test_successive_runs_match_tf(use_resource, backend):
    for ours, want in zip(_runs(tfcompat, use_resource, backend), _runs(tf1(), use_resource)):
        np.testing.assert_array_equal(ours, want)


def _mismatch(tf, backend=None):
    with tf.Graph().as_default():
        v = tf.Variable(np.zeros((3, 3), np.float32), name="v")
        bad = v[1:, :2].assign(tf.ones([3]))
        kwargs = {"backend": backend} if backend else {}
        with tf.Session(**kwargs) as sess:
            sess.run(tf.global_variables_initializer())
            with pytest.raises(tf.errors.InvalidArgumentError) as caught:
                sess.run(bad)
            return caught.value.message


@pytest.mark.parametrize("backend", BACKENDS)
def test_value_that_does_not_broadcast_is_tf_error(backend):
    theirs = _mismatch(tf1())
    ours = _mismatch(tfcompat, backend)
    want = "Cannot broadcast input shape [3] into final shape [2,2]"
    assert want in theirs and want in ours
    assert "strided_slice/_assign" in ours


def test_only_slices_of_variables_have_assign():
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            sliced = tf.constant([1.0, 2.0])[0]
            assert not hasattr(sliced, "assign")
            with pytest.raises(AttributeError, match="no attribute 'assign'"):
                sliced.assign(2.0)
