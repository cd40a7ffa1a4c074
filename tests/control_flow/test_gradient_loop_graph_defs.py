"""GraphDefs of tf.gradients through tf.while_loop against TF 2.21: the gradient loop's
nodes (history stacks, their pushes and pops, syncs, loop-invariant Enters, cloned
constants) carry TF's names, inputs and attrs (TF names a history after the gradient op
that first reads it, and colocates the stack with the value it saves)."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_same_graph_def, assert_values_close, run, tf1


def _simple(tf):
    x = tf.placeholder(tf.float32, [3], name="x")
    _, out = tf.while_loop(lambda i, v: i < 3, lambda i, v: (i + 1, v * x + 1.0), [0, tf.ones([3])])
    return tf.gradients(tf.reduce_sum(out), x), {x: [0.5, 1.0, -1.5]}


def _two_histories(tf):
    """Two forward values each saved once though read by several gradient ops."""
    x = tf.placeholder(tf.float32, [2], name="x")

    def body(i, v):
        h = tf.tanh(v * x)
        return i + 1, h * h + v

    _, out = tf.while_loop(lambda i, v: i < 4, body, [0, x])
    return tf.gradients(out, x), {x: [0.3, -0.2]}


def _cond_in_body(tf):
    x = tf.placeholder(tf.float32, [], name="x")

    def body(i, v):
        v = tf.cond(i < 2, lambda: v * x, lambda: tf.sin(v))
        return i + 1, v

    _, out = tf.while_loop(lambda i, v: i < 4, body, [0, x])
    return tf.gradients(out, x), {x: 0.7}


def _nested(tf):
    x = tf.placeholder(tf.float32, [], name="x")
    n = tf.placeholder(tf.int32, [], name="n")

    def inner(i, y):
        return tf.while_loop(lambda j, z: j < i, lambda j, z: (j + 1, z * x + 1.0), [0, y])[1]

    _, y = tf.while_loop(lambda i, y: i < n, lambda i, y: (i + 1, inner(i, y)), [0, x])
    return tf.gradients(y, x), {x: 1.5, n: 3}


def _maximum_iterations(tf):
    x = tf.placeholder(tf.float32, [2], name="x")
    _, out = tf.while_loop(
        lambda i, v: v[0] < 100.0, lambda i, v: [i + 1, v * x], [0, x], maximum_iterations=5
    )
    return tf.gradients(tf.reduce_sum(out), x), {x: [1.5, 2.0]}


def _constants_in_body(tf):
    """Loop-body constants read by gradient ops: cloned in the gradient loop (a concat's
    axis by the concat gradient itself, as TF does)."""
    x = tf.placeholder(tf.float32, [3], name="x")

    def body(i, v):
        wide = tf.concat([v * 2.0, v], 0)
        return i + 1, wide[:3] + tf.reduce_sum(v, axis=0, keepdims=True)

    _, out = tf.while_loop(lambda i, v: i < 3, body, [0, x])
    return tf.gradients(tf.reduce_sum(out), x), {x: [0.1, 0.2, -0.3]}


def _variable_in_body(tf):
    """A variable read in the body and an embedding gather (IndexedSlices gradient)."""
    table = tf.Variable(np.arange(12, dtype=np.float32).reshape(4, 3) / 10, name="table")
    w = tf.Variable(np.ones([3], np.float32), name="w")

    def body(i, v):
        row = tf.gather(table, tf.math.floormod(i, 4))
        return i + 1, v * w + row

    _, out = tf.while_loop(lambda i, v: i < 3, body, [0, tf.zeros([3])])
    grads = tf.gradients(tf.reduce_sum(out), [table, w])
    return [tf.convert_to_tensor(g) for g in grads], {}


def _dynamic_rnn(tf):
    """tf.nn.dynamic_rnn of a basic RNN cell (TensorArrays in the loop) and its gradients."""
    inputs = tf.placeholder(tf.float32, [2, 4, 3], name="inputs")
    with tf.variable_scope("rnn_scope", initializer=tf.constant_initializer(0.1)):
        cell = tf.nn.rnn_cell.BasicRNNCell(5, name="cell")
        outputs, _ = tf.nn.dynamic_rnn(cell, inputs, dtype=tf.float32)
    loss = tf.reduce_sum(outputs)
    return tf.gradients(loss, [inputs] + tf.trainable_variables()), {
        inputs: np.linspace(-1, 1, 24, dtype=np.float32).reshape(2, 4, 3)
    }


@pytest.mark.parametrize(
    "program",
    [
        _simple,
        _two_histories,
        _cond_in_body,
        _nested,
        _maximum_iterations,
        _constants_in_body,
        _dynamic_rnn,
    ],
)
def test_gradient_loop_graph_def_matches_tf(program):
    assert_same_graph_def(program)


def test_indexed_slices_gradient_of_loop_invariant_matches_tf():
    """A gather of a variable in the body: its IndexedSlices gradients are summed over the
    iterations. TF concatenates the slices in a loop variable that grows each iteration;
    XLA's loops carry fixed shapes, so here the sum is dense (a Tensor, not IndexedSlices;
    the GraphDef differs there). The dense conversion runs in the gradient loop (it was
    captured as an invariant and failed at run time)."""
    theirs = run(tf1(), _variable_in_body)
    for backend in ("xla", "reference"):
        ours = run(tfcompat, _variable_in_body, backend=backend)
        # TF's static shape of the table gradient is [None, 3] (its slices' count is only
        # known at run time); here it is [4, 3].
        assert_values_close(ours.values, theirs.values, 1e-6, 1e-6, f"[{backend}]")
