"""Math ops (TF's ``math_ops``): elementwise arithmetic, matmul, reductions; and the
Python operators of ``Tensor``, installed here as TensorFlow installs them."""

from __future__ import annotations

from tfcompat.framework import common_shapes, tensor_shape
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op, convert_to_tensor
from tfcompat.framework.tensor import Tensor
from tfcompat.util.tf_export import tf_export

_NUMERIC = "{bfloat16, half, float, double, uint8, int8, uint16, int16, int32, int64, complex64, complex128}"

register_op(
    "AddV2",
    inputs=["x: T", "y: T"],
    outputs=["z: T"],
    attrs=[
        "T: {bfloat16, half, float, double, uint8, uint16, uint32, uint64, int8, int16, int32, "
        "int64, complex64, complex128}"
    ],
    shape_fn=common_shapes.broadcast_binary,
    is_commutative=True,
)


@tf_export("add", "math.add")
def add(x, y, name=None):
    """``x + y`` elementwise with broadcasting."""
    return apply_op("AddV2", name=name, x=x, y=y).outputs[0]


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
        "T: {bfloat16, half, float, double, int32, int64, uint8, uint16, uint32, uint64, int8, "
        "int16, complex64, complex128}",
        "grad_a: bool = false",
        "grad_b: bool = false",
    ],
    shape_fn=_matmul_shape,
)


@tf_export("matmul", "linalg.matmul")
def matmul(a, b, transpose_a=False, transpose_b=False, name=None):
    """Matrix product of rank-2 tensors (``MatMul``)."""
    return apply_op(
        "MatMul", name=name, a=a, b=b, transpose_a=transpose_a, transpose_b=transpose_b
    ).outputs[0]


# ---------------------------------------------------------------------------------------------
# Tensor operators
# ---------------------------------------------------------------------------------------------
def _binary_operator(func, scope_name):
    """``x op y`` and ``y op x`` as TF builds them: ops named ``scope_name`` (unique'd), the
    non-Tensor operand converted to the Tensor's dtype and named ``y`` (or ``x``)."""
    from tfcompat.framework import graph as graph_lib

    def forward(x, y):
        graph = x.graph
        with graph.as_default(), graph.name_scope(scope_name) as name:
            try:
                if not isinstance(y, Tensor):
                    y = convert_to_tensor(y, dtype=x.dtype.base_dtype, name="y")
            except (TypeError, ValueError):
                return NotImplemented
            return func(x, y, name=name)

    def reverse(y, x):
        graph = y.graph
        with graph.as_default(), graph.name_scope(scope_name) as name:
            x = convert_to_tensor(x, dtype=y.dtype.base_dtype, name="x")
            return func(x, y, name=name)

    _ = graph_lib
    return forward, reverse


def _install_operators():
    table = {
        "add": (add, "add"),
        "matmul": (matmul, "matmul"),
    }
    for dunder, (func, scope) in table.items():
        forward, reverse = _binary_operator(func, scope)
        setattr(Tensor, f"__{dunder}__", forward)
        setattr(Tensor, f"__r{dunder}__", reverse)


_install_operators()
