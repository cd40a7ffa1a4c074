"""Reader ops are host-only: they read files and keep Session state (kernels in
``lowering/reference/readers.py``); this family has no JAX lowerings."""
