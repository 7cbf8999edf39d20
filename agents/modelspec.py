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

Reading a saved file is checked too: :func:`read_sb3_spec` and
:func:`load_sb3_model` raise :class:`ModelSpecError` naming the file and what
is wrong with it (not a zip, no spec inside, a spec that is not valid JSON or
lacks fields or has fields of the wrong type, an SB3 ``data`` / weights entry
that SB3 cannot read), never a bare ``JSONDecodeError``, ``KeyError`` or
``UnpicklingError``. :func:`check_model_file` checks a ``.pt`` or ``.zip``
file's spec against a game before anything is built from its options (what
``dungeonrl eval`` does, so another game's model gives the same message as
``play``).

``strict=False`` lets a model trained on an older *content* (the same
observation and action layout, a different ``layout_version`` or env
version) load with a warning: useful while the game is being rebalanced,
never silent.
"""

from __future__ import annotations

import hashlib
import json
import os
import warnings
import zipfile

from ..envs.core.errors import DungeonRLError

__all__ = [
    "ModelSpecError",
    "ModelSpecWarning",
    "model_spec",
    "check_model_spec",
    "names_sha",
    "read_sb3_spec",
    "load_sb3_model",
    "check_model_file",
    "check_model_game",
    "read_model_file_spec",
    "SB3_META_NAME",
    "RLLIB_SPEC_FILE",
    "RLLIB_DEFAULT_MODULE",
    "model_kind",
    "is_rllib_checkpoint",
    "read_checkpoint_spec",
]

#: the entry of an SB3 zip that holds the model spec (SB3 ignores extra entries)
SB3_META_NAME = "dungeonrl_model_spec.json"
#: the model spec file written into an RLlib checkpoint folder
RLLIB_SPEC_FILE = "dungeonrl_model_spec.json"
#: the module id of single-agent RLlib runs (RLlib's default policy)
RLLIB_DEFAULT_MODULE = "default_policy"
#: the type of each model spec field
FIELD_TYPES = {
    "game": str,
    "env_id": str,
    "spec_version": int,
    "layout_version": str,
    "obs_size": int,
    "num_actions": int,
    "features_sha": str,
    "actions_sha": str,
    "core_kwargs": dict,
}

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


def check_model_spec(saved: object, spec, *, strict: bool = True, source: str = "model") -> None:
    """Raise :class:`ModelSpecError` if ``saved`` (a model spec) does not
    match ``spec``. With ``strict=False`` only the layout fields must match;
    a differing version or content is a :class:`ModelSpecWarning`."""
    if not isinstance(saved, dict):
        raise ModelSpecError(f"{source} carries no model spec (not saved by dungeonrl?)")
    live = model_spec(spec)
    missing = [k for k in SHAPE_FIELDS + VERSION_FIELDS if k not in saved]
    if missing:
        raise ModelSpecError(
            f"{source} model spec lacks {missing}; cannot check it against {spec.env_id}"
        )
    _check_types(saved, source)

    def diff(fields):
        return [
            f"{k}: model {saved[k]!r} != env {live[k]!r}" for k in fields if saved[k] != live[k]
        ]

    hard = diff(SHAPE_FIELDS)
    soft = diff(VERSION_FIELDS)
    if hard or (soft and strict):
        what = "; ".join(hard + soft)
        hint = (
            ""
            if hard
            else " (same observation/action layout: pass strict=False, or "
            "--allow-content-change on the command line, to load it anyway)"
        )
        game = (
            f" is a model of {saved['game']}, not {spec.name}: it"
            if saved["game"] != live["game"]
            else ""
        )
        raise ModelSpecError(
            f"{source}{game} was trained on {saved['env_id']} and does not "
            f"match {spec.env_id} as built now: {what}{hint}"
        )
    if soft:
        warnings.warn(
            f"{source}: loading across a content/version change: " + "; ".join(soft),
            ModelSpecWarning,
            stacklevel=3,
        )


def _check_types(saved: dict, source: str) -> None:
    for k, t in FIELD_TYPES.items():
        if k in saved and (not isinstance(saved[k], t) or isinstance(saved[k], bool)):
            raise ModelSpecError(
                f"{source}: model spec field {k!r} must be a {t.__name__}, got {saved[k]!r}"
            )


def read_sb3_spec(path) -> dict:
    """The model spec inside an SB3 zip, checked for shape (see module doc).
    Raises :class:`ModelSpecError` naming ``path`` when it is missing or
    garbled."""
    path = os.fspath(path)
    try:
        with zipfile.ZipFile(path) as z:
            if SB3_META_NAME not in z.namelist():
                raise ModelSpecError(
                    f"{path}: no {SB3_META_NAME} inside: not saved by dungeonrl's save_sb3, so "
                    "the game it was trained on cannot be checked"
                )
            raw = z.read(SB3_META_NAME)
    except ModelSpecError:
        raise
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        EOFError,
        OSError,
        ValueError,
        RuntimeError,
        NotImplementedError,
    ) as e:  # a garbled entry name, method...
        if isinstance(e, FileNotFoundError):
            raise
        raise ModelSpecError(f"{path}: not a readable SB3 zip ({type(e).__name__}: {e})") from e
    try:
        saved = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as e:
        raise ModelSpecError(
            f"{path}: {SB3_META_NAME} is not valid JSON ({type(e).__name__}: {e})"
        ) from e
    if not isinstance(saved, dict):
        raise ModelSpecError(
            f"{path}: {SB3_META_NAME} must hold a JSON object, got {type(saved).__name__}"
        )
    missing = [k for k in FIELD_TYPES if k not in saved]
    if missing:
        raise ModelSpecError(f"{path}: {SB3_META_NAME} lacks {missing}")
    _check_types(saved, f"{path}: {SB3_META_NAME}")
    return saved


def load_sb3_model(path, spec, *, strict: bool = True):
    """Check an SB3 zip's spec against ``spec`` (a :class:`GameSpec`), then
    load it with sb3-contrib's ``MaskablePPO``; whatever SB3 cannot read (a
    garbled ``data`` entry, broken weights) is a :class:`ModelSpecError`
    naming the file, and so is an observation / action space that does not
    fit the game."""
    path = os.fspath(path)
    check_model_spec(read_sb3_spec(path), spec, strict=strict, source=path)
    try:
        from sb3_contrib import MaskablePPO
    except ImportError as e:  # pragma: no cover - train extra missing
        raise ImportError(
            "loading an SB3 model needs sb3-contrib: pip install 'dungeonrl[train]'"
        ) from e
    try:
        model = MaskablePPO.load(path, device="cpu")
    except (FileNotFoundError, ImportError, MemoryError):
        raise
    except Exception as e:  # SB3 raises whatever its readers raise
        raise ModelSpecError(
            f"{path}: SB3 cannot read the model's data or weights "
            f"({type(e).__name__}: {str(e)[:200]})"
        ) from e
    try:
        import torch

        for name, w in model.policy.state_dict().items():
            if torch.is_tensor(w) and w.is_floating_point() and not bool(torch.isfinite(w).all()):
                raise ModelSpecError(f"{path}: weight {name!r} has NaN or infinite values")
    except ImportError:  # pragma: no cover - sb3 brings torch
        pass
    shape = getattr(model.observation_space, "shape", None)
    n = getattr(model.action_space, "n", None)
    if shape != (spec.obs_size,) or n != spec.num_actions:
        raise ModelSpecError(
            f"{path}: SB3 model has observation shape {shape} and {n} actions; "
            f"{spec.env_id} has ({spec.obs_size},) and {spec.num_actions}"
        )
    return model


# --- which kind of saved model ---------------------------------------------------------
def model_kind(path) -> str:
    """``"sb3"`` for a Stable-Baselines3 zip, ``"ppo"`` for a fast-path
    ``torch.save`` file (also a zip inside, told apart by its entries),
    ``"rllib"`` for an RLlib checkpoint folder of ``--backend rllib``."""
    path = os.fspath(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no model file {path!r}")
    if os.path.isdir(path):
        if is_rllib_checkpoint(path):
            return "rllib"  # an RLlib checkpoint folder (dungeonrl train --backend rllib)
    try:
        if zipfile.is_zipfile(path):
            with zipfile.ZipFile(path) as z:
                names = set(z.namelist())
            if "data" in names and "policy.pth" in names:
                return "sb3"
    except (zipfile.BadZipFile, OSError, EOFError, ValueError, RuntimeError, NotImplementedError):
        pass  # not a readable zip (a garbled entry name...): read_model says why
    return "ppo"


def is_rllib_checkpoint(path) -> bool:
    """A folder written by :func:`~dungeonrl.agents.algos.rllib.run_rllib_training`
    (an RLlib algorithm checkpoint holding :data:`RLLIB_SPEC_FILE`)."""
    path = os.fspath(path)
    return os.path.isdir(path) and os.path.isfile(os.path.join(path, RLLIB_SPEC_FILE))


def read_checkpoint_spec(path) -> dict:
    """The model spec (plus ``module_id`` and ``arch``) stored in an RLlib
    checkpoint folder; :class:`ModelSpecError` when it is missing or garbled."""
    f = os.path.join(os.fspath(path), RLLIB_SPEC_FILE)
    if not os.path.isfile(f):
        raise ModelSpecError(
            f"{path}: no {RLLIB_SPEC_FILE}: not an RLlib checkpoint written by "
            "dungeonrl train --backend rllib"
        )
    try:
        with open(f) as fh:
            saved = json.load(fh)
    except (OSError, ValueError) as e:
        raise ModelSpecError(f"{f}: not valid JSON ({type(e).__name__}: {e})") from e
    if not isinstance(saved, dict):
        raise ModelSpecError(f"{f}: must hold a JSON object")
    _check_types(saved, f)
    return saved


def read_model_file_spec(path) -> dict:
    """The spec of a saved model (SB3 ``.zip`` or fast-path ``.pt``);
    :class:`ModelSpecError` when it has none or it is garbled."""
    path = os.fspath(path)
    kind = model_kind(path)
    if kind == "sb3":
        return read_sb3_spec(path)
    if kind == "rllib":
        return read_checkpoint_spec(path)
    saved = read_model(path).get("model_spec")
    if not isinstance(saved, dict):
        raise ModelSpecError(f"{path} carries no model spec (not saved by dungeonrl?)")
    _check_types(saved, path)
    return saved


def check_model_file(path, spec, *, strict: bool = True) -> dict:
    """Read the spec of a saved model and check it against ``spec``;
    returns the spec. Raises :class:`ModelSpecError` (``FileNotFoundError``
    for a missing file)."""
    saved = read_model_file_spec(path)
    check_model_spec(saved, spec, strict=strict, source=os.fspath(path))
    return saved


def check_model_game(path, spec) -> dict:
    """Refuse a saved model of another game before anything is built from
    its stored core options (its table size, character...): the same
    :class:`ModelSpecError` as a full check. The full check (layout,
    content) happens when the model is loaded for the core built."""
    saved = read_model_file_spec(path)
    if saved.get("game") != spec.name:
        check_model_spec(saved, spec, source=os.fspath(path))
    return saved


# --- the fast-path model file (``.pt``) ------------------------------------------------
#: the header of a fast-path PPO model file and its newest format version
MODEL_FORMAT = "dungeonrl-ppo"
MODEL_FORMAT_VERSION = 1
#: the activations a saved architecture may name (the fast path's networks)
ACTIVATION_NAMES = ("tanh", "relu")

#: bounds of a saved architecture (a file asking for more is refused, not allocated)
MAX_LAYER_SIZE = 1 << 16
MAX_LAYERS = 64
MAX_PARAMS = 1 << 27  # 128M weights, 512 MB of float32
#: the top-level entries of a saved model and their types
PAYLOAD_TYPES = {
    "format": str,
    "format_version": int,
    "model_spec": dict,
    "arch": dict,
    "state_dict": dict,
}


def _int_in(v, lo: int, hi: int) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and lo <= v <= hi


def check_arch(arch, source: str = "model") -> dict:
    """The ``arch`` entry of a saved model, checked: ``obs_size`` and
    ``num_actions`` ints >= 1, ``hidden`` a list of at most
    :data:`MAX_LAYERS` layer sizes in ``[1, MAX_LAYER_SIZE]``, ``activation``
    one of :data:`ACTIVATION_NAMES`, ``shared`` a bool. Raises
    :class:`ModelSpecError` naming ``source`` and the field."""
    if not isinstance(arch, dict):
        raise ModelSpecError(f"{source}: 'arch' must be a dict, got {type(arch).__name__}")
    want = ("obs_size", "num_actions", "hidden", "activation", "shared")
    missing = [k for k in want if k not in arch]
    if missing:
        raise ModelSpecError(f"{source}: 'arch' lacks {missing}")
    extra = sorted(map(str, set(arch) - set(want)))
    if extra:
        raise ModelSpecError(f"{source}: 'arch' has unknown entries {extra}")
    for k in ("obs_size", "num_actions"):
        if not _int_in(arch[k], 1, 1 << 24):
            raise ModelSpecError(
                f"{source}: arch[{k!r}] must be an int in [1, {1 << 24}], got {arch[k]!r}"
            )
    hidden = arch["hidden"]
    if (
        not isinstance(hidden, (list, tuple))
        or len(hidden) > MAX_LAYERS
        or not all(_int_in(h, 1, MAX_LAYER_SIZE) for h in hidden)
    ):
        raise ModelSpecError(
            f"{source}: arch['hidden'] must be a list of at most {MAX_LAYERS} "
            f"layer sizes in [1, {MAX_LAYER_SIZE}], got {hidden!r}"[:300]
        )
    if not isinstance(arch["activation"], str) or arch["activation"] not in ACTIVATION_NAMES:
        raise ModelSpecError(
            f"{source}: arch['activation'] must be one of {list(ACTIVATION_NAMES)}, "
            f"got {arch['activation']!r}"[:300]
        )
    if not isinstance(arch["shared"], bool):
        raise ModelSpecError(f"{source}: arch['shared'] must be a bool, got {arch['shared']!r}")
    sizes = (arch["obs_size"], *hidden)
    trunk = sum((i + 1) * o for i, o in zip(sizes[:-1], sizes[1:]))
    heads = (sizes[-1] + 1) * (arch["num_actions"] + 1)
    params = trunk + heads if arch["shared"] else 2 * trunk + heads
    if params > MAX_PARAMS:
        raise ModelSpecError(
            f"{source}: the saved architecture has {params:,} weights, more "
            f"than the {MAX_PARAMS:,} a dungeonrl model may have"
        )
    return arch


def read_model(path) -> dict:
    """The payload of a saved model, checked for shape (no check against a
    game): a dict with the ``format`` header, a model spec whose fields have
    their types, a valid ``arch`` (see :func:`check_arch`) agreeing with the
    spec's observation and action sizes, and a ``state_dict``. Anything else
    is a :class:`ModelSpecError` naming the file and the problem. Loaded with
    ``torch.load(weights_only=True)``: a file cannot run code."""
    import torch  # late: reading a spec needs no torch until a .pt file is read

    try:
        payload = torch.load(path, map_location="cpu", weights_only=True)
    except FileNotFoundError:
        raise
    except Exception as e:  # not a torch file, or not one of ours
        why = (str(e).strip().splitlines() or [""])[0][:160]
        if "weights_only" in str(e):  # torch's advice to unpickle anything: not taken
            why = "not a torch.save file of tensors and plain values"
        raise ModelSpecError(
            f"{path}: not a dungeonrl PPO model ({type(e).__name__}: {why})"
        ) from e
    if not isinstance(payload, dict) or payload.get("format") != MODEL_FORMAT:
        raise ModelSpecError(f"{path}: not a dungeonrl PPO model (no {MODEL_FORMAT!r} header)")
    for k, t in PAYLOAD_TYPES.items():
        if k not in payload:
            raise ModelSpecError(f"{path}: the model file lacks its {k!r} entry")
        if not isinstance(payload[k], t) or isinstance(payload[k], bool):
            raise ModelSpecError(
                f"{path}: the model's {k!r} entry must be a {t.__name__}, "
                f"got {type(payload[k]).__name__}"
            )
    if payload["format_version"] > MODEL_FORMAT_VERSION or payload["format_version"] < 1:
        raise ModelSpecError(
            f"{path}: model format {payload['format_version']} is not one this "
            f"dungeonrl understands (1..{MODEL_FORMAT_VERSION})"
        )
    spec = payload["model_spec"]
    missing = [k for k in FIELD_TYPES if k not in spec]
    if missing:
        raise ModelSpecError(f"{path}: model spec lacks {missing}")
    _check_types(spec, f"{path}: model spec")
    arch = check_arch(payload["arch"], str(path))
    for k in ("obs_size", "num_actions"):
        if arch[k] != spec[k]:
            raise ModelSpecError(
                f"{path}: arch[{k!r}] = {arch[k]} does not match the model spec's {k} = {spec[k]}"
            )
    return payload
