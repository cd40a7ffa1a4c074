"""Small TF1 names: tf.timestamp, tf.is_symbolic_tensor, graph_util's
tensor_shape_from_node_def_name, errors.raise_exception_on_not_ok_status and the TF2
behaviour switches legacy scripts call."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat as tf


def test_timestamp_is_read_each_run_on_the_host():
    with tf.Graph().as_default():
        stamp = tf.timestamp()
        later = stamp + 1.0
        with tf.Session() as sess:
            first, second, plus = sess.run(stamp), sess.run(stamp), sess.run(later)
    assert isinstance(first, np.float64) and first <= second < plus
    assert stamp.op.op_def.is_stateful and stamp.shape.rank == 0


def test_small_graph_helpers():
    with tf.Graph().as_default() as graph:
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        assert tf.is_symbolic_tensor(x) and not tf.is_symbolic_tensor(np.ones(3))
        assert tf.graph_util.tensor_shape_from_node_def_name(graph, "x").as_list() == [None, 3]
        assert tf.graph_util.tensor_shape_from_node_def_name(graph, "x:0").rank == 2
    with tf.errors.raise_exception_on_not_ok_status() as status:
        assert status is None


def test_tf2_switches_accept_tf1_and_refuse_tf2():
    for accepted in (
        tf.disable_control_flow_v2,
        tf.disable_v2_tensorshape,
        tf.disable_tensor_equality,
        tf.compat.v1.disable_v2_behavior,
    ):
        accepted()
    assert not tf.control_flow_v2_enabled()
    assert not tf.executing_eagerly_outside_functions()
    for refused in (tf.enable_control_flow_v2, tf.enable_v2_tensorshape, tf.enable_tensor_equality):
        with pytest.raises(NotImplementedError, match="tfcompat"):
            refused()
