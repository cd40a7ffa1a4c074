"""``SavedModelBuilder`` and ``simple_save``: the variables saved once (``variables/``),
then one MetaGraphDef per call with its tags and signatures, written as
``saved_model.pb``."""

from __future__ import annotations

import os

from google.protobuf import text_format

from tfcompat.framework import graph as graph_lib
from tfcompat.framework.proto import saved_model_pb2
from tfcompat.framework.tensor import Operation
from tfcompat.saved_model import constants
from tfcompat.saved_model.constants import signature_constants, tag_constants
from tfcompat.saved_model.signature_def_utils import predict_signature_def
from tfcompat.util.tf_export import tf_export


@tf_export("saved_model.builder.SavedModelBuilder", "saved_model.Builder")
class SavedModelBuilder:
    """Builds a SavedModel in ``export_dir`` (which must not exist or be empty)."""

    def __init__(self, export_dir):
        self._export_dir = str(export_dir)
        if os.path.exists(self._export_dir):
            if os.listdir(self._export_dir):
                raise AssertionError(
                    f"Export directory {self._export_dir} already exists, and isn't empty. "
                    "Please choose a different export directory, or delete all the contents "
                    "of the specified directory."
                )
        else:
            os.makedirs(self._export_dir)
        self._saved_model = saved_model_pb2.SavedModel(
            saved_model_schema_version=constants.SAVED_MODEL_SCHEMA_VERSION
        )
        self._has_saved_variables = False

    def _saver(self, saver):
        import tfcompat

        return saver or tfcompat.train.Saver(
            sharded=True, allow_empty=True, write_version=tfcompat.train.SaverDef.V2
        )

    def _add_main_op(self, main_op):
        if main_op is None:
            return
        if not isinstance(main_op, Operation):
            raise TypeError(f"main_op needs to be an Operation: {main_op!r}")
        graph = graph_lib.get_default_graph()
        if graph.get_collection(constants.MAIN_OP_KEY):
            raise ValueError(
                f"Graph already contains one or more main ops under the collection "
                f"{constants.MAIN_OP_KEY}."
            )
        graph.add_to_collection(constants.MAIN_OP_KEY, main_op)

    def _tag_and_add(self, meta_graph_def, tags, signature_def_map):
        meta_graph_def.meta_info_def.tags.extend(tags)
        for key, signature in (signature_def_map or {}).items():
            meta_graph_def.signature_def[key].CopyFrom(signature)
        self._saved_model.meta_graphs.add().CopyFrom(meta_graph_def)

    def add_meta_graph_and_variables(
        self,
        sess,
        tags,
        signature_def_map=None,
        assets_collection=None,
        legacy_init_op=None,
        clear_devices=False,
        main_op=None,
        strip_default_attrs=False,
        saver=None,
    ):
        """Saves ``sess``'s variables and the graph's MetaGraphDef tagged ``tags``."""
        if self._has_saved_variables:
            raise AssertionError(
                "Graph state including variables and assets has already been saved. Please "
                "invoke `add_meta_graph()` instead."
            )
        self._add_main_op(main_op if main_op is not None else legacy_init_op)
        variables_dir = os.path.join(self._export_dir, constants.VARIABLES_DIRECTORY)
        os.makedirs(variables_dir, exist_ok=True)
        saver = self._saver(saver)
        saver.save(
            sess,
            os.path.join(variables_dir, constants.VARIABLES_FILENAME),
            write_meta_graph=False,
            write_state=False,
        )
        meta_graph_def = saver.export_meta_graph(clear_devices=clear_devices)
        self._tag_and_add(meta_graph_def, tags, signature_def_map)
        self._has_saved_variables = True

    def add_meta_graph(
        self,
        tags,
        signature_def_map=None,
        assets_collection=None,
        legacy_init_op=None,
        clear_devices=False,
        main_op=None,
        strip_default_attrs=False,
        saver=None,
    ):
        """Adds the graph's MetaGraphDef tagged ``tags`` (variables saved already)."""
        if not self._has_saved_variables:
            raise AssertionError(
                "Graph state including variables and assets has not been saved yet. Please "
                "invoke `add_meta_graph_and_variables()` first."
            )
        self._add_main_op(main_op if main_op is not None else legacy_init_op)
        meta_graph_def = self._saver(saver).export_meta_graph(clear_devices=clear_devices)
        self._tag_and_add(meta_graph_def, tags, signature_def_map)

    def save(self, as_text=False):
        """Writes ``saved_model.pb`` (or ``.pbtxt``); returns its path."""
        os.makedirs(self._export_dir, exist_ok=True)
        if as_text:
            path = os.path.join(self._export_dir, constants.SAVED_MODEL_FILENAME_PBTXT)
            with open(path, "w") as f:
                f.write(text_format.MessageToString(self._saved_model))
        else:
            path = os.path.join(self._export_dir, constants.SAVED_MODEL_FILENAME_PB)
            with open(path, "wb") as f:
                f.write(self._saved_model.SerializeToString(deterministic=True))
        return path.encode()


@tf_export("saved_model.simple_save")
def simple_save(session, export_dir, inputs, outputs, legacy_init_op=None):
    """A serving SavedModel: the variables and one MetaGraphDef tagged "serve" with a
    predict signature ``serving_default`` of ``inputs`` and ``outputs`` (dicts of Tensors)."""
    signatures = {
        signature_constants.DEFAULT_SERVING_SIGNATURE_DEF_KEY: predict_signature_def(
            inputs, outputs
        )
    }
    builder = SavedModelBuilder(export_dir)
    builder.add_meta_graph_and_variables(
        session,
        tags=[tag_constants.SERVING],
        signature_def_map=signatures,
        main_op=legacy_init_op,
        clear_devices=True,
    )
    builder.save()
