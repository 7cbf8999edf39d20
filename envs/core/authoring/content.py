"""Shared helpers of every game's content compiler (TOML -> numpy tables).

* :class:`Ctx` carries where the compiler is (file, card) so every error
  names the file, the card and the field (:class:`ContentError`);
* ``read_int`` / ``read_str`` / ``read_bool`` / ``read_text`` / ``read_table``
  / ``read_list`` / ``check_fields`` / ``check_unique`` validate one field
  each (the entry itself must be a table; an integer without explicit
  bounds must still lie in ``[-INT_LIMIT, INT_LIMIT]``, so no number
  overflows a table);
* :class:`ContentCache` keeps compiled content by the digest of the files'
  bytes, so an edited folder is compiled (and validated) again;
* ``load_toml`` reads a file with a clear error for bad TOML;
  ``read_files`` reads a game's files (and checks their top-level keys);
* ``check_folder`` refuses a ``content`` argument that is not a path;
* ``tables_record`` packs a namedtuple of arrays into ONE structured numpy
  record: kernels receive ``record[0]``, which numba passes by reference
  (a namedtuple of dozens of arrays is copied into every call and made the
  first game compile 5x slower and run 30x slower);
* ``tables_digest`` hashes the tables (for layout versions of snapshots);
* :class:`CompiledContent` is the start of every game's compiled content
  (tables, their record, folder, digest), built by ``compiled``.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from typing import Any, NoReturn

import numpy as np

try:  # Python 3.11+
    import tomllib as _toml
except ModuleNotFoundError:  # pragma: no cover - Python 3.10
    import tomli as _toml

from ..errors import ContentError

#: the bound of an integer field that gives none (every table is int16 or wider)
INT_LIMIT = 999


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

    def err(self, field: str, msg: str) -> NoReturn:
        where = self.file
        if self.card is not None:
            where += f", {self.card}"
        raise ContentError(f"{where}, field '{field}': {msg}")


def check_folder(folder, default: str, name: str = "content"):
    """A content folder argument: ``None`` (``default``, the shipped data)
    or a path (``str`` / ``os.PathLike``); anything else raises a
    ``TypeError`` naming the argument (``name``)."""
    if folder is None:
        return default
    if not isinstance(folder, (str, os.PathLike)) or isinstance(folder, bytes):
        raise TypeError(
            f"{name} must be None (the shipped content) or the path of a content "
            f"folder (str or os.PathLike), got {type(folder).__name__} "
            f"{folder!r}"[:200]
        )
    path = os.fspath(folder)
    if isinstance(path, bytes) or not path:
        raise TypeError(f"{name} must be a non-empty str path, got {folder!r}"[:200])
    return path


def load_toml(folder, name):
    path = os.path.join(folder, name + ".toml")
    if not os.path.exists(path):
        raise ContentError(f"{name}.toml: file missing in {folder}")
    try:
        with open(path, "rb") as f:
            return _toml.load(f)
    except _toml.TOMLDecodeError as e:
        raise ContentError(f"{name}.toml: not valid TOML: {e}") from None
    except UnicodeDecodeError as e:
        raise ContentError(f"{name}.toml: not UTF-8 text: {e}") from None
    except OSError as e:
        raise ContentError(f"{name}.toml: cannot be read: {e}") from None


def read_files(folder, names, top_keys=None) -> dict:
    """Every file of ``names`` in ``folder`` (``load_toml``), by name, all
    read before any is checked; with ``top_keys`` (file name -> the keys
    its top level may hold), an unknown key raises naming the file and
    the key (files in the order of ``names``)."""
    raw = {name: load_toml(folder, name) for name in names}
    if top_keys is not None:
        for name in names:
            check_fields(Ctx(name), raw[name], top_keys[name])
    return raw


def _entry(ctx, d):
    if not isinstance(d, dict):
        ctx.err("(entry)", f"must be a table, got {type(d).__name__} {d!r}"[:200])


def read_int(ctx, d, key, default=None, lo=None, hi=None):
    """An integer field (``default`` None = required), within [lo, hi]
    (``[-INT_LIMIT, INT_LIMIT]`` where a bound is not given)."""
    _entry(ctx, d)
    lo = -INT_LIMIT if lo is None else lo
    hi = INT_LIMIT if hi is None else hi
    if key not in d:
        if default is None:
            ctx.err(key, "is required")
        return default
    v = d[key]
    if isinstance(v, bool) or not isinstance(v, int):
        ctx.err(key, f"must be an integer, got {v!r}")
    if v < lo:
        ctx.err(key, f"must be >= {lo}, got {v}")
    if v > hi:
        ctx.err(key, f"must be <= {hi}, got {v}")
    return v


def read_bool(ctx, d, key, default=False):
    """A true/false field (absent: ``default``)."""
    _entry(ctx, d)
    v = d.get(key, default)
    if not isinstance(v, bool):
        ctx.err(key, f"must be true or false, got {v!r}")
    return v


def read_text(ctx, d, key, default=""):
    """An optional free-text string field."""
    _entry(ctx, d)
    v = d.get(key, default)
    if not isinstance(v, str):
        ctx.err(key, f"must be a string, got {v!r}")
    return v


def check_unique(ctx, names, what):
    """Raise naming the first name that occurs twice."""
    seen = set()
    for n in names:
        if n in seen:
            ctx.card = None
            ctx.err("name", f"duplicate {what} name {n!r}")
        seen.add(n)


def read_str(ctx, d, key, choices=None, default=None):
    """A non-empty string field (``default`` None = required), one of
    ``choices`` if given."""
    _entry(ctx, d)
    if key not in d:
        if default is None:
            ctx.err(key, "is required")
        return default
    v = d[key]
    if not isinstance(v, str) or not v:
        ctx.err(key, f"must be a non-empty string, got {v!r}")
    if len(v) > 200:
        ctx.err(key, f"at most 200 characters, got {len(v)}")
    if choices is not None and v not in choices:
        ctx.err(key, f"must be one of {sorted(choices)}, got {v!r}")
    return v


def read_table(ctx, d, key):
    _entry(ctx, d)
    v = d.get(key)
    if not isinstance(v, dict):
        ctx.err(key, "must be a table")
    return v


def read_list(ctx, d, key, n=None):
    _entry(ctx, d)
    v = d.get(key)
    if not isinstance(v, list):
        ctx.err(key, "must be a list")
    if n is not None and len(v) != n:
        ctx.err(key, f"must have {n} entries, got {len(v)}")
    return v


def check_fields(ctx, d, allowed):
    _entry(ctx, d)
    for k in d:
        if k not in allowed:
            ctx.err(k, f"unknown field (allowed: {sorted(allowed)})")


def read_named(ctx, d, i, what, fields, names=None, label=None):
    """Entry ``i`` (0-based) of a list of ``what`` tables: it must be a
    table with no field outside ``fields``; returns its ``name``.
    ``ctx.entry`` names the entry for the errors, ``"<label> #<i + 1>"``
    until its name is read, ``"<label> '<name>'"`` after (``label``: default
    ``what``). ``names``: the names read before it (a repeated one raises);
    ``None``: names may repeat."""
    label = what if label is None else label
    ctx.entry = f"{label} #{i + 1}"
    if not isinstance(d, dict):
        ctx.err(what, "must be a table")
    check_fields(ctx, d, fields)
    name = read_str(ctx, d, "name")
    ctx.entry = f"{label} '{name}'"
    if names is not None and name in names:
        ctx.err("name", f"duplicate {what} name")
    return name


def tables_record(tables):
    """Pack a namedtuple of arrays / ints into a read-only 1-element
    structured array (see the module doc)."""
    fields: list[tuple] = []
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


def folder_digest(folder, names) -> str:
    """Hash of the bytes of ``names`` (``.toml`` files) in ``folder``;
    missing files hash as absent (the compiler then names them)."""
    h = hashlib.sha256()
    for name in names:
        path = os.path.join(folder, name + ".toml")
        h.update(name.encode())
        try:
            with open(path, "rb") as f:
                h.update(f.read())
        except OSError:
            h.update(b"\0missing")
    return h.hexdigest()


@dataclass
class CompiledContent:
    """What every game's compiled content holds first; a game's content
    class is a dataclass on this one that adds its names and texts."""

    tables: Any  #: the game's namedtuple of tables (Python side)
    record: np.ndarray  #: the same tables as ONE read-only structured record (kernels)
    folder: str  #: the content folder, absolute
    digest: str  #: ``tables_digest`` of the tables (layout versions of snapshots)

    @classmethod
    def compiled(cls, tables, folder: str, digest_of=None, **names):
        """The content of ``tables`` compiled from ``folder``: their record
        and digest (of ``digest_of`` when given: tables before derived
        ones were added) made here, the game's own fields in ``names``."""
        digest = tables_digest(tables if digest_of is None else digest_of)
        return cls(tables, tables_record(tables), folder, digest, **names)


class ContentCache:
    """Compiled content keyed by (folder, digest of the files' bytes): an
    unchanged folder is not compiled twice, an edited one always is."""

    def __init__(self, names, maxsize=16):
        self.names, self.maxsize, self._d = tuple(names), maxsize, {}

    def load(self, folder, default: str, build):
        """``build(folder)`` for ``folder`` (``default`` when None), made
        absolute, through the cache: a game's ``load_content``."""
        folder = os.path.abspath(check_folder(folder, default))
        return self.get(folder, build)

    def loader(self, default: str, build):
        """A game's ``load_content(folder=None)``: the content of
        ``folder`` (``default``, the shipped data, when None) compiled by
        ``build(folder)`` through this cache, so an edited folder is
        always compiled and validated again."""

        def load_content(folder=None):
            return self.load(folder, default, build)

        load_content.__doc__ = self.loader.__doc__
        return load_content

    def get(self, folder, build):
        key = (folder, folder_digest(folder, self.names))
        if key not in self._d:
            if len(self._d) >= self.maxsize:
                self._d.pop(next(iter(self._d)))
            self._d[key] = build(folder)
        return self._d[key]
