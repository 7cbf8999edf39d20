"""Lazy exports of a game package (PEP 562 module ``__getattr__``).

A game's ``__init__`` names what it exports and the submodule that defines
each name; nothing is imported until a name is first read. So importing one
of the game's own modules (``consts``, ``state``, or its encoder, which
imports ``consts``) does not pull in the core, the generated kernels and the
content: no import cycle through the encoder, and no work for a package that
is only looked at. ``SPEC`` is ``make_spec()`` of the game's ``core``,
built on first read; ``kernels`` is the game's generated kernel module
(``from dungeonrl.envs.<game> import kernels``), written on first read if
it is missing (:func:`.kernel.freshness.load_kernels`).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable


def game_exports(package: str, *core_names: str) -> tuple:
    """``(__getattr__, __all__)`` of a game package exporting ``SPEC``,
    ``make_core``, ``make_spec``, ``load_content`` (from its ``content``) and
    ``core_names`` (from its ``core``: the core class and the like)."""
    names = {n: ".core" for n in (*core_names, "make_core", "make_spec")}
    names["load_content"] = ".content"
    return lazy_exports(package, names), ["SPEC", *names]


def lazy_exports(package: str, names: dict) -> Callable[[str], object]:
    """The ``__getattr__`` of ``package``: ``names`` maps each exported
    attribute to the relative module that defines it (``".core"``); a value
    is cached on the package after its first read."""

    def __getattr__(name: str):
        if name == "SPEC":
            value = importlib.import_module(".core", package).make_spec()
        elif name == "kernels":  # generated, written on first use (not in __all__)
            from .kernel.freshness import load_kernels

            value = load_kernels(package.rpartition(".")[2])
        elif name in names:
            value = getattr(importlib.import_module(names[name], package), name)
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
