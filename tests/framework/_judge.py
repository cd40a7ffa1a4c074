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


def build(tf, program):
    """Runs ``program(tf)`` in a fresh graph (nothing is executed); returns the GraphDef
    nodes as ``(name, op, inputs, device, {attr: serialized AttrValue})`` and the result."""
    graph = tf.Graph()
    with graph.as_default():
        result = program(tf)
    nodes = [
        (
            n.name,
            n.op,
            list(n.input),
            n.device,
            {k: v.SerializeToString(deterministic=True) for k, v in n.attr.items()},
        )
        for n in graph.as_graph_def().node
    ]
    return nodes, result


def assert_same_build(program, normalize=repr):
    """``program`` builds the same GraphDef (names, inputs, devices, attrs) under tfcompat
    and TF, and returns equal results (after ``normalize``), or raises the same error."""
    import tfcompat
    from tests.oracle import tf1

    ours, theirs = outcome(build, tfcompat, program), outcome(build, tf1(), program)
    assert ours[0] == theirs[0], f"ours {ours!r} vs TF {theirs!r}"
    if ours[0] != "ok":
        assert ours[1] == theirs[1], f"message: ours {ours[1]!r} vs TF {theirs[1]!r}"
        return
    (nodes_a, result_a), (nodes_b, result_b) = ours[1], theirs[1]
    assert [n[:4] for n in nodes_a] == [n[:4] for n in nodes_b]
    for a, b in zip(nodes_a, nodes_b):
        assert a[4] == b[4], f"{a[0]}: attrs {a[4]} vs TF {b[4]}"
    assert normalize(result_a) == normalize(result_b)
