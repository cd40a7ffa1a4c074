"""``tf.saved_model.loader.load``: imports the MetaGraphDef of a SavedModel whose tags are
the requested ones into the session's graph, restores the variables and runs the main op
(or legacy init op)."""

from __future__ import annotations

import os

from google.protobuf import message, text_format

from tfcompat.framework import errors
from tfcompat.framework.proto import saved_model_pb2
from tfcompat.saved_model import constants
from tfcompat.util.tf_export import tf_export


def _parse(export_dir):
    pb = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PB)
    pbtxt = os.path.join(export_dir, constants.SAVED_MODEL_FILENAME_PBTXT)
    model = saved_model_pb2.SavedModel()
    if os.path.exists(pb):
        with open(pb, "rb") as f:
            data = f.read()
        try:
            model.ParseFromString(data)
        except message.DecodeError as e:
            raise OSError(f"Cannot parse file {pb}: {e}.") from None
    elif os.path.exists(pbtxt):
        with open(pbtxt) as f:
            try:
                text_format.Merge(f.read(), model)
            except text_format.ParseError as e:
                raise OSError(f"Cannot parse file {pbtxt}: {e}.") from None
    else:
        raise OSError(
            f"SavedModel file does not exist at: {export_dir}{os.sep}"
            f"{{{constants.SAVED_MODEL_FILENAME_PBTXT}|{constants.SAVED_MODEL_FILENAME_PB}}}"
        )
    return model


@tf_export(
    "saved_model.loader.maybe_saved_model_directory",
    "saved_model.maybe_saved_model_directory",
    "saved_model.contains_saved_model",
)
def maybe_saved_model_directory(export_dir):
    """Whether ``export_dir`` holds a ``saved_model.pb`` or ``.pbtxt``."""
    return any(
        os.path.exists(os.path.join(export_dir, name))
        for name in (constants.SAVED_MODEL_FILENAME_PB, constants.SAVED_MODEL_FILENAME_PBTXT)
    )


@tf_export("saved_model.loader.load", "saved_model.load")
def load(sess, tags, export_dir, import_scope=None, **saver_kwargs):
    """Loads the MetaGraphDef tagged exactly ``tags`` into ``sess`` (graph, variables,
    main op); returns it."""
    from tfcompat.framework import meta_graph

    model = _parse(str(export_dir))
    wanted = set(tags)
    found = [m for m in model.meta_graphs if set(m.meta_info_def.tags) == wanted]
    if not found:
        available = [sorted(m.meta_info_def.tags) for m in model.meta_graphs]
        raise RuntimeError(
            f"MetaGraphDef associated with tags {sorted(tags)!r} could not be found in "
            f"SavedModel, with available tags '{available}'. To inspect available tag-sets in"
            " the SavedModel, please use the SavedModel CLI: `saved_model_cli`."
        )
    meta_graph_def = found[0]
    with sess.graph.as_default():
        saver = meta_graph.import_meta_graph(
            meta_graph_def, import_scope=import_scope, **saver_kwargs
        )
        if saver is not None:
            path = os.path.join(
                str(export_dir), constants.VARIABLES_DIRECTORY, constants.VARIABLES_FILENAME
            )
            saver.restore(sess, path)
        graph = sess.graph
        for key in (constants.MAIN_OP_KEY, constants.LEGACY_INIT_OP_KEY):
            ops = graph.get_collection(key)
            if len(ops) > 1:
                raise errors.FailedPreconditionError(
                    None, None, f"Expected exactly one {key} : {ops}"
                )
            if ops:
                sess.run(ops[0])
                break
    return meta_graph_def
