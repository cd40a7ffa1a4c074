"""SignatureDefs: a model's named computations (inputs and outputs by TensorInfo)."""

from __future__ import annotations

from tfcompat.framework import dtypes
from tfcompat.framework.proto import meta_graph_pb2
from tfcompat.framework.tensor import Tensor
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


_STRING, _FLOAT = dtypes.string.as_datatype_enum, dtypes.float32.as_datatype_enum


@tf_export(
    "saved_model.signature_def_utils.classification_signature_def",
    "saved_model.classification_signature_def",
)
def classification_signature_def(examples, classes, scores):
    """A classify SignatureDef for TF Serving: serialized ``tf.Example`` strings in
    (``inputs``), string ``classes`` and/or float ``scores`` out."""
    if examples is None:
        raise ValueError("Classification `examples` cannot be None.")
    if not isinstance(examples, Tensor):
        raise ValueError(
            "Classification `examples` must be a string Tensor. "
            f"Found `examples` of type {type(examples)}."
        )
    if classes is None and scores is None:
        raise ValueError("Classification `classes` and `scores` cannot both be None.")
    inputs = build_tensor_info(examples)
    if inputs.dtype != _STRING:
        raise ValueError(
            f"Classification input tensors must be of type string. Found tensors of type "
            f"{inputs.dtype}"
        )
    outputs = {}
    if classes is not None:
        info = build_tensor_info(classes)
        if info.dtype != _STRING:
            raise ValueError(
                "Classification classes must be of type string Tensor. Found tensors of type "
                f"{info.dtype}.`"
            )
        outputs[signature_constants.CLASSIFY_OUTPUT_CLASSES] = info
    if scores is not None:
        info = build_tensor_info(scores)
        if info.dtype != _FLOAT:
            raise ValueError("Classification scores must be a float Tensor.")
        outputs[signature_constants.CLASSIFY_OUTPUT_SCORES] = info
    return build_signature_def(
        {signature_constants.CLASSIFY_INPUTS: inputs},
        outputs,
        signature_constants.CLASSIFY_METHOD_NAME,
    )


@tf_export(
    "saved_model.signature_def_utils.regression_signature_def",
    "saved_model.regression_signature_def",
)
def regression_signature_def(examples, predictions):
    """A regress SignatureDef for TF Serving: serialized ``tf.Example`` strings in
    (``inputs``), float ``outputs``."""
    if examples is None:
        raise ValueError("Regression `examples` cannot be None.")
    if not isinstance(examples, Tensor):
        raise ValueError(
            "Expected regression `examples` to be of type Tensor. "
            f"Found `examples` of type {type(examples)}."
        )
    if predictions is None:
        raise ValueError("Regression `predictions` cannot be None.")
    inputs = build_tensor_info(examples)
    if inputs.dtype != _STRING:
        raise ValueError(
            f"Regression input tensors must be of type string. Found tensors with type "
            f"{inputs.dtype}."
        )
    outputs = build_tensor_info(predictions)
    if outputs.dtype != _FLOAT:
        raise ValueError(
            f"Regression output tensors must be of type float. Found tensors with type "
            f"{outputs.dtype}."
        )
    return build_signature_def(
        {signature_constants.REGRESS_INPUTS: inputs},
        {signature_constants.REGRESS_OUTPUTS: outputs},
        signature_constants.REGRESS_METHOD_NAME,
    )


@tf_export("saved_model.signature_def_utils.is_valid_signature", "saved_model.is_valid_signature")
def is_valid_signature(signature_def):
    """Whether ``signature_def`` is a servable predict, classify or regress signature."""
    if signature_def is None:
        return False
    method = signature_def.method_name
    inputs, outputs = signature_def.inputs, signature_def.outputs
    if method == signature_constants.PREDICT_METHOD_NAME:
        return bool(inputs) and bool(outputs)
    if method == signature_constants.REGRESS_METHOD_NAME:
        return (
            set(inputs) == {signature_constants.REGRESS_INPUTS}
            and inputs[signature_constants.REGRESS_INPUTS].dtype == _STRING
            and set(outputs) == {signature_constants.REGRESS_OUTPUTS}
            and outputs[signature_constants.REGRESS_OUTPUTS].dtype == _FLOAT
        )
    if method == signature_constants.CLASSIFY_METHOD_NAME:
        classes = signature_constants.CLASSIFY_OUTPUT_CLASSES
        scores = signature_constants.CLASSIFY_OUTPUT_SCORES
        return (
            set(inputs) == {signature_constants.CLASSIFY_INPUTS}
            and inputs[signature_constants.CLASSIFY_INPUTS].dtype == _STRING
            and bool(outputs)
            and set(outputs) <= {classes, scores}
            and (classes not in outputs or outputs[classes].dtype == _STRING)
            and (scores not in outputs or outputs[scores].dtype == _FLOAT)
        )
    return False
