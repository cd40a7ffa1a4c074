"""Matrix products (``MatMul``, ``BatchMatMul``, ``BatchMatMulV2``), the ``matmul`` wrapper
and their gradients. ``math_ops`` re-exports ``matmul``."""

from __future__ import annotations

from tfcompat.framework import common_shapes, dtypes, scopes, tensor_shape
from tfcompat.framework.gradient_registry import RegisterGradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op, convert_to_tensor
from tfcompat.util.tf_export import tf_export


def _scope(name, default_name, values):
    return scopes.name_scope(name, default_name, values)


def _merge(a, b):
    return math_ops._merge(a, b)


# ---------------------------------------------------------------------------------------------
# Matrix products
# ---------------------------------------------------------------------------------------------
_MATMUL_TYPES = (
    "bfloat16, half, float, double, int32, int64, uint8, uint16, uint32, uint64, complex64, "
    "complex128"
)


def _matmul_shape(op):
    a, b = op.inputs[0].shape.with_rank(2), op.inputs[1].shape.with_rank(2)
    ta, tb = op.attrs["transpose_a"], op.attrs["transpose_b"]
    rows, inner_a = (a[1], a[0]) if ta else (a[0], a[1])
    inner_b, cols = (b[1], b[0]) if tb else (b[0], b[1])
    if not inner_a.is_compatible_with(inner_b):
        raise ValueError(f"Dimensions must be equal, but are {inner_a} and {inner_b}")
    return [tensor_shape.TensorShape([rows, cols])]


register_op(
    "MatMul",
    inputs=["a: T", "b: T"],
    outputs=["product: T"],
    attrs=[
        "transpose_a: bool = false",
        "transpose_b: bool = false",
        f"T: {{{_MATMUL_TYPES}}}",
        "grad_a: bool = false",
        "grad_b: bool = false",
    ],
    shape_fn=_matmul_shape,
)


register_op(
    "SparseMatMul",
    inputs=["a: Ta", "b: Tb"],
    outputs=["product: float"],
    attrs=[
        "transpose_a: bool = false",
        "transpose_b: bool = false",
        "a_is_sparse: bool = false",
        "b_is_sparse: bool = false",
        "Ta: {float, bfloat16} = DT_FLOAT",
        "Tb: {float, bfloat16} = DT_FLOAT",
    ],
    shape_fn=_matmul_shape,
)


@tf_export("sparse_matmul")
def sparse_matmul(
    a, b, transpose_a=False, transpose_b=False, a_is_sparse=False, b_is_sparse=False, name=None
):
    """``SparseMatMul``: a float32 product of float32 / bfloat16 matrices, TF's kernel for
    operands marked mostly zero (the ``*_is_sparse`` hints; XLA computes it densely)."""
    return apply_op(
        "SparseMatMul",
        name=name,
        a=a,
        b=b,
        transpose_a=transpose_a,
        transpose_b=transpose_b,
        a_is_sparse=a_is_sparse,
        b_is_sparse=b_is_sparse,
    ).outputs[0]


def _batch_matmul_shape(op, broadcast_batch):
    x, y = op.inputs[0].shape, op.inputs[1].shape
    if x.rank is not None and x.rank < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {x.rank}")
    if y.rank is not None and y.rank < 2:
        raise ValueError(f"Shape must be at least rank 2 but is rank {y.rank}")
    if x.rank is None or y.rank is None:
        return [tensor_shape.unknown_shape()]
    rows = x[-1] if op.attrs["adj_x"] else x[-2]
    inner_x = x[-2] if op.attrs["adj_x"] else x[-1]
    inner_y = y[-1] if op.attrs["adj_y"] else y[-2]
    cols = y[-2] if op.attrs["adj_y"] else y[-1]
    if not inner_x.is_compatible_with(inner_y):
        raise ValueError(f"Dimensions must be equal, but are {inner_x} and {inner_y}")
    if broadcast_batch:
        batch = common_shapes.broadcast(x[:-2], y[:-2])
    else:
        batch = _merge(x[:-2], y[:-2])
    return [batch.concatenate([rows, cols])]


_BATCH_MATMUL_ATTRS = [
    "adj_x: bool = false",
    "adj_y: bool = false",
    "grad_x: bool = false",
    "grad_y: bool = false",
]
register_op(
    "BatchMatMul",
    inputs=["x: T", "y: T"],
    outputs=["output: T"],
    attrs=["T: {bfloat16, half, float, double, int32, int64, complex64, complex128}"]
    + _BATCH_MATMUL_ATTRS,
    shape_fn=lambda op: _batch_matmul_shape(op, broadcast_batch=False),
)
register_op(
    "BatchMatMulV2",
    inputs=["x: T", "y: T"],
    outputs=["output: T"],
    attrs=[
        "T: {bfloat16, half, float, double, int16, int32, int64, uint8, uint16, uint32, uint64, "
        "complex64, complex128}"
    ]
    + _BATCH_MATMUL_ATTRS,
    shape_fn=lambda op: _batch_matmul_shape(op, broadcast_batch=True),
)


@tf_export("matmul", "linalg.matmul")
def matmul(
    a,
    b,
    transpose_a=False,
    transpose_b=False,
    adjoint_a=False,
    adjoint_b=False,
    a_is_sparse=False,
    b_is_sparse=False,
    output_type=None,
    grad_a=False,
    grad_b=False,
    name=None,
):
    """Matrix product: ``MatMul`` for matrices, ``BatchMatMulV2`` when either operand may
    have batch dimensions. ``*_is_sparse`` are accepted hints (dense products either way)."""
    with _scope(name, "MatMul", [a, b]) as name:
        if transpose_a and adjoint_a:
            raise ValueError(
                "Only one of `transpose_a` and `adjoint_a` can be True. Received "
                f"`transpose_a`={transpose_a}, `adjoint_a`={adjoint_a}."
            )
        if transpose_b and adjoint_b:
            raise ValueError(
                "Only one of `transpose_b` and `adjoint_b` can be True. Received "
                f"`transpose_b`={transpose_b}, `adjoint_b`={adjoint_b}."
            )
        a = convert_to_tensor(a, name="a")
        b = convert_to_tensor(b, preferred_dtype=a.dtype.base_dtype, name="b")
        if output_type is not None and (output_type != a.dtype or output_type != b.dtype):
            raise NotImplementedError("matmul(output_type=...) (BatchMatMulV3) is not supported")
        from tfcompat.ops import unary_math_ops

        # As TF: BatchMatMulV2 has adjoints only, MatMul transposes only; the other flag is
        # a conjugate first (no op for real tensors, so then adjoint == transpose).
        ranks = (a.shape.rank, b.shape.rank)
        if any(r is None or r > 2 for r in ranks) and not (a_is_sparse or b_is_sparse):
            if transpose_a:
                a, adjoint_a = unary_math_ops.conj(a), True
            if transpose_b:
                b, adjoint_b = unary_math_ops.conj(b), True
            return apply_op(
                "BatchMatMulV2",
                name=name,
                x=a,
                y=b,
                adj_x=adjoint_a,
                adj_y=adjoint_b,
                grad_x=grad_a,
                grad_y=grad_b,
            ).outputs[0]
        if adjoint_a:
            a, transpose_a = unary_math_ops.conj(a), True
        if adjoint_b:
            b, transpose_b = unary_math_ops.conj(b), True
        # As TF: sparse hints on float32 / bfloat16 operands, or bfloat16 mixed with another
        # float type, make a SparseMatMul (whose product is float32).
        sparse_types = (dtypes.float32, dtypes.bfloat16)
        a_type, b_type = a.dtype.base_dtype, b.dtype.base_dtype
        use_sparse = (
            (a_is_sparse or b_is_sparse) and a_type in sparse_types and b_type in sparse_types
        )
        quantized = (dtypes.int8, dtypes.uint8)
        if a_type != b_type and (
            (a_type == dtypes.bfloat16 and b_type not in quantized)
            or (b_type == dtypes.bfloat16 and a_type not in quantized)
        ):
            use_sparse = True
        if use_sparse:
            product = sparse_matmul(
                a, b, transpose_a, transpose_b, a_is_sparse, b_is_sparse, name=name
            )
            if a_type == dtypes.bfloat16 and b_type == dtypes.bfloat16:
                product = math_ops.cast(product, dtypes.bfloat16)
            return product
        return apply_op(
            "MatMul",
            name=name,
            a=a,
            b=b,
            transpose_a=transpose_a,
            transpose_b=transpose_b,
            grad_a=grad_a,
            grad_b=grad_b,
        ).outputs[0]


def _mat_mul(a, b, **attrs):
    return apply_op("MatMul", a=a, b=b, **attrs).outputs[0]


# (transpose_a, transpose_b) -> how each operand's gradient is a MatMul of (grad, a, b):
# (first, second, transpose_a, transpose_b) of the product.
_MATMUL_GRAD_A = {
    (False, False): ("grad", "b", False, True),
    (False, True): ("grad", "b", False, False),
    (True, False): ("b", "grad", False, True),
    (True, True): ("b", "grad", True, True),
}
_MATMUL_GRAD_B = {
    (False, False): ("a", "grad", True, False),
    (False, True): ("grad", "a", True, False),
    (True, False): ("a", "grad", False, False),
    (True, True): ("grad", "a", True, True),
}


def _product(plan, operands, grad_flag):
    first, second, ta, tb = plan
    attrs = {grad_flag: True}
    if ta:
        attrs["transpose_a"] = True
    if tb:
        attrs["transpose_b"] = True
    return _mat_mul(operands[first], operands[second], **attrs)


@RegisterGradient("MatMul")
def _matmul_grad(op, grad):
    from tfcompat.ops import unary_math_ops

    key = (op.attrs["transpose_a"], op.attrs["transpose_b"])
    a = unary_math_ops.conj(op.inputs[0])
    b = unary_math_ops.conj(op.inputs[1])
    operands = {"grad": grad, "a": a, "b": b}
    grad_a = _product(_MATMUL_GRAD_A[key], operands, "grad_a")
    grad_b = _product(_MATMUL_GRAD_B[key], operands, "grad_b")
    return grad_a, grad_b


# (adj_x, adj_y) -> for x and y: (first, second, adjoint_a, adjoint_b) of the product.
_BATCH_MATMUL_GRADS = {
    (False, False): (("grad", "y", False, True), ("x", "grad", True, False)),
    (False, True): (("grad", "y", False, False), ("grad", "x", True, False)),
    (True, False): (("y", "grad", False, True), ("x", "grad", False, False)),
    (True, True): (("y", "grad", True, True), ("grad", "x", True, True)),
}


def _batch_products(op, grad, with_grad_flags):
    plans = _BATCH_MATMUL_GRADS[(op.attrs["adj_x"], op.attrs["adj_y"])]
    operands = {"grad": grad, "x": op.inputs[0], "y": op.inputs[1]}
    out = []
    for plan, flag in zip(plans, ("grad_a", "grad_b")):
        first, second, adj_a, adj_b = plan
        flags = {flag: True} if with_grad_flags else {}
        out.append(
            matmul(operands[first], operands[second], adjoint_a=adj_a, adjoint_b=adj_b, **flags)
        )
    return out


@RegisterGradient("BatchMatMul")
def _batch_matmul_grad(op, grad):
    grad_x, grad_y = _batch_products(op, grad, with_grad_flags=False)
    return grad_x, grad_y


@RegisterGradient("BatchMatMulV2")
def _batch_matmul_v2_grad(op, grad):
    """As BatchMatMul, then summed over the batch dimensions an operand was broadcast in."""
    from tfcompat.ops import array_ops, reduction_ops

    grad_x, grad_y = _batch_products(op, grad, with_grad_flags=True)
    x, y = op.inputs
    sx_static, sy_static = x.shape, y.shape
    may_have_batch = any(s.rank is None or s.rank > 2 for s in (sx_static, sy_static))
    batch_shapes_match = (
        sx_static[:-2].is_fully_defined()
        and sy_static[:-2].is_fully_defined()
        and sx_static[:-2].as_list() == sy_static[:-2].as_list()
    )
    if not may_have_batch or batch_shapes_match:
        return grad_x, grad_y
    sx, sy = array_ops.shape(x), array_ops.shape(y)
    rx, ry = math_ops.broadcast_gradient_args(sx[:-2], sy[:-2])
    grad_x = array_ops.reshape(reduction_ops.reduce_sum(grad_x, rx), sx)
    grad_y = array_ops.reshape(reduction_ops.reduce_sum(grad_y, ry), sy)
    return grad_x, grad_y


from tfcompat.ops import math_ops  # noqa: E402 - math_ops imports this module


@RegisterGradient("SparseMatMul")
def _sparse_matmul_grad(op, grad):
    """TF's: MatMuls (SparseMatMuls where an operand is marked sparse, and ``grad`` when
    it comes from a ReluGrad) cast back to each input's dtype."""
    from tfcompat.ops import array_ops

    is_sparse = {
        id(op.inputs[0]): op.attrs["a_is_sparse"],
        id(op.inputs[1]): op.attrs["b_is_sparse"],
        id(grad): grad.op.type == "ReluGrad",
    }

    def product(t1, t2, out_dtype, transpose_a=False, transpose_b=False):
        t1_sparse, t2_sparse = is_sparse[id(t1)], is_sparse[id(t2)]
        if transpose_b:
            t2, transpose_b = array_ops.transpose(t2), False
        prod = matmul(t1, t2, transpose_a=transpose_a, a_is_sparse=t1_sparse, b_is_sparse=t2_sparse)
        return prod if prod.dtype == out_dtype else math_ops.cast(prod, out_dtype)

    a, b = op.inputs
    ta, tb = op.attrs["transpose_a"], op.attrs["transpose_b"]
    if not ta and not tb:
        return product(grad, b, a.dtype, transpose_b=True), product(
            a, grad, b.dtype, transpose_a=True
        )
    if not ta and tb:
        return product(grad, b, a.dtype), product(grad, a, b.dtype, transpose_a=True)
    if ta and not tb:
        return product(b, grad, a.dtype, transpose_b=True), product(a, grad, b.dtype)
    return (
        product(b, grad, a.dtype, transpose_a=True, transpose_b=True),
        product(grad, a, b.dtype, transpose_a=True, transpose_b=True),
    )
