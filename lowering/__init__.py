"""Lowering: from a pruned tfcompat Graph to one jitted XLA function per Session.run.

Importing this package fills the rule tables (``registry.LOWERINGS`` for JAX and
``registry.REFERENCE`` for numpy) from the family modules listed in ``FAMILIES``.
"""

import importlib

import jax

# TF graphs use int64 and float64 freely; without x64 JAX would silently compute them in
# 32 bits. Rules therefore pass explicit dtypes wherever jnp would pick a default.
jax.config.update("jax_enable_x64", True)

FAMILIES = ("array", "math", "nn", "state", "control_flow")

for _family in FAMILIES:
    importlib.import_module(f"lowering.{_family}")
    importlib.import_module(f"lowering.reference.{_family}")
