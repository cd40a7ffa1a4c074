"""The gradient cross-check: registered gradient functions vs ``jax.vjp`` of the lowering.

``check_gradients(ys, xs, feed_dict)`` evaluates two things on the same inputs:

* the backward graph that ``tf.gradients`` builds from the gradient registry (what a TF1
  training step runs), and
* ``jax.vjp`` of the lowered forward function ``xs -> ys`` (what JAX derives from our JAX
  lowering rules alone),

and reports, per x, the largest absolute and relative difference. Two independent
derivations agreeing is the evidence that both the gradient functions and the lowering
rules are right.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from lowering import compile as compile_lib
from lowering import plan as plan_lib
from tfcompat.framework.tensor import Tensor


@dataclasses.dataclass
class GradientDifference:
    x: str
    max_abs: float
    max_rel: float
    registered: np.ndarray
    autodiff: np.ndarray


@dataclasses.dataclass
class GradientCheckReport:
    rows: list

    def __str__(self):
        lines = [f"{'x':40s} {'max |diff|':>12s} {'max rel':>12s}"]
        for r in self.rows:
            lines.append(f"{r.x:40s} {r.max_abs:12.3e} {r.max_rel:12.3e}")
        return "\n".join(lines)

    def assert_close(self, atol=1e-5, rtol=1e-4):
        """Raises AssertionError naming each x whose gradients disagree beyond tolerance."""
        bad = [
            r
            for r in self.rows
            if not np.allclose(r.registered, r.autodiff, atol=atol, rtol=rtol, equal_nan=True)
        ]
        if bad:
            raise AssertionError("gradients disagree:\n" + str(GradientCheckReport(bad)))


def _dense(value, like_shape):
    """A fetched gradient as a dense array (IndexedSlices values summed into rows)."""
    if value is None:
        return np.zeros(like_shape)
    if hasattr(value, "indices") and hasattr(value, "values"):
        out = np.zeros(like_shape, dtype=np.asarray(value.values).dtype)
        np.add.at(out, np.asarray(value.indices), np.asarray(value.values))
        return out
    return np.asarray(value)


def _x_tensor(x):
    """The tensor that stands for x in the graph (a Variable's ref tensor)."""
    if isinstance(x, Tensor):
        return x
    return x._ref() if hasattr(x, "_ref") else x


def check_gradients(ys, xs, feed_dict=None, grad_ys=None, session=None) -> GradientCheckReport:
    """Compares ``tf.gradients(ys, xs, grad_ys)`` with ``jax.vjp`` of the lowered forward.

    ``session`` supplies variable values (a new Session with initialized globals is used when
    omitted). Adds the gradient ops to the graph, as ``tf.gradients`` does.
    """
    import jax

    from tfcompat.client.session import Session
    from tfcompat.gradients_impl import gradients

    ys = list(ys) if isinstance(ys, (list, tuple)) else [ys]
    xs = list(xs) if isinstance(xs, (list, tuple)) else [xs]
    graph = ys[0].graph
    grads = gradients(ys, xs, grad_ys)
    if session is None:
        from tfcompat import variables

        session = Session(graph=graph)
        with graph.as_default():
            session.run(variables.global_variables_initializer())
    feed_dict = dict(feed_dict or {})
    x_tensors = [_x_tensor(x) for x in xs]
    x_values = session.run(x_tensors, feed_dict)
    x_values = [np.asarray(v) for v in x_values]
    registered = session.run([g for g in grads if g is not None], feed_dict)
    registered_iter = iter(registered)
    registered = [
        _dense(next(registered_iter), v.shape) if g is not None else np.zeros_like(v)
        for g, v in zip(grads, x_values)
    ]
    feeds = session._convert_feeds(feed_dict) if feed_dict else {}
    cotangents = None
    if grad_ys is not None:
        gy = grad_ys if isinstance(grad_ys, (list, tuple)) else [grad_ys]
        cotangents = session.run(list(gy), feed_dict)
    autodiff = _vjp(session, ys, x_tensors, x_values, feeds, cotangents, jax)
    rows = []
    for x, reg, auto in zip(x_tensors, registered, autodiff):
        reg, auto = np.asarray(reg, np.float64), np.asarray(auto, np.float64)
        diff = np.abs(reg - auto)
        max_abs = float(diff.max()) if diff.size else 0.0
        scale = np.maximum(np.abs(auto), 1e-12)
        max_rel = float((diff / scale).max()) if diff.size else 0.0
        rows.append(GradientDifference(x.name, max_abs, max_rel, reg, auto))
    return GradientCheckReport(rows)


def _vjp(session, ys, x_tensors, x_values, feeds, cotangents, jax):
    feed_tensors = tuple(feeds) + tuple(t for t in x_tensors if t not in feeds)
    plan = plan_lib.build_plan(tuple(ys), (), feed_tensors, move_to_host=False)
    segments = plan.device_segments
    if len(plan.segments) != 1 or len(segments) != 1:
        raise ValueError("check_gradients needs ys computed by one device segment")
    segment = segments[0]
    fn = compile_lib.DeviceFunction(segment).pure_function()
    state = {n: session._state[n] for n in segment.variables if n in session._state}
    position = {t: i for i, t in enumerate(segment.inputs)}

    def forward(*xv):
        inputs = [None] * len(segment.inputs)
        for t, value in feeds.items():
            if t in position:
                inputs[position[t]] = value
        for t, value in zip(x_tensors, xv):
            if t in position:
                inputs[position[t]] = value
        outputs, _ = fn(state, inputs, np.uint32(0))
        by_tensor = dict(zip(segment.outputs, outputs))
        return [by_tensor[y] for y in ys]

    primals, vjp_fn = jax.vjp(forward, *[jax.numpy.asarray(v) for v in x_values])
    if cotangents is None:
        cotangents = [np.ones_like(np.asarray(p)) for p in primals]
    cotangents = [jax.numpy.asarray(c, dtype=p.dtype) for c, p in zip(cotangents, primals)]
    return [np.asarray(g) for g in vjp_fn(cotangents)]
