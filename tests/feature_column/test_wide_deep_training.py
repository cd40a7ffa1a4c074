"""The training trajectory of a small wide & deep model fed from TFRecord files of
tf.train.Example records matches TF 2.21: linear_model over hashed, vocabulary, bucketized
and crossed columns plus a DNN over input_layer of embeddings, Adagrad, several steps.
Weights start from numpy arrays (constant initializers) so both sides start equal. Over
batches of varying sizes of var-len features the step compiles once per size bucket."""

from __future__ import annotations

import numpy as np

import tfcompat
from lowering import buckets
from tests.feature_column.helpers import assert_parity
from tests.oracle import tf1

BATCH, STEPS = 16, 6
RNG = np.random.default_rng(4)
TABLES = {
    "city": RNG.normal(size=(7, 4)).astype(np.float32),
    "words": RNG.normal(size=(11, 4)).astype(np.float32),
}
KERNELS = [RNG.normal(0, 0.3, s).astype(np.float32) for s in ((9, 8), (8, 1))]


def _record(tf, rng, i, max_words=3):
    """One Example: age (float), city (one string), words (0..max_words strings), label."""
    words = [b"w%d" % w for w in rng.integers(0, 9, rng.integers(0, max_words + 1))]
    feature = {
        "age": tf.train.Feature(float_list=tf.train.FloatList(value=[rng.uniform(0, 80)])),
        "city": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"c%d" % (i % 5)])),
        "words": tf.train.Feature(bytes_list=tf.train.BytesList(value=words)),
        "label": tf.train.Feature(float_list=tf.train.FloatList(value=[i % 2])),
    }
    return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()


def _write_records(path):
    rng = np.random.default_rng(3)
    with tfcompat.io.TFRecordWriter(str(path)) as writer:
        for i in range(BATCH):
            writer.write(_record(tfcompat, rng, i))


def _model(tf, serialized):
    """Wide & deep over parsed Examples; the fetches run after one Adagrad step."""
    fc = tf.feature_column
    age = fc.bucketized_column(fc.numeric_column("age"), [20.0, 40.0, 60.0])
    city = fc.categorical_column_with_vocabulary_list(
        "city", ["c0", "c1", "c2", "c3"], num_oov_buckets=3
    )
    words = fc.categorical_column_with_hash_bucket("words", 11)
    wide_columns = [age, city, words, fc.crossed_column([age, "city"], 13)]
    deep_columns = [
        fc.numeric_column("age", normalizer_fn=lambda x: x / 80.0),
        fc.embedding_column(city, 4, initializer=tf.constant_initializer(TABLES["city"])),
        fc.embedding_column(
            words, 4, combiner="sqrtn", initializer=tf.constant_initializer(TABLES["words"])
        ),
    ]
    spec = fc.make_parse_example_spec(wide_columns + deep_columns)
    spec["label"] = tf.io.FixedLenFeature([1], tf.float32)
    features = tf.io.parse_example(serialized, spec)
    labels = features.pop("label")
    wide = fc.linear_model(features, wide_columns)
    net = fc.input_layer(features, deep_columns)
    net = tf.layers.dense(
        net, 8, tf.nn.relu, kernel_initializer=tf.constant_initializer(KERNELS[0])
    )
    logits = wide + tf.layers.dense(net, 1, kernel_initializer=tf.constant_initializer(KERNELS[1]))
    loss = tf.losses.sigmoid_cross_entropy(labels, logits)
    train = tf.train.AdagradOptimizer(0.3).minimize(loss)
    with tf.control_dependencies([train]):
        return {"loss": tf.identity(loss), "logits": tf.identity(logits)}


def test_wide_deep_trajectory_from_tfrecords(tmp_path):
    path = tmp_path / "train.tfrecord"
    _write_records(path)
    records = list(tfcompat.io.tf_record_iterator(str(path)))
    assert_parity(lambda tf: _model(tf, tf.constant(records)), rtol=2e-5, atol=2e-6, steps=STEPS)


def _train(tf, batches):
    """Trains one step per batch; (losses, final variables, compile counts or None)."""
    with tf.Graph().as_default():
        serialized = tf.placeholder(tf.string, [None])
        fetches = _model(tf, serialized)
        losses, counts = [], []
        with tf.Session() as sess:
            sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
            for records in batches:
                meta = tf.RunMetadata()
                losses.append(sess.run(fetches, {serialized: records}, run_metadata=meta)["loss"])
                executable = getattr(meta, "executable", None)
                counts.append(None if executable is None else executable.compile_count)
            variables = sess.run({v.op.name: v for v in tf.global_variables()})
    return np.asarray(losses), variables, counts


def _words_per_record(records):
    return [
        len(tfcompat.train.Example.FromString(r).features.feature["words"].bytes_list.value)
        for r in records
    ]


def test_wide_deep_steps_compile_once_per_bucket_and_track_tf():
    """20 batches whose word lists vary (0..max words per record, some batches without any):
    the step compiles again only for a batch whose entry counts fall in size buckets not
    seen before (the words' nnz, and nnz plus empty rows after SparseFillEmptyRows), and
    losses and every variable (Adagrad accumulators included) follow TF."""
    rng = np.random.default_rng(5)
    maxima = [0, 1, 3, 2, 3, 6, 1, 3, 4, 2, 5, 3, 1, 2, 6, 3, 4, 2, 3, 5]
    batches = [[_record(tfcompat, rng, i, m) for i in range(BATCH)] for m in maxima]
    counts_per_record = [_words_per_record(b) for b in batches]
    nnz = [sum(c) for c in counts_per_record]
    filled = [sum(max(n, 1) for n in c) for c in counts_per_record]
    assert len(set(nnz)) > 10
    losses, variables, counts = _train(tfcompat, batches)
    keys = [(buckets.bucket_size(a), buckets.bucket_size(b)) for a, b in zip(nnz, filled)]
    for step in range(1, len(batches)):
        if keys[step] in keys[:step]:
            assert counts[step] == counts[step - 1], (step, nnz, counts)
    assert len(set(keys)) < len(set(nnz))
    assert counts[-1] - counts[0] < len(set(nnz)), (nnz, counts)
    their_losses, their_variables, _ = _train(tf1(), batches)
    np.testing.assert_allclose(losses, their_losses, rtol=2e-5, atol=2e-6)
    assert sorted(variables) == sorted(their_variables)
    for name, value in their_variables.items():
        np.testing.assert_allclose(variables[name], value, rtol=2e-5, atol=2e-6, err_msg=name)
