"""SparseTensorsMap ops are host-only (kernels in ``lowering/reference/sparse_map.py``):
they keep Session state; this family has no JAX lowerings."""
