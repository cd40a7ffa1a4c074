"""Whole-file ops: ``tf.read_file`` / ``tf.io.write_file`` / ``tf.matching_files`` (TF's
``ReadFile``, ``WriteFile``, ``MatchingFiles``) and ``tf.train.match_filenames_once``.

Host ops (kernels in ``lowering/reference/readers.py``): they touch the file system when
the step runs, like TF's."""

from __future__ import annotations

from tfcompat.framework import tensor_shape
from tfcompat.framework.gradient_registry import no_gradient
from tfcompat.framework.op_def import register_op
from tfcompat.framework.op_helper import apply_op
from tfcompat.util.tf_export import tf_export


def _rank_at_most(op, index, rank):
    shape = op.inputs[index].shape
    if shape.rank is not None and shape.rank > rank:
        raise ValueError(
            f"Shape must be at most rank {rank} but is rank {shape.rank} for "
            f"'{{{{node {op.name}}}}} = {op.type}[]'"
        )


def _scalar_input(op, index):
    shape = op.inputs[index].shape
    if shape.rank is not None and shape.rank != 0:
        raise ValueError(
            f"Shape must be rank 0 but is rank {shape.rank} for "
            f"'{{{{node {op.name}}}}} = {op.type}[]'"
        )


register_op(
    "ReadFile",
    inputs=["filename: string"],
    outputs=["contents: string"],
    shape_fn=lambda op: (_scalar_input(op, 0), [tensor_shape.scalar()])[1],
    host=True,
)
register_op(
    "WriteFile",
    inputs=["filename: string", "contents: string"],
    shape_fn=lambda op: (_scalar_input(op, 0), _scalar_input(op, 1), [])[2],
    host=True,
    is_stateful=True,
)
register_op(
    "MatchingFiles",
    inputs=["pattern: string"],
    outputs=["filenames: string"],
    shape_fn=lambda op: (_rank_at_most(op, 0, 1), [tensor_shape.TensorShape([None])])[1],
    host=True,
)
for _op_type in ("ReadFile", "WriteFile", "MatchingFiles"):
    no_gradient(_op_type)


@tf_export("io.read_file", "read_file")
def read_file(filename, name=None):
    """The whole contents of file ``filename`` (a scalar string)."""
    return apply_op("ReadFile", name=name, filename=filename).outputs[0]


@tf_export("io.write_file", "write_file")
def write_file(filename, contents, name=None):
    """An op writing ``contents`` to ``filename`` (replacing it; parent directories are
    created)."""
    return apply_op("WriteFile", name=name, filename=filename, contents=contents)


@tf_export("io.matching_files", "matching_files")
def matching_files(pattern, name=None):
    """The sorted names of the files matching the glob ``pattern`` (a string or a vector
    of them)."""
    return apply_op("MatchingFiles", name=name, pattern=pattern).outputs[0]


@tf_export("train.match_filenames_once")
def match_filenames_once(pattern, name=None):
    """A local variable holding the files matching ``pattern``, computed once, when
    ``tf.local_variables_initializer()`` runs (TF's recipe)."""
    from tfcompat import variables
    from tfcompat.framework.graph import GraphKeys
    from tfcompat.framework.scopes import name_scope

    with name_scope(name, "matching_filenames", [pattern]) as scope:
        return variables.Variable(
            matching_files(pattern),
            name=scope,
            trainable=False,
            validate_shape=False,
            collections=[GraphKeys.LOCAL_VARIABLES],
        )
