"""Host inputs packed into one byte buffer for one transfer (lowering/transfer.py): the
round trip is exact for every dtype and shape, large and object arrays travel alone, and a
step fed many small arrays computes what the numpy kernels do, compiling once per layout."""

import jax
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

import tfcompat as tf
from lowering import transfer


@pytest.fixture(autouse=True)
def _pack_on_cpu(monkeypatch):
    monkeypatch.setattr(transfer, "PACK_ON_CPU", True)


_DTYPES = st.sampled_from(
    [np.float32, np.int64, np.int32, np.bool_, np.float64, np.uint8, np.int8, np.uint32]
)
_ARRAYS = _DTYPES.flatmap(lambda d: hnp.arrays(d, hnp.array_shapes(min_dims=0, max_dims=3)))


@settings(max_examples=60, deadline=None)
@given(st.lists(st.one_of(_ARRAYS, st.none()), min_size=0, max_size=8))
def test_pack_unpack_round_trip(arrays):
    inputs = [arrays, {"hint": np.int32(3)}]
    leaves, buffer, layout = transfer.pack(jax, inputs)
    if layout is None:
        assert buffer is None and leaves is inputs
        return
    assert buffer.dtype == np.uint8 and buffer.ndim == 1
    assert buffer.size == sum(a.nbytes for a in arrays if a is not None and a.size)
    # under jit too: the step reinterprets the buffer on the device
    back = jax.jit(lambda b: transfer.unpack(jax, leaves, b, layout))(buffer)
    for got, want in zip(back[0], arrays):
        if want is None:
            assert got is None
        else:
            got = np.asarray(got)
            assert got.dtype == want.dtype and got.shape == want.shape
            np.testing.assert_array_equal(got, want)
    assert back[1]["hint"] == 3


def test_large_and_string_arrays_are_not_packed():
    big = np.zeros(transfer.PACK_MAX_BYTES // 4 + 1, np.float32)
    strings = np.array([b"a", b"b"], dtype=object)
    small = [np.ones(3, np.float32), np.ones(2, np.int64)]
    leaves, buffer, layout = transfer.pack(jax, [big, strings, *small])
    assert leaves[0] is big and leaves[1] is strings and leaves[2] is None
    assert buffer.size == 3 * 4 + 2 * 8
    # one small array gains nothing: nothing packed
    assert transfer.pack(jax, [big, small[0]])[2] is None


def test_step_fed_many_small_arrays_matches_reference_and_compiles_once():
    rng = np.random.default_rng(0)
    with tf.Graph().as_default():
        xs = [tf.placeholder(tf.float32, [None], name=f"x{i}") for i in range(12)]
        ids = [tf.placeholder(tf.int64, [None], name=f"i{i}") for i in range(12)]
        table = tf.Variable(rng.normal(size=(50, 3)).astype(np.float32), name="table")
        total = tf.add_n(
            [tf.reduce_sum(x) + tf.reduce_sum(tf.gather(table, i)) for x, i in zip(xs, ids)]
        )
        train = tf.train.GradientDescentOptimizer(0.1).minimize(total)
        feeds = []
        for step in range(3):
            feed = {x: rng.normal(size=4 + step % 2).astype(np.float32) for x in xs}
            feed.update({i: rng.integers(0, 50, size=5) for i in ids})
            feeds.append(feed)
        results = {}
        for backend in ("xla", "reference"):
            with tf.Session(backend=backend) as sess:
                sess.run(tf.global_variables_initializer())
                runs = [sess.run([total, train], feed)[0] for feed in feeds]
                results[backend] = (runs, sess.run(table))
                if backend == "xla":
                    executable = next(iter(sess._executables.values()))
                    counts = [f.compile_count for f in executable.device_functions.values()]
    np.testing.assert_allclose(results["xla"][0], results["reference"][0], rtol=1e-5)
    np.testing.assert_allclose(results["xla"][1], results["reference"][1], rtol=1e-5)
    # lengths 4 and 5 pad to one size bucket (lowering/buckets.py): one layout, one compile
    assert counts == [1]


@pytest.mark.parametrize("pack_on_cpu", [True, False])
def test_a_repeated_array_crosses_once(monkeypatch, pack_on_cpu):
    """An array at several inputs is passed once and stands in for the others on the
    device; small arrays (shape vectors, equal by chance from one step to the next) and
    equal but distinct arrays are not merged."""
    monkeypatch.setattr(transfer, "PACK_ON_CPU", pack_on_cpu)
    ids = np.arange(40, dtype=np.int64)
    other = ids.copy()
    small = np.array([4, 5], np.int64)
    big = np.ones(transfer.PACK_MAX_BYTES // 4 + 1, np.float32)
    inputs = [ids, other, {"again": ids, "small": small}, small, big, big]
    leaves, buffer, layout = transfer.pack(jax, inputs)
    assert layout is not None
    # leaves: ids, other, again, small (dict), small, big, big
    assert layout.repeats == ((2, 0), (6, 5))
    assert leaves[2] is None and leaves[6] is None and leaves[5] is big
    back = jax.jit(lambda b: transfer.unpack(jax, leaves, b, layout))(buffer)
    for got, want in zip(jax.tree.leaves(back), jax.tree.leaves(inputs)):
        np.testing.assert_array_equal(np.asarray(got), want)
