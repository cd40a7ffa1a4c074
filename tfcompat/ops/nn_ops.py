"""Neural-network ops (TF's ``nn_ops``): softmax family, top-k, activations, segments."""

from __future__ import annotations
