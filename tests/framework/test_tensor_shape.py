"""TensorShape and Dimension against TF 2.21 in TF1 mode (indexing yields Dimension)."""

import pickle

import numpy as np
import pytest

import tfcompat as tf
from tests.framework._judge import outcome, same_outcome
from tests.oracle import tf1

SHAPES = [None, [], [None], [3], [0], [2, None], [None, None], [2, 3], [2, 3, 4]]

UNARY = {
    "repr": lambda m, a: m.TensorShape(a),
    "str": lambda m, a: str(m.TensorShape(a)),
    "as_list": lambda m, a: m.TensorShape(a).as_list(),
    "rank": lambda m, a: m.TensorShape(a).rank,
    "ndims": lambda m, a: m.TensorShape(a).ndims,
    "dims": lambda m, a: m.TensorShape(a).dims,
    "len": lambda m, a: len(m.TensorShape(a)),
    "bool": lambda m, a: bool(m.TensorShape(a)),
    "iter": lambda m, a: list(m.TensorShape(a)),
    "num_elements": lambda m, a: m.TensorShape(a).num_elements(),
    "is_fully_defined": lambda m, a: m.TensorShape(a).is_fully_defined(),
    "assert_is_fully_defined": lambda m, a: m.TensorShape(a).assert_is_fully_defined(),
    "[0]": lambda m, a: m.TensorShape(a)[0],
    "[-1]": lambda m, a: m.TensorShape(a)[-1],
    "[5]": lambda m, a: m.TensorShape(a)[5],
    "[0].value": lambda m, a: m.TensorShape(a)[0].value,
    "int([0])": lambda m, a: int(m.TensorShape(a)[0]),
    "[1:]": lambda m, a: m.TensorShape(a)[1:],
    "[:2]": lambda m, a: m.TensorShape(a)[:2],
    "[1:3]": lambda m, a: m.TensorShape(a)[1:3],
    "[-1:]": lambda m, a: m.TensorShape(a)[-1:],
    "[::2]": lambda m, a: m.TensorShape(a)[::2],
    "with_rank(2)": lambda m, a: m.TensorShape(a).with_rank(2),
    "with_rank_at_least(2)": lambda m, a: m.TensorShape(a).with_rank_at_least(2),
    "with_rank_at_most(1)": lambda m, a: m.TensorShape(a).with_rank_at_most(1),
    "as_proto": lambda m, a: m.TensorShape(a).as_proto().SerializeToString(),
    "from_proto": lambda m, a: m.TensorShape(m.TensorShape(a).as_proto()),
    "is_subtype_of([2,3])": lambda m, a: m.TensorShape(a).is_subtype_of(m.TensorShape([2, 3])),
    "unknown.merge_with": lambda m, a: m.TensorShape(None).merge_with(m.TensorShape(a)),
}

BINARY = {
    "merge_with": lambda m, a, b: m.TensorShape(a).merge_with(m.TensorShape(b)),
    "merge_with(list)": lambda m, a, b: m.TensorShape(a).merge_with(b),
    "is_compatible_with": lambda m, a, b: m.TensorShape(a).is_compatible_with(b),
    "assert_is_compatible_with": lambda m, a, b: m.TensorShape(a).assert_is_compatible_with(
        m.TensorShape(b)
    ),
    "most_specific_compatible_shape": lambda m, a, b: m.TensorShape(
        a
    ).most_specific_compatible_shape(m.TensorShape(b)),
    "concatenate": lambda m, a, b: m.TensorShape(a).concatenate(b),
    "+": lambda m, a, b: m.TensorShape(a) + m.TensorShape(b),
    "assert_same_rank": lambda m, a, b: m.TensorShape(a).assert_same_rank(m.TensorShape(b)),
    "==": lambda m, a, b: m.TensorShape(a) == m.TensorShape(b),
    "!=": lambda m, a, b: m.TensorShape(a) != m.TensorShape(b),
    "== list": lambda m, a, b: m.TensorShape(a) == b,
}


@pytest.mark.parametrize("op", UNARY, ids=str)
@pytest.mark.parametrize("shape", SHAPES, ids=str)
def test_unary_matches_tf(op, shape):
    fn = UNARY[op]
    same_outcome(outcome(fn, tf, shape), outcome(fn, tf1(), shape), repr)


@pytest.mark.parametrize("op", BINARY, ids=str)
def test_binary_matches_tf(op):
    fn = BINARY[op]
    for a in SHAPES:
        for b in SHAPES:
            same_outcome(outcome(fn, tf, a, b), outcome(fn, tf1(), a, b), repr)


CONSTRUCTOR_INPUTS = [
    [1, 2], (None, 3), 3, None, [], [np.int32(2)], np.array([2, 3]), [2.0], [2.5], ["a"],
    [-1], [[1]], [tf1().Dimension(4)],
]  # fmt: skip


@pytest.mark.parametrize("value", CONSTRUCTOR_INPUTS, ids=repr)
def test_constructor_matches_tf(value):
    mine = (
        [tf.Dimension(d.value) if isinstance(d, tf1().Dimension) else d for d in value]
        if (isinstance(value, list))
        else value
    )
    same_outcome(outcome(tf.TensorShape, mine), outcome(tf1().TensorShape, value), repr)


DIMS = [None, 0, 3, 5]
DIM_OPS = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
    "/": lambda a, b: a / b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "merge_with": lambda a, b: a.merge_with(b),
    "is_compatible_with": lambda a, b: a.is_compatible_with(b),
    "assert_is_compatible_with": lambda a, b: a.assert_is_compatible_with(b),
}


@pytest.mark.parametrize("op", DIM_OPS, ids=str)
def test_dimension_arithmetic_matches_tf(op):
    fn = DIM_OPS[op]
    for a in DIMS:
        for b in DIMS:
            ours = tf.Dimension(a), tf.Dimension(b)
            theirs = tf1().Dimension(a), tf1().Dimension(b)
            same_outcome(outcome(fn, *ours), outcome(fn, *theirs), repr)
            if b is not None:  # mixed with a Python int, on either side
                same_outcome(outcome(fn, ours[0], b), outcome(fn, theirs[0], b), repr)
                same_outcome(outcome(fn, b, ours[0]), outcome(fn, b, theirs[0]), repr)


DIM_VALUES = [None, 0, 3, -1, 2.0, 2.5, "3", np.int64(4), np.float32(3.0), [1]]
DIM_UNARY = {
    "repr": lambda m, v: m.Dimension(v),
    "str": lambda m, v: str(m.Dimension(v)),
    "int": lambda m, v: int(m.Dimension(v)),
    "value": lambda m, v: m.Dimension(v).value,
    "hash": lambda m, v: hash(m.Dimension(v)),
    "as index": lambda m, v: [0, 1, 2, 3, 4][m.Dimension(v)],
    "bool": lambda m, v: bool(m.Dimension(v)),
    "neg": lambda m, v: -m.Dimension(v),
    "dimension_value": lambda m, v: m.dimension_value(m.Dimension(v)),
}


@pytest.mark.parametrize("op", DIM_UNARY, ids=str)
@pytest.mark.parametrize("value", DIM_VALUES, ids=repr)
def test_dimension_unary_matches_tf(op, value):
    fn = DIM_UNARY[op]
    same_outcome(outcome(fn, tf, value), outcome(fn, tf1(), value), repr)


def test_tf1_indexing_returns_dimension():
    shape = tf.TensorShape([2, None])
    assert isinstance(shape[0], tf.Dimension) and shape[0].value == 2
    assert shape[1].value is None and shape.as_list() == [2, None]
    assert tf.dimension_value(shape[0]) == 2 and tf.dimension_value(7) == 7
    assert tf.dimension_at_index(shape, 0).value == 2
    assert tf.dimension_at_index(tf.TensorShape(None), 3).value is None


def test_pickle_and_hash():
    for dims in SHAPES:
        shape = tf.TensorShape(dims)
        assert pickle.loads(pickle.dumps(shape)) == shape
        assert hash(shape) == hash(tf.TensorShape(dims))
    assert pickle.loads(pickle.dumps(tf.Dimension(3))).value == 3


def test_proto_bytes_match_tf():
    for dims in SHAPES:
        ours = tf.TensorShape(dims).as_proto().SerializeToString()
        assert ours == tf1().TensorShape(dims).as_proto().SerializeToString()
