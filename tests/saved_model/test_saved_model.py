"""SavedModels against TF 2.21: ``simple_save`` / ``SavedModelBuilder`` here and TF's
``loader.load`` serve the same predictions, and the other way round; tags, signatures and
TF's errors for a non-empty export directory and missing tags."""

import os

import numpy as np
import pytest

import tfcompat
from tests.oracle import tf1

X = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 0.0]], np.float32)


def _model(tf):
    """A trained-looking model: a dense layer with a lookup table in the graph."""
    x = tf.placeholder(tf.float32, [None, 3], name="x")
    w = tf.Variable(np.array([[0.5], [-1.0], [2.0]], np.float32), name="w")
    b = tf.Variable(np.array([0.25], np.float32), name="b")
    y = tf.nn.sigmoid(tf.matmul(x, w) + b, name="y")
    return x, y


def _export(tf, export_dir):
    graph = tf.Graph()
    with graph.as_default():
        x, y = _model(tf)
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            sess.run(tf.assign_add(tf.trainable_variables()[0], [[0.1], [0.1], [0.1]]))
            tf.saved_model.simple_save(sess, export_dir, {"features": x}, {"score": y})


def _serve(tf, export_dir):
    graph = tf.Graph()
    with graph.as_default(), tf.Session(graph=graph) as sess:
        meta = tf.saved_model.loader.load(sess, [tf.saved_model.tag_constants.SERVING], export_dir)
        signature = meta.signature_def["serving_default"]
        assert signature.method_name == "tensorflow/serving/predict"
        x = graph.get_tensor_by_name(signature.inputs["features"].name)
        y = graph.get_tensor_by_name(signature.outputs["score"].name)
        return sess.run(y, {x: X}), list(meta.meta_info_def.tags)


@pytest.mark.parametrize("writer, reader", [("tfcompat", "tf"), ("tf", "tfcompat")])
def test_models_move_between_tf_and_tfcompat(tmp_path, writer, reader):
    frameworks = {"tfcompat": tfcompat, "tf": tf1()}
    export_dir = str(tmp_path / "model")
    _export(frameworks[writer], export_dir)
    assert sorted(os.listdir(export_dir)) == ["saved_model.pb", "variables"]
    served, tags = _serve(frameworks[reader], export_dir)
    expected, _ = _serve(frameworks[writer], export_dir)
    np.testing.assert_allclose(served, expected, rtol=1e-6)
    w = np.array([[0.6], [-0.9], [2.1]], np.float32)
    np.testing.assert_allclose(served, 1 / (1 + np.exp(-(X @ w + 0.25))), rtol=1e-5)
    assert tags == ["serve"]


def test_builder_tags_main_op_and_errors(tmp_path):
    tf = tfcompat
    export_dir = str(tmp_path / "built")
    graph = tf.Graph()
    with graph.as_default():
        x, y = _model(tf)
        counter = tf.Variable(0, name="counter", trainable=False)
        main_op = tf.assign(counter, 7).op
        with tf.Session() as sess:
            sess.run(tf.global_variables_initializer())
            builder = tf.saved_model.builder.SavedModelBuilder(export_dir)
            signature = tf.saved_model.signature_def_utils.predict_signature_def({"x": x}, {"y": y})
            builder.add_meta_graph_and_variables(
                sess, ["train"], signature_def_map={"predict": signature}, main_op=main_op
            )
            builder.add_meta_graph(["serve", "gpu"])
            builder.save()
            with pytest.raises(AssertionError, match="has already been saved"):
                builder.add_meta_graph_and_variables(sess, ["eval"])
            other = tf.saved_model.builder.SavedModelBuilder(str(tmp_path / "other"))
            with pytest.raises(TypeError, match="main_op needs to be an Operation"):
                other.add_meta_graph_and_variables(sess, ["serve"], main_op=y)
    with pytest.raises(AssertionError, match="already exists, and isn't empty"):
        tf.saved_model.builder.SavedModelBuilder(export_dir)
    theirs = tf1()
    for framework in (tf, theirs):
        with framework.Graph().as_default() as g, framework.Session(graph=g) as sess:
            meta = framework.saved_model.loader.load(sess, ["train"], export_dir)
            assert sess.run("counter:0") == 7  # the main op ran
            assert list(meta.signature_def) == ["predict"]
        with framework.Graph().as_default() as g, framework.Session(graph=g) as sess:
            with pytest.raises(RuntimeError, match="could not be found in SavedModel"):
                framework.saved_model.loader.load(sess, ["serve"], export_dir)
    assert tf.saved_model.loader.maybe_saved_model_directory(export_dir)
