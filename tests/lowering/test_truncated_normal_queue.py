"""``philox.truncated_normals``, the XLA truncated normal (a work queue of the groups still
short, drawn in fixed-size chunks, several streams in one loop), equals the reference
kernel's plain redraw-every-group loop bit for bit: with chunks small enough that the
first pass takes many contiguous chunks and a partial one, and the redraws many queue
chunks, for every float width and for streams of any size, empty ones included."""

import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lowering import philox
from lowering.reference import stateless_random as reference

DTYPES = [np.float32, np.float64, np.float16, ml_dtypes.bfloat16]


def _draw(streams, dtype):
    words = [tuple(jnp.uint64(w) for w in stream[:3]) + (stream[3],) for stream in streams]
    return jax.jit(lambda: philox.truncated_normals(words, dtype))()


def _assert_reference(streams, dtype):
    for stream, got in zip(streams, _draw(streams, dtype)):
        want = reference.truncated_normal(tuple(np.uint64(w) for w in stream[:3]), stream[3], dtype)
        got = np.asarray(got)
        assert got.dtype == want.dtype and got.shape == want.shape
        np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_small_chunks_match_the_reference(monkeypatch, dtype):
    monkeypatch.setattr(philox, "QUEUE_CHUNK", 64)
    streams = [(7, 0, 0, 2001), (2**63 + 5, 2**64 - 3, 11, 37), (1, 2, 3, 0), (9, 9, 9, 5)]
    _assert_reference(streams, dtype)


@settings(max_examples=15, deadline=None)
@given(
    sizes=st.lists(st.integers(0, 300), min_size=1, max_size=5),
    chunk=st.integers(1, 40),
    seed=st.integers(0, 2**64 - 1),
)
def test_any_streams_and_chunk_match_the_reference(sizes, chunk, seed):
    original = philox.QUEUE_CHUNK
    philox.QUEUE_CHUNK = chunk
    try:
        streams = [(seed, (seed * 3 + i) % 2**64, i, size) for i, size in enumerate(sizes)]
        _assert_reference(streams, np.float32)
    finally:
        philox.QUEUE_CHUNK = original
