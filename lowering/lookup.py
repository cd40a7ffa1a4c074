"""Lookup-table ops are host-only: tables are Session state holding strings or int64 keys,
looked up in numpy on the host (kernels in ``lowering/reference/lookup.py``); this family has
no JAX lowerings."""
