"""``tf.train.ClusterSpec``, ``replica_device_setter`` and ``tf.train.Server``.

TF1's between-graph replication records devices on ops (variables round-robin on the
``/job:ps`` tasks, the rest on ``/job:worker``); ``replica_device_setter`` records the same
device strings as TF, so GraphDefs match. Those devices are recorded only: a ``Session`` runs
the whole step in one process through XLA. There is no gRPC runtime, so ``tf.train.Server``
raises ``UnimplementedError``; a multi-host run here is one JAX program per host started with
``jax.distributed.initialize`` (XLA collectives between hosts), not parameter servers.
"""

from __future__ import annotations

from tfcompat.framework import device_spec, errors
from tfcompat.framework.proto import config_pb2, node_def_pb2
from tfcompat.platform import tf_logging
from tfcompat.util.tf_export import tf_export

# The op types TF places on parameter servers (``device_setter.STANDARD_PS_OPS``).
STANDARD_PS_OPS = (
    "Variable",
    "VariableV2",
    "AutoReloadVariable",
    "MutableHashTable",
    "MutableHashTableV2",
    "MutableHashTableOfTensors",
    "MutableHashTableOfTensorsV2",
    "MutableDenseHashTable",
    "MutableDenseHashTableV2",
    "VarHandleOp",
    "BoostedTreesEnsembleResourceHandleOp",
    "BoostedTreesQuantileStreamResourceHandleOp",
    "ResourceConditionalAccumulator",
    "DecisionTreeResource",
)


def _no_such_job(job_name):
    return ValueError(f"No such job in cluster: {job_name!r}")


def _as_text(value, what):
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, str):
        return value
    raise TypeError(f"{what} {value!r} must be bytes or unicode")


@tf_export("train.ClusterSpec")
class ClusterSpec:
    """A cluster as a set of jobs, each a set of tasks with network addresses:
    ``ClusterSpec({"ps": ["ps0:2222"], "worker": {1: "w1:2222"}})`` (a list numbers the
    tasks from 0; a dict gives sparse task indices)."""

    def __init__(self, cluster):
        if isinstance(cluster, ClusterSpec):
            cluster = cluster._cluster_spec
        elif isinstance(cluster, config_pb2.ClusterDef):
            cluster = {job.name: dict(job.tasks) for job in cluster.job}
        elif not isinstance(cluster, dict):
            raise TypeError(
                "`cluster` must be a dictionary mapping one or more job names to lists of "
                "network addresses, or a `ClusterDef` protocol buffer"
            )
        self._cluster_spec = {}
        for job_name, tasks in cluster.items():
            if isinstance(tasks, (list, tuple)):
                job_tasks = dict(enumerate(tasks))
            elif isinstance(tasks, dict):
                job_tasks = {int(i): task for i, task in tasks.items()}
            else:
                raise TypeError(
                    f"The tasks for job {job_name!r} must be a list or a dictionary from "
                    "integers to strings."
                )
            self._cluster_spec[job_name] = job_tasks
        # TF checks names and addresses while building its ClusterDef.
        for job_name, tasks in self._cluster_spec.items():
            _as_text(job_name, "Job name")
            for address in tasks.values():
                _as_text(address, "Task address")

    def __bool__(self):
        return bool(self._cluster_spec)

    # As TF: equal to another ClusterSpec with the same tasks, or to its job -> {index:
    # address} table itself.
    def __eq__(self, other):
        if isinstance(other, ClusterSpec):
            return self._cluster_spec == other._cluster_spec
        return self._cluster_spec == other

    def __ne__(self, other):
        return not self == other

    __hash__ = None

    def __repr__(self):
        table = self.as_dict()
        items = ", ".join(f"{k!r}: {table[k]!r}" for k in sorted(table))
        return "ClusterSpec({" + items + "})"

    def as_cluster_def(self):
        """The ``tf.train.ClusterDef`` message of this cluster (jobs in name order)."""
        cluster = config_pb2.ClusterDef()
        for job_name in sorted(self._cluster_spec):
            job = cluster.job.add(name=job_name)
            for index, address in sorted(self._cluster_spec[job_name].items()):
                job.tasks[index] = address
        return cluster

    def as_dict(self):
        """Job name -> list of addresses (a dict of index -> address where indices have
        gaps; ``{}`` for a job without tasks)."""
        result = {}
        for job in self.jobs:
            indices = self.task_indices(job)
            if not indices:
                result[job] = {}
            elif max(indices) + 1 == len(indices):
                result[job] = self.job_tasks(job)
            else:
                result[job] = {i: self.task_address(job, i) for i in indices}
        return result

    @property
    def jobs(self):
        """The job names, in the order given."""
        return list(self._cluster_spec)

    def _job(self, job_name):
        try:
            return self._cluster_spec[job_name]
        except KeyError:
            raise _no_such_job(job_name) from None

    def num_tasks(self, job_name):
        """How many tasks ``job_name`` has (ValueError for an unknown job)."""
        return len(self._job(job_name))

    def task_indices(self, job_name):
        """The task indices of ``job_name``, sorted."""
        return sorted(self._job(job_name))

    def task_address(self, job_name, task_index):
        """The address of one task (ValueError for an unknown job or index)."""
        job = self._job(job_name)
        try:
            return job[task_index]
        except KeyError:
            raise ValueError(f"No task with index {task_index!r} in job {job_name!r}") from None

    def job_tasks(self, job_name):
        """The addresses of ``job_name``'s tasks by index, None where an index is missing."""
        job = self._job(job_name)
        result = [None] * (max(job) + 1)
        for i, address in job.items():
            result[i] = address
        return result


class _RoundRobinStrategy:
    """The ps task for each successive variable: 0, 1, ..., n-1, 0, ..."""

    def __init__(self, num_tasks):
        self._num_tasks = num_tasks
        self._next_task = 0

    def __call__(self, unused_op):
        task = self._next_task
        self._next_task = (self._next_task + 1) % self._num_tasks
        return task


class _ReplicaDeviceChooser:
    """The device function: ``ps_ops`` onto a ps task, everything else onto the worker,
    each merged with the device the op already has (its fields win)."""

    def __init__(self, ps_tasks, ps_device, worker_device, merge_devices, ps_ops, ps_strategy):
        self._ps_tasks = ps_tasks
        self._ps_device = ps_device
        self._worker_device = worker_device
        self._merge_devices = merge_devices
        self._ps_ops = ps_ops
        self._ps_strategy = ps_strategy

    def device_function(self, op):
        if not self._merge_devices and op.device:
            return op.device
        current = device_spec.DeviceSpec.from_string(op.device or "")
        op_type = op.op if isinstance(op, node_def_pb2.NodeDef) else op.type
        if self._ps_tasks and self._ps_device and op_type in self._ps_ops:
            ps_device = device_spec.DeviceSpec.from_string(self._ps_device)
            # The strategy picks the task only when the op's own job (if any) is the ps job.
            if ps_device.job and (not current.job or current.job == ps_device.job):
                ps_device = ps_device.replace(task=self._ps_strategy(op))
            return ps_device.make_merged_spec(current).to_string()
        worker_device = device_spec.DeviceSpec.from_string(self._worker_device or "")
        return worker_device.make_merged_spec(current).to_string()


@tf_export("train.replica_device_setter")
def replica_device_setter(
    ps_tasks=0,
    ps_device="/job:ps",
    worker_device="/job:worker",
    merge_devices=True,
    cluster=None,
    ps_ops=None,
    ps_strategy=None,
):
    """A device function for ``tf.device``: variables (``ps_ops``) go round-robin (or by
    ``ps_strategy(op) -> task``) onto ``ps_device``'s tasks, other ops onto
    ``worker_device``. With ``cluster``, the ps job's task count is ``ps_tasks``; None when
    there are no ps tasks (as TF, so ``tf.device(None)`` applies). The devices are recorded
    in the GraphDef as TF records them; the step still runs in this process."""
    if cluster is not None:
        table = (cluster if isinstance(cluster, ClusterSpec) else ClusterSpec(cluster)).as_dict()
        ps_job = device_spec.DeviceSpec.from_string(ps_device).job
        if ps_job not in table or table[ps_job] is None:
            return None
        ps_tasks = len(table[ps_job])
    if ps_tasks == 0:
        return None
    if ps_ops is None:
        ps_ops = list(STANDARD_PS_OPS)
    if not merge_devices:
        tf_logging.warning(
            "DEPRECATION: It is recommended to set merge_devices=true in replica_device_setter"
        )
    if ps_strategy is None:
        ps_strategy = _RoundRobinStrategy(ps_tasks)
    if not callable(ps_strategy):
        raise TypeError("ps_strategy must be callable")
    chooser = _ReplicaDeviceChooser(
        ps_tasks, ps_device, worker_device, merge_devices, ps_ops, ps_strategy
    )
    return chooser.device_function


@tf_export("train.Server")
class Server:
    """TF's in-process gRPC server: not available (there is no TF distributed runtime).
    Constructing one raises ``UnimplementedError``. To run on several hosts here, start the
    same program on each host with ``jax.distributed.initialize(coordinator_address,
    num_processes, process_id)``; XLA then runs the step across all hosts' devices."""

    _MESSAGE = (
        "tf.train.Server is not supported: this runtime has no gRPC parameter servers or "
        "workers. Run multi-host programs as one JAX process per host, started with "
        "jax.distributed.initialize(coordinator_address, num_processes, process_id)."
    )

    def __init__(
        self, server_or_cluster_def, job_name=None, task_index=None, protocol=None,
        config=None, start=True,
    ):  # fmt: skip
        raise errors.UnimplementedError(None, None, self._MESSAGE)

    @staticmethod
    def create_local_server(config=None, start=True):
        """Raises ``UnimplementedError``, as the constructor does."""
        raise errors.UnimplementedError(None, None, Server._MESSAGE)
