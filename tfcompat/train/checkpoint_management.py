"""Checkpoint bookkeeping: the ``checkpoint`` state file and checkpoint files on disk.

A checkpoint directory's ``checkpoint`` file is a text-format ``CheckpointState`` naming the
newest checkpoint prefix and the ones still kept (oldest first); ``Saver.save`` rewrites it
after every save and ``latest_checkpoint`` reads it. Paths are stored as given (absolute or
relative to the directory), as TensorFlow stores them, so either library reads the other's.
"""

from __future__ import annotations

import glob
import os
import re
import uuid

from google.protobuf import text_format

from tfcompat.framework.proto.saver_pb2 import CheckpointState, SaverDef
from tfcompat.util.tf_export import tf_export

__all__ = [
    "CheckpointState",
    "checkpoint_exists",
    "generate_checkpoint_state_proto",
    "get_checkpoint_mtimes",
    "get_checkpoint_state",
    "latest_checkpoint",
    "meta_graph_filename",
    "remove_checkpoint",
    "update_checkpoint_state",
]


def _state_filename(save_dir: str, latest_filename: str | None) -> str:
    return os.path.join(save_dir, latest_filename or "checkpoint")


def _prefix_to_checkpoint_path(prefix: str, format_version=SaverDef.V2) -> str:
    """The file that identifies a checkpoint: ``prefix.index`` for V2, else ``prefix``."""
    return prefix + ".index" if format_version == SaverDef.V2 else prefix


def _matching(pattern: str) -> list[str]:
    return sorted(glob.glob(pattern))


@tf_export("train.generate_checkpoint_state_proto")
def generate_checkpoint_state_proto(
    save_dir,
    model_checkpoint_path,
    all_model_checkpoint_paths=None,
    all_model_checkpoint_timestamps=None,
    last_preserved_timestamp=None,
):
    """A ``CheckpointState`` whose path list ends with ``model_checkpoint_path``; paths
    are made relative to ``save_dir`` when ``save_dir`` itself is relative."""
    paths = list(all_model_checkpoint_paths or [])
    if not paths or paths[-1] != model_checkpoint_path:
        paths.append(model_checkpoint_path)
    if all_model_checkpoint_timestamps and len(all_model_checkpoint_timestamps) != len(paths):
        raise ValueError(
            "Checkpoint timestamps, if provided, must match checkpoint paths (got paths "
            f"{paths} and timestamps {all_model_checkpoint_timestamps})"
        )
    if not os.path.isabs(save_dir):
        if not os.path.isabs(model_checkpoint_path):
            model_checkpoint_path = os.path.relpath(model_checkpoint_path, save_dir)
        paths = [p if os.path.isabs(p) else os.path.relpath(p, save_dir) for p in paths]
    return CheckpointState(
        model_checkpoint_path=model_checkpoint_path,
        all_model_checkpoint_paths=paths,
        all_model_checkpoint_timestamps=all_model_checkpoint_timestamps,
        last_preserved_timestamp=last_preserved_timestamp,
    )


@tf_export("train.update_checkpoint_state")
def update_checkpoint_state(
    save_dir,
    model_checkpoint_path,
    all_model_checkpoint_paths=None,
    latest_filename=None,
    all_model_checkpoint_timestamps=None,
    last_preserved_timestamp=None,
    save_relative_paths=False,
):
    """Rewrites ``save_dir/checkpoint`` (or ``latest_filename``) atomically."""
    state_file = _state_filename(save_dir, latest_filename)
    if save_relative_paths:
        model_checkpoint_path = _relative(model_checkpoint_path, save_dir)
        all_model_checkpoint_paths = [
            _relative(p, save_dir) for p in all_model_checkpoint_paths or []
        ]
    state = generate_checkpoint_state_proto(
        save_dir,
        model_checkpoint_path,
        all_model_checkpoint_paths=all_model_checkpoint_paths,
        all_model_checkpoint_timestamps=all_model_checkpoint_timestamps,
        last_preserved_timestamp=last_preserved_timestamp,
    )
    if state_file == state.model_checkpoint_path:
        raise RuntimeError(
            f"Save path '{model_checkpoint_path}' conflicts with path used for checkpoint "
            "state.  Please use a different save path."
        )
    temp = f"{state_file}.tmp{uuid.uuid4().hex}"
    with open(temp, "w") as f:
        f.write(text_format.MessageToString(state))
    os.replace(temp, state_file)


def _relative(path: str, save_dir: str) -> str:
    return os.path.relpath(path, save_dir) if os.path.isabs(path) else path


@tf_export("train.get_checkpoint_state")
def get_checkpoint_state(checkpoint_dir, latest_filename=None):
    """The directory's ``CheckpointState`` with paths joined to ``checkpoint_dir``, or None
    when there is no readable state file. ValueError if it names no checkpoint."""
    checkpoint_dir = os.fspath(checkpoint_dir)
    state_file = _state_filename(checkpoint_dir, latest_filename)
    try:
        with open(state_file) as f:
            content = f.read()
    except OSError:
        return None
    state = CheckpointState()
    try:
        text_format.Merge(content, state)
    except text_format.ParseError:
        return None
    if not state.model_checkpoint_path:
        raise ValueError("Invalid checkpoint state loaded from " + checkpoint_dir)
    if not os.path.isabs(state.model_checkpoint_path):
        state.model_checkpoint_path = os.path.join(checkpoint_dir, state.model_checkpoint_path)
    for i, path in enumerate(state.all_model_checkpoint_paths):
        if not os.path.isabs(path):
            state.all_model_checkpoint_paths[i] = os.path.join(checkpoint_dir, path)
    return state


@tf_export("train.latest_checkpoint")
def latest_checkpoint(checkpoint_dir, latest_filename=None):
    """The prefix of the newest checkpoint in ``checkpoint_dir``, or None if there is none
    (or its files are gone)."""
    state = get_checkpoint_state(checkpoint_dir, latest_filename)
    if state and state.model_checkpoint_path:
        prefix = state.model_checkpoint_path
        if _matching(_prefix_to_checkpoint_path(prefix)) or _matching(prefix):
            return prefix
    return None


def checkpoint_exists_internal(checkpoint_prefix) -> bool:
    """Whether a V2 (``prefix.index``) or V1 (``prefix``) checkpoint exists."""
    prefix = os.fspath(checkpoint_prefix)
    return bool(_matching(_prefix_to_checkpoint_path(prefix)) or _matching(prefix))


@tf_export("train.checkpoint_exists")
def checkpoint_exists(checkpoint_prefix):
    """Whether a checkpoint with this prefix exists (V2 index file, else a V1 file)."""
    return checkpoint_exists_internal(checkpoint_prefix)


@tf_export("train.get_checkpoint_mtimes")
def get_checkpoint_mtimes(checkpoint_prefixes):
    """Modification times (seconds) of the checkpoints that exist, in the given order."""
    mtimes = []
    for prefix in checkpoint_prefixes:
        for pattern in (_prefix_to_checkpoint_path(prefix), prefix):
            found = _matching(pattern)
            if found:
                mtimes.append(os.stat(found[0]).st_mtime_ns / 1e9)
                break
    return mtimes


@tf_export("train.remove_checkpoint")
def remove_checkpoint(
    checkpoint_prefix, checkpoint_format_version=SaverDef.V2, meta_graph_suffix="meta"
):
    """Deletes a checkpoint's files (index, data shards and meta graph)."""
    patterns = [meta_graph_filename(checkpoint_prefix, meta_graph_suffix)]
    if checkpoint_format_version == SaverDef.V2:
        patterns += [checkpoint_prefix + ".index", checkpoint_prefix + ".data-?????-of-?????"]
    else:
        patterns.append(checkpoint_prefix)
    for pattern in patterns:
        for path in _matching(glob.escape(pattern).replace("[?]", "?")):
            try:
                os.remove(path)
            except FileNotFoundError:  # deleted concurrently
                pass


def meta_graph_filename(checkpoint_filename, meta_graph_suffix="meta"):
    """``prefix.meta`` (a sharded ``-?????-of-N`` suffix dropped)."""
    basename = re.sub(r"-[\d\?]+-of-\d+$", "", checkpoint_filename)
    return ".".join([basename, meta_graph_suffix])
