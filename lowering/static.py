"""Values XLA needs at compile time, and what happens when they come from a feed.

Output shapes of an XLA program are static, so inputs such as reduction axes, ``Range``
bounds, ``Reshape``/``Fill`` shapes, ``top_k``'s ``k`` or ``num_segments`` must be known when
a device segment is traced: graph constants and static-shape arithmetic are (they stay numpy
values while tracing). When such a value is fed instead (``tf.range(n)`` with ``n`` a
placeholder), the rule raises ``StaticValueRequired``; the device function then retraces with
its small integer feeds as compile-time constants, so the executable is specialised to those
values and cached per distinct value (a new value compiles once). The first such retrace
is preceded by one exploratory trace (``collecting``) that finds all the values a step
needs, instead of one retrace per value.
"""

from __future__ import annotations

import contextlib
import contextvars

import numpy as np

from tfcompat.framework import errors
from tfcompat.framework.constant_value import constant_value

# Integer feeds up to this many elements may become compile-time constants.
MAX_STATIC_FEED_ELEMENTS = 1024


# While a trace explores what it needs (``collecting``): (evaluate, found).
_collector: contextvars.ContextVar = contextvars.ContextVar("static_collector", default=None)


@contextlib.contextmanager
def collecting(evaluate):
    """Within it, a rule needing a run-time value takes ``evaluate(tensor)`` (a numpy
    value, or an exception when the host cannot compute it) instead of stopping the trace,
    and the tensor is added to the yielded list: one exploratory trace then finds every
    compile-time value a step needs, not only the first."""
    found = []
    token = _collector.set((evaluate, found))
    try:
        yield found
    finally:
        _collector.reset(token)


class StaticValueRequired(errors.UnimplementedError):
    """A rule needed a compile-time value that is only known at run time; ``tensor`` is
    the graph tensor whose value it needed."""

    tensor = None


def is_static(value) -> bool:
    return isinstance(value, (np.ndarray, np.generic))


def static_value(op, index, value, what=None) -> np.ndarray:
    """Input ``index`` of ``op`` as a numpy array: from the graph when it is a constant
    there, or ``value`` itself when that is a numpy value; else StaticValueRequired."""
    if is_static(value):
        return np.asarray(value)
    known = constant_value(op.inputs[index])
    if known is not None:
        return np.asarray(known)
    import jax

    if not isinstance(value, jax.core.Tracer):
        return np.asarray(value)
    if what is None:
        what = op.op_def.inputs[min(index, len(op.op_def.inputs) - 1)].name
    return required_value(
        op.inputs[index],
        op,
        f"{op.type} needs its input '{what}' ({op.inputs[index].name}) when the graph is "
        f"compiled for XLA, but it is computed at run time\n\t [[{{{{node {op.name}}}}}]]",
    )


def required_value(tensor, op, message) -> np.ndarray:
    """``tensor``'s value where an exploratory trace computes it on the host
    (``collecting``); else StaticValueRequired(``message``) naming ``tensor``, so that the
    step is retraced with the inputs it comes from as compile-time values."""
    collector = _collector.get()
    if collector is not None:
        evaluate, found = collector
        try:
            known = evaluate(tensor)
        except Exception:  # not computable on the host: stop here, as without collecting
            known = None
        if known is not None:
            found.append(tensor)
            return np.asarray(known)
    error = StaticValueRequired(None, op, message)
    error.tensor = tensor
    raise error


def static_ints(op, index, value, what=None) -> list:
    return [int(v) for v in static_value(op, index, value, what).reshape(-1)]


def static_int(op, index, value, what=None) -> int:
    return int(static_value(op, index, value, what).reshape(()))


def static_feed_positions(values) -> tuple:
    """Positions of the values that may be specialised on: small integer or boolean arrays
    (a ``tf.cond(is_training, ...)`` whose branches differ in shape)."""
    positions = []
    for i, v in enumerate(values):
        arr = np.asarray(v) if is_static(v) else None
        if arr is not None and arr.dtype.kind in "iub" and arr.size <= MAX_STATIC_FEED_ELEMENTS:
            positions.append(i)
    return tuple(positions)


def required_tensor(error):
    """The tensor a ``StaticValueRequired`` in ``error``'s cause chain needed, or None."""
    while error is not None:
        if isinstance(error, StaticValueRequired):
            return error.tensor
        error = error.__cause__
    return None


def source_positions(segment, tensor) -> set:
    """Positions of ``segment``'s inputs that ``tensor``'s value is computed from inside
    the segment: specialising on those alone keeps other inputs (e.g. index arrays whose
    values change every batch) out of the compile-time key."""
    positions = {t: i for i, t in enumerate(segment.inputs)}
    produced = {id(out) for op in _all_ops(segment.ops) for out in op.outputs}
    found, seen, pending = set(), set(), [tensor]
    while pending:
        t = pending.pop()
        if id(t) in seen:
            continue
        seen.add(id(t))
        if t in positions:
            found.add(positions[t])
        elif id(t) in produced and t.op.type not in _SHAPE_OPS:
            pending.extend(t.op.inputs)
    return found


def _all_ops(ops):
    """``ops`` and, recursively, the member ops of the cond and loop regions among them (a
    predicate computed inside a branch)."""
    for op in ops:
        yield op
        yield from _all_ops(getattr(op, "members", ()))


# A shape's value is known while tracing, whatever the values of the tensor it is taken of.
_SHAPE_OPS = frozenset({"Shape", "ShapeN", "Size", "Rank"})


def freeze(arrays) -> tuple:
    """A hashable key for compile-time values (part of jit's cache key); string (object)
    arrays are keyed by their elements."""
    key = []
    for a in map(np.asarray, arrays):
        data = tuple(a.ravel().tolist()) if a.dtype == object else a.tobytes()
        key.append((a.dtype.str, a.shape, data))
    return tuple(key)


def thaw(key) -> list:
    out = []
    for dt, shape, data in key:
        if np.dtype(dt) == object:
            array = np.empty(len(data), dtype=object)
            array[:] = list(data)
            out.append(array.reshape(shape))
        else:
            out.append(np.frombuffer(data, dtype=np.dtype(dt)).reshape(shape))
    return out
