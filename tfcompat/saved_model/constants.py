"""TF's SavedModel names: files, collection keys, tags and signature keys."""

from __future__ import annotations

import types

from tfcompat.util.tf_export import export_constant

SAVED_MODEL_SCHEMA_VERSION = 1
SAVED_MODEL_FILENAME_PB = "saved_model.pb"
SAVED_MODEL_FILENAME_PBTXT = "saved_model.pbtxt"
VARIABLES_DIRECTORY = "variables"
VARIABLES_FILENAME = "variables"
ASSETS_DIRECTORY = "assets"
ASSETS_KEY = "saved_model_assets"
MAIN_OP_KEY = "saved_model_main_op"
LEGACY_INIT_OP_KEY = "legacy_init_op"
DEBUG_DIRECTORY = "debug"
DEBUG_INFO_FILENAME_PB = "saved_model_debug_info.pb"

tag_constants = types.SimpleNamespace(
    SERVING="serve", TRAINING="train", EVAL="eval", GPU="gpu", TPU="tpu"
)
signature_constants = types.SimpleNamespace(
    DEFAULT_SERVING_SIGNATURE_DEF_KEY="serving_default",
    PREDICT_METHOD_NAME="tensorflow/serving/predict",
    PREDICT_INPUTS="inputs",
    PREDICT_OUTPUTS="outputs",
    CLASSIFY_METHOD_NAME="tensorflow/serving/classify",
    CLASSIFY_INPUTS="inputs",
    CLASSIFY_OUTPUT_CLASSES="classes",
    CLASSIFY_OUTPUT_SCORES="scores",
    REGRESS_METHOD_NAME="tensorflow/serving/regress",
    REGRESS_INPUTS="inputs",
    REGRESS_OUTPUTS="outputs",
)

for _name in (
    "SAVED_MODEL_SCHEMA_VERSION",
    "SAVED_MODEL_FILENAME_PB",
    "SAVED_MODEL_FILENAME_PBTXT",
    "VARIABLES_DIRECTORY",
    "VARIABLES_FILENAME",
    "ASSETS_DIRECTORY",
    "ASSETS_KEY",
    "MAIN_OP_KEY",
    "LEGACY_INIT_OP_KEY",
    "DEBUG_DIRECTORY",
    "DEBUG_INFO_FILENAME_PB",
):
    export_constant(globals()[_name], f"saved_model.constants.{_name}", f"saved_model.{_name}")
for _name, _value in vars(tag_constants).items():
    export_constant(_value, f"saved_model.tag_constants.{_name}", f"saved_model.{_name}")
for _name, _value in vars(signature_constants).items():
    export_constant(_value, f"saved_model.signature_constants.{_name}", f"saved_model.{_name}")
