"""Numpy reference kernels of the optimizer update ops.

Written as TF's CPU kernels read: a dense op updates whole arrays; a sparse op first sums
the gradient rows of each distinct index (what TF's optimizers feed their kernels, see
``tfcompat/ops/training_ops.py``), checks every index against the variable's first
dimension (TF's InvalidArgument message), then updates row by row.
"""

from __future__ import annotations

import numpy as np

from lowering.registry import reference
from tfcompat.framework import errors
from tfcompat.ops import training_ops


def _rsqrt(x):
    return 1 / np.sqrt(x)


def _l1_prox(prox, threshold, scale, l1):
    """TF's Fobos step: soft-threshold ``prox`` by ``threshold`` when ``l1 > 0``."""
    if l1 > 0:
        return np.sign(prox) * np.maximum(np.abs(prox) - threshold, 0) / scale
    return prox / scale


def _gradient_descent(v, a):
    v["var"] = v["var"] - v["grad"] * v["alpha"]


def _proximal_gradient_descent(v, a):
    lr = v["alpha"]
    prox = v["var"] - v["grad"] * lr
    v["var"] = _l1_prox(prox, lr * v["l1"], 1 + v["l2"] * lr, v["l1"])


def _adadelta(v, a):
    g, rho, eps = v["grad"], v["rho"], v["epsilon"]
    v["accum"] = v["accum"] * rho + g * g * (1 - rho)
    step = np.sqrt(v["accum_update"] + eps) * _rsqrt(v["accum"] + eps) * g
    v["var"] = v["var"] - step * v["lr"]
    v["accum_update"] = v["accum_update"] * rho + step * step * (1 - rho)


def _adagrad(v, a):
    g = v["grad"]
    if a["update_slots"]:
        v["accum"] = v["accum"] + g * g
    if "epsilon" in v:
        v["var"] = v["var"] - g * v["lr"] / (np.sqrt(v["accum"]) + v["epsilon"])
    else:
        v["var"] = v["var"] - g * v["lr"] * _rsqrt(v["accum"])


def _adagrad_da(v, a):
    g, lr, l1, l2 = v["grad"], v["lr"], v["l1"], v["l2"]
    v["gradient_accumulator"] = v["gradient_accumulator"] + g
    v["gradient_squared_accumulator"] = v["gradient_squared_accumulator"] + g * g
    acc, sq = v["gradient_accumulator"], v["gradient_squared_accumulator"]
    step = np.asarray(v["global_step"]).astype(g.dtype)
    denom = l2 * (step * lr) + np.sqrt(sq)
    if l1 > 0:
        v["var"] = -lr * np.sign(acc) * np.maximum(np.abs(acc) - step * l1, 0) / denom
    else:
        v["var"] = -lr * acc / denom


def _proximal_adagrad(v, a):
    g = v["grad"]
    v["accum"] = v["accum"] + g * g
    lr = v["lr"] * _rsqrt(v["accum"])
    prox = v["var"] - g * lr
    v["var"] = _l1_prox(prox, lr * v["l1"], 1 + v["l2"] * lr, v["l1"])


def _ftrl(v, a):
    g, var, lr, l1, l2 = v["grad"], v["var"], v["lr"], v["l1"], v["l2"]
    power = v["lr_power"]
    shrink_g = g + 2 * v["l2_shrinkage"] * var if "l2_shrinkage" in v else g
    old_accum = v["accum"]
    new_accum = old_accum + g * g

    def scaled(x):
        return np.sqrt(x) if power == -0.5 else np.power(x, -power)

    if a["multiply_linear_by_lr"]:
        linear = v["linear"] + shrink_g * lr - (scaled(new_accum) - scaled(old_accum)) * var
        l1_t, quadratic = l1 * lr, scaled(new_accum) + 2 * l2 * lr
    else:
        linear = v["linear"] + shrink_g - (scaled(new_accum) - scaled(old_accum)) / lr * var
        l1_t, quadratic = l1, scaled(new_accum) / lr + 2 * l2
    new_var = (np.clip(linear, -l1_t, l1_t) - linear) / quadratic
    v["var"] = np.where(np.abs(linear) > l1_t, new_var, 0).astype(var.dtype)
    v["accum"], v["linear"] = new_accum, linear


def _momentum(v, a):
    g, lr, mu = v["grad"], v["lr"], v["momentum"]
    v["accum"] = v["accum"] * mu + g
    if a["use_nesterov"]:
        v["var"] = v["var"] - (g * lr + v["accum"] * mu * lr)
    else:
        v["var"] = v["var"] - v["accum"] * lr


def _adam(v, a):
    g, b1, b2 = v["grad"], v["beta1"], v["beta2"]
    alpha = v["lr"] * np.sqrt(1 - v["beta2_power"]) / (1 - v["beta1_power"])
    v["m"] = v["m"] + (g - v["m"]) * (1 - b1)
    v["v"] = v["v"] + (g * g - v["v"]) * (1 - b2)
    numerator = g * (1 - b1) + b1 * v["m"] if a["use_nesterov"] else v["m"]
    v["var"] = v["var"] - numerator * alpha / (np.sqrt(v["v"]) + v["epsilon"])


def _ada_max(v, a):
    g = v["grad"]
    v["m"] = v["m"] + (g - v["m"]) * (1 - v["beta1"])
    v["v"] = np.maximum(v["beta2"] * v["v"], np.abs(g))
    v["var"] = v["var"] - v["lr"] / (1 - v["beta1_power"]) * (v["m"] / (v["v"] + v["epsilon"]))


def _rms_prop(v, a):
    g, rho = v["grad"], v["rho"]
    v["ms"] = v["ms"] + (g * g - v["ms"]) * (1 - rho)
    if "mg" in v:
        v["mg"] = v["mg"] + (g - v["mg"]) * (1 - rho)
        denom = v["ms"] - v["mg"] * v["mg"] + v["epsilon"]
    else:
        denom = v["ms"] + v["epsilon"]
    v["mom"] = v["mom"] * v["momentum"] + g * v["lr"] / np.sqrt(denom)
    v["var"] = v["var"] - v["mom"]


def _add_sign(v, a):
    g = v["grad"]
    v["m"] = v["m"] * v["beta"] + g * (1 - v["beta"])
    agree = np.sign(g) * np.sign(v["m"])
    v["var"] = v["var"] - v["lr"] * (v["alpha"] + v["sign_decay"] * agree) * g


def _power_sign(v, a):
    g = v["grad"]
    v["m"] = v["m"] * v["beta"] + g * (1 - v["beta"])
    agree = np.sign(g) * np.sign(v["m"])
    v["var"] = v["var"] - v["lr"] * np.exp(v["logbase"] * v["sign_decay"] * agree) * g


_UPDATES = {
    "GradientDescent": _gradient_descent,
    "ProximalGradientDescent": _proximal_gradient_descent,
    "Adadelta": _adadelta,
    "Adagrad": _adagrad,
    "AdagradV2": _adagrad,
    "AdagradDA": _adagrad_da,
    "ProximalAdagrad": _proximal_adagrad,
    "Ftrl": _ftrl,
    "FtrlV2": _ftrl,
    "Momentum": _momentum,
    "Adam": _adam,
    "AdaMax": _ada_max,
    "RMSProp": _rms_prop,
    "CenteredRMSProp": _rms_prop,
    "AddSign": _add_sign,
    "PowerSign": _power_sign,
}


def _named(ctx, op, inputs):
    values, refs = {}, {}
    for arg, value in zip(op.op_def.inputs, inputs):
        name = "grad" if arg.name == "delta" else arg.name
        if arg.is_ref:
            refs[name] = value
            value = np.array(ctx.read_var(value, op))
        values[name] = value
    return values, refs


def _store(ctx, refs, values):
    for name, ref in refs.items():
        ctx.write_var(ref, np.asarray(values[name]))


def _check_shapes(op, values, refs):
    var_shape = values["var"].shape
    for name in refs:
        if values[name].shape != var_shape:
            raise errors.InvalidArgumentError(
                None,
                op,
                f"var and {name} do not have the same shape{list(var_shape)} "
                f"{list(values[name].shape)}",
            )


def _dense_kernel(update):
    def kernel(ctx, op, *inputs):
        values, refs = _named(ctx, op, inputs)
        _check_shapes(op, values, refs)
        dtype = values["var"].dtype
        update(values, op.attrs)
        for name in refs:
            values[name] = np.asarray(values[name]).astype(dtype)
        _store(ctx, refs, values)
        return refs["var"]

    return kernel


def _sparse_kernel(update):
    def kernel(ctx, op, *inputs):
        values, refs = _named(ctx, op, inputs)
        _check_shapes(op, values, refs)
        indices, grad = np.asarray(values.pop("indices")), np.asarray(values["grad"])
        num_rows = values["var"].shape[0]
        for offset, index in enumerate(indices):
            if not 0 <= index < num_rows:
                raise errors.InvalidArgumentError(
                    None, op, f"Index {index} at offset {offset} in indices is out of range"
                )
        unique, inverse = np.unique(indices, return_inverse=True)
        summed = np.zeros((len(unique),) + grad.shape[1:], grad.dtype)
        np.add.at(summed, inverse.reshape(-1), grad)
        for row, row_grad in zip(unique, summed):
            local = {k: (values[k][row] if k in refs else values[k]) for k in values}
            local["grad"] = row_grad
            update(local, op.attrs)
            for name in refs:
                values[name][row] = local[name]
        _store(ctx, refs, values)
        return refs["var"]

    return kernel


for _op_type in training_ops.APPLY_OP_TYPES:
    _update = _UPDATES[_op_type.removeprefix("Sparse").removeprefix("Apply")]
    _make = _sparse_kernel if _op_type.startswith("Sparse") else _dense_kernel
    reference(_op_type)(_make(_update))


# ---------------------------------------------------------------------------------------------
# Optax: no independent kernel is reasonable (the transform is arbitrary user code), so the
# reference calls the same optax functions eagerly and converts the results to numpy.
# ---------------------------------------------------------------------------------------------
def _optax_program(op):
    return training_ops.OPTAX_PROGRAMS[op.attrs["transform"].decode()]


@reference("OptaxInit")
def _optax_init(ctx, op, *params):
    import jax

    program = _optax_program(op)
    # Eager even when the XLA backend folds this op while tracing (all inputs constant).
    with jax.ensure_compile_time_eval():
        state = program.transform.init([np.asarray(p) for p in params])
    leaves = jax.tree_util.tree_leaves(state)
    out = [
        np.asarray(x, dtype.as_numpy_dtype) for x, (_, dtype) in zip(leaves, program.state_leaves)
    ]
    return out[0] if len(out) == 1 else tuple(out)


@reference("OptaxApply")
def _optax_apply(ctx, op, *inputs):
    import jax
    import optax

    program = _optax_program(op)
    n_params, n_state = len(op.attrs["Tparams"]), len(op.attrs["Tstate"])
    param_refs, state_refs = inputs[:n_params], inputs[n_params : n_params + n_state]
    grads = [np.asarray(g) for g in inputs[n_params + n_state :]]
    params = [np.asarray(ctx.read_var(r, op)) for r in param_refs]
    state = jax.tree_util.tree_unflatten(
        program.state_treedef, [np.asarray(ctx.read_var(r, op)) for r in state_refs]
    )
    with jax.ensure_compile_time_eval():
        updates, new_state = program.transform.update(grads, state, params)
        new_params = optax.apply_updates(params, updates)
    for ref, old, new in zip(param_refs, params, new_params):
        ctx.write_var(ref, np.asarray(new, old.dtype))
    for ref, (_, dtype), new in zip(
        state_refs, program.state_leaves, jax.tree_util.tree_leaves(new_state)
    ):
        ctx.write_var(ref, np.asarray(new, dtype.as_numpy_dtype))
