"""``tf.errors``: TensorFlow's exception classes and status codes.

Run-time failures raise an ``OpError`` subclass carrying the offending op (when known) and
TensorFlow's canonical error code, so ``except tf.errors.InvalidArgumentError`` works as in TF.
"""

from __future__ import annotations

import contextlib

OK = 0
CANCELLED = 1
UNKNOWN = 2
INVALID_ARGUMENT = 3
DEADLINE_EXCEEDED = 4
NOT_FOUND = 5
ALREADY_EXISTS = 6
PERMISSION_DENIED = 7
RESOURCE_EXHAUSTED = 8
FAILED_PRECONDITION = 9
ABORTED = 10
OUT_OF_RANGE = 11
UNIMPLEMENTED = 12
INTERNAL = 13
UNAVAILABLE = 14
DATA_LOSS = 15
UNAUTHENTICATED = 16


class OpError(Exception):
    """A failure while running ops; ``op`` is the Operation involved (or None)."""

    def __init__(self, node_def, op, message, error_code=UNKNOWN, *args):
        super().__init__(message)
        self._node_def = node_def
        self._op = op
        self._message = message
        self._error_code = error_code

    @property
    def message(self) -> str:
        return self._message

    @property
    def op(self):
        return self._op

    @property
    def error_code(self) -> int:
        return self._error_code

    @property
    def node_def(self):
        if self._node_def is None and self._op is not None:
            return self._op.node_def
        return self._node_def

    def __str__(self):
        return self._message

    def __reduce__(self):
        return type(self), (self._node_def, None, self._message)


def _make(name, code, doc):
    def __init__(self, node_def, op, message, *args):
        OpError.__init__(self, node_def, op, message, code)

    return type(name, (OpError,), {"__init__": __init__, "__doc__": doc})


CancelledError = _make("CancelledError", CANCELLED, "An operation was cancelled.")
UnknownError = _make("UnknownError", UNKNOWN, "An unknown error.")
InvalidArgumentError = _make(
    "InvalidArgumentError", INVALID_ARGUMENT, "An op received an invalid argument."
)
DeadlineExceededError = _make(
    "DeadlineExceededError", DEADLINE_EXCEEDED, "A deadline expired before completion."
)
NotFoundError = _make("NotFoundError", NOT_FOUND, "A requested entity was not found.")
AlreadyExistsError = _make("AlreadyExistsError", ALREADY_EXISTS, "The entity already exists.")
PermissionDeniedError = _make(
    "PermissionDeniedError", PERMISSION_DENIED, "The caller may not run the operation."
)
UnauthenticatedError = _make(
    "UnauthenticatedError", UNAUTHENTICATED, "The request lacks valid credentials."
)
ResourceExhaustedError = _make("ResourceExhaustedError", RESOURCE_EXHAUSTED, "Out of resources.")
FailedPreconditionError = _make(
    "FailedPreconditionError",
    FAILED_PRECONDITION,
    "The system is not in a state to run the operation (e.g. an uninitialized variable).",
)
AbortedError = _make("AbortedError", ABORTED, "The operation was aborted.")
OutOfRangeError = _make("OutOfRangeError", OUT_OF_RANGE, "Iteration went past the valid range.")
UnimplementedError = _make(
    "UnimplementedError", UNIMPLEMENTED, "The operation is not implemented or supported."
)
InternalError = _make("InternalError", INTERNAL, "An internal invariant was broken.")
UnavailableError = _make("UnavailableError", UNAVAILABLE, "The runtime is unavailable.")
DataLossError = _make("DataLossError", DATA_LOSS, "Unrecoverable data loss or corruption.")

_CODE_TO_CLASS = {
    CANCELLED: CancelledError,
    UNKNOWN: UnknownError,
    INVALID_ARGUMENT: InvalidArgumentError,
    DEADLINE_EXCEEDED: DeadlineExceededError,
    NOT_FOUND: NotFoundError,
    ALREADY_EXISTS: AlreadyExistsError,
    PERMISSION_DENIED: PermissionDeniedError,
    UNAUTHENTICATED: UnauthenticatedError,
    RESOURCE_EXHAUSTED: ResourceExhaustedError,
    FAILED_PRECONDITION: FailedPreconditionError,
    ABORTED: AbortedError,
    OUT_OF_RANGE: OutOfRangeError,
    UNIMPLEMENTED: UnimplementedError,
    INTERNAL: InternalError,
    UNAVAILABLE: UnavailableError,
    DATA_LOSS: DataLossError,
}


def exception_type_from_error_code(error_code: int):
    return _CODE_TO_CLASS[error_code]


def error_code_from_exception_type(cls) -> int:
    for code, klass in _CODE_TO_CLASS.items():
        if klass is cls:
            return code
    return UNKNOWN


@contextlib.contextmanager
def raise_exception_on_not_ok_status():
    """TF1's status context: errors are raised where they happen here, so it only yields."""
    yield None
