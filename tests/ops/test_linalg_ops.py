"""Linear algebra vs TF 2.21: ``Qr`` and ``MatrixTriangularSolve`` values and gradients, the
``Einsum`` gradient (unary and binary equations, reductions, traces, ellipsis broadcasting),
gradient-graph node names, and registered gradients against ``jax.vjp`` of the lowerings."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from lowering.gradcheck import check_gradients
from tests.ops.nn_helpers import sample
from tests.oracle import assert_parity, assert_same_graph_def

_TOL = {"rtol": 1e-4, "atol": 1e-4}


def _grad_program(build, arrays, dtype=np.float64):
    """``tf.gradients`` of ``sum(build(*xs) * w)`` (a fixed random cotangent ``w``)."""

    def program(tf):
        xs = [tf.constant(a.astype(dtype), name=f"x{i}") for i, a in enumerate(arrays)]
        out = build(tf, *xs)
        outs = out if isinstance(out, (list, tuple)) else [out]
        loss = tf.add_n(
            [
                tf.reduce_sum(o * tf.constant(sample(o.shape.as_list(), dtype, seed=50 + i)))
                for i, o in enumerate(outs)
            ]
        )
        return [*outs, *tf.gradients(loss, xs)]

    return program


def _jax_check(build, arrays, dtype=np.float64, atol=1e-6):
    graph = tfcompat.Graph()
    with graph.as_default():
        xs = [tfcompat.placeholder(dtype, a.shape, name=f"x{i}") for i, a in enumerate(arrays)]
        out = build(tfcompat, *xs)
        outs = out if isinstance(out, (list, tuple)) else [out]
        feed = {x: a.astype(dtype) for x, a in zip(xs, arrays)}
        report = check_gradients(list(outs), xs, feed_dict=feed)
    report.assert_close(atol=atol, rtol=1e-5)


# ---------------------------------------------------------------------------------------------
# Einsum
# ---------------------------------------------------------------------------------------------
EINSUM_CASES = {
    "matmul": ("ij,jk->ik", [(3, 4), (4, 5)]),
    "batch_matmul": ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    "outer": ("i,j->ij", [(3,), (4,)]),
    "dot": ("i,i->", [(5,), (5,)]),
    "reduce_x": ("abc,cd->ad", [(2, 3, 4), (4, 5)]),
    "reduce_both": ("abc,cde->ae", [(2, 3, 4), (4, 2, 5)]),
    "trace_in_binary": ("iij,jk->ik", [(3, 3, 4), (4, 2)]),
    "transpose_binary": ("ij,jk->ki", [(3, 4), (4, 5)]),
    "ellipsis_same": ("...ij,...jk->...ik", [(2, 3, 4), (2, 4, 5)]),
    "ellipsis_broadcast": ("...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    "ellipsis_one_side": ("...ij,jk->...ik", [(2, 3, 4), (4, 5)]),
    "ellipsis_middle": ("a...b,b...->a...", [(2, 3, 4), (4, 3)]),
    "unary_transpose": ("ij->ji", [(3, 4)]),
    "unary_sum": ("abcd->ac", [(2, 3, 4, 5)]),
    "unary_sum_transpose": ("abc->ca", [(2, 3, 4)]),
    "unary_trace": ("ii->", [(4, 4)]),
    "unary_diag": ("ii->i", [(4, 4)]),
    "unary_generalized_trace": ("aabbcd->ca", [(2, 2, 3, 3, 4, 5)]),
    "unary_ellipsis_reduce": ("...ij->...j", [(2, 3, 4, 5)]),
}


def _einsum(equation):
    return lambda tf, *xs: tf.einsum(equation, *xs)


@pytest.mark.parametrize("case", sorted(EINSUM_CASES))
def test_einsum_gradient_values_match_tf(case):
    equation, shapes = EINSUM_CASES[case]
    arrays = [sample(s, np.float64, seed=i) for i, s in enumerate(shapes)]
    assert_parity(_grad_program(_einsum(equation), arrays), **_TOL)


@pytest.mark.parametrize("case", sorted(EINSUM_CASES))
def test_einsum_gradient_matches_jax_vjp(case):
    equation, shapes = EINSUM_CASES[case]
    arrays = [sample(s, np.float64, seed=i) for i, s in enumerate(shapes)]
    _jax_check(_einsum(equation), arrays)


@pytest.mark.parametrize(
    "case", ["reduce_x", "trace_in_binary", "ellipsis_broadcast", "unary_sum", "unary_trace"]
)
def test_einsum_gradient_graph_names_match_tf(case):
    equation, shapes = EINSUM_CASES[case]
    arrays = [sample(s, np.float32, seed=i) for i, s in enumerate(shapes)]
    assert_same_graph_def(_grad_program(_einsum(equation), arrays, np.float32))


def test_einsum_gradient_with_unknown_batch():
    x = sample((2, 3, 4), np.float32)
    y = sample((4, 5), np.float32, seed=1)

    def program(tf):
        a = tf.placeholder(tf.float32, [None, 3, 4])
        b = tf.placeholder(tf.float32, [4, None])
        out = tf.einsum("...ij,jk->...ik", a, b)
        return tf.gradients(tf.reduce_sum(out * out), [a, b]), {a: x, b: y}

    assert_parity(program, **_TOL)


# ---------------------------------------------------------------------------------------------
# MatrixTriangularSolve
# ---------------------------------------------------------------------------------------------
def _well_conditioned(shape, seed):
    a = sample(shape, np.float64, seed=seed, scale=0.3)
    return a + 3.0 * np.eye(shape[-1])


SOLVE_CASES = {
    "lower": ((4, 4), (4, 3), True, False),
    "upper": ((4, 4), (4, 2), False, False),
    "lower_adjoint": ((3, 3), (3, 2), True, True),
    "upper_adjoint_batch": ((2, 3, 3), (2, 3, 2), False, True),
    "broadcast_matrix": ((3, 3), (2, 3, 4), True, False),
    "broadcast_rhs": ((2, 1, 3, 3), (4, 3, 1), False, False),
}


@pytest.mark.parametrize("case", sorted(SOLVE_CASES))
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_triangular_solve_values_and_gradients_match_tf(case, dtype):
    a_shape, b_shape, lower, adjoint = SOLVE_CASES[case]
    arrays = [_well_conditioned(a_shape, 0), sample(b_shape, np.float64, seed=1)]

    def build(tf, a, b):
        return tf.linalg.triangular_solve(a, b, lower=lower, adjoint=adjoint)

    tol = {"rtol": 1e-3, "atol": 1e-4} if dtype == np.float32 else _TOL
    assert_parity(_grad_program(build, arrays, dtype), **tol)
    _jax_check(build, arrays)


def test_triangular_solve_graph_and_shape_errors():
    a, b = _well_conditioned((3, 3), 0), sample((3, 2), np.float32)

    def program(tf):
        x, y = tf.constant(a.astype(np.float32)), tf.constant(b)
        out = tf.matrix_triangular_solve(x, y, lower=False, adjoint=True)
        return tf.gradients(out, [x, y])

    assert_same_graph_def(program)
    with tfcompat.Graph().as_default():
        with pytest.raises(ValueError, match="Dimensions must be equal"):
            tfcompat.linalg.triangular_solve(tfcompat.zeros([3, 4]), tfcompat.zeros([3, 2]))
        with pytest.raises(ValueError, match="Dimensions must be equal"):
            tfcompat.linalg.triangular_solve(tfcompat.zeros([3, 3]), tfcompat.zeros([4, 2]))


# ---------------------------------------------------------------------------------------------
# Qr
# ---------------------------------------------------------------------------------------------
QR_CASES = {
    "square": ((4, 4), False),
    "deep": ((5, 3), False),
    "wide": ((3, 5), False),
    "batch_deep": ((2, 4, 3), False),
    "full_square": ((3, 3), True),
    "full_wide": ((2, 4), True),
}


@pytest.mark.parametrize("case", sorted(QR_CASES))
def test_qr_values_and_gradients_match_tf(case):
    shape, full = QR_CASES[case]
    arrays = [sample(shape, np.float64, seed=3)]

    def build(tf, a):
        return list(tf.linalg.qr(a, full_matrices=full))

    assert_parity(_grad_program(build, arrays), **_TOL)
    _jax_check(build, arrays, atol=1e-5)


def test_qr_gradient_graph_names_match_tf():
    arrays = [sample((3, 5), np.float32, seed=3)]
    assert_same_graph_def(_grad_program(lambda tf, a: list(tf.qr(a)), arrays, np.float32))


def test_qr_gradient_refuses_what_tf_refuses():
    with tfcompat.Graph().as_default():
        q, r = tfcompat.linalg.qr(tfcompat.zeros([5, 3]), full_matrices=True)
        with pytest.raises(NotImplementedError, match="nrows > ncols"):
            tfcompat.gradients(q, [q.op.inputs[0]])
        x = tfcompat.placeholder(tfcompat.float32, [None, None])
        q, r = tfcompat.linalg.qr(x)
        with pytest.raises(NotImplementedError, match="dynamic shapes"):
            tfcompat.gradients(r, [x])
