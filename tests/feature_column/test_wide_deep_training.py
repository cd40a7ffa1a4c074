"""The training trajectory of a small wide & deep model fed from TFRecord files of
tf.train.Example records matches TF 2.21: linear_model over hashed, vocabulary, bucketized
and crossed columns plus a DNN over input_layer of embeddings, Adagrad, several steps.
Weights start from numpy arrays (constant initializers) so both sides start equal."""

from __future__ import annotations

import numpy as np

import tfcompat
from tests.feature_column.helpers import assert_parity

BATCH, STEPS = 16, 6


def _write_records(path):
    rng = np.random.default_rng(3)
    tf = tfcompat
    with tf.io.TFRecordWriter(str(path)) as writer:
        for i in range(BATCH):
            words = [b"w%d" % w for w in rng.integers(0, 9, rng.integers(1, 4))]
            feature = {
                "age": tf.train.Feature(float_list=tf.train.FloatList(value=[rng.uniform(0, 80)])),
                "city": tf.train.Feature(bytes_list=tf.train.BytesList(value=[b"c%d" % (i % 5)])),
                "words": tf.train.Feature(bytes_list=tf.train.BytesList(value=words)),
                "label": tf.train.Feature(float_list=tf.train.FloatList(value=[i % 2])),
            }
            example = tf.train.Example(features=tf.train.Features(feature=feature))
            writer.write(example.SerializeToString())


def _program(path):
    records = list(tfcompat.io.tf_record_iterator(str(path)))
    rng = np.random.default_rng(4)
    tables = {
        "city": rng.normal(size=(7, 4)).astype(np.float32),
        "words": rng.normal(size=(11, 4)).astype(np.float32),
    }
    kernels = [rng.normal(0, 0.3, s).astype(np.float32) for s in ((9, 8), (8, 1))]

    def program(tf):
        fc = tf.feature_column
        age = fc.bucketized_column(fc.numeric_column("age"), [20.0, 40.0, 60.0])
        city = fc.categorical_column_with_vocabulary_list(
            "city", ["c0", "c1", "c2", "c3", "c4"][:4], num_oov_buckets=3
        )
        words = fc.categorical_column_with_hash_bucket("words", 11)
        wide_columns = [age, city, words, fc.crossed_column([age, "city"], 13)]
        deep_columns = [
            fc.numeric_column("age", normalizer_fn=lambda x: x / 80.0),
            fc.embedding_column(city, 4, initializer=tf.constant_initializer(tables["city"])),
            fc.embedding_column(
                words, 4, combiner="sqrtn", initializer=tf.constant_initializer(tables["words"])
            ),
        ]
        spec = fc.make_parse_example_spec(wide_columns + deep_columns)
        spec["label"] = tf.io.FixedLenFeature([1], tf.float32)
        features = tf.io.parse_example(tf.constant(records), spec)
        labels = features.pop("label")
        wide = fc.linear_model(features, wide_columns)
        net = fc.input_layer(features, deep_columns)
        net = tf.layers.dense(
            net, 8, tf.nn.relu, kernel_initializer=tf.constant_initializer(kernels[0])
        )
        logits = wide + tf.layers.dense(
            net, 1, kernel_initializer=tf.constant_initializer(kernels[1])
        )
        loss = tf.losses.sigmoid_cross_entropy(labels, logits)
        train = tf.train.AdagradOptimizer(0.3).minimize(loss)
        with tf.control_dependencies([train]):
            return {"loss": tf.identity(loss), "logits": tf.identity(logits)}

    return program


def test_wide_deep_trajectory_from_tfrecords(tmp_path):
    path = tmp_path / "train.tfrecord"
    _write_records(path)
    assert_parity(_program(path), rtol=2e-5, atol=2e-6, steps=STEPS)
