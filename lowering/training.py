"""JAX lowerings of the optimizer update ops (``Apply*`` / ``SparseApply*``).

Each algorithm is written once as ``update(s, attrs) -> {ref name: new value}``, where
``s`` maps the op's input names (TF's: ``var``, ``accum``, ``lr``, ...) to values (refs
already read; the dense gradient is always ``s["grad"]``). A dense op applies it to whole
variables; a sparse op applies it to the touched rows only:

1. deduplicate ``indices`` with a sort of static size (``jnp.unique(size=n)``) and
   segment-sum the gradient rows that share an index (see ``tfcompat/ops/training_ops.py``
   for why the kernels, not the graph, sum duplicates);
2. gather those rows of the variable and of each slot, run ``update`` on them;
3. scatter the new rows back; padding rows (beyond the distinct count) scatter to an
   out-of-range index and are dropped.

So a sparse step costs time in proportion to the rows touched, never a dense gradient.
Indices out of range are not detected on device (TF raises InvalidArgument; so does the
numpy reference): their rows are dropped.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from lowering import unique as unique_lowering
from lowering.registry import lowering
from tfcompat.framework.constant_value import constant_value
from tfcompat.ops import training_ops


def _select_l1(l1, with_l1, without_l1):
    """TF's kernels branch on ``l1 > 0``; both branches are finite, so select."""
    return jnp.where(l1 > 0, with_l1, without_l1)


# ---------------------------------------------------------------------------------------------
# Update rules (TF's CPU functors, term for term)
# ---------------------------------------------------------------------------------------------
def _gradient_descent(s, attrs):
    return {"var": s["var"] - s["grad"] * s["alpha"]}


def _proximal_gradient_descent(s, attrs):
    lr, l1, l2 = s["alpha"], s["l1"], s["l2"]
    prox = s["var"] - s["grad"] * lr
    shrunk = jnp.sign(prox) * jnp.maximum(jnp.abs(prox) - lr * l1, 0) / (1 + l2 * lr)
    return {"var": _select_l1(l1, shrunk, prox / (1 + l2 * lr))}


def _adadelta(s, attrs):
    g, rho, eps = s["grad"], s["rho"], s["epsilon"]
    accum = s["accum"] * rho + jnp.square(g) * (1 - rho)
    update = jnp.sqrt(s["accum_update"] + eps) * lax.rsqrt(accum + eps) * g
    return {
        "var": s["var"] - update * s["lr"],
        "accum": accum,
        "accum_update": s["accum_update"] * rho + jnp.square(update) * (1 - rho),
    }


def _adagrad(s, attrs):
    g = s["grad"]
    accum = s["accum"] + jnp.square(g) if attrs["update_slots"] else s["accum"]
    if "epsilon" in s:  # AdagradV2
        var = s["var"] - g * s["lr"] / (jnp.sqrt(accum) + s["epsilon"])
    else:
        var = s["var"] - g * s["lr"] * lax.rsqrt(accum)
    return {"var": var, "accum": accum}


def _adagrad_da(s, attrs):
    g, lr, l1, l2 = s["grad"], s["lr"], s["l1"], s["l2"]
    g_acc = s["gradient_accumulator"] + g
    gg_acc = s["gradient_squared_accumulator"] + jnp.square(g)
    step = s["global_step"].astype(g.dtype)
    denom = l2 * (step * lr) + jnp.sqrt(gg_acc)
    with_l1 = -lr * jnp.sign(g_acc) * jnp.maximum(jnp.abs(g_acc) - step * l1, 0) / denom
    return {
        "var": _select_l1(l1, with_l1, -lr * g_acc / denom),
        "gradient_accumulator": g_acc,
        "gradient_squared_accumulator": gg_acc,
    }


def _proximal_adagrad(s, attrs):
    g, l1, l2 = s["grad"], s["l1"], s["l2"]
    accum = s["accum"] + jnp.square(g)
    lr = s["lr"] * lax.rsqrt(accum)
    prox = s["var"] - g * lr
    shrunk = jnp.sign(prox) * jnp.maximum(jnp.abs(prox) - lr * l1, 0) / (1 + l2 * lr)
    return {"var": _select_l1(l1, shrunk, prox / (1 + l2 * lr)), "accum": accum}


def _ftrl(s, attrs):
    g, var, accum, lr, l1, l2 = s["grad"], s["var"], s["accum"], s["lr"], s["l1"], s["l2"]
    power = -s["lr_power"]
    shrink_g = g + 2 * s["l2_shrinkage"] * var if "l2_shrinkage" in s else g
    new_accum = accum + jnp.square(g)
    is_sqrt = s["lr_power"] == -0.5  # TF special-cases it (sqrt, not pow)

    def scaled(x):
        return jnp.where(is_sqrt, jnp.sqrt(x), jnp.power(x, power))

    sigma = scaled(new_accum) - scaled(accum)
    if attrs["multiply_linear_by_lr"]:
        linear = s["linear"] + shrink_g * lr - sigma * var
        l1_t, quadratic = l1 * lr, scaled(new_accum) + 2 * l2 * lr
    else:
        linear = s["linear"] + shrink_g - sigma / lr * var
        l1_t, quadratic = l1, scaled(new_accum) / lr + 2 * l2
    pre_shrink = (l1_t * jnp.sign(linear) - linear) / quadratic
    new_var = jnp.where(jnp.abs(linear) > l1_t, pre_shrink, jnp.zeros_like(var))
    return {"var": new_var, "accum": new_accum, "linear": linear}


def _momentum(s, attrs):
    g, lr, momentum = s["grad"], s["lr"], s["momentum"]
    accum = s["accum"] * momentum + g
    if attrs["use_nesterov"]:
        var = s["var"] - (g * lr + accum * momentum * lr)
    else:
        var = s["var"] - accum * lr
    return {"var": var, "accum": accum}


def _adam(s, attrs):
    g, beta1, beta2 = s["grad"], s["beta1"], s["beta2"]
    alpha = s["lr"] * jnp.sqrt(1 - s["beta2_power"]) / (1 - s["beta1_power"])
    m = s["m"] + (g - s["m"]) * (1 - beta1)
    v = s["v"] + (jnp.square(g) - s["v"]) * (1 - beta2)
    step = (g * (1 - beta1) + beta1 * m) if attrs["use_nesterov"] else m
    return {"var": s["var"] - step * alpha / (jnp.sqrt(v) + s["epsilon"]), "m": m, "v": v}


def _ada_max(s, attrs):
    g = s["grad"]
    m = s["m"] + (g - s["m"]) * (1 - s["beta1"])
    v = jnp.maximum(s["beta2"] * s["v"], jnp.abs(g))
    var = s["var"] - s["lr"] / (1 - s["beta1_power"]) * (m / (v + s["epsilon"]))
    return {"var": var, "m": m, "v": v}


def _rms_prop(s, attrs):
    g, rho = s["grad"], s["rho"]
    ms = s["ms"] + (jnp.square(g) - s["ms"]) * (1 - rho)
    out = {"ms": ms}
    if "mg" in s:  # centered
        mg = s["mg"] + (g - s["mg"]) * (1 - rho)
        denom = ms - jnp.square(mg) + s["epsilon"]
        out["mg"] = mg
    else:
        denom = ms + s["epsilon"]
    mom = s["mom"] * s["momentum"] + g * s["lr"] / jnp.sqrt(denom)
    out.update(mom=mom, var=s["var"] - mom)
    return out


def _sign_rule(scale):
    """AddSign / PowerSign: momentum of the gradient, step scaled by sign agreement."""

    def update(s, attrs):
        g, beta = s["grad"], s["beta"]
        m = s["m"] * beta + g * (1 - beta)
        agreement = jnp.sign(g) * jnp.sign(m)
        return {"var": s["var"] - s["lr"] * scale(s, agreement) * g, "m": m}

    return update


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
    "AddSign": _sign_rule(lambda s, a: s["alpha"] + s["sign_decay"] * a),
    "PowerSign": _sign_rule(lambda s, a: jnp.exp(s["logbase"] * s["sign_decay"] * a)),
}


# ---------------------------------------------------------------------------------------------
# Rules: bind inputs by name, read refs, apply, write back
# ---------------------------------------------------------------------------------------------
def _bind(ctx, op, inputs):
    """(values by input name with refs read and ``delta`` renamed ``grad``, refs by name)."""
    values, refs = {}, {}
    for arg, value in zip(op.op_def.inputs, inputs):
        name = "grad" if arg.name == "delta" else arg.name
        if arg.is_ref:
            refs[name] = value
            value = ctx.read_var(value, op)
        values[name] = value
    return values, refs


def _write(ctx, refs, new_values, old_values):
    for name, value in new_values.items():
        ctx.write_var(refs[name], jnp.asarray(value, old_values[name].dtype))


def _dense_rule(update):
    def rule(ctx, op, *inputs):
        values, refs = _bind(ctx, op, inputs)
        _write(ctx, refs, update(values, op.attrs), values)
        return refs["var"]

    return rule


def deduplicate(indices, rows):
    """``(unique, summed, valid)`` of static length ``n = len(indices)``: the distinct
    indices ascending (padded with the smallest), the sum of ``rows`` per distinct index
    (zero rows as padding), and which entries are real."""
    n = indices.shape[0]
    unique, inverse = jnp.unique(indices, size=n, return_inverse=True)
    inverse = inverse.reshape(-1)
    summed = jax.ops.segment_sum(rows, inverse, num_segments=n)
    valid = jnp.arange(n) <= jnp.max(inverse)
    return unique, summed, valid


def _distinct_indices(op, num_rows) -> bool:
    """Whether the update's indices are distinct already: a ``Unique``'s output (TF's
    optimizers deduplicate first; on the device its padding is out of range, see
    ``lowering/unique.py``), or the second output of a ``SparseSegment*GradV2`` (TF's
    row-sparse gradient of an embedding lookup) over this variable's rows, whose padding
    rows carry the out-of-range index ``num_rows``. Deduplicating them again would add a
    sort and a segment sum per table to every step."""
    names = [arg.name for arg in op.op_def.inputs]
    source = op.inputs[names.index("indices")]
    if not unique_lowering.is_distinct_source(source):
        return False
    if source.op.type == "Unique":
        return True
    rows = constant_value(source.op.inputs[3])
    return rows is not None and int(np.reshape(rows, -1)[0]) == num_rows


def _sparse_rule(update):
    def rule(ctx, op, *inputs):
        values, refs = _bind(ctx, op, inputs)
        indices = values.pop("indices")
        if indices.shape[0] == 0:
            return refs["var"]
        num_rows = values["var"].shape[0]
        if _distinct_indices(op, num_rows):
            valid = (indices >= 0) & (indices < num_rows)
            unique, summed = jnp.where(valid, indices, 0), values["grad"]
        else:
            unique, summed, valid = deduplicate(indices, values["grad"])
        local = {k: (v[unique] if k in refs else v) for k, v in values.items()}
        local["grad"] = summed
        target = jnp.where(valid, unique, num_rows)  # out of range: dropped
        new_rows = update(local, op.attrs)
        for name, rows in new_rows.items():
            full = values[name]
            ctx.write_var(refs[name], full.at[target].set(rows.astype(full.dtype), mode="drop"))
        return refs["var"]

    return rule


def algorithm(op_type: str) -> str:
    """``SparseApplyAdagradV2`` -> ``AdagradV2``."""
    return op_type.removeprefix("Sparse").removeprefix("Apply")


for _op_type in training_ops.APPLY_OP_TYPES:
    _update = _UPDATES[algorithm(_op_type)]
    _make = _sparse_rule if _op_type.startswith("Sparse") else _dense_rule
    lowering(_op_type)(_make(_update))


# ---------------------------------------------------------------------------------------------
# Optax: the transform's own init/update functions, traced into the step
# ---------------------------------------------------------------------------------------------
def _optax_program(op):
    return training_ops.OPTAX_PROGRAMS[op.attrs["transform"].decode()]


def _as_outputs(values):
    """One value for a single-output op, a tuple otherwise (the interpreter's rule)."""
    return values[0] if len(values) == 1 else tuple(values)


@lowering("OptaxInit")
def _optax_init(ctx, op, *params):
    program = _optax_program(op)
    leaves = jax.tree_util.tree_leaves(program.transform.init(list(params)))
    return _as_outputs(
        [
            jnp.asarray(x, dtype.as_numpy_dtype)
            for x, (_, dtype) in zip(leaves, program.state_leaves)
        ]
    )


@lowering("OptaxApply")
def _optax_apply(ctx, op, *inputs):
    import optax

    program = _optax_program(op)
    n_params, n_state = len(op.attrs["Tparams"]), len(op.attrs["Tstate"])
    param_refs, state_refs = inputs[:n_params], inputs[n_params : n_params + n_state]
    grads = list(inputs[n_params + n_state :])
    params = [ctx.read_var(r, op) for r in param_refs]
    state = jax.tree_util.tree_unflatten(
        program.state_treedef, [ctx.read_var(r, op) for r in state_refs]
    )
    updates, new_state = program.transform.update(grads, state, params)
    new_params = optax.apply_updates(params, updates)
    for ref, old, new in zip(param_refs, params, new_params):
        ctx.write_var(ref, jnp.asarray(new, old.dtype))
    for ref, (_, dtype), new in zip(
        state_refs, program.state_leaves, jax.tree_util.tree_leaves(new_state)
    ):
        ctx.write_var(ref, jnp.asarray(new, dtype.as_numpy_dtype))
