"""Session configuration messages: ``tf.ConfigProto``, ``tf.GPUOptions``,
``tf.GraphOptions``, ``tf.OptimizerOptions``, ``tf.RunOptions`` and ``tf.RunMetadata``.

They are protobuf messages with TensorFlow's field numbers (``framework/proto/config.proto``),
so TF1 code that fills them (``config.graph_options.optimizer_options.global_jit_level =
tf.OptimizerOptions.ON_1``, ``config.gpu_options.allow_growth = True``), serializes them
or parses TF's bytes works unchanged. XLA decides threading, memory and compilation, so a
Session records its ConfigProto and otherwise leaves it alone.
"""

from __future__ import annotations

from tfcompat.framework.proto import config_pb2, step_stats_pb2
from tfcompat.util.tf_export import export_constant

ConfigProto = config_pb2.ConfigProto
GPUOptions = config_pb2.GPUOptions
GraphOptions = config_pb2.GraphOptions
OptimizerOptions = config_pb2.OptimizerOptions
RunOptions = config_pb2.RunOptions
ThreadPoolOptionProto = config_pb2.ThreadPoolOptionProto
SessionMetadata = config_pb2.SessionMetadata
ClusterDef = config_pb2.ClusterDef
JobDef = config_pb2.JobDef
ServerDef = config_pb2.ServerDef
StepStats = step_stats_pb2.StepStats


class RunMetadata:
    """``tf.RunMetadata``: TF's message (``step_stats``, ``partition_graphs``, ...; every
    protobuf method) plus ``executable``, the executable a ``Session.run`` given this object
    ran (for ``lowering.inspect.inspect_executable``).

    A wrapper rather than the message itself because protobuf messages take no attributes
    of their own and their classes cannot be subclassed; ``proto`` is the message.
    """

    def __init__(self, **fields):
        object.__setattr__(self, "proto", config_pb2.RunMetadata(**fields))
        object.__setattr__(self, "executable", None)

    def __getattr__(self, name):
        return getattr(self.proto, name)

    def __setattr__(self, name, value):
        if name == "executable":
            object.__setattr__(self, name, value)
        else:
            setattr(self.proto, name, value)

    def CopyFrom(self, other):  # noqa: N802 - protobuf's name
        self.proto.CopyFrom(getattr(other, "proto", other))

    def MergeFrom(self, other):  # noqa: N802 - protobuf's name
        self.proto.MergeFrom(getattr(other, "proto", other))

    def __eq__(self, other):
        return self.proto == getattr(other, "proto", other)

    __hash__ = None

    def __str__(self):
        return str(self.proto)

    def __repr__(self):
        return f"RunMetadata({self.proto!r})"

    @classmethod
    def FromString(cls, data):  # noqa: N802 - protobuf's name
        metadata = cls()
        metadata.proto.ParseFromString(data)
        return metadata

    DESCRIPTOR = config_pb2.RunMetadata.DESCRIPTOR
    FunctionGraphs = config_pb2.RunMetadata.FunctionGraphs


# TF exports the cluster messages under tf.train (the session ones are tf.* names).
for _name in ("ClusterDef", "JobDef", "ServerDef"):
    export_constant(globals()[_name], f"train.{_name}")
