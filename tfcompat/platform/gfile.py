"""``tf.gfile`` (TF1) on local files: TF's names (``GFile``, ``Exists``, ``MakeDirs``,
``Glob``...) over Python's file functions, with TF's ``NotFoundError`` for missing paths."""

from __future__ import annotations

import glob as _glob
import os
import shutil

from tfcompat.framework import errors
from tfcompat.util.tf_export import tf_export


@tf_export("gfile.GFile", "gfile.Open", "io.gfile.GFile")
class GFile:
    """A file object (``open``) with TF's ``NotFoundError`` for a missing file."""

    def __init__(self, name, mode="r"):
        self.name, self.mode = name, mode
        try:
            self._file = open(name, mode)  # noqa: SIM115 - closed by close / __exit__
        except FileNotFoundError:
            raise errors.NotFoundError(None, None, f"{name}; No such file or directory") from None

    def __getattr__(self, attr):
        return getattr(self._file, attr)

    def __iter__(self):
        return iter(self._file)

    def size(self):
        return os.path.getsize(self.name)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self._file.close()


tf_export("gfile.FastGFile")(GFile)


def _exported(*names):
    def decorate(fn):
        return tf_export(*(f"gfile.{n}" for n in names))(fn)

    return decorate


@_exported("Exists")
def exists(path):
    return os.path.exists(path)


@_exported("IsDirectory")
def is_directory(path):
    return os.path.isdir(path)


@_exported("MakeDirs")
def make_dirs(path):
    os.makedirs(path, exist_ok=True)


@_exported("MkDir")
def mkdir(path):
    try:
        os.mkdir(path)
    except FileExistsError:
        raise errors.AlreadyExistsError(None, None, f"{path}; File exists") from None


@_exported("ListDirectory")
def list_directory(path):
    if not os.path.isdir(path):
        raise errors.NotFoundError(None, None, f"Could not find directory {path}")
    return os.listdir(path)


@_exported("Glob")
def glob(pattern):
    return _glob.glob(pattern)


@_exported("Remove")
def remove(path):
    try:
        os.remove(path)
    except FileNotFoundError:
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory") from None


@_exported("DeleteRecursively")
def delete_recursively(path):
    if not os.path.exists(path):
        raise errors.NotFoundError(None, None, f"{path}; No such file or directory")
    shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)


@_exported("Rename")
def rename(oldname, newname, overwrite=False):
    if os.path.exists(newname) and not overwrite:
        raise errors.AlreadyExistsError(None, None, f"file already exists: {newname}")
    os.replace(oldname, newname)


@_exported("Copy")
def copy(oldpath, newpath, overwrite=False):
    if os.path.exists(newpath) and not overwrite:
        raise errors.AlreadyExistsError(None, None, f"file already exists: {newpath}")
    shutil.copyfile(oldpath, newpath)


@_exported("Walk")
def walk(top, in_order=True):
    yield from os.walk(top, topdown=in_order)
