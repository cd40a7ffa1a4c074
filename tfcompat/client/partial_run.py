"""``Session.partial_run``: one step fed and fetched in several calls, as TF1 runs it.

``partial_run_setup(fetches, feeds)`` declares every tensor a step will fetch and every
tensor it will feed; each ``partial_run(handle, fetches, feed_dict)`` then feeds some of
them and fetches what those feeds (and the earlier ones) determine, and each node of the
step runs at most once across the calls (a stateful op is not repeated by a later call).

A Session here compiles whole runs, not single nodes, so a call computes its fetches
together with the *frontier*: the tensors that later fetches need and the feeds so far
already determine (those whose consumers on the way to a later fetch wait for a feed not
given yet). The frontier's values are kept and fed to later calls in place of recomputing
them. Ops that later fetches need only through a control edge are left to the call that
runs their dependent.

TF's errors (``InvalidArgumentError`` naming the tensor) refuse a call and leave the
partial run as it was: a feed or fetch not declared at setup, a feed given twice, a fetch
the feeds so far do not determine. A call whose step fails ends the partial run, as does
fetching every declared tensor (the handle is then unknown: "Must run 'setup' before
performing partial runs!").
"""

from __future__ import annotations

import itertools

from tfcompat.framework import errors
from tfcompat.framework.tensor import Operation, Tensor

_handles = itertools.count()


class PartialRun:
    """The state of one partial run: what was declared, fed, fetched and computed."""

    def __init__(self, fetch_elements, feed_tensors, handle: str):
        self.fetches = list(fetch_elements)  # declared Tensors and Operations, in order
        self.feeds = set(feed_tensors)  # declared feed Tensors
        self.handle = handle
        self.fed = {}  # Tensor -> converted value, every feed so far
        self.computed = {}  # Tensor -> value of frontier tensors and fetches so far
        self.fetched = set()

    def known(self) -> dict:
        return {**self.computed, **self.fed}

    def blocked_ops(self) -> set:
        """Ops that depend, through data or control edges, on a declared feed not fed yet
        (without passing through a tensor whose value is already known)."""
        known = self.known()
        pending = [t for t in self.feeds if t not in known]
        blocked, seen = set(), set()
        while pending:
            tensor = pending.pop()
            if tensor in seen or tensor in known:
                continue
            seen.add(tensor)
            ops = list(tensor.consumers())
            if tensor in self.feeds:
                ops.append(tensor.op)  # the placeholder itself cannot run
            stack = ops
            while stack:
                op = stack.pop()
                if op in blocked:
                    continue
                blocked.add(op)
                pending.extend(t for t in op.outputs if t not in known)
                stack.extend(op._control_outputs)
        return blocked

    def missing_feed(self, tensor) -> Tensor:
        """The first declared feed not fed yet that ``tensor`` waits for (TF's errors name
        it), searching its inputs depth first."""
        known, seen, stack = self.known(), set(), [tensor]
        while stack:
            t = stack.pop()
            if t in seen or t in known:
                continue
            seen.add(t)
            if t in self.feeds:
                return t
            stack.extend(reversed(t.op.inputs))
        return tensor

    def frontier(self, remaining, blocked) -> list:
        """The tensors not known yet that the feeds so far determine and that some of
        ``remaining`` (declared fetches still to come, themselves blocked) reads through
        a blocked op."""
        known = self.known()
        frontier, seen = {}, set()
        stack = [e.op if isinstance(e, Tensor) else e for e in remaining]
        while stack:
            op = stack.pop()
            if op in seen:
                continue
            seen.add(op)
            for tensor in op.inputs:
                if tensor in known:
                    continue
                if tensor.op in blocked:
                    stack.append(tensor.op)
                else:
                    frontier[tensor] = None
            stack.extend(c for c in op.control_inputs if c in blocked)
        return list(frontier)


def setup(session, fetches, feeds) -> str:
    """Declares a partial run's fetches and feeds; returns its handle."""
    from tfcompat.client.session import _Fetches

    fetch_map = _Fetches(session.graph, fetches)
    feed_tensors = []
    for key in feeds or ():
        try:
            tensor = session.graph.as_graph_element(key, allow_tensor=True, allow_operation=False)
        except (TypeError, ValueError, KeyError) as e:
            raise TypeError(
                f"Cannot interpret feed_list key as Tensor: {e.args[0] if e.args else e}"
            ) from None
        feed_tensors.append(tensor)
    names = ",".join(t.name for t in feed_tensors)
    outputs = ",".join(e.name for e in fetch_map.elements)
    handle = f"{names}->{outputs}//{id(session)}/;{next(_handles)}"
    session._partial_runs[handle] = PartialRun(fetch_map.elements, feed_tensors, handle)
    return handle


def run(session, handle, fetches, feed_dict):
    """One call of the partial run ``handle``: feeds ``feed_dict``, returns ``fetches``."""
    from tfcompat.client.session import _Fetches

    state = session._partial_runs.get(handle)
    if state is None:
        raise errors.InvalidArgumentError(
            None, None, "Must run 'setup' before performing partial runs!"
        )
    fetch_map = _Fetches(session.graph, fetches)
    if fetch_map.targets:
        raise RuntimeError(
            "partial_run() requires empty `target_list`. Received: "
            f"target_list={list(fetch_map.targets)} (non-empty)"
        )
    values = _run(session, state, fetch_map, feed_dict)
    if all(e in state.fetched or isinstance(e, Operation) for e in state.fetches):
        del session._partial_runs[handle]
    return fetch_map.build(values)


def _refused(message):
    return errors.InvalidArgumentError(None, None, message)


def _run(session, state, fetch_map, feed_dict):
    feeds = session._convert_feeds(feed_dict) if feed_dict else {}
    for tensor in feeds:
        if tensor not in state.feeds:
            raise _refused(f"The feed {tensor.name} was not specified in partial_run_setup.")
        if tensor in state.fed:
            raise _refused(f"The feed {tensor.name} has already been fed.")
    for tensor in fetch_map.tensors:
        if tensor not in state.fetches:
            raise _refused(f"The fetch {tensor.name} was not specified in partial_run_setup.")
        if tensor in state.fetched:
            raise _refused(f"The fetch {tensor.name} has already been fetched.")
    before = dict(state.fed)
    state.fed.update(feeds)
    blocked = state.blocked_ops()
    for tensor in fetch_map.tensors:
        if tensor.op in blocked and tensor not in state.known():
            missing = state.missing_feed(tensor)
            state.fed = before  # a refused call feeds nothing, as in TF
            raise _refused(
                f"Fetch {missing.name} can't be computed from the feeds that have been fed so far."
            )
    remaining = [
        e
        for e in state.fetches
        if e not in state.fetched and e not in fetch_map.tensors and _op(e) in blocked
    ]
    # Declared ops run in the first call that can run them.
    targets = [
        e
        for e in state.fetches
        if isinstance(e, Operation) and e not in blocked and e not in state.fetched
    ]
    wanted = list(fetch_map.tensors) + [
        t for t in state.frontier(remaining, blocked) if t not in fetch_map.tensors
    ]
    known = state.known()
    to_compute = [t for t in wanted if t not in known]
    try:
        results = session.run(to_compute + targets, known) if to_compute or targets else []
    except Exception:
        del session._partial_runs[state.handle]  # a failed step ends the partial run, as in TF
        raise
    state.computed.update(zip(to_compute, results))
    state.fetched.update(fetch_map.tensors)
    state.fetched.update(targets)
    known = state.known()
    return [known[t] for t in fetch_map.elements]


def _op(element):
    return element.op if isinstance(element, Tensor) else element
