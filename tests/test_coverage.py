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
