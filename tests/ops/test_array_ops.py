"""Array ops against TF 2.21: values, dtypes and static shapes on both backends, node names
of the wrappers, and construction-time errors."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, assert_same_graph_def, tf1

RNG = np.random.default_rng(0)

DTYPES = {
    "float32": lambda shape: RNG.standard_normal(shape).astype(np.float32),
    "int32": lambda shape: RNG.integers(-50, 50, shape).astype(np.int32),
    "int64": lambda shape: RNG.integers(-50, 50, shape).astype(np.int64),
    "bool": lambda shape: RNG.integers(0, 2, shape).astype(bool),
    "string": lambda shape: np.array(
        [f"s{v}".encode() for v in RNG.integers(0, 9, int(np.prod(shape)))], dtype=object
    ).reshape(shape),
}


def fed(shape, dtype="float32", static_shape=None):
    """A program helper: a placeholder of ``dtype`` fed with seeded data of ``shape``."""
    value = DTYPES[dtype](shape)

    def make(tf):
        x = tf.placeholder(getattr(tf, dtype), static_shape if static_shape is not None else shape)
        return x, {x: value}

    return make


def unary_program(build, shape, dtype="float32", static_shape=None):
    make = fed(shape, dtype, static_shape)

    def program(tf):
        x, feeds = make(tf)
        return build(tf, x), feeds

    return program


# ---------------------------------------------------------------------------------------------
# Shape manipulation, table-driven over dtypes
# ---------------------------------------------------------------------------------------------
SHAPE_CASES = {
    "reshape_minus1": (lambda tf, x: tf.reshape(x, [-1]), (2, 3, 4)),
    "reshape_infer": (lambda tf, x: tf.reshape(x, [4, -1, 2]), (2, 3, 4)),
    "reshape_shape_of": (lambda tf, x: tf.reshape(x, [tf.shape(x)[0], -1]), (2, 3, 4)),
    "transpose_default": (lambda tf, x: tf.transpose(x), (2, 3, 4)),
    "transpose_perm": (lambda tf, x: tf.transpose(x, [1, 0, 2]), (2, 3, 4)),
    "expand_dims": (lambda tf, x: tf.expand_dims(x, -1), (2, 3)),
    "expand_dims_dim": (lambda tf, x: tf.expand_dims(x, dim=0), (2, 3)),
    "squeeze_all": (lambda tf, x: tf.squeeze(x), (1, 3, 1)),
    "squeeze_axis": (lambda tf, x: tf.squeeze(x, [2]), (1, 3, 1)),
    "squeeze_dims_alias": (lambda tf, x: tf.squeeze(x, squeeze_dims=[0]), (1, 3, 1)),
    "concat": (lambda tf, x: tf.concat([x, x[:1]], 0), (2, 3)),
    "concat_neg_axis": (lambda tf, x: tf.concat([x, x], -1), (2, 3)),
    "concat_single": (lambda tf, x: tf.concat([x], 1), (2, 3)),
    "split_int": (lambda tf, x: tf.split(x, 2, axis=1), (3, 4)),
    "split_sizes": (lambda tf, x: tf.split(x, [1, -1, 1], axis=1), (3, 4)),
    "stack": (lambda tf, x: tf.stack([x, x], axis=1), (2, 3)),
    "unstack": (lambda tf, x: tf.unstack(x, axis=1), (2, 3)),
    "tile": (lambda tf, x: tf.tile(x, [2, 1]), (2, 3)),
    "reverse": (lambda tf, x: tf.reverse(x, [0, -1]), (2, 3)),
    "broadcast_to": (lambda tf, x: tf.broadcast_to(x, [4, 2, 3]), (2, 3)),
    "shape": (lambda tf, x: [tf.shape(x), tf.size(x), tf.rank(x)], (2, 3)),
    "zeros_like": (lambda tf, x: tf.zeros_like(x), (2, 3)),
    "pad": (lambda tf, x: tf.pad(x, [[1, 0], [0, 2]]), (2, 3)),
    "slice": (lambda tf, x: tf.slice(x, [1, 0], [1, -1]), (2, 3)),
    "getitem": (lambda tf, x: [x[1], x[:, ::-1], x[..., 1:, tf.newaxis], x[-1, -2:]], (2, 3)),
    "gather": (lambda tf, x: tf.gather(x, [1, 0, 1]), (2, 3)),
    "gather_axis": (lambda tf, x: tf.gather(x, [[2, 0]], axis=1), (2, 3)),
    "gather_nd": (lambda tf, x: tf.gather_nd(x, [[1, 2], [0, 0]]), (2, 3)),
}


@pytest.mark.parametrize("dtype", ["float32", "int32", "int64", "bool", "string"])
@pytest.mark.parametrize("case", sorted(SHAPE_CASES))
def test_shape_ops_parity(case, dtype):
    build, shape = SHAPE_CASES[case]
    if dtype == "string" and case in ("pad",):
        pytest.skip("TF's Pad has no string kernel on CPU")
    assert_parity(unary_program(build, shape, dtype))


@pytest.mark.parametrize("case", sorted(SHAPE_CASES))
def test_shape_ops_partial_static_shapes(case):
    """With an unknown leading dimension the static shapes still agree with TF's."""
    build, shape = SHAPE_CASES[case]
    if case in ("unstack",):
        pytest.skip("unstack along an unknown dim cannot infer num (TF raises too)")
    assert_parity(unary_program(build, shape, static_shape=(None,) + shape[1:]))


@pytest.mark.parametrize("case", sorted(SHAPE_CASES))
def test_shape_ops_graph_def(case):
    build, shape = SHAPE_CASES[case]
    assert_same_graph_def(unary_program(build, shape))


# ---------------------------------------------------------------------------------------------
# Filling and TF's Const-vs-Fill choices
# ---------------------------------------------------------------------------------------------
FILL_CASES = {
    "zeros_static": lambda tf, p, x: tf.zeros([2, 3]),
    "zeros_large": lambda tf, p, x: tf.zeros([40, 30]),
    "ones_bool": lambda tf, p, x: tf.ones([2, 3], dtype=tf.bool),
    "zeros_string": lambda tf, p, x: tf.zeros([2], dtype=tf.string),
    "zeros_tensor_shape": lambda tf, p, x: tf.zeros(p),
    "ones_int64": lambda tf, p, x: tf.ones(p, dtype=tf.int64),
    "zeros_packed_shape": lambda tf, p, x: tf.zeros([2, p[0]]),
    "fill": lambda tf, p, x: tf.fill([2, 2], 3.0),
    "fill_tensor": lambda tf, p, x: tf.fill(p, 7),
    "zeros_like_static": lambda tf, p, x: tf.zeros_like(x),
    "zeros_like_dtype": lambda tf, p, x: tf.zeros_like(x, dtype=tf.int32),
    "ones_like_static": lambda tf, p, x: tf.ones_like(x),
    "zeros_like_dynamic": lambda tf, p, x: tf.zeros_like(tf.placeholder_with_default(x, [None, 3])),
    "ones_like_dynamic": lambda tf, p, x: tf.ones_like(tf.placeholder_with_default(x, [None, 3])),
    "zeros_like_dynamic_dtype": lambda tf, p, x: tf.zeros_like(
        tf.placeholder_with_default(x, [None, 3]), dtype=tf.int64
    ),
    "zeros_from_shape": lambda tf, p, x: tf.zeros(x.shape),
}


def _fill_program(build):
    def program(tf):
        # A shape whose value the graph does not know (statically unknown in TF and here),
        # but that is not fed, so XLA still sees it at compile time.
        p = tf.placeholder_with_default(np.array([2, 3], np.int32), [2])
        x = tf.placeholder(tf.float32, [2, 3])
        return build(tf, p, x), {x: np.ones((2, 3), np.float32)}

    return program


@pytest.mark.parametrize("case", sorted(FILL_CASES))
def test_fill_family_parity(case):
    assert_parity(_fill_program(FILL_CASES[case]))


@pytest.mark.parametrize("case", sorted(FILL_CASES))
def test_fill_family_graph_def(case):
    assert_same_graph_def(_fill_program(FILL_CASES[case]))


def test_fed_shape_compiles_as_a_specialised_executable():
    """A fed shape is a run-time value XLA needs at compile time: the step is retraced with
    the small integer feed as a constant (lowering/static.py), once per distinct value."""

    def program(tf):
        p = tf.placeholder(tf.int32, [2])
        return tf.fill(p, 7), {p: np.array([2, 3], np.int32)}

    assert_parity(program)


# ---------------------------------------------------------------------------------------------
# Shapes fold to constants for consumers
# ---------------------------------------------------------------------------------------------
def test_shape_of_static_tensor_is_const():
    g = tfcompat.Graph()
    with g.as_default():
        x = tfcompat.placeholder(tfcompat.float32, [2, 3])
        y = tfcompat.placeholder(tfcompat.float32, [None, 3])
        assert tfcompat.shape(x).op.type == "Const"
        assert tfcompat.size(x).op.type == "Const"
        assert tfcompat.rank(y).op.type == "Const"
        assert tfcompat.shape(y).op.type == "Shape"
        assert tfcompat.size(y).op.type == "Size"
        assert tfcompat.reshape(y, tfcompat.shape(y)).shape.as_list() == [None, 3]
        assert tfcompat.reshape(y, [-1, 6]).shape.as_list() == [None, 6]
        assert tfcompat.zeros([2, tfcompat.shape(x)[1]]).shape.as_list() == [2, 3]


# ---------------------------------------------------------------------------------------------
# Pad modes and constant values
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["CONSTANT", "REFLECT", "SYMMETRIC", "symmetric"])
@pytest.mark.parametrize("dtype", ["float32", "int32", "int64"])
@pytest.mark.parametrize("value", [0, 3])
def test_pad_modes(mode, dtype, value):
    program = unary_program(
        lambda tf, x: tf.pad(x, [[1, 2], [2, 1]], mode=mode, constant_values=value),
        (3, 4),
        dtype,
    )
    assert_parity(program)
    assert_same_graph_def(program)


# ---------------------------------------------------------------------------------------------
# Slicing: __getitem__ and strided_slice with all masks
# ---------------------------------------------------------------------------------------------
GETITEM_CASES = [
    np.s_[1],
    np.s_[-1],
    np.s_[1:3],
    np.s_[-3:-1],
    np.s_[::-1],
    np.s_[::-2, 1],
    np.s_[4:1:-1],
    np.s_[10:],
    np.s_[:-10],
    np.s_[..., 0],
    np.s_[0, ...],
    np.s_[..., None, 1:],
    np.s_[None, ..., None],
    np.s_[1, None, :, 2],
    np.s_[:, :, ::3],
    np.s_[2:2],
    np.s_[1, 2, 3],
    np.s_[..., ::-1, -1],
]


@pytest.mark.parametrize("spec", GETITEM_CASES, ids=repr)
@pytest.mark.parametrize("static", [True, False])
def test_getitem_parity(spec, static):
    assert_parity(
        unary_program(
            lambda tf, x: x[spec], (5, 4, 6), static_shape=None if static else (None, 4, None)
        )
    )


@pytest.mark.parametrize("spec", GETITEM_CASES, ids=repr)
def test_getitem_graph_def(spec):
    assert_same_graph_def(unary_program(lambda tf, x: x[spec], (5, 4, 6)))


@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
def test_getitem_tensor_indices(index_dtype):
    value = DTYPES["float32"]((5, 4))

    def program(tf):
        x = tf.placeholder(tf.float32, [5, 4])
        i = tf.placeholder(getattr(tf, index_dtype), [])
        fetches = [x[i], x[i, -1], x[1:3, i], x[i][::2], x[-i]]
        return fetches, {x: value, i: np.array(3, index_dtype)}

    assert_parity(program)
    assert_same_graph_def(program)


def test_getitem_tensor_slice_bounds_fed_at_run_time():
    """``x[i:]`` with a fed ``i`` has a value-dependent shape: XLA specialises on ``i``."""

    value = DTYPES["float32"]((5, 4))

    def program(tf):
        x = tf.placeholder(tf.float32, [5, 4])
        i = tf.placeholder(tf.int64, [])
        return [x[i:], x[1:i]], {x: value, i: np.array(3, np.int64)}

    assert_parity(program)


MASK_CASES = [
    dict(begin=[1, 0], end=[3, 0], strides=[1, 1], end_mask=2),
    dict(begin=[0, 2], end=[0, 0], strides=[1, -1], begin_mask=1, end_mask=3),
    dict(begin=[0, 1], end=[0, 2], strides=[1, 1], ellipsis_mask=1, shrink_axis_mask=2),
    dict(begin=[0, 0, 1], end=[0, 0, 3], strides=[1, 1, 1], new_axis_mask=2, ellipsis_mask=1),
    dict(begin=[-1], end=[0], strides=[1], shrink_axis_mask=1),
    dict(begin=[5, 1], end=[-6, 3], strides=[-2, 1]),
]


@pytest.mark.parametrize("masks", MASK_CASES, ids=str)
def test_strided_slice_masks(masks):
    program = unary_program(lambda tf, x: tf.strided_slice(x, **masks), (6, 5, 4))
    assert_parity(program)
    assert_same_graph_def(program)


def test_boolean_index_is_boolean_mask():
    if "Where" not in __import__("tfcompat.framework.op_def", fromlist=["OPDEFS"]).OPDEFS:
        pytest.skip("Where is not registered yet")

    value = DTYPES["float32"]((4, 3))

    def program(tf):
        x = tf.placeholder(tf.float32, [4, 3])
        m = tf.placeholder(tf.bool, [4])
        return x[m], {x: value, m: np.array([1, 0, 1, 1], bool)}

    assert_parity(program)
    assert_same_graph_def(program)


# ---------------------------------------------------------------------------------------------
# Construction-time errors (TF's ValueError / TypeError)
# ---------------------------------------------------------------------------------------------
ERROR_CASES = {
    "reshape_count": (lambda tf, x: tf.reshape(x, [5]), ValueError, "Cannot reshape a tensor"),
    "reshape_divisible": (lambda tf, x: tf.reshape(x, [-1, 5]), ValueError, "divisible by 5"),
    "transpose_rank": (lambda tf, x: tf.transpose(x, [0, 1, 2]), ValueError, "Dimension must be 2"),
    "expand_dims_range": (lambda tf, x: tf.expand_dims(x, 3), ValueError, "dim 3 not in"),
    "squeeze_not_one": (lambda tf, x: tf.squeeze(x, [1]), ValueError, "Can not squeeze dim"),
    "concat_mismatch": (
        lambda tf, x: tf.concat([x, tf.zeros([3, 5])], 0),
        ValueError,
        "must be equal",
    ),
    "split_divisible": (lambda tf, x: tf.split(x, 3), ValueError, "evenly divisible by 3"),
    "split_sizes": (lambda tf, x: tf.split(x, [1, 2], axis=1), ValueError, "can't split"),
    "stack_mismatch": (lambda tf, x: tf.stack([x, tf.zeros([4, 5])]), ValueError, "must be equal"),
    "unstack_num": (lambda tf, x: tf.unstack(x, num=3), ValueError, "Dimension must be 3"),
    "getitem_range": (lambda tf, x: x[5], ValueError, "out of bounds"),
    "getitem_too_many": (lambda tf, x: x[1, 2, 3], ValueError, "Index out of range"),
    "getitem_bad_type": (lambda tf, x: x[1.5], TypeError, "Only integers"),
    "gather_axis": (lambda tf, x: tf.gather(x, [1], axis=2), ValueError, "at least rank 3"),
    "pad_mode": (lambda tf, x: tf.pad(x, [[1, 1], [1, 1]], mode="WRAP"), ValueError, "mode"),
    "one_hot_dtype": (
        lambda tf, x: tf.one_hot([1], 3, on_value=1.5, dtype=tf.int32),
        TypeError,
        "does not match",
    ),
}


@pytest.mark.parametrize("case", sorted(ERROR_CASES))
def test_construction_errors(case):
    build, error, message = ERROR_CASES[case]
    for tf in (tf1(), tfcompat):
        with tf.Graph().as_default():
            x = tf.placeholder(tf.float32, [4, 6])
            with pytest.raises(error, match=message):
                build(tf, x)
