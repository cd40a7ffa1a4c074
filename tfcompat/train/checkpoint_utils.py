"""Reading checkpoints outside a Session: ``tf.train.NewCheckpointReader``,
``list_variables``, ``load_variable`` and ``init_from_checkpoint``.

``ckpt_dir_or_file`` arguments take a checkpoint prefix or a directory (whose newest
checkpoint, per its ``checkpoint`` state file, is used), as in TensorFlow.
"""

from __future__ import annotations

import collections.abc
import os

from tfcompat.framework import scopes
from tfcompat.framework.checkpoint.bundle import BundleReader
from tfcompat.ops import io_ops
from tfcompat.train import checkpoint_management
from tfcompat.util.tf_export import tf_export


class CheckpointReader:
    """Tensors of one checkpoint by name (TF's ``CheckpointReader``)."""

    def __init__(self, prefix):
        prefix = os.fspath(prefix)
        self._prefix = prefix.decode() if isinstance(prefix, bytes) else prefix
        self._reader = BundleReader(self._prefix)

    def has_tensor(self, tensor_str) -> bool:
        return self._reader.has_tensor(tensor_str)

    def get_tensor(self, tensor_str):
        """The tensor's value (numpy array; strings as bytes objects); NotFoundError for a
        name the checkpoint lacks."""
        value = self._reader.lookup(tensor_str)
        return value.item() if value.dtype == object and value.ndim == 0 else value

    def get_variable_to_shape_map(self) -> dict:
        return {k: self._reader.shape(k) for k in self._reader.tensor_keys()}

    def get_variable_to_dtype_map(self) -> dict:
        return {k: self._reader.dtype(k) for k in self._reader.tensor_keys()}

    def debug_string(self) -> bytes:
        lines = [
            f"{k} ({self._reader.dtype(k).name}) {self._reader.shape(k)}\n"
            for k in self._reader.tensor_keys()
        ]
        return "".join(lines).encode()


@tf_export("train.NewCheckpointReader")
def NewCheckpointReader(filepattern):  # noqa: N802 - TF's name
    """A CheckpointReader of the checkpoint at prefix ``filepattern``; NotFoundError (TF's
    message) if there is none."""
    return CheckpointReader(filepattern)


def _checkpoint_filename(ckpt_dir_or_file) -> str:
    ckpt_dir_or_file = os.fspath(ckpt_dir_or_file)
    if os.path.isdir(ckpt_dir_or_file):
        return checkpoint_management.latest_checkpoint(ckpt_dir_or_file)
    return ckpt_dir_or_file


@tf_export("train.load_checkpoint")
def load_checkpoint(ckpt_dir_or_file):
    """A CheckpointReader of a checkpoint prefix or a directory's newest checkpoint."""
    filename = _checkpoint_filename(ckpt_dir_or_file)
    if filename is None:
        raise ValueError(
            f"Couldn't find 'checkpoint' file or checkpoints in given directory {ckpt_dir_or_file}"
        )
    return NewCheckpointReader(filename)


@tf_export("train.load_variable")
def load_variable(ckpt_dir_or_file, name):
    """The value of tensor ``name`` (a trailing ``:0`` is dropped) in the checkpoint."""
    if name.endswith(":0"):
        name = name[:-2]
    return load_checkpoint(ckpt_dir_or_file).get_tensor(name)


@tf_export("train.list_variables")
def list_variables(ckpt_dir_or_file):
    """``[(name, shape)]`` of every tensor in the checkpoint, sorted by name."""
    shapes = load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map()
    return [(name, shapes[name]) for name in sorted(shapes)]


# ---------------------------------------------------------------------------------------------
# init_from_checkpoint
# ---------------------------------------------------------------------------------------------
@tf_export("train.init_from_checkpoint")
def init_from_checkpoint(ckpt_dir_or_file, assignment_map):
    """Replaces the initializers of variables with reads from a checkpoint.

    ``assignment_map`` maps checkpoint names to variables, variable names, lists of
    partitions, or (``"scope/"`` -> ``"scope/"``) whole scopes, as in TF: ``{"old/":
    "new/"}`` initializes every variable under ``new/`` from the same name under ``old/``
    and ``{"/": "new/"}`` from the checkpoint's root.
    """
    from tfcompat.ops.variable_scope import _get_default_variable_store

    ckpt_file = _checkpoint_filename(ckpt_dir_or_file)
    variable_map = load_checkpoint(ckpt_dir_or_file).get_variable_to_shape_map()
    if isinstance(assignment_map, collections.abc.Mapping):
        assignment_map = assignment_map.items()
    store_vars = _get_default_variable_store()._vars
    for tensor_name, current in sorted(assignment_map, key=lambda pair: pair[0]):
        var = _resolve(current, store_vars)
        if var is not None:
            if tensor_name not in variable_map:
                raise ValueError(
                    f"Tensor {tensor_name} is not found in {ckpt_dir_or_file} checkpoint "
                    f"{variable_map}"
                )
            if _is_variable(var) and not var.get_shape().is_compatible_with(
                variable_map[tensor_name]
            ):
                raise ValueError(
                    f"Shape of variable {var.name} ({var.get_shape()}) doesn't match with "
                    f"shape of tensor {tensor_name} ({variable_map[tensor_name]}) from "
                    "checkpoint reader."
                )
            _set_variable_or_list_initializer(var, ckpt_file, tensor_name)
            continue
        _init_scope(ckpt_dir_or_file, ckpt_file, tensor_name, current, store_vars, variable_map)


def _init_scope(ckpt_dir_or_file, ckpt_file, tensor_name, current, store_vars, variable_map):
    """A ``"scope/": "scope/"`` entry: every stored variable under ``current``'s scope."""
    scope = current[: current.rindex("/")] if "/" in current else ""
    if not tensor_name.endswith("/"):
        raise ValueError(
            f"Assignment map with scope only name {scope} should map to scope only "
            f"{tensor_name}. Should be 'scope/': 'other_scope/'."
        )
    scope_variables = set()
    for var_name in store_vars:
        if not scope or var_name.startswith(scope + "/"):
            if "/part_" in var_name:
                var_name = var_name[: var_name.index("/part_")]
            scope_variables.add(var_name)
    for var_name in sorted(scope_variables):
        full_name = var_name[len(scope) :]
        if current != "/":
            full_name = full_name[1:]
        if tensor_name != "/":
            full_name = tensor_name + full_name
        if full_name.endswith("/"):
            full_name = full_name[:-1]
        if full_name not in variable_map:
            raise ValueError(
                f"Tensor {full_name} ({var_name[len(scope) + 1 :]} in {tensor_name}) is not "
                f"found in {ckpt_dir_or_file} checkpoint"
            )
        var = store_vars.get(var_name)
        if var is None:
            var = _collect_partitioned_variable(var_name, store_vars)
        _set_variable_or_list_initializer(var, ckpt_file, full_name)


def _is_variable(x) -> bool:
    from tfcompat.variables import Variable

    return isinstance(x, Variable)


def _resolve(current, store_vars):
    """The variable (or partition list) an assignment-map value names, or None for a
    scope."""
    if _is_variable(current) or (
        isinstance(current, list) and all(_is_variable(v) for v in current)
    ):
        return current
    var = store_vars.get(current)
    return var if var is not None else _collect_partitioned_variable(current, store_vars)


def _collect_partitioned_variable(name, store_vars):
    if f"{name}/part_0" not in store_vars:
        return None
    parts, i = [], 0
    while f"{name}/part_{i}" in store_vars:
        parts.append(store_vars[f"{name}/part_{i}"])
        i += 1
    return parts


def _set_variable_or_list_initializer(var, ckpt_file, tensor_name):
    if not isinstance(var, (list, tuple)):
        _set_checkpoint_initializer(var, ckpt_file, tensor_name, "")
        return
    full_name = None
    for part in var:
        info = part._save_slice_info
        if full_name is None:
            full_name = info.full_name
        elif full_name != info.full_name:
            raise ValueError(
                f"Slices must all be from the same tensor: {full_name} != {info.full_name}"
            )
        _set_checkpoint_initializer(part, ckpt_file, tensor_name, info.spec)


def _set_checkpoint_initializer(
    variable, ckpt_file, tensor_name, slice_spec, name="checkpoint_initializer"
):
    """Makes ``variable``'s initializer assign ``tensor_name`` read from the checkpoint."""
    from tfcompat.train.saver import make_saveable

    with scopes.device(variable.device), scopes.device("/cpu:0"):
        restored = io_ops.restore_v2(
            ckpt_file, [tensor_name], [slice_spec], [variable.dtype.base_dtype], name=name
        )[0]
    restore = make_saveable(variable, slice_spec, tensor_name).restore(restored)
    # A ref variable's restore is an Assign's output, a resource variable's an op.
    variable._initializer_op = getattr(restore, "op", restore)
    restored.set_shape(variable.shape)
    variable._initial_value = restored


__all__ = [
    "CheckpointReader",
    "NewCheckpointReader",
    "init_from_checkpoint",
    "list_variables",
    "load_checkpoint",
    "load_variable",
]
