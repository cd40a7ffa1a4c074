"""Trip counts of while loops that are known when the step is traced.

XLA:GPU runs a while loop whose trip count it cannot prove by copying the loop predicate
to the host after every iteration: a device-to-host synchronisation per iteration. TF
graphs hide simple counts from XLA: ``tf.while_loop(..., maximum_iterations=n)`` conjoins
two tests, and the gradient of a loop counts down from the forward loop's final counter,
which XLA sees as an unknown loop output. ``dynamic_rnn``'s backward loop on an H100
synchronised 32 times a step for that (LSTM bench: 0.55x the ``lax.scan`` twin).

Here the loop is analysed on its jaxpr: the small integer and boolean carry leaves whose
initial values are compile-time constants and whose next values depend only on such
leaves (counters, time steps, flags) are *counting* leaves. When the predicate depends on
counting leaves alone, the loop is run on them on the host while tracing (a few scalar
ops per iteration) to find its trip count ``n``; the loop is then lowered as
``fori_loop(0, n)`` (a loop XLA knows the count of) and the counting leaves leave it as
constants, so that a loop fed by them (the gradient loop) gets a known count too.
Anything else (an effect, a predicate on data, more than ``MAX_HOST_ITERATIONS``) keeps
``lax.while_loop``.
"""

from __future__ import annotations

import jax
import jax.extend.core as jax_core
import numpy as np

# Host evaluation stops here (and the loop stays a while_loop): counting is cheap, but a
# loop of millions of iterations is better left to the device.
MAX_HOST_ITERATIONS = 4096
# Counting leaves are scalars in practice (counters, time steps); larger constants that
# evolve on their own stay on the device.
MAX_COUNTING_ELEMENTS = 16


def is_constant(value) -> bool:
    """A compile-time value (numpy or Python), not a traced one."""
    return isinstance(value, (np.ndarray, np.generic, int, float, bool))


def _dependencies(closed) -> list:
    """Per output of ``closed``: the set of its input positions it depends on; None for an
    output behind an effect (never counted)."""
    jaxpr = closed.jaxpr
    deps = {v: frozenset([i]) for i, v in enumerate(jaxpr.invars)}
    deps.update({v: frozenset() for v in jaxpr.constvars})

    def of(var):
        return frozenset() if isinstance(var, jax_core.Literal) else deps.get(var)

    for eqn in jaxpr.eqns:
        inputs = [of(v) for v in eqn.invars]
        merged = None if eqn.effects or any(d is None for d in inputs) else frozenset()
        if merged is not None:
            merged = merged.union(*inputs)
        for v in eqn.outvars:
            deps[v] = merged
    return [of(v) for v in jaxpr.outvars]


def _pruned(closed, inputs: list, outputs: list):
    """``closed`` reduced to the equations ``outputs`` need, taking ``inputs`` only; None
    when they read a traced constant."""
    jaxpr = closed.jaxpr
    needed = {v for v in (jaxpr.outvars[i] for i in outputs) if not isinstance(v, jax_core.Literal)}
    kept = []
    for eqn in reversed(jaxpr.eqns):
        if any(v in needed for v in eqn.outvars):
            kept.append(eqn)
            needed.update(v for v in eqn.invars if not isinstance(v, jax_core.Literal))
    consts = dict(zip(jaxpr.constvars, closed.consts))
    constvars = [v for v in jaxpr.constvars if v in needed]
    if any(isinstance(consts[v], jax.core.Tracer) for v in constvars):
        return None
    pruned = jaxpr.replace(
        constvars=constvars,
        invars=[jaxpr.invars[i] for i in inputs],
        outvars=[jaxpr.outvars[i] for i in outputs],
        eqns=list(reversed(kept)),
        effects=frozenset(),
    )
    return jax_core.jaxpr_as_fun(jax_core.ClosedJaxpr(pruned, [consts[v] for v in constvars]))


def count(cond, body, carry):
    """``(n, {leaf position: final value})`` when ``while cond(carry): carry =
    body(carry)`` runs a number of times known now, else None. ``carry``'s constant leaves
    are numpy values."""
    leaves, treedef = jax.tree.flatten(carry)
    constant = {i for i, leaf in enumerate(leaves) if is_constant(leaf)}
    if not constant:
        return None
    avals = [jax.ShapeDtypeStruct(np.shape(x), jax.numpy.result_type(x)) for x in leaves]

    def flat_body(*xs):
        out = body(jax.tree.unflatten(treedef, xs))
        out_leaves, out_treedef = jax.tree.flatten(out)
        if out_treedef != treedef:
            raise _Uncountable
        return out_leaves

    def flat_cond(*xs):
        return cond(jax.tree.unflatten(treedef, xs))

    try:
        body_jaxpr = jax.make_jaxpr(flat_body)(*avals)
        cond_jaxpr = jax.make_jaxpr(flat_cond)(*avals)
    except _Uncountable:
        return None
    body_deps, (cond_deps,) = _dependencies(body_jaxpr), _dependencies(cond_jaxpr)
    # The counting leaves: the largest set of small constant leaves whose next values
    # depend on counting leaves only. The predicate must read no other; the rest (the
    # forward index a gradient loop counts down from) leave the loop as constants too.
    counting = {
        i
        for i in constant
        if np.size(leaves[i]) <= MAX_COUNTING_ELEMENTS and _exact(avals[i].dtype)
    }
    while True:
        bad = {i for i in counting if body_deps[i] is None or not body_deps[i] <= counting}
        if not bad:
            break
        counting -= bad
    if cond_deps is None or not cond_deps <= counting:
        return None
    order = sorted(counting)
    step = _pruned(body_jaxpr, order, order)
    test = _pruned(cond_jaxpr, order, [0])
    if step is None or test is None:
        return None
    values = [np.asarray(leaves[i], avals[i].dtype) for i in order]
    with jax.ensure_compile_time_eval(), jax.default_device(jax.devices("cpu")[0]):
        for n in range(MAX_HOST_ITERATIONS + 1):
            if not bool(np.asarray(test(*values)[0])):
                return n, {i: np.asarray(v) for i, v in zip(order, values)}
            values = step(*values)
    return None


def _exact(dtype) -> bool:
    """Integers and booleans: the host computes them exactly as the device would (float
    arithmetic could round differently on an accelerator)."""
    return np.issubdtype(dtype, np.integer) or dtype == np.bool_


class _Uncountable(Exception):
    pass
