"""TF1's script plumbing: ``tf.logging``, ``tf.app`` / ``tf.flags`` (absl's, as in TF) and
``tf.gfile`` (local files)."""

from tfcompat.platform import app, gfile, tf_logging  # noqa: F401
