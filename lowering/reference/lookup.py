"""Numpy kernels of the lookup-table ops."""
