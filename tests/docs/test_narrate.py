"""Narration for ``dungeonrl play``: scripted scenarios with forced dice
(the ``forced`` / ``forced_n`` / ``forced_i`` queue of the state records)
check that the words name the die results, the damage, the items and prices
that the records show, and never a rival's hidden cards."""

from __future__ import annotations

import numpy as np
import pytest
from helpers.unbroken_util import Game as UGame

from dungeonrl.envs.dungeon_crawler import consts as DC
from dungeonrl.envs.dungeon_crawler import make_core
from dungeonrl.envs.dungeon_crawler import narrate as dcn
from dungeonrl.envs.dungeon_crawler.rules_py import hero_view
from dungeonrl.envs.unbroken import consts as UC
from dungeonrl.envs.unbroken import narrate as ubn


def text(lines):
    assert all(isinstance(x, str) and x for x in lines)
    return "\n".join(lines)


# --- Unbroken -------------------------------------------------------------------------------
def unbroken_battle():
    g = UGame("sneak", "normal", seed=0)
    g.goto_level(1)
    g.set_monster("Grey Wolf")
    g.set_res(small=15, food=3)
    g.refresh()
    g.act("fight")
    while g.phase() in ("trickery", "response"):
        g.act("battle" if g.phase() == "trickery" else "pass")
    assert g.phase() == "battle_turn"
    return g


@pytest.mark.parametrize("face", [2, 5])
def test_unbroken_monster_roll_and_damage(face):
    g = unbroken_battle()
    m = g.monster("Grey Wolf")
    h0 = int(g["m_health"])
    g.force(face)  # the Grey Wolf's Combat Roll after our attack
    before = g.s.copy()
    g.act([a for a in g.legal() if a.startswith("attack_")][0])  # a wound attack (no Armor)
    assert int(g["forced_i"]) == 1 and g.phase() == "response"  # Dodge may answer the roll
    said = text(ubn.narrate(g.core, before, g.s))
    dealt = h0 - int(g["m_health"])
    assert dealt > 0 and f"you dealt {dealt} wounds to Grey Wolf" in said
    assert f"Grey Wolf rolled {face} on the Slashes Die" in said
    face_type = UC.FACE_TYPES[int(g.T.m_face_type[m, face - 1])]
    assert f"-> {face_type}:" in said
    # passing lets the face land: the narration names what was lost
    before = g.s.copy()
    g.act("pass")
    said = text(ubn.narrate(g.core, before, g.s))
    lost = [
        f"{int(before['res'][r]) - int(g['res'][r])} {UC.RES_NAMES[r]}"
        for r in range(UC.NRES)
        if int(g["res"][r]) < int(before["res"][r])
    ]
    assert face_type != "wound" or lost  # a wound face costs Effort
    if lost:
        assert "lost " + ", ".join(lost) in said
    if face_type == "time":
        assert "Time -" in said


def test_unbroken_narration_is_a_diff():
    g = unbroken_battle()
    assert ubn.narrate(g.core, g.s, g.s.copy()) == []
    after = g.s.copy()
    after["res"][UC.R_FOOD] += 2
    after["cond"][g.cond(g.ct.condition_names[0])] = 1
    said = text(ubn.narrate(g.core, g.s, after))
    assert "gained 2 food" in said and f"you suffer {g.ct.condition_names[0]}" in said
    # the generator and the undrawn deck are never read
    hidden = g.s.copy()
    hidden["rng"] += np.uint64(7)
    k = int(hidden["enc_deck_n"])
    hidden["enc_deck"][:k] = hidden["enc_deck"][:k][::-1]
    assert ubn.narrate(g.core, g.s, hidden) == []


def test_unbroken_hand_text_and_legend():
    g = unbroken_battle()
    g.give_skill(g.ct.skill_names[0])
    said = text(ubn.hand_text(g.core, g.s))
    assert "Sneak" in said and "Dodge" in said and g.ct.skill_names[0] in said
    assert "Bare Hands" in said
    leg = text(ubn.legend(g.core))
    assert "DEFEND" in leg and "Effort" in leg


# --- Dungeon Crawler ------------------------------------------------------------------------
class DGame:
    """A 2-seat game driven by hand (no auto-advance)."""

    def __init__(self, seed=0):
        self.core = make_core(num_players=2, auto_advance=False)
        self.T = self.core.T
        self.st = self.core.alloc(1)
        self.core.reset(self.st, np.array([seed], np.uint64))

    @property
    def s(self):
        return self.st[0]

    def act(self, a):
        assert self.s["legal"][a], self.core.spec.action_names[a]
        z = np.zeros(1, bool)
        self.core.step(self.st, np.array([a]), np.zeros((1, 2), np.float32), z, z.copy(), z.copy())

    def force(self, *dice):
        self.s["forced"][:] = 0
        self.s["forced"][: len(dice)] = dice
        self.s["forced_n"] = len(dice)
        self.s["forced_i"] = 0

    def creation_step(self):
        ph = int(self.s["phase"])
        if ph == DC.PH_ASSIGN:
            h = int(self.s["actor"])
            self.act(DC.A_ASSIGN0 + int(np.flatnonzero(self.s["rolled"][h] == 0)[0]))
        elif ph == DC.PH_REBAL:
            self.act(DC.A_REBAL_DONE)
        else:
            self.act(DC.A_DRAFT0)


def test_dungeon_crawler_forced_movement_roll():
    g = DGame(seed=4)
    while not (int(g.s["phase"]) == DC.PH_DRAFT and int(g.s["actor"]) == 1):
        g.creation_step()
    g.force(4)  # seat 0's first movement die
    before = g.s.copy()
    g.act(DC.A_DRAFT0)
    assert int(g.s["phase"]) == DC.PH_MOVE and int(g.s["forced_i"]) == 1
    boots = int(g.s["roll"]) - 4
    said = text(dcn.narrate(g.core, before, g.s, 0))
    assert "turn starts; movement roll 4" in said
    if boots:
        assert f"+ {boots} boots" in said
    # seat 0's drawn card is named to seat 0 only
    drawn = [c for c in range(DC.MAX_CARDS) if int(g.s["hand"][0, c]) > int(before["hand"][0, c])]
    assert len(drawn) == 1  # one card drawn at the turn start
    name = g.core.content.card_names[drawn[0]]
    assert f"you drew {name}" in said
    other = text(dcn.narrate(g.core, before, g.s, 1))
    assert name not in other and "player_0 drew 1 card" in other


def test_dungeon_crawler_combat_dice_and_damage():
    g = DGame(seed=2)
    while int(g.s["phase"]) in (DC.PH_ASSIGN, DC.PH_REBAL, DC.PH_DRAFT):
        g.creation_step()
    T, s = g.T, g.s
    h = int(s["actor"])
    for sl in range(DC.NSLOT):  # no gear: stats are the base stats
        it = int(s["equip"][h, sl])
        if it >= 0:
            s["equip"][h, sl] = -1
            s["item_disc"][int(s["item_disc_n"])] = it
            s["item_disc_n"] += 1
    s["base"][h] = (12, 4, 30, 20)
    s["hp"][h] = 30
    f, mob = 0, 0
    q = [q for q in range(int(T.floor_len[f])) if T.sq_kind[f, q] == DC.SQ_MOB][0]
    s["sq_mob"][f, q] = mob
    s["sq_hp"][f, q] = 40
    s["sq_alive"][f, q] = 1
    s["floor"][h], s["pos"][h], s["roll"] = f, q - 1, 1
    g.core.refresh(g.st)
    g.act(DC.A_FWD0)
    assert int(g.s["phase"]) == DC.PH_COMBAT
    matk, mdef = int(T.mob_stats[mob, 0]), int(T.mob_stats[mob, 1])
    g.force(3, 6)  # the hero is faster: hero die 3, then monster die 6
    before = g.s.copy()
    g.act(DC.A_FIGHT)
    assert int(g.s["forced_i"]) == 2
    hit = max(1, 12 + 3 - mdef)
    took = max(1, matk + 6 - 4)
    assert int(g.s["sq_hp"][f, q]) == 40 - hit and int(g.s["hp"][h]) == 30 - took
    said = text(dcn.narrate(g.core, before, g.s, h))
    name = g.core.content.mob_names[mob]
    assert hit > 1 and took > 1  # both dice readable from the damage
    assert f"you hit {name} for {hit} (rolled 3)" in said
    assert f"you lost {took} HP from {name} (rolled 6)" in said


def test_dungeon_crawler_items_prices_deaths():
    g = DGame(seed=1)
    while int(g.s["phase"]) in (DC.PH_ASSIGN, DC.PH_REBAL, DC.PH_DRAFT):
        g.creation_step()
    ct, T = g.core.content, g.T
    p = g.s.copy()
    p["offer_kind"], p["offer_seat"], p["offer_n"] = DC.OF_ARMORY, 0, 1
    it = int(p["item_deck"][0])
    p["offer"][0] = it
    s = p.copy()
    s["offer_kind"], s["offer_n"] = DC.OF_NONE, 0
    old = int(p["equip"][0, int(T.item_slot[it])])
    s["equip"][0, int(T.item_slot[it])] = it
    price = int(T.item_price[int(T.item_tier[it])])
    p["gold"][0] = price + 2
    s["gold"][0] = 2
    said = text(dcn.narrate(g.core, p, s, 1))
    assert f"player_0 bought {ct.item_names[it]}" in said and f"for {price} gold" in said
    if old >= 0:
        assert f"replacing {ct.item_names[old]}" in said
    assert "spent" not in said  # the price is told once
    # a death: the hero respawns; lost items are named
    d = s.copy()
    d["deaths"][1] += 1
    d["kills"][0] += 1
    gone = [sl for sl in range(DC.NSLOT) if int(s["equip"][1, sl]) >= 0]
    assert gone  # the drafted item
    d["equip"][1, gone[0]] = -1
    said = text(dcn.narrate(g.core, s, d, 1))
    assert "you were slain by player_0" in said
    if gone:
        assert f"you lost {ct.item_names[int(s['equip'][1, gone[0]])]}" in said
    # hand text: own cards by name and effect; legend covers every map symbol
    c = int(g.s["card_deck"][0])
    g.s["hand"][0, c] += 1
    g.s["hand_n"][0] += 1
    ht = text(dcn.hand_text(g.core, g.s, 0))
    assert ct.card_names[c] in ht and dcn.card_text(g.core, c) in ht
    assert f"HP {hero_view(g.core, g.s, 0)['hp']}" in ht
    leg = text(dcn.legend(g.core))
    assert all(ch in leg for ch in DC.SQ_CHARS)


def test_narrator_collects_every_step_until_flush():
    from dungeonrl.envs.core.adapters.aec import DungeonAECEnv
    from dungeonrl.envs.core.authoring.narration import Narrator

    env = DungeonAECEnv("dungeon_crawler", num_players=3)
    env.reset(seed=1)
    nar = Narrator(env.core, seat=0)
    nar.reset(env._states[0])
    steps = 0
    for _agent in env.agent_iter(max_iter=120):
        obs, r, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        env.step(int(np.flatnonzero(obs["action_mask"])[0]))
        nar.record(env._states[0])
        steps += 1
    lines = nar.flush()
    assert steps > 50 and len(lines) > 20
    assert any("player_1" in x for x in lines) and any("you" in x for x in lines)
    assert nar.flush() == []
    assert nar.hand(env._states[0])[0].startswith("You are player_0")
    assert nar.legend()
    with pytest.raises(RuntimeError):
        Narrator(env.core).record(env._states[0])


@pytest.mark.parametrize("game,kw", [("unbroken", {}), ("dungeon_crawler", {"num_players": 4})])
def test_narration_soak_whole_games(game, kw):
    """Whole heuristic and random games: every step narrates without error,
    in plain sentences, for every seat; hand texts too."""
    import importlib

    from dungeonrl.agents.policy import make_agent
    from dungeonrl.envs.core.batch import Batch
    from dungeonrl.envs.core.common import seed_batch
    from dungeonrl.registry import get_spec

    core = get_spec(game).make_core(**kw)
    mod = importlib.import_module(f"dungeonrl.envs.{game}.narrate")
    total = 0
    for agent_name, seed in (("heuristic", 0), ("random", 1)):
        agent = make_agent(agent_name, core, seed=seed)
        buf = Batch(core, 1)
        buf.reset(seed_batch(seed, 1))
        rows = np.zeros(1, np.int64)
        prev = buf.states[0].copy()
        for _ in range(1500):
            if core.is_over(buf.states[0]):
                break
            buf.players[:] = np.maximum(core.to_play(buf.states), 0)
            core.observe(buf.states, buf.players, buf.obs)
            core.legal_mask(buf.states, buf.masks)
            buf.actions[:] = agent.act(buf, rows)
            core.step(
                buf.states, buf.actions, buf.rewards, buf.terminated, buf.truncated, buf.illegal
            )
            for seat in range(core.num_players):
                lines = mod.narrate(core, prev, buf.states[0], seat)
                total += len(lines)
                for x in lines:
                    assert isinstance(x, str) and x.strip() and "None" not in x
            prev = buf.states[0].copy()
        for seat in range(core.num_players):
            assert mod.hand_text(core, buf.states[0], seat)
    assert total > 100
