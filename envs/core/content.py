"""Shared helpers of every game's content compiler (TOML -> numpy tables).

* :class:`Ctx` carries where the compiler is (file, card) so every error
  names the file, the card and the field (:class:`ContentError`);
* ``read_int`` / ``read_str`` / ``read_table`` / ``read_list`` /
  ``check_fields`` validate one field each;
* ``load_toml`` reads a file with a clear error for bad TOML;
* ``tables_record`` packs a namedtuple of arrays into ONE structured numpy
  record: kernels receive ``record[0]``, which numba passes by reference
  (a namedtuple of dozens of arrays is copied into every call and made the
  first game compile 5x slower and run 30x slower);
* ``tables_digest`` hashes the tables (for layout versions of snapshots).
"""
from __future__ import annotations

import hashlib
import os

import numpy as np

try:  # Python 3.11+
    import tomllib as _toml
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as _toml

from .errors import ContentError


class Ctx:
    """Error context: the file being read and the card (entry) in it."""

    def __init__(self, file):
        self.file = file if file.endswith(".toml") else file + ".toml"
        self.card = None

    @property
    def entry(self):  # the name some compilers use
        return self.card

    @entry.setter
    def entry(self, v):
        self.card = v

    def err(self, field, msg):
        where = self.file
        if self.card is not None:
            where += f", {self.card}"
        raise ContentError(f"{where}, field '{field}': {msg}")


def load_toml(folder, name):
    path = os.path.join(folder, name + ".toml")
    if not os.path.exists(path):
        raise ContentError(f"{name}.toml: file missing in {folder}")
    try:
        with open(path, "rb") as f:
            return _toml.load(f)
    except _toml.TOMLDecodeError as e:
        raise ContentError(f"{name}.toml: not valid TOML: {e}") from None


def read_int(ctx, d, key, default=None, lo=None, hi=None):
    """An integer field (``default`` None = required), within [lo, hi]."""
    if key not in d:
        if default is None:
            ctx.err(key, "is required")
        return default
    v = d[key]
    if isinstance(v, bool) or not isinstance(v, int):
        ctx.err(key, f"must be an integer, got {v!r}")
    if lo is not None and v < lo:
        ctx.err(key, f"must be >= {lo}, got {v}")
    if hi is not None and v > hi:
        ctx.err(key, f"must be <= {hi}, got {v}")
    return v


def read_str(ctx, d, key, choices=None, default=None):
    """A non-empty string field (``default`` None = required), one of
    ``choices`` if given."""
    if key not in d:
        if default is None:
            ctx.err(key, "is required")
        return default
    v = d[key]
    if not isinstance(v, str) or not v:
        ctx.err(key, f"must be a non-empty string, got {v!r}")
    if choices is not None and v not in choices:
        ctx.err(key, f"must be one of {sorted(choices)}, got {v!r}")
    return v


def read_table(ctx, d, key):
    v = d.get(key)
    if not isinstance(v, dict):
        ctx.err(key, "must be a table")
    return v


def read_list(ctx, d, key, n=None):
    v = d.get(key)
    if not isinstance(v, list):
        ctx.err(key, "must be a list")
    if n is not None and len(v) != n:
        ctx.err(key, f"must have {n} entries, got {len(v)}")
    return v


def check_fields(ctx, d, allowed):
    for k in d:
        if k not in allowed:
            ctx.err(k, f"unknown field (allowed: {sorted(allowed)})")


def tables_record(tables):
    """Pack a namedtuple of arrays / ints into a read-only 1-element
    structured array (see the module doc)."""
    fields = []
    for k in tables._fields:
        v = getattr(tables, k)
        if isinstance(v, (int, np.integer)):
            fields.append((k, np.int64))
        else:
            fields.append((k, v.dtype, v.shape))
    rec = np.zeros(1, dtype=np.dtype(fields, align=True))
    for k in tables._fields:
        rec[0][k] = getattr(tables, k)
    rec.flags.writeable = False
    return rec


def tables_digest(tables):
    """A short hash of every table's name, dtype, shape and bytes."""
    h = hashlib.sha256()
    for k in tables._fields:
        a = np.asarray(getattr(tables, k))
        h.update(k.encode())
        h.update(str(a.dtype).encode())
        h.update(str(a.shape).encode())
        h.update(a.tobytes())
    return h.hexdigest()[:16]
