"""TF1 script plumbing against TF 2.21: ``tf.flags`` and ``tf.app.run`` (absl's, tolerating
undefined flags), ``tf.logging`` on TF's logger, and ``tf.gfile`` on local files."""

import logging
import subprocess
import sys
import textwrap

import pytest

import tfcompat
from tests.oracle import tf1
from tfcompat.framework import errors

_SCRIPT = textwrap.dedent(
    """
    import sys
    import {module} as tf
    tf.flags.DEFINE_string("name", "world", "who")
    tf.flags.DEFINE_integer("steps", 3, "how many")
    FLAGS = tf.flags.FLAGS

    def main(argv):
        tf.logging.set_verbosity(tf.logging.INFO)
        print(FLAGS.name, FLAGS.steps, argv[1:])

    if __name__ == "__main__":
        tf.app.run()
    """
)


@pytest.mark.parametrize("module", ["tfcompat", "tensorflow.compat.v1"])
def test_flags_and_app_run(tmp_path, module):
    script = tmp_path / "train.py"
    script.write_text(_SCRIPT.format(module=module))
    out = subprocess.run(
        [sys.executable, str(script), "--name=tf", "--steps", "7", "--undefined=1", "extra"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert out.strip().splitlines()[-1] == "tf 7 ['--undefined=1', 'extra']"


def test_logging_uses_tfs_logger(caplog):
    with caplog.at_level(logging.INFO, logger="tensorflow"):
        tfcompat.logging.info("step %d", 3)
        tfcompat.logging.warning("careful")
        for i in range(5):
            tfcompat.logging.log_first_n(tfcompat.logging.INFO, "first %d", 2, i)
    messages = [r.getMessage() for r in caplog.records if r.name == "tensorflow"]
    assert messages == ["step 3", "careful", "first 0", "first 1"]
    assert tfcompat.logging.INFO == tf1().logging.INFO == 20


def test_gfile(tmp_path):
    gfile = tfcompat.gfile
    directory = str(tmp_path / "a" / "b")
    gfile.MakeDirs(directory)
    path = f"{directory}/f.txt"
    with gfile.GFile(path, "w") as f:
        f.write("hello")
    assert gfile.Exists(path) and gfile.IsDirectory(directory)
    assert gfile.ListDirectory(directory) == ["f.txt"]
    assert gfile.Glob(f"{directory}/*.txt") == [path]
    gfile.Copy(path, path + ".bak")
    with pytest.raises(errors.AlreadyExistsError):
        gfile.Copy(path, path + ".bak")
    gfile.Rename(path + ".bak", path + ".old")
    assert sorted(gfile.ListDirectory(directory)) == ["f.txt", "f.txt.old"]
    with pytest.raises(errors.NotFoundError, match="No such file"):
        gfile.GFile(str(tmp_path / "missing"))
    gfile.DeleteRecursively(str(tmp_path / "a"))
    assert not gfile.Exists(directory)
