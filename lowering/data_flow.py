"""Queue ops are host-only: they block and keep Session state, so the planner runs them on
the host (kernels in ``lowering/reference/data_flow.py``); this family has no JAX
lowerings."""
