"""Numpy reference kernels, one module per op family; they fill ``registry.REFERENCE``."""
