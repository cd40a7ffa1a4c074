"""Numpy reference kernels of math ops, written from TF's kernel semantics (not from the
JAX rules): integer division by zero and negative integer powers fail as TF's CPU kernels
do, half and bfloat16 compute in float32 and round back."""

from __future__ import annotations

import functools

import numpy as np
import scipy.special

from lowering.reference.const_inputs import derived
from lowering.registry import REFERENCE, elementwise, reference
from tfcompat.framework import constant_value as constant_value_lib
from tfcompat.framework import errors

_LOW_PRECISION = ("float16", "bfloat16")


_LOW_DTYPES = frozenset(np.dtype(name) for name in _LOW_PRECISION)


def _quiet(fn, exact=False):
    """Runs ``fn`` on arrays with numpy's floating-point warnings off (inf/nan results are
    the answers TF gives), computing half/bfloat16 in float32.

    ``exact`` functions (comparisons, logical ops) never warn and are exact in any dtype:
    they skip both.
    """

    @functools.wraps(fn)
    def wrapped(*xs):
        xs = [np.asarray(x) for x in xs]
        if exact:
            return np.asarray(fn(*xs))
        dtype = xs[0].dtype
        low = dtype in _LOW_DTYPES
        if low:
            xs = [x.astype(np.float32) if x.dtype == dtype else x for x in xs]
        with np.errstate(all="ignore"):
            out = np.asarray(fn(*xs))
        if low and out.dtype == np.float32:
            out = out.astype(dtype)
        return out

    return wrapped


def _is_int(x):
    return np.issubdtype(x.dtype, np.integer)


def _check_int_divisor(y):
    if _is_int(y) and np.any(y == 0):
        raise ZeroDivisionError("Integer division by zero")


def _real_div(x, y):
    if _is_int(x):
        _check_int_divisor(y)
        return _trunc_int_div(x, y)
    return x / y


def _floor_div(x, y):
    if _is_int(x):
        _check_int_divisor(y)
        return np.floor_divide(x, y)
    return np.floor(x / y)


def _floor_mod(x, y):
    _check_int_divisor(y)
    return np.mod(x, y)


def _trunc_int_div(x, y):
    quotient = np.abs(x) // np.abs(y)
    return np.where((x < 0) != (y < 0), -quotient, quotient).astype(x.dtype)


def _truncate_div(x, y):
    if _is_int(x):
        _check_int_divisor(y)
        return _trunc_int_div(x, y)
    return np.trunc(x / y)


def _truncate_mod(x, y):
    _check_int_divisor(y)
    return np.fmod(x, y)


def _pow(x, y):
    if _is_int(x):
        if np.any(y < 0):
            raise ValueError("Integers to negative integer powers are not allowed")
        return np.power(x, y, dtype=x.dtype)
    return np.power(x, y)


def _div_no_nan(x, y):
    safe = np.where(y == 0, np.ones_like(y), y)
    return np.where(y == 0, np.zeros_like(x), x / safe)


def _xdivy(x, y):
    return np.where(x == 0, np.zeros_like(x), x / y)


def _xlogy(x, y):
    return np.where(x == 0, np.zeros_like(x), x * np.log(y))


def _reciprocal(x):
    if _is_int(x):
        return _real_div(np.ones_like(x), x)
    return np.reciprocal(x)


def _abs(x):
    return np.abs(x).astype(x.dtype)


_FUNCTIONS = {
    "Add": np.add,
    "AddV2": np.add,
    "Sub": np.subtract,
    "Mul": np.multiply,
    "RealDiv": _real_div,
    "Div": _real_div,
    "DivNoNan": _div_no_nan,
    "FloorDiv": _floor_div,
    "FloorMod": _floor_mod,
    "TruncateDiv": _truncate_div,
    "TruncateMod": _truncate_mod,
    "Pow": _pow,
    "Maximum": np.maximum,
    "Minimum": np.minimum,
    "SquaredDifference": lambda x, y: (x - y) * (x - y),
    "Atan2": np.arctan2,
    "Xdivy": _xdivy,
    "Xlogy": _xlogy,
    "Less": np.less,
    "LessEqual": np.less_equal,
    "Greater": np.greater,
    "GreaterEqual": np.greater_equal,
    "LogicalAnd": np.logical_and,
    "LogicalOr": np.logical_or,
    "LogicalNot": np.logical_not,
    "Neg": np.negative,
    "Abs": _abs,
    "Sign": np.sign,
    "Square": np.square,
    "Reciprocal": _reciprocal,
    "Round": np.round,
    "Rint": np.rint,
    "Exp": np.exp,
    "Expm1": np.expm1,
    "Log": np.log,
    "Log1p": np.log1p,
    "Sqrt": np.sqrt,
    "Rsqrt": lambda x: 1 / np.sqrt(x),
    "Sin": np.sin,
    "Cos": np.cos,
    "Tan": np.tan,
    "Asin": np.arcsin,
    "Acos": np.arccos,
    "Atan": np.arctan,
    "Sinh": np.sinh,
    "Cosh": np.cosh,
    "Tanh": np.tanh,
    "Asinh": np.arcsinh,
    "Acosh": np.arccosh,
    "Atanh": np.arctanh,
    "Sigmoid": scipy.special.expit,
    "Erf": scipy.special.erf,
    "Erfc": scipy.special.erfc,
    "Lgamma": scipy.special.gammaln,
    "Digamma": scipy.special.digamma,
    "Floor": np.floor,
    "Ceil": np.ceil,
    "IsFinite": np.isfinite,
    "IsNan": np.isnan,
    "IsInf": np.isinf,
    "ClipByValue": lambda t, lo, hi: np.clip(t, lo, hi),
    "SelectV2": np.where,
}
# Comparisons and logical ops: no floating-point warnings to silence, no rounding to undo.
_EXACT = frozenset(
    {"Less", "LessEqual", "Greater", "GreaterEqual", "LogicalAnd", "LogicalOr", "LogicalNot"}
)
elementwise(REFERENCE, {op_type: _quiet(f, op_type in _EXACT) for op_type, f in _FUNCTIONS.items()})


def _equality(compare, incompatible_value):
    def kernel(ctx, op, x, y):
        try:
            np.broadcast_shapes(np.shape(x), np.shape(y))
        except ValueError:
            if op.attrs["incompatible_shape_error"]:
                raise ValueError(
                    f"Incompatible shapes: {list(np.shape(x))} vs. {list(np.shape(y))}"
                ) from None
            return np.asarray(incompatible_value)
        return np.asarray(compare(x, y))

    return kernel


REFERENCE["Equal"] = _equality(np.equal, False)
REFERENCE["NotEqual"] = _equality(np.not_equal, True)


@reference("ApproximateEqual")
def _approximate_equal(ctx, op, x, y):
    return np.asarray(np.abs(x - y) < op.attrs["tolerance"])


@reference("Cast")
def _cast(ctx, op, x):
    x = np.asarray(x)
    dtype = np.dtype(op.attrs["DstT"].as_numpy_dtype)
    if x.dtype.kind in "biu" and dtype.kind in "biu":  # integers wrap: numpy never warns
        return x.astype(dtype)
    with np.errstate(all="ignore"):
        return x.astype(dtype)


@reference("Select")
def _select(ctx, op, cond, t, e):
    cond, t = np.asarray(cond), np.asarray(t)
    if cond.ndim == 1 and t.ndim > 1:
        if cond.shape[0] != t.shape[0]:
            raise ValueError("Select: condition must be a vector of size t.shape[0]")
        return np.stack([t[i] if c else e[i] for i, c in enumerate(cond)]) if len(cond) else t
    if cond.shape != t.shape and cond.ndim:
        raise ValueError(
            f"'then' and 'else' must have the same size.  but received: {t.shape} vs. {cond.shape}"
        )
    return np.where(cond, t, e)


@reference("Where")
def _where(ctx, op, x):
    x = np.asarray(x)
    if x.ndim == 1:  # the common mask of a sparse column: positions as an [n, 1] matrix
        return x.nonzero()[0].astype(np.int64).reshape(-1, 1)
    return np.argwhere(x).astype(np.int64)


# ---------------------------------------------------------------------------------------------
# Matrix products
# ---------------------------------------------------------------------------------------------
def _product(a, b):
    """np.matmul in the inputs' dtype (bfloat16/half through float32)."""
    dtype = a.dtype
    if dtype.name in _LOW_PRECISION:
        return np.matmul(a.astype(np.float32), b.astype(np.float32)).astype(dtype)
    return np.matmul(a, b).astype(dtype)


@reference("MatMul")
def _matmul(ctx, op, a, b):
    a = a.T if op.attrs["transpose_a"] else a
    b = b.T if op.attrs["transpose_b"] else b
    return _product(np.asarray(a), np.asarray(b))


@reference("SparseMatMul")
def _sparse_matmul(ctx, op, a, b):
    a = np.asarray(a).astype(np.float32)
    b = np.asarray(b).astype(np.float32)
    a = a.T if op.attrs["transpose_a"] else a
    b = b.T if op.attrs["transpose_b"] else b
    return np.matmul(a, b).astype(np.float32)


@reference("BatchMatMul", "BatchMatMulV2")
def _batch_matmul(ctx, op, x, y):
    x, y = np.asarray(x), np.asarray(y)
    if op.attrs["adj_x"]:
        x = np.conj(np.swapaxes(x, -1, -2))
    if op.attrs["adj_y"]:
        y = np.conj(np.swapaxes(y, -1, -2))
    return _product(x, y)


@reference("Einsum")
def _einsum(ctx, op, *inputs):
    dtype = inputs[0].dtype
    compute = [np.asarray(x, np.float32) if dtype.name in _LOW_PRECISION else x for x in inputs]
    lhs, out = op.attrs["equation"].decode().split("->")
    unique = "".join(dict.fromkeys(out.replace("...", ".")))  # first occurrences, in order
    result = np.asarray(np.einsum(f"{lhs}->{unique.replace('.', '...')}", *compute))
    if len(unique) < len(out.replace("...", ".")):
        result = _spread_to_diagonals(result, unique, out)
    return result.astype(dtype)


def _spread_to_diagonals(values, unique, out):
    """``values`` (labelled ``unique``) written where repeated output labels have equal
    indices; zeros elsewhere (TF's einsum with e.g. "i->ii")."""
    out = out.replace("...", ".")
    ellipsis_rank = values.ndim - (len(unique) - ("." in unique))
    sizes = {}
    axis = 0
    for label in unique:
        width = ellipsis_rank if label == "." else 1
        sizes[label] = values.shape[axis : axis + width]
        axis += width
    shape = tuple(d for label in out for d in sizes[label])
    result = np.zeros(shape, values.dtype)
    # Index the result with one open grid per unique label, repeated where it repeats.
    grids = np.indices(values.shape, sparse=True)
    starts, axis = {}, 0
    for label in unique:
        starts[label] = axis
        axis += len(sizes[label])
    index = [grids[starts[label] + k] for label in out for k in range(len(sizes[label]))]
    result[tuple(index)] = values
    return result


@reference("AddN")
def _add_n(ctx, op, *inputs):
    return np.asarray(functools.reduce(np.add, inputs))


# ---------------------------------------------------------------------------------------------
# Reductions, scans, ranges
# ---------------------------------------------------------------------------------------------
def _static(op, index, value):
    known = constant_value_lib.constant_value(op.inputs[index])
    return np.asarray(value if known is None else known)


def _axes(op, x, axes):
    rank = np.ndim(x)
    out = set()
    for a in _static(op, 1, axes).reshape(-1):
        if not -rank <= a < max(rank, 1):
            raise ValueError(f"Invalid reduction dimension ({a} for input with {rank} dimension(s)")
        out.add(int(a) % rank if rank else 0)
    return tuple(sorted(out)) if rank else ()


def _int_mean(x, axis, keepdims):
    total = np.sum(x, axis=axis, keepdims=keepdims, dtype=x.dtype)
    count = max(int(np.prod([x.shape[a] for a in axis])), 1)
    return _trunc_int_div(np.asarray(total), np.asarray(count, x.dtype))


def _float_mean(x, axis, keepdims):
    return np.mean(x, axis=axis, keepdims=keepdims, dtype=np.float64).astype(x.dtype)


def _extreme(np_fn, lowest):
    def reduce(x, axis, keepdims):
        if np.issubdtype(x.dtype, np.floating) or x.dtype.name == "bfloat16":
            initial = -np.inf if lowest else np.inf
            out = np_fn(x.astype(np.float64), axis=axis, keepdims=keepdims, initial=initial)
            return np.asarray(out).astype(x.dtype)
        info = np.iinfo(x.dtype)
        return np_fn(x, axis=axis, keepdims=keepdims, initial=info.min if lowest else info.max)

    return reduce


def _euclidean_norm(x, axis, keepdims):
    squares = np.add.reduce(x * np.conj(x), axis=axis, keepdims=keepdims, dtype=x.dtype)
    if x.dtype.kind in "iu":  # TF's integer norm: the square root truncated
        return np.floor(np.sqrt(squares.astype(np.float64))).astype(x.dtype)
    return np.sqrt(squares)


_REDUCERS = {
    "Sum": lambda x, axis, keepdims: np.add.reduce(x, axis=axis, keepdims=keepdims, dtype=x.dtype),
    "Prod": lambda x, axis, keepdims: np.multiply.reduce(
        x, axis=axis, keepdims=keepdims, dtype=x.dtype
    ),
    "EuclideanNorm": lambda x, axis, keepdims: _euclidean_norm(x, axis, keepdims),
    "Max": _extreme(np.max, lowest=True),
    "Min": _extreme(np.min, lowest=False),
    "All": lambda x, axis, keepdims: np.all(x, axis=axis, keepdims=keepdims),
    "Any": lambda x, axis, keepdims: np.any(x, axis=axis, keepdims=keepdims),
}


def _reduction(reduce):
    def kernel(ctx, op, x, axes):
        x = np.asarray(x)
        axis = derived(op, 1, (axes,), x.ndim, lambda _, a: _axes(op, x, a))
        if x.dtype.kind in "biu":  # integer sums and products wrap without warnings
            return np.asarray(reduce(x, axis, op.attrs["keep_dims"]))
        with np.errstate(all="ignore"):
            return np.asarray(reduce(x, axis, op.attrs["keep_dims"]))

    return kernel


for _op_type, _reduce in _REDUCERS.items():
    REFERENCE[_op_type] = _reduction(_reduce)


@reference("Mean")
def _mean(ctx, op, x, axes):
    x = np.asarray(x)
    reduce = _int_mean if _is_int(x) else _float_mean
    with np.errstate(all="ignore"):
        return np.asarray(reduce(x, _axes(op, x, axes), op.attrs["keep_dims"]))


@reference("ArgMax", "ArgMin")
def _arg_reduce(ctx, op, x, dimension):
    x = np.asarray(x)
    rank = x.ndim
    axis = int(_static(op, 1, dimension))
    if not -rank <= axis < rank:
        raise ValueError(f"Expected dimension in the range [{-rank}, {rank}), but got {axis}")
    if x.shape[axis] == 0:
        raise ValueError(f"Reduction axis {axis} is empty in shape {list(x.shape)}")
    if x.dtype.name in _LOW_PRECISION:
        x = x.astype(np.float32)
    is_max = op.type == "ArgMax"
    if np.issubdtype(x.dtype, np.floating):
        # A NaN is never chosen: it compares false against everything.
        x = np.where(np.isnan(x), -np.inf if is_max else np.inf, x)
    index = np.argmax(x, axis=axis) if is_max else np.argmin(x, axis=axis)
    return np.asarray(index).astype(op.attrs["output_type"].as_numpy_dtype)


@reference("Cumsum", "Cumprod")
def _cumulative(ctx, op, x, axis):
    x = np.asarray(x)
    axis = int(_static(op, 1, axis)) % max(x.ndim, 1)
    reverse, exclusive = op.attrs["reverse"], op.attrs["exclusive"]
    if reverse:
        x = np.flip(x, axis)
    scan = np.cumsum if op.type == "Cumsum" else np.cumprod
    out = scan(x, axis=axis, dtype=x.dtype)
    if exclusive:
        identity = 0 if op.type == "Cumsum" else 1
        pad = [(0, 0)] * x.ndim
        pad[axis] = (1, 0)
        out = np.pad(out, pad, constant_values=identity)
        out = np.take(out, np.arange(x.shape[axis]), axis=axis)
    if reverse:
        out = np.flip(out, axis)
    return np.ascontiguousarray(out)


@reference("CumulativeLogsumexp")
def _cumulative_logsumexp(ctx, op, x, axis):
    x = np.asarray(x)
    axis = int(_static(op, 1, axis)) % max(x.ndim, 1)
    reverse, exclusive = op.attrs["reverse"], op.attrs["exclusive"]
    work = x.astype(np.float32) if x.dtype in _LOW_DTYPES else x
    if reverse:
        work = np.flip(work, axis)
    with np.errstate(all="ignore"):
        out = np.logaddexp.accumulate(work, axis=axis)
    if exclusive:
        pad = [(0, 0)] * x.ndim
        pad[axis] = (1, 0)
        out = np.pad(out, pad, constant_values=-np.inf)
        out = np.take(out, np.arange(x.shape[axis]), axis=axis)
    if reverse:
        out = np.flip(out, axis)
    return np.ascontiguousarray(out).astype(x.dtype)


@reference("Range")
def _range(ctx, op, start, limit, delta):
    start, limit, delta = (np.asarray(v).item() for v in (start, limit, delta))
    if delta == 0:
        raise ValueError(f"Requires delta != 0: {delta}")
    if (delta > 0 and start > limit) or (delta < 0 and start < limit):
        relation, sign = ("<=", ">") if delta > 0 else (">=", "<")
        raise ValueError(f"Requires start {relation} limit when delta {sign} 0: {start}/{limit}")
    dtype = op.attrs["Tidx"].as_numpy_dtype
    if all(isinstance(v, int) for v in (start, limit, delta)):
        return np.arange(start, limit, delta, dtype=dtype)
    size = int(np.ceil(abs((limit - start) / delta)))
    return np.asarray([start + i * delta for i in range(size)], dtype=dtype)


@reference("LinSpace")
def _lin_space(ctx, op, start, stop, num):
    num = int(_static(op, 2, num))
    if num <= 0:
        raise ValueError(f"Requires num > 0: {num}")
    dtype = np.asarray(start).dtype
    return np.linspace(np.float64(start), np.float64(stop), num).astype(dtype)


# ---------------------------------------------------------------------------------------------
# Ops built by gradients
# ---------------------------------------------------------------------------------------------
def _polygamma(a, x):
    # TF gives NaN for a non-integer order; scipy wants integer orders.
    whole = np.floor(a) == a
    out = scipy.special.polygamma(np.where(whole, a, 0).astype(np.int64), x)
    return np.where(whole, out, np.nan).astype(x.dtype)


elementwise(
    REFERENCE,
    {
        op_type: _quiet(f)
        for op_type, f in {
            "TanhGrad": lambda y, dy: dy * (1 - np.square(np.conj(y))),
            "SigmoidGrad": lambda y, dy: dy * np.conj(y) * (1 - np.conj(y)),
            "SqrtGrad": lambda y, dy: (0.5 * dy) / np.conj(y),
            "RsqrtGrad": lambda y, dy: -0.5 * dy * np.power(np.conj(y), 3),
            "ReciprocalGrad": lambda y, dy: -dy * np.square(np.conj(y)),
            "Conj": np.conj,
            "Polygamma": _polygamma,
        }.items()
    },
)


def check_permutation_rank(op, rank):
    if rank != 1:
        raise errors.InvalidArgumentError(
            None, op, f"invert_permutation expects a 1D vector.\n\t [[{{{{node {op.name}}}}}]]"
        )


def permutation_message(op, value, size, in_range):
    """TF's text for the first bad entry: out of range, or a repeat of an earlier one."""
    what = f"is not between 0 and {size}" if not in_range else "is duplicated in the input."
    return f"{int(value)} {what}\n\t [[{{{{node {op.name}}}}}]]"


@reference("InvertPermutation")
def _invert_permutation(ctx, op, p):
    p = np.asarray(p)
    check_permutation_rank(op, p.ndim)
    n = p.size
    in_range = (p >= 0) & (p < n)
    seen = np.zeros(n, bool)
    if not in_range.all() or len(np.unique(p)) != n:
        for value, valid in zip(p.tolist(), in_range.tolist()):  # the first bad entry
            if not valid or seen[value]:
                raise errors.InvalidArgumentError(
                    None, op, permutation_message(op, value, n, valid)
                )
            seen[value] = True
    out = np.empty_like(p)
    out[p] = np.arange(n, dtype=p.dtype)
    return out


@reference("BroadcastGradientArgs")
def _broadcast_gradient_args(ctx, op, s0, s1):
    s0, s1 = (np.asarray(s).astype(np.int64) for s in (s0, s1))
    dtype = op.attrs["T"].as_numpy_dtype
    if s0.shape == s1.shape and np.array_equal(s0, s1):
        return np.zeros(0, dtype), np.zeros(0, dtype)
    out_rank = len(np.broadcast_shapes(tuple(s0), tuple(s1)))
    results = []
    for s in (s0, s1):
        full = np.concatenate([np.ones(out_rank - s.size, np.int64), s])
        results.append(np.nonzero(full == 1)[0].astype(dtype))
    return tuple(results)


def list_diff(op, x, y):
    """ListDiff on numpy values, with TF's checks: (x's values not in y, their positions)."""
    x, y = np.asarray(x), np.asarray(y)
    for name, value in (("x", x), ("y", y)):
        if value.ndim != 1:
            raise errors.InvalidArgumentError(
                None, op, f"{name} should be a 1D vector.\n\t [[{{{{node {op.name}}}}}]]"
            )
    keep = np.flatnonzero(~np.isin(x, y)) if x.size else np.zeros(0, np.int64)
    return x[keep], keep.astype(op.attrs["out_idx"].as_numpy_dtype)


@reference("ListDiff")
def _list_diff(ctx, op, x, y):
    return list_diff(op, x, y)


@reference("DynamicStitch")
def _dynamic_stitch(ctx, op, *inputs):
    n = op.attrs["N"]
    indices = [np.asarray(i) for i in inputs[:n]]
    data = [np.asarray(d) for d in inputs[n:]]
    row_shape = data[0].shape[indices[0].ndim :]
    size = max([int(i.max()) + 1 for i in indices if i.size] or [0])
    merged = np.zeros((size, *row_shape), dtype=data[0].dtype)
    # Input by input, so a later input wins; within one, the last of a repeated index
    # (TF's order; numpy does not promise which of repeats an assignment keeps).
    for index, values in zip(indices, data):
        index, values = index.reshape(-1), values.reshape(-1, *row_shape)
        _, last = np.unique(index[::-1], return_index=True)
        keep = index.size - 1 - last
        merged[index[keep]] = values[keep]
    return merged
