"""tfcompat: TensorFlow 1.x graph programs, run on JAX/XLA.

``import tfcompat as tf`` gives the TF1 API: building calls record a GraphDef-compatible
graph, and ``tf.Session.run`` lowers the part it needs into one jitted XLA function.
"""

from tfcompat.framework import dtypes as _dtypes_module
from tfcompat.framework import errors  # noqa: F401 - tf.errors
from tfcompat.framework.constant_op import constant
from tfcompat.framework.dtypes import (  # noqa: F401
    DType,
    as_dtype,
    bfloat16,
    bool,
    complex64,
    complex128,
    double,
    float16,
    float32,
    float64,
    half,
    int8,
    int16,
    int32,
    int64,
    qint8,
    qint16,
    qint32,
    quint8,
    quint16,
    resource,
    string,
    uint8,
    uint16,
    uint32,
    uint64,
    variant,
)
from tfcompat.framework.graph import (  # noqa: F401
    Graph,
    GraphKeys,
    get_default_graph,
    reset_default_graph,
)
from tfcompat.framework.graph_io import import_graph_def, write_graph  # noqa: F401
from tfcompat.framework.op_helper import (  # noqa: F401
    convert_to_tensor,
    register_tensor_conversion_function,
)
from tfcompat.framework.scopes import (  # noqa: F401
    add_to_collection,
    add_to_collections,
    colocate_with,
    container,
    control_dependencies,
    device,
    get_collection,
    get_collection_ref,
    name_scope,
    newaxis,
    op_scope,
)
from tfcompat.framework.tensor import Operation, Tensor  # noqa: F401
from tfcompat.framework.tensor_shape import Dimension, TensorShape  # noqa: F401
from tfcompat.ops import array_ops, control_flow_ops, math_ops, nn_ops, state_ops  # noqa: F401
from tfcompat.ops import nn_impl, segment_ops, sort_ops  # noqa: F401 - nn family modules
from tfcompat.ops import reduction_ops  # noqa: F401 - math family: reductions, scans, ranges
from tfcompat.ops import random_ops  # noqa: F401 - random ops
from tfcompat.ops import linalg_ops  # noqa: F401 - qr, triangular solve, einsum gradient
from tfcompat.ops import special_math_ops  # noqa: F401 - erfinv, bessel, igamma, zeta, ...
from tfcompat.ops import decomposition_ops  # noqa: F401 - eigh, svd, logdet, matvec
from tfcompat.ops import nms_ops  # noqa: F401 - tf.image.non_max_suppression
from tfcompat.ops import complex_ops  # noqa: F401 - tf.complex, real, imag, tf.signal.fft
from tfcompat.ops import spectral_ops  # noqa: F401 - tf.signal.rfft, stft, frame, windows
from tfcompat.ops import tensor_format_ops  # noqa: F401 - tf.print, strings.format, serialize_tensor
from tfcompat.ops import bounding_box_ops  # noqa: F401 - sample_distorted_bounding_box
from tfcompat.ops import image_extras_ops  # noqa: F401 - crop_or_pad, yuv, sobel, ssim, patches
from tfcompat.ops import sequence_parsing_ops  # noqa: F401 - parse_sequence_example
from tfcompat.ops import bitwise_ops  # noqa: F401 - tf.bitwise
from tfcompat.ops import array_extras_ops  # noqa: F401 - setdiff1d, unravel_index, repeat, ...
from tfcompat.ops import nn_more_ops  # noqa: F401 - max_pool_with_argmax, dilation2d, ...
from tfcompat.ops import ctc_ops  # noqa: F401 - tf.nn.ctc_loss, ctc decoders
from tfcompat import distributions  # noqa: F401 - tf.distributions (TF1)
from tfcompat.ops import linalg_more_ops  # noqa: F401 - lstsq, lu, pinv, expm, ...
from tfcompat.ops import image_codec_ops  # noqa: F401 - encode/decode png, wav
from tfcompat.ops import summary_more_ops  # noqa: F401 - summary.image/audio/text
from tfcompat.ops import data_flow_more_ops  # noqa: F401 - accumulators, PriorityQueue
from tfcompat.ops import quantization_ops  # noqa: F401 - fake_quant, quantize
from tfcompat.ops import crop_and_resize_ops  # noqa: F401 - tf.image.crop_and_resize
from tfcompat.ops import resize_weighted_ops  # noqa: F401 - resize_bicubic, resize_area
from tfcompat.ops import nn_extra_ops  # noqa: F401 - crelu, swish, gelu, in_top_k, ...
from tfcompat.ops import space_batch_ops  # noqa: F401 - space_to_batch_nd, ...
from tfcompat.ops import sampled_losses  # noqa: F401 - candidate samplers, nce_loss
from tfcompat.ops import check_ops  # noqa: F401 - tf.debugging.assert_*
from tfcompat.ops import confusion_matrix as _confusion_matrix  # noqa: F401
from tfcompat.framework import random_seed  # noqa: F401 - tf.set_random_seed
from tfcompat import initializers  # noqa: F401 - tf.*_initializer, tf.initializers.*
from tfcompat.ops import partitioned_variables  # noqa: F401 - partitioners
from tfcompat.ops.variable_scope import AUTO_REUSE  # noqa: F401 - tf.variable_scope, get_variable
from tfcompat.ops import conv_ops, pooling_ops  # noqa: F401 - convolution and pooling
from tfcompat.ops import batch_norm_ops, dropout_ops  # noqa: F401 - tf.nn batch norm, dropout
from tfcompat.ops import lookup_ops, string_ops  # noqa: F401 - host ops: strings, tables
from tfcompat.ops import mutable_lookup_ops  # noqa: F401 - lookup.experimental.MutableHashTable
from tfcompat.ops import sparse_ops, sparse_segment_ops  # noqa: F401 - sparse tensors
from tfcompat.ops import sparse_slice_ops  # noqa: F401 - tf.sparse.slice / merge
from tfcompat.ops import sparse_math_ops  # noqa: F401 - tf.sparse.softmax, split, maximum, ...
from tfcompat.lib.io import tf_record as _tf_record  # noqa: F401 - tf.io TFRecord files
from tfcompat.ops import parsing_ops as _parsing_ops  # noqa: F401 - tf.train.Example
from tfcompat.ops import tensor_array_ops  # noqa: F401 - tf.TensorArray
from tfcompat.ops import rnn, rnn_cell_impl  # noqa: F401 - tf.nn.dynamic_rnn, tf.nn.rnn_cell
from tfcompat.ops import rnn_cell_wrappers  # noqa: F401 - DropoutWrapper, ResidualWrapper
from tfcompat.ops import functional_ops  # noqa: F401 - tf.map_fn, tf.scan, tf.foldl, tf.foldr
from tfcompat.client.session import (  # noqa: F401
    InteractiveSession,
    Session,
    get_default_session,
)
from tfcompat.client.config import ConfigProto, GPUOptions, RunMetadata, RunOptions  # noqa: F401
from tfcompat.variables import Variable  # noqa: F401
from tfcompat.framework import indexed_slices as _indexed_slices  # noqa: F401
from tfcompat.framework.gradient_registry import (  # noqa: F401
    NotDifferentiable,
    RegisterGradient,
)
from tfcompat import gradients_impl  # noqa: F401 - tf.gradients
from tfcompat import variables as _variables  # noqa: F401
from tfcompat import resource_variables as _resource_variables  # noqa: F401 - use_resource=True
from tfcompat.ops import clip_ops, training_ops  # noqa: F401
from tfcompat import train  # noqa: F401 - tf.train
from tfcompat import losses  # noqa: F401 - tf.losses
from tfcompat import layers  # noqa: F401 - tf.layers
from tfcompat import metrics  # noqa: F401 - tf.metrics
from tfcompat import feature_column  # noqa: F401 - tf.feature_column
from tfcompat.ops import summary_ops  # noqa: F401 - tf.summary.scalar & co
from tfcompat import data  # noqa: F401 - tf.data
from tfcompat.ops import logging_ops  # noqa: F401 - tf.Print
from tfcompat.ops import script_ops  # noqa: F401 - tf.py_func
from tfcompat.ops import image_ops  # noqa: F401 - tf.image resizing
from tfcompat.ops import tensordot as _tensordot  # noqa: F401 - tf.tensordot
from tfcompat.ops import tensor_utils_api  # noqa: F401 - tf.is_tensor, tf.ensure_shape...
from tfcompat.ops import tensor_scatter_ops  # noqa: F401 - tf.tensor_scatter_nd_*, tf.roll...
from tfcompat.ops import lrn_ops  # noqa: F401 - tf.nn.lrn
from tfcompat.ops import template  # noqa: F401 - tf.make_template
from tfcompat.ops import custom_gradient as _custom_gradient  # noqa: F401 - tf.custom_gradient
from tfcompat.ops import reverse_sequence_ops  # noqa: F401 - tf.reverse_sequence
from tfcompat.ops import legacy_math_api  # noqa: F401 - tf.arg_max, accumulate_n...
from tfcompat.util import nest as _nest  # noqa: F401 - tf.nest
from tfcompat.ops import data_flow_ops  # noqa: F401 - tf.FIFOQueue & co
from tfcompat.ops import reader_ops  # noqa: F401 - tf.TFRecordReader & co
from tfcompat.ops import csv_ops  # noqa: F401 - tf.decode_csv
from tfcompat.ops import file_ops  # noqa: F401 - tf.read_file, tf.train.match_filenames_once
from tfcompat.ops import sparse_map_ops  # noqa: F401 - SparseTensors through batch queues
from tfcompat.framework import graph_util  # noqa: F401 - tf.graph_util
from tfcompat.ops import image_adjust_ops  # noqa: F401 - tf.image.adjust_* & co
from tfcompat.ops import search_ops  # noqa: F401 - tf.searchsorted
from tfcompat.ops import bitcast_ops  # noqa: F401 - tf.bitcast
from tfcompat import saved_model  # noqa: F401 - tf.saved_model
from tfcompat import platform as _platform  # noqa: F401 - tf.logging, tf.app, tf.flags, tf.gfile
from tfcompat import summary  # noqa: F401 - tf.summary.FileWriter
from tfcompat.ops import stateless_random_ops  # noqa: F401 - tf.random.stateless_*
from tfcompat.ops import image_format_ops  # noqa: F401 - tf.io.decode_jpeg & co
from tfcompat.ops import nn_legacy_ops  # noqa: F401 - tf.nn.fractional_max_pool & co
from tfcompat.ops import rnn_more  # noqa: F401 - tf.nn.static_bidirectional_rnn, raw_rnn
from tfcompat.ops import sparse_serialize_ops  # noqa: F401 - tf.io.serialize_sparse & co
from tfcompat.ops import string_more_ops  # noqa: F401 - tf.strings.ngrams & co
from tfcompat.ops import signal_more  # noqa: F401 - tf.signal.dct, mfccs & co
from tfcompat.platform import testing as _testing  # noqa: F401 - tf.test
from tfcompat.framework import config_api  # noqa: F401 - tf.config, tf.version, tf.sysconfig
from tfcompat.train import device_setter  # noqa: F401 - tf.train.replica_device_setter, ClusterSpec
from tfcompat.ops import debugging_api  # noqa: F401 - tf.debugging.is_nan & co
from tfcompat.ops import detection_ops  # noqa: F401 - tf.image.combined_non_max_suppression, extract_glimpse
from tfcompat.ops import misc_ops  # noqa: F401 - tf.fingerprint, extract_volume_patches, approx_max_k...
from tfcompat.framework import type_spec  # noqa: F401 - tf.TensorSpec & co
from tfcompat import raw_ops  # noqa: F401 - tf.raw_ops: every op by keyword
from tfcompat import module as _module  # noqa: F401 - tf.Module
from tfcompat.compat_mode import (  # noqa: F401
    control_flow_v2_enabled,
    disable_control_flow_v2,
    disable_eager_execution,
    disable_tensor_equality,
    disable_v2_behavior,
    disable_v2_tensorshape,
    enable_control_flow_v2,
    enable_eager_execution,
    enable_tensor_equality,
    enable_v2_behavior,
    enable_v2_tensorshape,
    executing_eagerly,
    executing_eagerly_outside_functions,
)
from tfcompat.util import tf_export as _tf_export
from tfcompat import compat  # noqa: F401 - tf.compat.v1

dtypes = _dtypes_module
__version__ = "2.21.0"  # the TensorFlow API version this package follows
VERSION = __version__
GRAPH_DEF_VERSION = 2474

_tf_export.export_constant(write_graph, "io.write_graph", "train.write_graph")
_tf_export.export_constant(import_graph_def, "graph_util.import_graph_def")
_tf_export.export_constant(errors, "errors")
_tf_export.export_constant(NotDifferentiable, "no_gradient", "NotDifferentiable", "NoGradient")
_tf_export.export_constant(RegisterGradient, "RegisterGradient")
_tf_export.export_constant(constant, "constant")
_tf_export.populate(__name__)
