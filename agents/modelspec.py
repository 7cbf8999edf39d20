"""What a saved model must say about the game it was trained on, and the
check that refuses to load it into another one.

Every model written by this package (fast-path PPO ``.pt`` files and
Stable-Baselines3 ``.zip`` files alike) carries a *model spec*: a small dict

==================  ==========================================================
key                 meaning
==================  ==========================================================
``game``            the game's short name (``"unbroken"``)
``env_id``          its registry id (``"dungeonrl/Unbroken-v0"``)
``spec_version``    the ``-vN`` of the env id (``GameSpec.version``)
``layout_version``  hash of the state layout and the content tables
``obs_size``        observation columns
``num_actions``     size of the flat action space
``features_sha``    hash of ``GameSpec.feature_names`` (column meanings)
``actions_sha``     hash of ``GameSpec.action_names`` (index meanings)
``core_kwargs``     the options the training core was built with
==================  ==========================================================

:func:`check_model_spec` compares it with a live game and raises
:class:`ModelSpecError` naming every field that differs, instead of letting
a wrong-shaped observation reach the network (or, worse, a right-shaped one
whose columns mean something else).

``strict=False`` lets a model trained on an older *content* (the same
observation and action layout, a different ``layout_version`` or env
version) load with a warning: useful while the game is being rebalanced,
never silent.
"""
from __future__ import annotations

import hashlib
import warnings

from ..envs.core.errors import DungeonRLError

__all__ = ["ModelSpecError", "ModelSpecWarning", "model_spec", "check_model_spec",
           "names_sha"]

#: fields that decide whether the network can read the observation at all
SHAPE_FIELDS = ("game", "obs_size", "num_actions", "features_sha", "actions_sha")
#: fields that say the rules or content changed (hard error unless strict=False)
VERSION_FIELDS = ("env_id", "spec_version", "layout_version")


class ModelSpecError(DungeonRLError, ValueError):
    """A saved model does not match the game it is being loaded for (another
    game, observation layout, action layout, version or content)."""


class ModelSpecWarning(UserWarning):
    """A model trained on another content/version of the same layout was
    loaded with ``strict=False``."""


def names_sha(names) -> str:
    """Short hash of a tuple of names (feature or action names)."""
    return hashlib.sha256("\n".join(map(str, names)).encode()).hexdigest()[:16]


def model_spec(spec, core_kwargs: dict | None = None) -> dict:
    """The model spec (see module doc) of a :class:`GameSpec`."""
    return {
        "game": spec.name,
        "env_id": spec.env_id,
        "spec_version": int(spec.version),
        "layout_version": str(spec.layout_version),
        "obs_size": int(spec.obs_size),
        "num_actions": int(spec.num_actions),
        "features_sha": names_sha(spec.feature_names),
        "actions_sha": names_sha(spec.action_names),
        "core_kwargs": dict(core_kwargs or {}),
    }


def check_model_spec(saved: dict, spec, *, strict: bool = True, source: str = "model") -> None:
    """Raise :class:`ModelSpecError` if ``saved`` (a model spec) does not
    match ``spec``. With ``strict=False`` only the layout fields must match;
    a differing version or content is a :class:`ModelSpecWarning`."""
    if not isinstance(saved, dict):
        raise ModelSpecError(f"{source} carries no model spec (not saved by dungeonrl?)")
    live = model_spec(spec)
    missing = [k for k in SHAPE_FIELDS + VERSION_FIELDS if k not in saved]
    if missing:
        raise ModelSpecError(f"{source} model spec lacks {missing}; cannot check it "
                             f"against {spec.env_id}")

    def diff(fields):
        return [f"{k}: model {saved[k]!r} != env {live[k]!r}"
                for k in fields if saved[k] != live[k]]

    hard = diff(SHAPE_FIELDS)
    soft = diff(VERSION_FIELDS)
    if hard or (soft and strict):
        what = "; ".join(hard + soft)
        hint = ("" if hard else
                " (same observation/action layout: pass strict=False, or "
                "--allow-content-change on the command line, to load it anyway)")
        raise ModelSpecError(f"{source} was trained on {saved['env_id']} and does not match "
                             f"{spec.env_id} as built now: {what}{hint}")
    if soft:
        warnings.warn(f"{source}: loading across a content/version change: "
                      + "; ".join(soft), ModelSpecWarning, stacklevel=3)
