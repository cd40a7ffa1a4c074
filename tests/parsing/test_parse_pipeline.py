"""Example parsing in use: records read from TFRecord files written by TF, the legacy
ParseExample / ParseSingleExample ops in graphs built by TF and imported here, and a
training step fed serialized batches (host prelude + ONE device segment)."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_values_close, tf1
from tests.parsing.examples import batch

RNG = np.random.default_rng(7)


def _records(count, seed):
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        record = {
            "x": [float(v) for v in rng.normal(size=3).astype(np.float32)],
            "label": [float(i % 2)],
            # An empty list would be an (empty) FloatList: a type error for int64 ids.
            "ids": [int(v) for v in rng.integers(0, 50, rng.integers(0, 5))] or None,
            "seq": [int(v) for v in rng.integers(0, 50, rng.integers(0, 6))] or None,
        }
        if i % 3:
            record["cat"] = [b"c%d" % rng.integers(0, 4)]
        out.append(record)
    return out


def _features(tf):
    return {
        "x": tf.io.FixedLenFeature([3], tf.float32),
        "label": tf.io.FixedLenFeature([1], tf.float32),
        "ids": tf.io.VarLenFeature(tf.int64),
        "cat": tf.io.FixedLenFeature([], tf.string, default_value="none"),
    }


def _parse_with(module, records):
    with module.Graph().as_default() as graph:
        serialized = module.placeholder(module.string, [None])
        parsed = module.io.parse_example(serialized, _features(module))
        with module.Session(graph=graph) as sess:
            return sess.run(parsed, {serialized: records})


def test_records_from_a_tfrecord_file_written_by_tf(tmp_path):
    tf = tf1()
    path = str(tmp_path / "data.tfrecord")
    written = batch(_records(20, seed=1))
    with tf.io.TFRecordWriter(path, tf.io.TFRecordOptions("GZIP")) as writer:
        for record in written:
            writer.write(record)
    options = tfcompat.io.TFRecordOptions("GZIP")
    read = list(tfcompat.io.tf_record_iterator(path, options))
    assert read == written
    assert_values_close(_parse_with(tfcompat, read), _parse_with(tf, written), 0, 0)


# ---------------------------------------------------------------------------------------------
# Legacy ops in graphs built by TF (import_graph_def)
# ---------------------------------------------------------------------------------------------
def _legacy_graph_def():
    """A TF graph with raw ParseExample (vector input) and ParseSingleExample (scalar)."""
    tf = tf1()
    import tensorflow as tf2

    graph = tf.Graph()
    with graph.as_default():
        many = tf.placeholder(tf.string, [None], name="many")
        one = tf.placeholder(tf.string, [], name="one")
        defaults = [tf.constant([0.0, 0.0, 0.0]), tf.constant("none")]
        tf2.raw_ops.ParseExample(
            serialized=many,
            names=[],
            sparse_keys=["ids"],
            dense_keys=["x", "cat"],
            dense_defaults=defaults,
            sparse_types=[tf.int64],
            dense_shapes=[[3], []],
            name="legacy",
        )
        tf2.raw_ops.ParseSingleExample(
            serialized=one,
            dense_defaults=[tf.constant([], tf.float32)],
            num_sparse=1,
            sparse_keys=["ids"],
            dense_keys=["label"],
            sparse_types=[tf.int64],
            dense_shapes=[[1]],
            name="single",
        )
    fetches = [f"legacy:{i}" for i in range(5)] + [f"single:{i}" for i in range(4)]
    return graph.as_graph_def(), fetches


def test_legacy_parse_ops_in_an_imported_graph_match_tf():
    tf = tf1()
    graph_def, fetches = _legacy_graph_def()
    records = batch(_records(6, seed=2))
    feeds = {"many:0": records, "one:0": records[1]}
    results = {}
    for name, module in [("tf", tf), ("ours", tfcompat)]:
        with module.Graph().as_default() as graph:
            module.import_graph_def(
                module.GraphDef.FromString(graph_def.SerializeToString()), name=""
            )
            with module.Session(graph=graph) as sess:
                results[name] = sess.run(fetches, feeds)
            shapes = [graph.get_tensor_by_name(f).shape.as_list() for f in fetches]
            results[name + "_shapes"] = shapes
    assert results["ours_shapes"] == results["tf_shapes"]
    assert_values_close(results["ours"], results["tf"], 0, 0)


# ---------------------------------------------------------------------------------------------
# Training on parsed batches
# ---------------------------------------------------------------------------------------------
VOCAB, DIM = 50, 4


def _training_graph(tf):
    serialized = tf.placeholder(tf.string, [None], name="serialized")
    features = dict(_features(tf))
    features["seq"] = tf.io.FixedLenSequenceFeature([], tf.int64, True, default_value=-1)
    parsed = tf.io.parse_example(serialized, features)
    init = np.random.default_rng(3).normal(size=(VOCAB, DIM)).astype(np.float32) * 0.1
    embeddings = tf.Variable(init, name="embeddings")
    # Mean-pooled embeddings of each example's padded id sequence (-1 pads) and of its
    # var-len ids (a SparseTensor: rows gathered by its values, summed by example).
    seq = parsed["seq"]
    mask = tf.cast(seq >= 0, tf.float32)
    rows = tf.gather(embeddings, tf.maximum(seq, 0)) * mask[:, :, None]
    pooled = tf.reduce_sum(rows, 1) / tf.maximum(tf.reduce_sum(mask, 1, keepdims=True), 1.0)
    ids = parsed["ids"]
    example = ids.indices[:, 0]
    batch_size = tf.shape(parsed["x"])[0]
    id_sums = tf.math.unsorted_segment_sum(tf.gather(embeddings, ids.values), example, batch_size)
    counts = tf.math.unsorted_segment_sum(tf.ones_like(example, tf.float32), example, batch_size)
    id_means = id_sums / tf.maximum(counts, 1.0)[:, None]
    features = tf.concat([parsed["x"], pooled, id_means], 1)
    w = tf.Variable(np.full((3 + 2 * DIM, 1), 0.1, np.float32), name="w")
    logits = tf.matmul(features, w)
    loss = tf.reduce_mean(
        tf.nn.sigmoid_cross_entropy_with_logits(labels=parsed["label"], logits=logits)
    )
    train = tf.train.GradientDescentOptimizer(0.5).minimize(loss)
    return serialized, loss, train, [embeddings, w]


def _train(module, batches):
    with module.Graph().as_default() as graph:
        serialized, loss, train, variables = _training_graph(module)
        losses = []
        kwargs = {}
        if module is tfcompat:
            kwargs["run_metadata"] = metadata = tfcompat.RunMetadata()
        with module.Session(graph=graph) as sess:
            sess.run(module.global_variables_initializer())
            for records in batches:
                value, _ = sess.run([loss, train], {serialized: records}, **kwargs)
                losses.append(value)
                if module is tfcompat:
                    segments = [s.kind for s in metadata.executable.plan.segments if s.ops]
                    assert segments == ["host", "device"], segments
                    host_ops = {op.type for op in metadata.executable.plan.segments[0].ops}
                    assert "ParseExampleV2" in host_ops
            final = sess.run(variables)
    return losses, final


@pytest.mark.parametrize("sizes", [(8, 8, 8), (5, 12, 1, 7)])
def test_training_on_parsed_batches_matches_tf(sizes):
    batches = [batch(_records(n, seed=10 + i)) for i, n in enumerate(sizes)]
    # Var-len ids make each batch's sparse part a different size.
    lengths = {len(_parse_with(tfcompat, b)["ids"].values) for b in batches}
    assert len(lengths) > 1
    ours = _train(tfcompat, batches)
    theirs = _train(tf1(), batches)
    assert_values_close(ours, theirs, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("scalar", [False, True])
def test_ragged_outputs_of_an_imported_parse_example_v2_match_tf(scalar):
    """tfcompat has no RaggedFeature wrapper; the kernel still fills ParseExampleV2's ragged
    outputs (values and row splits) of graphs built by TF."""
    import tensorflow as tf2

    tf = tf1()
    graph = tf.Graph()
    with graph.as_default():
        serialized = tf.placeholder(tf.string, [] if scalar else [None], name="serialized")
        tf2.raw_ops.ParseExampleV2(
            serialized=serialized,
            names=[],
            sparse_keys=[],
            dense_keys=[],
            ragged_keys=["ids", "x"],
            dense_defaults=[],
            num_sparse=0,
            sparse_types=[],
            ragged_value_types=[tf.int64, tf.float32],
            ragged_split_types=[tf.int32, tf.int64],
            dense_shapes=[],
            name="parse",
        )
    graph_def = graph.as_graph_def().SerializeToString()
    records = batch(_records(5, seed=4))
    feed = {"serialized:0": records[0] if scalar else records}
    fetches = [f"parse:{i}" for i in range(4)]
    results = []
    for module in (tf, tfcompat):
        with module.Graph().as_default() as g:
            module.import_graph_def(module.GraphDef.FromString(graph_def), name="")
            with module.Session(graph=g) as sess:
                results.append(sess.run(fetches, feed))
    assert_values_close(results[1], results[0], 0, 0)
