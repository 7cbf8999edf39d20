"""Untrusted input never corrupts a game (issue 10): every defect class as a
direct test, for every registered game where the class applies.

* state records: every field has a rule; the reported holes (forced-dice
  cursor, offer / pending / combat ids, enums) are refused by name; reached
  records all pass;
* ``set_state`` is atomic: malformed headers are ``SnapshotError`` and leave
  the env unchanged;
* content loaders: unknown keys, duplicate names, out-of-range numbers, wrong
  types are ``ContentError`` naming file, entry and field; an edited folder is
  validated again;
* arguments and seeds: ``max_steps``, ``num_envs``, seeds of every documented
  type, and refusals naming the argument;
* saved models: missing / garbled specs and data are ``ModelSpecError``.

The Hypothesis fuzz layer over the same inputs is in ``tests/fuzz/test_*.py``.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import zipfile

import numpy as np
import pytest

from dungeonrl.benchmarks.fuzz import HOOKS, GameEnv, reached_snapshots
from dungeonrl.benchmarks.fuzz import games as suite_games
from dungeonrl.envs.core import validate as V
from dungeonrl.envs.core.errors import ContentError, CorruptStateError, SnapshotError
from dungeonrl.envs.core.kernel.header import HEADER_NAMES
from dungeonrl.registry import get_spec

GAMES = suite_games()


def _game_validate(name):
    import importlib

    return importlib.import_module(f"dungeonrl.envs.{name}.validate")


def _env(name):
    return GameEnv(name, HOOKS[name].configs[0])


@pytest.fixture(scope="module", params=GAMES)
def reached(request):
    """(game, env, snapshots of records reached by random play)."""
    name = request.param
    snaps = reached_snapshots(name, HOOKS[name].configs[0], 12, seed=7)
    return name, _env(name), snaps


# --- every field has a rule ------------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_every_state_field_has_a_rule(name):
    dtype = get_spec(name).make_core(**HOOKS[name].extra_args).state_dtype
    mod = _game_validate(name)
    assert V.uncovered(dtype, mod.FIELD_RULES) == []
    # a game table may not redeclare an engine header field
    assert not set(mod.FIELD_RULES) & set(HEADER_NAMES)
    # and every rule names a field the record has (no stale rule)
    assert set(mod.FIELD_RULES) <= set(dtype.names)


NEW_GAMES = ("dungeon_kart", "dcc_unstoppable")


@pytest.mark.parametrize("name", NEW_GAMES)
def test_every_state_field_of_the_new_games_has_a_rule(name):
    """Kart and Carl: checked on their state modules directly, so the test
    holds whether or not the game is registered yet."""
    import importlib

    dtype = importlib.import_module(f"dungeonrl.envs.{name}.state").STATE_DTYPE
    mod = _game_validate(name)
    assert V.uncovered(dtype, mod.FIELD_RULES) == []
    assert not set(mod.FIELD_RULES) & set(HEADER_NAMES)
    assert set(mod.FIELD_RULES) <= set(dtype.names)
    # every bound of every rule evaluates on a reached record (no stale table name)
    core = importlib.import_module(f"dungeonrl.envs.{name}.core").make_core()
    st = core.alloc(1)
    core.reset(st, np.array([3], np.uint64))
    core.check_state(st[0])


def _new_core(name, **kw):
    import importlib

    core = importlib.import_module(f"dungeonrl.envs.{name}.core").make_core(**kw)
    st = core.alloc(1)
    core.reset(st, np.array([5], np.uint64))
    return core, st


def _refused(core, st, field, value, match, index=None):
    bad = st.copy()
    if index is None:
        bad[0][field] = value
    else:
        arr = bad[0][field].copy()
        arr[index] = value
        bad[0][field] = arr
    with pytest.raises(CorruptStateError, match=match):
        core.check_state(bad[0])


def test_kart_holes_are_refused_by_name():
    core, st = _new_core("dungeon_kart", num_players=3, draft="random")
    core.check_state(st[0])
    _refused(core, st, "facing", 6, "'facing'", index=0)
    _refused(core, st, "speed", 7, "'speed'", index=1)
    _refused(core, st, "coins", -1, "'coins'", index=0)
    _refused(core, st, "pos", 2000, "'pos'", index=0)
    _refused(core, st, "track", 99, "'track'")
    _refused(core, st, "place", 4, "'place'", index=0)  # 3 players: spots 1..3
    _refused(core, st, "racer", 5, "'racer'", index=5)  # seat not at the table
    # a spell card in a hand and still in its deck
    d = int(np.flatnonzero(st[0]["deck_n"] > 0)[0])
    card = int(st[0]["deck"][d, 0])
    _refused(core, st, "spell", card, "'spell'", index=0)
    # a hand card not held: the card is in no zone
    bad = st.copy()
    n = int(bad[0]["deck_n"][d])
    deck = bad[0]["deck"].copy()
    deck[d, n - 1] = -1
    bad[0]["deck"] = deck
    bad[0]["deck_n"][d] = n - 1
    with pytest.raises(CorruptStateError, match="'(spell|deck)'"):
        core.check_state(bad[0])


def test_carl_holes_are_refused_by_name():
    core, st = _new_core("dcc_unstoppable", num_players=2)
    core.check_state(st[0])
    _refused(core, st, "ap", C_AP + 1, "'ap'", index=0)
    _refused(core, st, "health", 11, "'health'", index=0)
    _refused(core, st, "mana", 11, "'mana'", index=1)
    _refused(core, st, "danger", 99, "'danger'")
    _refused(core, st, "pend_n", 7, "'pend_n'")
    # a sleeve listed in a hand but marked as in the deck
    s = int(st[0]["hand"][0, 0])
    _refused(core, st, "sl_zone", 3, "'sl_zone'", index=s)
    # a core side in a sleeve and still in a core deck
    c = int(st[0]["cdeck"][0, 0])
    _refused(core, st, "core_zone", 3, "'core_zone'", index=c)
    # an upgrade in the market and the upgrade deck
    u = int(st[0]["market"][0])
    bad = st.copy()
    ud = bad[0]["udeck"].copy()
    k = int(bad[0]["udeck_n"])
    ud[k] = u
    bad[0]["udeck"] = ud
    bad[0]["udeck_n"] = k + 1
    with pytest.raises(CorruptStateError, match="'(udeck|market)'"):
        core.check_state(bad[0])


C_AP = 6


def test_a_new_field_without_a_rule_is_reported():
    dt = np.dtype([("steps", np.int32), ("max_steps", np.int32), ("new_thing", np.int8)])
    assert V.uncovered(dt, {}) == ["new_thing"]
    rec = np.zeros(1, dt)
    rec["max_steps"] = 5
    with pytest.raises(CorruptStateError, match="new_thing"):
        V.check_record(rec[0], {})


def test_header_rules_declared_once_cover_the_header():
    assert set(V.HEADER_RULES) == set(HEADER_NAMES)
    with pytest.raises(ValueError, match="redeclare"):
        V.merged_rules(np.dtype([("steps", np.int32)]), {"steps": V.ANY})


def test_every_registered_game_has_fuzz_hooks():
    missing = [g for g in GAMES if g not in HOOKS]
    assert not missing, f"add FUZZ_CONFIGS to envs/<game>/validate.py for {missing}"
    for g in GAMES:  # the configurations build cores (a typo in FUZZ_CONFIGS fails here)
        h = HOOKS[g]
        assert h.configs and all(isinstance(c, dict) for c in h.configs), g


# --- reached records pass; the reported holes are refused by name ------------------------------
def test_reached_records_pass(reached):
    name, env, snaps = reached
    for s in snaps:
        env.core.check_state(np.frombuffer(s.state, env.core.state_dtype)[0])


def _edited(env, snap, **fields):
    rec = np.frombuffer(snap.state, env.core.state_dtype).copy()
    for k, v in fields.items():
        if isinstance(v, tuple):  # (index, value)
            arr = rec[0][k].copy()
            arr.reshape(-1)[v[0]] = v[1]
            rec[0][k] = arr
        else:
            rec[0][k] = v
    return dataclasses.replace(snap, state=rec.tobytes())


COMMON_HOLES = [
    ("forced_i", -128),
    ("forced_n", 17),
    ("forced_n", -1),
    ("forced_i", 5),  # i > n = 0
    ("phase", 99),
    ("steps", -1),
    ("auto_advance", 2),
    ("reward_mode", 9),
    ("outcome", 50),
    ("legal", (0, 2)),
]
GAME_HOLES = {
    "unbroken": [
        ("waside_n", 9),
        ("skill_offer", (0, 99)),
        ("skill_offer_n", 3),
        ("in_battle", 2),
        ("cond", (0, 7)),
        ("monster", 40),
        ("level", 0),
        ("res", (0, -1)),
        ("stage", 40),
        ("win_trigger", 30),
        ("pend_atk", 9),
        ("cfg_character", 9),
        ("wstack", (0, 30)),
        ("evade", -1),
        ("hunger_req", 50),
        ("score", -5),
        ("title", 20),
    ],
    "dungeon_crawler": [
        ("offer", (0, 500)),
        ("offer_n", 7),
        ("pend_card", 60),
        ("loot_victim", 9),
        ("cb_a", 20),
        ("cb_f", 5),
        ("cb_sq", 40),
        ("item_disc_n", 300),
        ("turn", 9),
        ("actor", 9),
        ("num_players", 1),
        ("equip", (0, 400)),
        ("hand", (0, -1)),
        ("gold", (0, -3)),
        ("cb_kind", 9),
        ("final_boss", 5),
        ("resume_ph", 0),
        ("cr_roll", 3),
        ("rolled", (0, 2)),
        ("offer_kind", 7),
    ],
}


@pytest.mark.parametrize("name", GAMES)
def test_reported_holes_are_refused_by_name(name):
    env = _env(name)
    snap = reached_snapshots(name, HOOKS[name].configs[0], 1, seed=3)[0]
    env.restore(snap)
    holes = COMMON_HOLES + GAME_HOLES.get(name, [])
    for field, v in holes:
        before = env.snapshot()
        bad = _edited(env, snap, **{field: v})
        with pytest.raises((CorruptStateError, SnapshotError)) as ei:
            env.restore(bad)
        msg = str(ei.value)
        # the field is named (a seat count that differs from the env's is a SnapshotError)
        assert (f"'{field}'" in msg and "corrupt" in msg) or (
            field == "num_players" and "seats" in msg
        ), msg
        assert env.snapshot() == before, f"refusing {field}={v} changed the env"


@pytest.mark.parametrize("name", [g for g in GAMES if g in ("unbroken", "dungeon_crawler")])
def test_zone_invariant_every_card_in_one_zone(name):
    # (Dungeon Kart's and Carl's zones: test_new_games_refuse_cards_in_two_zones)
    """Moving a card from one pile to another without the count (a card in
    two zones, or in none) is refused."""
    env = _env(name)
    snap = reached_snapshots(name, HOOKS[name].configs[0], 1, seed=5)[0]
    rec = np.frombuffer(snap.state, env.core.state_dtype).copy()
    piles = {
        "unbroken": ("enc_deck", "enc_deck_n", "enc_disc", "enc_disc_n"),
        "dungeon_crawler": ("item_deck", "item_deck_n", "item_disc", "item_disc_n"),
    }[name]
    deck, dn, disc, cn = piles
    n = int(rec[0][dn])
    assert n >= 1
    d = rec[0][disc].copy()
    d[int(rec[0][cn])] = rec[0][deck][0]  # the deck's first card also in the discard
    rec[0][disc] = d
    rec[0][cn] += 1
    with pytest.raises(CorruptStateError, match="zone|places"):
        env.restore(dataclasses.replace(snap, state=rec.tobytes()))


# --- set_state is atomic -------------------------------------------------------------------------
BAD_HEADERS = [
    ("step_count", "abc"),
    ("step_count", -1),
    ("step_count", True),
    ("step_count", 1.5),
    ("episode_return", "x"),
    ("episode_return", None),
    ("episode_return", True),
    ("done", "false"),
    ("done", 0),
    ("done", None),
    ("game", 5),
    ("layout_version", []),
]


@pytest.mark.parametrize("name", GAMES)
def test_set_state_atomic_on_malformed_header(name):
    env = _env(name)
    env.reset(1)
    base = env.snapshot()
    env.play(np.random.default_rng(0), 5)
    before = env.snapshot()
    raw = base.to_bytes()
    n = int.from_bytes(raw[8:12], "little")
    header = json.loads(raw[12 : 12 + n])
    for k, v in BAD_HEADERS:
        h = dict(header, **{k: v})
        body = json.dumps(h).encode()
        data = raw[:8] + len(body).to_bytes(4, "little") + body + raw[12 + n :]
        with pytest.raises(SnapshotError):
            env.restore(data)
        assert env.snapshot() == before, f"header {k}={v!r} changed the env"
    for junk in (b"[1, 2]", b'"x"', b"null", b"{", b"\xff\xfe"):
        data = raw[:8] + len(junk).to_bytes(4, "little") + junk + raw[12 + n :]
        with pytest.raises(SnapshotError):
            env.restore(data)
        assert env.snapshot() == before
    with pytest.raises(SnapshotError):
        env.restore(raw[:10])
    # the dataclass itself refuses the same values
    for k, v in BAD_HEADERS:
        with pytest.raises(SnapshotError):
            dataclasses.replace(base, **{k: v})


# --- content loaders -----------------------------------------------------------------------------
def _copy_content(name, tmp_path):
    dst = tmp_path / name
    shutil.copytree(HOOKS[name].data_dir, dst)
    return dst


def _edit(path, old, new, count=1):
    s = path.read_text()
    assert old in s, old
    path.write_text(s.replace(old, new, count))


def _load(name, folder):
    return get_spec(name).make_core(content=str(folder), **HOOKS[name].extra_args)


UB_BAD = [  # (file, old, new, words the message must hold)
    ("encounters", "time = ", "time = 9999999999999999999999 #", ["encounters.toml", "time"]),
    ("encounters", "copies = ", "copiez = ", ["encounters.toml", "copiez", "unknown"]),
    ("monsters", "armor = ", 'armor = "x" #', ["monsters.toml", "armor", "integer"]),
    ("monsters", "health = ", "health = 500 #", ["monsters.toml", "health"]),
    ("rules", "start_skill = true", 'start_skill = "yes"', ["rules.toml", "start_skill"]),
    ("rules", "small = 20", "small = 100000", ["rules.toml", "small"]),
    ("skills", "text = ", "txet = ", ["skills.toml", "txet"]),
    ("characters", "blurb = ", "blurbb = ", ["characters.toml", "blurbb"]),
    ("weapons", "power = 1 }", "power = 1000 }", ["weapons.toml", "power"]),
    ("conditions", "permanent = false", 'permanent = "no"', ["conditions.toml", "permanent"]),
]
DC_BAD = [
    (
        "cards",
        'effect = "sprint", move = 3',
        'effect = "sprint", move = -2',
        ["cards.toml", "Dungeon Sprint", "move"],
    ),
    (
        "cards",
        'effect = "cache", gold = 6',
        'effect = "cache", gold = -5',
        ["cards.toml", "Hidden Cache", "gold"],
    ),
    (
        "cards",
        'effect = "poison", turns = 3',
        'effect = "poison", turns = 0',
        ["cards.toml", "Poison", "turns"],
    ),
    (
        "cards",
        'effect = "curse", atk = 2',
        'effect = "curse", atk = 30',
        ["cards.toml", "Cursed Blade", "atk"],
    ),
    ("cards", 'effect = "heal", heal = 4', 'effect = "heal", heal = 0', ["cards.toml", "heal"]),
    (
        "cards",
        'copies = 4, effect = "ambush"',
        'copies = 4, effect = "ambush", cost = 1',
        ["cards.toml", "cost", "unknown"],
    ),
    ("board", "start_gold", "start_golt", ["board.toml", "start_golt"]),
]


@pytest.mark.parametrize("file,old,new,words", UB_BAD)
def test_unbroken_content_errors(tmp_path, file, old, new, words):
    folder = _copy_content("unbroken", tmp_path)
    _edit(folder / f"{file}.toml", old, new)
    with pytest.raises(ContentError) as ei:
        _load("unbroken", folder)
    for w in words:
        assert w in str(ei.value), str(ei.value)


@pytest.mark.parametrize("file,old,new,words", DC_BAD)
def test_dungeon_crawler_content_errors(tmp_path, file, old, new, words):
    folder = _copy_content("dungeon_crawler", tmp_path)
    _edit(folder / f"{file}.toml", old, new)
    with pytest.raises(ContentError) as ei:
        _load("dungeon_crawler", folder)
    for w in words:
        assert w in str(ei.value), str(ei.value)


DUPLICATES = {
    "unbroken": [
        ("encounters", "card"),
        ("monsters", "monster"),
        ("skills", "skill"),
        ("characters", "character"),
    ],
    "dungeon_crawler": [("monsters", "mob"), ("monsters", "boss")],
}


@pytest.mark.parametrize(
    "name,file,what", [(g, f, w) for g in DUPLICATES for f, w in DUPLICATES[g]]
)
def test_duplicate_names_refused(tmp_path, name, file, what):
    import tomllib

    folder = _copy_content(name, tmp_path)
    path = folder / f"{file}.toml"
    doc = tomllib.loads(path.read_text())
    if name == "unbroken":
        lst = doc[what]
        first, second = lst[0]["name"], lst[1]["name"]
    else:
        fl = doc["floor"]
        first = fl[0]["mobs"][0]["name"]
        second = fl[0]["mobs"][1]["name"] if what == "mob" else fl[1]["boss"]["name"]
    _edit(path, f'"{second}"', f'"{first}"')
    with pytest.raises(ContentError, match="duplicate"):
        _load(name, folder)


@pytest.mark.parametrize("name", GAMES)
def test_edited_folder_is_validated_again(tmp_path, name):
    folder = _copy_content(name, tmp_path)
    _load(name, folder)  # compiled and cached
    f = folder / f"{HOOKS[name].content_files[0]}.toml"
    f.write_text(f.read_text() + "\nbogus_key = 1\n")
    with pytest.raises(ContentError, match="bogus_key"):
        _load(name, folder)


@pytest.mark.parametrize("name", GAMES)
def test_entry_of_wrong_type_is_content_error(tmp_path, name):
    import tomllib

    from dungeonrl.benchmarks.fuzz import to_toml

    folder = _copy_content(name, tmp_path)
    for fname in HOOKS[name].content_files:
        path = folder / f"{fname}.toml"
        orig = path.read_text()
        doc = tomllib.loads(orig)
        key = next(k for k, v in doc.items() if isinstance(v, (list, dict)))
        for junk in (5, "x", [1, 2], [{"name": 3}]):
            path.write_text(to_toml(dict(doc, **{key: junk})))
            with pytest.raises(ContentError, match=f"{fname}.toml"):
                _load(name, folder)
        path.write_text(orig)


# --- arguments and seeds -----------------------------------------------------------------
@pytest.mark.parametrize("name", GAMES)
def test_max_steps_bounded(name):
    spec = get_spec(name)
    kw = HOOKS[name].extra_args
    core = spec.make_core(max_steps=2**31 - 1, **kw)
    assert core.max_steps == 2**31 - 1
    for bad in (2**31, 2**40, 0, -1):
        with pytest.raises(ValueError, match="max_steps"):
            spec.make_core(max_steps=bad, **kw)
    for bad in (True, 2.5, "10"):
        with pytest.raises((TypeError, ValueError), match="max_steps"):
            spec.make_core(max_steps=bad, **kw)


def test_max_steps_int32_does_not_truncate_early():
    from dungeonrl.envs.core.adapters.gym_env import DungeonEnv

    env = DungeonEnv("unbroken", max_steps=2**31 - 1)
    env.reset(seed=0)
    legal = np.flatnonzero(env.action_masks())
    _, _, term, trunc, _ = env.step(int(legal[0]))
    assert not trunc


def test_num_envs_must_be_a_positive_int():
    from dungeonrl.envs.core.adapters.vector import DungeonSB3VecEnv, DungeonVectorEnv

    assert DungeonVectorEnv("unbroken", num_envs=np.int64(2)).num_envs == 2
    for cls in (DungeonVectorEnv, DungeonSB3VecEnv):
        for bad in (2.5, "4", True, None, 2.0):
            with pytest.raises(TypeError, match="num_envs"):
                cls("unbroken", num_envs=bad)
        for bad in (0, -3, 2**40):
            with pytest.raises(ValueError, match="num_envs"):
                cls("unbroken", num_envs=bad)


GOOD_SEEDS = [0, 1, 2**64 - 1, np.uint64(2**64 - 1), np.int32(3), np.uint8(200)]
BAD_SEEDS = [
    (True, TypeError),
    (np.bool_(False), TypeError),
    (1.5, TypeError),
    (2.0, TypeError),
    ("3", TypeError),
    (-1, ValueError),
    (2**64, ValueError),
    (np.int64(-5), ValueError),
]


def _adapters():
    from dungeonrl.envs import dungeon_crawler_v0
    from dungeonrl.envs.core.adapters.aec import DungeonAECEnv
    from dungeonrl.envs.core.adapters.gym_env import DungeonEnv
    from dungeonrl.envs.core.adapters.vector import DungeonVectorEnv

    return {
        "gym": lambda: DungeonEnv("unbroken"),
        "vector": lambda: DungeonVectorEnv("unbroken", num_envs=2),
        "aec": lambda: DungeonAECEnv("dungeon_crawler", num_players=2),
        "pz_env": lambda: dungeon_crawler_v0.env(num_players=2),
        "pz_raw": lambda: dungeon_crawler_v0.raw_env(num_players=2),
    }


@pytest.mark.parametrize("adapter", ["gym", "vector", "aec", "pz_env", "pz_raw"])
def test_seed_types(adapter):
    env = _adapters()[adapter]()
    for s in GOOD_SEEDS + [None]:
        env.reset(seed=s)
    for s, err in BAD_SEEDS + [(np.random.default_rng(0), TypeError)]:
        with pytest.raises(err, match="seed"):
            env.reset(seed=s)


def test_seed_2_64_is_not_seed_0():
    from dungeonrl.envs.core.adapters.gym_env import DungeonEnv

    env = DungeonEnv("unbroken")
    with pytest.raises(ValueError, match="seed"):
        env.reset(seed=2**64)


def test_uint64_seed_same_game_in_every_adapter():
    from dungeonrl.envs import dungeon_crawler_v0

    a, b = dungeon_crawler_v0.env(num_players=2), dungeon_crawler_v0.raw_env(num_players=2)
    a.reset(seed=np.uint64(2**64 - 1))
    b.reset(seed=2**64 - 1)
    assert a.unwrapped.get_state() == b.get_state()


def test_sb3_vecenv_accepts_max_uint64_seed():
    from dungeonrl.envs.core.adapters.vector import DungeonSB3VecEnv

    v = DungeonSB3VecEnv("unbroken", num_envs=3, seed=2**64 - 1)
    v.reset()
    seeds = v._run.buf.seeds.tolist()
    assert seeds == [2**64 - 1, 0, 1]  # s + i modulo 2**64
    v.seed(np.uint64(5))
    v.reset()
    assert v._run.buf.seeds.tolist() == [5, 6, 7]
    for bad in (True, 1.5, -1, 2**64):
        with pytest.raises((TypeError, ValueError), match="seed"):
            v.seed(bad)
    with pytest.raises((TypeError, ValueError), match="seed"):
        DungeonSB3VecEnv("unbroken", num_envs=1, seed=1.5)


def test_vector_seed_list_checked():
    from dungeonrl.envs.core.adapters.vector import DungeonVectorEnv

    v = DungeonVectorEnv("unbroken", num_envs=2)
    v.reset(seed=[2**64 - 1, np.uint64(3)])
    for bad in ([1, True], [1, 1.5], [1, -1], [1, 2**64], [1, None]):
        with pytest.raises((TypeError, ValueError), match=r"seed\[1\]|seed"):
            v.reset(seed=bad)


# --- saved models ------------------------------------------------------------------------
@pytest.fixture(scope="module")
def sb3_zip(tmp_path_factory):
    pytest.importorskip("sb3_contrib")
    from sb3_contrib import MaskablePPO

    from dungeonrl.agents.algos.sb3 import save_sb3
    from dungeonrl.envs.core.adapters.vector import DungeonSB3VecEnv
    from dungeonrl.envs.core.common import resolve_core

    core = resolve_core("unbroken", {})
    venv = DungeonSB3VecEnv(core, num_envs=1)
    model = MaskablePPO(
        "MlpPolicy", venv, n_steps=16, batch_size=16, policy_kwargs={"net_arch": [8]}, device="cpu"
    )
    path = save_sb3(model, str(tmp_path_factory.mktemp("m") / "m.zip"), core)
    return path, core


def _rewrite_zip(src, dst, drop=(), replace=None):
    with zipfile.ZipFile(src) as zi, zipfile.ZipFile(dst, "w") as zo:
        for item in zi.infolist():
            if item.filename in drop:
                continue
            data = zi.read(item.filename)
            if replace and item.filename in replace:
                data = replace[item.filename]
            zo.writestr(item, data)


@pytest.mark.parametrize(
    "case",
    [
        "no_spec",
        "garbled_spec",
        "spec_list",
        "spec_missing_field",
        "spec_wrong_type",
        "garbled_data",
        "garbled_weights",
        "truncated",
    ],
)
def test_sb3_model_errors_are_model_spec_errors(sb3_zip, tmp_path, case):
    from dungeonrl.agents.modelspec import SB3_META_NAME, ModelSpecError
    from dungeonrl.agents.policy import make_agent

    path, core = sb3_zip
    bad = str(tmp_path / "bad.zip")
    spec = json.loads(zipfile.ZipFile(path).read(SB3_META_NAME))
    if case == "no_spec":
        _rewrite_zip(path, bad, drop=(SB3_META_NAME,))
    elif case == "garbled_spec":
        _rewrite_zip(path, bad, replace={SB3_META_NAME: b"{not json"})
    elif case == "spec_list":
        _rewrite_zip(path, bad, replace={SB3_META_NAME: b"[1, 2]"})
    elif case == "spec_missing_field":
        del spec["game"]
        _rewrite_zip(path, bad, replace={SB3_META_NAME: json.dumps(spec).encode()})
    elif case == "spec_wrong_type":
        spec["obs_size"] = "many"
        _rewrite_zip(path, bad, replace={SB3_META_NAME: json.dumps(spec).encode()})
    elif case == "garbled_data":
        _rewrite_zip(path, bad, replace={"data": b"{garbage"})
    elif case == "garbled_weights":
        _rewrite_zip(path, bad, replace={"policy.pth": b"\x80\x04garbage"})
    else:
        raw = open(path, "rb").read()
        open(bad, "wb").write(raw[: len(raw) // 2])
    with pytest.raises(ModelSpecError) as ei:
        make_agent(bad, core)
    assert "bad.zip" in str(ei.value)


def test_eval_with_another_games_model_is_clean(sb3_zip, capsys):
    """``dungeonrl eval`` of an Unbroken model on Dungeon Crawler: the same
    ModelSpecError message as ``play``, not a TypeError about num_players."""
    from types import SimpleNamespace

    from dungeonrl.agents.commands import evaluate
    from dungeonrl.agents.modelspec import ModelSpecError, check_model_file

    path, _ = sb3_zip
    dc = get_spec("dungeon_crawler")
    with pytest.raises(ModelSpecError) as ei:
        check_model_file(path, dc)
    want = str(ei.value)
    args = SimpleNamespace(
        env="dungeon_crawler", env_id=dc.env_id, extra=[], model=path, seed=0, episodes=None
    )
    rc = evaluate.main(args)
    err = capsys.readouterr().err
    assert rc == 2
    assert "num_players" not in err and "TypeError" not in err
    assert want in err  # the very message the spec check gives
    # and the same through --agent (the league path of a multi-seat game)
    args = SimpleNamespace(
        env="dungeon_crawler",
        env_id=dc.env_id,
        extra=["--agent", path],
        seed=0,
        episodes=None,
        model=None,
    )
    assert evaluate.main(args) == 2
    err = capsys.readouterr().err
    assert "num_players" not in err and "ModelSpecError" not in err and "unbroken" in err


def test_pt_model_errors(tmp_path):
    from dungeonrl.agents.modelspec import ModelSpecError
    from dungeonrl.agents.policy import make_agent
    from dungeonrl.envs.core.common import resolve_core

    core = resolve_core("unbroken", {})
    for content in (b"", b"not a model", b"PK\x03\x04junk"):
        p = tmp_path / "m.pt"
        p.write_bytes(content)
        with pytest.raises(ModelSpecError, match="m.pt"):
            make_agent(str(p), core)


@pytest.mark.parametrize("name", GAMES)
def test_unreadable_content_file_is_content_error(tmp_path, name):
    folder = _copy_content(name, tmp_path)
    f = folder / f"{HOOKS[name].content_files[-1]}.toml"
    f.write_bytes(b'name = "\xff\xfe"\n')
    with pytest.raises(ContentError, match=f.name):
        _load(name, folder)
    f.unlink()
    with pytest.raises(ContentError, match="missing"):
        _load(name, folder)


def test_renamed_unbroken_condition_names_conditions_toml(tmp_path):
    """Found by the content fuzz: renaming a condition in conditions.toml was
    refused by the first card using the old name, in a message that named
    only the card's file; it now names conditions.toml and its names too."""
    from dungeonrl.envs.unbroken import content as UC

    folder = tmp_path / "content"
    shutil.copytree(UC.DATA_DIR, folder)
    f = folder / "conditions.toml"
    text = f.read_text()
    assert '"Shaken"' in text
    f.write_text(text.replace('"Shaken"', '"x"', 1))
    with pytest.raises(ContentError, match=r"unknown condition 'Shaken' \(conditions\.toml names"):
        UC.load_content(str(folder))
