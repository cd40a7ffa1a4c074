"""Rule tables: ``LOWERINGS`` (JAX) and ``REFERENCE`` (numpy), keyed by op type.

A rule is ``rule(ctx, op, *inputs) -> output | tuple of outputs | None``: ``inputs`` are the
op's input values in OpDef order (list args flattened), ``op`` gives attrs via ``op.attrs``,
and ``ctx`` gives access to variables and randomness (see ``interpreter.Context``). One table
per backend, filled by the family modules (``lowering/math.py``, ``lowering/reference/...``).
"""

from __future__ import annotations

LOWERINGS: dict = {}
REFERENCE: dict = {}
# Op types whose lowering runs a loop of its own (``lax.scan``, ``while_loop``,
# ``fori_loop``): a device step holding one is compiled with XLA's default copy insertion,
# like a step holding a ``tf.while_loop`` (see ``compile.compiler_options``).
LOOPING_LOWERINGS: set = set()
# ``prepare(ops, ctx)`` functions run before a device step's ops are lowered: one may
# compute the values of several ops at once and leave them on ``ctx`` for the ops' rules
# (``lowering/random.py`` draws a step's seeded truncated normals in one loop).
STEP_PREPARERS: list = []


def _register(table, op_types, fn):
    for op_type in op_types:
        if op_type in table:
            raise ValueError(f"duplicate rule for op type {op_type}")
        table[op_type] = fn
    return fn


def lowering(*op_types):
    """Decorator: ``fn`` lowers ``op_types`` to JAX."""
    return lambda fn: _register(LOWERINGS, op_types, fn)


def reference(*op_types):
    """Decorator: ``fn`` is the numpy reference kernel of ``op_types``."""
    return lambda fn: _register(REFERENCE, op_types, fn)


def elementwise(table, functions: dict):
    """Registers ``{op_type: f(*inputs)}`` pure functions that ignore attrs."""
    for op_type, f in functions.items():
        _register(table, (op_type,), lambda ctx, op, *xs, _f=f: _f(*xs))
