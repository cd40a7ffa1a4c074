"""tf.nest against TF 2.21's: flatten / pack_sequence_as / map_structure /
assert_same_structure / is_nested on lists, tuples, namedtuples, dicts and OrderedDicts,
None and string leaves, SparseTensors with and without expand_composites, and TF's error
classes and texts."""

import collections

import numpy as np
import pytest

import tfcompat
from tests.oracle import tf1

P = collections.namedtuple("P", "b a")
STRUCTURES = [
    {"b": 1, "a": [2, (3, None)]},
    "abc",
    None,
    [],
    (),
    P(b=[1, 2], a={"y": 3, "x": (4,)}),
    collections.OrderedDict([("b", 1), ("a", [2, 3])]),
    [b"bytes", {"k": "v"}],
]


def _both():
    return [tfcompat.nest, tf1().nest]


@pytest.mark.parametrize("structure", STRUCTURES, ids=repr)
def test_flatten_pack_and_map_match_tf(structure):
    ours, theirs = _both()
    assert ours.flatten(structure) == theirs.flatten(structure)
    assert ours.is_nested(structure) == theirs.is_nested(structure)
    flat = list(range(len(theirs.flatten(structure))))
    packed = ours.pack_sequence_as(structure, flat)
    expected = theirs.pack_sequence_as(structure, flat)
    assert packed == expected and type(packed) is type(expected)
    mapped = ours.map_structure(lambda x: (x, 1), structure)
    assert mapped == theirs.map_structure(lambda x: (x, 1), structure)


def test_map_structure_over_several_structures():
    ours, theirs = _both()
    a, b = P(b=1, a=[2, 3]), P(b=10, a=[20, 30])
    assert ours.map_structure(lambda x, y: x + y, a, b) == theirs.map_structure(
        lambda x, y: x + y, a, b
    )


def test_sparse_tensors_are_leaves_unless_expanded():
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            st = tf.SparseTensor([[0, 1]], [2.0], [2, 3])
            assert tf.nest.flatten([st, 1]) == [st, 1]
            flat = tf.nest.flatten([st, 1], expand_composites=True)
            assert len(flat) == 4 and flat[-1] == 1
            packed = tf.nest.pack_sequence_as([st, 1], flat, expand_composites=True)
            assert isinstance(packed[0], tf.SparseTensor)


ERRORS = [
    lambda nest: nest.pack_sequence_as([0, 0], [1]),
    lambda nest: nest.pack_sequence_as(0, [1, 2]),
    lambda nest: nest.assert_same_structure([1, 2], (1, 2)),
    lambda nest: nest.assert_same_structure([1, [2]], [1, 2]),
    lambda nest: nest.assert_same_structure({"a": 1}, {"b": 1}),
    lambda nest: nest.assert_same_structure([1, 2], [1, 2, 3]),
    lambda nest: nest.map_structure(lambda x: x, [1], (1,)),
    lambda nest: nest.map_structure(lambda x: x),
]


@pytest.mark.parametrize("case", range(len(ERRORS)))
def test_errors_match_tf(case):
    raised = []
    for nest in _both():
        with pytest.raises((ValueError, TypeError)) as info:
            ERRORS[case](nest)
        raised.append((type(info.value), str(info.value)))
    assert raised[0] == raised[1]


def test_assert_same_structure_accepts_equal_nesting():
    for nest in _both():
        nest.assert_same_structure([1, (2, {"a": 3})], [4, (5, {"a": np.zeros(2)})])
        nest.assert_same_structure([1, 2], (3, 4), check_types=False)
