"""Numpy kernels of the Example-parsing ops."""
