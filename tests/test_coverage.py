"""The checklist of the op registry: every registered op has a JAX lowering and a numpy
reference kernel. A failure lists exactly what is missing."""

import pytest

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


# Ops that keep no gradient on purpose: TF registers none for them either (TruncateMod) or
# they only run on the host (strings, files, tables, value-sized outputs). Host ops are
# exempt by their OpDef flag; list device ops here with the reason.
GRADIENT_EXEMPT = {
    "TruncateMod",  # TF 2.21 registers no gradient
    "SoftsignGrad",  # TF 2.21 registers no gradient (softsign has no second derivative)
}


@pytest.mark.skip(reason="gradients land family by family")
def test_every_op_has_a_gradient_or_is_marked():
    from tfcompat.framework.gradient_registry import GRADIENTS

    missing = sorted(
        op
        for op, op_def in OPDEFS.items()
        if op not in GRADIENTS and not op_def.host and op not in GRADIENT_EXEMPT
    )
    assert not missing, f"ops with neither a gradient nor a not-differentiable mark: {missing}"
