"""``tf.Session``: owns variable state and runs lowered executables.

``run`` maps any nesting of fetches to graph elements, converts and checks feeds, finds or
builds the executable for (fetches, targets, fed tensors) and calls it. Jitting is per
executable; ``jax.jit`` itself keys its traces by feed shapes and dtypes, so a new batch size
compiles once and is cached from then on. ``Session(backend="reference")`` or the environment
variable ``TFCOMPAT_BACKEND=reference`` runs every op by its numpy reference kernel instead.
"""

from __future__ import annotations

import collections
import os
import threading

import numpy as np

from lowering.interpreter import VarRef as _VarRef
from tfcompat.client import partial_run as partial_run_lib
from tfcompat.framework import dtypes, errors
from tfcompat.framework import graph as graph_lib
from tfcompat.framework.tensor import Operation, Tensor

BACKENDS = ("xla", "reference")

# Fetchable composite types register here: type -> (to_elements(value), rebuild(values)).
_FETCH_HANDLERS: dict = {}
# Feedable composite types: type -> fn(key, value) -> [(Tensor, value), ...].
_FEED_HANDLERS: dict = {}


def register_session_run_conversion_functions(tensor_type, fetch_fn, feed_fn=None):
    """Lets composite values (SparseTensor, ...) be fetched and fed (TF's hook)."""
    _FETCH_HANDLERS[tensor_type] = fetch_fn
    if feed_fn is not None:
        _FEED_HANDLERS[tensor_type] = feed_fn


class _Fetches:
    """Flattens a fetch structure to unique graph elements and rebuilds results from them."""

    def __init__(self, graph, fetches):
        self.graph = graph
        self.elements = []  # unique Tensors and Operations
        self._index = {}
        self._rebuild = self._map(fetches)
        self.tensors = tuple(e for e in self.elements if isinstance(e, Tensor))
        self.targets = tuple(e for e in self.elements if isinstance(e, Operation))

    def _element(self, fetch):
        try:
            element = self.graph.as_graph_element(fetch, allow_tensor=True, allow_operation=True)
        except TypeError as e:
            raise TypeError(
                f'Argument `fetch` = {fetch} has invalid type "{type(fetch).__name__}" must '
                f"be a string or Tensor. ({e})"
            ) from None
        except (ValueError, KeyError) as e:
            message = e.args[0] if e.args else str(e)
            raise ValueError(
                f'Argument `fetch` = {fetch} cannot be interpreted as a Tensor. ("{message}")'
            ) from None
        if not self.graph.is_fetchable(element):
            raise errors.InvalidArgumentError(
                None, None, f"Operation {element.name!r} has been marked as not fetchable."
            )
        if element not in self._index:
            self._index[element] = len(self.elements)
            self.elements.append(element)
        return self._index[element]

    def _map(self, fetch):
        if fetch is None:
            raise TypeError('Argument `fetch` = None has invalid type "NoneType". Cannot be None')
        if isinstance(fetch, (Tensor, Operation, str)):
            index = self._element(fetch)
            return lambda values: values[index]
        for fetch_type, handler in _FETCH_HANDLERS.items():
            if isinstance(fetch, fetch_type):
                parts, rebuild = handler(fetch)
                mapped = [self._map(p) for p in parts]
                return lambda values: rebuild([m(values) for m in mapped])
        if isinstance(fetch, dict):
            keys = list(fetch)
            mapped = [self._map(fetch[k]) for k in keys]
            cls = type(fetch)

            def rebuild_dict(values):
                out = cls() if cls is not collections.defaultdict else cls(fetch.default_factory)
                for k, m in zip(keys, mapped):
                    out[k] = m(values)
                return out

            return rebuild_dict
        if isinstance(fetch, (list, tuple)):
            mapped = [self._map(f) for f in fetch]
            if isinstance(fetch, tuple) and hasattr(fetch, "_fields"):  # namedtuple
                return lambda values: type(fetch)(*[m(values) for m in mapped])
            cls = type(fetch)
            return lambda values: cls(m(values) for m in mapped)
        if hasattr(fetch, "_as_graph_element"):
            index = self._element(fetch)
            return lambda values: values[index]
        raise TypeError(
            f'Argument `fetch` = {fetch} has invalid type "{type(fetch).__name__}" must be a '
            f"string or Tensor. (Can not convert a {type(fetch).__name__} into a Tensor or "
            "Operation.)"
        )

    def build(self, values):
        return self._rebuild(values)


def _shape_accepts(dims, shape) -> bool:
    """Whether a value of ``shape`` may be fed to a tensor of static ``dims``."""
    if dims is None:
        return True
    if len(dims) != len(shape):
        return False
    for d, n in zip(dims, shape):
        if d is not None and d != n:
            return False
    return True


def _shape_str(shape):
    """TF1's spelling of a shape in messages: ``(?, 3)``."""
    return (
        "("
        + ", ".join("?" if d is None else str(d) for d in shape)
        + (",)" if len(shape) == 1 else ")")
    )


class BaseSession:
    """A Session over ``graph`` (the default graph if None)."""

    def __init__(self, target="", graph=None, config=None, backend=None):
        self._graph = graph if graph is not None else graph_lib.get_default_graph()
        self._target = target
        self._config = config
        backend = backend or os.environ.get("TFCOMPAT_BACKEND", "xla")
        if backend not in BACKENDS:
            raise ValueError(f"Unknown backend {backend!r}; expected one of {BACKENDS}")
        self._backend = backend
        self._state: dict = {}
        # Held by device steps and variable reads of host ops, so that threads may call
        # ``run`` at once (queue runners, a Supervisor's checkpoint thread, Hogwild loops).
        self._state_lock = threading.RLock()
        self._executables: dict = {}
        self._fetch_maps: dict = {}
        self._partial_runs: dict = {}  # handle -> partial_run.PartialRun
        self._run_counter = 0
        # Unseeded random ops draw from this, so each Session gives different values.
        self._rng_entropy = int.from_bytes(os.urandom(4), "little")
        self._closed = False
        self._default_contexts = []

    @property
    def graph(self):
        return self._graph

    @property
    def graph_def(self):
        return self._graph.as_graph_def()

    @property
    def sess_str(self):
        return self._target

    @property
    def backend(self) -> str:
        return self._backend

    def list_devices(self):
        import jax

        return [str(d) for d in jax.devices()]

    # -- lifecycle ------------------------------------------------------------------------
    def close(self):
        """Releases the variable state; later runs raise RuntimeError. Operations waiting
        on the Session's queues (in other threads) fail with CancelledError."""
        self._closed = True
        for resource in list(self._state.values()):
            cancel = getattr(resource, "cancel", None)
            if cancel is not None:
                cancel()
        self._state.clear()
        self._executables.clear()
        self._fetch_maps.clear()

    def __del__(self):
        try:
            self._state.clear()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    def as_default(self):
        """A context in which this session is the default for ``eval`` and ``run``."""
        return _DefaultSessionContext(self)

    def __enter__(self):
        ctx_graph = self._graph.as_default()
        ctx_session = self.as_default()
        ctx_graph.__enter__()
        ctx_session.__enter__()
        self._default_contexts.append((ctx_graph, ctx_session))
        return self

    def __exit__(self, exc_type, exc, tb):
        ctx_graph, ctx_session = self._default_contexts.pop()
        ctx_session.__exit__(exc_type, exc, tb)
        ctx_graph.__exit__(exc_type, exc, tb)
        self.close()
        return False

    # -- run ------------------------------------------------------------------------------
    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        """Computes ``fetches`` (any nesting of Tensors, Operations and names) with
        ``feed_dict`` substituted; returns numpy values in the same structure."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        fetch_map = self._fetch_map(fetches)
        feeds = self._convert_feeds(feed_dict) if feed_dict else {}
        executable = self._executable(fetch_map.tensors, fetch_map.targets, tuple(feeds))
        self._run_counter += 1
        traced = run_metadata is not None and options is not None and options.trace_level
        env = executable.run(
            self._state,
            feeds,
            self._run_counter,
            self._state_lock,
            run_metadata.step_stats if traced else None,
        )
        # A fetched feed comes back as the fed array itself (0-d stays an ndarray), as in TF.
        values = [feeds[e] if e in feeds else self._fetch_value(e, env) for e in fetch_map.elements]
        if run_metadata is not None and hasattr(run_metadata, "executable"):
            run_metadata.executable = executable
        return fetch_map.build(values)

    def _fetch_map(self, fetches):
        """The flattened fetch structure, cached for the common hashable forms (a Tensor, an
        Operation, a name, or a list/tuple of those) to keep per-run overhead low."""
        key = None
        if isinstance(fetches, (Tensor, Operation, str)):
            key = fetches
        elif type(fetches) in (list, tuple) and all(
            isinstance(f, (Tensor, Operation, str)) for f in fetches
        ):
            key = (type(fetches), *fetches)
        if key is not None:
            cached = self._fetch_maps.get(key)
            if cached is not None:
                return cached
        fetch_map = _Fetches(self._graph, fetches)
        if key is not None:
            self._fetch_maps[key] = fetch_map
        return fetch_map

    def _fetch_value(self, element, env):
        if isinstance(element, Operation):
            return None
        value = env[element]
        if isinstance(value, _VarRef):
            with self._state_lock:  # copied before another thread's step can donate it
                if value.name not in self._state:  # the variable fetched before its init
                    raise errors.FailedPreconditionError(
                        None,
                        element.op,
                        f"Attempting to use uninitialized value {value.name}\n\t "
                        f"[[{{{{node {element.op.name}}}}}]]",
                    )
                value = self._state[value.name]
                if element.dtype.base_dtype != dtypes.string:
                    value = np.array(value)  # a writable copy, as TF returns
                    return value[()] if value.ndim == 0 else value
        if element.dtype.base_dtype == dtypes.string:
            value = np.asarray(value, dtype=object)
            return value[()] if value.ndim == 0 else value
        value = np.array(value)  # a writable copy, as TF returns
        return value[()] if value.ndim == 0 else value  # scalars as numpy scalars, as TF

    def _executable(self, tensors, targets, feed_tensors):
        key = (tensors, targets, feed_tensors, self._graph._mutation_count)
        executable = self._executables.get(key)
        if executable is None:
            from lowering import compile as compile_lib
            from lowering import plan as plan_lib

            plan = plan_lib.build_plan(
                tensors, targets, feed_tensors, frozenset(compile_lib.RANDOM_OP_TYPES)
            )
            executable = compile_lib.Executable(plan, self._backend, self._rng_entropy)
            self._executables[key] = executable
        return executable

    def _convert_feeds(self, feed_dict):
        feeds = {}
        for key, value in feed_dict.items():
            for handler_type, handler in _FEED_HANDLERS.items():
                if isinstance(key, handler_type):
                    for tensor, sub in handler(key, value):
                        feeds[tensor] = self._convert_feed(tensor, sub)
                    break
            else:
                try:
                    tensor = self._graph.as_graph_element(
                        key, allow_tensor=True, allow_operation=False
                    )
                except (TypeError, ValueError, KeyError) as e:
                    raise TypeError(
                        f"Cannot interpret feed_dict key as Tensor: {e.args[0] if e.args else e}"
                    ) from None
                feeds[tensor] = self._convert_feed(tensor, value)
        return feeds

    def _convert_feed(self, tensor, value):
        if not self._graph.is_feedable(tensor):
            raise ValueError(f"Tensor {tensor.name} may not be fed.")
        if isinstance(value, Tensor):
            raise TypeError(
                "The value of a feed cannot be a tf.Tensor object. Acceptable feed values "
                "include Python scalars, strings, lists, numpy ndarrays, or TensorHandles. "
                f"For reference, the tensor object was {value} which was passed to the "
                f"argument `feed_dict` with key {tensor}."
            )
        dtype = tensor.dtype.base_dtype
        if dtype == dtypes.string:
            from tfcompat.framework import tensor_util

            try:
                array = tensor_util.to_numpy(value, dtypes.string)
            except TypeError:
                # TF's feed conversion fails in C++ on the first element that is no string.
                odd = [
                    v
                    for v in np.asarray(value, dtype=object).ravel().tolist()
                    if not isinstance(v, (bytes, str))
                ]
                if not odd:
                    raise
                raise errors.InternalError(
                    None, None, f"Unsupported object type {type(odd[0]).__name__}"
                ) from None
        else:
            np_dtype = dtype.as_numpy_dtype
            if isinstance(value, np.ndarray) and value.dtype == np_dtype:
                array = value
            else:
                if isinstance(value, int) and not isinstance(value, bool) and dtype.is_integer:
                    if not dtype.min <= value <= dtype.max:
                        raise TypeError(
                            f"Type of feed value {value} with type {type(value)} is not "
                            f"compatible with Tensor type {np_dtype}. Try explicitly setting "
                            "the type of the feed tensor to a larger type (e.g. int64)."
                        )
                try:
                    array = np.asarray(value, dtype=np_dtype)
                except (TypeError, ValueError) as e:
                    raise ValueError(
                        f"Cannot feed value {value!r} for Tensor {tensor.name}: {e}"
                    ) from None
        if not _shape_accepts(tensor.shape.as_tuple(), array.shape):
            raise ValueError(
                f"Cannot feed value of shape {_shape_str(array.shape)} for Tensor "
                f"{tensor.name}, which has shape {_shape_str(tensor.shape.as_list())}"
            )
        return array

    # -- partial runs and callables -------------------------------------------------------
    def partial_run_setup(self, fetches, feeds=None):
        """Declares a partial run: every tensor its calls will fetch and feed. Returns the
        handle ``partial_run`` takes (``tfcompat/client/partial_run.py``)."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        return partial_run_lib.setup(self, fetches, feeds)

    def partial_run(self, handle, fetches, feed_dict=None):
        """Feeds ``feed_dict`` into the partial run ``handle`` and returns ``fetches``,
        computing each node of the step at most once across the calls."""
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        return partial_run_lib.run(self, handle, fetches, feed_dict)

    def make_callable(self, fetches, feed_list=None, accept_options=False):
        """A function running ``fetches`` with positional feeds for ``feed_list``."""
        feed_list = list(feed_list or [])

        def call(*args, **kwargs):
            if len(args) != len(feed_list):
                raise TypeError(f"Expected {len(feed_list)} feeds, got {len(args)}")
            return self.run(fetches, dict(zip(feed_list, args)))

        return call


class Session(BaseSession):
    """``tf.Session(target='', graph=None, config=None)``, plus ``backend``."""


class InteractiveSession(BaseSession):
    """A Session that installs itself as the default session on construction."""

    def __init__(self, target="", graph=None, config=None, backend=None):
        super().__init__(target, graph, config, backend)
        self._default_session_ctx = self.as_default()
        self._default_session_ctx.__enter__()
        self._default_graph_ctx = self._graph.as_default()
        self._default_graph_ctx.__enter__()

    def close(self):
        if not self._closed:
            try:
                self._default_session_ctx.__exit__(None, None, None)
                self._default_graph_ctx.__exit__(None, None, None)
            except ValueError:
                pass
        super().close()


# ---------------------------------------------------------------------------------------------
# The default session
# ---------------------------------------------------------------------------------------------
_default_session_stack: list = []


class _DefaultSessionContext:
    def __init__(self, session):
        self._session = session

    def __enter__(self):
        _default_session_stack.append(self._session)
        return self._session

    def __exit__(self, *exc):
        if self._session in _default_session_stack:
            # Remove the innermost occurrence.
            idx = (
                len(_default_session_stack) - 1 - _default_session_stack[::-1].index(self._session)
            )
            del _default_session_stack[idx]
        return False


def get_default_session():
    """The innermost default session, or None."""
    return _default_session_stack[-1] if _default_session_stack else None


def _run_with_default(element, feed_dict, session, verb, method):
    """``Tensor.eval`` / ``Operation.run``: run in ``session`` or the default session, with
    TF's messages (``verb`` is "evaluate tensor" or "execute operation")."""
    kind = "tensor" if isinstance(element, Tensor) else "operation"
    if session is None:
        session = get_default_session()
        if session is None:
            as_default = (
                "`with sess.as_default()`" if kind == "tensor" else ("`with sess.as_default():`")
            )
            raise ValueError(
                f"Cannot {verb} using `{method}()`: No default session is registered. Use "
                f"{as_default} or pass an explicit session to `{method}(session=sess)`"
            )
        if session.graph is not element.graph:
            explicit = "`eval(session=sess)`" if kind == "tensor" else "run(session=sess)"
            raise ValueError(
                f"Cannot use the default session to {verb}: the {kind}'s graph is different "
                f"from the session's graph. Pass an explicit session to {explicit}."
            )
    elif session.graph is not element.graph:
        raise ValueError(
            f"Cannot use the given session to {verb}: the {kind}'s graph is different from "
            "the session's graph."
        )
    return session.run(element, feed_dict)
