"""``tf.RegisterGradient`` / ``tf.NotDifferentiable``: gradient functions by op type.

``GRADIENTS[op_type]`` is ``fn(op, *grads) -> list of input grads`` or None for ops marked
not differentiable. The functions build backward ops in the same graph, as TF does.
"""

from __future__ import annotations

GRADIENTS: dict = {}


class RegisterGradient:
    """Decorator registering the gradient function of ``op_type``."""

    def __init__(self, op_type):
        if not isinstance(op_type, str):
            raise TypeError("op_type must be a string")
        self._op_type = op_type

    def __call__(self, fn):
        if self._op_type in GRADIENTS:
            raise KeyError(f"Registering two gradient with name '{self._op_type}'!")
        GRADIENTS[self._op_type] = fn
        return fn


def no_gradient(op_type):
    if not isinstance(op_type, str):
        raise TypeError("op_type must be a string")
    if op_type in GRADIENTS:
        raise KeyError(f"Registering two gradient with name '{op_type}'!")
    GRADIENTS[op_type] = None


NotDifferentiable = no_gradient
