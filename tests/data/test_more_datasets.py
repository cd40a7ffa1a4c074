"""The more ``tf.data`` transformations against TF 2.21: ``shard``, ``reduce``, ``window``,
``scan``, ``take_while``, ``unique``, ``ignore_errors``, ``get_single_element``,
``element_spec``, ``cardinality``, ``from_sparse_tensor_slices``, ``counter``, ``random``,
``choose_from_datasets`` and ``sample_from_datasets``: the same elements (statistics for the
random ones), TF's errors, and the GraphDefs' dataset ops."""

import numpy as np
import pytest

import tfcompat
from tests.data.test_datasets import assert_same_elements, drain, one_shot
from tests.oracle import assert_parity, tf1


def _both(make, limit=200):
    ours, _ = drain(tfcompat, one_shot(make), limit)
    theirs, _ = drain(tf1(), one_shot(make), limit)
    assert len(theirs) > 0
    assert_same_elements(ours, theirs)
    return ours


PIPELINES = {
    "shard": lambda tf: tf.data.Dataset.range(11).shard(3, 1),
    "shard_tuple_tensor_args": lambda tf: tf.data.Dataset.from_tensor_slices(
        (np.arange(7.0, dtype=np.float32), np.arange(7))
    ).shard(tf.constant(2, tf.int64), tf.constant(0, tf.int64)),
    "window_flat_map_batch": lambda tf: (
        tf.data.Dataset.range(10).window(3, 2, 1, True).flat_map(lambda w: w.batch(3))
    ),
    "window_partial": lambda tf: (
        tf.data.Dataset.range(7).window(3, 1).flat_map(lambda w: w.batch(5))
    ),
    "window_stride_shift_past": lambda tf: (
        tf.data.Dataset.range(20).window(2, shift=5, stride=3).flat_map(lambda w: w.batch(2))
    ),
    "window_tuple": lambda tf: (
        tf.data.Dataset.from_tensor_slices((np.arange(6), np.arange(6.0, dtype=np.float32) * 2))
        .window(4, 2)
        .flat_map(lambda a, b: tf.data.Dataset.zip((a.batch(4), b.batch(4))))
    ),
    "scan_running_sum_and_product": lambda tf: tf.data.Dataset.range(1, 7).scan(
        np.int64(0), lambda s, x: (s + x, s * x)
    ),
    "scan_experimental_tuple_state": lambda tf: tf.data.Dataset.range(5).apply(
        tf.data.experimental.scan(
            (np.int64(0), np.float32(1.0)),
            lambda s, x: ((s[0] + x, s[1] * 2.0), {"sum": s[0], "x": x}),
        )
    ),
    "scan_widening_state": lambda tf: tf.data.Dataset.range(4).scan(
        tf.zeros([0], tf.int64), lambda s, x: (tf.concat([s, [x]], 0), tf.size(s))
    ),
    "take_while": lambda tf: tf.data.Dataset.range(10).take_while(lambda x: x < 4),
    "unique": lambda tf: tf.data.Dataset.from_tensor_slices(
        np.array([3, 1, 3, 2, 1, 5], np.int32)
    ).unique(),
    "unique_strings_experimental": lambda tf: tf.data.Dataset.from_tensor_slices(
        [b"a", b"b", b"a", b"c"]
    ).apply(tf.data.experimental.unique()),
    "ignore_errors": lambda tf: (
        tf.data.Dataset.from_tensor_slices(np.array([1.0, 0.0, 2.0, -1.0], np.float32))
        .map(lambda x: tf.debugging.check_numerics(tf.math.log(x), "log"))
        .ignore_errors()
    ),
    "sparse_slices": lambda tf: tf.data.Dataset.from_sparse_tensor_slices(
        tf.SparseTensor([[0, 1], [0, 3], [2, 0]], [1.0, 2.0, 3.0], [4, 5])
    ),
    "counter": lambda tf: tf.data.Dataset.counter(2, 3).take(5),
    "experimental_counter_int32": lambda tf: tf.data.experimental.Counter(-1, -2, tf.int32).take(4),
    "choose_from_datasets": lambda tf: tf.data.experimental.choose_from_datasets(
        [tf.data.Dataset.range(3), tf.data.Dataset.range(10, 14)],
        tf.data.Dataset.from_tensor_slices(np.array([0, 1, 1, 0, 0, 0, 1, 1, 1], np.int64)),
    ),
    "choose_from_datasets_stop_on_empty": lambda tf: tf.data.Dataset.choose_from_datasets(
        [tf.data.Dataset.range(2), tf.data.Dataset.range(10, 14)],
        tf.data.Dataset.from_tensor_slices(np.array([1, 0, 0, 0, 1], np.int64)),
    ),
    "group_by_reducer": lambda tf: tf.data.Dataset.range(10).apply(
        tf.data.experimental.group_by_reducer(
            lambda x: (x * 7) % 3,
            tf.data.experimental.Reducer(
                lambda key: (key * 100, np.int64(0)),
                lambda state, x: (state[0] + x, state[1] + 1),
                # A tuple state reaches finalize_func as separate arguments, as in TF.
                lambda total, count: {"total": total, "count": count},
            ),
        )
    ),
    "group_by_reducer_widening_state": lambda tf: tf.data.Dataset.range(7).apply(
        tf.data.experimental.group_by_reducer(
            lambda x: x % 2,
            tf.data.experimental.Reducer(
                lambda key: tf.zeros([0], tf.int64),
                lambda state, x: tf.concat([state, [x]], 0),
                lambda state: tf.reduce_sum(state),
            ),
        )
    ),
    "dense_to_sparse_batch": lambda tf: (
        tf.data.Dataset.range(1, 6)
        .map(lambda n: tf.fill([n], tf.cast(n, tf.float32)))
        .apply(tf.data.experimental.dense_to_sparse_batch(2, [6]))
    ),
    "sparse_batch_unknown_dim": lambda tf: (
        tf.data.Dataset.range(1, 5)
        .map(lambda n: tf.reshape(tf.as_string(tf.range(2 * n)), [2, n]))
        .sparse_batch(3, [2, None])
    ),
    "copy_and_prefetch_to_device": lambda tf: (
        tf.data.Dataset.range(4)
        .apply(tf.data.experimental.copy_to_device("/cpu:0"))
        .apply(tf.data.experimental.prefetch_to_device("/cpu:0", 2))
    ),
}


@pytest.mark.parametrize("name", sorted(PIPELINES))
def test_pipeline_matches_tf(name):
    _both(PIPELINES[name])


def _session_values(tf, build):
    """``build(tf)`` (tensors) run once in a fresh graph, with the graph's dataset ops."""
    graph = tf.Graph()
    with graph.as_default():
        fetches = build(tf)
        with tf.Session() as sess:
            values = sess.run(fetches)
    return values, graph


def _dataset_ops(graph):
    return sorted(
        (n.name, n.op) for n in graph.as_graph_def().node if n.op.endswith(("Dataset", "Element"))
    )


@pytest.mark.parametrize(
    "build",
    [
        lambda tf: tf.data.Dataset.range(1, 6).reduce(np.int64(0), lambda s, x: s + x),
        lambda tf: tf.data.Dataset.from_tensor_slices(np.arange(6.0, dtype=np.float32)).reduce(
            (np.float32(0.0), np.int64(0)), lambda s, x: (s[0] + x * x, s[1] + 1)
        ),
        lambda tf: tf.data.Dataset.range(4).reduce(
            tf.zeros([0], tf.int64), lambda s, x: tf.concat([s, [x * 10]], 0)
        ),
        lambda tf: tf.data.Dataset.range(5, 6).get_single_element(),
        lambda tf: tf.data.Dataset.from_tensors(
            {"a": np.int32(3), "b": [1.0, 2.0]}
        ).get_single_element(),
    ],
)
def test_tensor_results_match_tf(build):
    ours, our_graph = _session_values(tfcompat, build)
    theirs, their_graph = _session_values(tf1(), build)
    assert_same_elements([ours], [theirs])
    assert _dataset_ops(our_graph) == _dataset_ops(their_graph)


@pytest.mark.parametrize(
    "make",
    [
        lambda tf: tf.data.Dataset.range(10).batch(3),
        lambda tf: tf.data.Dataset.range(10).repeat(),
        lambda tf: tf.data.Dataset.range(10).filter(lambda x: x > 2),
        lambda tf: tf.data.Dataset.range(10).shard(3, 0),
        lambda tf: tf.data.Dataset.range(10).shard(4, 3),
        lambda tf: tf.data.Dataset.range(10).repeat().shard(2, 1),
        lambda tf: tf.data.Dataset.range(10).window(3),
        lambda tf: tf.data.Dataset.range(10).window(3, 2, drop_remainder=True),
        lambda tf: tf.data.Dataset.range(10).window(4, 3, 2, drop_remainder=True),
        lambda tf: tf.data.Dataset.range(10).window(20, drop_remainder=True),
        lambda tf: tf.data.Dataset.range(10).scan(np.int64(0), lambda s, x: (s + x, x)),
        lambda tf: tf.data.experimental.RandomDataset(1),
        lambda tf: tf.data.experimental.Counter(),
        lambda tf: tf.data.Dataset.range(10).take_while(lambda x: x < 3),
    ],
)
def test_cardinality_method_matches_tf(make):
    ours, _ = _session_values(tfcompat, lambda tf: make(tf).cardinality())
    theirs, _ = _session_values(tf1(), lambda tf: make(tf).cardinality())
    assert ours == theirs


def _module(backend):
    return tfcompat if backend == "tfcompat" else tf1()


@pytest.mark.parametrize("backend", ["tfcompat", "tf"])
def test_reduce_state_shape_widens_like_tf(backend):
    tf = _module(backend)
    with tf.Graph().as_default():
        result = tf.data.Dataset.range(3).reduce(
            tf.zeros([0], tf.int64), lambda s, x: tf.concat([s, [x]], 0)
        )
        assert result.shape.as_list() == [None]


def test_element_spec_matches_tf():
    def specs(tf):
        with tf.Graph().as_default():
            dataset = tf.data.Dataset.from_tensor_slices(
                (np.zeros((3, 2), np.float32), np.arange(3))
            )
            scanned = dataset.scan(np.int64(0), lambda s, x: (s + x[1], {"v": x[0]}))
            return [repr(dataset.element_spec), repr(scanned.element_spec)]

    assert specs(tfcompat) == specs(tf1())


@pytest.mark.parametrize(
    "make",
    [
        lambda tf: tf.data.Dataset.range(10).shard(3, 1),
        lambda tf: tf.data.Dataset.range(10).window(3, 2, 1, True).flat_map(lambda w: w.batch(3)),
        lambda tf: tf.data.Dataset.range(10).scan(np.int64(0), lambda s, x: (s + x, s * x)),
        lambda tf: tf.data.Dataset.range(4).scan(
            tf.zeros([0], tf.int64), lambda s, x: (tf.concat([s, [x]], 0), tf.size(s))
        ),
        lambda tf: tf.data.Dataset.range(10).unique(),
        lambda tf: tf.data.Dataset.range(10).ignore_errors(),
        lambda tf: tf.data.Dataset.range(10).take_while(lambda x: x < 3),
        lambda tf: tf.data.Dataset.counter(2, 3),
        lambda tf: tf.data.Dataset.random(seed=4),
        lambda tf: tf.data.Dataset.from_sparse_tensor_slices(
            tf.SparseTensor([[0, 1], [2, 0]], [1.0, 2.0], [3, 4])
        ),
        lambda tf: tf.data.experimental.choose_from_datasets(
            [tf.data.Dataset.range(3), tf.data.Dataset.range(10, 13)],
            tf.data.Dataset.range(2).repeat(3),
        ),
        lambda tf: tf.data.experimental.sample_from_datasets(
            [tf.data.Dataset.range(3), tf.data.Dataset.range(10, 13)], [0.3, 0.7], seed=3
        ),
        lambda tf: tf.data.experimental.sample_from_datasets(
            [tf.data.Dataset.range(3), tf.data.Dataset.range(10, 13)], seed=3
        ),
        lambda tf: tf.data.Dataset.range(10).apply(
            tf.data.experimental.group_by_reducer(
                lambda x: x % 3,
                tf.data.experimental.Reducer(
                    lambda k: tf.zeros_like(k), lambda s, x: s + x, lambda s: s
                ),
            )
        ),
        lambda tf: (
            tf.data.Dataset.range(1, 5)
            .map(lambda n: tf.range(n))
            .apply(tf.data.experimental.dense_to_sparse_batch(2, [6]))
        ),
        lambda tf: tf.data.experimental.TFRecordWriter("/nonexistent/out.tfr", "GZIP").write(
            tf.data.Dataset.from_tensor_slices([b"a", b"b"])
        ),
    ],
)
def test_graph_def_nodes_match_tf(make):
    def nodes(tf):
        graph = tf.Graph()
        with graph.as_default():
            make(tf)
        graph_def = graph.as_graph_def()
        main = sorted((n.name, n.op, tuple(n.input), tuple(sorted(n.attr))) for n in graph_def.node)
        functions = sorted(
            (
                len(f.signature.input_arg),
                len(f.signature.output_arg),
                tuple(sorted(n.op for n in f.node_def)),
            )
            for f in graph_def.library.function
        )
        return main, functions

    assert nodes(tfcompat) == nodes(tf1())


def _first_error(tf, make):
    with tf.Graph().as_default():
        element = tf.data.make_one_shot_iterator(make(tf)).get_next()
        with tf.Session() as sess:
            with pytest.raises(tf.errors.OpError) as info:
                for _ in range(100):
                    sess.run(element)
    return info.value


@pytest.mark.parametrize(
    "make",
    [
        lambda tf: tf.data.Dataset.range(10).shard(3, 3),
        lambda tf: tf.data.Dataset.range(10).shard(0, 0),
        lambda tf: tf.data.Dataset.range(10).window(0).flat_map(lambda w: w.batch(1)),
        lambda tf: tf.data.Dataset.range(10).window(2, 0).flat_map(lambda w: w.batch(1)),
        lambda tf: tf.data.Dataset.range(10).window(2, 1, -1).flat_map(lambda w: w.batch(1)),
        lambda tf: tf.data.experimental.choose_from_datasets(
            [tf.data.Dataset.range(3)], tf.data.Dataset.range(3)
        ),
        lambda tf: (
            tf.data.Dataset.range(1, 5)
            .map(lambda n: tf.range(n))
            .apply(tf.data.experimental.dense_to_sparse_batch(2, [2]))
        ),
        lambda tf: (
            tf.data.Dataset.range(1, 5)
            .map(lambda n: tf.range(n))
            .apply(tf.data.experimental.dense_to_sparse_batch(0, [9]))
        ),
    ],
)
def test_errors_match_tf(make):
    ours, theirs = _first_error(tfcompat, make), _first_error(tf1(), make)
    assert type(ours).__name__ == type(theirs).__name__
    # TF's message adds where the node was defined before its own text.
    assert ours.message and ours.message in theirs.message


def test_out_of_range_at_end_of_shard():
    for tf in (tfcompat, tf1()):
        values, _ = drain(tf, one_shot(lambda tf: tf.data.Dataset.range(5).shard(2, 1)))
        assert [int(v) for v in values] == [1, 3]


@pytest.mark.parametrize(
    "build, error",
    [
        (lambda tf: tf.data.Dataset.range(0).get_single_element(), "InvalidArgumentError"),
        (lambda tf: tf.data.Dataset.range(2).get_single_element(), "InvalidArgumentError"),
    ],
)
def test_single_element_errors_match_tf(build, error):
    for tf in (tfcompat, tf1()):
        with pytest.raises(getattr(tf.errors, error)):
            _session_values(tf, build)


@pytest.mark.parametrize("backend", ["tfcompat", "tf"])
def test_python_errors_match_tf(backend):
    tf = _module(backend)
    with tf.Graph().as_default():
        with pytest.raises(TypeError, match="does not support type"):
            tf.data.Dataset.range(3).map(lambda x: tf.cast(x, tf.float32)).unique()
        with pytest.raises(TypeError, match="must match the initial state"):
            tf.data.Dataset.range(3).reduce(np.float32(0), lambda s, x: x)
        with pytest.raises(TypeError, match="must match the initial state"):
            tf.data.Dataset.range(3).scan(np.float32(0), lambda s, x: (x, x))


def test_initializable_iterator_reruns_window_and_scan():
    def build(tf):
        limit = tf.placeholder(tf.int64, [])
        dataset = (
            tf.data.Dataset.range(limit)
            .window(2)
            .flat_map(lambda w: w.batch(2))
            .scan(np.int64(0), lambda s, x: (s + tf.reduce_sum(x), s))
        )
        iterator = tf.data.make_initializable_iterator(dataset)
        return iterator, None

    for feed in (5, 8):
        results = []
        for tf in (tfcompat, tf1()):
            graph = tf.Graph()
            with graph.as_default():
                iterator, _ = build(tf)
                limit = graph.get_operations()[0].outputs[0]
                element = iterator.get_next()
                out = []
                with tf.Session() as sess:
                    sess.run(iterator.initializer, {limit: feed})
                    while True:
                        try:
                            out.append(sess.run(element))
                        except tf.errors.OutOfRangeError:
                            break
                results.append(out)
        assert_same_elements(*results)


def _random_values(tf, make, count):
    with tf.Graph().as_default():
        element = tf.data.make_one_shot_iterator(make(tf)).get_next()
        with tf.Session() as sess:
            return np.array([sess.run(element) for _ in range(count)])


def test_random_dataset_values():
    ours = _random_values(tfcompat, lambda tf: tf.data.Dataset.random(seed=7), 400)
    theirs = _random_values(tf1(), lambda tf: tf.data.Dataset.random(seed=7), 400)
    assert ours.dtype == theirs.dtype == np.int64
    assert ours.min() >= 0 and ours.max() < 2**32
    # Uniform over [0, 2**32): mean 2**31, std 2**32 / sqrt(12) / sqrt(n) ~ 6.2e7.
    assert abs(ours.mean() - 2**31) < 4 * 6.2e7
    again = _random_values(tfcompat, lambda tf: tf.data.experimental.RandomDataset(7), 400)
    np.testing.assert_array_equal(ours, again)
    np.testing.assert_array_equal(ours, theirs)


def test_sample_from_datasets_statistics():
    def make(tf):
        return tf.data.Dataset.sample_from_datasets(
            [
                tf.data.Dataset.from_tensors(np.int64(0)).repeat(),
                tf.data.Dataset.from_tensors(np.int64(1)).repeat(),
            ],
            weights=[0.25, 0.75],
            seed=11,
        )

    ours = _random_values(tfcompat, make, 2000)
    theirs = _random_values(tf1(), make, 2000)
    assert set(np.unique(ours)) == {0, 1}
    # Binomial(2000, 0.75): std ~ 19.4.
    assert abs(ours.sum() - 1500) < 5 * 19.4
    np.testing.assert_array_equal(ours, theirs)  # the same seeded draws as TF's


@pytest.mark.parametrize("compression", [None, "ZLIB", "GZIP"])
def test_tf_record_writer_writes_tf_records(tmp_path, compression):
    import gzip
    import zlib

    def write(tf, path):
        with tf.Graph().as_default():
            records = tf.data.Dataset.from_tensor_slices([b"first", b"", b"x" * 300]).map(
                lambda r: tf.strings.join([r, "!"])
            )
            op = tf.data.experimental.TFRecordWriter(path, compression).write(records)
            with tf.Session() as sess:
                assert sess.run(op) is None
        data = open(path, "rb").read()
        if compression == "GZIP":
            return gzip.decompress(data)
        return zlib.decompress(data) if compression == "ZLIB" else data

    ours = write(tfcompat, str(tmp_path / "ours.tfr"))
    theirs = write(tf1(), str(tmp_path / "theirs.tfr"))
    assert len(theirs) > 0 and ours == theirs
    # And TF reads our file back.
    values, _ = drain(
        tf1(),
        one_shot(lambda tf: tf.data.TFRecordDataset(str(tmp_path / "ours.tfr"), compression)),
    )
    assert values == [b"first!", b"!", b"x" * 300 + b"!"]


CSV_CASES = {
    "header": (b"a,b\n1,x\n2,y\n", lambda tf: [tf.int32, tf.string], dict(header=True)),
    "quoted_newline_crlf": (b'1,x\r\n2,"y\nz"\r\n', lambda tf: [tf.int32, tf.string], {}),
    "cr_only": (b"1,x\r2,y\r", lambda tf: [[1], ["q"]], {}),
    "defaults_and_na": (b"1,x\nNA,y\n,\n", lambda tf: [[7], ["d"]], dict(na_value="NA")),
    "select_cols": (b"1,x,3\n4,y,6\n", lambda tf: [[7], [0.5]], dict(select_cols=[0, 2])),
    "delim_and_spaces": (b" 1 ; 2.5 \n3;4e1", lambda tf: [[1], [2.0]], dict(field_delim=";")),
    "quotes": (b'"1","a""b,c"\n', lambda tf: [[1], ["q"]], {}),
    "no_quote_delim": (b'1,"a""b",\n', lambda tf: [[7], ["q"], ["r"]], dict(use_quote_delim=False)),
    "wide_types": (b"1,2\n-3,1e300\n", lambda tf: [tf.int64, tf.float64], {}),
    "missing_required": (b"1,x\n,y\n", lambda tf: [tf.int32, tf.string], {}),
    "empty_line": (b"1,x\n\n2,y", lambda tf: [[1], ["q"]], {}),
    "too_few": (b"1,x\n4\n", lambda tf: [[7], ["q"]], {}),
    "too_many": (b"1,x,3\n", lambda tf: [[7], ["q"]], {}),
    "too_few_selected": (b"1,x\n2,y", lambda tf: [[1], ["q"], [2.0]], dict(select_cols=[0, 1, 5])),
    "not_a_number": (b"a,x\n", lambda tf: [[7], ["q"]], {}),
    "quote_inside": (b'1,x"y\n', lambda tf: [[1], ["q"]], {}),
    "unclosed_quote": (b'1,"xy\n', lambda tf: [[1], ["q"]], {}),
    "empty_file_header": (b"", lambda tf: [[1], ["q"]], dict(header=True)),
}


def _csv_elements(tf, path, defaults, kwargs):
    """The CsvDataset's elements, then the error that ended it (None at OutOfRangeError)."""
    with tf.Graph().as_default():
        dataset = tf.data.experimental.CsvDataset(path, defaults(tf), **kwargs)
        element = tf.data.make_one_shot_iterator(dataset).get_next()
        out = []
        with tf.Session() as sess:
            while True:
                try:
                    out.append(sess.run(element))
                except tf.errors.OutOfRangeError:
                    return out, None
                except tf.errors.OpError as e:
                    return out, e


@pytest.mark.parametrize("name", sorted(CSV_CASES))
def test_csv_dataset_matches_tf(tmp_path, name):
    content, defaults, kwargs = CSV_CASES[name]
    path = tmp_path / "data.csv"
    path.write_bytes(content)
    ours, our_error = _csv_elements(tfcompat, str(path), defaults, kwargs)
    theirs, their_error = _csv_elements(tf1(), str(path), defaults, kwargs)
    assert_same_elements(ours, theirs)
    assert type(our_error).__name__ == type(their_error).__name__
    if their_error is not None:
        assert our_error.message in their_error.message


def test_csv_dataset_graph_and_compressed_files_match_tf(tmp_path):
    import gzip

    plain, packed = tmp_path / "a.csv", tmp_path / "b.csv.gz"
    plain.write_bytes(b"h1,h2\n1,2.5\n")
    packed.write_bytes(gzip.compress(b"h1,h2\n3,4.5\n5,\n"))

    def make(tf):
        return tf.data.experimental.CsvDataset(
            [str(plain)], [tf.int64, [0.0]], header=True
        ).concatenate(
            tf.data.experimental.CsvDataset(
                str(packed), [[0], [-1.0]], compression_type="GZIP", header=True
            ).map(lambda a, b: (tf.cast(a, tf.int64), b))
        )

    _both(make)

    def nodes(tf):
        graph = tf.Graph()
        with graph.as_default():
            make(tf)
        return sorted((n.name, n.op, tuple(n.input)) for n in graph.as_graph_def().node)

    assert nodes(tfcompat) == nodes(tf1())


@pytest.fixture
def csv_files(tmp_path):
    first, second = tmp_path / "part-0.csv", tmp_path / "part-1.csv"
    first.write_text("id,score,name,big,ratio\n1,2.5,a,3000000000,\n2,,b,4,1e40\n")
    second.write_text('id,score,name,big,ratio\n3,7,"c,d",5,0.5\n4,8.25,,6,2\n5,9,e,7,3\n')
    return str(tmp_path / "part-*.csv")


MAKE_CSV = {
    "label": dict(batch_size=2, label_name="score", num_epochs=1, shuffle=False),
    "select_and_defaults": dict(
        batch_size=3,
        select_columns=["name", "id"],
        column_defaults=[[0], ["?"]],
        num_epochs=1,
        shuffle=False,
    ),
    "select_inferred": dict(batch_size=2, select_columns=[4, 1], num_epochs=1, shuffle=False),
    "repeat_forever": dict(batch_size=4, num_epochs=None, shuffle=False, num_parallel_reads=2),
    "names_given": dict(
        batch_size=5,
        column_names=["i", "s", "n", "b", "r"],
        label_name="i",
        num_epochs=2,
        shuffle=False,
    ),
}


@pytest.mark.parametrize("name", sorted(MAKE_CSV))
def test_make_csv_dataset_matches_tf(csv_files, name):
    kwargs = MAKE_CSV[name]

    def make(tf):
        dataset = tf.data.experimental.make_csv_dataset(csv_files, **kwargs)
        return dataset.take(4) if kwargs["num_epochs"] is None else dataset

    _both(make)

    def nodes(tf):
        graph = tf.Graph()
        with graph.as_default():
            make(tf)
        graph_def = graph.as_graph_def()
        return sorted((n.name, n.op, tuple(n.input)) for n in graph_def.node)

    assert nodes(tfcompat) == nodes(tf1())


def _examples():
    tf = tf1()

    def example(**features):
        feature = {}
        for key, value in features.items():
            if key == "b":
                feature[key] = tf.train.Feature(bytes_list=tf.train.BytesList(value=value))
            elif key in ("c", "val"):
                feature[key] = tf.train.Feature(float_list=tf.train.FloatList(value=value))
            else:
                feature[key] = tf.train.Feature(int64_list=tf.train.Int64List(value=value))
        return tf.train.Example(features=tf.train.Features(feature=feature)).SerializeToString()

    return [
        example(a=[3, 4], b=[b"x", b"yy"], c=[1.5], idx=[0, 2], val=[0.5, 0.25]),
        example(b=[b"z"], c=[2.0, 3.0, 4.0], idx=[1], val=[9.0]),
        example(a=[5, 6], c=[], idx=[], val=[]),
    ]


def test_parse_example_dataset_matches_tf():
    records = _examples()

    def make(tf):
        features = {
            "a": tf.io.FixedLenFeature([2], tf.int64, default_value=[1, 2]),
            "b": tf.io.VarLenFeature(tf.string),
            "c": tf.io.FixedLenSequenceFeature([], tf.float32, allow_missing=True),
            "s": tf.io.SparseFeature("idx", "val", tf.float32, 4),
        }
        return (
            tf.data.Dataset.from_tensor_slices(records)
            .batch(2)
            .apply(tf.data.experimental.parse_example_dataset(features))
        )

    _both(make)

    def nodes(tf):
        graph = tf.Graph()
        with graph.as_default():
            make(tf)
        graph_def = graph.as_graph_def()
        return sorted((n.name, n.op, tuple(n.input)) for n in graph_def.node)

    assert nodes(tfcompat) == nodes(tf1())


def test_parse_example_dataset_errors_match_tf():
    records = _examples()

    def make(tf):
        features = {"a": tf.io.FixedLenFeature([2], tf.int64)}  # required: missing in one
        return (
            tf.data.Dataset.from_tensor_slices(records)
            .batch(3)
            .apply(tf.data.experimental.parse_example_dataset(features))
        )

    ours, theirs = _first_error(tfcompat, make), _first_error(tf1(), make)
    assert type(ours).__name__ == type(theirs).__name__ == "InvalidArgumentError"
    assert "Feature: a" in ours.message and "Feature: a" in theirs.message


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(label_key="a", num_epochs=1, shuffle=False),
        dict(num_epochs=2, shuffle=False, drop_final_batch=True, reader_num_threads=2),
        dict(num_epochs=None, shuffle=False),
    ],
)
def test_make_batched_features_dataset_matches_tf(tmp_path, kwargs):
    records = _examples()
    writer = tf1().io.TFRecordWriter(str(tmp_path / "a.tfr"))
    for record in records:
        writer.write(record)
    writer.close()
    writer = tf1().io.TFRecordWriter(str(tmp_path / "b.tfr"))
    writer.write(records[1])
    writer.close()

    def make(tf):
        features = {
            "a": tf.io.FixedLenFeature([2], tf.int64, default_value=[0, 0]),
            "b": tf.io.VarLenFeature(tf.string),
        }
        dataset = tf.data.experimental.make_batched_features_dataset(
            str(tmp_path / "*.tfr"), 2, features, **kwargs
        )
        return dataset.take(5) if kwargs["num_epochs"] is None else dataset

    _both(make)

    def nodes(tf):
        graph = tf.Graph()
        with graph.as_default():
            make(tf)
        graph_def = graph.as_graph_def()
        return sorted((n.name, n.op, tuple(n.input)) for n in graph_def.node)

    assert nodes(tfcompat) == nodes(tf1())


@pytest.mark.parametrize("initial_dist", [[0.8, 0.2], None])
def test_rejection_resample_statistics(initial_dist):
    def make(tf):
        labels = np.array([0, 0, 0, 0, 1] * 400, np.int32)
        return (
            tf.data.Dataset.from_tensor_slices((labels, np.arange(2000, dtype=np.float32)))
            .rejection_resample(
                lambda label, _: label, [0.5, 0.5], initial_dist=initial_dist, seed=5
            )
            .map(lambda class_value, element: class_value)
        )

    ours = np.array(drain(tfcompat, one_shot(make), limit=3000)[0])
    theirs = np.array(drain(tf1(), one_shot(make), limit=3000)[0])
    assert ours.dtype == theirs.dtype == np.int32
    # Both end when a source runs out: about 2 x 400 class-1 draws; half each class.
    assert 500 < len(ours) < 1300
    assert abs(ours.mean() - 0.5) < 0.08
    # The same seeded draws as TF's (its Philox streams), so the very same classes.
    np.testing.assert_array_equal(ours, theirs)


def test_sample_from_datasets_with_dataset_weights_statistics():
    def make(tf):
        weights = tf.data.Dataset.from_tensors(np.array([0.9, 0.1], np.float32)).repeat()
        return tf.data.experimental.sample_from_datasets(
            [
                tf.data.Dataset.from_tensors(np.int64(0)).repeat(),
                tf.data.Dataset.from_tensors(np.int64(1)).repeat(),
            ],
            weights=weights,
            seed=2,
        )

    ours = _random_values(tfcompat, make, 2000)
    # Binomial(2000, 0.1): mean 200, std ~13.4.
    assert abs(ours.sum() - 200) < 5 * 13.4
    np.testing.assert_array_equal(ours, _random_values(tf1(), make, 2000))


def test_get_next_as_optional_matches_tf():
    def run(tf):
        with tf.Graph().as_default():
            dataset = tf.data.Dataset.range(2).map(lambda x: (x, tf.cast(x, tf.float32) / 2))
            iterator = tf.data.make_one_shot_iterator(dataset)
            optional = tf.data.experimental.get_next_as_optional(iterator)
            has_value = optional.has_value()
            with tf.Session() as sess:
                out = []
                for _ in range(2):
                    out.append(sess.run([has_value, optional.get_value()]))
                out.append(sess.run(has_value))
                with pytest.raises(tf.errors.InvalidArgumentError) as info:
                    sess.run(optional.get_value())
            return out, info.value.message

    (ours, our_message), (theirs, their_message) = run(tfcompat), run(tf1())
    assert_same_elements(ours, theirs)
    assert ours[-1] == False  # noqa: E712 - a numpy bool
    assert "The given optional does not have a value." in our_message
    assert "The given optional does not have a value." in their_message


def test_optional_from_value_and_empty_match_tf():
    def build(tf):
        full = tf.data.experimental.Optional.from_value(
            {"a": tf.constant(1.5), "b": tf.constant([1, 2])}
        )
        empty = tf.data.experimental.Optional.empty(tf.TensorSpec([], tf.int32))
        return full.has_value(), full.get_value(), empty.has_value()

    ours, our_graph = _session_values(tfcompat, build)
    theirs, their_graph = _session_values(tf1(), build)
    assert_same_elements([ours], [theirs])

    def ops(graph):
        return sorted((n.name, n.op, tuple(n.input)) for n in graph.as_graph_def().node)

    assert ops(our_graph) == ops(their_graph)


def test_dataset_functions_mixing_outer_tensors_first_match_tf():
    """Name scopes opened with values take the function being built, not the graph of the
    first value (an outer tensor captured into the function)."""

    def program(tf):
        outer = tf.constant(2.0)
        logits = tf.constant([[0.0, 1.0]])
        divided = tf.data.Dataset.range(4).map(lambda x: outer / tf.cast(x + 1, tf.float32))
        draws = tf.data.Dataset.range(3).map(
            lambda x: tf.random.stateless_multinomial(logits, 3, tf.stack([x, x]))
        )
        return [
            tf.data.make_one_shot_iterator(divided.batch(4)).get_next(),
            tf.data.make_one_shot_iterator(draws.batch(3)).get_next(),
        ]

    assert_parity(program)


def test_element_specs_are_the_public_spec_classes():
    def specs(tf):
        with tf.Graph().as_default():
            dataset = tf.data.Dataset.from_tensor_slices(
                {"x": np.zeros((3, 2), np.float32), "n": np.arange(3)}
            ).batch(2)
            sparse = tf.data.Dataset.from_tensors(tf.SparseTensor([[0, 1]], [1.5], [2, 3]))
            iterator = tf.data.make_initializable_iterator(dataset)
            optional = tf.data.experimental.get_next_as_optional(iterator)
            return [
                dataset.element_spec
                == {
                    "x": tf.TensorSpec([None, 2], tf.float32),
                    "n": tf.TensorSpec([None], tf.int64),
                },
                type(dataset.element_spec["x"]) is tf.TensorSpec,
                sparse.element_spec == tf.SparseTensorSpec([2, 3], tf.float32),
                type(sparse.element_spec) is tf.SparseTensorSpec,
                repr(iterator.element_spec),
                optional.element_spec == iterator.element_spec,
            ]

    ours = specs(tfcompat)
    assert ours == specs(tf1())
    assert ours[:4] == [True] * 4
