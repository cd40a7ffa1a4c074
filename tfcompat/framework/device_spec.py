"""Device strings in TensorFlow's canonical form (``/job:w/replica:0/task:1/device:GPU:0``).

Devices are recorded on ops so GraphDefs round-trip; placement itself is left to XLA.
``DeviceSpec`` is TF1's ``tf.DeviceSpec``: it parses the spellings TF accepts (``/cpu:0``,
``gpu``, ``/device:GPU:*``, ``/job:w/task:1``) with TF's errors, and nested ``tf.device``
scopes merge field by field, inner fields winning.
"""

from __future__ import annotations

from tfcompat.util.tf_export import tf_export

# Device types that may be written in the short form ``/gpu:0`` (any type is allowed in
# the long form ``/device:TYPE:0``).
_SHORT_FORM_TYPES = {"CPU", "GPU", "TPU", "EPU", "CUSTOM"}
_INT_FIELDS = ("replica", "task")


@tf_export("DeviceSpec")
class DeviceSpec:
    """A (possibly partial) device: job, replica, task, device type and index.

    ``None`` fields are unspecified; ``device_index`` None with a type means any (``*``).
    """

    __slots__ = ("job", "_replica", "_task", "_device_type", "device_index")

    def __init__(self, job=None, replica=None, task=None, device_type=None, device_index=None):
        self.job = None if job is None else str(job)
        self.replica = replica
        self.task = task
        self.device_type = device_type
        self.device_index = None if device_index is None else int(device_index)

    # Setters normalise as TF does: ints for replica/task, upper-case device types.
    @property
    def replica(self):
        return self._replica

    @replica.setter
    def replica(self, value):
        self._replica = None if value is None else int(value)

    @property
    def task(self):
        return self._task

    @task.setter
    def task(self, value):
        self._task = None if value is None else int(value)

    @property
    def device_type(self):
        return self._device_type

    @device_type.setter
    def device_type(self, value):
        self._device_type = None if value is None else str(value).upper()

    # -- parsing ------------------------------------------------------------------------------
    @classmethod
    def from_string(cls, spec: str) -> DeviceSpec:
        """Parses a device string; ValueError with TF's message when malformed."""
        return cls(**_parse_fields(spec))

    def parse_from_string(self, spec: str) -> DeviceSpec:
        """TF1: overwrites the fields named in ``spec``; returns self."""
        for key, value in _parse_fields(spec).items():
            setattr(self, key, value)
        return self

    def merge_from(self, other: DeviceSpec):
        """TF1: copies every field ``other`` specifies onto self."""
        for key in ("job", "replica", "task", "device_type"):
            value = getattr(other, key)
            if value is not None:
                setattr(self, key, value)
        if other.device_index is not None:
            self.device_index = other.device_index

    def make_merged_spec(self, other: DeviceSpec) -> DeviceSpec:
        """A new spec: ``other``'s fields over a copy of self."""
        merged = self.replace()
        merged.merge_from(other)
        return merged

    def replace(self, **kwargs) -> DeviceSpec:
        fields = {
            "job": self.job,
            "replica": self.replica,
            "task": self.task,
            "device_type": self.device_type,
            "device_index": self.device_index,
        }
        fields.update(kwargs)
        return DeviceSpec(**fields)

    # -- output -------------------------------------------------------------------------------
    def to_string(self) -> str:
        out = ""
        if self.job is not None:
            out += f"/job:{self.job}"
        if self.replica is not None:
            out += f"/replica:{self.replica}"
        if self.task is not None:
            out += f"/task:{self.task}"
        if self.device_type is not None:
            index = "*" if self.device_index is None else self.device_index
            out += f"/device:{self.device_type}:{index}"
        return out

    def __repr__(self):
        return (
            f"<DeviceSpec(job={self.job}, replica={self.replica}, task={self.task}, "
            f"device_type={self.device_type}, device_index={self.device_index})>"
        )

    def __eq__(self, other):
        return isinstance(other, DeviceSpec) and self.to_string() == other.to_string()

    def __hash__(self):
        return hash(self.to_string())


def _parse_fields(spec: str) -> dict:
    """``spec`` split into DeviceSpec keyword arguments (only the fields it names)."""
    fields = {}
    has_type = False
    for part in spec.split("/"):
        if not part:
            continue
        pieces = part.split(":")
        key = pieces[0]
        if len(pieces) == 2 and key == "job":
            fields["job"] = pieces[1]
            continue
        if len(pieces) == 2 and key in _INT_FIELDS:
            fields[key] = int(pieces[1])
            continue
        if len(pieces) in (1, 2) and key.upper() in _SHORT_FORM_TYPES:
            device_type, index = key, pieces[1] if len(pieces) == 2 else "*"
        elif len(pieces) == 3 and key == "device":
            device_type, index = pieces[1], pieces[2]
        else:
            raise ValueError(
                f"Unknown attribute '{key}' is encountered while parsing the device spec: '{spec}'."
            )
        if has_type:
            raise ValueError(
                f"Multiple device types are not allowed while parsing the device spec: {spec}."
            )
        has_type = True
        fields["device_type"] = device_type.upper()
        fields["device_index"] = None if index == "*" else int(index)
    return fields


def canonical(spec) -> str:
    """``spec`` (a string or DeviceSpec) in TF's canonical spelling."""
    if isinstance(spec, DeviceSpec):
        return spec.to_string()
    return DeviceSpec.from_string(spec).to_string()


def merge(outer, inner) -> str:
    """The canonical string of ``inner`` layered over ``outer`` field by field."""
    outer = outer if isinstance(outer, DeviceSpec) else DeviceSpec.from_string(outer or "")
    inner = inner if isinstance(inner, DeviceSpec) else DeviceSpec.from_string(inner or "")
    return outer.make_merged_spec(inner).to_string()
