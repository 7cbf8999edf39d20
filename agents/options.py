"""Declaring command-line options as dataclass fields.

The ``dungeonrl`` CLI (:mod:`dungeonrl.cli`), the training and demo commands
(:mod:`dungeonrl.agents.commands.train`, :mod:`dungeonrl.demo`) and the per-game
play command (:mod:`dungeonrl.play`) all declare their options with
:func:`option` and the value types below. They live here, below every one of
those modules and importing nothing of the package, so that the commands
never import the CLI that loads them. Every name stays importable from
:mod:`dungeonrl.options` and :mod:`dungeonrl.cli` too.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib
import os
from collections.abc import Callable, Sequence
from typing import Any

__all__ = [
    "option",
    "positive_int",
    "nonneg_int",
    "positive_float",
    "nonneg_float",
    "int_range",
    "seed_int",
    "SEED_MAX",
    "writable_file",
    "add_options",
    "copy_options",
    "core_options_class",
    "NO_SEED",
    "load_target",
    "AGENT_HELP",
    "add_game_and_agent",
]

#: what an ``--agent`` option takes, as the commands' help says it
AGENT_HELP = "heuristic, random, pretrained:NAME, module:attribute or a saved model"


def option(
    default: Any = None,
    help: str = "",
    *,
    flags: Sequence[str] | None = None,
    type: Callable | None = None,
    choices: Sequence | None = None,
    metavar: str | None = None,
    action: str | None = None,
    algos: Sequence[str] | None = None,
    requires: str | None = None,
    default_text: str | None = None,
) -> Any:
    """A dataclass field that is a command-line option.

    ``flags``: the option strings (default ``--field-name``); ``type``: the
    argparse type (default: the type of ``default``, else ``str``);
    ``action``: ``"store_true"`` (implied by a ``False`` default) or
    ``"append"``; ``algos``: the ``--algo`` values that read the option (it
    is refused with another); ``requires``: a destination that must be set
    for this option to mean something; ``default_text``: how ``--help``
    shows a default of ``None`` (otherwise the help says it)."""
    meta = {
        "help": help,
        "flags": tuple(flags) if flags else None,
        "type": type,
        "choices": tuple(choices) if choices is not None else None,
        "metavar": metavar,
        "action": action,
        "algos": tuple(algos) if algos else None,
        "requires": requires,
        "default_text": default_text,
    }
    return dataclasses.field(default=default, metadata=meta)


def positive_int(text: str) -> int:
    v = int(text)
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, not {v}")
    return v


def nonneg_int(text: str) -> int:
    v = int(text)
    if v < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, not {v}")
    return v


def positive_float(text: str) -> float:
    v = float(text)
    if not v > 0:
        raise argparse.ArgumentTypeError(f"must be > 0, not {text}")
    return v


def nonneg_float(text: str) -> float:
    v = float(text)
    if not v >= 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, not {text}")
    return v


#: the largest ``--seed`` of the command line: game i of a run plays seed + i, and
#: SB3 / NumPy's legacy seeding take 32 bits (the Python adapters take [0, 2**64))
SEED_MAX = 2**32 - 1


def int_range(lo: int, hi: int, hi_text: str = "") -> Callable[[str], int]:
    """An argparse type: an integer in ``[lo, hi]`` (the message says the
    range; ``hi_text``, e.g. ``"2**32 - 1"``, is shown before ``hi``)."""
    span = f"[{lo}, {hi_text} = {hi}]" if hi_text else f"[{lo}, {hi}]"

    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"must be an integer in {span}, not {text!r}"
            ) from None
        if not lo <= v <= hi:
            raise argparse.ArgumentTypeError(f"must be an integer in {span}, not {v}")
        return v

    parse.__name__ = f"int in [{lo}, {hi}]"
    return parse


#: an argparse type: a seed, an integer in ``[0, SEED_MAX]`` (SB3's legacy
#: seeding takes 32 bits; the Python adapters take ``[0, 2**64)``)
seed_int = int_range(0, SEED_MAX, "2**32 - 1")


def writable_file(text: str) -> str:
    """An argparse type: the path of a file this process may write (its
    folder exists; it is not a folder; an existing file is writable).
    Checked when the command line is read, before any work is done."""
    if not text:
        raise argparse.ArgumentTypeError("must be a file path, not an empty string")
    path = os.path.abspath(text)
    folder = os.path.dirname(path)
    if os.path.isdir(path):
        raise argparse.ArgumentTypeError(f"{text!r} is a folder, not a file")
    if not os.path.isdir(folder):
        raise argparse.ArgumentTypeError(f"{text!r}: the folder {folder!r} does not exist")
    if os.path.exists(path):
        if not os.access(path, os.W_OK):
            raise argparse.ArgumentTypeError(f"{text!r} exists and is not writable")
    elif not os.access(folder, os.W_OK | os.X_OK):
        raise argparse.ArgumentTypeError(f"{text!r}: the folder {folder!r} is not writable")
    return text


for _f, _n in (
    (positive_int, "int >= 1"),
    (nonneg_int, "int >= 0"),
    (positive_float, "number > 0"),
    (nonneg_float, "number >= 0"),
    (seed_int, "seed"),
    (writable_file, "file path"),
):
    _f.__name__ = _n  # argparse names the type in "invalid <name> value"


def _type_of(f: dataclasses.Field) -> Callable:
    meta = f.metadata
    if meta.get("type") is not None:
        return meta["type"]
    default = f.default if f.default is not dataclasses.MISSING else None
    if default is not None and not isinstance(default, bool):
        return type(default)
    ann = str(f.type)
    if "int" in ann:
        return int
    if "float" in ann:
        return float
    return str


def add_game_and_agent(parser: argparse.ArgumentParser, games: Sequence[str], model: str):
    """The positional ``game`` (one of ``games`` or an env id) and ``--agent``
    (default ``heuristic``; ``model`` ends its help) of a command that plays
    one agent."""
    parser.add_argument("game", help=f"game name or env id ({', '.join(games)})")
    parser.add_argument("--agent", default="heuristic", help=f"{AGENT_HELP} {model}")


def add_options(parser: argparse.ArgumentParser, cls, title: str | None = None):
    """Add the fields of the dataclass ``cls`` (declared with :func:`option`)
    to ``parser`` as one argument group; returns the group."""
    doc = (cls.__doc__ or "").strip().split("\n")[0]
    group = parser.add_argument_group(title or doc or cls.__name__)
    for f in dataclasses.fields(cls):
        meta = f.metadata
        if "help" not in meta:
            continue
        default = (
            f.default
            if f.default is not dataclasses.MISSING
            else f.default_factory()
            if f.default_factory is not dataclasses.MISSING
            else None
        )
        flags = meta.get("flags") or ("--" + f.name.replace("_", "-"),)
        kw: dict = {"dest": f.name, "default": default, "help": meta.get("help", "")}
        action = meta.get("action")
        if action is None and isinstance(default, bool):
            action = "store_false" if default else "store_true"
        if action in ("store_true", "store_false"):
            kw["action"] = action
        else:
            if action:
                kw["action"] = action
            kw["type"] = _type_of(f)
            if meta.get("choices") is not None:
                kw["choices"] = meta["choices"]
            if meta.get("metavar"):
                kw["metavar"] = meta["metavar"]
        act = group.add_argument(*flags, **kw)
        # argparse keeps no field for them; dungeonrl.cli reads them back (getattr)
        act.rules = {  # type: ignore[attr-defined]
            k: meta.get(k) for k in ("algos", "requires", "default_text")
        }
    return group


def copy_options(
    parser: argparse.ArgumentParser,
    source: argparse.ArgumentParser,
    skip: Sequence[str] = (),
    title: str | None = None,
):
    """Copy the options of another parser (its actions, shared) into
    ``parser``, leaving out help and the destinations in ``skip``."""
    group = parser.add_argument_group(title or source.description or "options")
    for act in source._actions:
        if isinstance(act, argparse._HelpAction) or act.dest in skip:
            continue
        group._add_action(act)
    return group


def core_options_class(
    core_options: Sequence[tuple[str, dict]],
    title: str = "configuration",
    seats: tuple[int, int] | None = None,
    defaults: dict | None = None,
):
    """The option dataclass of a game's core options (``GameHooks.core_options``:
    ``(flag, argparse keywords)`` pairs), for a command built from
    :func:`option` groups; a default is ``defaults[dest]`` if given, else
    ``None`` (the core's own default applies). ``seats``: ``(min, max)``,
    the range a ``num_players`` option is checked against when it is read
    (the spec's seat counts)."""
    fields = []
    defaults = defaults or {}
    for flag, kw in core_options:
        dest = kw.get("dest") or flag.lstrip("-").replace("-", "_")
        kind = kw.get("type")
        if dest == "num_players" and seats is not None:
            kind = int_range(*seats)
        text = kw.get("help", "")
        if defaults.get(dest) is not None:
            text += f" (this command's default: {defaults[dest]})"
        field = option(
            defaults.get(dest),
            text,
            flags=(flag,),
            type=kind,
            choices=kw.get("choices"),
            metavar=kw.get("metavar"),
        )
        fields.append((dest, Any, field))
    cls = dataclasses.make_dataclass("CoreOptions", fields)
    cls.__doc__ = title
    return cls


#: put in a leaf's option groups to leave ``--seed`` out (a command that draws nothing)
NO_SEED = "no --seed"


def load_target(target: str) -> Callable | None:
    """``"module:function"`` -> the function, or ``None`` if the module does
    not exist (an import error inside an existing module propagates)."""
    module, _, attr = target.partition(":")
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as e:
        if e.name is not None and (module == e.name or module.startswith(e.name + ".")):
            return None
        raise
    return getattr(mod, attr, None)
