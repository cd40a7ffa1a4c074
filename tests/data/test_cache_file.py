"""``Dataset.cache(filename)``: TF's file cache (a tensor bundle), read and written as TF
does, so either library reads the other's cache."""

from __future__ import annotations

import os

import pytest

import tfcompat
from tests.oracle import tf1


def _pipeline(tf, path, calls):
    """A two-component dataset cached at ``path``; ``calls`` counts the map's calls."""

    def count(x):
        calls.append(int(x))
        return x

    def element(x):
        x = tf.py_func(count, [x], tf.int64, stateful=True)
        return x * 3, tf.strings.as_string(x)

    return tf.data.Dataset.range(4).map(element).cache(path)


def _epochs(tf, path, epochs=2):
    calls = []
    with tf.Graph().as_default():
        it = tf.data.make_initializable_iterator(_pipeline(tf, path, calls))
        nxt = it.get_next()
        out = []
        with tf.Session() as sess:
            for _ in range(epochs):
                sess.run(it.initializer)
                while True:
                    try:
                        a, b = sess.run(nxt)
                    except tf.errors.OutOfRangeError:
                        break
                    out.append((int(a), b))
    return out, len(calls)


EXPECTED = [(0, b"0"), (3, b"1"), (6, b"2"), (9, b"3")]


@pytest.mark.parametrize("writer,reader", [("ours", "tf"), ("tf", "ours"), ("ours", "ours")])
def test_file_cache_is_written_once_and_read_by_both(tmp_path, writer, reader):
    libs = {"ours": tfcompat, "tf": tf1()}
    path = str(tmp_path / "cache")
    values, calls = _epochs(libs[writer], path)
    assert values == EXPECTED * 2 and calls == 4  # the second epoch reads the cache
    assert os.path.exists(path + ".index")
    values, calls = _epochs(libs[reader], path, epochs=1)
    assert values == EXPECTED and calls == 0  # a new process's pipeline reads the file


def test_unfinished_pass_caches_nothing(tmp_path):
    path = str(tmp_path / "cache")
    with tfcompat.Graph().as_default():
        nxt = tfcompat.data.make_one_shot_iterator(_pipeline(tfcompat, path, [])).get_next()
        with tfcompat.Session() as sess:
            sess.run(nxt)
    assert not os.path.exists(path + ".index")
