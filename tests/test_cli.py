"""``tfcompat run`` (legacy scripts under the import hook, the lowering summary, exit codes)
and the import hook's aliases. Each case runs in a fresh interpreter: the hook must see a
process where ``tensorflow`` was never imported."""

import os
import re
import subprocess
import sys
import textwrap

import pytest

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
LEGACY_SCRIPT = os.path.join(FIXTURES, "legacy_linear.py")


def _env():
    return dict(os.environ, JAX_PLATFORMS=os.environ.get("JAX_PLATFORMS", "cpu"))


def _tfcompat(*args, cwd=None):
    """``python -m tfcompat ARGS`` in a fresh interpreter."""
    return subprocess.run(
        [sys.executable, "-m", "tfcompat", *args],
        capture_output=True,
        text=True,
        env=_env(),
        cwd=cwd,
        timeout=300,
    )


def _write_script(tmp_path, body, name="script.py"):
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return str(path)


# ---------------------------------------------------------------------------------------------
# tfcompat run
# ---------------------------------------------------------------------------------------------
def test_run_legacy_script_output_and_summary():
    result = _tfcompat("run", LEGACY_SCRIPT, "--steps", "3")
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "step 0: 7 10",
        "step 1: 7 10",
        "step 2: 7 10",
        "total: 3 3",
    ]
    summary = result.stderr
    # init, the training step, the final read of `total`: three executables, one compile each
    assert "tfcompat: 3 executable(s) lowered, 3 XLA compilation(s)" in summary
    step_line = next(line for line in summary.splitlines() if "ran 3x" in line)
    assert re.search(r"segments: device\(\d+ ops\)", step_line)
    assert "fetches: y:0" in step_line
    match = re.search(
        r"most-run executable #2 \(3 runs\): (\d+) fusion\(s\), ([\d.e+]+) flops, "
        r"([\d.e+]+) bytes accessed",
        summary,
    )
    assert match, summary
    # y = x @ w + b for a [4,3] x [3,2] matmul: at least 2*4*3*2 flops
    assert float(match.group(2)) >= 48
    assert float(match.group(3)) > 0


def test_run_quiet_skips_summary_and_returns_script_exit_code():
    result = _tfcompat("run", "--quiet", LEGACY_SCRIPT, "--steps", "1", "--exit-code", "3")
    assert result.returncode == 3
    assert result.stdout.splitlines() == ["step 0: 7 10", "total: 1 1"]
    assert "tfcompat:" not in result.stderr


def test_run_passes_argv_and_main_name(tmp_path):
    script = _write_script(
        tmp_path,
        """
        import sys
        print(__name__, sys.argv[1:], sys.argv[0].endswith("script.py"))
        """,
    )
    result = _tfcompat("run", "--quiet", script, "--flag", "value", "-x")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "__main__ ['--flag', 'value', '-x'] True"


def test_run_script_error_exits_1_with_traceback_and_summary(tmp_path):
    script = _write_script(
        tmp_path,
        """
        import tensorflow as tf
        with tf.Session() as sess:
            print(sess.run(tf.constant(2.0) + 1.0))
        raise RuntimeError("legacy failure")
        """,
    )
    result = _tfcompat("run", script)
    assert result.returncode == 1
    assert result.stdout.strip() == "3.0"
    assert "RuntimeError: legacy failure" in result.stderr
    assert "tfcompat: 1 executable(s) lowered" in result.stderr


def test_run_sys_exit_with_message(tmp_path):
    script = _write_script(tmp_path, "import sys\nsys.exit('bad input')\n")
    result = _tfcompat("run", "--quiet", script)
    assert result.returncode == 1
    assert "bad input" in result.stderr


def test_run_reports_script_without_sessions(tmp_path):
    script = _write_script(tmp_path, "import tensorflow as tf\nprint(tf.constant(1).name)\n")
    result = _tfcompat("run", script)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "Const:0"
    assert "built no Session executables" in result.stderr


def test_run_missing_script_names_it(tmp_path):
    missing = str(tmp_path / "nope.py")
    result = _tfcompat("run", missing)
    assert result.returncode != 0
    assert "nope.py" in result.stderr


def test_console_script_entry_point():
    exe = os.path.join(os.path.dirname(sys.executable), "tfcompat")
    if not os.path.exists(exe):
        pytest.skip("the package is not installed with its console script")
    result = subprocess.run(
        [exe, "run", "--quiet", LEGACY_SCRIPT, "--steps", "2"],
        capture_output=True,
        text=True,
        env=_env(),
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines()[-1] == "total: 2 2"


# ---------------------------------------------------------------------------------------------
# The import hook
# ---------------------------------------------------------------------------------------------
IMPORT_FORMS = {
    "import_tensorflow": "import tensorflow as tf",
    "import_compat_v1": "import tensorflow.compat.v1 as tf",
    "from_compat_import_v1_as": "from tensorflow.compat import v1 as tf",
    "from_compat_import_v1": "from tensorflow.compat import v1\ntf = v1",
    "disable_v2_behavior": "import tensorflow.compat.v1 as tf\ntf.disable_v2_behavior()",
    "disable_eager_execution": (
        "import tensorflow as tf\ntf.compat.v1.disable_eager_execution()\ntf = tf.compat.v1"
    ),
}


@pytest.mark.parametrize("form", sorted(IMPORT_FORMS))
def test_import_forms_resolve_to_tfcompat(tmp_path, form):
    script = _write_script(
        tmp_path,
        IMPORT_FORMS[form]
        + textwrap.dedent(
            """
            import numpy as np
            import tfcompat
            import tfcompat.compat.v1
            assert tf is tfcompat or tf is tfcompat.compat.v1, tf
            assert tf.Session is tfcompat.Session
            assert tf.compat.v1.placeholder is tfcompat.placeholder
            x = tf.placeholder(tf.float32, [2], name="x")
            y = tf.add(x, tf.constant([1.0, 2.0]), name="y")
            with tf.Session() as sess:
                print(sess.run(y, {x: np.array([10.0, 20.0], np.float32)}).tolist())
            """
        ),
    )
    result = _tfcompat("run", "--quiet", script)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[11.0, 22.0]"


def test_import_hook_aliases_namespaces_not_internals(tmp_path):
    script = _write_script(
        tmp_path,
        """
        import tensorflow as tf
        import tensorflow.math
        import tensorflow.compat.v1.math as v1_math
        import tfcompat
        assert tensorflow.math is tfcompat.math and v1_math is tfcompat.math
        assert tfcompat.__spec__.name == "tfcompat"  # aliasing leaves specs alone
        for name in ("tensorflow.framework", "tensorflow.python.framework.ops"):
            try:
                __import__(name)
            except ModuleNotFoundError as e:
                print(e)
            else:
                raise AssertionError(name + " imported")
        """,
    )
    result = _tfcompat("run", "--quiet", script)
    assert result.returncode == 0, result.stderr
    assert result.stdout.splitlines() == [
        "No module named 'tensorflow.framework': tfcompat has no tf.framework namespace",
        "No module named 'tensorflow.python': tfcompat has no tf.python namespace",
    ]


def test_install_refuses_when_tensorflow_already_imported():
    code = textwrap.dedent(
        """
        import tensorflow
        from tfcompat import import_hook
        try:
            import_hook.install()
        except RuntimeError as e:
            print(e)
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=_env(), timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert "TensorFlow is already imported" in result.stdout


def test_uninstall_forgets_aliases():
    code = textwrap.dedent(
        """
        import sys
        from tfcompat import import_hook
        import_hook.install()
        import tensorflow.compat.v1 as tf
        import_hook.uninstall()
        print(import_hook.installed(), sorted(m for m in sys.modules if m.startswith("tensorflow")))
        """
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=_env(), timeout=300
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "False []"
