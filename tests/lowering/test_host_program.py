"""Host segments run as prepared programs (lowering/interpreter.HostProgram): values
computed from constants only are computed on the first run and kept, everything else runs
every step, with TF's results."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat as tf
from lowering.registry import REFERENCE


def _counting(monkeypatch, op_type):
    calls = []
    kernel = REFERENCE[op_type]

    def counted(ctx, op, *args):
        calls.append(op.name)
        return kernel(ctx, op, *args)

    monkeypatch.setitem(REFERENCE, op_type, counted)
    return calls


def test_constant_arithmetic_runs_once_and_fed_arithmetic_every_step(monkeypatch):
    calls = _counting(monkeypatch, "AddV2")
    with tf.Graph().as_default():
        x = tf.placeholder(tf.int32, [2], name="x")
        fixed = tf.strings.as_string(tf.add(tf.constant([1, 2]), 3, name="fixed_sum"))
        fed = tf.strings.as_string(tf.add(x, 1, name="fed_sum"))
        with tf.Session() as sess:
            for step in range(3):
                out_fixed, out_fed = sess.run([fixed, fed], {x: [step, 10 * step]})
                assert list(out_fixed) == [b"4", b"5"]
                assert list(out_fed) == [str(step + 1).encode(), str(10 * step + 1).encode()]
    assert calls.count("fixed_sum") == 1
    assert calls.count("fed_sum") == 3


def test_host_program_reads_variables_when_they_run():
    """A string variable read by a host op sees each run's assignments."""
    with tf.Graph().as_default():
        v = tf.Variable(np.array([b"a", b"b"], dtype=object), name="v")
        joined = tf.strings.join([v[0], v[1]])
        assign = tf.assign(v, tf.constant([b"c", b"d"]))
        with tf.Session() as sess:
            sess.run(v.initializer)
            assert sess.run(joined) == b"ab"
            sess.run(assign)
            assert sess.run(joined) == b"cd"


def test_identical_host_ops_run_once(monkeypatch):
    """Two identical hashing ops of the same strings (as linear_model and input_layer build
    for a shared column) run one kernel; a different bucket count is another op."""
    calls = _counting(monkeypatch, "StringToHashBucketFast")
    with tf.Graph().as_default():
        words = tf.placeholder(tf.string, [None], name="words")
        first = tf.strings.to_hash_bucket_fast(words, 10, name="first")
        twin = tf.strings.to_hash_bucket_fast(words, 10, name="twin")
        other = tf.strings.to_hash_bucket_fast(words, 7, name="other")
        with tf.Session() as sess:
            a, b, c = sess.run([first, twin, other], {words: [b"a", b"bc", b""]})
    import farmhash

    strings = [b"a", b"bc", b""]
    np.testing.assert_array_equal(a, [farmhash.fingerprint64(s) % 10 for s in strings])
    np.testing.assert_array_equal(b, a)
    np.testing.assert_array_equal(c, [farmhash.fingerprint64(s) % 7 for s in strings])
    assert sorted(calls) == ["first", "other"]


def test_shape_arithmetic_is_remembered_per_input_value(monkeypatch):
    """Small integer arithmetic on a host value (a shape) runs once per distinct shape:
    a repeated batch shape reuses the outputs, a new one computes them, and the results
    are TF's every time."""
    calls = _counting(monkeypatch, "Prod")
    with tf.Graph().as_default():
        words = tf.placeholder(tf.string, [None, None], name="words")
        shape = tf.shape(words, out_type=tf.int64)
        size = tf.reduce_prod(shape, name="size")
        rows = tf.stack([size, shape[1]], name="rows")
        text = tf.strings.as_string(rows)
        with tf.Session() as sess:
            for rows_count, cols in [(2, 3), (2, 3), (4, 1), (2, 3), (4, 1)]:
                batch = np.full((rows_count, cols), b"w", dtype=object)
                out, sizes = sess.run([text, rows], {words: batch})
                assert list(out) == [str(rows_count * cols).encode(), str(cols).encode()]
                np.testing.assert_array_equal(sizes, [rows_count * cols, cols])
    assert calls == ["size", "size"]  # once for [2, 3], once for [4, 1]


def test_remembered_shape_arithmetic_leaves_fed_arrays_writable():
    """A shape island one of whose outputs is its fed input (an Identity beside the
    arithmetic) does not make the caller's array read-only."""
    with tf.Graph().as_default():
        sizes = tf.placeholder(tf.int64, [2], name="sizes")
        same = tf.identity(sizes)
        text = tf.strings.as_string(tf.reduce_prod(same) + same[0])
        fed = np.array([2, 3], np.int64)
        with tf.Session() as sess:
            assert sess.run(text, {sizes: fed}) == b"8"
            assert sess.run(text, {sizes: fed}) == b"8"
    fed[0] = 4  # still the caller's, still writable
    assert fed.flags.writeable


# ---------------------------------------------------------------------------------------------
# Run-time twins (lowering/run_twins.py)
# ---------------------------------------------------------------------------------------------
def _twin_chains():
    """Two identical chains (fill empty rows, then row ids), one on a SparseTensor, the
    other on its reshape by a fed shape: twins exactly when the reshape keeps the shape."""
    indices = tf.placeholder(tf.int64, [None, 2], name="indices")
    words = tf.placeholder(tf.string, [None], name="words")
    shape = tf.placeholder(tf.int64, [2], name="shape")
    new_shape = tf.placeholder(tf.int64, [2], name="new_shape")
    ids = tf.strings.to_hash_bucket_fast(words, 100)
    sparse = tf.SparseTensor(tf.identity(indices), ids, tf.identity(shape))
    reshaped = tf.sparse_reshape(sparse, new_shape)
    outs = []
    for name, st in (("reshaped", reshaped), ("original", sparse)):
        filled, empty = tf.sparse_fill_empty_rows(st, tf.constant(-1, tf.int64))
        rows = tf.reshape(filled.indices[:, 0], [-1], name=f"{name}_rows")
        outs += [filled.indices, filled.values, empty, rows]
    return (indices, words, shape, new_shape), outs


def _feeds(new_shape):
    """20 entries in a [24, 5] SparseTensor, rows 3 and 17 empty."""
    rows = [r for r in range(24) if r not in (3, 17)][:20]
    return [
        np.array([[r, r % 5] for r in rows], np.int64),
        np.array([b"w%d" % r for r in rows], dtype=object),
        np.array([24, 5], np.int64),
        np.array(new_shape, np.int64),
    ]


def test_run_time_twins_copy_outputs_only_while_their_inputs_match(monkeypatch):
    """The chain on the reshaped tensor and the one on the original meet at run time when
    the reshape keeps the shape (its indices forwarded): the second fill is a head that
    compares keys, the ops after it copy its twin's outputs. A later run with another shape
    misses, and everything runs its kernel; every run equals the plain interpreter's."""
    from lowering import interpreter, run_twins

    calls = _counting(monkeypatch, "SparseFillEmptyRows")
    with tf.Graph().as_default() as graph:
        feeds, outs = _twin_chains()
        ops = [op for op in graph.get_operations() if op.type != "Placeholder"]
        program = interpreter.HostProgram(ops)
        shapes = [[24, 5]] * (run_twins.LEARNING_RUNS + 2) + [[5, 24], [120, 1], [24, 5]]
        for new_shape in shapes:
            ctx = interpreter.Context({}, "host")
            env = program.run(dict(zip(feeds, _feeds(new_shape))), ctx)
            want = interpreter.run_ops(ops, dict(zip(feeds, _feeds(new_shape))), REFERENCE, ctx)
            for t in outs:
                np.testing.assert_array_equal(env[t], want[t], err_msg=f"{t.name} {new_shape}")
        kinds = [type(step[2]).__name__ for step in program._steps]
        assert kinds.count("RunTwin") == 2  # the first fill and its twin
        assert kinds.count("ImpliedTwin") == 2  # the twin's row ids (slice, reshape)
    # per run, program then reference: one fill while they meet, two when they do not
    assert len(calls) == 3 * (run_twins.LEARNING_RUNS + 2) + 4 + 4 + 3


def test_identity_outputs_are_their_inputs_for_op_merging(monkeypatch):
    """Ops reading an input and ops reading its Identity are the same op (TF's feature
    columns read ids through Identities in one path and not the other)."""
    calls = _counting(monkeypatch, "StringToHashBucketFast")
    with tf.Graph().as_default():
        words = tf.placeholder(tf.string, [None], name="words")
        direct = tf.strings.to_hash_bucket_fast(words, 10, name="direct")
        through = tf.strings.to_hash_bucket_fast(tf.identity(tf.identity(words)), 10)
        with tf.Session() as sess:
            a, b = sess.run([direct, through], {words: [b"a", b"bc"]})
    np.testing.assert_array_equal(a, b)
    assert calls == ["direct"]


def test_wide_and_deep_columns_share_their_id_bookkeeping(monkeypatch):
    """linear_model and input_layer over one hashed column: after the learning runs the
    input_layer's lookup chain copies linear_model's, the step passes the shared arrays
    once (padded or not), and training matches the reference backend batch after batch."""
    from lowering import run_twins, transfer

    layouts = []
    pack = transfer.pack

    def recording_pack(jax, inputs):
        packed = pack(jax, inputs)
        layouts.append(packed[2])
        return packed

    monkeypatch.setattr(transfer, "pack", recording_pack)

    rng = np.random.default_rng(0)
    batches = [
        np.array([[b"w%d" % rng.integers(40)] for _ in range(n)], dtype=object)
        for n in (20, 20, 24, 20, 30, 20, 20, 26)
    ]
    results = {}
    for backend in ("xla", "reference"):
        with tf.Graph().as_default():
            tf.set_random_seed(3)
            words = tf.placeholder(tf.string, [None, 1], name="words")
            column = tf.feature_column.categorical_column_with_hash_bucket("w", 50)
            embedded = tf.feature_column.embedding_column(
                column, 4, initializer=tf.constant_initializer(0.5)
            )
            wide = tf.feature_column.linear_model({"w": words}, [column])
            deep = tf.reduce_sum(tf.feature_column.input_layer({"w": words}, [embedded]), 1)
            loss = tf.reduce_mean(tf.square(wide[:, 0] + deep - 1.0))
            train = tf.train.AdagradOptimizer(0.3).minimize(loss)
            with tf.Session(backend=backend) as sess:
                sess.run(tf.global_variables_initializer())
                losses = [sess.run([loss, train], {words: b})[0] for b in batches]
                results[backend] = losses
                if backend == "xla":
                    executable = next(e for e in sess._executables.values() if e.host_programs)
                    steps = [s for p in executable.host_programs.values() for s in p._steps]
                    implied = [s for s in steps if isinstance(s[2], run_twins.ImpliedTwin)]
                    assert implied, "the input_layer chain should copy linear_model's"
    # the last step: the column's ids, segment ids and fill values, and the distinct rows
    # and their inverse, each passed once for both lookups
    assert len(layouts[-1].repeats) == 5
    np.testing.assert_allclose(results["xla"], results["reference"], rtol=1e-5)


# ---------------------------------------------------------------------------------------------
# Elementwise host ops batched (lowering/host_batching.py)
# ---------------------------------------------------------------------------------------------
def test_hash_ops_of_one_kind_run_as_one_kernel_call(monkeypatch):
    """Hash-bucket ops with the same attrs run in one kernel call when their inputs exist
    at the first one's place; one whose input is computed from another's output (through
    AsString) runs later on its own; other bucket counts are another group. Every output is
    the op's own, in its input's shape."""
    import farmhash

    calls = _counting(monkeypatch, "StringToHashBucketFast")
    with tf.Graph().as_default():
        words = tf.placeholder(tf.string, [None, 2], name="words")
        more = tf.placeholder(tf.string, [None], name="more")
        first = tf.strings.to_hash_bucket_fast(words, 10, name="first")
        chained = tf.strings.to_hash_bucket_fast(tf.strings.as_string(first), 10, name="chained")
        other = tf.strings.to_hash_bucket_fast(more, 10, name="other")
        seven = tf.strings.to_hash_bucket_fast(more, 7, name="seven")
        feed = {
            words: np.array([[b"a", b"bb"], [b"", b"\xc3\xa9"], [b"x" * 20, b"y"]], object),
            more: np.array([b"k%d" % i for i in range(5)], object),
        }
        with tf.Session() as sess:
            got = sess.run([first, chained, other, seven], feed)

    def buckets(strings, n):
        flat = [farmhash.fingerprint64(s) % n for s in np.asarray(strings).reshape(-1)]
        return np.array(flat, np.int64).reshape(np.shape(strings))

    want_first = buckets(feed[words], 10)
    np.testing.assert_array_equal(got[0], want_first)
    as_text = np.array([str(v).encode() for v in want_first.reshape(-1)], object)
    np.testing.assert_array_equal(got[1], buckets(as_text.reshape(3, 2), 10))
    np.testing.assert_array_equal(got[2], buckets(feed[more], 10))
    np.testing.assert_array_equal(got[3], buckets(feed[more], 7))
    # first + other in one call (named by the first), chained alone, seven alone
    assert sorted(calls) == ["chained", "first", "seven"]


def test_a_batched_kernel_error_names_its_op():
    """A kernel error in a group reruns it op by op: the error is the first op's own."""
    with tf.Graph().as_default():
        words = tf.placeholder(tf.string, [None], name="words")
        ops = [
            tf.strings.to_hash_bucket_strong(words, 5, key=[1], name=f"strong{i}") for i in range(2)
        ]
        with tf.Session() as sess:
            with pytest.raises(tf.errors.InvalidArgumentError, match="Key must have 2") as info:
                sess.run(ops, {words: [b"a"]})
    assert info.value.op.name == "strong0"
