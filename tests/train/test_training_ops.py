"""The Apply* / SparseApply* ops themselves against TF 2.21's kernels (``tf.raw_ops``):
one update of a variable and its slots, every op, attrs and dtypes; shape errors; the
sparse kernels' duplicate summing; the cost of a sparse update (rows touched only)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import tfcompat
from lowering import interpreter
from lowering.registry import LOWERINGS
from tests.oracle import assert_parity, tf1
from tfcompat.framework import op_def as op_def_lib
from tfcompat.ops import training_ops

HYPER = {
    "alpha": 0.1,
    "lr": 0.1,
    "l1": 0.05,
    "l2": 0.02,
    "rho": 0.9,
    "momentum": 0.8,
    "epsilon": 1e-6,
    "beta1": 0.9,
    "beta2": 0.999,
    "beta1_power": 0.9**3,
    "beta2_power": 0.999**3,
    "lr_power": -0.5,
    "l2_shrinkage": 0.03,
    "sign_decay": 0.5,
    "beta": 0.9,
    "logbase": 1.0,
}


def _wrapper(tf, op_type):
    if tf is tfcompat:
        return getattr(training_ops, training_ops._snake(op_type))
    return getattr(_tf_raw_ops(), op_type)


def _tf_raw_ops():
    import tensorflow as tf

    return tf.raw_ops


def _program(op_type, dtype=np.float32, attrs=None, hyper=None, indices=(3, 0, 4)):
    """Variables (positive values, so square roots are defined) for the Ref inputs,
    ``HYPER`` scalars, a random gradient (rows ``indices`` for sparse ops); runs the op
    once and fetches the variable and slots afterwards."""
    op_def = op_def_lib.get_op_def(op_type)
    hyper = {**HYPER, **(hyper or {})}
    shape = (5, 3)

    def program(tf):
        rng = np.random.default_rng(sum(map(ord, op_type)))
        refs, kwargs = [], {}
        for arg in op_def.inputs:
            if arg.is_ref:
                init = (np.abs(rng.standard_normal(shape)) + 0.1).astype(dtype)
                if arg.name == "var" or arg.name == "linear":
                    init = rng.standard_normal(shape).astype(dtype)
                elif arg.name == "mg":  # keeps ms - mg**2 positive (centered RMSProp)
                    init = (init * 0.1).astype(dtype)
                v = tf.Variable(init, name=arg.name)
                refs.append(v)
                kwargs[arg.name] = v._ref() if tf is tfcompat else v
            elif arg.name in ("grad", "delta"):
                rows = len(indices) if "indices" in [a.name for a in op_def.inputs] else 5
                kwargs[arg.name] = tf.constant(rng.standard_normal((rows, 3)).astype(dtype))
            elif arg.name == "indices":
                kwargs[arg.name] = tf.constant(np.array(indices, np.int32))
            elif arg.name == "global_step":
                kwargs[arg.name] = tf.constant(np.int64(5))
            else:
                kwargs[arg.name] = tf.constant(dtype(hyper[arg.name]))
        kwargs.update(attrs or {})
        op = _wrapper(tf, op_type)(**kwargs)
        with tf.control_dependencies([op]):
            return [tf.identity(v) for v in refs]

    return program


@pytest.mark.parametrize("op_type", training_ops.APPLY_OP_TYPES)
def test_one_update_matches_tf_kernel(op_type):
    assert_parity(_program(op_type), rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize(
    "op_type, attrs, hyper",
    [
        ("ApplyMomentum", {"use_nesterov": True}, None),
        ("SparseApplyMomentum", {"use_nesterov": True}, None),
        ("ApplyAdam", {"use_nesterov": True}, None),
        ("ApplyAdagrad", {"update_slots": False}, None),
        ("SparseApplyAdagrad", {"update_slots": False}, None),
        ("ApplyAdagradV2", {"update_slots": False}, None),
        ("ApplyFtrl", {"multiply_linear_by_lr": True}, None),
        ("SparseApplyFtrl", {"multiply_linear_by_lr": True}, None),
        ("ApplyFtrlV2", {"multiply_linear_by_lr": True}, {"lr_power": -0.7}),
        ("SparseApplyFtrlV2", None, {"lr_power": -0.7}),
        ("ApplyFtrl", None, {"lr_power": -0.3, "l1": 0.0}),
        ("ApplyProximalGradientDescent", None, {"l1": 0.0}),
        ("SparseApplyProximalAdagrad", None, {"l1": 0.0}),
        ("ApplyAdagradDA", None, {"l1": 0.0}),
        ("SparseApplyAdagradDA", None, {"l1": 0.0}),
    ],
)
def test_attrs_and_branches_match_tf_kernel(op_type, attrs, hyper):
    assert_parity(_program(op_type, attrs=attrs, hyper=hyper), rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("op_type", ["ApplyAdam", "SparseApplyRMSProp", "ApplyFtrl"])
def test_float64(op_type):
    assert_parity(_program(op_type, dtype=np.float64), rtol=1e-12, atol=1e-12)


def test_sparse_kernel_of_one_dimensional_variable():
    def program(tf):
        v = tf.Variable(np.array([1.0, 2.0, 3.0, 4.0], np.float32), name="v")
        a = tf.Variable(np.full(4, 0.5, np.float32), name="a")
        refs = [v._ref(), a._ref()] if tf is tfcompat else [v, a]
        op = _wrapper(tf, "SparseApplyAdagrad")(
            var=refs[0],
            accum=refs[1],
            lr=tf.constant(0.5),
            grad=tf.constant([1.0, -2.0]),
            indices=tf.constant([3, 1]),
        )
        with tf.control_dependencies([op]):
            return [tf.identity(v), tf.identity(a)]

    assert_parity(program)


@pytest.mark.parametrize(
    "op_type", [t for t in training_ops.APPLY_OP_TYPES if t.startswith("Sparse")]
)
def test_sparse_kernels_sum_duplicate_indices(op_type):
    """With duplicate indices ours equals TF's kernel fed the summed rows (what TF's
    optimizers feed it), on both backends."""
    indices = np.array([4, 1, 4, 4, 0], np.int32)
    grad = np.random.default_rng(7).standard_normal((5, 3)).astype(np.float32)
    unique, inverse = np.unique(indices, return_inverse=True)
    summed = np.zeros((len(unique), 3), np.float32)
    np.add.at(summed, inverse, grad)

    def program(tf, g, i):
        base = _program(op_type, indices=tuple(i))

        def patched(tf_):
            # Same program, but with the given gradient rows.
            original = tf_.constant

            def constant(value, *args, **kwargs):
                arr = np.asarray(value)
                if arr.dtype == np.float32 and arr.shape == (len(i), 3):
                    return original(g, *args, **kwargs)
                return original(value, *args, **kwargs)

            tf_.constant = constant
            try:
                return base(tf_)
            finally:
                tf_.constant = original

        return patched(tf)

    theirs = tfcompat_run = None
    from tests.oracle import run

    theirs = run(tf1(), lambda tf: program(tf, summed, unique.astype(np.int32)))
    for backend in ("xla", "reference"):
        tfcompat_run = run(tfcompat, lambda tf: program(tf, grad, indices), backend=backend)
        for a, b in zip(tfcompat_run.values, theirs.values):
            np.testing.assert_allclose(a, b, rtol=2e-6, atol=2e-6, err_msg=backend)


@pytest.mark.parametrize(
    "op_type, change, message",
    [
        ("ApplyAdam", {"lr": [0.1, 0.2]}, "Shape must be rank 0 but is rank 1"),
        ("ApplyMomentum", {"grad": np.ones((4, 3))}, "Dimension 0 in both shapes must be equal"),
        ("ApplyAdagrad", {"grad": np.ones((5,))}, "Shapes must be equal rank"),
        (
            "SparseApplyAdagrad",
            {"indices": np.zeros((2, 1), np.int32)},
            "Shape must be rank 1 but is rank 2",
        ),
        (
            "SparseApplyMomentum",
            {"grad": np.ones((2, 3)), "indices": np.zeros((3,), np.int32)},
            "Dimensions must be equal, but are 3 and 2",
        ),
        (
            "SparseApplyRMSProp",
            {"grad": np.ones((3, 4)), "indices": np.zeros((3,), np.int32)},
            "Dimension 1 in both shapes must be equal",
        ),
    ],
)
def test_shape_errors_at_construction_as_tf(op_type, change, message):
    op_def = op_def_lib.get_op_def(op_type)
    for tf in (tfcompat, tf1()):
        with tf.Graph().as_default():
            kwargs = {}
            for arg in op_def.inputs:
                if arg.is_ref:
                    v = tf.Variable(np.ones((5, 3), np.float32), name=arg.name)
                    kwargs[arg.name] = v._ref() if tf is tfcompat else v
                elif arg.name in change:
                    value = np.asarray(change[arg.name])
                    kwargs[arg.name] = tf.constant(
                        value.astype(np.int32 if arg.name == "indices" else np.float32)
                    )
                elif arg.name in ("grad", "delta"):
                    kwargs[arg.name] = tf.constant(np.ones((5, 3), np.float32))
                elif arg.name == "indices":
                    kwargs[arg.name] = tf.constant(np.arange(5, dtype=np.int32))
                else:
                    kwargs[arg.name] = tf.constant(np.float32(0.1))
            with pytest.raises(ValueError, match=message):
                _wrapper(tf, op_type)(**kwargs)


def test_reference_rejects_out_of_range_index_as_tf():
    def program(tf):
        v = tf.Variable(np.ones((3, 2), np.float32), name="v")
        a = tf.Variable(np.ones((3, 2), np.float32), name="a")
        refs = [v._ref(), a._ref()] if tf is tfcompat else [v, a]
        return _wrapper(tf, "SparseApplyAdagrad")(
            var=refs[0],
            accum=refs[1],
            lr=tf.constant(0.5),
            grad=tf.ones((2, 2)),
            indices=tf.constant([1, 7]),
        )

    from tests.oracle import run

    for tf, kwargs in ((tf1(), {}), (tfcompat, {"backend": "reference"})):
        with pytest.raises(tf.errors.InvalidArgumentError, match="Index 7 at offset 1 in indices"):
            run(tf, program, **kwargs)


def test_sparse_update_costs_rows_touched_not_the_whole_variable():
    """The lowered sparse update gathers and scatters the touched rows: apart from the
    variable and slots being written back (one scatter each), no value in its jaxpr has
    the variable's size, so no dense gradient is ever built."""
    rows, dim, touched = 1000, 4, 3
    with tfcompat.Graph().as_default():
        v = tfcompat.Variable(np.zeros((rows, dim), np.float32), name="v")
        m = tfcompat.Variable(np.zeros((rows, dim), np.float32), name="m")
        op = training_ops.sparse_apply_momentum(
            v, m, 0.1, tfcompat.ones((touched, dim)), tfcompat.constant([5, 7, 5]), 0.9
        ).op

    def step(var, mom, grad, indices):
        state = {"v": var, "m": mom}
        ctx = interpreter.Context(state, "xla")
        refs = [interpreter.VarRef("v", v.op), interpreter.VarRef("m", m.op)]
        LOWERINGS["SparseApplyMomentum"](ctx, op, refs[0], refs[1], 0.1, grad, indices, 0.9)
        return state["v"], state["m"]

    jaxpr = jax.make_jaxpr(step)(
        jnp.zeros((rows, dim)),
        jnp.zeros((rows, dim)),
        jnp.ones((touched, dim)),
        jnp.array([5, 7, 5]),
    )
    full_size = []
    for eqn in jaxpr.jaxpr.eqns:
        for out in eqn.outvars:
            if out.aval.shape and np.prod(out.aval.shape) >= rows:
                full_size.append(eqn.primitive.name)
    assert full_size == ["scatter", "scatter"]
