"""Lookup tables vs TF 2.21: static hash tables (string and int64 keys), vocabulary tables
with OOV buckets (FarmHash as TF), index tables from tensors and files, reverse tables,
defaults, sizes, SparseTensor keys, graph defs, errors (uninitialized, duplicate keys, bad
files, vocab sizes)."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_values_close, graph_def_nodes, tf1


def _lookup_module(tf):
    """TF 2.21 keeps index_table_from_* out of tf.compat.v1.lookup; use its lookup_ops."""
    if tf is tfcompat:
        return tfcompat.lookup
    from tensorflow.python.ops import lookup_ops

    return lookup_ops


def _run(tf, program, feeds_after_init=None):
    graph = tf.Graph()
    with graph.as_default():
        fetches = program(tf, _lookup_module(tf))
        with tf.Session(graph=graph) as sess:
            sess.run(tf.tables_initializer())
            values = sess.run(fetches, feeds_after_init)
    return values, graph


def assert_table_parity(program, graph_def=True):
    theirs, their_graph = _run(tf1(), program)
    for backend in ("xla", "reference"):
        graph = tfcompat.Graph()
        with graph.as_default():
            fetches = program(tfcompat, tfcompat.lookup)
            with tfcompat.Session(graph=graph, backend=backend) as sess:
                sess.run(tfcompat.tables_initializer())
                ours = sess.run(fetches)
        assert_values_close(ours, theirs, 0, 0, f"[{backend}]")
    if graph_def:
        assert_graph_defs_match(graph, their_graph)


def assert_graph_defs_match(ours, theirs):
    """Same nodes, ops, inputs and attrs, except a HashTableV2's random shared_name."""
    a, b = graph_def_nodes(ours), graph_def_nodes(theirs)
    assert sorted(a) == sorted(b)
    for name, (op, inputs, attrs) in b.items():
        assert a[name][0] == op, name
        assert a[name][1] == inputs, name
        keys = set(attrs) - {"_output_shapes"}
        if op == "HashTableV2" and b"hash_table_" in attrs["shared_name"]:
            keys.discard("shared_name")
        for key in keys:
            assert a[name][2].get(key) == attrs[key], (name, key)


KEYS = ["emerson", "lake", "palmer", "\u00e9t\u00e9", ""]
QUERIES = [["lake", "king", ""], ["crimson", "emerson", "\u00e9t\u00e9"]]


def test_static_hash_table_strings():
    def program(tf, lookup):
        init = lookup.KeyValueTensorInitializer(KEYS, np.arange(5, dtype=np.int64) * 10)
        table = lookup.StaticHashTable(init, -1)
        return [table.lookup(tf.constant(QUERIES)), table.size()]

    assert_table_parity(program)


@pytest.mark.parametrize("value_dtype", [np.float32, np.int32, np.int64, np.float64])
def test_static_hash_table_int64_keys(value_dtype):
    keys = np.array([7, -3, 2**40, 0, 12], dtype=np.int64)

    def program(tf, lookup):
        init = lookup.KeyValueTensorInitializer(keys, np.arange(5).astype(value_dtype) + 1)
        table = lookup.StaticHashTable(init, value_dtype(-1), name="ints")
        queries = tf.constant(np.array([[0, 1, 2**40], [12, -3, 99]], np.int64))
        return [table.lookup(queries), table.size()]

    assert_table_parity(program)


def test_string_values_table():
    def program(tf, lookup):
        init = lookup.KeyValueTensorInitializer(
            tf.constant([1, 2, 3], tf.int64), ["one", "two", "three"]
        )
        table = lookup.StaticHashTable(init, "UNK")
        return table.lookup(tf.constant([3, 4, 1], tf.int64))

    assert_table_parity(program)


@pytest.mark.parametrize("num_oov_buckets", [0, 1, 3, 100])
@pytest.mark.parametrize("default_value", [-1, 7])
def test_index_table_from_tensor(num_oov_buckets, default_value):
    def program(tf, lookup):
        table = lookup.index_table_from_tensor(
            KEYS, num_oov_buckets=num_oov_buckets, default_value=default_value
        )
        words = ["lake", "king", "", "crimson", "emerson", "x" * 50, "\u00e9t\u00e9", "zz"]
        return [table.lookup(tf.constant(words)), table.size()]

    assert_table_parity(program)


def test_index_table_from_tensor_int64_and_strong_hash():
    def program(tf, lookup):
        ints = lookup.index_table_from_tensor(
            tf.constant([10, 20, 30], tf.int64), num_oov_buckets=3, dtype=tf.int64
        )
        strong = lookup.index_table_from_tensor(
            ["a", "b"], num_oov_buckets=5, hasher_spec=lookup.StrongHashSpec((1, 2))
        )
        legacy = lookup.index_table_from_tensor(
            ["a", "b"], num_oov_buckets=5, hasher_spec=lookup.HasherSpec("legacy", None)
        )
        words = tf.constant(["a", "q", "r", "b", "s"])
        return [
            ints.lookup(tf.constant([20, 5, 7, 30, -1], tf.int64)),
            strong.lookup(words),
            legacy.lookup(words),
        ]

    assert_table_parity(program)


def test_static_vocabulary_table():
    def program(tf, lookup):
        init = lookup.KeyValueTensorInitializer(KEYS, np.arange(5, dtype=np.int64))
        table = lookup.StaticVocabularyTable(init, num_oov_buckets=4)
        return [table.lookup(tf.constant(QUERIES)), table.size()]

    assert_table_parity(program)


def test_sparse_keys():
    def program(tf, lookup):
        table = lookup.index_table_from_tensor(["a", "b"], num_oov_buckets=2)
        sparse = tf.string_split(tf.constant(["a b c", "d a"]))
        return table.lookup(sparse)

    assert_table_parity(program, graph_def=False)


def test_index_to_string_table_from_tensor():
    def program(tf, lookup):
        table = lookup.index_to_string_table_from_tensor(KEYS, default_value="UNKNOWN")
        return table.lookup(tf.constant([[1, 5], [-1, 0]], tf.int64))

    assert_table_parity(program)


@pytest.fixture
def vocab(tmp_path):
    path = tmp_path / "vocab.txt"
    path.write_bytes("emerson\t10\nlake\t20\npalmer\t30\r\n\u00e9t\u00e9\t40\n".encode())
    plain = tmp_path / "plain.txt"
    plain.write_bytes(b"emerson\nlake\npalmer\n")
    return str(path), str(plain)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"num_oov_buckets": 2},
        {"vocab_size": 2},
        {"vocab_size": 2, "num_oov_buckets": 3, "default_value": 5},
    ],
)
def test_index_table_from_file(vocab, kwargs):
    def program(tf, lookup):
        table = lookup.index_table_from_file(vocab[1], **kwargs)
        return [table.lookup(tf.constant(["lake", "and", "palmer", "emerson"])), table.size()]

    assert_table_parity(program)


def test_index_table_from_file_columns(vocab):
    def program(tf, lookup):
        by_column = lookup.index_table_from_file(vocab[0], key_column_index=0, delimiter="\t")
        by_value = lookup.index_table_from_file(
            vocab[0], key_column_index=0, value_column_index=1, delimiter="\t"
        )
        ids = lookup.index_table_from_file(
            vocab[0], key_dtype=tf.int64, key_column_index=1, delimiter="\t"
        )
        words = tf.constant(["lake", "palmer", "\u00e9t\u00e9", "x"])
        return [
            by_column.lookup(words),
            by_value.lookup(words),
            ids.lookup(tf.constant([30, 10, 11], tf.int64)),
        ]

    assert_table_parity(program)


def test_index_to_string_table_from_file(vocab):
    def program(tf, lookup):
        table = lookup.index_to_string_table_from_file(vocab[1], default_value="?")
        return table.lookup(tf.constant([2, 0, 9], tf.int64))

    assert_table_parity(program)


def test_text_file_initializer(vocab):
    def program(tf, lookup):
        init = lookup.TextFileInitializer(
            vocab[0], tf.string, 0, tf.int64, 1, delimiter="\t", name="init"
        )
        table = lookup.StaticHashTable(init, -1)
        return table.lookup(tf.constant(["palmer", "lake", "no"]))

    assert_table_parity(program)


def _errors(tf):
    return tf.errors


@pytest.mark.parametrize(
    "build,error,message",
    [
        (
            lambda tf, lookup, files: lookup.index_table_from_tensor(["a", "b", "a"]),
            "FailedPreconditionError",
            "HashTable has different value for same key",
        ),
        (
            lambda tf, lookup, files: lookup.index_table_from_file(files["empty_line"]),
            "InvalidArgumentError",
            "empty line found at position",
        ),
        (
            lambda tf, lookup, files: lookup.index_table_from_file(files["plain"], vocab_size=5),
            "InvalidArgumentError",
            "Invalid vocab_size",
        ),
        (
            lambda tf, lookup, files: lookup.index_table_from_file(
                files["plain"], key_column_index=1, value_column_index=0
            ),
            "InvalidArgumentError",
            "Invalid number of columns",
        ),
    ],
)
def test_initialization_errors(tmp_path, build, error, message):
    files = {"empty_line": tmp_path / "e.txt", "plain": tmp_path / "p.txt"}
    files["empty_line"].write_bytes(b"a\n\nb\n")
    files["plain"].write_bytes(b"a\nb\n")
    files = {k: str(v) for k, v in files.items()}
    for tf in (tf1(), tfcompat):
        with tf.Graph().as_default():
            table = build(tf, _lookup_module(tf), files)
            out = table.lookup(tf.constant(["a"]))
            with tf.Session() as sess, pytest.raises(getattr(tf.errors, error), match=message):
                sess.run(tf.tables_initializer())
                sess.run(out)


@pytest.mark.parametrize("backend", ["xla", "reference"])
def test_lookup_before_initialization(backend):
    with tfcompat.Graph().as_default():
        table = tfcompat.lookup.index_table_from_tensor(["a", "b"])
        out = table.lookup(tfcompat.constant(["a"]))
        with tfcompat.Session(backend=backend) as sess:
            with pytest.raises(
                tfcompat.errors.FailedPreconditionError, match="Table not initialized"
            ):
                sess.run(out)
            sess.run(table.initializer)
            assert sess.run(out).tolist() == [0]


def test_reinitialization_keeps_the_first_contents():
    """As TF: running an initializer again on an initialized table changes nothing."""
    with tfcompat.Graph().as_default():
        keys = tfcompat.placeholder(tfcompat.string, [2])
        init = tfcompat.lookup.KeyValueTensorInitializer(keys, tfcompat.constant([1, 2], "int64"))
        table = tfcompat.lookup.StaticHashTable(init, -1)
        out = table.lookup(tfcompat.constant(["a", "c"]))
        with tfcompat.Session() as sess:
            sess.run(tfcompat.tables_initializer(), {keys: ["a", "b"]})
            sess.run(tfcompat.tables_initializer(), {keys: ["c", "d"]})
            assert sess.run(out).tolist() == [1, -1]
        with tfcompat.Session() as sess:  # a new Session has its own, uninitialized table
            with pytest.raises(tfcompat.errors.FailedPreconditionError):
                sess.run(out)


def test_table_initializers_collection_and_names():
    with tfcompat.Graph().as_default() as g:
        assert tfcompat.tables_initializer().type == "NoOp"
        table = tfcompat.lookup.index_table_from_tensor(["a"], name="vocab")
        inits = g.get_collection(tfcompat.GraphKeys.TABLE_INITIALIZERS)
        assert [op.name for op in inits] == ["vocab/hash_table/table_init/LookupTableImportV2"]
        assert table.initializer is inits[0]
        assert tfcompat.tables_initializer().type == "NoOp"  # a group of one op
        lookup = table.lookup(tfcompat.constant(["a"]))
        assert lookup.op.name == "hash_table_Lookup/LookupTableFindV2"


def test_key_dtype_mismatch_raises_at_construction():
    with tfcompat.Graph().as_default():
        table = tfcompat.lookup.index_table_from_tensor(["a"])
        with pytest.raises(TypeError, match="Dtype of argument `keys`"):
            table.lookup(tfcompat.constant([1]))


def test_numeric_lookup_is_vectorised_and_fast():
    """A million int64 keys against a 100k vocabulary: searchsorted, no Python loop."""
    import time

    vocab = np.random.default_rng(0).permutation(10**6)[:100_000].astype(np.int64)
    with tfcompat.Graph().as_default():
        table = tfcompat.lookup.StaticHashTable(
            tfcompat.lookup.KeyValueTensorInitializer(vocab, np.arange(100_000, dtype=np.int64)),
            -1,
        )
        keys = tfcompat.placeholder(tfcompat.int64, [None])
        out = table.lookup(keys)
        with tfcompat.Session() as sess:
            sess.run(tfcompat.tables_initializer())
            queries = np.arange(10**6, dtype=np.int64)
            start = time.perf_counter()
            got = sess.run(out, {keys: queries})
            elapsed = time.perf_counter() - start
    expected = np.full(10**6, -1)
    expected[vocab] = np.arange(100_000)
    np.testing.assert_array_equal(got, expected)
    assert elapsed < 2.0, elapsed
