"""``DecodeCSV`` is host-only (kernel in ``lowering/reference/csv.py``): CSV text is parsed
in numpy around the device step; this family has no JAX lowerings."""
