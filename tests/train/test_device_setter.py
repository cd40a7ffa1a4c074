"""tf.train.replica_device_setter and ClusterSpec against TF 2.21: the device recorded on
every node of the GraphDef (variables round-robin on ps tasks, the rest on the worker, merged
with explicit devices), ClusterSpec's accessors, equality and errors, and Server's error."""

import numpy as np
import pytest

import tfcompat
from tests.oracle import assert_parity, tf1
from tfcompat.framework import errors


def _devices(tf, program):
    """Node name -> recorded device, of the GraphDef ``program`` builds (TF cannot run
    it: there is no /job:ps here)."""
    graph = tf.Graph()
    with graph.as_default():
        program(tf)
    return {node.name: node.device for node in graph.as_graph_def().node}


def _assert_same_devices(program):
    ours, theirs = _devices(tfcompat, program), _devices(tf1(), program)
    assert ours == theirs
    return ours


def _model(tf, setter_kwargs):
    setter = tf.train.replica_device_setter(**setter_kwargs)
    with tf.device(setter):
        x = tf.placeholder(tf.float32, [None, 3], name="x")
        w = tf.get_variable("w", [3, 2])
        b = tf.get_variable("b", [2], initializer=tf.zeros_initializer())
        with tf.device("/device:GPU:1"):
            c = tf.Variable(np.float32(2.0), name="c")
        with tf.device("/job:other/task:3"):
            d = tf.Variable(np.float32(1.0), name="d")
        y = tf.matmul(x, w) + b * c + d
        loss = tf.reduce_sum(tf.square(y))
        # Updates are colocated with their variables (a ref input), so they take its device.
        update = tf.assign_add(w, tf.ones([3, 2]) * loss)
        update_c = c.assign(c * 2.0)
    return [update, update_c, loss]


@pytest.mark.parametrize(
    "kwargs",
    [
        dict(ps_tasks=2),
        dict(ps_tasks=3, worker_device="/job:worker/task:1/device:CPU:0"),
        dict(cluster={"ps": ["ps0:2222", "ps1:2222"], "worker": ["w0:2222"]}),
        dict(ps_tasks=2, ps_device="/job:ps/device:CPU:0", merge_devices=False),
        dict(ps_tasks=2, ps_device="", worker_device=""),
    ],
)
def test_graph_def_devices_match_tf(kwargs):
    devices = _assert_same_devices(lambda tf: _model(tf, kwargs))
    # The test can tell: variables are spread over ps tasks.
    assert devices["w"].startswith("/job:ps") or not kwargs.get("ps_device", "x")


def test_custom_strategy():
    def program(tf):
        calls = []

        def strategy(op):
            calls.append(op.name)
            return len(calls) % 2

        return _model(tf, dict(ps_tasks=2, ps_strategy=strategy))

    devices = _assert_same_devices(program)
    assert devices["w"] == "/job:ps/task:1"


def test_step_runs_with_a_local_device_function():
    """A setter placing variables on this process's own job: the step runs, as in TF."""

    def program(tf):
        setter = tf.train.replica_device_setter(
            ps_tasks=1, ps_device="/job:localhost", worker_device="/job:localhost"
        )
        with tf.device(setter):
            x = tf.constant([[1.0, 2.0, 3.0]])
            w = tf.Variable(np.ones([3, 2], np.float32), name="w")
            loss = tf.reduce_sum(tf.matmul(x, w))
            train = tf.train.GradientDescentOptimizer(0.1).minimize(loss)
            with tf.control_dependencies([train]):
                after = tf.identity(w.read_value())
        # Not ``loss``: TF may read a ref variable after the update in the same step.
        return [after]

    assert_parity(program)


def test_no_ps_tasks_returns_none():
    for tf in (tfcompat, tf1()):
        assert tf.train.replica_device_setter() is None
        assert tf.train.replica_device_setter(cluster={"worker": ["w:1"]}) is None
        with pytest.raises(TypeError, match="ps_strategy must be callable"):
            tf.train.replica_device_setter(ps_tasks=1, ps_strategy=3)


def test_device_function_on_node_def():
    from tfcompat.framework.proto import node_def_pb2

    setter = tfcompat.train.replica_device_setter(ps_tasks=2)
    node = node_def_pb2.NodeDef(name="v", op="VariableV2")
    assert [setter(node), setter(node), setter(node)] == [
        "/job:ps/task:0",
        "/job:ps/task:1",
        "/job:ps/task:0",
    ]


CLUSTERS = [
    {"ps": ["ps0:2222", "ps1:2222"], "worker": ["w0:2222", "w1:2222", "w2:2222"]},
    {"worker": {1: "w1:2222", 3: "w3:2222"}, "chief": ["c:1"]},
    {"empty": [], "worker": ("a:1",)},
]


@pytest.mark.parametrize("cluster", CLUSTERS)
def test_cluster_spec_matches_tf(cluster):
    ours, theirs = tfcompat.train.ClusterSpec(cluster), tf1().train.ClusterSpec(cluster)
    assert ours.jobs == theirs.jobs
    assert ours.as_dict() == theirs.as_dict()
    assert repr(ours) == repr(theirs)
    assert bool(ours) == bool(theirs)
    for job in theirs.jobs:
        assert ours.num_tasks(job) == theirs.num_tasks(job)
        assert ours.task_indices(job) == theirs.task_indices(job)
        if theirs.task_indices(job):
            assert ours.job_tasks(job) == theirs.job_tasks(job)
        for i in theirs.task_indices(job):
            assert ours.task_address(job, i) == theirs.task_address(job, i)
    assert ours == tfcompat.train.ClusterSpec(ours)
    assert ours == tfcompat.train.ClusterSpec(cluster)
    assert ours != tfcompat.train.ClusterSpec({"x": ["y"]})
    # the ClusterDef message, TF's bytes, and back
    cluster_def = ours.as_cluster_def()
    assert cluster_def.SerializeToString(deterministic=True) == (
        theirs.as_cluster_def().SerializeToString(deterministic=True)
    )
    assert tfcompat.train.ClusterSpec(cluster_def) == ours
    server = tfcompat.train.ServerDef(cluster=cluster_def, job_name=ours.jobs[-1], task_index=0)
    their_server = tf1().train.ServerDef(
        cluster=theirs.as_cluster_def(), job_name=theirs.jobs[-1], task_index=0
    )
    assert server.SerializeToString(deterministic=True) == their_server.SerializeToString(
        deterministic=True
    )


def _error(call, *args):
    with pytest.raises((TypeError, ValueError)) as info:
        call(*args)
    return type(info.value), str(info.value)


def test_cluster_spec_errors_match_tf():
    for make in (
        lambda tf: tf.train.ClusterSpec(["a"]),
        lambda tf: tf.train.ClusterSpec({"w": "a:1"}),
        lambda tf: tf.train.ClusterSpec({1: ["a:1"]}),
        lambda tf: tf.train.ClusterSpec({"w": [3]}),
        lambda tf: tf.train.ClusterSpec({"w": ["a"]}).num_tasks("ps"),
        lambda tf: tf.train.ClusterSpec({"w": ["a"]}).task_indices("ps"),
        lambda tf: tf.train.ClusterSpec({"w": ["a"]}).job_tasks("ps"),
        lambda tf: tf.train.ClusterSpec({"w": ["a"]}).task_address("w", 2),
        lambda tf: tf.train.ClusterSpec({"w": ["a"]}).task_address("x", 0),
    ):
        assert _error(make, tfcompat) == _error(make, tf1())


def test_server_raises_unimplemented():
    with pytest.raises(errors.UnimplementedError, match="jax.distributed.initialize"):
        tfcompat.train.Server({"worker": ["localhost:2222"]})
    with pytest.raises(errors.UnimplementedError):
        tfcompat.train.Server.create_local_server()
