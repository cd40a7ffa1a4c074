"""tf.ConfigProto, GPUOptions, GraphOptions, OptimizerOptions, RewriterConfig, RunOptions and
RunMetadata: protobuf messages with TF's fields and wire format, and traced runs."""

from __future__ import annotations

import glob

import numpy as np
import pytest

import tfcompat
from tests.oracle import tf1
from tfcompat.framework.proto import config_pb2, step_stats_pb2


def _tf_message(name):
    from tensorflow.core.framework import allocation_description_pb2, tensor_description_pb2
    from tensorflow.core.framework import step_stats_pb2 as tf_step_stats
    from tensorflow.core.protobuf import (
        cluster_pb2,
        config_pb2,
        rewriter_config_pb2,
        rpc_options_pb2,
        tensorflow_server_pb2,
    )

    modules = (
        config_pb2, tf_step_stats, rewriter_config_pb2, cluster_pb2, rpc_options_pb2,
        allocation_description_pb2, tensor_description_pb2, tensorflow_server_pb2,
    )  # fmt: skip
    for module in modules:
        message = module
        try:
            for part in name.split("."):
                message = getattr(message, part)
            return message
        except AttributeError:
            continue
    raise AssertionError(f"TF has no message {name}")


def _messages(descriptor, prefix=""):
    name = prefix + descriptor.name
    yield name, descriptor
    for nested in descriptor.nested_types:
        if not nested.GetOptions().map_entry:
            yield from _messages(nested, name + ".")


OURS = [
    d
    for module in (config_pb2, step_stats_pb2)
    for top in module.DESCRIPTOR.message_types_by_name.values()
    for d in _messages(top)
]


@pytest.mark.parametrize("name,ours", OURS, ids=[n for n, _ in OURS])
def test_fields_and_enums_are_tfs(name, ours):
    theirs = _tf_message(name).DESCRIPTOR
    for field in ours.fields:
        their = theirs.fields_by_name[field.name]
        assert (field.number, field.type, field.is_repeated) == (
            their.number,
            their.type,
            their.is_repeated,
        ), field.name
    for enum in ours.enum_types:
        values = {v.name: v.number for v in enum.values}
        assert values == {v.name: v.number for v in theirs.enum_types_by_name[enum.name].values}


def _configure(tf):
    config = tf.ConfigProto(
        device_count={"GPU": 0},
        intra_op_parallelism_threads=2,
        allow_soft_placement=True,
        gpu_options=tf.GPUOptions(per_process_gpu_memory_fraction=0.5),
    )
    config.gpu_options.allow_growth = True
    config.graph_options.optimizer_options.global_jit_level = tf.OptimizerOptions.ON_1
    config.graph_options.rewrite_options.memory_optimization = 1  # NO_MEM_OPT
    config.experimental.disable_output_partition_graphs = True
    return config


def test_tf1_configuration_idioms_serialize_as_tf():
    ours, theirs = _configure(tfcompat), _configure(tf1())
    assert ours.SerializeToString(deterministic=True) == theirs.SerializeToString(
        deterministic=True
    )
    parsed = tfcompat.ConfigProto.FromString(theirs.SerializeToString())
    assert parsed.graph_options.optimizer_options.global_jit_level == 1
    assert str(parsed) == str(theirs)
    options = tfcompat.RunOptions(trace_level=tfcompat.RunOptions.FULL_TRACE)
    assert options.SerializeToString() == tf1().RunOptions(trace_level=3).SerializeToString()
    with tfcompat.Session(config=ours) as sess:
        assert sess.run(tfcompat.constant(2.0)) == 2.0


def test_traced_run_fills_step_stats_and_the_events_file_holds_it(tmp_path):
    words = tfcompat.placeholder(tfcompat.string, [None])
    ids = tfcompat.strings.to_hash_bucket_fast(words, 10)
    total = tfcompat.reduce_sum(tfcompat.gather(tfcompat.ones([10, 2]), ids))
    metadata = tfcompat.RunMetadata()
    options = tfcompat.RunOptions(trace_level=tfcompat.RunOptions.FULL_TRACE)
    with tfcompat.Session() as sess:
        assert sess.run(total, {words: ["a", "b"]}, options, metadata) == 4.0
        plain = tfcompat.RunMetadata()
        sess.run(total, {words: ["a"]}, run_metadata=plain)  # no trace asked: nothing
    assert not plain.HasField("step_stats")
    stats = [n for d in metadata.step_stats.dev_stats for n in d.node_stats]
    assert [n.node_name for n in stats] == ["host_segment_0", "device_segment_1"]
    assert all(n.all_end_rel_micros >= 0 and n.all_start_micros > 0 for n in stats)
    assert "StringToHashBucketFast" in stats[0].timeline_label

    writer = tfcompat.summary.FileWriter(str(tmp_path))
    writer.add_run_metadata(metadata, "step1", global_step=1)
    with pytest.raises(ValueError, match="tag was already used"):
        writer.add_run_metadata(metadata, "step1")
    writer.close()
    (events,) = glob.glob(str(tmp_path / "events*"))
    tagged = [e for e in tf1().train.summary_iterator(events) if e.HasField("tagged_run_metadata")]
    assert [(e.step, e.tagged_run_metadata.tag) for e in tagged] == [(1, "step1")]
    theirs = tf1().RunMetadata.FromString(tagged[0].tagged_run_metadata.run_metadata)
    assert [n.node_name for d in theirs.step_stats.dev_stats for n in d.node_stats] == [
        "host_segment_0",
        "device_segment_1",
    ]


def test_run_metadata_keeps_the_executable_and_protobuf_methods():
    x = tfcompat.placeholder(tfcompat.float32, [None])
    y = x * 2.0
    metadata = tfcompat.RunMetadata()
    with tfcompat.Session() as sess:
        np.testing.assert_array_equal(sess.run(y, {x: [1.0]}, run_metadata=metadata), [2.0])
    assert metadata.executable is not None
    copy = tfcompat.RunMetadata()
    copy.CopyFrom(metadata)
    assert copy == metadata and copy.ByteSize() == metadata.ByteSize()
    assert tfcompat.RunMetadata.FromString(metadata.SerializeToString()) == metadata
