"""The ``tfcompat`` command.

``tfcompat run [--quiet] SCRIPT.py [ARGS...]``
    Runs an unmodified TF1 script with ``import tensorflow`` aliased to tfcompat, then
    prints (to stderr) what its Sessions lowered: one line per executable, and XLA's fusion
    count and cost estimate for the most-run one. The exit code is the script's.

``tfcompat inspect GRAPH.pb|GRAPH.pbtxt [--fetch NAME ...] [--feed-shape NAME=2,3 ...]``
    Prints a GraphDef's op summary, host/device split, jaxpr, StableHLO, optimised HLO,
    fusion count and cost estimate for the given fetches (default: the graph's sink ops).

``python -m tfcompat ...`` is the same command.
"""

from __future__ import annotations

import argparse
import os
import runpy
import sys
import traceback

PROG = "tfcompat"


# ---------------------------------------------------------------------------------------------
# tfcompat run
# ---------------------------------------------------------------------------------------------
def _exit_code(exit_exc: SystemExit) -> int:
    """Python's own mapping of ``sys.exit(arg)`` to a process exit status."""
    code = exit_exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)
    return 1


def run_script(script: str, args: list) -> int:
    """Runs ``script`` as ``__main__`` with ``sys.argv = [script, *args]`` and its directory
    first on ``sys.path``, as ``python script.py`` would; returns its exit status."""
    saved_argv, saved_path = sys.argv, list(sys.path)
    sys.argv = [script, *args]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    try:
        runpy.run_path(script, run_name="__main__")
        return 0
    except SystemExit as e:
        return _exit_code(e)
    except KeyboardInterrupt:
        traceback.print_exc()
        return 130
    except BaseException:  # noqa: BLE001 - report the script's error as python would
        traceback.print_exc()
        return 1
    finally:
        sys.argv = saved_argv
        sys.path[:] = saved_path


class ExecutableLog:
    """Collects the executables Sessions build while it is attached."""

    def __init__(self):
        self.executables = []

    def __enter__(self):
        from lowering import compile as compile_lib

        compile_lib.EXECUTABLE_OBSERVERS.append(self.executables.append)
        return self

    def __exit__(self, *exc):
        from lowering import compile as compile_lib

        compile_lib.EXECUTABLE_OBSERVERS.remove(self.executables.append)
        return False


def _names(items, limit=3):
    names = [item.name for item in items]
    text = ", ".join(names[:limit])
    return text + (f", ... ({len(names)} in all)" if len(names) > limit else "")


def describe_executable(index: int, executable) -> str:
    """One summary line: runs, compilations, segments with op counts, fetches and targets."""
    plan = executable.plan
    segments = " + ".join(f"{s.kind}({len(s.ops)} ops)" for s in plan.segments) or "empty"
    parts = [
        f"#{index}: ran {executable.run_count}x",
        f"{executable.compile_count} XLA compilation(s)",
        f"segments: {segments}",
    ]
    if plan.fetches:
        parts.append(f"fetches: {_names(plan.fetches)}")
    if plan.targets:
        parts.append(f"targets: {_names(plan.targets)}")
    if executable.backend != "xla":
        parts.append(f"backend: {executable.backend}")
    return "  " + "; ".join(parts)


def lowering_summary(executables: list) -> str:
    """What ``tfcompat run`` prints after the script: every executable, then XLA's view of
    the most-run one."""
    if not executables:
        return "tfcompat: the script built no Session executables."
    compilations = sum(e.compile_count for e in executables)
    lines = [
        f"tfcompat: {len(executables)} executable(s) lowered, {compilations} XLA compilation(s)"
    ]
    lines += [describe_executable(i, e) for i, e in enumerate(executables, 1)]
    index, busiest = max(enumerate(executables, 1), key=lambda item: item[1].run_count)
    lines.append(f"most-run executable #{index} ({busiest.run_count} runs): {_xla_line(busiest)}")
    return "\n".join(lines)


def _xla_line(executable) -> str:
    if not executable.device_functions:
        return "no device segment (nothing for XLA)"
    from lowering import inspect as inspect_lib

    try:
        report = inspect_lib.inspect_executable(executable)
    except Exception as e:  # noqa: BLE001 - the summary must not change the script's result
        return f"cost analysis unavailable ({type(e).__name__}: {e})"
    cost = report.cost
    fields = [f"{report.fusion_count} fusion(s)"]
    fields += [
        f"{cost[k]:g} {k.replace('_', ' ')}" for k in ("flops", "bytes_accessed") if k in cost
    ]
    return ", ".join(fields)


def command_run(options) -> int:
    from tfcompat import import_hook

    script = options.script
    if not os.path.isfile(script):
        print(f"{PROG} run: error: cannot open script {script!r}: no such file", file=sys.stderr)
        return 2
    import_hook.install()
    with ExecutableLog() as log:
        status = run_script(script, options.args)
    if not options.quiet:
        sys.stdout.flush()
        print(lowering_summary(log.executables), file=sys.stderr)
    return status


# ---------------------------------------------------------------------------------------------
# tfcompat inspect
# ---------------------------------------------------------------------------------------------
def parse_feed_shape(text: str):
    """``"x=2,3"`` -> ("x", (2, 3)); ``"x="`` is a scalar."""
    name, sep, dims = text.partition("=")
    if not sep or not name:
        raise argparse.ArgumentTypeError(f"expected NAME=D1,D2,... (got {text!r})")
    try:
        shape = tuple(int(d) for d in dims.split(",") if d.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"dimensions must be integers, as in x=2,3 (got {text!r})"
        ) from None
    if any(d < 0 for d in shape):
        raise argparse.ArgumentTypeError(f"dimensions must be >= 0 (got {text!r})")
    return name, shape


def command_inspect(options) -> int:
    from lowering import inspect as inspect_lib
    from tfcompat.framework import errors

    path = options.graph
    try:
        report = inspect_lib.inspect_graph_def_file(
            path, fetches=options.fetch or None, feed_shapes=dict(options.feed_shape or ())
        )
    except OSError as e:
        return _fail(f"cannot read graph file {path!r}: {e.strerror or e}")
    except errors.OpError as e:
        return _fail(f"{path}: {e.message}")
    except ValueError as e:  # InspectError, import errors (bad node, cycle, ...)
        return _fail(f"{path}: {e}")
    sys.stdout.write(str(report))
    return 0


def _fail(message: str) -> int:
    print(f"{PROG} inspect: error: {message}", file=sys.stderr)
    return 1


# ---------------------------------------------------------------------------------------------
# Entry point
# ---------------------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog=PROG, description="Run TensorFlow 1.x programs on JAX/XLA and inspect lowerings."
    )
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    run = commands.add_parser(
        "run",
        help="run a legacy TF1 script with `import tensorflow` aliased to tfcompat",
        description="Run SCRIPT with `import tensorflow` resolving to tfcompat, then print "
        "a summary of what its Sessions lowered (to stderr).",
    )
    run.add_argument("--quiet", "-q", action="store_true", help="skip the lowering summary")
    run.add_argument("script", help="the Python script to run")
    run.add_argument("args", nargs=argparse.REMAINDER, help="arguments passed to the script")
    run.set_defaults(handler=command_run)

    inspect = commands.add_parser(
        "inspect",
        help="show how a GraphDef lowers (jaxpr, StableHLO, optimised HLO, cost)",
        description="Load a GraphDef (.pb binary, .pbtxt text) and report how the fetches "
        "lower to XLA.",
    )
    inspect.add_argument("graph", help="GraphDef file: .pb (binary) or .pbtxt (text)")
    inspect.add_argument(
        "--fetch",
        action="append",
        metavar="NAME",
        help="tensor or op to compute (repeatable; default: the graph's sink ops)",
    )
    inspect.add_argument(
        "--feed-shape",
        action="append",
        type=parse_feed_shape,
        metavar="NAME=D1,D2",
        help="concrete shape of a placeholder (repeatable; unknown dims default to 1)",
    )
    inspect.set_defaults(handler=command_inspect)
    return parser


def main(argv=None) -> int:
    options = build_parser().parse_args(argv)
    return options.handler(options)


if __name__ == "__main__":
    sys.exit(main())
