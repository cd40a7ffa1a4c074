"""Helpers for comparing tfcompat behaviour with TF's, outcome by outcome."""

from __future__ import annotations


def outcome(fn, *args, **kwargs):
    """``("ok", result)`` or ``(exception class name, message)``: what calling ``fn`` did."""
    try:
        return "ok", fn(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the exception is the observed outcome
        return type(e).__name__, str(e)


def same_outcome(ours, theirs, normalize=lambda v: v):
    """Asserts both calls raised the same class with the same message, or both returned
    values equal after ``normalize``."""
    kind_a, value_a = ours
    kind_b, value_b = theirs
    assert kind_a == kind_b, f"ours {ours!r} vs TF {theirs!r}"
    if kind_a == "ok":
        assert normalize(value_a) == normalize(value_b), f"ours {value_a!r} vs TF {value_b!r}"
    else:
        assert value_a == value_b, f"message: ours {value_a!r} vs TF {value_b!r}"
