"""Checkpoint ops are host-only: they read and write files, so the planner runs them on the
host (kernels in ``lowering/reference/io.py``); this family has no JAX lowerings."""
