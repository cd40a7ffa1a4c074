"""tf.nn.rnn_cell cells with tf.nn.dynamic_rnn / static_rnn vs TF 2.21: outputs, final
states, gradients (inputs and every variable), variable names, GraphDefs, masking by
sequence_length, time-major inputs, stacked cells, and the training trajectory of a small
LSTM language model."""

from __future__ import annotations

import numpy as np
import pytest

from tests.oracle import assert_parity, assert_same_graph_def, tf1

B, T, D, H = 3, 5, 4, 6
X = np.random.RandomState(0).randn(B, T, D).astype(np.float32)
LENGTHS = np.array([5, 2, 3], np.int32)


def _numpy_init(scale=0.4):
    """A deterministic initializer: values from a seed derived from the shape."""

    def init(shape, dtype=None, partition_info=None, **_):
        seed = int(np.prod(shape)) * 7 + len(shape)
        return np.random.RandomState(seed).uniform(-scale, scale, shape).astype(np.float32)

    return init


CELLS = {
    "basic_rnn": lambda tf: tf.nn.rnn_cell.BasicRNNCell(H),
    "basic_lstm": lambda tf: tf.nn.rnn_cell.BasicLSTMCell(H, forget_bias=0.5),
    "basic_lstm_concat_state": lambda tf: tf.nn.rnn_cell.BasicLSTMCell(H, state_is_tuple=False),
    "lstm": lambda tf: tf.nn.rnn_cell.LSTMCell(H, initializer=_numpy_init()),
    "lstm_peephole_clip_proj": lambda tf: tf.nn.rnn_cell.LSTMCell(
        H,
        use_peepholes=True,
        cell_clip=0.3,
        num_proj=3,
        proj_clip=0.2,
        initializer=_numpy_init(),
    ),  # fmt: skip
    "gru": lambda tf: tf.nn.rnn_cell.GRUCell(H, kernel_initializer=_numpy_init()),
    "multi": lambda tf: tf.nn.rnn_cell.MultiRNNCell(
        [tf.nn.rnn_cell.BasicLSTMCell(H), tf.nn.rnn_cell.GRUCell(3)]
    ),
}


def _model(cell_name, mode):
    """A program: the RNN in ``mode`` over X, its outputs, final state and gradients of a
    loss of both w.r.t. the inputs and every trainable variable."""

    def program(tf):
        x = tf.constant(X)
        with tf.variable_scope("model", initializer=_numpy_init()):
            cell = CELLS[cell_name](tf)
            if mode == "static":
                outputs, state = tf.nn.static_rnn(cell, tf.unstack(x, axis=1), dtype=tf.float32)
                outputs = tf.stack(outputs, axis=1)
            elif mode == "static_lengths":
                outputs, state = tf.nn.static_rnn(
                    cell, tf.unstack(x, axis=1), dtype=tf.float32, sequence_length=LENGTHS
                )
                outputs = tf.stack(outputs, axis=1)
            elif mode == "time_major":
                outputs, state = tf.nn.dynamic_rnn(
                    cell, tf.transpose(x, [1, 0, 2]), dtype=tf.float32, time_major=True
                )
                outputs = tf.transpose(outputs, [1, 0, 2])
            else:
                lengths = tf.constant(LENGTHS) if mode == "lengths" else None
                outputs, state = tf.nn.dynamic_rnn(
                    cell, x, sequence_length=lengths, dtype=tf.float32
                )
        flat_state = tf.nest.flatten(state) if hasattr(tf, "nest") else _flatten(state)
        loss = tf.reduce_sum(tf.square(outputs)) + sum(tf.reduce_sum(s * s) for s in flat_state)
        variables = tf.trainable_variables()
        grads = tf.gradients(loss, [x] + variables)
        return {
            "outputs": outputs,
            "state": list(flat_state),
            "grads": grads,
            "names": [tf.constant(v.name) for v in variables],
        }

    return program


def _flatten(structure):
    if isinstance(structure, (list, tuple)):
        return [leaf for s in structure for leaf in _flatten(s)]
    return [structure]


@pytest.mark.parametrize("mode", ["dynamic", "time_major", "lengths", "static", "static_lengths"])
@pytest.mark.parametrize("cell_name", sorted(CELLS))
def test_rnn_values_and_gradients_match_tf(cell_name, mode):
    assert_parity(_model(cell_name, mode), rtol=2e-5, atol=2e-6)


def test_dynamic_rnn_sequence_length_is_one_device_step():
    """dynamic_rnn's shape Assert carries constant strings only: it stays in the device
    step (lowering.plan._is_device_assert), so the whole RNN is one XLA executable."""
    import tfcompat

    graph = tfcompat.Graph()
    with graph.as_default():
        fetches = _model("basic_lstm", "lengths")(tfcompat)
        with tfcompat.Session(graph=graph) as sess:
            sess.run(tfcompat.global_variables_initializer())
            metadata = tfcompat.RunMetadata()
            sess.run(fetches, run_metadata=metadata)
    assert len(metadata.executable.plan.device_segments) == 1


def test_sequence_length_zeroes_outputs_and_copies_state():
    theirs, ours = assert_parity(
        _model("basic_lstm", "lengths"), rtol=2e-5, atol=2e-6, backends=("reference",)
    )
    outputs = ours.values["outputs"]
    for b, length in enumerate(LENGTHS):
        assert np.all(outputs[b, length:] == 0)
        assert np.all(np.abs(outputs[b, :length]) > 0)
    c, h = ours.values["state"]
    for b, length in enumerate(LENGTHS):
        np.testing.assert_array_equal(h[b], outputs[b, length - 1])


@pytest.mark.parametrize(
    ("cell_name", "names"),
    [
        ("basic_lstm", ["rnn/basic_lstm_cell/kernel:0", "rnn/basic_lstm_cell/bias:0"]),
        ("basic_rnn", ["rnn/basic_rnn_cell/kernel:0", "rnn/basic_rnn_cell/bias:0"]),
        (
            "gru",
            [
                "rnn/gru_cell/gates/kernel:0",
                "rnn/gru_cell/gates/bias:0",
                "rnn/gru_cell/candidate/kernel:0",
                "rnn/gru_cell/candidate/bias:0",
            ],
        ),
        (
            "lstm_peephole_clip_proj",
            [
                "rnn/lstm_cell/kernel:0",
                "rnn/lstm_cell/bias:0",
                "rnn/lstm_cell/w_f_diag:0",
                "rnn/lstm_cell/w_i_diag:0",
                "rnn/lstm_cell/w_o_diag:0",
                "rnn/lstm_cell/projection/kernel:0",
            ],
        ),
        (
            "multi",
            [
                "rnn/multi_rnn_cell/cell_0/basic_lstm_cell/kernel:0",
                "rnn/multi_rnn_cell/cell_0/basic_lstm_cell/bias:0",
                "rnn/multi_rnn_cell/cell_1/gru_cell/gates/kernel:0",
                "rnn/multi_rnn_cell/cell_1/gru_cell/gates/bias:0",
                "rnn/multi_rnn_cell/cell_1/gru_cell/candidate/kernel:0",
                "rnn/multi_rnn_cell/cell_1/gru_cell/candidate/bias:0",
            ],
        ),
    ],
)
def test_variable_names_and_weights_match_tf(cell_name, names):
    import tfcompat

    def program(tf):
        cell = CELLS[cell_name](tf)
        tf.nn.dynamic_rnn(cell, tf.constant(X), dtype=tf.float32)
        weights = [v.name for v in cell.trainable_weights]
        return [v.name for v in tf.global_variables()], weights

    for tf in (tf1(), tfcompat):
        with tf.Graph().as_default():
            global_names, weights = program(tf)
        assert global_names == names
        assert weights == names


@pytest.mark.parametrize("cell_name", ["basic_lstm", "gru", "multi"])
@pytest.mark.parametrize("lengths", [False, True])
def test_dynamic_rnn_graph_def_matches_tf(cell_name, lengths):
    def program(tf):
        x = tf.constant(X)
        seq = tf.constant(LENGTHS) if lengths else None
        tf.nn.dynamic_rnn(CELLS[cell_name](tf), x, sequence_length=seq, dtype=tf.float32)
        return []  # values are checked above; with lengths XLA cannot run it yet

    assert_same_graph_def(program)


def test_state_and_output_sizes_and_zero_state():
    import tfcompat

    for tf in (tf1(), tfcompat):
        with tf.Graph().as_default():
            lstm = tf.nn.rnn_cell.LSTMCell(5, num_proj=2)
            assert tuple(lstm.state_size) == (5, 2) and lstm.output_size == 2
            assert type(lstm.state_size).__name__ == "LSTMStateTuple"
            multi = tf.nn.rnn_cell.MultiRNNCell([tf.nn.rnn_cell.GRUCell(3), lstm])
            assert multi.state_size[0] == 3 and multi.output_size == 2
            zero = multi.zero_state(4, tf.float32)
            assert zero[0].shape.as_list() == [4, 3]
            assert zero[1].c.shape.as_list() == [4, 5] and zero[1].h.shape.as_list() == [4, 2]
            assert zero[1].c.op.name == "MultiRNNCellZeroState/LSTMCellZeroState/zeros"


@pytest.mark.parametrize(
    ("build", "error"),
    [
        (lambda tf: tf.nn.dynamic_rnn(tf.nn.rnn_cell.GRUCell(2), tf.constant(X)), ValueError),
        (lambda tf: tf.nn.static_rnn(tf.nn.rnn_cell.GRUCell(2), tf.constant(X)), TypeError),
        (lambda tf: tf.nn.dynamic_rnn(object(), tf.constant(X), dtype=tf.float32), TypeError),
        (lambda tf: tf.nn.rnn_cell.MultiRNNCell([]), ValueError),
        (
            lambda tf: tf.nn.dynamic_rnn(
                tf.nn.rnn_cell.GRUCell(2),
                tf.constant(X),
                dtype=tf.float32,
                sequence_length=tf.constant([[1]]),
            ),
            ValueError,
        ),
    ],
)
def test_construction_errors_match_tf(build, error):
    import tfcompat

    for tf in (tf1(), tfcompat):
        with tf.Graph().as_default(), pytest.raises(error):
            build(tf)


# ---------------------------------------------------------------------------------------------
# A small LSTM language model trained for 10 steps
# ---------------------------------------------------------------------------------------------
VOCAB, EMBED, HIDDEN, SEQ, BATCH = 20, 8, 16, 8, 4


def _language_model(optimizer_name):
    rs = np.random.RandomState(3)
    tokens = rs.randint(0, VOCAB, size=(10, BATCH, SEQ + 1)).astype(np.int32)

    def program(tf):
        ids = tf.placeholder(tf.int32, [BATCH, SEQ + 1])
        with tf.variable_scope("lm", initializer=_numpy_init(0.3)):
            embedding = tf.get_variable("embedding", [VOCAB, EMBED])
            inputs = tf.nn.embedding_lookup(embedding, ids[:, :-1])
            cell = tf.nn.rnn_cell.LSTMCell(HIDDEN, initializer=_numpy_init(0.3))
            outputs, _ = tf.nn.dynamic_rnn(cell, inputs, dtype=tf.float32)
            softmax_w = tf.get_variable("softmax_w", [HIDDEN, VOCAB])
            softmax_b = tf.get_variable("softmax_b", [VOCAB])
            logits = tf.matmul(tf.reshape(outputs, [-1, HIDDEN]), softmax_w) + softmax_b
        loss = tf.reduce_mean(
            tf.nn.sparse_softmax_cross_entropy_with_logits(
                labels=tf.reshape(ids[:, 1:], [-1]), logits=logits
            )
        )
        if optimizer_name == "adam":
            train = tf.train.AdamOptimizer(0.01).minimize(loss)
        else:
            train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
        return ids, loss, train

    return program, tokens


def _trajectory(tf, program, tokens, backend=None):
    graph = tf.Graph()
    with graph.as_default():
        ids, loss, train = program(tf)
        kwargs = {"backend": backend} if backend else {}
        with tf.Session(graph=graph, **kwargs) as sess:
            sess.run(tf.global_variables_initializer())
            losses = [sess.run([loss, train], {ids: batch})[0] for batch in tokens]
            final = sess.run(tf.trainable_variables())
    return np.array(losses), final


@pytest.mark.parametrize("optimizer_name", ["sgd", "adam"])
def test_lstm_language_model_training_matches_tf(optimizer_name):
    import tfcompat

    program, tokens = _language_model(optimizer_name)
    their_losses, their_vars = _trajectory(tf1(), program, tokens)
    our_losses, our_vars = _trajectory(tfcompat, program, tokens, backend="xla")
    assert their_losses[-1] < their_losses[0]
    np.testing.assert_allclose(our_losses, their_losses, rtol=2e-5, atol=2e-6)
    for ours, theirs in zip(our_vars, their_vars):
        np.testing.assert_allclose(ours, theirs, rtol=1e-4, atol=2e-5)


def test_tensor_array_gradient_in_while_loop_matches_tf():
    x_value = np.random.RandomState(1).randn(5, 3).astype(np.float32)

    def program(tf):
        x = tf.constant(x_value)
        w = tf.Variable(np.full(3, 0.5, np.float32))
        inputs = tf.TensorArray(tf.float32, size=5).unstack(x)

        def body(t, outputs, h):
            h = tf.tanh(inputs.read(t) * w + h)
            return t + 1, outputs.write(t, h), h

        _, outputs, h = tf.while_loop(
            lambda t, *_: t < 5,
            body,
            [tf.constant(0), tf.TensorArray(tf.float32, 5), tf.zeros([3])],
        )
        stacked = outputs.stack()
        loss = tf.reduce_sum(stacked * stacked) + tf.reduce_sum(h)
        return [stacked, h] + tf.gradients(loss, [x, w])

    assert_parity(program, rtol=1e-5, atol=1e-6)
