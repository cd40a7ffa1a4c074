"""Summary ops are host-only (their outputs are serialized protos): the planner runs them in
numpy after the device step (kernels in ``lowering/reference/summary.py``); this family has
no JAX lowerings."""
