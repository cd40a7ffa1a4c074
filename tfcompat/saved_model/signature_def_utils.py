"""SignatureDefs: a model's named computations (inputs and outputs by TensorInfo)."""

from __future__ import annotations

from tfcompat.framework.proto import meta_graph_pb2
from tfcompat.saved_model.constants import signature_constants
from tfcompat.saved_model.utils import build_tensor_info
from tfcompat.util.tf_export import tf_export


@tf_export("saved_model.signature_def_utils.build_signature_def", "saved_model.build_signature_def")
def build_signature_def(inputs=None, outputs=None, method_name=None, defaults=None):
    """A SignatureDef of ``{key: TensorInfo}`` inputs and outputs."""
    signature = meta_graph_pb2.SignatureDef()
    for key, info in (inputs or {}).items():
        signature.inputs[key].CopyFrom(info)
    for key, info in (outputs or {}).items():
        signature.outputs[key].CopyFrom(info)
    if method_name is not None:
        signature.method_name = method_name
    for key, value in (defaults or {}).items():
        signature.defaults[key].CopyFrom(value)
    return signature


@tf_export(
    "saved_model.signature_def_utils.predict_signature_def", "saved_model.predict_signature_def"
)
def predict_signature_def(inputs, outputs):
    """A predict SignatureDef of ``{key: Tensor}`` inputs and outputs."""
    if inputs is None or not inputs:
        raise ValueError("Prediction `inputs` cannot be None or empty.")
    if outputs is None or not outputs:
        raise ValueError("Prediction `outputs` cannot be None or empty.")
    return build_signature_def(
        {key: build_tensor_info(t) for key, t in inputs.items()},
        {key: build_tensor_info(t) for key, t in outputs.items()},
        signature_constants.PREDICT_METHOD_NAME,
    )
