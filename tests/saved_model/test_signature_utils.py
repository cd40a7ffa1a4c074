"""SavedModel signature helpers and main ops vs TF 2.21: the SignatureDefs TF Serving's
classify and regress APIs take, their validation, ``is_valid_signature`` and ``main_op``."""

from __future__ import annotations

import pytest

import tfcompat
from tests.oracle import assert_same_graph_def, tf1


def _signatures(tf):
    with tf.Graph().as_default():
        examples = tf.placeholder(tf.string, [None], name="examples")
        scores = tf.placeholder(tf.float32, [None, 3], name="scores")
        classes = tf.placeholder(tf.string, [None, 3], name="classes")
        utils = tf.saved_model.signature_def_utils
        return [
            utils.classification_signature_def(examples, classes, scores),
            utils.classification_signature_def(examples, None, scores),
            utils.regression_signature_def(examples, scores[:, 0]),
            utils.predict_signature_def({"x": examples}, {"y": scores}),
        ]


def test_signature_defs_serialize_as_tfs():
    ours, theirs = _signatures(tfcompat), _signatures(tf1())
    for a, b in zip(ours, theirs):
        assert a.SerializeToString(deterministic=True) == b.SerializeToString(deterministic=True)
    for tf, signatures in ((tfcompat, ours), (tf1(), theirs)):
        valid = [tf.saved_model.signature_def_utils.is_valid_signature(s) for s in signatures]
        assert valid == [True, True, True, True]


def _invalid(tf, build):
    with tf.Graph().as_default():
        strings = tf.placeholder(tf.string, [None])
        floats = tf.placeholder(tf.float32, [None])
        ints = tf.placeholder(tf.int32, [None])
        try:
            build(tf.saved_model.signature_def_utils, strings, floats, ints)
        except ValueError as e:
            return str(e)
        return None


@pytest.mark.parametrize(
    "build",
    [
        lambda u, s, f, i: u.classification_signature_def(None, s, f),
        lambda u, s, f, i: u.classification_signature_def([b"x"], s, f),
        lambda u, s, f, i: u.classification_signature_def(s, None, None),
        lambda u, s, f, i: u.classification_signature_def(f, s, f),
        lambda u, s, f, i: u.classification_signature_def(s, i, f),
        lambda u, s, f, i: u.classification_signature_def(s, s, i),
        lambda u, s, f, i: u.regression_signature_def(None, f),
        lambda u, s, f, i: u.regression_signature_def(s, None),
        lambda u, s, f, i: u.regression_signature_def(i, f),
        lambda u, s, f, i: u.regression_signature_def(s, i),
    ],
)
def test_invalid_signatures_raise_tfs_errors(build):
    ours, theirs = _invalid(tfcompat, build), _invalid(tf1(), build)
    assert ours is not None and ours == theirs


def test_is_valid_signature_rejects_what_tf_rejects():
    def check(tf):
        utils = tf.saved_model.signature_def_utils
        with tf.Graph().as_default():
            s = tf.placeholder(tf.string, [None])
            f = tf.placeholder(tf.float32, [None])
            good = utils.classification_signature_def(s, s, f)
            wrong_method = utils.build_signature_def(
                dict(good.inputs), dict(good.outputs), "tensorflow/serving/other"
            )
            extra_output = utils.build_signature_def(
                dict(good.inputs),
                {**dict(good.outputs), "other": tf.saved_model.utils.build_tensor_info(f)},
                tf.saved_model.signature_constants.CLASSIFY_METHOD_NAME,
            )
            empty_predict = utils.build_signature_def(
                {}, {}, tf.saved_model.signature_constants.PREDICT_METHOD_NAME
            )
            return [
                utils.is_valid_signature(x)
                for x in (None, good, wrong_method, extra_output, empty_predict)
            ]

    assert check(tfcompat) == check(tf1()) == [False, True, False, False, False]


def test_main_op_graph_matches_tf():
    def program(tf):
        tf.Variable(1.0, name="v")
        tf.get_local_variable("local", [], initializer=tf.zeros_initializer())
        return tf.saved_model.main_op.main_op()

    assert_same_graph_def(program)


def test_contains_saved_model(tmp_path):
    assert not tfcompat.saved_model.contains_saved_model(str(tmp_path))
    (tmp_path / "saved_model.pb").write_bytes(b"")
    assert tfcompat.saved_model.contains_saved_model(str(tmp_path))
