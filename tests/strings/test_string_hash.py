"""Vectorised FarmHash Fingerprint64 against pyfarmhash, string by string.

The numpy path only runs for batches (and length classes) above a size threshold; most
tests lower the thresholds to 1 so that small examples exercise it, and some use batches
large enough for the real thresholds.
"""

from contextlib import contextmanager
from unittest import mock

import farmhash
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lowering.reference import string_hash

BOUNDARY_LENGTHS = (0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65)


@contextmanager
def vectorised_from(size):
    """The numpy path for every batch and every length class of at least ``size``."""
    with (
        mock.patch.object(string_hash, "_TINY_BATCH", size),
        mock.patch.object(string_hash, "_SMALL_CLASS", size),
    ):
        yield


def expected(strings):
    return np.array([farmhash.fingerprint64(s) for s in strings], dtype=np.uint64)


def check(strings):
    got = string_hash.fingerprint64(strings)
    assert got.dtype == np.uint64 and got.shape == (len(strings),)
    np.testing.assert_array_equal(got, expected(strings))


def random_strings(rng, lengths, low=0, high=256):
    return [rng.integers(low, high, n, dtype=np.uint8).tobytes() for n in lengths]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.binary(min_size=0, max_size=80), min_size=1, max_size=40))
def test_matches_pyfarmhash_on_random_bytes(strings):
    with vectorised_from(1):
        check(strings)


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 80), st.lists(st.binary(min_size=0, max_size=80), max_size=5))
def test_one_width_with_outliers(width, outliers):
    # Mostly one width (the strided path when alone), plus a few strings of other lengths.
    rng = np.random.default_rng(width)
    strings = random_strings(rng, [width] * 12, low=0x20, high=0x7F) + outliers
    with vectorised_from(1):
        check(strings)
        check(strings[:12])


@pytest.mark.parametrize("length", range(0, 81))
@pytest.mark.parametrize(
    "alphabet", [(0x61, 0x7B), (0x00, 0x01), (0x80, 0xFF), (0xFF, 0x100), (0x00, 0x100)]
)
def test_every_length_and_alphabet(length, alphabet):
    # Text, all NUL, non-ASCII (no 0xFF), all 0xFF (the join separator: the fallback that
    # measures lengths), random bytes; one width and with a string of another length.
    rng = np.random.default_rng(length)
    strings = random_strings(rng, [length] * 6, *alphabet)
    with vectorised_from(1):
        check(strings)
        check(strings + [b"x" * (length + 1)])


@pytest.mark.parametrize("length", BOUNDARY_LENGTHS)
def test_boundary_lengths_at_real_thresholds(length):
    rng = np.random.default_rng(100 + length)
    one_width = random_strings(rng, [length] * 600, low=0x20, high=0x7F)
    check(one_width)
    lengths = np.r_[np.full(400, length), rng.integers(0, 70, 400)]
    check(random_strings(rng, rng.permutation(lengths)))


def test_mixed_lengths_keep_positions():
    rng = np.random.default_rng(7)
    lengths = rng.permutation(np.repeat(np.arange(0, 100), 12))
    strings = random_strings(rng, lengths, low=0x20, high=0x7F)
    check(strings)
    with vectorised_from(1):
        check(strings)


def test_empty_input_and_single_strings():
    assert string_hash.fingerprint64([]).shape == (0,)
    with vectorised_from(1):
        assert string_hash.fingerprint64([]).shape == (0,)
        for length in BOUNDARY_LENGTHS:
            check([b"\x01" * length])
    check([b"abc"])


def test_object_arrays_and_str_items():
    strings = [b"a", "caf\u00e9", b"\xff\x00", "", "x" * 70, b"bytes"] * 30
    check(strings)
    with vectorised_from(1):
        check(strings)
        check(np.array(strings, dtype=object))


def test_bucket_ids_of_criteo_like_values():
    # The wide & deep bench's categorical values: 8 hex digits, 512 per feature.
    rng = np.random.default_rng(0)
    values = [b"%08x" % v for v in rng.integers(0, 2**32, 512)]
    buckets = string_hash.fingerprint64(values) % np.uint64(100_000)
    np.testing.assert_array_equal(buckets, expected(values) % np.uint64(100_000))
