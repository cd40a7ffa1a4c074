"""JAX lowerings of math ops: elementwise tables, casts, selection, matrix products,
reductions, scans and ranges.

Where TF's CPU kernels define a result XLA would otherwise leave open (integer rounding of
``Mean``, ``ArgMax`` with NaNs, reductions over empty axes), the rule spells TF's choice out.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from lowering import static as static_lib
from lowering.registry import LOWERINGS, elementwise, lowering
from tfcompat.framework import errors


def _is_int(x):
    return jnp.issubdtype(x.dtype, jnp.integer)


def _lax_binary(fn):
    """``fn`` (a lax op, which does not broadcast) with numpy broadcasting."""
    return lambda x, y: fn(*jnp.broadcast_arrays(x, y))


_int_div = _lax_binary(lax.div)  # truncates toward zero, as C and TF's integer division


def _floor_div(x, y):
    return jnp.floor_divide(x, y) if _is_int(x) else jnp.floor(x / y)


def _truncate_div(x, y):
    return _int_div(x, y) if _is_int(x) else jnp.trunc(x / y)


def _reciprocal(x):
    return lax.div(jnp.ones_like(x), x) if _is_int(x) else 1 / x


def _div_no_nan(x, y):
    zero = y == 0
    return jnp.where(zero, jnp.zeros_like(x * y), x / jnp.where(zero, jnp.ones_like(y), y))


def _xdivy(x, y):
    return jnp.where(x == 0, jnp.zeros_like(x * y), x / y)


def _xlogy(x, y):
    return jnp.where(x == 0, jnp.zeros_like(x * y), x * jnp.log(y))


def _sign(x):
    # jnp.sign keeps NaN, as TF does.
    return jnp.sign(x)


elementwise(
    LOWERINGS,
    {
        "Add": jnp.add,
        "AddV2": jnp.add,
        "Sub": jnp.subtract,
        "Mul": jnp.multiply,
        "RealDiv": lambda x, y: _int_div(x, y) if _is_int(x) else x / y,
        "Div": lambda x, y: _int_div(x, y) if _is_int(x) else x / y,
        "DivNoNan": _div_no_nan,
        "FloorDiv": _floor_div,
        "FloorMod": jnp.mod,
        "TruncateDiv": _truncate_div,
        "TruncateMod": _lax_binary(lax.rem),
        "Pow": jnp.power,
        "Maximum": jnp.maximum,
        "Minimum": jnp.minimum,
        "SquaredDifference": lambda x, y: jnp.square(x - y),
        "Atan2": jnp.arctan2,
        "Xdivy": _xdivy,
        "Xlogy": _xlogy,
        "Less": jnp.less,
        "LessEqual": jnp.less_equal,
        "Greater": jnp.greater,
        "GreaterEqual": jnp.greater_equal,
        "LogicalAnd": jnp.logical_and,
        "LogicalOr": jnp.logical_or,
        "LogicalNot": jnp.logical_not,
        "Neg": jnp.negative,
        "Abs": jnp.abs,
        "Sign": _sign,
        "Square": jnp.square,
        "Reciprocal": _reciprocal,
        "Round": jnp.round,  # half to even, as TF
        "Rint": jnp.rint,
        "Exp": jnp.exp,
        "Expm1": jnp.expm1,
        "Log": jnp.log,
        "Log1p": jnp.log1p,
        "Sqrt": jnp.sqrt,
        "Rsqrt": lax.rsqrt,
        "Sin": jnp.sin,
        "Cos": jnp.cos,
        "Tan": jnp.tan,
        "Asin": jnp.arcsin,
        "Acos": jnp.arccos,
        "Atan": jnp.arctan,
        "Sinh": jnp.sinh,
        "Cosh": jnp.cosh,
        "Tanh": jnp.tanh,
        "Asinh": jnp.arcsinh,
        "Acosh": jnp.arccosh,
        "Atanh": jnp.arctanh,
        "Sigmoid": jax.nn.sigmoid,
        "Erf": jax.scipy.special.erf,
        "Erfc": jax.scipy.special.erfc,
        "Lgamma": lax.lgamma,
        "Digamma": lax.digamma,
        "Floor": jnp.floor,
        "Ceil": jnp.ceil,
        "IsFinite": jnp.isfinite,
        "IsNan": jnp.isnan,
        "IsInf": jnp.isinf,
        "ClipByValue": lambda t, lo, hi: jnp.minimum(jnp.maximum(t, lo), hi),
        "SelectV2": jnp.where,
    },
)


def _shapes_broadcast(a, b):
    try:
        np.broadcast_shapes(np.shape(a), np.shape(b))
        return True
    except ValueError:
        return False


def _equality(compare, incompatible_value):
    def rule(ctx, op, x, y):
        if not op.attrs["incompatible_shape_error"] and not _shapes_broadcast(x, y):
            return jnp.asarray(incompatible_value)
        return compare(x, y)

    return rule


LOWERINGS["Equal"] = _equality(jnp.equal, False)
LOWERINGS["NotEqual"] = _equality(jnp.not_equal, True)


@lowering("ApproximateEqual")
def _approximate_equal(ctx, op, x, y):
    return jnp.abs(x - y) < op.attrs["tolerance"]


@lowering("Cast")
def _cast(ctx, op, x):
    dtype = op.attrs["DstT"].as_numpy_dtype
    if jnp.issubdtype(dtype, jnp.bool_):
        return x != 0
    return x.astype(dtype)


@lowering("Select")
def _select(ctx, op, cond, t, e):
    # A vector condition picks whole rows of t and e.
    if cond.ndim == 1 and t.ndim > 1:
        cond = cond.reshape(cond.shape + (1,) * (t.ndim - 1))
    return jnp.where(cond, t, e)


# ---------------------------------------------------------------------------------------------
# Matrix products
# ---------------------------------------------------------------------------------------------
@lowering("MatMul")
def _matmul(ctx, op, a, b):
    contract_a = 0 if op.attrs["transpose_a"] else 1
    contract_b = 1 if op.attrs["transpose_b"] else 0
    dims = (((contract_a,), (contract_b,)), ((), ()))
    return lax.dot_general(a, b, dims, preferred_element_type=a.dtype)


@lowering("SparseMatMul")
def _sparse_matmul(ctx, op, a, b):
    """Dense on XLA (the sparsity hints choose TF's CPU kernel); float32 out."""
    contract_a = 0 if op.attrs["transpose_a"] else 1
    contract_b = 1 if op.attrs["transpose_b"] else 0
    dims = (((contract_a,), (contract_b,)), ((), ()))
    a, b = jnp.asarray(a, jnp.float32), jnp.asarray(b, jnp.float32)
    return lax.dot_general(a, b, dims, preferred_element_type=jnp.float32)


@lowering("BatchMatMul", "BatchMatMulV2")
def _batch_matmul(ctx, op, x, y):
    if op.attrs["adj_x"]:
        x = jnp.conj(jnp.swapaxes(x, -1, -2))
    if op.attrs["adj_y"]:
        y = jnp.conj(jnp.swapaxes(y, -1, -2))
    return jnp.matmul(x, y, preferred_element_type=x.dtype)


def _label_size(input_subs, inputs, label):
    """The size of ``label`` from the first operand that has it (ellipsis-aware)."""
    for subs, x in zip(input_subs, inputs):
        head, _, tail = subs.partition("...")
        if label in head:
            return jnp.shape(x)[head.index(label)]
        if label in tail:
            return jnp.shape(x)[tail.index(label) - len(tail)]
    raise ValueError(f"label {label} of the output is in no input")


def _diagonal_output(equation, inputs):
    """Rewrites an output with repeated labels (TF's "i->ii", which puts values on a
    diagonal and zeros elsewhere) as an einsum with identity matrices: each repeat gets a
    fresh label tied to the first by ``eye``. Returns (equation, extra operands)."""
    lhs, out = equation.split("->")
    input_subs = lhs.split(",")
    used = set(equation)
    fresh = iter(c for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in used)
    new_out, eyes, eye_subs, seen = [], [], [], set()
    for label in out.replace("...", "."):
        if label != "." and label in seen:
            twin = next(fresh)
            size = _label_size(input_subs, inputs, label)
            eyes.append(jnp.eye(size, dtype=inputs[0].dtype))
            eye_subs.append(label + twin)
            label = twin
        seen.add(label)
        new_out.append(label)
    rewritten = ",".join(input_subs + eye_subs) + "->" + "".join(new_out).replace(".", "...")
    return rewritten, eyes


@lowering("Einsum")
def _einsum(ctx, op, *inputs):
    equation = op.attrs["equation"].decode()
    out = equation.split("->")[1].replace("...", "")
    extra = []
    if len(set(out)) < len(out):
        equation, extra = _diagonal_output(equation, inputs)
    return jnp.einsum(equation, *inputs, *extra, preferred_element_type=inputs[0].dtype)


@lowering("AddN")
def _add_n(ctx, op, *inputs):
    total = inputs[0]
    for x in inputs[1:]:
        total = total + x
    return total


# ---------------------------------------------------------------------------------------------
# Reductions, scans, ranges: axis-like inputs must be known when the graph is lowered.
# ---------------------------------------------------------------------------------------------
def static_input(op, index, value, what="axis"):
    """The value of ``op.inputs[index]`` as numpy; XLA needs it at trace time (shapes
    depend on it). See ``lowering.static``."""
    return static_lib.static_value(op, index, value, what)


def reduction_axes(op, x, axes_value):
    """Canonical non-negative reduction axes; InvalidArgument for out-of-range ones."""
    axes = static_input(op, 1, axes_value).reshape(-1)
    rank = np.ndim(x)
    for a in axes:
        if not -rank <= a < max(rank, 1):
            raise errors.InvalidArgumentError(
                None,
                op,
                f"Invalid reduction dimension ({a} for input with {rank} "
                f"dimension(s)\n\t [[{{{{node {op.name}}}}}]]",
            )
    return tuple(sorted({int(a) % rank for a in axes})) if rank else ()


def _lowest(dtype):
    return -jnp.inf if jnp.issubdtype(dtype, jnp.floating) else jnp.iinfo(dtype).min


def _highest(dtype):
    return jnp.inf if jnp.issubdtype(dtype, jnp.floating) else jnp.iinfo(dtype).max


def _mean(x, axis, keepdims):
    if not _is_int(x):
        return jnp.mean(x, axis=axis, keepdims=keepdims).astype(x.dtype)
    total = jnp.sum(x, axis=axis, keepdims=keepdims, dtype=x.dtype)
    count = max(int(np.prod([x.shape[a] for a in axis])), 1)
    return lax.div(total, jnp.asarray(count, x.dtype))  # TF truncates integer means


def _euclidean_norm(x, axis, keepdims):
    squares = jnp.sum(x * jnp.conj(x), axis=axis, keepdims=keepdims, dtype=x.dtype)
    if _is_int(x):  # TF's integer norm: the square root truncated
        return jnp.floor(jnp.sqrt(squares.astype(jnp.float64))).astype(x.dtype)
    return jnp.sqrt(squares)


_REDUCERS = {
    "Sum": lambda x, axis, keepdims: jnp.sum(x, axis=axis, keepdims=keepdims, dtype=x.dtype),
    "Prod": lambda x, axis, keepdims: jnp.prod(x, axis=axis, keepdims=keepdims, dtype=x.dtype),
    "EuclideanNorm": lambda x, axis, keepdims: _euclidean_norm(x, axis, keepdims),
    "Mean": _mean,
    "Max": lambda x, axis, keepdims: jnp.max(
        x, axis=axis, keepdims=keepdims, initial=_lowest(x.dtype)
    ),
    "Min": lambda x, axis, keepdims: jnp.min(
        x, axis=axis, keepdims=keepdims, initial=_highest(x.dtype)
    ),
    "All": lambda x, axis, keepdims: jnp.all(x, axis=axis, keepdims=keepdims),
    "Any": lambda x, axis, keepdims: jnp.any(x, axis=axis, keepdims=keepdims),
}


def _reduction_rule(reduce):
    def rule(ctx, op, x, axes):
        axis = reduction_axes(op, x, axes)
        return reduce(x, axis, op.attrs["keep_dims"])

    return rule


for _op_type, _reduce in _REDUCERS.items():
    LOWERINGS[_op_type] = _reduction_rule(_reduce)


def arg_axis(op, x, dimension):
    axis = int(static_input(op, 1, dimension))
    rank = np.ndim(x)
    if not -rank <= axis < rank:
        raise errors.InvalidArgumentError(
            None,
            op,
            f"Expected dimension in the range [{-rank}, {rank}), but got {axis}"
            f"\n\t [[{{{{node {op.name}}}}}]]",
        )
    return axis % rank


@lowering("ArgMax", "ArgMin")
def _arg_reduce(ctx, op, x, dimension):
    axis = arg_axis(op, x, dimension)
    is_max = op.type == "ArgMax"
    if jnp.issubdtype(x.dtype, jnp.floating):
        # TF's kernel never picks a NaN (comparisons with it are false).
        x = jnp.where(jnp.isnan(x), _lowest(x.dtype) if is_max else _highest(x.dtype), x)
    index = jnp.argmax(x, axis=axis) if is_max else jnp.argmin(x, axis=axis)
    return index.astype(op.attrs["output_type"].as_numpy_dtype)


@lowering("Cumsum", "Cumprod")
def _cumulative(ctx, op, x, axis_value):
    axis = int(static_input(op, 1, axis_value)) % max(np.ndim(x), 1)
    is_sum = op.type == "Cumsum"
    scan = lax.cumsum if is_sum else lax.cumprod
    reverse, exclusive = op.attrs["reverse"], op.attrs["exclusive"]
    out = scan(x, axis=axis, reverse=reverse)
    if exclusive:
        # Shift by one along axis, filling with the identity.
        identity = jnp.zeros_like if is_sum else jnp.ones_like
        n = x.shape[axis]
        first = identity(lax.slice_in_dim(x, 0, 1, axis=axis))
        if reverse:
            out = jnp.concatenate([lax.slice_in_dim(out, 1, n, axis=axis), first], axis=axis)
        else:
            out = jnp.concatenate([first, lax.slice_in_dim(out, 0, n - 1, axis=axis)], axis=axis)
    return out


@lowering("CumulativeLogsumexp")
def _cumulative_logsumexp(ctx, op, x, axis_value):
    axis = int(static_input(op, 1, axis_value)) % max(np.ndim(x), 1)
    reverse, exclusive = op.attrs["reverse"], op.attrs["exclusive"]
    out = lax.cumlogsumexp(x, axis=axis, reverse=reverse)
    if exclusive:  # shifted by one along axis, -inf (log 0) coming in
        n = x.shape[axis]
        first = jnp.full_like(lax.slice_in_dim(x, 0, 1, axis=axis), -jnp.inf)
        if reverse:
            out = jnp.concatenate([lax.slice_in_dim(out, 1, n, axis=axis), first], axis=axis)
        else:
            out = jnp.concatenate([first, lax.slice_in_dim(out, 0, n - 1, axis=axis)], axis=axis)
    return out


@lowering("Range")
def _range(ctx, op, start, limit, delta):
    values = [
        static_input(op, i, v, "start, limit and delta")
        for i, v in enumerate((start, limit, delta))
    ]
    dtype = op.attrs["Tidx"].as_numpy_dtype
    # A numpy result stays concrete under jit, so later shape-like uses can read it.
    return range_values(op, *values, dtype)


def range_values(op, start, limit, delta, dtype):
    """TF's Range (shared with the reference kernel): size ceil((limit - start) / delta)."""
    start, limit, delta = (np.asarray(v).item() for v in (start, limit, delta))
    if delta == 0:
        raise errors.InvalidArgumentError(None, op, f"Requires delta != 0: {delta}")
    if (delta > 0 and start > limit) or (delta < 0 and start < limit):
        relation = "<=" if delta > 0 else ">="
        sign = ">" if delta > 0 else "<"
        raise errors.InvalidArgumentError(
            None, op, f"Requires start {relation} limit when delta {sign} 0: {start}/{limit}"
        )
    if isinstance(start, int) and isinstance(limit, int) and isinstance(delta, int):
        size = (abs(limit - start) + abs(delta) - 1) // abs(delta)
    else:
        size = int(np.ceil(abs((limit - start) / delta)))
    return (start + np.arange(size) * delta).astype(dtype)


@lowering("LinSpace")
def _lin_space(ctx, op, start, stop, num):
    n = int(static_input(op, 2, num, "num"))
    if n <= 0:
        raise errors.InvalidArgumentError(None, op, f"Requires num > 0: {n}")
    if n == 1:
        return jnp.reshape(start, (1,))
    step = (stop - start) / (n - 1)
    out = start + jnp.arange(n, dtype=start.dtype) * step
    return out.at[-1].set(stop)


# ---------------------------------------------------------------------------------------------
# Ops built by gradients: fused unary gradients, Conj, Polygamma, and index ops whose
# output sizes come from values (computed with numpy; the values must be static).
# ---------------------------------------------------------------------------------------------
def _polygamma(n, x):
    """psi^(n)(x) = (-1)^(n+1) n! zeta(n+1, x) for n >= 1 (jax's polygamma wants integer
    orders; TF's are floats): digamma at n = 0, NaN for a non-integer order."""
    n, x = jnp.broadcast_arrays(n, x)
    special = jax.scipy.special
    safe_n = jnp.where(n >= 1, n, 1)
    sign = jnp.where(jnp.mod(safe_n, 2) == 0, -1.0, 1.0).astype(x.dtype)
    higher = sign * jnp.exp(special.gammaln(safe_n + 1)) * special.zeta(safe_n + 1, x)
    out = jnp.where(n == 0, lax.digamma(x), higher)
    return jnp.where(jnp.floor(n) == n, out, jnp.nan).astype(x.dtype)


elementwise(
    LOWERINGS,
    {
        "TanhGrad": lambda y, dy: dy * (1 - y * jnp.conj(y)),
        "SigmoidGrad": lambda y, dy: dy * (jnp.conj(y) * (1 - jnp.conj(y))),
        "SqrtGrad": lambda y, dy: dy * 0.5 / jnp.conj(y),
        "RsqrtGrad": lambda y, dy: dy * (-0.5 * jnp.conj(y) ** 3),
        "ReciprocalGrad": lambda y, dy: -dy * jnp.conj(y) ** 2,
        "Conj": jnp.conj,
        "Polygamma": _polygamma,
    },
)


@lowering("InvertPermutation")
def _invert_permutation(ctx, op, p):
    from lowering.control_flow import kernel_check
    from lowering.reference.math import check_permutation_rank, permutation_message

    p = jnp.asarray(p)
    check_permutation_rank(op, p.ndim)
    n = p.shape[0]
    if n == 0:
        return p
    positions = jnp.arange(n, dtype=p.dtype)
    in_range = (p >= 0) & (p < n)
    # Each value's first position; a later position holding it is TF's duplicate error.
    first = jnp.full((n,), n, p.dtype).at[p].min(positions, mode="drop")
    repeated = in_range & (first.at[p].get(mode="fill", fill_value=n) < positions)
    bad = ~in_range | repeated
    at = jnp.argmax(bad)
    kernel_check(
        ctx,
        op,
        jnp.any(bad),
        [p[at], in_range[at]],
        lambda value, valid: permutation_message(op, value, n, bool(valid)),
    )
    return jnp.zeros_like(p).at[p].set(positions, mode="drop")


def _static_inputs(op, values, what):
    return [static_input(op, i, v, what) for i, v in enumerate(values)]


@lowering("BroadcastGradientArgs")
def _broadcast_gradient_args(ctx, op, s0, s1):
    s0, s1 = _static_inputs(op, (s0, s1), "shape")
    dtype = op.attrs["T"].as_numpy_dtype
    if list(s0) == list(s1):
        return np.zeros(0, dtype), np.zeros(0, dtype)
    rank = max(len(s0), len(s1))
    padded = [[1] * (rank - len(s)) + [int(d) for d in s] for s in (s0, s1)]
    for a, b in zip(*padded):
        if a != b and 1 not in (a, b):
            raise errors.InvalidArgumentError(
                None, op, f"Incompatible shapes: {list(s0)} vs. {list(s1)}"
            )
    return tuple(
        np.array([i for i, d in enumerate(dims) if d == 1], dtype=dtype) for dims in padded
    )


@lowering("ListDiff")
def _list_diff(ctx, op, x, y):
    # Its output size depends on the values: they are compile-time values here (shape
    # arithmetic, as in Prod's gradient).
    from lowering.reference.math import list_diff

    return list_diff(op, *_static_inputs(op, (x, y), "value"))


@lowering("DynamicStitch")
def _dynamic_stitch(ctx, op, *inputs):
    n = op.attrs["N"]
    indices = [static_input(op, i, v, "indices") for i, v in enumerate(inputs[:n])]
    data = inputs[n:]
    size = 1 + max((int(i.max()) for i in indices if i.size), default=-1)
    row_shape = jnp.shape(data[0])[np.ndim(indices[0]) :]
    merged = jnp.zeros((size, *row_shape), dtype=jnp.asarray(data[0]).dtype)
    for index, values in zip(indices, data):  # later pieces win, as in TF
        merged = merged.at[index.reshape(-1)].set(jnp.reshape(values, (-1, *row_shape)))
    return merged
