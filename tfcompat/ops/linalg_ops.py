"""Linear algebra (TF's ``linalg_ops`` and ``linalg_grad``): ``Qr``, inverse, determinants,
``MatrixSolve``, ``trace``, ``eye`` and
``MatrixTriangularSolve`` with their wrappers and gradients, ``tf.linalg.matrix_transpose`` /
``adjoint``, and the gradient of ``Einsum`` (the op itself lives with the reductions).

Gradients build the ops TF 2.21 builds, with the same names. Complex inputs are not
differentiated here (tfcompat's matmul is real-only).
"""

from __future__ import annotations

from tfcompat.framework import common_shapes, dtypes, tensor_shape
from tfcompat.framework.gradient_registry import RegisterGradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op, convert_to_tensor, op_outputs
from tfcompat.framework.scopes import name_scope
from tfcompat.util.tf_export import tf_export


# ---------------------------------------------------------------------------------------------
# Qr
# ---------------------------------------------------------------------------------------------
def _qr_shape(op):
    shape = op.inputs[0].shape.with_rank_at_least(2)
    if shape.rank is None:
        return [shape, shape]
    batch, (m, n) = shape[:-2], shape.as_list()[-2:]
    p = None if m is None or n is None else min(m, n)
    if op.attrs["full_matrices"]:
        return [batch.concatenate([m, m]), batch.concatenate([m, n])]
    return [batch.concatenate([m, p]), batch.concatenate([p, n])]


register_op(
    "Qr",
    inputs=["input: T"],
    outputs=["q: T", "r: T"],
    attrs=["full_matrices: bool = false", "T: {double, float, half, complex64, complex128}"],
    shape_fn=_qr_shape,
)


@tf_export("linalg.qr", "qr")
def qr(input, full_matrices=False, name=None):  # noqa: A002 - TF's argument name
    """The QR decomposition of each innermost matrix: ``(q, r)``."""
    return op_outputs(apply_op("Qr", name=name, input=input, full_matrices=full_matrices))


# ---------------------------------------------------------------------------------------------
# MatrixTriangularSolve
# ---------------------------------------------------------------------------------------------
def _triangular_solve_shape(op):
    matrix = op.inputs[0].shape.with_rank_at_least(2)
    rhs = op.inputs[1].shape.with_rank_at_least(2)
    if matrix.rank is None or rhs.rank is None:
        return [tensor_shape.unknown_shape()]
    m_rows, m_cols = matrix[-2], matrix[-1]
    if not m_rows.is_compatible_with(m_cols):
        raise ValueError(f"Dimensions must be equal, but are {m_rows} and {m_cols}")
    if not m_rows.is_compatible_with(rhs[-2]):
        raise ValueError(f"Dimensions must be equal, but are {m_rows} and {rhs[-2]}")
    batch = common_shapes.broadcast(matrix[:-2], rhs[:-2])
    return [batch.concatenate([rhs[-2].merge_with(m_rows), rhs[-1]])]


register_op(
    "MatrixTriangularSolve",
    inputs=["matrix: T", "rhs: T"],
    outputs=["output: T"],
    attrs=[
        "lower: bool = true",
        "adjoint: bool = false",
        "T: {bfloat16, double, float, half, complex64, complex128}",
    ],
    shape_fn=_triangular_solve_shape,
)


@tf_export("linalg.triangular_solve", "matrix_triangular_solve")
def matrix_triangular_solve(matrix, rhs, lower=True, adjoint=False, name=None):
    """Solves ``matrix @ x = rhs`` (or ``adjoint(matrix) @ x = rhs``) for ``x``, reading only
    the lower (or upper) triangle of each innermost ``matrix``; batch dimensions broadcast."""
    with name_scope(name, "triangular_solve", [matrix, rhs]):
        return apply_op(
            "MatrixTriangularSolve", matrix=matrix, rhs=rhs, lower=lower, adjoint=adjoint
        ).outputs[0]


@tf_export("linalg.matrix_transpose", "linalg.transpose", "matrix_transpose")
def matrix_transpose(a, name="matrix_transpose", conjugate=False):
    """Swaps the two innermost dimensions of ``a`` (conjugating when asked)."""
    from tfcompat.ops import array_ops, join_ops

    with name_scope(name, None, [a]):
        a = convert_to_tensor(a, name="a")
        ndims = a.shape.rank
        if ndims is not None:
            if ndims < 2:
                raise ValueError(
                    "Argument `a` should be a (batch) matrix with rank >= 2.  Received `a` = "
                    f"{a} with shape: {a.shape}"
                )
            perm = list(range(ndims - 2)) + [ndims - 1, ndims - 2]
        else:
            a_rank = array_ops.rank(a)
            head = apply_op("Range", start=0, limit=a_rank - 2, delta=1).outputs[0]
            perm = join_ops.concat((head, [a_rank - 1, a_rank - 2]), 0)
        return array_ops.transpose(a, perm=perm, conjugate=conjugate)


@tf_export("linalg.adjoint")
def adjoint(matrix, name=None):
    """The conjugate transpose of the innermost matrices."""
    with name_scope(name, "adjoint", [matrix]):
        matrix = convert_to_tensor(matrix, name="matrix")
        return matrix_transpose(matrix, conjugate=True)


# ---------------------------------------------------------------------------------------------
# Gradients
# ---------------------------------------------------------------------------------------------
def _unbroadcast_batch(grad_a, grad_b, a, b):
    """Sums each gradient over the batch dimensions its operand was broadcast in (nothing
    to do when both batch shapes are static and equal)."""
    from tfcompat.ops import array_ops, math_ops, reduction_ops

    if (
        a.shape.is_fully_defined()
        and b.shape.is_fully_defined()
        and a.shape[:-2].as_list() == b.shape[:-2].as_list()
    ):
        return grad_a, grad_b
    a_shape, b_shape = array_ops.shape(a), array_ops.shape(b)
    ra, rb = math_ops.broadcast_gradient_args(a_shape[:-2], b_shape[:-2])
    grad_a = array_ops.reshape(reduction_ops.reduce_sum(grad_a, axis=ra), a_shape)
    grad_b = array_ops.reshape(reduction_ops.reduce_sum(grad_b, axis=rb), b_shape)
    return grad_a, grad_b


@RegisterGradient("MatrixTriangularSolve")
def _matrix_triangular_solve_grad(op, grad):
    """For ``c = solve(a, b)``: ``grad_b = solve(adjoint(a), grad)`` and ``grad_a =
    -grad_b @ c^H`` kept to ``a``'s triangle."""
    from tfcompat.ops import gather_ops, math_ops

    a, b = op.inputs
    adjoint_a, lower_a = op.attrs["adjoint"], op.attrs["lower"]
    c = op.outputs[0]
    grad_b = matrix_triangular_solve(a, grad, lower=lower_a, adjoint=not adjoint_a)
    if adjoint_a:
        grad_a = -math_ops.matmul(c, grad_b, adjoint_b=True)
    else:
        grad_a = -math_ops.matmul(grad_b, c, adjoint_b=True)
    band = (-1, 0) if lower_a else (0, -1)
    grad_a = gather_ops.matrix_band_part(grad_a, *band)
    return _unbroadcast_batch(grad_a, grad_b, a, b)


def _solve_with_upper(x, r):
    """``x @ inverse(r)^H`` for upper-triangular ``r``, as a triangular solve."""
    return adjoint(matrix_triangular_solve(r, adjoint(x), lower=False, adjoint=False))


def _qr_grad_deep(q, r, dq, dr):
    """The QR gradient when rows >= columns (reduced factors)."""
    from tfcompat.ops import gather_ops, math_ops

    qdq = math_ops.matmul(q, dq, adjoint_a=True)
    qdq_ = qdq - adjoint(qdq)
    rdr = math_ops.matmul(r, dr, adjoint_b=True)
    rdr_ = rdr - adjoint(rdr)
    tril = gather_ops.matrix_band_part(qdq_ + rdr_, -1, 0)
    grad_a = math_ops.matmul(q, dr + _solve_with_upper(tril, r))
    grad_b = _solve_with_upper(dq - math_ops.matmul(q, qdq), r)
    grad = grad_a + grad_b
    if q.dtype.is_complex:
        # TF's correction for the imaginary part of diag(R^H dR - dQ^H Q) (the phase gauge).
        from tfcompat.ops import array_ops, complex_ops

        m = rdr - adjoint(qdq)
        eye_m = gather_ops.matrix_set_diag(array_ops.zeros_like(m), gather_ops.matrix_diag_part(m))
        correction = eye_m - math_ops.cast(complex_ops.real(eye_m), q.dtype)
        grad = grad + _solve_with_upper(math_ops.matmul(q, adjoint(correction)), r)
    return grad


@RegisterGradient("Qr")
def _qr_grad(op, dq, dr):
    """TF's QR backpropagation (arXiv:2009.10071): square and deep matrices directly; wide
    ones by splitting ``a = [x, y]`` and ``r = [u, v]`` into a square problem."""
    from tfcompat.ops import join_ops, math_ops

    q, r = op.outputs
    r_dims = r.shape.as_list() if r.shape.rank is not None else None
    if r_dims is None or r_dims[-2] is None or r_dims[-1] is None:
        raise NotImplementedError(
            f"QrGrad not implemented with dynamic shapes. Received r.shape: {r.shape}"
        )
    q_dims = q.shape.as_list()
    if r_dims[-2] > r_dims[-1] and q_dims[-2] == q_dims[-1]:
        raise NotImplementedError(
            "QrGrad not implemented when nrows > ncols and full_matrices is true. Received "
            f"r.shape={r.shape} with nrows={r_dims[-2]}and ncols={r_dims[-1]}."
        )
    num_rows, num_cols = q_dims[-2], r_dims[-1]
    if num_rows >= num_cols:
        return _qr_grad_deep(q, r, dq, dr)
    a = op.inputs[0]
    y = a[..., :, num_rows:]
    u = r[..., :, :num_rows]
    dv = dr[..., :, num_rows:]
    du = dr[..., :, :num_rows]
    dy = math_ops.matmul(q, dv)
    dx = _qr_grad_deep(q, u, dq + math_ops.matmul(y, dv, adjoint_b=True), du)
    return join_ops.concat([dx, dy], axis=-1)


# ---------------------------------------------------------------------------------------------
# Einsum's gradient
# ---------------------------------------------------------------------------------------------
_ELLIPSIS = "..."


def _einsum(inputs, equation):
    return apply_op("Einsum", inputs=list(inputs), equation=equation).outputs[0]


def _axis_of_label(subscripts, label):
    """The axis of ``label``'s leftmost occurrence: counted from the front before an
    ellipsis, from the back (negative) after it; None when absent."""
    parts = subscripts.split(_ELLIPSIS)
    index = parts[0].find(label)
    if index != -1:
        return index
    if len(parts) > 1:
        index = parts[1].find(label)
        if index != -1:
            return index - len(parts[1])
    return None


def _ellipsis_span(subscripts):
    """``(start, end)`` such that ``shape[start:end]`` are the ellipsis dimensions."""
    start = subscripts.find(_ELLIPSIS)
    if start == -1:
        return 0, 0
    remaining = len(subscripts) - start - len(_ELLIPSIS)
    return start, (-remaining if remaining > 0 else None)


def _grad_of_reduction(output_grad, output_subs, input_subs, input_shape, reduced_labels):
    """The gradient of a unary einsum that sums out ``reduced_labels``: broadcast back, then
    undo any trace or transpose with a reversed einsum."""
    from tfcompat.ops import array_ops, join_ops, pad_ops, reduction_ops

    reduced_subs = "".join(reduced_labels)
    reduced_axes = [_axis_of_label(input_subs, s) for s in reduced_subs]
    reduced_dims = join_ops.stack([input_shape[ax] for ax in reduced_axes])
    has_repeats = len(set(input_subs)) + len(set(output_subs)) < len(input_subs) + len(output_subs)
    kept_subs = "".join(s for s in input_subs if s not in reduced_labels)
    if not has_repeats and kept_subs == output_subs:
        # A plain sum over axes: reshape to keep-dims form and broadcast.
        kept_shape = reduction_ops.reduced_shape(input_shape, convert_to_tensor(reduced_axes))
        return pad_ops.broadcast_to(array_ops.reshape(output_grad, kept_shape), input_shape)
    # Prepend the reduced labels, broadcast over them, then map back with an einsum.
    grad_shape = join_ops.concat([reduced_dims, array_ops.shape(output_grad)], axis=0)
    kept_shape = join_ops.concat(
        [
            array_ops.ones(len(reduced_labels), dtype=dtypes.int32),
            array_ops.shape(output_grad),
        ],
        axis=0,
    )
    broadcast = pad_ops.broadcast_to(array_ops.reshape(output_grad, kept_shape), grad_shape)
    return _einsum([broadcast], f"{reduced_subs + output_subs}->{input_subs}")


def _grad_wrt_operand(output_grad, other, input_shape, input_subs, other_subs, output_subs):
    """The gradient of a binary einsum w.r.t. one operand (before un-broadcasting): the
    einsum ``output,other->input``, with labels only that operand has summed out first."""
    reduced_labels = set(input_subs).difference(set(output_subs + other_subs + "."))
    left_subs = "".join(s for s in input_subs if s not in reduced_labels)
    grad_reduced = _einsum([output_grad, other], f"{output_subs},{other_subs}->{left_subs}")
    if not reduced_labels:
        return grad_reduced
    return _grad_of_reduction(grad_reduced, left_subs, input_subs, input_shape, reduced_labels)


@RegisterGradient("Einsum")
def _einsum_grad(op, grad):
    """TF's einsum VJPs: reversed equations, reductions broadcast back, and sums over the
    ellipsis dimensions an operand was broadcast in."""
    from tfcompat.ops import array_ops, math_ops, reduction_ops

    equation = op.attrs["equation"]
    equation = equation.decode() if isinstance(equation, bytes) else equation
    input_subs, output_subs = equation.split("->")
    if len(op.inputs) == 1:
        input_shape = array_ops.shape(op.inputs[0])
        reduced_labels = set(input_subs).difference(set(output_subs + _ELLIPSIS))
        if not reduced_labels:
            return _einsum([grad], f"{output_subs}->{input_subs}")
        return _grad_of_reduction(grad, output_subs, input_subs, input_shape, reduced_labels)

    x_subs, y_subs = input_subs.split(",")
    # "...ij,jk->...ik" is valid with an empty batch for y, but its VJP "...ik,...ij->jk"
    # needs the ellipsis on both operands.
    if _ELLIPSIS in output_subs:
        x_subs += "" if _ELLIPSIS in x_subs else _ELLIPSIS
        y_subs += "" if _ELLIPSIS in y_subs else _ELLIPSIS
    x, y = op.inputs
    if grad.dtype.is_complex:
        x, y = math_ops.conj(x), math_ops.conj(y)
    x_shape, y_shape = array_ops.shape(x), array_ops.shape(y)
    grad_x = _grad_wrt_operand(grad, y, x_shape, x_subs, y_subs, output_subs)
    grad_y = _grad_wrt_operand(grad, x, y_shape, y_subs, x_subs, output_subs)
    if _ELLIPSIS not in output_subs:
        return grad_x, grad_y
    bx_start, bx_end = _ellipsis_span(x_subs)
    by_start, by_end = _ellipsis_span(y_subs)
    xs, ys = x.shape, y.shape
    if (
        xs.is_fully_defined()
        and ys.is_fully_defined()
        and xs[bx_start:bx_end].as_list() == ys[by_start:by_end].as_list()
    ):
        return grad_x, grad_y
    rx, ry = math_ops.broadcast_gradient_args(x_shape[bx_start:bx_end], y_shape[by_start:by_end])
    grad_x = array_ops.reshape(reduction_ops.reduce_sum(grad_x, bx_start + rx), x_shape)
    grad_y = array_ops.reshape(reduction_ops.reduce_sum(grad_y, by_start + ry), y_shape)
    return grad_x, grad_y


# ---------------------------------------------------------------------------------------------
# Inverse, determinants, solve; trace and eye (composites)
# ---------------------------------------------------------------------------------------------
_SQUARE_T = "T: {double, float, half, complex64, complex128}"


def _square(op):
    shape = op.inputs[0].shape.with_rank_at_least(2)
    if shape.rank is not None:
        m, n = shape.as_list()[-2:]
        if m is not None and n is not None and m != n:
            raise ValueError(
                f"Dimensions must be equal, but are {m} and {n} for '{op.name}' (op: '{op.type}')"
            )
    return shape


register_op(
    "MatrixInverse",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=["adjoint: bool = false", _SQUARE_T],
    shape_fn=lambda op: [_square(op)],
)
register_op(
    "MatrixDeterminant",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=["T: {half, float, double, complex64, complex128}"],
    shape_fn=lambda op: [_square(op)[:-2] if _square(op).rank is not None else _square(op)],
)
register_op(
    "LogMatrixDeterminant",
    inputs=["input: T"],
    outputs=["sign: T", "log_abs_determinant: T"],
    attrs=["T: {half, float, double, complex64, complex128}"],
    shape_fn=lambda op: [_square(op)[:-2]] * 2 if _square(op).rank is not None else [None] * 2,
)


def _solve_shape(op):
    matrix = _square(op)
    rhs = op.inputs[1].shape.with_rank_at_least(2)
    if matrix.rank is None or rhs.rank is None:
        return [tensor_shape.unknown_shape()]
    return [matrix[:-1].concatenate(rhs[-1:])]


register_op(
    "MatrixSolve",
    inputs=["matrix: T", "rhs: T"],
    outputs=["output: T"],
    attrs=["adjoint: bool = false", _SQUARE_T],
    shape_fn=_solve_shape,
)


register_op(
    "Cholesky",
    inputs=["input: T"],
    outputs=["output: T"],
    attrs=[_SQUARE_T],
    shape_fn=lambda op: [_square(op)],
)


@tf_export("linalg.cholesky", "cholesky")
def cholesky(input, name=None):  # noqa: A002 - TF's argument name
    """The lower-triangular ``L`` with ``L @ adjoint(L) = input`` for each Hermitian
    positive-definite matrix (only its lower triangle is read)."""
    return apply_op("Cholesky", name=name, input=input).outputs[0]


@tf_export("linalg.cholesky_solve", "cholesky_solve")
def cholesky_solve(chol, rhs, name=None):
    """``X`` with ``A @ X = rhs``, given ``chol = cholesky(A)``: two triangular solves."""
    with name_scope(name, "cholesky_solve", [chol, rhs]):
        # The bare ops, as TF records them (no ``triangular_solve`` scope of the public API).
        y = apply_op("MatrixTriangularSolve", matrix=chol, rhs=rhs, lower=True, adjoint=False)
        y = y.outputs[0]
        x = apply_op("MatrixTriangularSolve", matrix=chol, rhs=y, lower=True, adjoint=True)
        return x.outputs[0]


@RegisterGradient("Cholesky")
def _cholesky_grad(op, grad):
    """TF's: ``0.5 * (S + adjoint(S))`` with ``S = L^-H (Phi(L^H grad)) L^-1``, where
    ``Phi`` keeps the lower triangle and halves the diagonal."""
    from tfcompat.ops import array_ops, gather_ops, matmul_ops

    l = op.outputs[0]  # noqa: E741 - the factor's name in TF and the literature
    num_rows = array_ops.shape(l)[-1]
    batch_shape = array_ops.shape(l)[:-2]
    l_inverse = matrix_triangular_solve(l, eye(num_rows, batch_shape=batch_shape, dtype=l.dtype))
    middle = matmul_ops.matmul(l, grad, adjoint_a=True)
    middle = gather_ops.matrix_set_diag(middle, 0.5 * gather_ops.matrix_diag_part(middle))
    middle = gather_ops.matrix_band_part(middle, -1, 0)
    grad_a = matmul_ops.matmul(matmul_ops.matmul(l_inverse, middle, adjoint_a=True), l_inverse)
    grad_a += adjoint(grad_a)
    return grad_a * 0.5


@tf_export("linalg.inv", "matrix_inverse")
def matrix_inverse(input, adjoint=False, name=None):  # noqa: A002 - TF's argument name
    """The inverse (of the adjoint, with ``adjoint``) of each square matrix."""
    return apply_op("MatrixInverse", name=name, input=input, adjoint=adjoint).outputs[0]


@tf_export("linalg.det", "matrix_determinant")
def matrix_determinant(input, name=None):  # noqa: A002
    """The determinant of each square matrix."""
    return apply_op("MatrixDeterminant", name=name, input=input).outputs[0]


@tf_export("linalg.slogdet", "log_matrix_determinant")
def log_matrix_determinant(input, name=None):  # noqa: A002
    """``(sign, log |det|)`` of each square matrix."""
    return op_outputs(apply_op("LogMatrixDeterminant", name=name, input=input))


@tf_export("linalg.solve", "matrix_solve")
def matrix_solve(matrix, rhs, adjoint=False, name=None):
    """``X`` with ``matrix @ X = rhs`` (``adjoint(matrix)`` with ``adjoint``)."""
    return apply_op("MatrixSolve", name=name, matrix=matrix, rhs=rhs, adjoint=adjoint).outputs[0]


@RegisterGradient("MatrixInverse")
def _matrix_inverse_grad(op, grad):
    from tfcompat.ops import math_ops, matmul_ops

    ainv = op.outputs[0]
    adj = op.attrs["adjoint"]
    inner = matmul_ops.matmul(grad, ainv, adjoint_a=adj, adjoint_b=not adj)
    return [math_ops.negative(matmul_ops.matmul(ainv, inner, adjoint_a=not adj))]


def _det_multipliers(values, like):
    from tfcompat.ops import array_ops

    shape = array_ops.concat([array_ops.shape(like), [1, 1]], 0)
    return array_ops.reshape(values, shape)


@RegisterGradient("MatrixDeterminant")
def _matrix_determinant_grad(op, grad):
    a, c = op.inputs[0], op.outputs[0]
    a_adj_inv = matrix_inverse(a, adjoint=True)
    return [_det_multipliers(grad * c, c) * a_adj_inv]


@RegisterGradient("LogMatrixDeterminant")
def _log_matrix_determinant_grad(op, _, grad_b):
    a_adj_inv = matrix_inverse(op.inputs[0], adjoint=True)
    return [_det_multipliers(grad_b, op.outputs[1]) * a_adj_inv]


@RegisterGradient("MatrixSolve")
def _matrix_solve_grad(op, grad):
    from tfcompat.ops import math_ops, matmul_ops

    a, c = op.inputs[0], op.outputs[0]
    adj = op.attrs["adjoint"]
    grad_b = matrix_solve(a, grad, adjoint=not adj)
    if adj:
        grad_a = math_ops.negative(matmul_ops.matmul(c, grad_b, adjoint_b=True))
    else:
        grad_a = math_ops.negative(matmul_ops.matmul(grad_b, c, adjoint_b=True))
    return [grad_a, grad_b]


@tf_export("linalg.trace", "trace")
def trace(x, name=None):
    """The sum of each matrix's diagonal."""
    from tfcompat.ops import array_ops, reduction_ops

    with name_scope(name, "Trace", [x]) as name:
        x = convert_to_tensor(x, name="x")
        return reduction_ops.reduce_sum(array_ops.matrix_diag_part(x), [-1], name=name)


@tf_export("linalg.eye", "eye")
def eye(num_rows, num_columns=None, batch_shape=None, dtype=dtypes.float32, name=None):
    """Identity matrices (``num_rows`` x ``num_columns``, in a ``batch_shape`` batch); the
    sizes may be tensors (TF's recipe: ones on the diagonal of ``matrix_diag``, or set
    into zeros with ``matrix_set_diag`` when not square)."""
    from tfcompat.framework.tensor import Tensor
    from tfcompat.ops import array_ops, gather_ops, math_ops

    with name_scope(name, "eye", [num_rows, num_columns, batch_shape]):
        is_square = num_columns is None
        batch_shape = [] if batch_shape is None else batch_shape
        num_columns = num_rows if num_columns is None else num_columns
        if isinstance(num_rows, Tensor) or isinstance(num_columns, Tensor):
            diag_size = math_ops.minimum(num_rows, num_columns)
        else:
            if not isinstance(num_rows, int) or not isinstance(num_columns, int):
                raise TypeError("num_rows and num_columns must be positive integer values.")
            is_square = num_rows == num_columns
            diag_size = min(num_rows, num_columns)
        if isinstance(batch_shape, Tensor) or isinstance(diag_size, Tensor):
            batch_shape = convert_to_tensor(batch_shape, name="shape", dtype=dtypes.int32)
            diag_shape = array_ops.concat((batch_shape, [diag_size]), axis=0)
            if not is_square:
                shape = array_ops.concat((batch_shape, [num_rows, num_columns]), axis=0)
        else:
            batch_shape = list(batch_shape)
            diag_shape = batch_shape + [diag_size]
            if not is_square:
                shape = batch_shape + [num_rows, num_columns]
        diag_ones = array_ops.ones(diag_shape, dtype=dtype)
        if is_square:
            return gather_ops.matrix_diag(diag_ones)
        return gather_ops.matrix_set_diag(array_ops.zeros(shape, dtype=dtype), diag_ones)
