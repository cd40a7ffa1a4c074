"""SparseTensors and keep_input through TF1 batch queues, against TF 2.21: VarLenFeatures
parsed from records one by one and batched (tf.train.batch), a minibatch enqueued whole
(enqueue_many, AddManySparseToTensorsMap), batch_join's shared maps, and the maybe_*
batchers (a cond around the enqueue, dynamic_partition for a keep vector): the same
batches and the same GraphDef."""

import numpy as np

import tfcompat
from tests.input.pipelines import assert_same_pipeline as _assert_same
from tests.input.pipelines import run_pipeline
from tests.oracle import tf1

RECORDS = [[1, 2, 3], [], [4], [5, 6], [7, 8, 9, 10]]
DATA = np.arange(20, dtype=np.float32).reshape(10, 2)
LABELS = np.arange(10, dtype=np.int64)


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


def test_maybe_batch_keeps_selected_elements_like_tf():
    # A scalar keep_input: a cond around the enqueue (and around storing a SparseTensor).
    def build(tf):
        x, y = tf.train.slice_input_producer([DATA, LABELS], num_epochs=1, shuffle=False)
        sparse = tf.SparseTensor(
            indices=tf.constant([[0]], tf.int64),
            values=tf.reshape(y, [1]),
            dense_shape=tf.constant([2], tf.int64),
        )
        keep = tf.equal(y % 3, 0)
        bx, by, bs = tf.train.maybe_batch([x, y, sparse], keep, batch_size=2,
                                          allow_smaller_final_batch=True)  # fmt: skip
        return [bx, by, bs.indices, bs.values, bs.dense_shape]

    batches = _assert_same(build)
    assert [b[1].tolist() for b in batches] == [[0, 3], [6, 9]]


def test_maybe_batch_with_a_keep_vector_enqueues_selected_rows_like_tf():
    def build(tf):
        queue = tf.train.range_input_producer(1, num_epochs=1, shuffle=False)
        with tf.control_dependencies([queue.dequeue()]):
            x = tf.identity(tf.constant(DATA))
        keep = tf.constant([True, False] * 5)
        sparse = tf.SparseTensor(
            indices=[[0, 0], [1, 0], [4, 1], [9, 0]], values=[1, 2, 3, 4], dense_shape=[10, 2]
        )
        bx, bs = tf.train.maybe_batch([x, sparse], keep, batch_size=4, enqueue_many=True,
                                      allow_smaller_final_batch=True)  # fmt: skip
        return [bx, bs.indices, bs.values, bs.dense_shape]

    batches = _assert_same(build)
    assert [len(b[0]) for b in batches] == [4, 1]


def test_maybe_shuffle_batch_graph_def_matches_tf():
    def build(tf):
        x, y = tf.train.slice_input_producer([DATA, LABELS], num_epochs=1, shuffle=False)
        bx, by = tf.train.maybe_shuffle_batch([x, y], 3, capacity=20, min_after_dequeue=1,
                                              keep_input=y < 5, seed=1,
                                              allow_smaller_final_batch=True)  # fmt: skip
        return [by]

    outputs = {}
    for tf in (tfcompat, tf1()):
        out, nodes = run_pipeline(tf, build)
        outputs[tf] = (sorted(np.concatenate([b[0] for b in out]).tolist()), nodes)
    (ours, our_nodes), (theirs, their_nodes) = outputs.values()
    assert ours == theirs == [0, 1, 2, 3, 4]
    assert {n: v[:2] for n, v in our_nodes.items()} == {n: v[:2] for n, v in their_nodes.items()}
