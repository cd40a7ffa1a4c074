"""Device strings in TensorFlow's canonical form (``/job:w/replica:0/task:1/device:GPU:0``).

Devices are recorded on ops so GraphDefs round-trip; placement itself is left to XLA.
Nested ``tf.device`` scopes merge field by field, inner fields winning, as in TF.
"""

from __future__ import annotations

_FIELDS = ("job", "replica", "task", "device")


def parse(spec: str) -> dict:
    """Splits a device string into ``{job, replica, task, device}``; ValueError if malformed."""
    fields = {}
    if not spec:
        return fields
    for part in spec.split("/"):
        if not part:
            continue
        pieces = part.split(":")
        key = pieces[0].lower()
        if len(pieces) == 2 and key in ("job", "replica", "task"):
            fields[key] = pieces[1]
        elif len(pieces) == 3 and key == "device":
            fields["device"] = f"{pieces[1].upper()}:{pieces[2]}"
        elif len(pieces) == 2 and key not in ("job", "replica", "task"):
            fields["device"] = f"{pieces[0].upper()}:{pieces[1]}"
        elif len(pieces) == 1 and key in ("cpu", "gpu", "tpu"):
            fields["device"] = f"{pieces[0].upper()}:*"
        else:
            raise ValueError(f"Unknown attribute: '{part}' in '{spec}'")
    return fields


def to_string(fields: dict) -> str:
    out = []
    for key in _FIELDS:
        if key in fields:
            value = fields[key]
            if key == "device" and value.endswith(":*"):
                out.append(f"/device:{value}")
            else:
                out.append(f"/{key}:{value}")
    return "".join(out)


def canonical(spec: str) -> str:
    return to_string(parse(spec))


def merge(outer: str, inner: str) -> str:
    """``inner`` layered over ``outer`` field by field."""
    fields = parse(outer)
    fields.update(parse(inner))
    return to_string(fields)
