from tfcompat.framework.proto import tensor_pb2 as _tensor_pb2
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class DataClass(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DATA_CLASS_UNKNOWN: _ClassVar[DataClass]
    DATA_CLASS_SCALAR: _ClassVar[DataClass]
    DATA_CLASS_TENSOR: _ClassVar[DataClass]
    DATA_CLASS_BLOB_SEQUENCE: _ClassVar[DataClass]
DATA_CLASS_UNKNOWN: DataClass
DATA_CLASS_SCALAR: DataClass
DATA_CLASS_TENSOR: DataClass
DATA_CLASS_BLOB_SEQUENCE: DataClass

class HistogramProto(_message.Message):
    __slots__ = ("min", "max", "num", "sum", "sum_squares", "bucket_limit", "bucket")
    MIN_FIELD_NUMBER: _ClassVar[int]
    MAX_FIELD_NUMBER: _ClassVar[int]
    NUM_FIELD_NUMBER: _ClassVar[int]
    SUM_FIELD_NUMBER: _ClassVar[int]
    SUM_SQUARES_FIELD_NUMBER: _ClassVar[int]
    BUCKET_LIMIT_FIELD_NUMBER: _ClassVar[int]
    BUCKET_FIELD_NUMBER: _ClassVar[int]
    min: float
    max: float
    num: float
    sum: float
    sum_squares: float
    bucket_limit: _containers.RepeatedScalarFieldContainer[float]
    bucket: _containers.RepeatedScalarFieldContainer[float]
    def __init__(self, min: _Optional[float] = ..., max: _Optional[float] = ..., num: _Optional[float] = ..., sum: _Optional[float] = ..., sum_squares: _Optional[float] = ..., bucket_limit: _Optional[_Iterable[float]] = ..., bucket: _Optional[_Iterable[float]] = ...) -> None: ...

class SummaryDescription(_message.Message):
    __slots__ = ("type_hint",)
    TYPE_HINT_FIELD_NUMBER: _ClassVar[int]
    type_hint: str
    def __init__(self, type_hint: _Optional[str] = ...) -> None: ...

class SummaryMetadata(_message.Message):
    __slots__ = ("plugin_data", "display_name", "summary_description", "data_class")
    class PluginData(_message.Message):
        __slots__ = ("plugin_name", "content")
        PLUGIN_NAME_FIELD_NUMBER: _ClassVar[int]
        CONTENT_FIELD_NUMBER: _ClassVar[int]
        plugin_name: str
        content: bytes
        def __init__(self, plugin_name: _Optional[str] = ..., content: _Optional[bytes] = ...) -> None: ...
    PLUGIN_DATA_FIELD_NUMBER: _ClassVar[int]
    DISPLAY_NAME_FIELD_NUMBER: _ClassVar[int]
    SUMMARY_DESCRIPTION_FIELD_NUMBER: _ClassVar[int]
    DATA_CLASS_FIELD_NUMBER: _ClassVar[int]
    plugin_data: SummaryMetadata.PluginData
    display_name: str
    summary_description: str
    data_class: DataClass
    def __init__(self, plugin_data: _Optional[_Union[SummaryMetadata.PluginData, _Mapping]] = ..., display_name: _Optional[str] = ..., summary_description: _Optional[str] = ..., data_class: _Optional[_Union[DataClass, str]] = ...) -> None: ...

class Summary(_message.Message):
    __slots__ = ("value",)
    class Image(_message.Message):
        __slots__ = ("height", "width", "colorspace", "encoded_image_string")
        HEIGHT_FIELD_NUMBER: _ClassVar[int]
        WIDTH_FIELD_NUMBER: _ClassVar[int]
        COLORSPACE_FIELD_NUMBER: _ClassVar[int]
        ENCODED_IMAGE_STRING_FIELD_NUMBER: _ClassVar[int]
        height: int
        width: int
        colorspace: int
        encoded_image_string: bytes
        def __init__(self, height: _Optional[int] = ..., width: _Optional[int] = ..., colorspace: _Optional[int] = ..., encoded_image_string: _Optional[bytes] = ...) -> None: ...
    class Audio(_message.Message):
        __slots__ = ("sample_rate", "num_channels", "length_frames", "encoded_audio_string", "content_type")
        SAMPLE_RATE_FIELD_NUMBER: _ClassVar[int]
        NUM_CHANNELS_FIELD_NUMBER: _ClassVar[int]
        LENGTH_FRAMES_FIELD_NUMBER: _ClassVar[int]
        ENCODED_AUDIO_STRING_FIELD_NUMBER: _ClassVar[int]
        CONTENT_TYPE_FIELD_NUMBER: _ClassVar[int]
        sample_rate: float
        num_channels: int
        length_frames: int
        encoded_audio_string: bytes
        content_type: str
        def __init__(self, sample_rate: _Optional[float] = ..., num_channels: _Optional[int] = ..., length_frames: _Optional[int] = ..., encoded_audio_string: _Optional[bytes] = ..., content_type: _Optional[str] = ...) -> None: ...
    class Value(_message.Message):
        __slots__ = ("node_name", "tag", "metadata", "simple_value", "obsolete_old_style_histogram", "image", "histo", "audio", "tensor")
        NODE_NAME_FIELD_NUMBER: _ClassVar[int]
        TAG_FIELD_NUMBER: _ClassVar[int]
        METADATA_FIELD_NUMBER: _ClassVar[int]
        SIMPLE_VALUE_FIELD_NUMBER: _ClassVar[int]
        OBSOLETE_OLD_STYLE_HISTOGRAM_FIELD_NUMBER: _ClassVar[int]
        IMAGE_FIELD_NUMBER: _ClassVar[int]
        HISTO_FIELD_NUMBER: _ClassVar[int]
        AUDIO_FIELD_NUMBER: _ClassVar[int]
        TENSOR_FIELD_NUMBER: _ClassVar[int]
        node_name: str
        tag: str
        metadata: SummaryMetadata
        simple_value: float
        obsolete_old_style_histogram: bytes
        image: Summary.Image
        histo: HistogramProto
        audio: Summary.Audio
        tensor: _tensor_pb2.TensorProto
        def __init__(self, node_name: _Optional[str] = ..., tag: _Optional[str] = ..., metadata: _Optional[_Union[SummaryMetadata, _Mapping]] = ..., simple_value: _Optional[float] = ..., obsolete_old_style_histogram: _Optional[bytes] = ..., image: _Optional[_Union[Summary.Image, _Mapping]] = ..., histo: _Optional[_Union[HistogramProto, _Mapping]] = ..., audio: _Optional[_Union[Summary.Audio, _Mapping]] = ..., tensor: _Optional[_Union[_tensor_pb2.TensorProto, _Mapping]] = ...) -> None: ...
    VALUE_FIELD_NUMBER: _ClassVar[int]
    value: _containers.RepeatedCompositeFieldContainer[Summary.Value]
    def __init__(self, value: _Optional[_Iterable[_Union[Summary.Value, _Mapping]]] = ...) -> None: ...
