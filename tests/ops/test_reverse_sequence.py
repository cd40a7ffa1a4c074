"""tf.reverse_sequence against TF 2.21: values for several axes and dtypes, gradients,
GraphDef, TF's errors (static, and a bad length found in the compiled step), and
bidirectional_dynamic_rnn with sequence lengths (which reverses with it)."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, assert_same_graph_def, tf1
from tfcompat.framework import errors

X = np.random.default_rng(3).normal(size=(3, 5, 2)).astype(np.float32)


@pytest.mark.parametrize(
    "seq_axis, batch_axis, lengths",
    [(1, 0, [5, 0, 3]), (0, 1, [2, 3, 0, 3, 1]), (2, 0, [1, 2, 0]), (1, 2, [4, 1])],
)
def test_values_and_gradients_match_tf(seq_axis, batch_axis, lengths):
    def program(tf):
        x = tf.placeholder(tf.float32, [None, 5, 2], name="x")
        y = tf.reverse_sequence(
            x, np.array(lengths, np.int64), seq_axis=seq_axis, batch_axis=batch_axis
        )
        weights = np.arange(X.size, dtype=np.float32).reshape(X.shape)
        ints = tf.reverse_sequence(
            tf.cast(x * 10, tf.int32), tf.constant(lengths, tf.int32), seq_axis, batch_axis
        )
        return [y, ints, tf.gradients(tf.reduce_sum(y * weights), x)], {x: X}

    assert_parity(program)


def test_graph_def_matches_tf():
    def program(tf):
        x = tf.placeholder(tf.float32, [3, 5, 2], name="x")
        y = tf.reverse_sequence(x, [3, 5, 1], seq_dim=1, name="rev")
        z = tf.reverse_sequence(x, tf.constant([1, 2], tf.int32), 1, batch_axis=2)
        return [y, z, tf.gradients(tf.reduce_sum(y) + tf.reduce_sum(z), x)], {x: X}

    assert_same_graph_def(program)


@pytest.mark.parametrize("backend", ["xla", "reference"])
@pytest.mark.parametrize(
    "lengths, message",
    [([1, 6, 9], r"seq_lens\(1\) > input.dims\(1\)"), ([2, -1, 3], r"seq_lens\(1\) < 0")],
)
def test_bad_length_raises_tf_error(backend, lengths, message):
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [3, 5, 2])
            n = tf.placeholder(tf.int64, [3])
            y = tf.reverse_sequence(x, n, seq_axis=1)
            kwargs = {"backend": backend} if tf is tfcompat else {}
            with tf.Session(**kwargs) as sess:
                error = (
                    errors.InvalidArgumentError
                    if tf is tfcompat
                    else tf.errors.InvalidArgumentError
                )
                with pytest.raises(error, match=message):
                    sess.run(y, {x: X, n: lengths})


@pytest.mark.parametrize("tf", [tfcompat, "tf"], ids=["tfcompat", "tf"])
def test_static_errors(tf):
    tf = tf1() if tf == "tf" else tf
    with tf.Graph().as_default():
        x = tf.zeros([3, 5, 2])
        with pytest.raises(ValueError, match=r"seq_dim must be < input rank: 3 vs. 3"):
            tf.reverse_sequence(x, [1, 2, 3], seq_axis=3)
        with pytest.raises(ValueError, match="Dimensions must be equal, but are 3 and 2"):
            tf.reverse_sequence(x, [1, 2], seq_axis=1)


def test_bidirectional_dynamic_rnn_with_lengths_matches_tf():
    def program(tf):
        x = tf.constant(X)
        init = tf.constant_initializer(0.3)
        with tf.variable_scope("birnn", initializer=init):
            fw, bw = tf.nn.rnn_cell.GRUCell(4), tf.nn.rnn_cell.BasicLSTMCell(3)
            (out_fw, out_bw), (state_fw, state_bw) = tf.nn.bidirectional_dynamic_rnn(
                fw, bw, x, sequence_length=tf.constant([5, 2, 3]), dtype=tf.float32
            )
        loss = tf.reduce_sum(out_fw * out_fw) + tf.reduce_sum(out_bw) + tf.reduce_sum(state_fw)
        return [out_fw, out_bw, state_fw, list(state_bw), tf.gradients(loss, x)]

    assert_parity(program, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("backend", ["xla", "reference"])
@pytest.mark.parametrize(
    "axes, message",
    [((1, 1), "batch_dim == seq_dim == 1"), ((-1, 0), "Invalid seq_dim -1")],
)
def test_bad_axes_raise_at_run_time_as_in_tf(backend, axes, message):
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            x = tf.zeros([3, 5, 2])
            y = tf.reverse_sequence(x, [1, 2, 3, 4, 5][: 5 if axes[1] == 1 else 3], *axes)
            kwargs = {"backend": backend} if tf is tfcompat else {}
            error = (
                errors.InvalidArgumentError if tf is tfcompat else tf.errors.InvalidArgumentError
            )
            with tf.Session(**kwargs) as sess, pytest.raises(error, match=message):
                sess.run(y)


def test_registered_gradient_matches_jax_vjp():
    from lowering.gradcheck import check_gradients

    with tfcompat.Graph().as_default():
        x = tfcompat.placeholder(tfcompat.float32, [3, 5, 2])
        y = tfcompat.reverse_sequence(x, [4, 0, 5], seq_axis=1)
        weights = np.random.default_rng(0).normal(size=X.shape).astype(np.float32)
        loss = tfcompat.reduce_sum(y * weights)
        check_gradients([loss], [x], feed_dict={x: X}).assert_close(atol=1e-6, rtol=1e-6)
