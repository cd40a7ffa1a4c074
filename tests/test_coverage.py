"""The checklist of the op registry: every registered op has a JAX lowering and a numpy
reference kernel. A failure lists exactly what is missing."""

import lowering  # noqa: F401 - fills the rule tables
from lowering.registry import LOWERINGS, REFERENCE
from tfcompat.framework.op_def import OPDEFS


def test_every_op_has_a_lowering():
    missing = sorted(op for op in OPDEFS if op not in LOWERINGS and not OPDEFS[op].host)
    assert not missing, f"ops without a JAX lowering: {missing}"


def test_every_op_has_a_reference_kernel():
    missing = sorted(op for op in OPDEFS if op not in REFERENCE)
    assert not missing, f"ops without a numpy reference kernel: {missing}"


def test_no_rules_for_unregistered_ops():
    # "_"-prefixed rules are the planner's pseudo-ops (lowering/regions.py), not graph ops.
    stray = sorted(t for t in (set(LOWERINGS) | set(REFERENCE)) - set(OPDEFS) if t[0] != "_")
    assert not stray, f"rules for op types that are not registered: {stray}"


# Ops that exist only in tfcompat, with why they have no gradient entry.
TFCOMPAT_ONLY_NO_GRADIENT = {
    "OptaxInit": "builds optimizer state; not on any differentiable path",
    "OptaxApply": "an optimizer update, like TF's Apply* ops (which have no entry)",
}


def _tf_gradient_entry(op_type):
    """'function', 'none' (marked not differentiable) or 'missing' in TF 2.21's registry."""
    from tests.oracle import tf1

    tf1()
    from tensorflow.python.framework import ops as tf_ops

    try:
        fn = tf_ops._gradient_registry.lookup(op_type)
    except LookupError:
        return "missing"
    return "none" if fn is None else "function"


def test_every_op_has_a_gradient_entry_where_tensorflow_has_one():
    """The gradient checklist: TensorFlow is the judge of which ops need an entry. An op TF
    differentiates needs a gradient here; one TF marks not differentiable needs the mark."""
    from tfcompat.framework.gradient_registry import GRADIENTS

    wrong = []
    for op in sorted(OPDEFS):
        if op in TFCOMPAT_ONLY_NO_GRADIENT:
            assert op not in GRADIENTS, f"{op} is listed as having no gradient"
            continue
        theirs = _tf_gradient_entry(op)
        ours = (
            "missing" if op not in GRADIENTS else "none" if GRADIENTS[op] is None else ("function")
        )
        if theirs == "function" and ours != "function":
            wrong.append(f"{op}: TF has a gradient, tfcompat {ours}")
        elif theirs == "none" and ours == "missing":
            wrong.append(f"{op}: TF marks it not differentiable, tfcompat has no entry")
    assert not wrong, "gradient registry gaps:\n" + "\n".join(wrong)
