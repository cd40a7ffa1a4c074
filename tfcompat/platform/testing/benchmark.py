"""``tf.test.Benchmark``, ``tf.test.main`` (absl's test main, or the registered benchmarks
under ``--benchmark_filter=``) and ``StubOutForTesting``."""

from __future__ import annotations

import functools
import math
import numbers
import os
import re
import sys
import time

from absl import app as _absl_app
from absl.testing import absltest
from google.protobuf import (
    descriptor_pb2,
    descriptor_pool,
    message_factory,
    wrappers_pb2,
)

from tfcompat.client import session as session_lib
from tfcompat.platform import tf_logging
from tfcompat.util.tf_export import tf_export

# ---------------------------------------------------------------------------------------------
# Benchmarks
# ---------------------------------------------------------------------------------------------
GLOBAL_BENCHMARK_REGISTRY = set()
TEST_REPORTER_TEST_ENV = "TEST_REPORT_FILE_PREFIX"


@functools.cache
def _benchmark_messages():
    """TF's ``BenchmarkEntries`` proto (xla/tsl/protobuf/test_log.proto, package
    ``tensorflow``), built in a private descriptor pool so it cannot clash with TF's."""
    pool = descriptor_pool.DescriptorPool()
    wrappers = descriptor_pb2.FileDescriptorProto.FromString(wrappers_pb2.DESCRIPTOR.serialized_pb)
    pool.Add(wrappers)
    f = descriptor_pb2.FileDescriptorProto(
        name="tfcompat/test_log.proto",
        package="tensorflow",
        syntax="proto3",
        dependency=["google/protobuf/wrappers.proto"],
    )
    fd = descriptor_pb2.FieldDescriptorProto
    opt, rep = fd.LABEL_OPTIONAL, fd.LABEL_REPEATED

    def field(msg, name, number, ftype, label=opt, type_name=None, oneof=None):
        spec = msg.field.add(name=name, number=number, type=ftype, label=label)
        if type_name:
            spec.type_name = type_name
        if oneof is not None:
            spec.oneof_index = oneof

    value = f.message_type.add(name="EntryValue")
    value.oneof_decl.add(name="kind")
    field(value, "double_value", 1, fd.TYPE_DOUBLE, oneof=0)
    field(value, "string_value", 2, fd.TYPE_STRING, oneof=0)
    metric = f.message_type.add(name="MetricEntry")
    field(metric, "name", 1, fd.TYPE_STRING)
    field(metric, "value", 2, fd.TYPE_DOUBLE)
    field(metric, "min_value", 3, fd.TYPE_MESSAGE, type_name=".google.protobuf.DoubleValue")
    field(metric, "max_value", 4, fd.TYPE_MESSAGE, type_name=".google.protobuf.DoubleValue")
    entry = f.message_type.add(name="BenchmarkEntry")
    field(entry, "name", 1, fd.TYPE_STRING)
    field(entry, "iters", 2, fd.TYPE_INT64)
    field(entry, "cpu_time", 3, fd.TYPE_DOUBLE)
    field(entry, "wall_time", 4, fd.TYPE_DOUBLE)
    field(entry, "throughput", 5, fd.TYPE_DOUBLE)
    extras = entry.nested_type.add(name="ExtrasEntry")
    extras.options.map_entry = True
    field(extras, "key", 1, fd.TYPE_STRING)
    field(extras, "value", 2, fd.TYPE_MESSAGE, type_name=".tensorflow.EntryValue")
    field(entry, "extras", 6, fd.TYPE_MESSAGE, rep, ".tensorflow.BenchmarkEntry.ExtrasEntry")
    field(entry, "metrics", 7, fd.TYPE_MESSAGE, rep, ".tensorflow.MetricEntry")
    entries = f.message_type.add(name="BenchmarkEntries")
    field(entries, "entry", 1, fd.TYPE_MESSAGE, rep, ".tensorflow.BenchmarkEntry")
    pool.Add(f)
    return message_factory.GetMessageClass(
        pool.FindMessageTypeByName("tensorflow.BenchmarkEntries")
    )


def _global_report_benchmark(
    name, iters=None, cpu_time=None, wall_time=None, throughput=None, extras=None, metrics=None
):
    """Logs the benchmark, then prints its ``BenchmarkEntries`` proto, or writes it to
    ``$TEST_REPORT_FILE_PREFIX<name>`` when that is set (as TF's reporters expect)."""
    tf_logging.info(
        "Benchmark [%s] iters: %d, wall_time: %g, cpu_time: %g,throughput: %g, extras: %s, "
        "metrics: %s",
        name,
        iters if iters is not None else -1,
        wall_time if wall_time is not None else -1,
        cpu_time if cpu_time is not None else -1,
        throughput if throughput is not None else -1,
        str(extras) if extras else "None",
        str(metrics) if metrics else "None",
    )
    entries = _benchmark_messages()()
    entry = entries.entry.add()
    entry.name = name
    if iters is not None:
        entry.iters = iters
    if cpu_time is not None:
        entry.cpu_time = cpu_time
    if wall_time is not None:
        entry.wall_time = wall_time
    if throughput is not None:
        entry.throughput = throughput
    if extras is not None:
        if not isinstance(extras, dict):
            raise TypeError("extras must be a dict")
        for k, v in extras.items():
            if isinstance(v, numbers.Number):
                entry.extras[k].double_value = v
            else:
                entry.extras[k].string_value = str(v)
    if metrics is not None:
        if not isinstance(metrics, list):
            raise TypeError("metrics must be a list")
        for metric in metrics:
            if "name" not in metric:
                raise TypeError("metric must has a 'name' field")
            if "value" not in metric:
                raise TypeError("metric must has a 'value' field")
            metric_entry = entry.metrics.add()
            metric_entry.name = metric["name"]
            metric_entry.value = metric["value"]
            if "min_value" in metric:
                metric_entry.min_value.value = metric["min_value"]
            if "max_value" in metric:
                metric_entry.max_value.value = metric["max_value"]
    prefix = os.environ.get(TEST_REPORTER_TEST_ENV)
    if prefix is None:
        print(str(entries))
        return
    output_path = prefix + name.replace("/", "__")
    if os.path.exists(output_path):
        raise OSError(f"File already exists: {output_path}")
    with open(output_path, "wb") as out:
        out.write(entries.SerializeToString())


class _BenchmarkRegistrar(type):
    """Registers every concrete Benchmark subclass, for ``--benchmark_filter``."""

    def __new__(mcs, clsname, bases, attrs):
        newclass = type.__new__(mcs, clsname, bases, attrs)
        if not newclass.is_abstract():
            GLOBAL_BENCHMARK_REGISTRY.add(newclass)
        return newclass


@tf_export("test.Benchmark")
class Benchmark(metaclass=_BenchmarkRegistrar):
    """Base class of benchmarks: methods named ``benchmark*`` run under
    ``tf.test.main()`` with ``--benchmark_filter=<regex>`` and report with
    ``report_benchmark``; ``run_op_benchmark`` times ``Session.run`` of an op."""

    @classmethod
    def is_abstract(cls):
        # mro (subclass, Benchmark, object): only Benchmark itself is abstract.
        return len(cls.mro()) <= 2

    def _get_name(self, overwrite_name=None):
        """``Class.method`` of the outermost Benchmark method on the stack."""
        import inspect

        calling_class = None
        name = None
        for frame in inspect.stack()[::-1]:
            f_self = frame[0].f_locals.get("self", None)
            if isinstance(f_self, Benchmark):
                calling_class = f_self
                name = frame[3]
                break
        if calling_class is None:
            raise ValueError("Unable to determine calling Benchmark class.")
        name = overwrite_name or name
        return f"{type(calling_class).__name__}.{name}"

    def report_benchmark(
        self,
        iters=None,
        cpu_time=None,
        wall_time=None,
        throughput=None,
        extras=None,
        name=None,
        metrics=None,
    ):
        """Reports one result (times in seconds, throughput in MB/s, ``extras`` a dict of
        numbers or strings, ``metrics`` a list of dicts with ``name``, ``value`` and
        optionally ``min_value``/``max_value``) under ``name`` (default: the method's)."""
        name = self._get_name(overwrite_name=name)
        _global_report_benchmark(
            name=name,
            iters=iters,
            cpu_time=cpu_time,
            wall_time=wall_time,
            throughput=throughput,
            extras=extras,
            metrics=metrics,
        )

    def run_op_benchmark(
        self,
        sess,
        op_or_tensor,
        feed_dict=None,
        burn_iters=2,
        min_iters=10,
        store_trace=False,
        store_memory_usage=True,
        name=None,
        extras=None,
        mbs=0,
    ):
        """Runs ``op_or_tensor`` ``burn_iters`` times untimed (compilation happens there),
        then ``min_iters`` times timed, and reports the median wall time. Returns the reported
        values, with ``wall_time_mean`` and ``wall_time_stdev`` added to ``extras``.
        ``store_trace`` and ``store_memory_usage`` add nothing: there are no step stats."""
        del store_trace, store_memory_usage
        for _ in range(burn_iters):
            sess.run(op_or_tensor, feed_dict=feed_dict)
        deltas = []
        for _ in range(min_iters):
            start = time.time()
            sess.run(op_or_tensor, feed_dict=feed_dict)
            deltas.append(time.time() - start)
        extras = extras if extras is not None else {}

        def median(x):
            if not x:
                return -1
            s = sorted(x)
            return (s[len(x) // 2] + s[(len(x) - 1) // 2]) / 2.0

        def mean_and_stdev(x):
            if not x:
                return -1, -1
            mean = sum(x) / len(x)
            if len(x) == 1:
                return mean, -1
            variance = sum((e - mean) * (e - mean) for e in x) / (len(x) - 1)
            return mean, math.sqrt(variance)

        median_delta = median(deltas)
        values = {
            "iters": min_iters,
            "wall_time": median_delta,
            "extras": extras,
            "name": name,
            "throughput": mbs / median_delta if median_delta else 0.0,
        }
        self.report_benchmark(**values)
        mean_delta, stdev_delta = mean_and_stdev(deltas)
        values["extras"].update({"wall_time_mean": mean_delta, "wall_time_stdev": stdev_delta})
        return values

    def evaluate(self, tensors):
        """The values of ``tensors`` in the default session."""
        sess = session_lib.get_default_session()
        if sess is None:
            raise ValueError("Benchmark.evaluate needs a default session (`with sess:`).")
        return sess.run(tensors)


@tf_export("test.benchmark_config")
def benchmark_config():
    """A ``ConfigProto`` with Grappler's dependency optimizer off, as TF's benchmarks use.
    There is no Grappler here, so the setting is only recorded."""
    from tfcompat.client.config import ConfigProto
    from tfcompat.framework.proto import config_pb2

    config = ConfigProto()
    config.graph_options.rewrite_options.dependency_optimization = config_pb2.RewriterConfig.OFF
    return config


def _run_benchmarks(regex):
    """Runs every registered ``module.Class.benchmark*`` method matching ``regex``
    ("all": every one)."""
    selected = []
    for benchmark in sorted(GLOBAL_BENCHMARK_REGISTRY, key=lambda c: (c.__module__, c.__name__)):
        instance = None
        for attr in dir(benchmark):
            if not attr.startswith("benchmark") or not callable(getattr(benchmark, attr)):
                continue
            full_name = f"{benchmark.__module__}.{benchmark.__name__}.{attr}"
            if regex == "all" or re.search(regex, full_name):
                selected.append(full_name)
                instance = instance or benchmark()
                getattr(instance, attr)()
    if not selected:
        raise ValueError(f"No benchmarks matched the pattern: '{regex}'")


@tf_export("test.main")
def main(argv=None):
    """Runs the tests of the ``__main__`` module with absl's test runner; with
    ``--benchmark_filter=<regex>`` runs the matching benchmarks instead."""
    args = sys.argv if argv is None else argv
    found = [a for a in args if a.startswith(("--benchmark_filter=", "-benchmark_filter="))]
    if found:
        args.remove(found[0])
        regex = found[0].split("=", 1)[1]
        return _absl_app.run(lambda _: _run_benchmarks(regex), argv=args)
    return _absl_app.run(main=lambda remaining: absltest.main(argv=remaining), argv=args)


@tf_export("test.StubOutForTesting")
class StubOutForTesting:
    """Replaces attributes for a test and puts them back on ``CleanUp()`` (or at the end of
    a ``with`` block)."""

    def __init__(self):
        self.cache = []
        self.stubs = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.CleanUp()

    def CleanUp(self):  # noqa: N802 - TF's name
        """Undoes every ``Set`` and ``SmartSet``."""
        self.SmartUnsetAll()
        self.UnsetAll()

    def SmartSet(self, obj, attr_name, new_attr):  # noqa: N802 - TF's name
        """Sets ``obj.attr_name``; on an instance whose class defines the attribute, the
        class is stubbed (staticmethods stay staticmethods when restored)."""
        import inspect

        if inspect.ismodule(obj) or (not inspect.isclass(obj) and attr_name in obj.__dict__):
            orig_obj = obj
            orig_attr = getattr(obj, attr_name)
        else:
            mro = list(inspect.getmro(obj if inspect.isclass(obj) else obj.__class__))
            mro.reverse()
            orig_attr = None
            found = False
            for cls in mro:
                try:
                    orig_obj = cls
                    orig_attr = getattr(obj, attr_name)
                    found = True
                except AttributeError:
                    continue
            if not found:
                raise AttributeError("Attribute not found.")
        old_attribute = getattr(obj, "__dict__", {}).get(attr_name)
        if old_attribute is not None and isinstance(old_attribute, staticmethod):
            orig_attr = staticmethod(orig_attr)
        self.stubs.append((orig_obj, attr_name, orig_attr))
        setattr(orig_obj, attr_name, new_attr)

    def SmartUnsetAll(self):  # noqa: N802 - TF's name
        """Undoes every ``SmartSet``, newest first."""
        for obj, attr_name, old_attr in reversed(self.stubs):
            setattr(obj, attr_name, old_attr)
        self.stubs = []

    def Set(self, parent, child_name, new_child):  # noqa: N802 - TF's name
        """Sets ``parent.child_name`` (keeping a staticmethod a staticmethod)."""
        old_child = getattr(parent, child_name)
        old_attribute = getattr(parent, "__dict__", {}).get(child_name)
        if old_attribute is not None and isinstance(old_attribute, staticmethod):
            old_child = staticmethod(old_child)
        self.cache.append((parent, old_child, child_name))
        setattr(parent, child_name, new_child)

    def UnsetAll(self):  # noqa: N802 - TF's name
        """Undoes every ``Set``, newest first."""
        for parent, old_child, child_name in reversed(self.cache):
            setattr(parent, child_name, old_child)
        self.cache = []
