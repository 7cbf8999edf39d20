"""The engine's small shared helpers that the games call with their own
facts (one place each, where the games once wrote the same lines)."""

import numpy as np
import pytest

from dungeonrl.envs.core.errors import CorruptStateError
from dungeonrl.envs.core.validate import Ctx


def test_seats_left_empty_names_the_first_field_off_its_empty_value():
    dtype = np.dtype([("hp", np.int16, (4,)), ("pos", np.int8, (4,))])
    s = np.zeros((), dtype)
    s["pos"][:] = -1
    s["hp"][:2] = 5
    s["pos"][:2] = 3
    ctx = Ctx(s, None, {}, "probe")
    ctx.seats_left_empty({"hp": 0, "pos": -1}, 2)  # seats 2..3 empty: passes
    s["pos"][3] = 0
    with pytest.raises(CorruptStateError, match=r"field 'pos'.*seats 2\.\.3 are not at the table"):
        ctx.seats_left_empty({"hp": 0, "pos": -1}, 2)


def test_players_option_builds_the_argparse_entry_of_num_players():
    import argparse

    from dungeonrl.envs.core.hooks import GameHooks, add_core_options, players_option

    flag, kwargs = players_option("seats, 2..8")
    assert flag == "--players" and kwargs["help"] == "seats, 2..8"
    parser = argparse.ArgumentParser()
    add_core_options(parser, GameHooks(core_options=(players_option("seats"),)))
    assert parser.parse_args(["--players", "3"]).num_players == 3
    assert parser.parse_args([]).num_players is None


def test_a_game_names_only_the_companions_that_lie_off_their_conventional_places():
    from dungeonrl.envs import catalog

    assert catalog.conventional_companions("no_such_game_xyz", 0) == {}
    for name, game in catalog.ENTRIES.items():
        found = catalog.conventional_companions(name, game.version)
        assert found["agent_hooks"] == f"dungeonrl.envs.{name}.hooks:HOOKS"
        for field, target in found.items():
            assert getattr(game, field) == target, (name, field)
        pz = found.get("pettingzoo")
        assert pz in (None, f"dungeonrl.envs.{name}_v{game.version}")


def test_take_snapshot_refuses_an_env_not_reset_and_keeps_row_zero():
    from types import SimpleNamespace

    from dungeonrl.envs.core.errors import ResetNeededError
    from dungeonrl.envs.core.snapshot import take_snapshot

    spec = SimpleNamespace(name="probe", layout_version="v1")
    states = np.arange(6, dtype=np.int32)
    with pytest.raises(ResetNeededError):
        take_snapshot(spec, states, False, 0, 0.0, False)
    snap = take_snapshot(spec, states, True, 3, 1.5, True)
    assert (snap.game, snap.step_count, snap.episode_return, snap.done) == ("probe", 3, 1.5, True)
    assert snap.state == states[:1].tobytes()


def test_compiled_content_packs_the_record_and_digests_the_given_tables():
    from collections import namedtuple
    from dataclasses import dataclass

    from dungeonrl.envs.core.authoring.content import CompiledContent, tables_digest

    @dataclass
    class ProbeContent(CompiledContent):
        names: tuple

    Tables = namedtuple("Tables", "a n")
    base = Tables(np.arange(3, dtype=np.int16), 2)
    c = ProbeContent.compiled(base, "/data", names=("x",))
    assert c.names == ("x",) and c.folder == "/data" and c.tables is base
    assert c.digest == tables_digest(base) and not c.record.flags.writeable
    assert list(c.record[0]["a"]) == [0, 1, 2] and int(c.record[0]["n"]) == 2
    more = Tables(base.a * 2, 2)
    assert ProbeContent.compiled(more, "/data", digest_of=base, names=()).digest == c.digest


def test_content_cache_loader_compiles_a_folder_once_per_digest(tmp_path):
    from dungeonrl.envs.core.authoring.content import ContentCache

    (tmp_path / "cards.toml").write_text("n = 1\n")
    built = []
    load = ContentCache(("cards",)).loader(str(tmp_path), lambda f: built.append(f) or len(built))
    assert load() == 1 and load(str(tmp_path)) == 1 and built == [str(tmp_path)]
    (tmp_path / "cards.toml").write_text("n = 2\n")  # an edited folder is compiled again
    assert load() == 2


def test_action_and_observation_layouts_share_one_end_to_end_shape():
    from dungeonrl.envs.core.layout import ActionLayout, ObsLayout, act, block

    acts = ActionLayout("probe", [act("pick", 3, "pick K"), act("pass", 1, "pass")])
    obs = ObsLayout("probe", [block("hp", 2, "hit points"), block("seat", (2, 3), "seats")])
    assert (len(acts), acts.start("pass"), acts.decode(2)) == (4, 3, ("pick", 2))
    assert (len(obs), obs.offset("seat"), list(obs)) == (8, 2, list(obs.blocks))
    assert repr(acts) == "ActionLayout('probe', 2 ranges, 4 actions)"
    assert repr(obs) == "ObsLayout('probe', 2 blocks, 8 columns)"
    with pytest.raises(KeyError, match="no feature block 'x'; blocks"):
        obs.offset("x")
    with pytest.raises(ValueError, match="action range 'pick' declared twice"):
        ActionLayout("probe", [act("pick", 1, "a"), act("pick", 1, "b")])
    with pytest.raises(TypeError, match=r"expected FeatureBlock entries \(use block\(\)\)"):
        ObsLayout("probe", [act("pick", 1, "a")])
