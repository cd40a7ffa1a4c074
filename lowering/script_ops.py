"""``PyFunc`` is host-only (its outputs' shapes are unknown until it runs): the planner runs
it in numpy (``lowering/reference/script_ops.py``); this family has no JAX lowerings."""
