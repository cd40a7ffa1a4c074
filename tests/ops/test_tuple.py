"""``tf.tuple`` (and the gradient tuples tf.gradients gates with it) build TF's nodes: one
``group`` gate, ``control_dependency`` Identities colocated with their tensors, gated
``group``s for Operations, IndexedSlices gated through their values."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, assert_same_graph_def, tf1


def _tuple_program(tf):
    a = tf.constant([1.0, 2.0], name="a")
    b = tf.multiply(a, 3.0, name="b")
    side = tf.no_op(name="side")
    slices = tf.IndexedSlices(tf.constant([[1.0, 2.0]]), tf.constant([0]), tf.constant([3, 2]))
    out = tf.tuple([a, None, b, side, slices], control_inputs=[side], name="t")
    return [out[0], out[2], out[4].values, out[4].indices]


def _gradient_program(tf):
    x = tf.constant(np.arange(6, dtype=np.float32).reshape(2, 3), name="x")
    w = tf.constant(np.ones((3, 2), np.float32), name="w")
    y = tf.reduce_sum(tf.matmul(x, w) * tf.constant([1.0, 2.0]))
    return tf.gradients(y, [x, w], gate_gradients=True)


@pytest.mark.parametrize("program", [_tuple_program, _gradient_program], ids=["tuple", "grad"])
def test_graph_def_and_values_match_tf(program):
    assert_same_graph_def(program)
    assert_parity(program)


def test_gradient_tuple_outputs_are_named_as_tf():
    with tfcompat.Graph().as_default() as graph:
        _gradient_program(tfcompat)
        names = {op.name for op in graph.get_operations()}
    assert "gradients/MatMul_grad/tuple/control_dependency" in names
    assert "gradients/MatMul_grad/tuple/control_dependency_1" in names


@pytest.mark.parametrize(
    "args, error",
    [(([],), ValueError), (([1.0], None, None, [3]), TypeError)],
    ids=["empty", "bad control input"],
)
def test_errors_match_tf(args, error):
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            tensors, *rest = args
            tensors = [tf.constant(t) for t in tensors]
            kwargs = {"control_inputs": rest[2]} if len(rest) > 2 else {}
            with pytest.raises(error):
                tf.tuple(tensors, **kwargs)
