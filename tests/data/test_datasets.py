"""``tf.data`` against TF 2.21: the same pipelines (sources, map / filter / flat_map /
interleave, batching and padding, repeat / take / skip / cache, zip / concatenate, file
datasets) give the same elements in the same order and end with OutOfRangeError; the
GraphDef nodes are TF's, and TF runs our GraphDef (its function library included)."""

import gzip

import numpy as np
import pytest

import tfcompat
from tests.oracle import tf1

VALUES = np.arange(10, dtype=np.float32)
IDS = np.arange(10, dtype=np.int64)


def drain(tf, build, limit=200):
    """Builds ``build(tf) -> (iterator, feed for its initializer or None)`` in a fresh graph
    and pulls elements until OutOfRangeError; returns (elements, graph)."""
    graph = tf.Graph()
    with graph.as_default():
        iterator, init_feed = build(tf)
        element = iterator.get_next()
        out = []
        with tf.Session() as sess:
            if init_feed is not None:
                sess.run(iterator.initializer, init_feed)
            for _ in range(limit):
                try:
                    out.append(sess.run(element))
                except tf.errors.OutOfRangeError:
                    break
            else:
                pytest.fail("the pipeline did not end")
    return out, graph


def assert_same_elements(ours, theirs):
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        _assert_same(a, b)


def _assert_same(a, b):
    if isinstance(b, dict):
        assert sorted(a) == sorted(b)
        for key in b:
            _assert_same(a[key], b[key])
    elif hasattr(b, "indices"):  # SparseTensorValue
        assert type(a).__name__ == type(b).__name__ == "SparseTensorValue"
        for field in ("indices", "values", "dense_shape"):
            _assert_same(getattr(a, field), getattr(b, field))
    elif isinstance(b, (tuple, list)):
        assert type(a) is type(b) and len(a) == len(b)
        for x, y in zip(a, b):
            _assert_same(x, y)
    else:
        a, b = np.asarray(a), np.asarray(b)
        assert a.dtype == b.dtype and a.shape == b.shape
        if a.dtype.kind in "OSUb":
            np.testing.assert_array_equal(a, b)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-6)


def one_shot(make):
    return lambda tf: (tf.data.make_one_shot_iterator(make(tf)), None)


PIPELINES = {
    "slices_map_filter_repeat_batch": lambda tf: (
        tf.data.Dataset.from_tensor_slices((VALUES, IDS))
        .map(lambda x, y: (x * 2.0, y + 1))
        .filter(lambda x, y: y > 2)
        .repeat(2)
        .batch(3)
    ),
    "range_batch_drop_take_skip": lambda tf: (
        tf.data.Dataset.range(3, 40, 3).skip(2).batch(4, drop_remainder=True).take(2).prefetch(1)
    ),
    "zip_concatenate_dict": lambda tf: (
        tf.data.Dataset.zip(
            (tf.data.Dataset.range(4), tf.data.Dataset.from_tensor_slices(VALUES[:6]))
        )
        .concatenate(tf.data.Dataset.from_tensors((np.int64(-1), np.float32(-1.0))))
        .map(lambda i, v: {"i": i, "v": v, "both": tf.cast(i, tf.float32) + v})
    ),
    "padded_batch": lambda tf: (
        tf.data.Dataset.range(1, 7)
        .map(lambda n: (tf.range(n), tf.fill([2, n], tf.cast(n, tf.float32))))
        .padded_batch(3, padded_shapes=([None], [2, 8]), padding_values=(np.int64(-1), 0.5))
    ),
    "padded_batch_defaults_drop": lambda tf: (
        tf.data.Dataset.range(1, 8)
        .map(lambda n: tf.as_string(tf.range(n)))
        .padded_batch(2, padded_shapes=[None], drop_remainder=True)
    ),
    "unbatch": lambda tf: (
        tf.data.Dataset.from_tensors(np.arange(12).reshape(3, 4)).unbatch().batch(2)
    ),
    "flat_map": lambda tf: tf.data.Dataset.range(4).flat_map(
        lambda n: tf.data.Dataset.from_tensor_slices(tf.range(n) * 10)
    ),
    "interleave": lambda tf: tf.data.Dataset.range(1, 5).interleave(
        lambda n: tf.data.Dataset.from_tensors(n).repeat(n), cycle_length=2, block_length=2
    ),
    "enumerate_cache_repeat": lambda tf: (
        tf.data.Dataset.from_tensor_slices(VALUES[:3])
        .map(lambda v: v + 1.0)
        .cache()
        .repeat(3)
        .enumerate(5)
    ),
    "strings": lambda tf: (
        tf.data.Dataset.from_tensor_slices(np.array([b"a b", b"", b"c"]))
        .map(lambda s: (s, tf.strings.length(s)))
        .batch(2)
    ),
    "empty_repeat_forever": lambda tf: tf.data.Dataset.range(0).repeat(),
    "lists_are_tensors": lambda tf: tf.data.Dataset.from_tensor_slices(
        (["a.txt", "b.txt", "c.txt"], [[1, 2], [3, 4], [5, 6]])
    ).map(lambda name, pair: {"name": name, "pair": [pair[1], pair[0]]}),
    "py_func_in_map": lambda tf: tf.data.Dataset.from_tensor_slices(np.array([b"a", b"bc"])).map(
        lambda s: tf.py_func(lambda v: v.upper() + b"!", [s], tf.string)
    ),
    "control_flow_in_map": lambda tf: (
        tf.data.Dataset.range(6)
        .map(lambda i: tf.cond(i > 2, lambda: i * 10, lambda: -i))
        .map(
            lambda v: (
                v,
                tf.while_loop(
                    lambda k, a: k < 3,
                    lambda k, a: (k + 1, a + v),
                    [tf.constant(0, tf.int64), tf.constant(0, tf.int64)],
                )[1],
            )
        )
    ),
    # SparseTensor slices: rows serialized by SerializeManySparse, one rank less each
    "sparse_slices_batch": lambda tf: (
        tf.data.Dataset.from_tensor_slices(
            (
                tf.SparseTensor([[0, 0], [2, 1], [2, 2]], [1.0, 2.0, 3.0], [3, 4]),
                tf.constant([5, 6, 7]),
            )
        )
        .map(lambda sp, n: (sp, n * 2))
        .batch(2)
    ),
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_pipeline_elements_match_tf(name):
    build = one_shot(PIPELINES[name])
    ours, _ = drain(tfcompat, build)
    theirs, _ = drain(tf1(), build)
    assert_same_elements(ours, theirs)


def _nodes(graph):
    return [(n.name, n.op, list(n.input)) for n in graph.as_graph_def().node]


@pytest.mark.parametrize(
    "name",
    [
        "slices_map_filter_repeat_batch",
        "range_batch_drop_take_skip",
        "zip_concatenate_dict",
        "sparse_slices_batch",
    ],
)
def test_graph_def_nodes_match_tf(name):
    build = one_shot(PIPELINES[name])
    _, ours = drain(tfcompat, build)
    _, theirs = drain(tf1(), build)
    assert _nodes(ours) == _nodes(theirs)
    ours_def, theirs_def = ours.as_graph_def(), theirs.as_graph_def()
    for a, b in zip(ours_def.node, theirs_def.node):
        for key in ("output_types", "Toutput_types", "output_shapes", "N", "Targuments"):
            if key in b.attr:
                assert a.attr[key].SerializeToString() == b.attr[key].SerializeToString(), (
                    a.name,
                    key,
                )

    # The same library functions (TF numbers its names differently), each with TF's
    # argument and result types.
    def signatures(graph_def):
        return sorted(
            (
                [a.type for a in f.signature.input_arg],
                [a.type for a in f.signature.output_arg],
                sorted(n.op for n in f.node_def),
            )
            for f in graph_def.library.function
        )

    assert signatures(ours_def) == signatures(theirs_def)


@pytest.mark.parametrize(
    "name", ["slices_map_filter_repeat_batch", "control_flow_in_map", "zip_concatenate_dict"]
)
def test_tensorflow_runs_our_graph_def(name):
    """Our GraphDef, its function library included (v1 control flow in a map function
    too), imports and runs in TF 2.21."""
    ours, graph = drain(tfcompat, one_shot(PIPELINES[name]))
    tf = tf1()
    from tensorflow.core.framework import graph_pb2

    graph_def = graph_pb2.GraphDef.FromString(graph.as_graph_def().SerializeToString())
    get_next = graph.get_operation_by_name("IteratorGetNext")
    fetches = [f"IteratorGetNext:{i}" for i in range(len(get_next.outputs))]
    with tf.Graph().as_default():
        tf.import_graph_def(graph_def, name="")
        with tf.Session() as sess:
            theirs = [sess.run(fetches) for _ in ours]
    assert_same_elements([_flat(e) for e in ours], [list(map(np.asarray, e)) for e in theirs])


def test_initializable_iterator_with_fed_capture_and_reinitialization_match_tf():
    def run(tf):
        with tf.Graph().as_default():
            limit = tf.placeholder(tf.int64, [])
            scale = tf.placeholder(tf.float32, [])
            ds = tf.data.Dataset.range(limit).map(lambda i: tf.cast(i, tf.float32) * scale)
            it = ds.make_initializable_iterator()
            x = it.get_next()
            out = []
            with tf.Session() as sess:
                for feed in ({limit: 3, scale: 2.0}, {limit: 2, scale: -1.0}):
                    sess.run(it.initializer, feed)
                    while True:
                        try:
                            out.append(sess.run(x))
                        except tf.errors.OutOfRangeError:
                            break
            return out

    assert run(tfcompat) == run(tf1()) == [0.0, 2.0, 4.0, 0.0, -1.0]


def test_reinitializable_and_feedable_iterators_match_tf():
    def run(tf):
        with tf.Graph().as_default():
            train = tf.data.Dataset.range(100).map(lambda i: i * 2)
            valid = tf.data.Dataset.range(3).map(lambda i: -i)
            shared = tf.data.Iterator.from_structure(train.output_types, train.output_shapes)
            use_train, use_valid = shared.make_initializer(train), shared.make_initializer(valid)
            x = shared.get_next()
            handle = tf.placeholder(tf.string, [])
            feedable = tf.data.Iterator.from_string_handle(
                handle, train.output_types, train.output_shapes
            )
            y = feedable.get_next()
            train_it = train.make_one_shot_iterator()
            valid_it = valid.make_initializable_iterator()
            out = []
            with tf.Session() as sess:
                sess.run(use_train)
                out += [sess.run(x), sess.run(x)]
                sess.run(use_valid)
                out += [sess.run(x) for _ in range(3)]
                train_handle, valid_handle = sess.run(
                    [train_it.string_handle(), valid_it.string_handle()]
                )
                sess.run(valid_it.initializer)
                out += [sess.run(y, {handle: train_handle}), sess.run(y, {handle: valid_handle})]
                out += [sess.run(y, {handle: train_handle}), sess.run(y, {handle: valid_handle})]
            return [int(v) for v in out]

    assert run(tfcompat) == run(tf1()) == [0, 2, 0, -1, -2, 0, 0, 2, -1]


def _write_records(path, records, compression=None):
    tf = tfcompat
    options = tf.io.TFRecordOptions(compression) if compression else None
    with tf.io.TFRecordWriter(str(path), options) as writer:
        for record in records:
            writer.write(record)


def _examples(count, offset=0):
    tf = tfcompat
    out = []
    for i in range(offset, offset + count):
        feature = {
            "x": tf.train.Feature(float_list=tf.train.FloatList(value=[i * 0.5, -i])),
            "tags": tf.train.Feature(
                bytes_list=tf.train.BytesList(value=[b"t%d" % j for j in range(i % 3)])
            ),
            "label": tf.train.Feature(int64_list=tf.train.Int64List(value=[i % 2])),
        }
        example = tf.train.Example(features=tf.train.Features(feature=feature))
        out.append(example.SerializeToString())
    return out


def test_tf_record_files_parsed_in_batches_match_tf(tmp_path):
    """The feature-column era's pipeline: TFRecord files, batched, parsed by parse_example
    in a map (VarLen features come out as SparseTensors), two files read in turn or
    interleaved record by record."""
    files = [tmp_path / "a.tfrecord", tmp_path / "b.tfrecord.gz"]
    _write_records(files[0], _examples(5))
    _write_records(files[1], _examples(4, offset=5), "GZIP")

    def parse(tf, serialized):
        spec = {
            "x": tf.FixedLenFeature([2], tf.float32),
            "tags": tf.VarLenFeature(tf.string),
            "label": tf.FixedLenFeature([], tf.int64),
        }
        return tf.parse_example(serialized, spec)

    for parallel in (None, 2):

        def build(tf, parallel=parallel):
            plain = tf.data.TFRecordDataset([str(files[0])], num_parallel_reads=parallel)
            zipped = tf.data.TFRecordDataset(str(files[1]), "GZIP", num_parallel_reads=parallel)
            ds = plain.concatenate(zipped).batch(4).map(lambda s: parse(tf, s))
            return tf.data.make_one_shot_iterator(ds), None

        ours, _ = drain(tfcompat, build)
        theirs, _ = drain(tf1(), build)
        assert_same_elements(ours, theirs)
        assert [len(e["label"]) for e in ours] == [4, 4, 1]


def test_text_lines_interleaved_match_tf(tmp_path):
    paths = []
    for i, lines in enumerate([b"a1\na2\na3\n", b"b1\r\nb2", b""]):
        path = tmp_path / f"f{i}.txt"
        path.write_bytes(lines)
        paths.append(str(path))
    gz = tmp_path / "z.txt.gz"
    gz.write_bytes(gzip.compress(b"z1\nz2\n"))

    def build(tf):
        ds = tf.data.TextLineDataset(paths, num_parallel_reads=2).concatenate(
            tf.data.TextLineDataset(str(gz), compression_type="GZIP")
        )
        return tf.data.make_one_shot_iterator(ds), None

    ours, _ = drain(tfcompat, build)
    theirs, _ = drain(tf1(), build)
    assert_same_elements(ours, theirs)


def test_training_from_an_iterator_matches_tf():
    """A TF1 training loop that pulls its batches from a dataset (no feed_dict)."""
    rng = np.random.default_rng(0)
    features = rng.normal(size=(40, 3)).astype(np.float32)
    targets = features @ np.array([[1.0], [-2.0], [0.5]], np.float32) + 0.1

    def run(tf):
        with tf.Graph().as_default():
            ds = tf.data.Dataset.from_tensor_slices((features, targets)).batch(8).repeat(3)
            x, y = ds.make_one_shot_iterator().get_next()
            w = tf.Variable(np.zeros((3, 1), np.float32))
            loss = tf.reduce_mean(tf.square(tf.matmul(x, w) - y))
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
            losses = []
            with tf.Session() as sess:
                sess.run(tf.global_variables_initializer())
                while True:
                    try:
                        losses.append(sess.run([train, loss])[1])
                    except tf.errors.OutOfRangeError:
                        break
                return np.array(losses), sess.run(w)

    ours, theirs = run(tfcompat), run(tf1())
    assert len(ours[0]) == 15
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-5)


@pytest.mark.parametrize(
    "name",
    [
        "slices_map_filter_repeat_batch",
        "zip_concatenate_dict",
        "interleave",
        "padded_batch",
        "strings",
    ],
)
def test_tensorflow_graph_defs_import_and_run_here(name):
    """TF's GraphDef of a pipeline (TF's function library: its map functions and one-shot
    dataset factory) imports into tfcompat and gives TF's elements."""
    theirs, graph = drain(tf1(), one_shot(PIPELINES[name]))
    get_next = [n.name for n in graph.as_graph_def().node if n.op == "IteratorGetNext"][0]
    outputs = len(graph.get_operation_by_name(get_next).outputs)
    with tfcompat.Graph().as_default():
        tfcompat.import_graph_def(graph.as_graph_def().SerializeToString(), name="")
        fetches = [f"{get_next}:{i}" for i in range(outputs)]
        with tfcompat.Session() as sess:
            ours = [sess.run(fetches) for _ in theirs]
            with pytest.raises(tfcompat.errors.OutOfRangeError):
                sess.run(fetches)
    assert_same_elements([list(map(np.asarray, e)) for e in ours], [_flat(e) for e in theirs])


def _flat(element):
    """An element's components in the order of the iterator's outputs (dict keys sorted)."""
    if isinstance(element, dict):
        return [np.asarray(element[key]) for key in sorted(element)]
    if isinstance(element, tuple):
        return [np.asarray(v) for v in element]
    return [np.asarray(element)]


def _generator(n):
    for i in range(n):
        yield {"x": np.arange(i, dtype=np.float32), "i": i}, [b"a"] * (i % 2)


def test_from_generator_matches_tf():
    def make(tf):
        types = ({"x": tf.float32, "i": tf.int64}, tf.string)
        shapes = ({"x": tf.TensorShape([None]), "i": tf.TensorShape([])}, tf.TensorShape([None]))
        return (
            tf.data.Dataset.from_generator(_generator, types, shapes, args=(4,))
            .repeat(2)
            .map(lambda d, s: (d["x"] * 2.0, d["i"], s))
        )

    ours, graph = drain(tfcompat, one_shot(make))
    theirs, their_graph = drain(tf1(), one_shot(make))
    assert len(ours) == 8
    assert_same_elements(ours, theirs)
    assert _nodes(graph) == _nodes(their_graph)


@pytest.mark.parametrize(
    "bad, error",
    [
        (lambda: iter([(np.zeros(3, np.float32), 1)]), "yielded an element of shape (3,)"),
        (lambda: iter([np.zeros(2, np.float32)]), "did not match the expected structure"),
    ],
)
def test_from_generator_bad_elements_fail_as_in_tf(bad, error):
    def make(tf):
        shapes = (tf.TensorShape([2]), tf.TensorShape([]))
        return tf.data.Dataset.from_generator(bad, (tf.float32, tf.int64), shapes)

    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            element = make(tf).make_one_shot_iterator().get_next()
            with tf.Session() as sess:
                with pytest.raises(
                    tf.errors.InvalidArgumentError,
                    match=error.replace("(", r"\(").replace(")", r"\)"),
                ):
                    sess.run(element)


def test_list_files_matches_tf(tmp_path):
    for name in ("b.txt", "a.txt", "c.csv"):
        (tmp_path / name).write_bytes(b"x")
    pattern = str(tmp_path / "*.txt")

    def make(tf):
        return tf.data.Dataset.list_files(pattern, shuffle=False)

    ours, graph = drain(tfcompat, one_shot(make))
    theirs, their_graph = drain(tf1(), one_shot(make))
    assert_same_elements(ours, theirs)
    assert _nodes(graph) == _nodes(their_graph)
    shuffled, _ = drain(tfcompat, one_shot(lambda tf: tf.data.Dataset.list_files(pattern, seed=1)))
    assert sorted(shuffled) == ours

    # No match: the assertion fails the initializer; a one-shot iterator, whose dataset is
    # copied without control dependencies in TF, just ends.
    missing = str(tmp_path / "*.none")
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            dataset = tf.data.Dataset.list_files(missing)
            iterator = dataset.make_initializable_iterator()
            one_shot_element = dataset.make_one_shot_iterator().get_next()
            with tf.Session() as sess:
                with pytest.raises(tf.errors.InvalidArgumentError, match="No files matched"):
                    sess.run(iterator.initializer)
                with pytest.raises(tf.errors.OutOfRangeError):
                    sess.run(one_shot_element)


def test_feature_columns_trained_from_tf_record_dataset_match_tf(tmp_path):
    """Issue 5's pipeline the tf.data way: TFRecord files of Examples, batched and parsed
    in a map, into input_layer / linear_model over hashed and vocabulary columns, trained
    with Adagrad; the same losses as TF 2.21."""
    path = tmp_path / "train.tfrecord"
    _write_records(path, _examples(24))

    def run(tf):
        with tf.Graph().as_default():
            spec = {
                "x": tf.FixedLenFeature([2], tf.float32),
                "tags": tf.VarLenFeature(tf.string),
                "label": tf.FixedLenFeature([], tf.int64),
            }
            ds = tf.data.TFRecordDataset(str(path)).batch(8)
            ds = ds.map(lambda s: tf.parse_example(s, spec))
            features = ds.repeat(2).make_one_shot_iterator().get_next()
            tags = tf.feature_column.categorical_column_with_hash_bucket("tags", 10)
            vocab = tf.feature_column.categorical_column_with_vocabulary_list(
                "tags", ["t0", "t1"], num_oov_buckets=1
            )
            init = tf.constant_initializer(np.linspace(-0.5, 0.5, 4 * 10).reshape(10, 4))
            deep = tf.feature_column.input_layer(
                features,
                [
                    tf.feature_column.numeric_column("x", shape=[2]),
                    tf.feature_column.embedding_column(tags, 4, initializer=init),
                ],
            )
            wide = tf.feature_column.linear_model(features, [vocab])
            w = tf.Variable(np.full((6, 1), 0.1, np.float32))
            logits = tf.matmul(deep, w) + wide
            labels = tf.cast(tf.reshape(features["label"], [-1, 1]), tf.float32)
            loss = tf.reduce_mean(
                tf.nn.sigmoid_cross_entropy_with_logits(labels=labels, logits=logits)
            )
            train = tf.train.AdagradOptimizer(0.5).minimize(loss)
            losses = []
            with tf.Session() as sess:
                sess.run([tf.global_variables_initializer(), tf.tables_initializer()])
                while True:
                    try:
                        losses.append(sess.run([train, loss])[1])
                    except tf.errors.OutOfRangeError:
                        return np.array(losses)

    ours, theirs = run(tfcompat), run(tf1())
    assert len(ours) == 6
    np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-6)


def test_random_ops_in_a_map_draw_per_element():
    tf = tfcompat
    ds = tf.data.Dataset.range(4).map(lambda i: tf.random_uniform([3], seed=1))
    element = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        draws = np.array([sess.run(element) for _ in range(4)])
    assert ((draws >= 0) & (draws < 1)).all()
    assert len({tuple(d) for d in draws}) == 4


def _sequences(tf):
    lengths = tf.data.Dataset.from_tensor_slices(
        np.array([3, 1, 7, 2, 5, 8, 1, 4, 6, 2, 9], np.int64)
    )
    return lengths.map(lambda n: (tf.range(n) + 1, n * 10))


EXPERIMENTAL = {
    "group_by_window": lambda tf: tf.data.Dataset.range(10).apply(
        tf.data.experimental.group_by_window(
            lambda x: x % 3, lambda key, window: window.batch(2).map(lambda b: b + key * 100), 2
        )
    ),
    "group_by_window_size_func": lambda tf: tf.data.Dataset.range(13).apply(
        tf.data.experimental.group_by_window(
            lambda x: x % 2, lambda key, window: window.batch(5), window_size_func=lambda k: k + 2
        )
    ),
    "bucket_by_sequence_length": lambda tf: _sequences(tf).apply(
        tf.data.experimental.bucket_by_sequence_length(
            lambda seq, _: tf.shape(seq)[0], [3, 6], [2, 2, 3]
        )
    ),
    "bucket_to_boundary_dropping": lambda tf: _sequences(tf).apply(
        tf.data.experimental.bucket_by_sequence_length(
            lambda seq, _: tf.shape(seq)[0],
            [4, 10],
            [2, 2, 2],
            padding_values=(np.int64(-1), np.int64(0)),
            pad_to_bucket_boundary=True,
            drop_remainder=True,
        )
    ),
    "bucket_no_padding": lambda tf: tf.data.Dataset.range(12).apply(
        tf.data.experimental.bucket_by_sequence_length(
            lambda x: tf.cast(x, tf.int32), [4, 8], [3, 2, 4], no_padding=True
        )
    ),
    "map_and_batch": lambda tf: tf.data.Dataset.range(10).apply(
        tf.data.experimental.map_and_batch(lambda x: (x * 2, tf.as_string(x)), 3)
    ),
    "map_and_batch_drop": lambda tf: tf.data.Dataset.range(10).apply(
        tf.data.experimental.map_and_batch(lambda x: x * 2, 4, drop_remainder=True)
    ),
    "parallel_interleave": lambda tf: tf.data.Dataset.range(5).apply(
        tf.data.experimental.parallel_interleave(
            lambda x: tf.data.Dataset.from_tensors(x).repeat(x % 3 + 1), cycle_length=2
        )
    ),
    "ignore_errors": lambda tf: (
        tf.data.Dataset.from_tensor_slices(np.array([b"1", b"x", b"3", b"", b"5"]))
        .map(lambda s: tf.strings.to_number(s, tf.int32))
        .apply(tf.data.experimental.ignore_errors())
    ),
    "take_while": lambda tf: tf.data.Dataset.range(10).apply(
        tf.data.experimental.take_while(lambda x: x * x < 20)
    ),
    "unbatch_enumerate": lambda tf: (
        tf.data.Dataset.range(6)
        .batch(4)
        .apply(tf.data.experimental.unbatch())
        .apply(tf.data.experimental.enumerate_dataset(10))
    ),
}


@pytest.mark.parametrize("name", sorted(EXPERIMENTAL))
def test_experimental_transformations_match_tf(name):
    build = one_shot(EXPERIMENTAL[name])
    ours, graph = drain(tfcompat, build)
    theirs, their_graph = drain(tf1(), build)
    assert_same_elements(ours, theirs)
    # TF adds a normalizing map to these; the others' nodes are TF's.
    if name not in ("unbatch_enumerate", "ignore_errors") and not name.startswith(
        ("group_by", "bucket")
    ):
        assert _nodes(graph) == _nodes(their_graph)
        for a, b in zip(graph.as_graph_def().node, their_graph.as_graph_def().node):
            for key in ("deterministic", "output_types", "output_shapes", "value"):
                if key in b.attr:
                    assert a.attr[key].SerializeToString() == b.attr[key].SerializeToString()


def test_shuffle_and_repeat_reshuffles_each_repetition():
    tf = tfcompat
    ds = tf.data.Dataset.range(20).apply(tf.data.experimental.shuffle_and_repeat(20, 3, seed=4))
    element = ds.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        values = [sess.run(element) for _ in range(60)]
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(element)
    epochs = [values[i : i + 20] for i in (0, 20, 40)]
    assert all(sorted(e) == list(range(20)) for e in epochs)
    assert epochs[0] != epochs[1] != epochs[2]


def test_get_single_element_matches_tf():
    def run(tf, dataset_fn):
        with tf.Graph().as_default():
            value = tf.data.experimental.get_single_element(dataset_fn(tf))
            with tf.Session() as sess:
                try:
                    return sess.run(value)
                except tf.errors.InvalidArgumentError as e:
                    return ("InvalidArgumentError", e.message)

    cases = [
        lambda tf: tf.data.Dataset.range(5).batch(5).map(lambda x: {"x": x, "y": -x}),
        lambda tf: tf.data.Dataset.range(0),
        lambda tf: tf.data.Dataset.range(2),
    ]
    for case in cases:
        ours, theirs = run(tfcompat, case), run(tf1(), case)
        if isinstance(theirs, dict):
            _assert_same(ours, theirs)
        else:
            assert ours[0] == theirs[0]
            assert ours[1].split("\n")[0] in theirs[1]


@pytest.mark.parametrize("batch, drop", [(4, False), (3, True), (1, False)])
def test_per_record_parsing_batched_matches_tf(tmp_path, batch, drop):
    """map(parse_single_example).batch(n): one batched parse call per batch here (its body
    is recognised), the per-record results stacked in TF; the same batches either way."""
    path = tmp_path / "records.tfrecord"
    _write_records(path, _examples(10))

    def make(tf):
        spec = {
            "x": tf.FixedLenFeature([2], tf.float32),
            "tags": tf.VarLenFeature(tf.string),
            "label": tf.FixedLenFeature([], tf.int64),
            "missing": tf.FixedLenFeature([], tf.int64, default_value=-7),
        }
        return (
            tf.data.TFRecordDataset(str(path))
            .map(lambda r: tf.parse_single_example(r, spec))
            .batch(batch, drop_remainder=drop)
        )

    ours, _ = drain(tfcompat, one_shot(make))
    theirs, _ = drain(tf1(), one_shot(make))
    assert_same_elements(ours, theirs)


def test_per_record_functions_beyond_parsing_run_per_element(tmp_path):
    path = tmp_path / "records.tfrecord"
    _write_records(path, _examples(6))

    def make(tf):
        spec = {"x": tf.FixedLenFeature([2], tf.float32), "label": tf.FixedLenFeature([], tf.int64)}

        def parse(record):
            features = tf.parse_single_example(record, spec)
            return features["x"] * 2.0, features["label"] + 1

        return tf.data.TFRecordDataset(str(path)).map(parse).batch(4)

    ours, _ = drain(tfcompat, one_shot(make))
    theirs, _ = drain(tf1(), one_shot(make))
    assert_same_elements(ours, theirs)


def test_malformed_record_in_a_batched_parse_is_invalid_argument(tmp_path):
    path = tmp_path / "records.tfrecord"
    _write_records(path, _examples(2) + [b"\x0a\x05oops"])  # a truncated Features field

    def make(tf):
        spec = {"label": tf.FixedLenFeature([], tf.int64)}
        return (
            tf.data.TFRecordDataset(str(path))
            .map(lambda r: tf.parse_single_example(r, spec))
            .batch(3)
            .make_one_shot_iterator()
        )

    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            element = make(tf).get_next()
            with tf.Session() as sess:
                with pytest.raises(tf.errors.InvalidArgumentError):
                    sess.run(element)


def test_prefetch_keeps_order_errors_and_restarts():
    tf = tfcompat
    values = np.array([b"1", b"2", b"x", b"4"])
    ds = (
        tf.data.Dataset.from_tensor_slices(values)
        .map(lambda s: tf.strings.to_number(s, tf.int32))
        .prefetch(2)
    )
    iterator = ds.make_initializable_iterator()
    element = iterator.get_next()
    with tf.Session() as sess:
        for _ in range(2):  # the second pass starts over while the first one's thread waits
            sess.run(iterator.initializer)
            assert [sess.run(element) for _ in range(2)] == [1, 2]
        with pytest.raises(tf.errors.InvalidArgumentError):
            sess.run(element)
    many = tf.data.Dataset.range(200).prefetch(tf.data.experimental.AUTOTUNE)
    element = many.make_one_shot_iterator().get_next()
    with tf.Session() as sess:
        assert [sess.run(element) for _ in range(200)] == list(range(200))
        with pytest.raises(tf.errors.OutOfRangeError):
            sess.run(element)


def test_monitored_session_stops_at_the_end_of_a_dataset_as_in_tf():
    def run(tf):
        with tf.Graph().as_default():
            element = tf.data.Dataset.range(7).batch(2).make_one_shot_iterator().get_next()
            step = tf.assign_add(tf.train.get_or_create_global_step(), 1)
            out = []
            with tf.train.MonitoredTrainingSession() as sess:
                while not sess.should_stop():
                    out.append(sess.run([element, step])[0].tolist())
            return out

    assert run(tfcompat) == run(tf1()) == [[0, 1], [2, 3], [4, 5], [6]]
