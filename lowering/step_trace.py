"""What a traced ``Session.run`` (``RunOptions.trace_level`` set, a ``RunMetadata``
given) records in ``RunMetadata.step_stats``.

TF's executor times every node; a step here runs as a few segments (host programs and
jitted device steps), so each segment is one ``NodeExecStats``, timed from its start to
the moment its outputs are ready (a traced run waits for each device step), under the
device that ran it. Its ``timeline_label`` counts the segment's ops and names their most
frequent types.
"""

from __future__ import annotations

import collections
import time

HOST_DEVICE = "/job:localhost/replica:0/task:0/device:CPU:0"


def _device_name(backend: str) -> str:
    if backend != "xla":
        return HOST_DEVICE
    import jax

    platform = jax.default_backend().upper()
    return f"/job:localhost/replica:0/task:0/device:{'CPU' if platform == 'CPU' else platform}:0"


class StepTracer:
    """Appends one ``NodeExecStats`` per segment run to a ``StepStats`` message."""

    def __init__(self, step_stats, backend: str):
        self.step_stats = step_stats
        self.backend = backend
        self.index = 0
        self._start = 0
        self._devices = {}

    def _device_stats(self, name):
        stats = self._devices.get(name)
        if stats is None:
            stats = next((d for d in self.step_stats.dev_stats if d.device == name), None)
            if stats is None:
                stats = self.step_stats.dev_stats.add(device=name)
            self._devices[name] = stats
        return stats

    def start(self):
        self._start = time.time_ns()

    def done(self, segment, env):
        if segment.kind == "device":
            import jax

            jax.block_until_ready([env[t] for t in segment.outputs if t in env])
        end = time.time_ns()
        device = _device_name(self.backend) if segment.kind == "device" else HOST_DEVICE
        kinds = collections.Counter(op.type for op in segment.ops).most_common(3)
        label = ", ".join(f"{n} {t}" for t, n in kinds)
        elapsed = end - self._start
        name = f"{segment.kind}_segment_{self.index}"
        # TF's label form, "<node> = <Op>(<inputs>)", which timeline tools parse
        op_type = "HostSegment" if segment.kind == "host" else "DeviceSegment"
        self._device_stats(device).node_stats.add(
            node_name=name,
            timeline_label=f"{name} = {op_type}({len(segment.ops)} ops: {label})",
            all_start_micros=self._start // 1000,
            all_start_nanos=self._start,
            op_start_rel_micros=0,
            op_end_rel_micros=elapsed // 1000,
            all_end_rel_micros=elapsed // 1000,
            op_end_rel_nanos=elapsed,
            all_end_rel_nanos=elapsed,
        )
        self.index += 1


def chrome_trace(step_stats, show_dataflow=True, show_memory=False) -> str:
    """``step_stats`` in the Chrome trace format (``chrome://tracing``, Perfetto), as TF's
    ``Timeline.generate_chrome_trace_format`` writes it: a process per device, a complete
    event per node named after its op, with the node's name and op in ``args``.
    ``show_dataflow`` / ``show_memory`` are accepted: segments exchange no tensor records
    to draw flows or memory from."""
    import json
    import re

    del show_dataflow, show_memory
    events = []
    for pid, device in enumerate(step_stats.dev_stats):
        events.append(
            {
                "name": "process_name",
                "ph": "M",
                "pid": pid,
                "args": {"name": f"{device.device} Compute"},
            }
        )
        events.append(
            {"name": "process_sort_index", "ph": "M", "pid": pid, "args": {"sort_index": pid}}
        )
        for node in device.node_stats:
            match = re.match(r"(.*) = (.*)\((.*)\)", node.timeline_label)
            op = match.group(2) if match else "unknown"
            events.append(
                {
                    "ph": "X",
                    "cat": "Op",
                    "name": op,
                    "pid": pid,
                    "tid": node.thread_id,
                    "ts": node.all_start_micros,
                    "dur": node.all_end_rel_micros,
                    "args": {"name": node.node_name, "op": op},
                }
            )
    return json.dumps({"traceEvents": events}, indent=4)
