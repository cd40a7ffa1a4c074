"""``input_layer`` and ``linear_model`` vs TF 2.21: outputs for every column type and
combiner, variable names and collections, GraphDefs where no variables are involved,
``cols_to_vars``, one transformation per shared column, and IndexedSlices gradients of
embedding tables. Embedding tables start from numpy arrays (constant initializers)."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from tests.feature_column.helpers import assert_parity, set_weights_off_zero
from tests.oracle import assert_same_graph_def, tf1

RNG = np.random.default_rng(7)
TABLE = RNG.normal(size=(6, 3)).astype(np.float32)
PRICE = np.array([[1.0, 2.0], [3.0, -4.0], [0.5, 6.0]], np.float32)
AGE = np.array([[10.0], [30.0], [72.0]], np.float32)
WORDS = np.array([["a", "b", ""], ["", "", ""], ["c", "a", "zz"]], dtype=object)
IDS = np.array([[0, 5, -1], [3, -1, -1], [2, 2, 1]], np.int64)
MORE_IDS = np.array([[4, -1, -1], [-1, -1, -1], [1, 0, 4]], np.int64)
WEIGHTS = np.where(IDS >= 0, IDS / 2.0 + 0.5, 0.0).astype(np.float32)


def _dense_columns(fc):
    return [
        fc.numeric_column("price", shape=[2]),
        fc.numeric_column("age", normalizer_fn=lambda x: (x - 30.0) / 10.0),
        fc.bucketized_column(fc.numeric_column("age"), [18, 30, 50]),
    ]


def _features(tf):
    return {
        "price": tf.constant(PRICE),
        "age": tf.constant(AGE),
        "words": tf.constant(WORDS),
        "ids": tf.constant(IDS),
        "more_ids": tf.constant(MORE_IDS),
        # A weight per id: TF pairs ids and weights entry by entry, so the weights are
        # missing (0, the float ignore value) exactly where the ids are (-1).
        "w": tf.constant(WEIGHTS),
    }


def test_input_layer_dense_columns_values():
    assert_parity(
        lambda tf: tf.feature_column.input_layer(_features(tf), _dense_columns(tf.feature_column))
    )


def test_input_layer_dense_columns_graph_def():
    assert_same_graph_def(
        lambda tf: tf.feature_column.input_layer(_features(tf), _dense_columns(tf.feature_column))
    )


def test_input_layer_rank1_feature_and_placeholder_batch():
    def program(tf):
        p = tf.placeholder(tf.float32, [None])
        out = tf.feature_column.input_layer({"x": p}, [tf.feature_column.numeric_column("x")])
        return out, {p: np.arange(4, dtype=np.float32)}

    assert_parity(program)


def test_input_layer_rejects_categorical_and_mismatched_batch():
    for tf in (tf1(), tfcompat):
        with tf.Graph().as_default():
            fc = tf.feature_column
            with pytest.raises(ValueError, match="must be a _DenseColumn"):
                fc.input_layer(_features(tf), [fc.categorical_column_with_identity("ids", 6)])
            with pytest.raises(ValueError, match="Batch size"):
                fc.input_layer(
                    {"a": tf.zeros([2, 1]), "b": tf.zeros([3, 1])},
                    [fc.numeric_column("a"), fc.numeric_column("b")],
                )
            with pytest.raises(ValueError, match="Duplicate feature column name"):
                fc.input_layer(_features(tf), [fc.numeric_column("age"), fc.numeric_column("age")])


@pytest.mark.parametrize("units", [1, 3])
def test_linear_model_dense_columns(units):
    def program(tf):
        fc = tf.feature_column
        columns = [fc.numeric_column("price", shape=[2]), fc.numeric_column("age")]
        cols_to_vars = {}
        out = fc.linear_model(_features(tf), columns, units=units, cols_to_vars=cols_to_vars)
        set_weights_off_zero(tf)  # so the output depends on the weights
        names = sorted((k if isinstance(k, str) else k.name, [v.name for v in vs])
                       for k, vs in cols_to_vars.items())  # fmt: skip
        return {"out": out, "names": tf.constant(str(names))}

    assert_parity(program)


def _variable_report(tf):
    return {
        key: sorted(v.name for v in tf.get_collection(key))
        for key in ("variables", "trainable_variables", "model_variables")
    }


def test_linear_model_variable_names_and_collections():
    reports = []
    for tf in (tf1(), tfcompat):
        with tf.Graph().as_default():
            fc = tf.feature_column
            columns = [fc.numeric_column("price", shape=[2]), fc.numeric_column("age")]
            fc.linear_model(_features(tf), columns, weight_collections=["mine"])
            fc.linear_model(_features(tf), columns)  # a second model gets linear_model_1/...
            report = _variable_report(tf)
            report["mine"] = sorted(v.name for v in tf.get_collection("mine"))
            reports.append(report)
    assert reports[0] == reports[1]


# ---------------------------------------------------------------------------------------------
# Columns built on SparseTensor ops
# ---------------------------------------------------------------------------------------------
def _categorical(fc, kind):
    if kind == "hash":
        return fc.categorical_column_with_hash_bucket("words", 6)
    if kind == "vocab":
        return fc.categorical_column_with_vocabulary_list(
            "words", ["a", "b", "c"], num_oov_buckets=3
        )
    if kind == "identity":
        return fc.categorical_column_with_identity("ids", 6)
    if kind == "weighted":
        return fc.weighted_categorical_column(fc.categorical_column_with_identity("ids", 6), "w")
    return fc.bucketized_column(fc.numeric_column("price", shape=[2]), [0.0, 2.0])


KINDS = ["hash", "vocab", "identity", "weighted", "bucketized"]


@pytest.mark.parametrize("combiner", ["mean", "sqrtn", "sum"])
@pytest.mark.parametrize("kind", KINDS)
def test_input_layer_embedding_columns(kind, combiner):
    def program(tf):
        fc = tf.feature_column
        column = fc.embedding_column(
            _categorical(fc, kind), 3, combiner=combiner,
            initializer=tf.constant_initializer(TABLE),
        )  # fmt: skip
        return fc.input_layer(_features(tf), [column] + _dense_columns(fc))

    assert_parity(program, rtol=1e-5)


def test_embedding_max_norm_and_untrainable():
    def program(tf):
        fc = tf.feature_column
        column = fc.embedding_column(
            _categorical(fc, "identity"), 3, initializer=tf.constant_initializer(TABLE),
            max_norm=0.7, trainable=False,
        )  # fmt: skip
        out = fc.input_layer(_features(tf), [column])
        return {"out": out, "trainable": tf.constant(len(tf.trainable_variables()))}

    assert_parity(program, rtol=1e-5)


@pytest.mark.parametrize("kind", KINDS)
def test_input_layer_indicator_columns(kind):
    def program(tf):
        fc = tf.feature_column
        return fc.input_layer(_features(tf), [fc.indicator_column(_categorical(fc, kind))])

    assert_parity(program)


def test_shared_embedding_columns_share_one_table():
    def program(tf):
        fc = tf.feature_column
        # TF shares a table only between columns of one type.
        a = fc.categorical_column_with_identity("ids", 6)
        b = fc.categorical_column_with_identity("more_ids", 6)
        shared = fc.shared_embedding_columns([a, b], 3, initializer=tf.constant_initializer(TABLE))
        out = fc.input_layer(_features(tf), shared)
        return {"out": out, "vars": tf.constant(str([v.name for v in tf.global_variables()]))}

    assert_parity(program, rtol=1e-5)


@pytest.mark.parametrize("sparse_combiner", ["sum", "mean", "sqrtn"])
def test_linear_model_every_column_type(sparse_combiner):
    def program(tf):
        fc = tf.feature_column
        bucketized = _categorical(fc, "bucketized")
        columns = [_categorical(fc, k) for k in ("hash", "identity", "weighted")]
        columns[0] = fc.categorical_column_with_hash_bucket("words", 6)
        columns += [
            bucketized,
            fc.crossed_column(["words", bucketized], 20),
            fc.numeric_column("age"),
        ]
        out = fc.linear_model(_features(tf), columns, units=2, sparse_combiner=sparse_combiner)
        set_weights_off_zero(tf)
        return out

    assert_parity(program, rtol=1e-5)


@pytest.mark.parametrize("hash_key", [None, 123456789])
def test_crossed_ids(hash_key):
    from tests.feature_column.helpers import ids_of

    def program(tf):
        fc = tf.feature_column
        cross = fc.crossed_column(
            ["words", fc.categorical_column_with_identity("ids", 6),
             fc.bucketized_column(fc.numeric_column("age"), [18, 50])],
            1000, hash_key=hash_key,
        )  # fmt: skip
        return ids_of(tf, cross, _features(tf))

    assert_parity(program)


def test_embedding_gradient_is_indexed_slices_and_updates_touched_rows():
    with tfcompat.Graph().as_default():
        fc = tfcompat.feature_column
        column = fc.embedding_column(
            _categorical(fc, "identity"), 3, initializer=tfcompat.constant_initializer(TABLE)
        )
        out = fc.input_layer(_features(tfcompat), [column])
        (table,) = tfcompat.trainable_variables()
        (grad,) = tfcompat.gradients(tfcompat.reduce_sum(out), [table])
        assert isinstance(grad, tfcompat.IndexedSlices)
        step = tfcompat.train.GradientDescentOptimizer(0.5).minimize(tfcompat.reduce_sum(out))
        with tfcompat.Session() as sess:
            sess.run(tfcompat.global_variables_initializer())
            sess.run(step)
            after = sess.run(table)
    untouched = sorted(set(range(6)) - set(IDS[IDS >= 0].tolist()))
    np.testing.assert_array_equal(after[untouched], TABLE[untouched])
    assert not np.allclose(after[[0, 2, 3, 5]], TABLE[[0, 2, 3, 5]])


def test_shared_transformation_built_once():
    def count_bucketize(tf):
        with tf.Graph().as_default() as graph:
            fc = tf.feature_column
            bucketized = fc.bucketized_column(fc.numeric_column("age"), [18, 50])
            fc.input_layer(_features(tf), [bucketized, fc.embedding_column(bucketized, 2)])
            return sum(op.type == "Bucketize" for op in graph.get_operations())

    assert count_bucketize(tfcompat) == count_bucketize(tf1()) == 1
