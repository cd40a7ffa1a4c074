"""Example-parsing ops are host-only: they decode serialized protos on the host (kernels in
``lowering/reference/parsing.py``); this family has no JAX lowerings."""
