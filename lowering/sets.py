"""The set ops are host-only: their results are SparseTensors whose sizes depend on the
values, so the planner runs them on the host (kernels in ``lowering/reference/sets.py``);
this family has no JAX lowerings."""
