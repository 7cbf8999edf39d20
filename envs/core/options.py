"""A core's arguments and reset options, parsed once for every game.

* :func:`name_arg`: a name of a fixed list (exact spelling) or its index,
  with optional words for special values (``"draft"`` -> -1);
* :class:`ConfigOption`, :func:`config_option`, :func:`reset_with_config`:
  a reset option that sets a game up under another config vector (a
  campaign sheet): checked whole by the core before any adapter resets
  anything, then applied by resetting the rows again under that config, the
  first record checked by the game's own rules; :class:`ConfigResetOptions`,
  such options declared as data on a core (``config_options``);
* :func:`check_config_fields`: a record made under another configuration
  than the core's is refused with a ``SnapshotError`` naming the field and
  both values in words (:func:`value_word`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from .batch import core_batch
from .errors import CorruptStateError, SnapshotError

__all__ = [
    "name_arg",
    "ConfigOption",
    "config_option",
    "reset_with_config",
    "ConfigResetOptions",
    "value_word",
    "check_config_fields",
]


def name_arg(value, names: Sequence[str], what: str, words: Mapping | None = None) -> int:
    """The index of ``value`` in ``names``: a name spelled exactly, or an
    index (not a bool); ``words``: special values (a word, or ``None``, ->
    its int). Else ``ValueError`` naming ``what`` and the names."""
    if words is not None and (value is None or isinstance(value, str)) and value in words:
        return int(words[value])
    if isinstance(value, str):
        if value not in names:
            raise ValueError(f"{what} must be one of {list(names)}, got {value!r}")
        return names.index(value)
    if (
        isinstance(value, (int, np.integer))
        and not isinstance(value, bool)
        and 0 <= value < len(names)
    ):
        return int(value)
    raise ValueError(f"{what} must be one of {list(names)}, got {value!r}")


class ConfigOption:
    """A reset option checked by a core (``owner``): the config vector its
    reset uses."""

    __slots__ = ("cfg", "owner")

    def __init__(self, cfg, owner=None):
        self.cfg = cfg
        self.owner = owner


def config_option(core, value, make_cfg: Callable[[Any], np.ndarray]) -> ConfigOption:
    """``value`` checked whole for ``core`` (``make_cfg(value)``: its config
    vector, or ``ValueError``). A value this core checked already (its own
    :class:`ConfigOption`) is returned as it is: an adapter that hands
    validated options on to another never sees its own output refused."""
    if isinstance(value, ConfigOption) and value.owner is core:
        return value
    return ConfigOption(make_cfg(value), owner=core)


def reset_with_config(core, states, value, make_cfg, what: str) -> None:
    """Reset ``states`` again (same seeds and table sizes) under the config
    of the reset option ``value`` (:func:`config_option`), then check the
    first record by the game's rules (``core.check_state``): a ``what`` the
    checks let through by mistake fails here, loudly."""
    opt = config_option(core, value, make_cfg)
    core_batch(core).reset_states(states, states["seed"], states["num_players"], cfg=opt.cfg)
    if len(states):
        try:
            core.check_state(states[0])
        except CorruptStateError as e:
            raise CorruptStateError(
                f"the {what} was accepted, but the game it set up breaks the rules (a bug): {e}"
            ) from e


class ConfigResetOptions:
    """Reset options that set a game up under another config vector,
    declared as data on its core (a mixin, before ``KernelCore``):
    ``config_options``, ``{key: what its value is}`` (``"campaign sheet"``),
    and the core's :meth:`option_config`. Each value is checked whole before
    any adapter resets anything (:meth:`reset_option_checks`, the spec's
    ``reset_options`` of the core: :func:`config_option`) and applied by
    resetting the rows under its config (:func:`reset_with_config`)."""

    config_options: Mapping[str, str] = {}

    def option_config(self, key: str, value) -> np.ndarray:
        """The config vector of reset option ``key`` set to ``value`` for
        this core (``ValueError`` naming what is wrong)."""
        raise NotImplementedError

    def reset_option_checks(self) -> dict[str, Callable]:
        """``{key: check}`` of :attr:`config_options` for the spec's
        ``reset_options``: each check gives the :class:`ConfigOption` its
        reset uses."""
        return {key: functools.partial(self._check_option, key) for key in self.config_options}

    def _check_option(self, key: str, value) -> ConfigOption:
        return config_option(self, value, functools.partial(self.option_config, key))

    def apply_reset_options(self, states, options) -> None:
        """Reset ``states`` again under each given option's config."""
        for key, value in options.items():
            config = functools.partial(self.option_config, key)
            reset_with_config(self, states, value, config, self.config_options[key])


def value_word(v: int, names) -> str:
    """``"v (name)"`` when ``names`` (a sequence, or a mapping of ints) names
    ``v``, else ``"v"``."""
    if isinstance(names, Mapping):
        return f"{v} ({names[v]})" if v in names else str(v)
    if names is not None and 0 <= v < len(names):
        return f"{v} ({names[v]})"
    return str(v)


def check_config_fields(state, want: Mapping[str, int], names: Mapping[str, Any]) -> None:
    """``SnapshotError`` unless every field of ``want`` (``"field"`` or
    ``"field[i]"``) holds the core's value in the record ``state``; values
    are named by ``names[field]`` (:func:`value_word`)."""
    for key, env_value in want.items():
        field, _, idx = key.partition("[")
        got = state[field][int(idx[:-1])] if idx else state[field]
        if int(got) != int(env_value):
            words = names.get(field)
            raise SnapshotError(
                f"snapshot made under another configuration: {key} is "
                f"{value_word(int(got), words)} in the record, "
                f"{value_word(int(env_value), words)} in this env"
            )
