"""String ops are host-only: XLA has no strings, so the planner runs them in numpy on the host
(kernels in ``lowering/reference/strings.py``); this family has no JAX lowerings."""
