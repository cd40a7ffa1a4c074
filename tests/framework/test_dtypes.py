"""DType and as_dtype against TF 2.21: every enum, every property, every accepted spelling."""

import ml_dtypes
import numpy as np
import pytest

import tfcompat as tf
from tests.framework._judge import outcome, same_outcome
from tests.oracle import tf1
from tfcompat.framework import dtypes

ENUMS = sorted(dtypes._NAMES)
PROPERTIES = [
    "name",
    "as_datatype_enum",
    "is_floating",
    "is_integer",
    "is_unsigned",
    "is_complex",
    "is_quantized",
    "is_bool",
    "is_numeric",
    "is_numpy_compatible",
    "size",
    "min",
    "max",
    "limits",
]
DTYPE_PROPERTIES = ["base_dtype", "real_dtype", "_as_ref"]


def _name(value):
    return getattr(value, "name", value)


def test_enum_set_matches_tf():
    from tensorflow.python.framework import dtypes as tf_dtypes

    assert ENUMS == sorted(tf_dtypes._TYPE_TO_STRING)


@pytest.mark.parametrize("enum", ENUMS)
def test_properties_match_tf(enum):
    ours, theirs = dtypes.as_dtype(enum), tf1().as_dtype(enum)
    for prop in PROPERTIES:
        same_outcome(outcome(getattr, ours, prop), outcome(getattr, theirs, prop))
    for prop in DTYPE_PROPERTIES:
        same_outcome(outcome(getattr, ours, prop), outcome(getattr, theirs, prop), _name)
    assert repr(ours) == repr(theirs) and str(ours) == str(theirs)
    assert hash(ours) == hash(theirs) == enum


@pytest.mark.parametrize("enum", ENUMS)
def test_numpy_type_matches_tf(enum):
    ours = outcome(getattr, dtypes.as_dtype(enum), "as_numpy_dtype")
    theirs = outcome(getattr, tf1().as_dtype(enum), "as_numpy_dtype")
    assert ours[0] == theirs[0]
    if ours[0] == "ok":
        assert ours[1] is theirs[1] or ours[1] == theirs[1], (ours, theirs)


def test_public_constants():
    assert tf.float32.as_datatype_enum == 1 and tf.double is tf.float64 and tf.half is tf.float16
    assert tf.float32 is tf.as_dtype("float32") is tf.as_dtype(np.float32)
    assert dtypes.int4.name == "int4" and dtypes.float8_e5m2.is_floating


AS_DTYPE_INPUTS = [
    1, 3, 101, 24, 33, 0, 34, 99, 200, -1, True, 1.0,
    "float32", "float", "half", "double", "float_ref", "double_ref", "half_ref", "string_ref",
    "int4", "resource", "DT_FLOAT", "complex", "int", "str", "", "foo",
    int, float, bool, str, bytes, object, complex,
    np.float32, np.int64, np.bool_, np.bytes_, np.str_, np.object_, np.longlong, np.ulonglong,
    np.intc, np.uint, np.datetime64, np.void, np.longdouble,
    np.dtype("float32"), np.dtype(">i4"), np.dtype("S5"), np.dtype("U3"), np.dtype(object),
    np.dtype(ml_dtypes.bfloat16), np.dtype(ml_dtypes.int4), ml_dtypes.float8_e4m3fn,
    np.dtype([("qint8", np.int8)]), np.dtype([("quint16", np.uint16)]),
    np.zeros(3, np.float16), np.float64(2.0), np.int32(3), None, [1], (1,),
]  # fmt: skip


@pytest.mark.parametrize("value", AS_DTYPE_INPUTS, ids=repr)
def test_as_dtype_matches_tf(value):
    same_outcome(outcome(tf.as_dtype, value), outcome(tf1().as_dtype, value), _name)


def test_as_dtype_of_tf_dtype_and_dtype_equality():
    assert tf.as_dtype(tf1().as_dtype("float32_ref")) is tf.float32._as_ref
    assert tf.float32 == "float32" and tf.float32 == 1 and tf.float32 != tf.float32._as_ref
    assert tf.float32 != "not a type" and not (tf.float32 == None)  # noqa: E711
    assert tf.float32.is_compatible_with(tf.float32._as_ref)
    assert not tf.float32._as_ref.is_compatible_with(tf.float32)


def test_invalid_enum_error_matches_tf():
    same_outcome(outcome(dtypes.DType, 99), outcome(tf1().DType, 99))


def test_pickle_round_trip():
    import pickle

    for enum in ENUMS:
        d = dtypes.as_dtype(enum)
        assert pickle.loads(pickle.dumps(d)) is d


def test_proto_names():
    assert dtypes.proto_name(tf.float32) == "DT_FLOAT"
    assert dtypes.proto_name(tf.int32._as_ref) == "DT_INT32_REF"
    assert dtypes.from_proto_name("DT_HALF") is tf.float16
    from tensorflow.python.framework import dtypes as tf_dtypes

    assert dtypes.QUANTIZED_DTYPES == {tf.as_dtype(d) for d in tf_dtypes.QUANTIZED_DTYPES}


@pytest.mark.parametrize(
    "value",
    [
        [np.int64(0)],
        [np.int64(2**40)],
        [np.int64(1), 3_000_000_000],
        [np.float64(1.5)],
        [[np.float64(1.0)], [2.0]],
        [np.int32(1), 2.5],
        [np.float16(1.0)],
        [np.uint8(1)],
        [np.uint64(3)],
        [np.bool_(True)],
        np.int64(0),
        np.array([1.5]),
    ],
    ids=repr,
)
def test_constant_from_numpy_scalars_takes_tf_dtype(value):
    # In a list, numpy scalars are narrowed as TF narrows Python numbers; alone or as an
    # array they keep their dtype.
    with tf1().Graph().as_default():
        expected = tf1().constant(value).dtype.name
    with tf.Graph().as_default():
        assert tf.constant(value).dtype.name == expected
