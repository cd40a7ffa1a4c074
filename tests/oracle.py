"""TensorFlow 2.21 as the oracle: run one program under tfcompat and under TF.

A *program* is a function ``program(tf) -> fetches`` or ``-> (fetches, feed_dict)`` that
builds a graph with the module it is given: ``tfcompat`` or ``tensorflow.compat.v1``. The
helpers here build it in a fresh graph under each, run it in a Session (after initializing
variables) and compare values, dtypes and static shapes.
"""

from __future__ import annotations

import functools
import os

import numpy as np

import tfcompat

os.environ.setdefault("TF_USE_LEGACY_KERAS", "1")
os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")


@functools.cache
def tf1():
    """``tensorflow.compat.v1`` in graph mode (imported on first use: it is slow)."""
    import tensorflow as tf

    tf.compat.v1.disable_eager_execution()
    tf.compat.v1.disable_v2_behavior()
    return tf.compat.v1


def _split(result):
    if isinstance(result, tuple) and len(result) == 2 and isinstance(result[1], dict):
        return result
    return result, {}


def _leaves(structure):
    if isinstance(structure, dict):
        for k in sorted(structure, key=str):
            yield from _leaves(structure[k])
    elif isinstance(structure, (list, tuple)):
        for s in structure:
            yield from _leaves(s)
    else:
        yield structure


class Outcome:
    """What running a program produced: fetched values, and per fetched tensor its dtype
    name and static shape (``None`` for unknown rank)."""

    def __init__(self, values, dtypes, shapes, graph):
        self.values = values
        self.dtypes = dtypes
        self.shapes = shapes
        self.graph = graph


def run(tf, program, backend=None, init=True) -> Outcome:
    """Builds ``program`` with module ``tf`` in a fresh graph and runs it once."""
    graph = tf.Graph()
    with graph.as_default():
        fetches, feeds = _split(program(tf))
        leaves = list(_leaves(fetches))
        dtypes = [getattr(getattr(t, "dtype", None), "name", None) for t in leaves]
        shapes = []
        for t in leaves:
            shape = getattr(t, "shape", None)
            shapes.append(None if shape is None or shape.rank is None else shape.as_list())
        kwargs = {"backend": backend} if tf is tfcompat and backend else {}
        with tf.Session(graph=graph, **kwargs) as sess:
            if init and (tf.global_variables() or tf.local_variables()):
                sess.run([tf.global_variables_initializer(), tf.local_variables_initializer()])
            values = sess.run(fetches, feeds)
    return Outcome(values, dtypes, shapes, graph)


def assert_values_close(ours, theirs, rtol, atol, path="value"):
    if isinstance(theirs, dict):
        assert set(ours) == set(theirs), path
        for k in theirs:
            assert_values_close(ours[k], theirs[k], rtol, atol, f"{path}[{k!r}]")
        return
    if isinstance(theirs, (list, tuple)):
        assert len(ours) == len(theirs), f"{path}: length {len(ours)} vs {len(theirs)}"
        for i, (a, b) in enumerate(zip(ours, theirs)):
            assert_values_close(a, b, rtol, atol, f"{path}[{i}]")
        return
    if theirs is None:
        assert ours is None, f"{path}: expected None, got {ours!r}"
        return
    a, b = np.asarray(ours), np.asarray(theirs)
    assert a.shape == b.shape, f"{path}: shape {a.shape} vs TF {b.shape}"
    assert a.dtype == b.dtype, f"{path}: dtype {a.dtype} vs TF {b.dtype}"
    if a.dtype == object or a.dtype.kind in "biuSUb":
        np.testing.assert_array_equal(a, b, err_msg=path)
    else:
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, err_msg=path, equal_nan=True)


def assert_parity(program, rtol=1e-6, atol=1e-6, backends=("xla", "reference")):
    """Runs ``program`` under TF and under each tfcompat backend; values, dtypes and static
    shapes must agree. Returns the TF outcome and ours (last backend) for further checks."""
    theirs = run(tf1(), program)
    ours = None
    for backend in backends:
        ours = run(tfcompat, program, backend=backend)
        assert ours.dtypes == theirs.dtypes, (
            f"[{backend}] dtypes {ours.dtypes} vs TF {theirs.dtypes}"
        )
        assert ours.shapes == theirs.shapes, (
            f"[{backend}] static shapes {ours.shapes} vs TF {theirs.shapes}"
        )
        assert_values_close(ours.values, theirs.values, rtol, atol, f"[{backend}]")
    return theirs, ours


def graph_def_nodes(graph):
    """``{name: (op, inputs, {attr: value})}`` of a graph's GraphDef, for name parity."""
    out = {}
    for node in graph.as_graph_def().node:
        attrs = {k: v.SerializeToString(deterministic=True) for k, v in node.attr.items()}
        out[node.name] = (node.op, list(node.input), attrs)
    return out


def assert_same_graph_def(program, ignore_attrs=("_output_shapes",)):
    """Node names, op types, inputs and attrs of the GraphDef agree with TF's."""
    theirs = run(tf1(), program).graph
    ours = run(tfcompat, program).graph
    a, b = graph_def_nodes(ours), graph_def_nodes(theirs)
    assert sorted(a) == sorted(b), f"node names differ:\nours {sorted(a)}\nTF   {sorted(b)}"
    for name in b:
        op_a, in_a, attr_a = a[name]
        op_b, in_b, attr_b = b[name]
        assert op_a == op_b, f"{name}: op {op_a} vs TF {op_b}"
        assert in_a == in_b, f"{name}: inputs {in_a} vs TF {in_b}"
        for key in set(attr_a) | set(attr_b):
            if key in ignore_attrs:
                continue
            assert key in attr_a and key in attr_b, f"{name}: attr {key} only on one side"
            if attr_a[key] != attr_b[key]:
                from tfcompat.framework.proto import attr_value_pb2

                va, vb = attr_value_pb2.AttrValue(), attr_value_pb2.AttrValue()
                va.ParseFromString(attr_a[key])
                vb.ParseFromString(attr_b[key])
                assert va == vb, f"{name}: attr {key} {va} vs TF {vb}"
