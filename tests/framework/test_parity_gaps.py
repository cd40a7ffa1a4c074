"""Small TF 2.21 parity gaps in the core, each checked against TF itself: preferred-dtype
conversion, what shape inference folds (and what Python-level ``constant_value`` does not),
which TensorProto field a constant uses, deprecated-argument messages, and the graphs of
``tf.image.convert_image_dtype``, ``crop_to_bounding_box`` / ``pad_to_bounding_box`` and
``tf.tensordot``."""

from __future__ import annotations

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, assert_same_graph_def, graph_def_nodes, tf1


def _in_graph(module, build):
    """``build(module)`` inside a fresh graph of ``module``; returns its result and graph."""
    graph = module.Graph()
    with graph.as_default():
        return build(module), graph


def _outcome(build, module):
    """``build(module)``'s result, or the class and message of what it raised."""
    try:
        return _in_graph(module, build)[0]
    except Exception as e:  # noqa: BLE001 - the exception itself is what is compared
        return (type(e).__name__, str(e))


# ---------------------------------------------------------------------------------------------
# 1. convert_to_tensor(preferred_dtype=...) falls back to the inferred dtype
# ---------------------------------------------------------------------------------------------
_PREFERRED_CASES = [
    [1.5, 2.0],
    [1.0, 2.0],
    1.5,
    1.0,
    [1, 2],
    [[1, 2.5]],
    3e10,
    True,
    [np.float64(1.0)],
    np.array([1.5]),
]


@pytest.mark.parametrize("value", _PREFERRED_CASES, ids=repr)
def test_preferred_dtype_falls_back_like_tf(value):
    from tensorflow.python.framework import ops as tf_ops

    from tfcompat.framework import op_helper

    def build(convert, module):
        return convert(value, preferred_dtype=module.int32).dtype.name

    theirs = _in_graph(tf1(), lambda m: build(tf_ops.convert_to_tensor, m))[0]
    ours = _in_graph(tfcompat, lambda m: build(op_helper.convert_to_tensor, m))[0]
    assert ours == theirs


@pytest.mark.parametrize(
    "value",
    [1.0, [1.0, 2.0], True, [np.float64(1.0)], [np.bool_(True)], "a", 1j, [1, 1.0]],
    ids=repr,
)
@pytest.mark.parametrize("dtype", ["int32", "uint8", "float32", "bool", "complex64"])
def test_constant_with_dtype_accepts_what_tf_accepts(value, dtype):
    def build(tf):
        return tf.constant(value, dtype=getattr(tf, dtype)).dtype.name

    ours, theirs = _outcome(build, tfcompat), _outcome(build, tf1())
    if isinstance(theirs, tuple):  # both raise the same TypeError
        assert ours == theirs
    else:
        assert ours == theirs == dtype


@pytest.mark.parametrize(
    "value,shape,verify",
    [
        ([1, 2], [4], False),  # TF1 repeats the last value
        ([[1, 2], [3, 4]], [3, 2], False),
        ([1, 2, 3, 4, 5], [2, 2], False),  # too many: ValueError
        (np.arange(6), [2, 3], False),
        ([], [2], False),
        ([1.5], [2, 2], False),
        ([1, 2], [2, 2], True),
    ],
    ids=repr,
)
def test_constant_with_shape_fills_reshapes_or_raises_like_tf(value, shape, verify):
    def build(tf):
        with tf.Session() as sess:
            return sess.run(tf.constant(value, shape=shape, verify_shape=verify)).tolist()

    assert _outcome(build, tfcompat) == _outcome(build, tf1())


# ---------------------------------------------------------------------------------------------
# 2. Shape inference folds small constant subgraphs; Python constant_value stays narrow
# ---------------------------------------------------------------------------------------------
def _shape_cases(tf):
    c = tf.constant
    x = tf.placeholder(tf.float32, [2, 3])
    one = c(1) + 0  # a value only shape inference knows
    return {
        "repeat_axis1": lambda: tf.repeat(tf.zeros([2, 3]), [1, 2, 2], axis=1),
        "repeat_axis0": lambda: tf.repeat(tf.zeros([2, 3]), [1, 2], axis=0),
        "broadcast_to": lambda: tf.zeros(tf.broadcast_to(c([2]) + one, [2])),
        "fill": lambda: tf.reshape(x, tf.fill([1], 3)[:1] * 2),
        "zeros_like": lambda: tf.zeros(tf.zeros_like(c([2, 3]) + one) + c([2, 3])),
        "ones_like": lambda: tf.zeros(tf.ones_like(c([2, 3]) + one) * 3),
        "expand_dims": lambda: tf.zeros(tf.expand_dims(c(2) + one, 0)),
        "squeeze": lambda: tf.zeros(tf.squeeze(c([[2, 3]]) + one)),
        "squeeze_axis": lambda: tf.zeros(tf.squeeze(c([[2, 3]]) + one, [0])),
        "slice": lambda: tf.zeros(tf.slice(c([2, 3, 4]) + one, [1], [2])),
        "slice_to_end": lambda: tf.zeros(tf.slice(c([2, 3, 4]) + one, [1], [-1])),
        "strided_slice": lambda: tf.zeros((c([2, 3, 4]) + one)[1:]),
        "prod": lambda: tf.zeros([tf.reduce_prod(c([2, 3]) + one)]),
        "sum": lambda: tf.zeros([tf.reduce_sum(c([2, 3]) + one)]),
        "prod_keepdims_axis": lambda: tf.zeros(tf.reduce_prod(c([[2, 3]]) + one, axis=1)),
        "tile": lambda: tf.zeros(tf.tile(c([2]) + one, [2])),
        "range": lambda: tf.zeros(tf.range(one + 1, 4)),
        "shape_n": lambda: tf.zeros(tf.shape_n([x])[0]),
        # ... but not as a value: TF leaves these multiples unknown.
        "shape_n_value": lambda: tf.tile(x, tf.stack([1, tf.shape_n([x])[0][1]])),
        "select": lambda: tf.zeros(tf.where(c([True, False]), c([2, 3]), c([4, 5]) + one)),
        "neg": lambda: tf.zeros(-(c([-2, -3]) + one - 1)),
        "floormod": lambda: tf.zeros(tf.floormod(c([5, 7]) + one, 3)),
        "floordiv_by_zero": lambda: tf.zeros([tf.floordiv(c(4) + one, 0)]),
        "pad": lambda: tf.zeros(tf.pad(c([2]) + one, [[1, 0]], constant_values=3)),
        "reverse": lambda: tf.zeros(tf.reverse(c([2, 3]) + one, [0])),
        "transpose": lambda: tf.zeros(tf.reshape(tf.transpose(c([[2], [3]]) + one), [-1])),
        "unstack": lambda: tf.zeros([tf.unstack(c([2, 3]) + one)[0]]),
        "list_diff": lambda: tf.zeros(tf.setdiff1d(c([2, 3, 4]) + one, [4])[0]),
        "unknown_stays_unknown": lambda: tf.zeros(tf.tile(tf.shape(x)[:1] * 0 + 2, [2]) + one),
    }


def _static_shapes(module):
    def build(tf):
        return {name: str(make().shape) for name, make in _shape_cases(tf).items()}

    return _in_graph(module, build)[0]


def test_shape_inference_folds_what_tf_folds():
    ours, theirs = _static_shapes(tfcompat), _static_shapes(tf1())
    differing = {k: (ours[k], theirs[k]) for k in theirs if ours[k] != theirs[k]}
    assert not differing, f"static shapes (ours, TF): {differing}"
    assert theirs["repeat_axis1"] == "(2, 5)"  # the case that was (2, ?)


def test_inferred_values_are_not_python_constant_values():
    # TF's Python ``constant_value`` (``tf.get_static_value``), which graph-building code
    # branches on, folds none of these; it does fold Equal and NotEqual.
    def build(tf):
        c = tf.constant
        x = tf.placeholder(tf.float32, [2, 3])
        tensors = {
            "broadcast_to": tf.broadcast_to(c([6]), [2]),
            "squeeze": tf.squeeze(c([[2, 3]])),
            "slice": tf.slice(c([2, 3, 4]), [1], [2]),
            "prod": tf.reduce_prod(c([2, 3])),
            "tile": tf.tile(c([2]), [2]),
            "shape_n": tf.shape_n([x])[0],
            "add": c(2) + 1,
            "gather": tf.gather(c([2, 3]), [1]),
            "equal": tf.equal(c([2, 3]), 2),
            "not_equal": tf.not_equal(c(2), 2),
            "fill": tf.fill([2], 3),
            "range": tf.range(1, 4),
        }
        out = {}
        for name, t in tensors.items():
            value = tf.get_static_value(t)
            out[name] = None if value is None else np.asarray(value).tolist()
        return out

    assert _in_graph(tfcompat, build)[0] == _in_graph(tf1(), build)[0]


def test_folded_shapes_run_like_tf():
    def program(tf):
        return tf.repeat(tf.reshape(tf.range(6.0), [2, 3]), [1, 2, 2], axis=1)

    assert_parity(program)


# ---------------------------------------------------------------------------------------------
# 3. Which TensorProto field a constant's values go to
# ---------------------------------------------------------------------------------------------
_PROTO_DTYPES = [
    "uint8",
    "int8",
    "int16",
    "uint16",
    "int32",
    "uint32",
    "int64",
    "uint64",
    "bool",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "complex64",
    "complex128",
]


@pytest.mark.parametrize("dtype", _PROTO_DTYPES)
def test_constant_proto_fields_match_tf(dtype):
    def build(tf):
        dt = getattr(tf, dtype)
        np_dtype = dt.as_numpy_dtype
        lists = [[1], [1, 0], [1, 0, 1], [[1, 0], [1, 1]], []]
        for i, values in enumerate(lists):
            if dtype == "bool":
                values = np.asarray(values, dtype=bool).tolist()
            tf.constant(values, dtype=dt, name=f"list_{i}")
        tf.constant(True if dtype == "bool" else 1, dtype=dt, name="scalar")
        for n in (1, 2, 5, 40):
            tf.constant((np.arange(n) % 2).astype(np_dtype), name=f"array_{n}")
        tf.constant(np.asarray(1).astype(np_dtype), shape=[2, 3], name="splat")
        tf.constant([True] if dtype == "bool" else [1], dtype=dt, shape=[4], name="splat_list")
        tf.constant(np.ones([1, 1], np_dtype), name="one_element")

    ours = graph_def_nodes(_in_graph(tfcompat, build)[1])
    theirs = graph_def_nodes(_in_graph(tf1(), build)[1])
    assert sorted(ours) == sorted(theirs)
    for name in theirs:
        assert ours[name] == theirs[name], name


@pytest.mark.parametrize(
    "dtype",
    ["float8_e5m2", "float8_e4m3fn", "int4", "uint4", "int2", "uint2", "bfloat16", "uint16"],
)
@pytest.mark.parametrize("shape", [(3,), (1,), (), (2, 2)], ids=str)
def test_make_tensor_proto_of_narrow_types_matches_tf(dtype, shape):
    from tensorflow.python.framework import tensor_util as tf_tensor_util

    from tfcompat.framework import tensor_util

    np_dtype = tfcompat.as_dtype(dtype).as_numpy_dtype
    values = (np.arange(int(np.prod(shape))) % 2 + 1).reshape(shape).astype(np_dtype)
    ours = tensor_util.make_tensor_proto(values)
    theirs = tf_tensor_util.make_tensor_proto(values)
    assert ours.SerializeToString(deterministic=True) == theirs.SerializeToString(
        deterministic=True
    )
    back = tensor_util.make_ndarray(ours)
    assert back.dtype == values.dtype
    np.testing.assert_array_equal(back.astype(np.float32), values.astype(np.float32))


def test_tensor_proto_round_trips_values_written_per_element():
    from tfcompat.framework import tensor_util

    for dtype in ("uint16", "bool", "complex64", "float16"):
        values = (np.arange(5) % 3).astype(tfcompat.as_dtype(dtype).as_numpy_dtype)
        proto = tensor_util.make_tensor_proto(values)
        assert not proto.tensor_content or dtype == "float16"
        back = tensor_util.make_ndarray(proto)
        assert back.dtype == values.dtype
        np.testing.assert_array_equal(back, values)


# ---------------------------------------------------------------------------------------------
# 4. "Cannot specify both" messages of deprecated argument aliases
# ---------------------------------------------------------------------------------------------
def _both_cases(tf):
    x = tf.constant([[1.0, 2.0]])
    s = tf.constant(["a b"])
    sp = tf.SparseTensor([[0, 0]], [1.0], [2, 2])
    return {
        "string_split": lambda: tf.string_split(s, sep=" ", delimiter=" "),
        "strings.split": lambda: tf.strings.split(input=s, source=s),
        "decode_raw": lambda: tf.decode_raw(input_bytes=s, out_type=tf.uint8, bytes=s),
        "reduce_sum keep_dims": lambda: tf.reduce_sum(x, keepdims=True, keep_dims=True),
        "reduce_sum axis": lambda: tf.reduce_sum(x, axis=0, reduction_indices=0),
        "sparse_reduce_sum": lambda: tf.sparse_reduce_sum(sp, axis=0, reduction_axes=0),
        "reverse_sequence": lambda: tf.reverse_sequence(x, [1], seq_axis=1, seq_dim=1),
        "expand_dims": lambda: tf.expand_dims(x, axis=0, dim=0),
        "squeeze": lambda: tf.squeeze(x, axis=0, squeeze_dims=0),
        "cosine_distance": lambda: tf.losses.cosine_distance(x, x, axis=1, dim=1),
        "sufficient_statistics": lambda: tf.nn.sufficient_statistics(
            x, [0], keep_dims=True, keepdims=True
        ),
        "argmax": lambda: tf.argmax(x, axis=0, dimension=0),
        "dropout": lambda: tf.nn.dropout(x, keep_prob=0.5, rate=0.5),
        "count_nonzero": lambda: tf.count_nonzero(x, axis=0, reduction_indices=0),
        "reduce_join": lambda: tf.reduce_join(s, axis=0, reduction_indices=0),
        "norm": lambda: tf.norm(x, axis=0, keep_dims=True, keepdims=True),
        "conv2d_transpose": lambda: tf.nn.conv2d_transpose(
            value=tf.zeros([1, 2, 2, 1]),
            input=tf.zeros([1, 2, 2, 1]),
            filter=tf.zeros([1, 1, 1, 1]),
            output_shape=[1, 2, 2, 1],
            strides=[1, 1, 1, 1],
        ),
    }


@pytest.mark.parametrize("case", sorted(_both_cases(tfcompat)))
def test_cannot_specify_both_messages_match_tf(case):
    def build(tf):
        _both_cases(tf)[case]()

    theirs = _outcome(build, tf1())
    assert theirs[0] == "ValueError" and theirs[1].startswith("Cannot specify both")
    assert _outcome(build, tfcompat) == theirs


# ---------------------------------------------------------------------------------------------
# 5. tf.image.convert_image_dtype builds TF's nodes
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "source, target, saturate",
    [
        ("uint8", "float32", False),
        ("float32", "uint8", False),
        ("float32", "uint8", True),
        ("float32", "float64", False),
        ("int32", "uint8", False),
        ("int32", "uint8", True),
        ("uint8", "int32", False),
        ("uint8", "int32", True),
        ("int8", "uint8", True),
        ("uint16", "float16", False),
        ("float32", "float32", False),
    ],
)
def test_convert_image_dtype_graph_matches_tf(source, target, saturate):
    values = np.arange(12).reshape(2, 2, 3)
    values = values / 12.0 if source.startswith("float") else values

    def program(tf):
        x = tf.placeholder(getattr(tf, source), [2, 2, 3])
        dtype = getattr(tf, target)
        outputs = [
            tf.image.convert_image_dtype(x, dtype, saturate=saturate),
            tf.image.convert_image_dtype(x, dtype, saturate=saturate, name="named"),
        ]
        return outputs, {x: values.astype(getattr(np, source))}

    assert_same_graph_def(program)
    theirs, _ = assert_parity(program)
    names = [node.name for node in theirs.graph.as_graph_def().node]
    if source != target:
        assert "convert_image" in names and "named" in names


# ---------------------------------------------------------------------------------------------
# 6. tf.image.crop_to_bounding_box / pad_to_bounding_box are TF's graphs
# ---------------------------------------------------------------------------------------------
_IMAGES = np.arange(2 * 5 * 6 * 3, dtype=np.float32).reshape(2, 5, 6, 3)


def test_bounding_box_static_sizes_match_tf():
    def program(tf):
        image = tf.constant(_IMAGES[0])
        batch = tf.constant(_IMAGES)
        return [
            tf.image.crop_to_bounding_box(image, 1, 2, 3, 3),
            tf.image.pad_to_bounding_box(image, 1, 0, 7, 8),
            tf.image.crop_to_bounding_box(batch, 0, 1, 5, 4),
            tf.image.pad_to_bounding_box(batch, 0, 2, 5, 9),
        ]

    assert_same_graph_def(program)
    assert_parity(program)


def test_bounding_box_fed_sizes_match_tf():
    def program(tf):
        images = tf.placeholder(tf.float32, [None, None, None, 3])
        offset = tf.placeholder(tf.int32, [])
        height = tf.placeholder(tf.int32, [])
        unknown_rank = tf.placeholder(tf.float32, None)
        outputs = [
            tf.image.crop_to_bounding_box(images, offset, 2, height, 3),
            tf.image.pad_to_bounding_box(images, offset, 1, height + 6, 9),
            tf.image.crop_to_bounding_box(unknown_rank, 0, 0, 2, 2),
            tf.image.pad_to_bounding_box(unknown_rank, 0, 0, 6, 7),
        ]
        feeds = {images: _IMAGES, offset: 1, height: 3, unknown_rank: _IMAGES[0]}
        return outputs, feeds

    assert_same_graph_def(program)
    assert_parity(program)


@pytest.mark.parametrize(
    "call",
    [
        "crop_to_bounding_box(image, -1, 0, 2, 2)",
        "crop_to_bounding_box(image, 0, 0, 0, 2)",
        "crop_to_bounding_box(image, 4, 0, 2, 2)",
        "crop_to_bounding_box(image, 0, 5, 2, 2)",
        "pad_to_bounding_box(image, -1, 0, 9, 9)",
        "pad_to_bounding_box(image, 0, 0, 4, 9)",
        "pad_to_bounding_box(image, 0, 4, 9, 9)",
        "crop_to_bounding_box(tf.zeros([5, 6]), 0, 0, 2, 2)",
        "pad_to_bounding_box(tf.zeros([1, 1, 5, 6, 3]), 0, 0, 9, 9)",
    ],
)
def test_bounding_box_static_errors_match_tf(call):
    def build(tf):
        image = tf.constant(_IMAGES[0])
        return eval(f"tf.image.{call}", {"tf": tf, "image": image})  # test-authored text

    theirs = _outcome(build, tf1())
    assert isinstance(theirs, tuple) and theirs[0] == "ValueError"
    assert _outcome(build, tfcompat) == theirs


@pytest.mark.parametrize("function, offset, size", [("crop", 4, 2), ("pad", 0, 4)])
def test_bounding_box_run_time_errors_match_tf(function, offset, size):
    def run(tf):
        with tf.Graph().as_default():
            image = tf.placeholder(tf.float32, [None, None, 3])
            if function == "crop":
                out = tf.image.crop_to_bounding_box(image, offset, 0, size, 2)
            else:
                out = tf.image.pad_to_bounding_box(image, offset, 0, size, 9)
            with tf.Session() as sess:
                try:
                    sess.run(out, {image: _IMAGES[0]})
                except tf.errors.InvalidArgumentError as e:
                    return e.message
        return None

    theirs = run(tf1())
    assert theirs is not None
    ours = run(tfcompat)
    assert ours is not None
    message = "height must be >= target + offset." if function == "crop" else "height must be"
    assert message in theirs and message in ours


# ---------------------------------------------------------------------------------------------
# 7. tf.tensordot builds TF's graph
# ---------------------------------------------------------------------------------------------
_A = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
_B = np.arange(12, dtype=np.float32).reshape(4, 3)


@pytest.mark.parametrize(
    "axes, a_shape, b_shape",
    [
        (1, [2, 3, 4], [4, 3]),
        (0, [2, 3, 4], [4, 3]),
        ([[1, 2], [1, 0]], [2, 3, 4], [4, 3]),
        ([2, 0], [2, 3, 4], [4, 3]),
        ([[-1], [0]], [2, 3, 4], [4, 3]),
        (1, [None, 3, 4], [4, None]),
        ([[1, 2], [1, 0]], [None, 3, None], [None, 3]),
        (1, None, [4, 3]),
        ([[2], [0]], None, None),
        ("tensor", [2, 3, 4], [4, 3]),
    ],
    ids=str,
)
def test_tensordot_graph_matches_tf(axes, a_shape, b_shape):
    def program(tf):
        a = tf.placeholder(tf.float32, a_shape)
        b = tf.placeholder(tf.float32, b_shape)
        contraction = tf.constant([[2], [0]]) if axes == "tensor" else axes
        outputs = [tf.tensordot(a, b, contraction), tf.tensordot(a, b, contraction, name="td")]
        return outputs, {a: _A, b: _B}

    assert_same_graph_def(program)
    assert_parity(program)


def test_tensordot_of_matrices_is_one_matmul_like_tf():
    def program(tf):
        return tf.tensordot(tf.constant(_A[0]), tf.constant(np.ones([4, 2], np.float32)), 1)

    assert_same_graph_def(program)
    theirs, _ = assert_parity(program)
    ops = sorted(node.op for node in theirs.graph.as_graph_def().node)
    assert ops == ["Const", "Const", "MatMul"]
