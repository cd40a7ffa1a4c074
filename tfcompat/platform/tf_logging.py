"""``tf.logging`` (TF1): levels and functions over Python's ``logging``, on the logger
TF uses (``tensorflow``), so handlers and levels set for TF apply here too."""

from __future__ import annotations

import logging
import sys

from tfcompat.util.tf_export import export_constant, tf_export

DEBUG, INFO, WARN, ERROR, FATAL = (
    logging.DEBUG,
    logging.INFO,
    logging.WARN,
    logging.ERROR,
    logging.FATAL,
)
for _name, _level in (("DEBUG", DEBUG), ("INFO", INFO), ("WARN", WARN), ("ERROR", ERROR)):
    export_constant(_level, f"logging.{_name}")
export_constant(FATAL, "logging.FATAL")

_counts: dict = {}


@tf_export("logging.get_logger", "get_logger")
def get_logger():
    """The ``tensorflow`` logger (a stderr handler added once, as TF's)."""
    logger = logging.getLogger("tensorflow")
    if not logger.handlers and not logging.getLogger().handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(logging.Formatter("%(levelname)s:%(name)s:%(message)s"))
        logger.addHandler(handler)
    return logger


@tf_export("logging.log")
def log(level, msg, *args, **kwargs):
    get_logger().log(level, msg, *args, **kwargs)


@tf_export("logging.debug")
def debug(msg, *args, **kwargs):
    log(DEBUG, msg, *args, **kwargs)


@tf_export("logging.info")
def info(msg, *args, **kwargs):
    log(INFO, msg, *args, **kwargs)


@tf_export("logging.warning", "logging.warn")
def warning(msg, *args, **kwargs):
    log(WARN, msg, *args, **kwargs)


@tf_export("logging.error")
def error(msg, *args, **kwargs):
    log(ERROR, msg, *args, **kwargs)


@tf_export("logging.fatal")
def fatal(msg, *args, **kwargs):
    log(FATAL, msg, *args, **kwargs)


def _caller_key():
    frame = sys._getframe(2)
    return frame.f_code.co_filename, frame.f_lineno


@tf_export("logging.log_every_n")
def log_every_n(level, msg, n, *args):
    """Logs on the first call from this line and every ``n``-th after."""
    key = _caller_key()
    count = _counts.get(key, 0)
    _counts[key] = count + 1
    if count % n == 0:
        log(level, msg, *args)


@tf_export("logging.log_first_n")
def log_first_n(level, msg, n, *args):
    """Logs the first ``n`` calls from this line."""
    key = _caller_key()
    count = _counts.get(key, 0)
    _counts[key] = count + 1
    if count < n:
        log(level, msg, *args)


@tf_export("logging.log_if")
def log_if(level, msg, condition, *args):
    if condition:
        log(level, msg, *args)


@tf_export("logging.vlog")
def vlog(level, msg, *args, **kwargs):
    get_logger().log(level, msg, *args, **kwargs)


@tf_export("logging.set_verbosity")
def set_verbosity(v):
    get_logger().setLevel(v)


@tf_export("logging.get_verbosity")
def get_verbosity():
    return get_logger().getEffectiveLevel()


@tf_export("logging.flush")
def flush():
    for handler in get_logger().handlers:
        handler.flush()


@tf_export("logging.TaskLevelStatusMessage")
def TaskLevelStatusMessage(msg):  # noqa: N802 - TF's name
    error(msg)
