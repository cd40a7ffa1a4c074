"""Gather/scatter, one-hot, unique, band/diagonal ops and the boolean_mask / sequence_mask /
report_uninitialized_variables composites against TF 2.21."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import tfcompat
from tests.oracle import assert_parity, assert_same_graph_def, run
from tfcompat.framework.op_def import OPDEFS

RNG = np.random.default_rng(1)
PARAMS = {
    "float32": RNG.standard_normal((4, 3, 2)).astype(np.float32),
    "int32": RNG.integers(-9, 9, (4, 3, 2)).astype(np.int32),
    "int64": RNG.integers(-9, 9, (4, 3, 2)).astype(np.int64),
    "bool": RNG.integers(0, 2, (4, 3, 2)).astype(bool),
    "string": np.array([f"v{i}".encode() for i in range(24)], dtype=object).reshape(4, 3, 2),
}


def _with_params(build, dtype="float32", static_shape=(4, 3, 2)):
    value = PARAMS[dtype]

    def program(tf):
        x = tf.placeholder(getattr(tf, dtype), static_shape)
        return build(tf, x), {x: value}

    return program


GATHER_CASES = {
    "gather": lambda tf, x: tf.gather(x, [3, 0, 0]),
    "gather_axis1": lambda tf, x: tf.gather(x, [[2, 1], [0, 0]], axis=1),
    "gather_neg_axis": lambda tf, x: tf.gather(x, [1], axis=-1),
    "gather_batch_dims": lambda tf, x: tf.gather(
        x, [[0, 2], [1, 1], [2, 0], [0, 0]], axis=1, batch_dims=1
    ),
    "gather_int64_indices": lambda tf, x: tf.gather(x, np.array([1, 2], np.int64)),
    "gather_nd_full": lambda tf, x: tf.gather_nd(x, [[0, 1, 1], [3, 2, 0]]),
    "gather_nd_partial": lambda tf, x: tf.gather_nd(x, [[[1], [0]]]),
    "gather_nd_whole": lambda tf, x: tf.gather_nd(x, tf.zeros([2, 0], tf.int32)),
    "scatter_nd": lambda tf, x: tf.scatter_nd([[1], [3], [1]], tf.gather(x, [0, 1, 2]), [5, 3, 2]),
    "diag_band": lambda tf, x: tf.linalg.band_part(x, 1, 0),
    "band_upper": lambda tf, x: tf.matrix_band_part(x, 0, -1),
}


@pytest.mark.parametrize("dtype", ["float32", "int32", "int64", "bool", "string"])
@pytest.mark.parametrize("case", sorted(GATHER_CASES))
def test_gather_family_parity(case, dtype):
    if dtype in ("bool", "string") and case.startswith(("scatter", "diag", "band")):
        pytest.skip("TF has no CPU kernel for this dtype")
    assert_parity(_with_params(GATHER_CASES[case], dtype))


@pytest.mark.parametrize("case", sorted(GATHER_CASES))
def test_gather_family_partial_shapes(case):
    assert_parity(_with_params(GATHER_CASES[case], static_shape=(None, 3, None)))


@pytest.mark.parametrize("case", sorted(GATHER_CASES))
def test_gather_family_graph_def(case):
    assert_same_graph_def(_with_params(GATHER_CASES[case]))


def test_legacy_gather_import():
    """``Gather`` (validate_indices) is kept for imported graphs."""
    g = tfcompat.Graph()
    with g.as_default():
        x = tfcompat.placeholder(tfcompat.float32, [4, 3, 2])
        from tfcompat.framework.op_helper import apply_op

        y = apply_op("Gather", params=x, indices=[2, 0]).outputs[0]
        assert y.shape.as_list() == [2, 3, 2]
        for backend in ("xla", "reference"):
            with tfcompat.Session(graph=g, backend=backend) as sess:
                out = sess.run(y, {x: PARAMS["float32"]})
            np.testing.assert_array_equal(out, PARAMS["float32"][[2, 0]])


@pytest.mark.parametrize(
    "build",
    [
        lambda tf, x: tf.gather(x, [1, 4]),
        lambda tf, x: tf.gather(x, [-1]),
        lambda tf, x: tf.gather_nd(x, [[0, 5]]),
        lambda tf, x: tf.scatter_nd([[7]], x[0, 0, :1], [4]),
    ],
    ids=["gather_high", "gather_negative", "gather_nd", "scatter_nd"],
)
def test_out_of_range_indices(build):
    """Reference backend (like TF on CPU) raises InvalidArgumentError naming the op; XLA reads
    zeros / drops updates (like TF on GPU)."""
    program = _with_params(build)
    tf = __import__("tests.oracle", fromlist=["tf1"]).tf1()
    with pytest.raises(tf.errors.InvalidArgumentError):
        run(tf, program)
    with pytest.raises(
        tfcompat.errors.InvalidArgumentError, match=r"node (GatherV2|GatherNd|ScatterNd)"
    ):
        run(tfcompat, program, backend="reference")
    out = run(tfcompat, program, backend="xla").values
    assert np.all((np.asarray(out) == 0) | np.isin(np.asarray(out), PARAMS["float32"]))


def _kernel_messages(build):
    """The InvalidArgumentError message of running ``build(tf)`` under TF (its kernel's
    line, without TF's "Graph execution error" wrapping) and under our reference backend."""
    tf = __import__("tests.oracle", fromlist=["tf1"]).tf1()
    messages = []
    for module, kwargs in ((tf, {}), (tfcompat, {"backend": "reference"})):
        with module.Graph().as_default():
            out = build(module)
            with module.Session(**kwargs) as sess:
                with pytest.raises(module.errors.InvalidArgumentError) as raised:
                    sess.run(out)
        messages.append(raised.value.message.split("\n\t [[")[0].rsplit("\n", 1)[-1])
    return messages


@pytest.mark.parametrize("rows", [2, 0])
def test_scatter_nd_without_index_dimensions_fails_as_in_tf(rows):
    theirs, ours = _kernel_messages(
        lambda tf: tf.scatter_nd(tf.zeros([rows, 0], tf.int32), tf.ones([rows, 3, 2]), [3, 2])
    )
    assert ours == theirs


@pytest.mark.parametrize(
    "indices",
    [[[7, 1], [0, 0], [3, 5]], [[[0, 1]], [[9, 0]]], [[0, 1], [1, 9], [0, 0]], [[0, 9], [8, 0]]],
    ids=["last_of_two", "nested_place", "second_axis", "two_bad"],
)
@pytest.mark.parametrize("op", ["gather_nd", "scatter_nd"])
def test_nd_out_of_range_message_is_tfs(indices, op):
    """The CPU kernels' message: the last bad index by its place in ``indices``."""

    def build(tf):
        index = tf.constant(indices)
        if op == "gather_nd":
            return tf.gather_nd(tf.constant(PARAMS["float32"][:, :, 0]), index)
        return tf.scatter_nd(index, tf.ones(np.asarray(indices).shape[:-1]), [4, 3])

    theirs, ours = _kernel_messages(build)
    assert ours == theirs


# ---------------------------------------------------------------------------------------------
# one_hot
# ---------------------------------------------------------------------------------------------
ONE_HOT_CASES = {
    "default": lambda tf, i: tf.one_hot(i, 4),
    "values": lambda tf, i: tf.one_hot(i, 4, on_value=5, off_value=-1),
    "axis0": lambda tf, i: tf.one_hot(i, 3, axis=0, dtype=tf.int64),
    "axis1": lambda tf, i: tf.one_hot(i, 5, axis=1, on_value=True, off_value=False),
    "float_off": lambda tf, i: tf.one_hot(i, 2, off_value=-1.0),
    "dtype": lambda tf, i: tf.one_hot(i, 4, dtype=tf.int32),
}


@pytest.mark.parametrize("index_dtype", ["int32", "int64"])
@pytest.mark.parametrize("case", sorted(ONE_HOT_CASES))
def test_one_hot(case, index_dtype):
    indices = np.array([[0, 3, -1], [2, 9, 1]], index_dtype)  # -1 and 9 are all-off rows

    def program(tf):
        i = tf.placeholder(getattr(tf, index_dtype), [None, 3])
        return ONE_HOT_CASES[case](tf, i), {i: indices}

    assert_parity(program)
    assert_same_graph_def(program)


# ---------------------------------------------------------------------------------------------
# unique (host op)
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "int32", "int64", "string"])
@pytest.mark.parametrize("out_idx", ["int32", "int64"])
def test_unique(dtype, out_idx):
    base = {
        "float32": [3.0, 1.0, 3.0, 2.0, 1.0, 5.0],
        "int32": [7, 7, -1, 3, -1, 0],
        "int64": [2, 9, 9, 2, 4, 4],
        "string": [b"b", b"a", b"b", b"c", b"a", b"d"],
    }[dtype]
    value = np.array(base, dtype=object if dtype == "string" else dtype)

    def program(tf):
        x = tf.placeholder(getattr(tf, dtype), [6])
        y, idx = tf.unique(x, out_idx=getattr(tf, out_idx))
        return [y, idx], {x: value}

    assert_parity(program)
    assert_same_graph_def(program)


@settings(max_examples=15, deadline=None)
@given(
    values=st.lists(st.integers(-3, 3), min_size=1, max_size=12),
    as_bytes=st.booleans(),
)
def test_unique_orders_by_first_appearance_as_tf(values, as_bytes):
    value = (
        np.array([b"k%d" % v for v in values], dtype=object)
        if as_bytes
        else np.array(values, np.int64)
    )

    def program(tf):
        x = tf.placeholder(tf.string if as_bytes else tf.int64, [None])
        y, idx = tf.unique(x)
        return [y, idx], {x: value}

    assert_parity(program)


def test_dynamic_stitch_keeps_the_last_of_repeated_indices():
    def program(tf):
        data = [tf.constant([[1.0], [2.0], [3.0]]), tf.constant([[4.0], [5.0]])]
        return tf.dynamic_stitch([[0, 2, 0], [2, 1]], data), {}

    assert_parity(program)


# ---------------------------------------------------------------------------------------------
# diagonals
# ---------------------------------------------------------------------------------------------
DIAG_CASES = {
    "diag": lambda tf, x: tf.diag(x[0]),
    "tensor_diag_part": lambda tf, x: tf.linalg.tensor_diag_part(tf.diag(x[0])),
    "matrix_diag": lambda tf, x: tf.matrix_diag(x),
    "matrix_diag_k": lambda tf, x: tf.linalg.diag(x, k=1),
    "matrix_diag_k_neg": lambda tf, x: tf.linalg.diag(x, k=-2, padding_value=9),
    "matrix_diag_part": lambda tf, x: tf.linalg.diag_part(x),
    "matrix_diag_part_k": lambda tf, x: tf.linalg.diag_part(x, k=1),
}


@pytest.mark.parametrize("dtype", ["float32", "int32", "int64"])
@pytest.mark.parametrize("case", sorted(DIAG_CASES))
def test_diagonals(case, dtype):
    program = _with_params(DIAG_CASES[case], dtype)
    assert_parity(program)
    assert_same_graph_def(program)


# ---------------------------------------------------------------------------------------------
# composites built on other families' ops (Where, Prod, Range, Less, Cast, ...)
# ---------------------------------------------------------------------------------------------
def _needs(*op_types):
    missing = [t for t in op_types if t not in OPDEFS]
    return pytest.mark.skipif(bool(missing), reason=f"ops not registered yet: {missing}")


MASK_CASES = {
    "rows": (lambda tf, x, m: tf.boolean_mask(x, m[:, 0, 0]),),
    "two_dims": (lambda tf, x, m: tf.boolean_mask(x, m[:, :, 0]),),
    "axis1": (lambda tf, x, m: tf.boolean_mask(x, m[0, :, 0], axis=1),),
    "getitem": (lambda tf, x, m: x[m[:, 0, 0]],),
}


@_needs("Where", "Prod")
@pytest.mark.parametrize("dtype", ["float32", "int64", "string"])
@pytest.mark.parametrize("case", sorted(MASK_CASES))
def test_boolean_mask(case, dtype):
    (build,) = MASK_CASES[case]
    mask = PARAMS["bool"]

    def program(tf):
        x = tf.placeholder(getattr(tf, dtype), [4, 3, 2])
        m = tf.placeholder(tf.bool, [4, 3, 2])
        return build(tf, x, m), {x: PARAMS[dtype], m: mask}

    assert_parity(program, backends=("reference", "xla"))
    assert_same_graph_def(program)


@_needs("Range", "Less", "Cast", "Max", "Maximum")
@pytest.mark.parametrize(
    "build, backends",
    [
        # maxlen = max(lengths) of fed lengths: a value-dependent shape, which only the
        # reference backend can run (XLA reports it).
        (lambda tf, n: tf.sequence_mask(n), ("reference",)),
        (lambda tf, n: tf.sequence_mask(n, 5, dtype=tf.float32), ("xla", "reference")),
        (lambda tf, n: tf.sequence_mask([[0, 2], [1, 1]], maxlen=3), ("xla", "reference")),
    ],
    ids=["default", "maxlen_float", "rank2"],
)
def test_sequence_mask(build, backends):
    def program(tf):
        n = tf.placeholder(tf.int32, [3])
        return build(tf, n), {n: np.array([0, 4, 2], np.int32)}

    assert_parity(program, backends=backends)
    if "xla" in backends:  # assert_same_graph_def runs the program under XLA
        assert_same_graph_def(program)


@_needs("Where", "Prod", "LogicalNot")
@pytest.mark.parametrize("init_first", [False, True])
def test_report_uninitialized_variables(init_first):
    def program(tf):
        a = tf.Variable(1.0, name="a")
        tf.Variable([2, 3], name="b")
        report = tf.report_uninitialized_variables()
        empty = tf.report_uninitialized_variables([])
        if init_first:
            return [report, empty, a.initializer]
        return [report, empty]

    for tf in (__import__("tests.oracle", fromlist=["tf1"]).tf1(), tfcompat):
        graph = tf.Graph()
        with graph.as_default():
            fetches = program(tf)
            with tf.Session(graph=graph) as sess:
                if init_first:
                    sess.run(fetches[2])
                out = sess.run(fetches[:2])
        expected = [b"b"] if init_first else [b"a", b"b"]
        assert list(out[0]) == expected
        assert out[1].shape == (0,) and out[1].dtype == object
    assert_same_graph_def(
        lambda tf: program(tf)[:2],
    )
