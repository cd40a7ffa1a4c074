"""Training graphs built by tfcompat, exported as a MetaGraphDef and imported by TF 2.21,
train there with tfcompat's numbers: the graphs hold TF's ops with TF's attrs, shapes and
control-flow contexts (layers, batch norm, learning-rate decay, LSTM with gradient
clipping, sparse updates of embeddings with duplicate ids, feature columns, optimizers
through tf.cond inside tf.while_loop, vocabulary tables, Example parsing, map_fn and scan,
sparse tensors, tf.case and metrics)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import tfcompat
from tests.oracle import tf1

rng = np.random.default_rng(0)


def mlp(t):
    x = t.placeholder(t.float32, [None, 6], name="x")
    y = t.placeholder(t.int64, [None], name="y")
    h = t.layers.dense(x, 8, activation=t.nn.relu, kernel_initializer=t.constant_initializer(0.1))
    h = t.layers.batch_normalization(h, training=True)
    h = t.layers.dropout(h, 0.0, training=True)
    logits = t.layers.dense(h, 3, kernel_initializer=t.constant_initializer(0.2))
    loss = t.reduce_mean(t.nn.sparse_softmax_cross_entropy_with_logits(labels=y, logits=logits))
    gs = t.train.get_or_create_global_step()
    lr = t.train.exponential_decay(0.1, gs, 10, 0.9)
    with t.control_dependencies(t.get_collection(t.GraphKeys.UPDATE_OPS)):
        t.train.AdamOptimizer(lr).minimize(loss, global_step=gs, name="train")
    return loss, {"x:0": rng.random((4, 6), np.float32), "y:0": np.array([0, 1, 2, 1])}


def cnn(t):
    x = t.placeholder(t.float32, [None, 8, 8, 1], name="x")
    h = t.layers.conv2d(
        x,
        4,
        3,
        padding="same",
        activation=t.nn.relu,
        kernel_initializer=t.constant_initializer(0.1),
    )
    h = t.layers.max_pooling2d(h, 2, 2)
    h = t.layers.flatten(h)
    loss = t.reduce_mean(
        t.square(t.layers.dense(h, 1, kernel_initializer=t.constant_initializer(0.1)))
    )
    t.train.MomentumOptimizer(0.1, 0.9).minimize(loss, name="train")
    return loss, {"x:0": rng.random((2, 8, 8, 1), np.float32)}


def rnn(t):
    x = t.placeholder(t.float32, [2, 5, 3], name="x")
    with t.variable_scope("rnn", initializer=t.constant_initializer(0.1)):
        cell = t.nn.rnn_cell.LSTMCell(4)
        out, _ = t.nn.dynamic_rnn(cell, x, dtype=t.float32)
    loss = t.reduce_sum(out)
    grads = t.gradients(loss, t.trainable_variables())
    clipped, _ = t.clip_by_global_norm(grads, 1.0)
    t.train.GradientDescentOptimizer(0.1).apply_gradients(
        zip(clipped, t.trainable_variables()), name="train"
    )
    return loss, {"x:0": rng.random((2, 5, 3), np.float32)}


def embed_adagrad(t):
    ids = t.placeholder(t.int64, [None, 3], name="ids")
    table = t.Variable(np.arange(40, dtype=np.float32).reshape(10, 4) / 40, name="table")
    e = t.nn.embedding_lookup(table, ids)
    loss = t.reduce_sum(t.reduce_mean(e, 1) ** 2)
    t.train.AdagradOptimizer(0.1).minimize(loss, name="train")
    return loss, {"ids:0": np.array([[1, 2, 2], [3, 9, 0]])}


def features(t):
    s = t.placeholder(t.string, [None, 1], name="s")
    d = t.placeholder(t.float32, [None, 1], name="d")
    fc = t.feature_column
    cat = fc.categorical_column_with_hash_bucket("c", 20)
    cols = [
        fc.numeric_column("n"),
        fc.embedding_column(cat, 3, initializer=t.constant_initializer(0.1)),
    ]
    net = fc.input_layer({"c": s, "n": d}, cols)
    wide = fc.linear_model(
        {"c": s, "n": d},
        [cat, fc.crossed_column(["c", fc.bucketized_column(fc.numeric_column("n"), [0.5])], 10)],
    )
    loss = t.reduce_mean(t.square(t.reduce_sum(net, 1, keepdims=True) + wide))
    t.train.FtrlOptimizer(0.1).minimize(loss, name="train")
    return loss, {
        "s:0": np.array([[b"a"], [b"bb"], [b""]], object),
        "d:0": np.array([[0.1], [0.7], [0.3]], np.float32),
    }


def loops(t):
    x = t.placeholder(t.float32, [3], name="x")
    w = t.Variable(np.array([0.5, 1.0, -0.5], np.float32), name="w")

    def body(i, v):
        v = t.cond(i < 1, lambda: v * w, lambda: t.tanh(v + x))
        return i + 1, v

    _, out = t.while_loop(lambda i, v: i < 3, body, [0, x])
    loss = t.reduce_sum(out * out)
    t.train.RMSPropOptimizer(0.1, momentum=0.9, centered=True).minimize(loss, name="train")
    return loss, {"x:0": np.array([1.0, 2.0, 3.0], np.float32)}


def embed_adam(t):
    ids = t.placeholder(t.int64, [None, 3], name="ids")
    table = t.Variable(np.arange(40, dtype=np.float32).reshape(10, 4) / 40, name="table")
    e = t.nn.embedding_lookup(table, ids)
    loss = t.reduce_sum(t.reduce_mean(e, 1) ** 2)
    t.train.AdamOptimizer(0.1).minimize(loss, name="train")
    return loss, {"ids:0": np.array([[1, 2, 2], [3, 9, 0]])}


_VOCABULARY = None


def _vocabulary_file():
    global _VOCABULARY
    if _VOCABULARY is None:
        import tempfile

        _VOCABULARY = os.path.join(tempfile.mkdtemp(), "vocab.txt")
        with open(_VOCABULARY, "w") as f:
            f.write("a\nbb\nccc\n")
    return _VOCABULARY


def vocab_cols(t):
    s = t.placeholder(t.string, [None, 2], name="s")
    fc = t.feature_column
    c1 = fc.categorical_column_with_vocabulary_list("c1", ["a", "bb", "x"], num_oov_buckets=2)
    c2 = fc.categorical_column_with_vocabulary_file(
        "c2", _vocabulary_file(), vocabulary_size=3, default_value=0
    )
    feats = {"c1": s[:, :1], "c2": s[:, 1:]}
    net = fc.input_layer(
        feats,
        [
            fc.indicator_column(c1),
            fc.embedding_column(c2, 2, initializer=t.constant_initializer(0.3)),
        ],
    )
    lin = fc.linear_model(feats, [c1, c2])
    loss = t.reduce_sum(t.square(t.reduce_sum(net, 1, keepdims=True) + lin))
    t.train.FtrlOptimizer(0.1, l1_regularization_strength=0.01).minimize(loss, name="train")
    return loss, {"s:0": np.array([[b"a", b"ccc"], [b"zz", b"bb"], [b"x", b"q"]], object)}


def parse(t):
    ser = t.placeholder(t.string, [None], name="ser")
    spec = {
        "f": t.io.FixedLenFeature([2], t.float32),
        "v": t.io.VarLenFeature(t.int64),
        "s": t.io.FixedLenFeature([], t.string, default_value=""),
    }
    p = t.io.parse_example(ser, spec)
    w = t.Variable(np.ones(2, np.float32), name="w")
    emb = t.Variable(np.arange(20, dtype=np.float32).reshape(10, 2) / 20, name="emb")
    e = t.nn.embedding_lookup_sparse(emb, p["v"], None, combiner="sqrtn")
    h = t.string_to_hash_bucket_fast(p["s"], 5)
    loss = t.reduce_sum(p["f"] * w) + t.reduce_sum(e**2) + t.reduce_sum(t.cast(h, t.float32))
    t.train.ProximalAdagradOptimizer(0.1, l1_regularization_strength=0.01).minimize(
        loss, name="train"
    )
    recs = []
    for f, v, s in [
        ([1.0, 2.0], [1, 3], b"k"),
        ([0.5, -1.0], [2], b""),
        ([3.0, 4.0], [4, 4, 9], b"zz"),
    ]:
        ex = tfcompat.train.Example(
            features=tfcompat.train.Features(
                feature={
                    "f": tfcompat.train.Feature(float_list=tfcompat.train.FloatList(value=f)),
                    "v": tfcompat.train.Feature(int64_list=tfcompat.train.Int64List(value=v)),
                    "s": tfcompat.train.Feature(bytes_list=tfcompat.train.BytesList(value=[s]))
                    if s
                    else tfcompat.train.Feature(bytes_list=tfcompat.train.BytesList(value=[b"q"])),
                }
            )
        )
        recs.append(ex.SerializeToString())
    return loss, {"ser:0": np.array(recs, object)}


def mapfn(t):
    x = t.placeholder(t.float32, [4, 3], name="x")
    w = t.Variable(np.full(3, 0.5, np.float32), name="w")
    y = t.map_fn(lambda r: t.reduce_sum(r * w), x)
    z = t.scan(lambda a, r: a + r * w, x)
    loss = t.reduce_sum(y) + t.reduce_sum(z**2)
    t.train.AdadeltaOptimizer(1.0).minimize(loss, name="train")
    return loss, {"x:0": rng.random((4, 3), np.float32)}


def sparse_ops(t):
    sp = t.sparse_placeholder(t.float32, name="sp")
    w = t.Variable(np.arange(12, dtype=np.float32).reshape(4, 3) / 10, name="w")
    y = t.sparse_tensor_dense_matmul(sp, w)
    r = t.sparse_reduce_sum(t.sparse_reorder(sp), axis=1)
    loss = t.reduce_sum(y**2) + t.reduce_sum(r)
    t.train.MomentumOptimizer(0.05, 0.9, use_nesterov=True).minimize(loss, name="train")
    feed = {
        "sp/indices:0": np.array([[0, 1], [1, 3], [0, 0]]),
        "sp/values:0": np.array([1.0, 2.0, 3.0], np.float32),
        "sp/shape:0": np.array([2, 4]),
    }
    return loss, feed


def case_metrics(t):
    x = t.placeholder(t.float32, [None], name="x")
    lab = t.placeholder(t.int64, [None], name="lab")
    gs = t.train.get_or_create_global_step()
    w = t.Variable(np.float32(0.3), name="w")
    y = t.case(
        [(t.reduce_sum(x) > 2.0, lambda: x * w), (t.reduce_sum(x) < -1.0, lambda: -x)],
        default=lambda: x + w,
    )
    lr = t.train.piecewise_constant(gs, [1, 2], [0.1, 0.05, 0.01])
    acc, acc_up = t.metrics.accuracy(lab, t.cast(y > 0.5, t.int64))
    loss = t.reduce_sum(y**2) + 0.0 * acc_up
    t.train.GradientDescentOptimizer(lr).minimize(loss, global_step=gs, name="train")
    return loss, {"x:0": np.array([1.0, 0.5, 2.0], np.float32), "lab:0": np.array([1, 0, 1])}


def image_ema_summaries(t):
    """Resizing, a moving average of the weights, a summary and a Print in the step."""
    x = t.placeholder(t.float32, [2, 4, 4, 1], name="x")
    up = t.image.resize_images(x, [6, 6])
    h = t.layers.conv2d(up, 2, 3, kernel_initializer=t.constant_initializer(0.1))
    loss = t.Print(t.reduce_mean(t.square(h)), [t.reduce_max(h)], "max: ")
    t.summary.scalar("loss", loss)
    step = t.train.AdamOptimizer(0.01).minimize(loss)
    ema = t.train.ExponentialMovingAverage(0.9)
    with t.control_dependencies([step]):
        t.group(ema.apply(t.trainable_variables()), name="train")
    return loss, {"x:0": np.arange(32, dtype=np.float32).reshape(2, 4, 4, 1) / 32}


PROGRAMS = {
    "mlp": mlp,
    "cnn": cnn,
    "rnn": rnn,
    "embed_adagrad": embed_adagrad,
    "embed_adam": embed_adam,
    "features": features,
    "loops": loops,
    "vocabulary_columns": vocab_cols,
    "parse_example": parse,
    "map_fn_scan": mapfn,
    "sparse_ops": sparse_ops,
    "case_metrics": case_metrics,
    "image_ema_summaries": image_ema_summaries,
}


def _initializers(tf):
    return [
        tf.global_variables_initializer(),
        tf.local_variables_initializer(),
        tf.tables_initializer(),
    ]


@pytest.mark.parametrize("name", PROGRAMS)
def test_tf_trains_tfcompat_graph_with_the_same_numbers(name):
    from tensorflow.core.protobuf import meta_graph_pb2

    tf = tf1()
    graph = tfcompat.Graph()
    with graph.as_default():
        loss, feed = PROGRAMS[name](tfcompat)
        init = _initializers(tfcompat)
        meta = tfcompat.train.export_meta_graph().SerializeToString()
        with tfcompat.Session() as sess:
            sess.run(init)
            ours = [sess.run([loss, "train"], feed)[0] for _ in range(3)]
    with tf.Graph().as_default():
        tf.train.import_meta_graph(meta_graph_pb2.MetaGraphDef.FromString(meta))
        with tf.Session() as sess:
            sess.run(_initializers(tf))
            theirs = [sess.run([loss.name, "train"], feed)[0] for _ in range(3)]
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)
