"""Run-time twins in a host program: stateless ops that reuse an earlier op's outputs
because, in this run, they receive the same values.

``HostProgram`` (``lowering/interpreter.py``) already merges ops that are identical in the
graph (type, attrs, input tensors). Some are identical only at run time: ``linear_model``
reshapes a column's ids to ``[batch, -1]`` before the lookup chain that ``input_layer``
runs on the ids themselves, so the two chains (a dozen ops per column) are the same
computation only once that reshape, which keeps the shape, has forwarded its input (as
TF's ``SparseReshape`` kernel does).

Finding twins costs a key per op and run (type, attrs, and each input: small arrays by
value, others by identity), about what these small ops cost themselves. So each candidate
looks for twins during a few *learning runs*; then

* an op that met its twin every time, whose inputs are its twin's inputs or outputs of ops
  that met their twins (mapped to theirs), is *implied*: it copies its twin's outputs
  whenever those upstream ops met theirs in the run, with no key at all;
* the others that met a twin (the *heads* of the chains), and the ops they met, keep
  computing keys;
* every other op runs plainly.

Correctness never rests on the learning: a head compares keys every run, and an implied
op copies outputs only when every upstream op it relies on met its twin in this run,
otherwise it runs its kernel.
"""

from __future__ import annotations

import numpy as np

# Runs during which every candidate looks for twins.
LEARNING_RUNS = 3
# Arrays up to this many elements are compared by value (shape vectors, which each column's
# arithmetic builds anew); larger ones by identity.
VALUE_ELEMENTS = 16


def value_key(value):
    """What identifies ``value`` within one run: small arrays by value, others by
    identity."""
    if type(value) is np.ndarray:
        if value.size <= VALUE_ELEMENTS:
            return (value.dtype.str, value.shape, value.tobytes())
        return id(value)  # alive for the whole run: the run's ``env`` holds it
    if isinstance(value, np.generic):
        return (value.dtype.str, value.tobytes())
    return id(value)


class RunTable:
    """One run's record: the keys computed so far (key -> (outputs, the RunTwin that
    computed them)) and the tensors whose op met its twin."""

    __slots__ = ("keys", "met")

    def __init__(self):
        self.keys = {}
        self.met = set()


class RunTwin:
    """A candidate (while learning) or a head, or the op a head meets: looks up, or
    records, its key in the run's table."""

    def __init__(self, step, signature: int, run_plain):
        self.step = step  # the plain step (see HostProgram)
        self.signature = signature  # an int standing for (op type, attrs)
        self.run_plain = run_plain
        self.outputs = step[0].outputs
        self.met = 0  # learning runs in which it met a twin
        self.source = None  # the RunTwin it met (None if it met several)
        self.served = False  # met by a later op

    def run(self, env, ctx, table):
        args = [env[t] for t in self.step[2]]
        key = (self.signature, *map(value_key, args))
        found = table.keys.get(key)
        if found is not None:
            values, source = found
            env.update(zip(self.outputs, values))
            table.met.update(self.outputs)  # for implied ops downstream
            source.served = True
            self.source = source if self.met == 0 or self.source is source else None
            self.met += 1
            return
        self.run_plain(self.step, env, ctx)
        table.keys[key] = (tuple(env[t] for t in self.outputs), self)


class ImpliedTwin:
    """An op that copies its twin's outputs when the ops producing ``needs`` met theirs in
    this run (their outputs are then its twin's inputs), else runs its kernel."""

    def __init__(self, step, needs, sources, run_plain):
        self.step = step
        self.needs = tuple(needs)
        self.pairs = tuple(zip(step[0].outputs, sources))
        self.run_plain = run_plain

    def run(self, env, ctx, table):
        met = table.met
        if all(t in met for t in self.needs):
            for out, source in self.pairs:
                env[out] = env[source]
                met.add(out)
        else:
            self.run_plain(self.step, env, ctx)


def settle(steps, canonical, twin_marker):
    """The steps after learning (see the module docstring). ``canonical`` maps a tensor
    to the one HostProgram's static merging made it equal to; ``twin_marker`` is the rule
    slot of twin steps."""
    learned = {}  # RunTwin that met one twin every run -> that twin
    for step in steps:
        if step[1] is twin_marker and isinstance(step[2], RunTwin):
            twin = step[2]
            if twin.met == LEARNING_RUNS and twin.source is not None:
                learned[twin] = twin.source
    mapped = {}  # output of a learned op -> its twin's output

    def resolve(tensor, needs):
        """What ``tensor`` equals once the learned ops producing ``needs`` met theirs."""
        while True:
            tensor = canonical(tensor)
            if tensor not in mapped:
                return tensor
            needs.append(tensor)
            tensor = mapped[tensor]

    implied, heads = {}, set()
    for twin, source in learned.items():
        needs = []
        for mine, theirs in zip(twin.step[0].inputs, source.step[0].inputs):
            if resolve(mine, needs) != resolve(theirs, needs):
                needs = None
                break
        if needs:
            implied[twin] = ImpliedTwin(twin.step, needs, source.outputs, twin.run_plain)
        else:
            heads.update((twin, source))
        mapped.update(zip(twin.outputs, source.outputs))
    settled = []
    for step in steps:
        twin = step[2] if step[1] is twin_marker else None
        if twin is None:
            settled.append(step)
        elif twin in implied:
            settled.append(step[:2] + (implied[twin],) + step[3:])
        elif twin in heads:
            settled.append(step)
        else:
            settled.append(twin.step)
    return settled


def plain(step, twin_marker):
    """The plain step behind a twin step."""
    return step[2].step if step[1] is twin_marker else step
