"""Max pooling with NaN, infinities and ties, exactly as TF 2.21's CPU kernels:

* spatial MaxPool / MaxPoolV2 / MaxPool3D skip NaN (and padding); a window with no number
  gives the lowest finite value (float16 / bfloat16 MaxPool and MaxPool3D: -inf, as the
  oneDNN kernels of TF's default build compute them in float32; MaxPoolV2: the dtype's own);
* depth pooling keeps a NaN first element of the window and skips later NaNs;
* MaxPoolGrad routes each window's gradient to its first in-bounds element, replaced by each
  later one strictly greater (a NaN first element keeps it, ties keep the first);
* MaxPool3DGrad routes it to every element equal to the window's output when that is finite;
* MaxPoolGradGrad / MaxPool3DGradGrad take ``grad`` at the first element equal to the given
  ``orig_output``, else zero.

TF picks those oneDNN kernels for forward-only graphs only (beside a gradient it keeps its
own, whose 3-D maximum takes a NaN met late in the window), so the forward ops run alone and
the gradient ops are fed TF's forward output as a constant ``orig_output``. Values compare
exactly (zero tolerance; NaN equals NaN) on the xla and reference backends.
"""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from tests.ops.nn_helpers import raw_op
from tests.oracle import assert_parity

_EXACT = {"rtol": 0, "atol": 0}
nan, inf = np.nan, np.inf
BF16 = ml_dtypes.bfloat16
FLOATS_2D = [np.float32, np.float16, BF16, np.float64]
FLOATS_3D = [np.float32, BF16]  # TF's CPU MaxPool3D kernels

# One 2x2 window each: NaN in each position, no number at all, +-inf, ties.
WINDOWS = [
    [nan, 1, 2, 3],
    [1, nan, 2, 3],
    [3, 2, 1, nan],
    [nan, nan, nan, 4],
    [5, nan, nan, nan],
    [nan, 2, 2, nan],
    [2, nan, nan, 2],
    [nan, nan, nan, nan],
    [nan, -inf, nan, nan],
    [-inf, -inf, -inf, -inf],
    [inf, nan, 1, 2],
    [1, inf, nan, inf],
    [1, 1, 1, 1],
    [0, 5, 5, 0],
]


def _specials(shape, dtype, seed, p_nan=0.25, p_inf=0.1):
    """Small integers (many ties) with NaN, +inf and -inf sprinkled in."""
    rng = np.random.default_rng(seed)
    values = rng.integers(-3, 4, size=shape).astype(np.float64)
    r = rng.random(shape)
    values[r < p_nan] = nan
    values[(r >= p_nan) & (r < p_nan + p_inf)] = inf
    values[(r >= p_nan + p_inf) & (r < p_nan + 2 * p_inf)] = -inf
    return values.astype(dtype)


def _gradients(shape, dtype, seed):
    return np.random.default_rng(seed).integers(1, 9, size=shape).astype(dtype)


_GRAD_OPS = {
    "MaxPool": ("MaxPoolGrad", "MaxPoolGradGrad"),
    "MaxPoolV2": ("MaxPoolGradV2", "MaxPoolGradGradV2"),
    "MaxPool3D": ("MaxPool3DGrad", "MaxPool3DGradGrad"),
}


def _assert_family_parity(op, x, ksize, strides, padding, data_format="NHWC"):
    """``op`` ("MaxPool", "MaxPoolV2" or "MaxPool3D") alone at ``x``, then its gradient and
    second-order ops fed TF's output as ``orig_output``."""
    window = {"ksize": ksize, "strides": strides, "padding": padding, "data_format": data_format}
    theirs, _ = assert_parity(lambda tf: raw_op(tf, op, input=x, **window)[0], **_EXACT)
    y = theirs.values
    g, gg = _gradients(y.shape, x.dtype, seed=1), _gradients(x.shape, x.dtype, seed=2)
    grad_op, grad_grad_op = _GRAD_OPS[op]

    def program(tf):
        common = {"orig_input": x, "orig_output": y, **window}
        return (
            raw_op(tf, grad_op, grad=g, **common)[0],
            raw_op(tf, grad_grad_op, grad=gg, **common)[0],
        )

    assert_parity(program, **_EXACT)


@pytest.mark.parametrize("op", ["MaxPool", "MaxPoolV2"])
@pytest.mark.parametrize("dtype", FLOATS_2D, ids=lambda d: np.dtype(d).name)
def test_single_windows(dtype, op):
    """Each row of WINDOWS as its own 2x2 VALID window (a [1, 2, 2*n, 1] input)."""
    x = np.array(WINDOWS, dtype).reshape(-1, 2, 2).transpose(1, 0, 2).reshape(1, 2, -1, 1)
    _assert_family_parity(op, x, [1, 2, 2, 1], [1, 2, 2, 1], "VALID")


# (input shape, ksize, strides, padding)
POOLS_2D = [
    ((2, 5, 5, 3), [1, 2, 2, 1], [1, 2, 2, 1], "VALID"),
    ((2, 5, 5, 3), [1, 2, 2, 1], [1, 2, 2, 1], "SAME"),
    ((1, 7, 6, 9), [1, 3, 3, 1], [1, 2, 2, 1], "SAME"),
    ((1, 6, 6, 17), [1, 3, 3, 1], [1, 1, 1, 1], "SAME"),
    ((1, 6, 5, 8), [1, 3, 2, 1], [1, 1, 2, 1], "VALID"),
    ((1, 4, 4, 32), [1, 4, 4, 1], [1, 4, 4, 1], "VALID"),
    ((1, 5, 5, 2), [1, 5, 5, 1], [1, 1, 1, 1], "SAME"),  # every window padded
    ((1, 9, 9, 2), [1, 6, 6, 1], [1, 2, 2, 1], "SAME"),  # past the sliced form
]


@pytest.mark.parametrize("op", ["MaxPool", "MaxPoolV2"])
@pytest.mark.parametrize("dtype", FLOATS_2D, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("case", POOLS_2D, ids=str)
def test_pool_2d_specials(case, dtype, op):
    shape, ksize, strides, padding = case
    x = _specials(shape, dtype, seed=sum(shape))
    _assert_family_parity(op, x, ksize, strides, padding)


POOLS_3D = [
    ((1, 3, 4, 4, 5), [1, 2, 2, 2, 1], [1, 1, 2, 1, 1], "SAME"),
    ((2, 4, 4, 4, 16), [1, 2, 2, 2, 1], [1, 2, 2, 2, 1], "VALID"),  # disjoint windows
    ((1, 5, 4, 3, 3), [1, 3, 3, 2, 1], [1, 2, 1, 1, 1], "SAME"),
    ((1, 5, 4, 5, 2), [1, 2, 3, 2, 1], [1, 2, 3, 2, 1], "VALID"),  # a remainder past them
]


@pytest.mark.parametrize("dtype", FLOATS_3D, ids=lambda d: np.dtype(d).name)
@pytest.mark.parametrize("case", POOLS_3D, ids=str)
def test_pool_3d_specials(case, dtype):
    shape, ksize, strides, padding = case
    x = _specials(shape, dtype, seed=sum(shape))
    _assert_family_parity("MaxPool3D", x, ksize, strides, padding, "NDHWC")


def test_pool_3d_single_windows():
    x = np.array(WINDOWS, np.float32).reshape(-1, 2, 2).transpose(1, 0, 2).reshape(1, 2, -1, 1, 1)
    _assert_family_parity("MaxPool3D", x, [1, 2, 2, 1, 1], [1, 2, 2, 1, 1], "VALID", "NDHWC")


def test_max_pool_nchw():
    """TF's default CPU build pools NCHW MaxPool too (oneDNN), with the same NaN rules."""
    x = _specials((2, 3, 5, 5), np.float32, seed=3)

    def program(tf):
        return raw_op(
            tf,
            "MaxPool",
            input=x,
            ksize=[1, 1, 3, 3],
            strides=[1, 1, 2, 2],
            padding="SAME",
            data_format="NCHW",
        )[0]

    assert_parity(program, **_EXACT)


# (dtype, depth window): TF's sequential channel maximum; wider windows (4+ in float64, 8+
# in float32) take its vectorized reduction, whose NaN handling depends on lane positions.
DEPTH_POOLS = [(d, w) for d in (np.float32, np.float16, BF16) for w in (2, 3, 4)] + [
    (np.float64, 2),
    (np.float64, 3),
]


@pytest.mark.parametrize("dtype, depth", DEPTH_POOLS, ids=str)
def test_depth_pool_specials(dtype, depth):
    x = _specials((2, 3, 3, 4 * depth), dtype, seed=depth)
    window = [1, 1, 1, depth]

    def program(tf):
        return (
            raw_op(tf, "MaxPool", input=x, ksize=window, strides=window, padding="VALID")[0],
            raw_op(tf, "MaxPoolV2", input=x, ksize=window, strides=window, padding="VALID")[0],
        )

    assert_parity(program, **_EXACT)


def test_depth_pool_single_windows():
    x = np.array(WINDOWS, np.float32).reshape(1, 1, -1, 4)
    window = [1, 1, 1, 4]
    assert_parity(lambda tf: tf.nn.max_pool(x, window, window, "VALID"), **_EXACT)


@pytest.mark.parametrize("op", ["MaxPoolGradGrad", "MaxPool3DGradGrad"])
def test_grad_grad_reads_orig_output(op):
    """The second-order ops pick the first element equal to the given ``orig_output``, even
    one that is not the window's maximum (none equal: zero)."""
    rank = 5 if "3D" in op else 4
    x = np.arange(1, 9, dtype=np.float32).reshape((1, 2, 4) + (1,) * (rank - 3))
    y = np.array([2.0, 9.0], np.float32).reshape((1, 1, 2) + (1,) * (rank - 3))
    g = np.arange(10, 90, 10, dtype=np.float32).reshape(x.shape)
    window = [1, 2, 2] + [1] * (rank - 3)

    def program(tf):
        return raw_op(
            tf,
            op,
            orig_input=x,
            orig_output=y,
            grad=g,
            ksize=window,
            strides=window,
            padding="VALID",
        )[0]

    assert_parity(program, **_EXACT)


def test_tf_gradients_through_nan_pool():
    """tf.gradients of max_pool (MaxPoolGrad, then MaxPoolGradGrad for the second order)."""
    x = _specials((1, 6, 6, 3), np.float32, seed=4)

    def program(tf):
        xt = tf.constant(x)
        y = tf.nn.max_pool(xt, 3, 2, "SAME")
        (dx,) = tf.gradients(y, xt)
        g = tf.constant(_gradients(x.shape, np.float32, seed=5))
        (ddy,) = tf.gradients(dx, xt, grad_ys=g)
        return y, dx, ddy

    assert_parity(program, **_EXACT)
