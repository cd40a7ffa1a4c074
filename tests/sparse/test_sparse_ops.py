"""TF 2.21 parity of the sparse ops: values, dtypes, static shapes, gradients, GraphDefs."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, assert_same_graph_def

IDX = np.array([[0, 0], [0, 2], [1, 1], [3, 0], [3, 3]], np.int64)
VAL = np.array([1.0, -2.0, 3.0, 4.5, -1.0], np.float32)
SHAPE = np.array([4, 5], np.int64)


IDS = np.array([1, 3, 3, 9, 0], np.int64)


def _fed(tf, dtype=None, shape=(None, None)):
    sp = tf.sparse_placeholder(dtype or tf.float32, shape=list(shape), name="sp")
    value = tf.SparseTensorValue(IDX, VAL if dtype is None else IDS, SHAPE)
    return sp, {sp: value}


def _const(tf):
    return tf.SparseTensor(IDX, VAL, SHAPE)


def _to_dense(tf):
    sp, feed = _fed(tf)
    return [tf.sparse_tensor_to_dense(sp), tf.sparse.to_dense(sp, default_value=7.0)], feed


def _sparse_to_dense(tf):
    return [
        tf.sparse_to_dense(IDX, SHAPE, VAL, default_value=-1.0),
        tf.sparse_to_dense(np.array([1, 3]), [5], 2.0),
    ]


def _matmul(tf):
    sp, feed = _fed(tf)
    b = tf.constant(np.arange(15, dtype=np.float32).reshape(5, 3))
    bt = tf.constant(np.arange(12, dtype=np.float32).reshape(4, 3))
    c = tf.constant(np.arange(8, dtype=np.float32).reshape(2, 4))
    outs = [
        tf.sparse_tensor_dense_matmul(sp, b),
        tf.sparse_tensor_dense_matmul(sp, bt, adjoint_a=True),
        tf.sparse_tensor_dense_matmul(sp, tf.transpose(b), adjoint_b=True),
        tf.sparse_tensor_dense_matmul(c, _const(tf)),
    ]
    return outs, feed


def _matmul_grad(tf):
    sp, feed = _fed(tf)
    b = tf.Variable(np.arange(15, dtype=np.float32).reshape(5, 3) / 7, name="b")
    y = tf.sparse_tensor_dense_matmul(sp, b)
    return tf.gradients(tf.reduce_sum(y * y), [sp.values, b]), feed


def _reduce_sum(tf):
    sp, feed = _fed(tf)
    return [
        tf.sparse_reduce_sum(sp),
        tf.sparse_reduce_sum(sp, axis=1),
        tf.sparse_reduce_sum(_const(tf), axis=0, keepdims=True),
        tf.gradients(tf.reduce_sum(tf.sparse_reduce_sum(sp, axis=1) ** 2), sp.values)[0],
    ], feed


def _reshape(tf):
    sp, feed = _fed(tf)
    r = tf.sparse_reshape(sp, [2, -1])
    c = tf.sparse_reshape(_const(tf), [5, 4])
    return [r.indices, r.values, r.dense_shape, c.indices, c.dense_shape], feed


def _concat(tf):
    a = _const(tf)
    b = tf.SparseTensor([[0, 1], [2, 0]], [5.0, 6.0], [3, 5])
    c = tf.sparse_concat(0, [a, b])
    d = tf.sparse_concat(1, [a, tf.SparseTensor([[1, 0]], [9.0], [4, 2])])
    return [c.indices, c.values, c.dense_shape, d.indices, d.values, d.dense_shape]


def _fill_empty_rows(tf):
    sp, feed = _fed(tf)
    filled, empty = tf.sparse_fill_empty_rows(sp, -5.0)
    grad = tf.gradients(tf.reduce_sum(filled.values * filled.values), sp.values)[0]
    return [filled.indices, filled.values, filled.dense_shape, empty, grad], feed


def _retain(tf):
    sp, feed = _fed(tf)
    kept = tf.sparse_retain(sp, [True, False, True, False, True])
    return [kept.indices, kept.values, kept.dense_shape], feed


def _from_dense(tf):
    x = tf.constant([[0.0, 1.0, 0.0], [2.0, 0.0, 3.0]])
    s = tf.sparse.from_dense(x)
    return [s.indices, s.values, s.dense_shape]


def _to_indicator(tf):
    sp = tf.SparseTensor([[0, 0], [0, 1], [2, 0]], [3, 1, 4], [3, 2])
    return tf.sparse_to_indicator(sp, 6)


def _cross_hashed(tf):
    a = tf.SparseTensor([[0, 0], [0, 1], [1, 0]], tf.constant([3, 8, 5], tf.int64), [2, 2])
    b = tf.SparseTensor([[0, 0], [1, 0], [1, 1]], tf.constant(["x", "y", "z"]), [2, 2])
    d = tf.constant([[11], [12]], tf.int64)
    h = tf.sparse.cross_hashed([a, b, d], num_buckets=1000)
    u = tf.sparse.cross_hashed([a, b])
    return [h.indices, h.values, h.dense_shape, u.values]


def _sparse_add(tf):
    a = _const(tf)
    b = tf.SparseTensor([[0, 0], [2, 2], [3, 3]], [1.0, 0.5, 1.0], [4, 5])
    s = tf.sparse.add(a, b)
    t = tf.sparse_add(a, b, threshold=0.75)
    dense = tf.sparse.add(a, tf.ones([4, 5]))
    return [s.indices, s.values, s.dense_shape, t.indices, t.values, dense]


PROGRAMS = {
    "to_dense": _to_dense,
    "sparse_to_dense": _sparse_to_dense,
    "matmul": _matmul,
    "matmul_grad": _matmul_grad,
    "reduce_sum": _reduce_sum,
    "reshape": _reshape,
    "concat": _concat,
    "fill_empty_rows": _fill_empty_rows,
    "retain": _retain,
    "from_dense": _from_dense,
    "to_indicator": _to_indicator,
    "cross_hashed": _cross_hashed,
    "sparse_add": _sparse_add,
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_parity(name):
    assert_parity(PROGRAMS[name], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_graph_def(name):
    assert_same_graph_def(PROGRAMS[name])


# -- sparse segment reductions ----------------------------------------------------------------
DATA = np.arange(24, dtype=np.float32).reshape(6, 4) / 5 - 1
SEG_IDX = np.array([0, 2, 2, 5, 1, 0], np.int32)
SEG_IDS = np.array([0, 0, 1, 3, 3, 3], np.int32)


@pytest.mark.parametrize("reduction", ["sum", "mean", "sqrt_n"])
@pytest.mark.parametrize("num_segments", [None, 5])
@pytest.mark.parametrize("sparse_gradient", [False, True])
def test_segment_parity(reduction, num_segments, sparse_gradient):
    def program(tf):
        data = tf.Variable(DATA, name="data")
        idx = tf.placeholder(tf.int32, [None], name="idx")
        ids = tf.placeholder(tf.int32, [None], name="ids")
        fn = getattr(tf.sparse, f"segment_{reduction}")
        out = fn(data, idx, ids, num_segments=num_segments, sparse_gradient=sparse_gradient)
        grad = tf.gradients(tf.reduce_sum(out * out), data)[0]
        parts = [grad.values, grad.indices] if sparse_gradient else [grad]
        return [out, *parts], {idx: SEG_IDX, ids: SEG_IDS}

    assert_parity(program, rtol=1e-5, atol=1e-5)
    assert_same_graph_def(program)


def test_embedding_lookup_sparse_graph_and_values():
    def program(tf):
        sp, feed = _fed(tf, tf.int64)
        w = tf.Variable(np.arange(40, dtype=np.float32).reshape(10, 4) / 10, name="w")
        weights = tf.SparseTensor(
            sp.indices, tf.abs(tf.cast(sp.values, tf.float32) / 3), sp.dense_shape
        )
        outs = [
            tf.nn.embedding_lookup_sparse(w, sp, None, combiner=c) for c in ("sum", "mean", "sqrtn")
        ]
        outs += [
            tf.nn.embedding_lookup_sparse(w, sp, weights, combiner=c)
            for c in ("sum", "mean", "sqrtn")
        ]
        grads = tf.gradients(tf.add_n([tf.reduce_sum(o) for o in outs]), w)
        return [outs, tf.convert_to_tensor(grads[0])], feed

    assert_parity(program, rtol=1e-5, atol=1e-5)
    assert_same_graph_def(program)


@pytest.mark.parametrize("default_id", [None, 2])
@pytest.mark.parametrize("with_weights", [False, True])
def test_safe_embedding_lookup_sparse(default_id, with_weights):
    def program(tf):
        sp = tf.sparse_placeholder(tf.int64, shape=[None, None], name="sp")
        ids = tf.SparseTensorValue(
            np.array([[0, 0], [0, 1], [2, 0], [3, 1]]), np.array([1, -1, 4, 7]), np.array([5, 2])
        )
        w = tf.Variable(np.arange(40, dtype=np.float32).reshape(10, 4) / 10, name="w")
        weights = None
        if with_weights:
            weights = tf.SparseTensor(
                sp.indices, tf.constant([1.0, 2.0, -1.0, 0.5]), sp.dense_shape
            )
        out = tf.nn.safe_embedding_lookup_sparse(w, sp, weights, default_id=default_id)
        return [out, tf.convert_to_tensor(tf.gradients(tf.reduce_sum(out), w)[0])], {sp: ids}

    assert_parity(program, rtol=1e-5, atol=1e-5)
    assert_same_graph_def(program)


def test_feed_and_fetch_sparse_tensor_value():
    def program(tf):
        sp, feed = _fed(tf)
        return [sp, tf.SparseTensor(sp.indices, sp.values * 2, sp.dense_shape)], feed

    theirs, ours = assert_parity(program)
    assert type(ours.values[0]).__name__ == "SparseTensorValue"


@pytest.mark.parametrize(
    "program, error",
    [
        (lambda tf: tf.sparse_tensor_to_dense(tf.constant([1.0])), TypeError),
        (lambda tf: tf.sparse_reshape(_const(tf), [3, -1]), ValueError),
        (lambda tf: tf.sparse_reshape(_const(tf), [-1, -1]), ValueError),
        (
            lambda tf: tf.nn.embedding_lookup_sparse(
                tf.ones([3, 2]), _const(tf), None, combiner="x"
            ),
            ValueError,
        ),
    ],
)
def test_build_errors(program, error):
    import tfcompat
    from tests.oracle import tf1

    for module in (tf1(), tfcompat):
        with module.Graph().as_default(), pytest.raises(error):
            program(module)


def test_run_time_errors():
    import tfcompat
    from tests.oracle import tf1

    def program(tf):
        sp = tf.sparse_placeholder(tf.float32, shape=[None, None], name="sp")
        value = tf.SparseTensorValue(
            np.array([[0, 7]]), np.array([1.0], np.float32), np.array([2, 3])
        )
        return tf.sparse_tensor_to_dense(sp), {sp: value}

    for module, backend in ((tf1(), None), (tfcompat, "reference")):
        graph = module.Graph()
        with graph.as_default():
            fetch, feed = program(module)
            kwargs = {"backend": backend} if backend else {}
            with module.Session(graph=graph, **kwargs) as sess:
                with pytest.raises(module.errors.InvalidArgumentError):
                    sess.run(fetch, feed)


@pytest.mark.parametrize("validate", [True, False])
@pytest.mark.parametrize(
    "indices",
    [[[0, 1], [5, 0], [1, 7]], [[0, 1], [0, 0]], [[0, 1], [0, 1]], [[1, 0], [0, 3], [0, 3]]],
    ids=["out_of_bounds", "out_of_order", "repeated", "order_before_repeat"],
)
def test_sparse_to_dense_index_errors_are_tfs(indices, validate):
    """TF's CPU kernel checks each entry in turn (bounds, then row-major order against the
    one before) when ``validate_indices``, and only bounds otherwise."""
    from tests.oracle import tf1

    outcomes = []
    for module, kwargs in ((tf1(), {}), (tfcompat, {"backend": "reference"})):
        with module.Graph().as_default():
            index = module.constant(indices, module.int64)
            dense = module.sparse_to_dense(index, [3, 4], 1.0, validate_indices=validate)
            with module.Session(**kwargs) as sess:
                try:
                    outcomes.append(sess.run(dense).tolist())
                except module.errors.InvalidArgumentError as e:
                    outcomes.append(
                        e.message.split("\n\t [[")[0].split("Node: 'SparseToDense'\n")[-1]
                    )
    assert outcomes[1] == outcomes[0]
