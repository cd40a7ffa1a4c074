"""SparseTensors through TF1 batch queues, against TF 2.21: VarLenFeatures parsed from
records one by one and batched (tf.train.batch), a minibatch enqueued whole
(enqueue_many, AddManySparseToTensorsMap), and batch_join's shared maps: the same batched
SparseTensors and the same GraphDef (SparseTensorsMap ops, handles, Identity guards)."""

import numpy as np

import tfcompat
from tests.input.pipelines import run_pipeline
from tests.oracle import tf1

RECORDS = [[1, 2, 3], [], [4], [5, 6], [7, 8, 9, 10]]


def _serialized(tf):
    examples = []
    for i, ids in enumerate(RECORDS):
        example = tf.train.Example(
            features=tf.train.Features(
                feature={
                    "ids": tf.train.Feature(int64_list=tf.train.Int64List(value=ids)),
                    "label": tf.train.Feature(float_list=tf.train.FloatList(value=[i])),
                }
            )
        )
        examples.append(example.SerializeToString())
    return examples


def _parsed_record_batches(tf):
    queue = tf.train.string_input_producer(_serialized(tf), num_epochs=1, shuffle=False)
    serialized = queue.dequeue()
    features = tf.parse_single_example(
        serialized,
        {"ids": tf.VarLenFeature(tf.int64), "label": tf.FixedLenFeature([], tf.float32)},
    )
    batch = tf.train.batch(features, batch_size=2, allow_smaller_final_batch=True)
    ids = batch["ids"]
    return [ids.indices, ids.values, ids.dense_shape, batch["label"]]


def _assert_same(build):
    ours, our_nodes = run_pipeline(tfcompat, build)
    theirs, their_nodes = run_pipeline(tf1(), build)
    assert len(ours) == len(theirs) > 0
    for a, b in zip(ours, theirs):
        for x, y in zip(a, b):
            x, y = np.asarray(x), np.asarray(y)
            assert x.dtype == y.dtype and x.shape == y.shape
            np.testing.assert_array_equal(x, y)
    assert {n: v[:2] for n, v in our_nodes.items()} == {n: v[:2] for n, v in their_nodes.items()}
    return ours


def test_var_len_features_batched_through_a_queue_match_tf():
    batches = _assert_same(_parsed_record_batches)
    assert [b[2].tolist() for b in batches] == [[2, 3], [2, 2], [1, 4]]


def test_sparse_minibatch_enqueued_whole_matches_tf():
    def build(tf):
        sparse = tf.SparseTensor(
            indices=[[0, 0], [0, 2], [2, 1], [3, 0], [3, 3]],
            values=[1.5, 2.5, 3.5, 4.5, 5.5],
            dense_shape=[4, 5],
        )
        dense = tf.constant([10, 11, 12, 13])
        queue = tf.train.range_input_producer(1, num_epochs=1, shuffle=False)
        with tf.control_dependencies([queue.dequeue()]):
            dense = tf.identity(dense)
        batch = tf.train.batch([sparse, dense], batch_size=3, enqueue_many=True,
                               allow_smaller_final_batch=True)  # fmt: skip
        return [batch[0].indices, batch[0].values, batch[0].dense_shape, batch[1]]

    batches = _assert_same(build)
    assert [b[3].tolist() for b in batches] == [[10, 11, 12], [13]]


def test_batch_join_shares_one_sparse_map_like_tf():
    def build(tf):
        lists = []
        for k in range(2):
            queue = tf.train.range_input_producer(3, num_epochs=1, shuffle=False,
                                                  name=f"producer{k}")  # fmt: skip
            i = queue.dequeue()
            sparse = tf.SparseTensor(
                indices=tf.reshape(tf.cast(i, tf.int64), [1, 1]),
                values=tf.reshape(tf.cast(i + 10 * k, tf.int32), [1]),
                dense_shape=tf.constant([3], tf.int64),
            )
            lists.append([sparse, i + 10 * k])
        batch = tf.train.batch_join(lists, batch_size=6)
        return [batch[0].indices, batch[0].values, batch[0].dense_shape, batch[1]]

    results = {}
    for tf in (tfcompat, tf1()):
        out, nodes = run_pipeline(tf, build)
        ((indices, values, shape, dense),) = out
        # threads interleave: compare per element (the dense value names its sparse one)
        rows = sorted(
            (int(d), tuple(indices[indices[:, 0] == r, 1]), tuple(values[indices[:, 0] == r]))
            for r, d in enumerate(dense)
        )
        results[tf] = (rows, shape.tolist(), {n: v[:2] for n, v in nodes.items()})
    ours, theirs = results.values()
    assert ours == theirs
    assert ours[1] == [6, 3]
