"""``tf.saved_model`` (TF1): SavedModels written by ``SavedModelBuilder`` / ``simple_save``
and read by ``loader.load``, in TF's layout: ``saved_model.pb`` (a SavedModel proto of
tagged MetaGraphDefs with their SignatureDefs) and ``variables/variables.*`` (a checkpoint).
TF serves or loads what is written here, and tfcompat loads TF's. Assets (files a graph
reads, such as vocabularies) are not copied."""

from tfcompat.saved_model import builder, loader, main_op, signature_def_utils, utils  # noqa: F401
from tfcompat.saved_model.constants import (  # noqa: F401
    signature_constants,
    tag_constants,
)
