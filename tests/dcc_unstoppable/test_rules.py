"""Dungeon Crawler Carl: Unstoppable rules at ROW level (no engine): the
rulebook's worked examples as scripted scenarios, and a random-legal-play
soak with an independent invariant checker.

Records are built with ``np.zeros(1, STATE_DTYPE)[0]``; the header is set by
hand (rng seeded, num_players, max_steps, auto_advance = 0) and the row
functions are called directly.
"""

import numpy as np
import pytest

from dungeonrl.envs.core.kernel.chance import force, order_for
from dungeonrl.envs.core.kernel.rng import rng_choice_mask, rng_seed
from dungeonrl.envs.dcc_unstoppable import consts as C
from dungeonrl.envs.dcc_unstoppable import rules as R
from dungeonrl.envs.dcc_unstoppable.content import default_content
from dungeonrl.envs.dcc_unstoppable.state import STATE_DTYPE

CC = default_content()
T = CC.record[0]
TT = CC.tables
NAMES = C.ACTIONS.names()


def cfg(floor=1, diff=0, mode=0, crawler=0, race=C.RC_NONE, klass=C.RC_NONE):
    c = np.zeros(C.CFG_SIZE, np.int64)
    c[C.CFG_FLOOR], c[C.CFG_DIFFICULTY], c[C.CFG_MODE], c[C.CFG_CRAWLER] = (
        floor,
        diff,
        mode,
        crawler,
    )
    c[C.CFG_RACE0 : C.CFG_RACE0 + 2] = race
    c[C.CFG_CLASS0 : C.CFG_CLASS0 + 2] = klass
    c[C.CFG_DECK0 :] = -1
    return c


def new(num_players=1, seed=0, forced=(), **kw):
    """A reset record; ``forced``: chance results / shuffle orders queued
    before the setup (``chance.force``)."""
    arr = np.zeros(1, STATE_DTYPE)
    st = arr[0]
    rng_seed(st["rng"], seed, 0)
    st["num_players"] = num_players
    st["max_steps"] = 5000
    st["auto_advance"] = 0
    if forced:
        force(st, forced)
    R.configure_row(st, cfg(**kw))
    R.reset_row(st, T)
    return arr, st


def legal(st):
    m = np.zeros(C.NUM_ACTIONS, np.uint8)
    R.legal_row(st, T, m)
    return set(np.flatnonzero(m).tolist())


def act(st, a):
    assert a in legal(st), (NAMES[a], [NAMES[x] for x in sorted(legal(st))])
    rew = np.zeros(2, np.float32)
    R.apply_row(st, T, a, rew)
    return rew


def to_main(st):
    while st["phase"] == C.PH_DRAFT:
        act(st, min(legal(st)))
    assert st["phase"] == C.PH_MAIN


def tid(name, k=0):
    return [i for i, n in enumerate(CC.threat_names) if n == name][k]


def cid(name, k=0):
    return [i for i, n in enumerate(CC.core_names) if n == name][k]


def free(st, s):
    z = st["sl_zone"][s]
    if z in (C.Z_DECK, C.Z_HAND, C.Z_DISCARD, C.Z_BATTLE, C.Z_PLAY):
        R.take(st, s)
    elif z == C.Z_TDECK:
        n = st["tdeck_n"]
        lst = [x for x in st["tdeck"][:n] if x != s]
        st["tdeck"][:] = -1
        st["tdeck"][: len(lst)] = lst
        st["tdeck_n"] = len(lst)
    st["sl_zone"][s] = C.Z_BOX


def clear(st, p=0):
    """Empty seat p's deck, hand, battlefield, discard and play area."""
    for s in range(C.NSLEEVE):
        if st["sl_owner"][s] == p and st["sl_zone"][s] in (
            C.Z_DECK,
            C.Z_HAND,
            C.Z_DISCARD,
            C.Z_BATTLE,
            C.Z_PLAY,
        ):
            free(st, s)
    st["fresh"][p] = 0


def card(st, s, core, zone, p=0):
    """Put sleeve s (threat side) with core side ``core`` (-1 none) into
    seat p's ``zone`` (on top)."""
    free(st, s)
    st["sl_core"][s] = core
    st["sl_dmg"][s] = 0
    st["sl_seen"][s] = 1
    st["sl_loom"][s] = 1 if (s >= 76 and TT.t_kw[s] & C.KW_LOOMING) else 0
    R.put(st, s, zone, p)
    return s


def hand_slot(st, s, p=0):
    return list(st["hand"][p][: st["hand_n"][p]]).index(s)


def bf_slot(st, s, p=0):
    return list(st["bf"][p][: st["bf_n"][p]]).index(s)


def tgt(q, t):
    return C.A_TGT0 + q * C.TSLOTS + t


def play(st, s, p=0):
    return act(st, C.A_HAND0 + hand_slot(st, s, p))


def danger_index(st, level):
    f, m = st["cfg_floor"] - 1, st["cfg_mode"]
    for i in range(TT.tr_len[f, m]):
        if TT.tr_level[f, m, i] == level and TT.tr_border[f, m, i] == 0:
            return i
    raise AssertionError


# Starting threat sleeves used as spare "cards": Carl's are 0..10, Donut's 11..21
STRIKE = cid("Strike")
HAYMAKER = cid("Haymaker")
JUG = cid("Jug of Hooch")


# =============================================================================
# setup and upkeep
# =============================================================================
def test_setup_solo_defaults():
    arr, st = new(seed=3)
    # DCC-105..107, DCC-118: health 10, mana 2 (+1 in the first upkeep), gold 3
    assert st["health"][0] == 10 and st["mana"][0] == 3 and st["gold"][0] == 3
    assert st["ap"][0] == 3 and st["level"][0] == 1 and st["small"][0] == 1
    assert st["phase"] == C.PH_DRAFT and st["actor"] == 0
    # draft reveals 3 from the level-1 core deck (DCC-124)
    assert sorted(legal(st)) == [C.A_DRAFT0, C.A_DRAFT0 + 1, C.A_DRAFT0 + 2]
    assert all(TT.c_level[c] == 1 for c in st["reveal"][:3])
    # battlefield: 3 non-Fast active threats and an on-deck threat (DCC-113)
    assert R.active_count(st, T, 0, False) == 3 and st["deck_n"][0] >= 1
    n_owned = st["hand_n"][0] + st["deck_n"][0] + st["bf_n"][0]
    assert st["hand_n"][0] == 3 and n_owned == 11
    kept = st["reveal"][1]
    top_threat = st["tdeck"][st["tdeck_n"] - 1]
    act(st, C.A_DRAFT0 + 1)
    assert st["phase"] == C.PH_DRAFT and st["dec"] == C.DEC_BOTTOM  # DCC-125
    act(st, C.A_DRAFT0)
    # DCC-126/127: kept core sleeved with the top threat, into the hand
    assert st["sl_core"][top_threat] == kept and st["sl_zone"][top_threat] == C.Z_HAND
    assert st["sl_seen"][top_threat] == 0  # DCC-129: not looked at
    assert st["phase"] == C.PH_MAIN and st["hand_n"][0] == 4


LEVEL1 = [c for c in range(C.NCORE_LEVELED) if TT.c_level[c] == 1]  # the deck as built


@pytest.mark.parametrize("lowest", [1, 2])
def test_unkept_draft_cards_go_to_the_bottom_in_the_chosen_order(lowest):
    # the setup's first shuffle (the level-1 core deck) forced: a, b, c on top
    a, b, c = LEVEL1[0], LEVEL1[4], LEVEL1[2]
    arr, st = new(seed=4, forced=[order_for(LEVEL1, [a, b, c])])
    assert list(st["reveal"][:3]) == [c, b, a]  # revealed from the top (DCC-124)
    rest = [x for x in LEVEL1 if x not in (a, b, c)]
    assert list(st["cdeck"][0][: st["cdeck_n"][0]]) == rest
    act(st, C.A_DRAFT0)  # keep c
    # both orders of the two others are offered (DCC-125), nothing else
    assert st["phase"] == C.PH_DRAFT and st["dec"] == C.DEC_BOTTOM and st["actor"] == 0
    assert legal(st) == {C.A_DRAFT0 + 1, C.A_DRAFT0 + 2}
    act(st, C.A_DRAFT0 + lowest)  # this one goes lowest
    low, above = (b, a) if lowest == 1 else (a, b)
    assert list(st["cdeck"][0][: st["cdeck_n"][0]]) == [low, above] + rest
    assert st["phase"] == C.PH_MAIN and st["dec"] == C.DEC_NONE
    assert st["core_zone"][a] == st["core_zone"][b] == C.CZ_CDECK


def test_arcade_race_and_class_choice_and_preset():
    arr, st = new(seed=5, race=C.RC_DRAFT, klass=C.RC_DRAFT)
    assert st["phase"] == C.PH_RACE
    offer = list(st["race_offer"][0])
    assert len(set(offer)) == 3 and C.A_PRESET in legal(st)  # DCC-293/295
    act(st, C.A_RACE0 + 2)
    assert st["race"][0] == offer[2] and st["phase"] == C.PH_CLASS
    act(st, C.A_CLASS0)
    r = offer[2]
    assert st["health"][0] == TT.r_health[r]  # DCC-066
    arr, st = new(seed=5, race=C.RC_DRAFT, klass=C.RC_DRAFT, crawler=1)
    act(st, C.A_PRESET)
    assert st["race"][0] == TT.cr_race[1] and st["klass"][0] == TT.cr_class[1]
    assert st["phase"] == C.PH_DRAFT


def test_upkeep_caps_and_refresh():
    arr, st = new(seed=6)
    to_main(st)
    st["mana"][0] = 10
    st["ap"][0] = 5
    ally = card(st, 5, cid("Stray Dog"), C.Z_PLAY)
    st["sl_exh"][ally] = 1
    rew = np.zeros(2, np.float32)
    st["ap"][0] = 5
    R.start_turn(st, T, rew)
    assert st["mana"][0] == 10  # DCC-117
    assert st["ap"][0] == 6  # A-30, DCC-332
    assert st["sl_exh"][ally] == 0  # DCC-120


# =============================================================================
# damage, defeat, keywords
# =============================================================================
def scene(num_players=1, seed=1):
    arr, st = new(num_players, seed=seed)
    to_main(st)
    for p in range(num_players):
        clear(st, p)
    return arr, st


def test_damage_assignment_and_defeat():
    arr, st = scene()
    trog = card(st, tid("Loot Goblin"), HAYMAKER, C.Z_BATTLE)  # 1/2, +3 gold
    s1 = card(st, 0, STRIKE, C.Z_HAND)
    s2 = card(st, 1, HAYMAKER, C.Z_HAND)
    card(st, 2, STRIKE, C.Z_DECK)  # keep the deck non-empty
    st["ap"][0] = 6
    gold = st["gold"][0]
    assert R.t_health(st, T, trog) == TT.t_atk[trog] + TT.t_def[trog] == 3  # DCC-168
    play(st, s1)
    assert st["dec"] == C.DEC_TARGET
    act(st, tgt(0, bf_slot(st, trog)))
    assert st["sl_dmg"][trog] == 1 and st["sl_zone"][trog] == C.Z_BATTLE  # DCC-166/327
    play(st, s2)
    act(st, tgt(0, bf_slot(st, trog)))
    # 1 + 3 >= 3: defeated, bonus gained, into the hand core side up (DCC-171)
    assert st["sl_zone"][trog] == C.Z_HAND and st["sl_dmg"][trog] == 0
    assert st["gold"][0] == gold + 3
    assert st["sl_zone"][s1] == C.Z_PLAY and st["sl_zone"][s2] == C.Z_PLAY


def test_juicer_and_goblin_examples():
    arr, st = scene()
    j = card(st, tid("Juicer"), -1, C.Z_BATTLE)
    assert R.t_health(st, T, j) == 8  # DCC-170
    g = card(st, tid("Goblin"), STRIKE, C.Z_BATTLE)
    st["danger"] = danger_index(st, 2)
    assert R.t_attack(st, T, g) == 3  # DCC-190
    st["danger"] = 0
    assert R.t_attack(st, T, g) == 1


def test_threat_phase_damage_looming_and_fast():
    arr, st = scene()
    a = card(st, tid("Troglodyte"), STRIKE, C.Z_BATTLE)
    f = card(st, tid("Swarmling"), STRIKE, C.Z_BATTLE)  # Fast, 1
    b = card(st, tid("Krakaren Matron"), -1, C.Z_BATTLE)  # Looming boss
    st["sl_dmg"][a] = 3  # damage does not reduce attack (DCC-193)
    for k in range(6):
        card(st, 3 + k, STRIKE, C.Z_DECK)
    st["health"][0] = 10
    hits = TT.t_atk[a] + TT.t_atk[f]
    assert hits >= 2
    act(st, C.A_END)
    # both active threats hit; the Looming boss deals none (DCC-185/374)
    assert st["health"][0] == 10 - hits
    # cleanup: Fast and Looming threats do not count: 3 non-Fast active ones
    assert R.active_count(st, T, 0, False) == 3  # DCC-370/371
    assert st["sl_zone"][f] == C.Z_BATTLE and st["sl_loom"][b] == 1
    # damaging a Looming threat turns it active for good (DCC-375)
    to_main(st)
    s = card(st, 20, STRIKE, C.Z_HAND)
    st["ap"][0] = 3
    play(st, s)
    act(st, tgt(0, bf_slot(st, b)))
    assert st["sl_loom"][b] == 0 and st["sl_dmg"][b] == 1


def test_taunt_restricts_damage_targets_per_battlefield():
    arr, st = scene(num_players=2, seed=2)
    orc = card(st, tid("Bully Orc"), STRIKE, C.Z_BATTLE, 0)
    rat = card(st, 0, STRIKE, C.Z_BATTLE, 0)
    mate = card(st, 12, STRIKE, C.Z_BATTLE, 1)
    card(st, 1, STRIKE, C.Z_DECK, 0)
    card(st, 13, STRIKE, C.Z_DECK, 1)
    s = card(st, 2, STRIKE, C.Z_HAND, 0)
    st["ap"][0] = 3
    st["actor"] = 0
    play(st, s)
    L = legal(st)
    assert tgt(0, bf_slot(st, orc)) in L  # DCC-382
    assert tgt(0, bf_slot(st, rat)) not in L and tgt(0, C.ONDECK) not in L
    assert tgt(1, bf_slot(st, mate, 1)) in L and tgt(1, C.ONDECK) in L  # DCC-285
    act(st, C.A_SKIP)
    # Taunt on the on-deck threat also restricts (DCC-178)
    R.take(st, orc)
    st["sl_zone"][orc] = C.Z_BOX
    card(st, orc, STRIKE, C.Z_DECK, 0)
    s2 = card(st, 3, STRIKE, C.Z_HAND, 0)
    play(st, s2)
    L = legal(st)
    assert tgt(0, C.ONDECK) in L and tgt(0, bf_slot(st, rat)) not in L


def test_retaliate_per_damage_effect_and_terror():
    arr, st = scene()
    llama = card(st, tid("Thorn Beast"), STRIKE, C.Z_BATTLE)  # health 3, Retaliate
    assert R.t_health(st, T, llama) == 3 and TT.t_kw[llama] & C.KW_RETALIATE
    card(st, 1, STRIKE, C.Z_DECK)
    jug = card(st, 2, JUG, C.Z_HAND)  # 1 + 1 damage
    st["ap"][0] = 3
    st["health"][0] = 10
    play(st, jug)
    act(st, tgt(0, bf_slot(st, llama)))
    assert st["health"][0] == 9  # DCC-377
    act(st, tgt(0, bf_slot(st, llama)))
    assert st["health"][0] == 8  # DCC-378
    assert st["sl_dmg"][llama] == 2
    # Terror: lose 1 action point per targeting, never below 0 (DCC-385)
    sham = card(st, tid("Cultist Zealot"), STRIKE, C.Z_BATTLE)  # 1/2 Terror
    s = card(st, 3, STRIKE, C.Z_HAND)
    st["ap"][0] = 2
    play(st, s)
    act(st, tgt(0, bf_slot(st, sham)))
    assert st["ap"][0] == 0
    s = card(st, 4, cid("Quick Jab"), C.Z_HAND)  # cost 0
    play(st, s)
    act(st, tgt(0, bf_slot(st, sham)))
    assert st["ap"][0] == 0


def test_sacrifice_discard_and_tough_ally():
    arr, st = scene()
    hound = card(st, tid("Ghoul Hound"), STRIKE, C.Z_BATTLE)  # 2/1 Sacrifice
    card(st, 1, STRIKE, C.Z_DECK)
    hay = card(st, 2, HAYMAKER, C.Z_HAND)
    other = card(st, 3, STRIKE, C.Z_HAND)
    ally = card(st, 4, cid("Chris Andrews"), C.Z_PLAY)  # Tough
    st["ap"][0] = 3
    play(st, hay)
    act(st, tgt(0, bf_slot(st, hound)))
    assert st["dec"] == C.DEC_SACRIFICE  # DCC-379
    L = legal(st)
    assert C.A_HAND0 + hand_slot(st, other) in L
    assert C.A_PLAY0 + list(st["play"][0][: st["play_n"][0]]).index(ally) in L
    assert C.A_PLAY0 + list(st["play"][0][: st["play_n"][0]]).index(hay) not in L  # tactics no
    # the defeated card joined the hand after the Sacrifice, it is not offered
    assert st["sl_zone"][hound] == C.Z_HAND
    act(st, C.A_PLAY0 + list(st["play"][0][: st["play_n"][0]]).index(ally))
    # A-41 / DCC-365: an undamaged Tough ally takes 1 damage and stays
    assert st["sl_zone"][ally] == C.Z_PLAY and st["sl_dmg"][ally] == 1
    assert st["dec"] == C.DEC_NONE


def test_sacrifice_ignored_without_cards():
    arr, st = scene()
    hound = card(st, tid("Ghoul Hound"), STRIKE, C.Z_BATTLE)
    card(st, 1, STRIKE, C.Z_DECK)
    hay = card(st, 2, HAYMAKER, C.Z_HAND)
    st["ap"][0] = 3
    play(st, hay)
    act(st, tgt(0, bf_slot(st, hound)))
    # the Sacrifice is resolved before the card joins the hand, so with
    # an empty hand and no ally it is ignored (DCC-381)
    assert st["dec"] in (C.DEC_NONE, C.DEC_SACRIFICE)
    if st["dec"] == C.DEC_SACRIFICE:
        pytest.fail("Sacrifice must be ignored with no card in hand before the defeat")


def test_focus_and_unite_examples():
    arr, st = scene()
    t1 = card(st, tid("Bone Golem"), STRIKE, C.Z_BATTLE)
    card(st, 1, STRIKE, C.Z_DECK)
    boom = card(st, 2, cid("Make Stuff Go Boom"), C.Z_HAND)
    card(st, 3, STRIKE, C.Z_HAND)  # Carl's Strike: str
    st["ap"][0] = 6
    play(st, boom)  # Focus 2 (itself + one Strength card): "Focus 3+" fails
    assert st["dec"] == C.DEC_TARGET and st["pend_i"] == 1  # skipped to the 1-damage op
    act(st, C.A_SKIP)
    boom2 = card(st, 4, cid("Make Stuff Go Boom", 1), C.Z_HAND)
    play(st, boom2)  # hand Strike + boom in play + boom2 = 3 Strength
    assert st["pend_i"] == 0 and st["dec"] == C.DEC_TARGET  # DCC-357
    act(st, tgt(0, bf_slot(st, t1)))
    assert st["sl_dmg"][t1] == 3
    act(st, C.A_SKIP)
    # Unite: Team-Up Attack (str) + dex + cha cards = 3 damage (DCC-369)
    st["sl_dmg"][t1] = 0
    clear(st)
    t1 = card(st, tid("Bone Golem"), STRIKE, C.Z_BATTLE)
    card(st, 1, STRIKE, C.Z_DECK)
    card(st, 3, cid("Pocket Sand"), C.Z_HAND)  # dex
    card(st, 5, cid("Loot Box Peek"), C.Z_HAND)  # cha
    tu = card(st, 6, cid("Team-Up Attack"), C.Z_HAND)
    play(st, tu)
    act(st, tgt(0, bf_slot(st, t1)))
    assert st["sl_dmg"][t1] == 3


def test_magic_missile_spells_paid_separately():
    arr, st = scene()
    golem = card(st, tid("Bone Golem"), STRIKE, C.Z_BATTLE)
    card(st, 1, STRIKE, C.Z_DECK)
    mm = card(st, 2, cid("Magic Missile"), C.Z_HAND)
    st["ap"][0] = 3
    st["mana"][0] = 4
    play(st, mm)
    act(st, tgt(0, bf_slot(st, golem)))  # spell 1: 1 mana, 1 damage
    act(st, C.A_SKIP)  # forfeit spell 2 (DCC-149)
    assert st["dec"] == C.DEC_TARGET  # spell 3 affordable: 3 <= 3
    act(st, tgt(0, bf_slot(st, golem)))
    assert st["mana"][0] == 0 and st["sl_dmg"][golem] == 4  # DCC-361
    # a spell you cannot pay is forfeited (DCC-359)
    mm2 = card(st, 7, cid("Magic Missile"), C.Z_HAND)
    st["mana"][0] = 1
    play(st, mm2)
    act(st, tgt(0, bf_slot(st, golem)))
    assert st["dec"] == C.DEC_NONE and st["mana"][0] == 0


def test_basic_spells():
    arr, st = scene()
    golem = card(st, tid("Bone Golem"), STRIKE, C.Z_BATTLE)
    card(st, 1, STRIKE, C.Z_DECK)
    st["mana"][0] = 3
    assert C.A_SPELL_DMG not in legal(st)  # DCC-143
    st["mana"][0] = 7
    act(st, C.A_SPELL_DMG)
    act(st, tgt(0, bf_slot(st, golem)))
    assert st["mana"][0] == 3 and st["sl_dmg"][golem] == 1  # DCC-140
    st["health"][0] = 9
    act(st, C.A_SPELL_HEAL)
    assert st["mana"][0] == 0 and st["health"][0] == 10  # DCC-141


def test_fourth_repeat_eliminates():
    arr, st = scene()
    card(st, 1, STRIKE, C.Z_DECK)
    card(st, 2, STRIKE, C.Z_BATTLE)
    dog = card(st, 3, cid("Stray Dog"), C.Z_PLAY)
    for k in range(4):
        slot = list(st["play"][0][: st["play_n"][0]]).index(dog)
        gold = st["gold"][0]
        act(st, C.A_EXH0 + slot * C.NEXH)
        assert st["gold"][0] == gold + 1  # the 4th takes full effect
        if k < 3:
            assert st["sl_zone"][dog] == C.Z_PLAY  # DCC-136
            st["sl_exh"][dog] = 0  # refreshed (as by Drill Sergeant)
    assert st["sl_zone"][dog] == C.Z_ELIM  # DCC-135


def test_refresh_ally_through_drill_sergeant():
    arr, st = scene()
    card(st, 1, STRIKE, C.Z_DECK)
    card(st, 2, STRIKE, C.Z_BATTLE)
    dog = card(st, 3, cid("Stray Dog"), C.Z_PLAY)
    sgt = card(st, 4, cid("Drill Sergeant"), C.Z_PLAY)
    act(st, C.A_EXH0 + 0 * C.NEXH)
    assert st["sl_exh"][dog] == 1
    act(st, C.A_EXH0 + 1 * C.NEXH)  # refresh an ally
    assert st["dec"] == C.DEC_REFRESH
    assert C.A_PLAY0 + 1 not in legal(st)  # not itself (DCC-344)
    act(st, C.A_PLAY0 + 0)
    assert st["sl_exh"][dog] == 0 and st["sl_exh"][sgt] == 1


# =============================================================================
# level ups
# =============================================================================
def test_main_phase_level_up_with_empty_deck():
    arr, st = scene()
    rat = card(st, 0, STRIKE, C.Z_BATTLE)  # 0/1
    d1 = card(st, 1, STRIKE, C.Z_DISCARD)
    d2 = card(st, 2, STRIKE, C.Z_DISCARD)
    ca = card(st, 3, cid("Chris Andrews"), C.Z_PLAY)  # Tough ally
    dog = card(st, 4, cid("Stray Dog"), C.Z_PLAY)
    s = card(st, 5, STRIKE, C.Z_HAND)
    st["ap"][0] = 3
    play(st, s)
    act(st, tgt(0, bf_slot(st, rat)))
    # deck empty and no active threat: level up (DCC-227), allies leave
    # play except the undamaged Tough one (DCC-234, DCC-363)
    assert st["level"][0] == 2 and st["small"][0] == 2
    assert st["sl_zone"][ca] == C.Z_PLAY and st["sl_dmg"][ca] == 1
    assert st["sl_zone"][dog] == C.Z_DECK
    assert {st["sl_zone"][d1], st["sl_zone"][d2]} == {C.Z_DECK}
    # 3 cards + the neighborhood boss of the Floor 1 track's level-2 trigger
    assert st["disc_n"][0] == 0 and st["deck_n"][0] == 4
    # the played tactic stays in play (interrupted card, DCC-229)
    assert st["sl_zone"][s] == C.Z_PLAY
    # next level up: the damaged Tough ally goes (DCC-364/366)
    clear(st)
    ca = card(st, 3, cid("Chris Andrews"), C.Z_PLAY)
    st["sl_dmg"][ca] = 1
    R.level_up(st, T, 0, np.zeros(2, np.float32))
    assert st["sl_zone"][ca] == C.Z_DECK and st["sl_dmg"][ca] == 0


def test_cleanup_level_up_when_deck_runs_out():
    arr, st = scene()
    card(st, 0, STRIKE, C.Z_BATTLE)
    card(st, 1, STRIKE, C.Z_DECK)
    for k in range(2, 6):
        card(st, k, STRIKE, C.Z_DISCARD)
    st["health"][0] = 10
    act(st, C.A_END)
    # refill moved the only deck card, the deck emptied: level up, reshuffle,
    # continue until 3 non-Fast active + on-deck (DCC-199, A-09)
    assert st["level"][0] == 2
    # 4 discards + the level-2 boss form the new deck; 1 more card refilled
    assert R.active_count(st, T, 0, False) == 3 and st["deck_n"][0] == 4
    assert st["turn"] == 2


def test_floor1_arcade_level_triggers_and_stairs():
    arr, st = scene(seed=9)
    card(st, 1, STRIKE, C.Z_DISCARD)
    rew = np.zeros(2, np.float32)
    force(st, [0])
    R.level_up(st, T, 0, rew)  # to level 2: a neighborhood boss
    bosses = [s for s in range(76, 93) if st["sl_zone"][s] == C.Z_DECK]
    assert len(bosses) == 1 and TT.t_boss_kind[bosses[0]] == C.BK_NEIGHBORHOOD  # DCC-221
    R.level_up(st, T, 0, rew)
    R.level_up(st, T, 0, rew)  # to level 4: borough boss + stairs
    kinds = sorted(TT.t_boss_kind[s] for s in range(76, 93) if st["sl_zone"][s] == C.Z_DECK)
    assert kinds == [C.BK_NEIGHBORHOOD, C.BK_NEIGHBORHOOD, C.BK_BOROUGH]  # DCC-222/223
    assert st["deck"][0][0] == C.STAIRS0  # bottom of the deck


# =============================================================================
# two players
# =============================================================================
def test_two_player_draft_cross_pick():
    arr, st = new(2, seed=11)
    assert st["phase"] == C.PH_DRAFT and st["actor"] == 0
    assert list(st["reveal_set"]) == [0, 0, 1, 1]  # 2 + 2 (DCC-272)
    assert legal(st) == {C.A_DRAFT0 + i for i in range(4)}
    picked = st["reveal"][2]
    act(st, C.A_DRAFT0 + 2)  # Carl takes from Donut's set
    assert st["actor"] == 1
    assert legal(st) == {C.A_DRAFT0, C.A_DRAFT0 + 1}  # DCC-274
    other = st["reveal"][0]
    act(st, C.A_DRAFT0)
    assert st["phase"] == C.PH_MAIN  # co-op: no bottom order to choose (DCC-273)
    hands = [{st["sl_core"][s] for s in st["hand"][p][: st["hand_n"][p]]} for p in range(2)]
    assert picked in hands[0] and other in hands[1]
    # same-set pick: the teammate must take from the other set
    arr, st = new(2, seed=12)
    act(st, C.A_DRAFT0 + 1)
    assert legal(st) == {C.A_DRAFT0 + 2, C.A_DRAFT0 + 3}


def test_two_player_cross_battlefield_damage_and_bonus():
    arr, st = scene(num_players=2, seed=13)
    trog = card(st, tid("Troglodyte"), STRIKE, C.Z_BATTLE, 1)  # on Donut's side
    card(st, 12, STRIKE, C.Z_DECK, 1)
    card(st, 1, STRIKE, C.Z_DECK, 0)
    hay = card(st, 2, HAYMAKER, C.Z_HAND, 0)
    s = card(st, 3, STRIKE, C.Z_HAND, 0)
    st["actor"] = 0
    st["ap"][0] = 6
    g0, g1 = st["gold"][0], st["gold"][1]
    play(st, s)
    act(st, tgt(1, bf_slot(st, trog, 1)))  # DCC-283/284
    play(st, hay)
    act(st, tgt(1, bf_slot(st, trog, 1)))
    assert st["sl_zone"][trog] == C.Z_HAND and st["sl_owner"][trog] == 1  # DCC-286
    assert st["gold"][0] == g0 + 2 and st["gold"][1] == g1  # DCC-287


def test_two_player_pass_and_end_main():
    arr, st = scene(num_players=2, seed=14)
    for p in range(2):
        card(st, 1 + 11 * p, STRIKE, C.Z_DECK, p)
        card(st, 2 + 11 * p, STRIKE, C.Z_DECK, p)
        card(st, 3 + 11 * p, STRIKE, C.Z_DECK, p)
        card(st, 4 + 11 * p, STRIKE, C.Z_DECK, p)
    st["actor"] = 0
    assert C.A_PASS in legal(st)
    act(st, C.A_PASS)
    assert st["actor"] == 1  # DCC-277
    act(st, C.A_END)
    assert st["actor"] == 0 and C.A_PASS not in legal(st)
    d0 = st["danger"]
    act(st, C.A_END)
    assert st["turn"] == 2
    f, m = 0, 0
    nxt = d0 + 1
    while TT.tr_border[f, m, nxt] == C.B_GREEN:
        nxt += 1
    assert st["danger"] == nxt  # 1 space total (DCC-282)


# =============================================================================
# danger track, upgrades, end of the game
# =============================================================================
@pytest.mark.parametrize(
    "diff,border", [(0, C.B_GREEN), (1, C.B_YELLOW), (2, C.B_RED), (3, C.B_RED)]
)
def test_danger_skip_colours(diff, border):
    arr, st = new(seed=15, diff=diff)
    f, m = 0, 0
    rew = np.zeros(2, np.float32)
    visited = [0]
    while st["outcome"] == 0:
        R.advance_danger(st, T, rew)
        visited.append(int(st["danger"]))
    sk = TT.tr_len[f, m] - 1
    assert visited[-1] == sk and st["outcome"] == C.O_LOSS_SKULL  # DCC-201
    for i in range(1, sk):  # DCC-208..211
        if TT.tr_border[f, m, i] == border:
            assert i not in visited
        else:
            assert i in visited
    assert rew[0] == -1.0


def test_effect_spaces_are_optional_and_skipped_ones_do_not_trigger():
    arr, st = new(seed=16, diff=0)
    f, m = 0, 0
    effs = [i for i in range(TT.tr_len[f, m]) if TT.tr_effect[f, m, i] == C.SE_ELIMINATE]
    i = effs[0]
    assert TT.tr_border[f, m, i] != C.B_GREEN
    st["danger"] = i - 1
    while TT.tr_border[f, m, st["danger"] + 1] == C.B_GREEN:
        st["danger"] -= 1
    R.advance_danger(st, T, np.zeros(2, np.float32))
    assert st["space_queue"][0] == 1
    # on EXPERT a red elimination space is skipped and never triggers (DCC-220)
    red = [
        i
        for i in range(TT.tr_len[f, m])
        if TT.tr_effect[f, m, i] and TT.tr_border[f, m, i] == C.B_RED
    ]
    arr, st = new(seed=16, diff=2)
    st["danger"] = red[0] - 1
    R.advance_danger(st, T, np.zeros(2, np.float32))
    assert st["danger"] != red[0] and st["space_queue"].sum() == 0


def test_buy_upgrade_with_discount_and_cutout():
    arr, st = scene()
    card(st, 1, STRIKE, C.Z_DECK)
    card(st, 2, STRIKE, C.Z_BATTLE)
    s = card(st, 3, STRIKE, C.Z_HAND)  # Carl's Strike is Strength
    u = [i for i, n in enumerate(CC.upgrade_names) if n == "Serrated Edge"][0]
    st["market"][0] = u
    st["gold"][0] = 2
    assert C.A_BUY0 in legal(st)  # 3 - 1 (str discount) = 2
    act(st, C.A_BUY0)
    assert st["dec"] == C.DEC_UPGRADE
    act(st, C.A_HAND0 + hand_slot(st, s))
    assert st["sl_up"][s][TT.u_cutout[u]] == u and st["gold"][0] == 0  # DCC-160/163
    assert st["market"][0] >= 0 and st["market"][0] != u  # DCC-165
    # a filled cutout takes no second upgrade (DCC-161)
    st["market"][1] = [i for i, n in enumerate(CC.upgrade_names) if n == "Serrated Edge"][1]
    st["gold"][0] = 9
    for h in range(st["hand_n"][0]):
        assert not R.can_receive(st, T, 0, st["market"][1], st["hand"][0][h])
    # the threat side of the upgrade applies (DCC-188)
    assert R.t_attack(st, T, s) == TT.t_atk[s] + TT.u_atk[u]


def test_descend_and_win():
    arr, st = scene(seed=17)
    st["bosses"][C.BK_NEIGHBORHOOD] = 1
    st["bosses"][C.BK_BOROUGH] = 1
    card(st, 2, STRIKE, C.Z_BATTLE)
    R.put_deck_bottom(st, C.STAIRS0, 0)
    assert R.ondeck(st, 0) == C.STAIRS0
    assert C.A_DESCEND in legal(st)
    act(st, C.A_DESCEND)
    assert st["descended"][0] == 1 and st["outcome"] == 0
    rew = act(st, C.A_END)
    assert st["outcome"] == C.O_WIN and rew[0] == 1.0  # DCC-004
    assert st["score"] == st["xp"] * 100 and st["xp"] >= 1 + 2 + 4 - 2  # DCC-314


def test_no_cleanup_refill_or_level_up_after_the_stairs():
    """A crawler down the stairs this turn has left the floor: the Cleanup
    adds no threat to its battlefield, so no cleanup level up (DCC-196,
    DCC-230; README "Bosses, quests, stairs"); Unstoppable (DCC-310) needs
    Main Phase level ups (DCC-227)."""
    arr, st = scene(seed=17)
    st["bosses"][C.BK_NEIGHBORHOOD] = 1
    st["bosses"][C.BK_BOROUGH] = 1
    foe = card(st, 2, STRIKE, C.Z_BATTLE)  # an active threat: no main level up
    card(st, 3, STRIKE, C.Z_DISCARD)  # a refill would level up twice
    R.put_deck_bottom(st, C.STAIRS0, 0)
    level = st["level"][0]
    act(st, C.A_DESCEND)
    assert st["deck_n"][0] == 0 and st["level"][0] == level
    act(st, C.A_END)
    assert st["outcome"] == C.O_WIN
    assert st["level"][0] == level and st["levels_after_stairs"][0] == 0
    assert st["extra"][C.EX_UNSTOPPABLE] == 0
    assert list(st["bf"][0][: st["bf_n"][0]]) == [foe] and st["disc_n"][0] == 1
    # a Main Phase level up after the stairs still counts for Unstoppable
    arr, st = scene(seed=17)
    st["bosses"][C.BK_NEIGHBORHOOD] = 1
    st["bosses"][C.BK_BOROUGH] = 1
    card(st, 3, STRIKE, C.Z_DISCARD)
    R.put_deck_bottom(st, C.STAIRS0, 0)
    act(st, C.A_DESCEND)  # empty deck, no active threat
    assert st["level"][0] == level + 1 and st["levels_after_stairs"][0] == 1
    act(st, C.A_END)
    assert st["outcome"] == C.O_WIN and st["levels_after_stairs"][0] == 1


def test_descend_requires_the_bosses():
    arr, st = scene(seed=18)
    card(st, 2, STRIKE, C.Z_BATTLE)
    R.put_deck_bottom(st, C.STAIRS0, 0)
    st["bosses"][C.BK_NEIGHBORHOOD] = 1
    assert C.A_DESCEND not in legal(st)  # DCC-224


def test_loss_at_zero_health():
    arr, st = scene(seed=19)
    t = card(st, tid("Bully Orc"), STRIKE, C.Z_BATTLE)
    card(st, 1, STRIKE, C.Z_DECK)
    st["health"][0] = R.t_attack(st, T, t)
    rew = act(st, C.A_END)
    assert st["outcome"] == C.O_LOSS_HEALTH and st["health"][0] == 0  # DCC-192
    assert rew[0] == -1.0 and st["actor"] == -1
    assert len(legal(st)) == 0


# =============================================================================
# soak with an independent invariant checker
# =============================================================================
PILES = {
    C.Z_DECK: ("deck", "deck_n"),
    C.Z_HAND: ("hand", "hand_n"),
    C.Z_DISCARD: ("disc", "disc_n"),
    C.Z_BATTLE: ("bf", "bf_n"),
    C.Z_PLAY: ("play", "play_n"),
}


def check(st):
    """Invariants, computed without the rules' helpers."""
    P = st["num_players"]
    where = {}
    for z, (arr, cnt) in PILES.items():
        for p in range(C.NPLAYERS_MAX):
            n = int(st[cnt][p])
            assert 0 <= n <= st[arr].shape[1]
            if p >= P:
                assert n == 0
            for s in st[arr][p][:n]:
                assert s not in where, f"sleeve {s} in two piles"
                where[int(s)] = (z, p)
            assert (st[arr][p][n:] == -1).all()
    for s in st["tdeck"][: st["tdeck_n"]]:
        assert s not in where
        where[int(s)] = (C.Z_TDECK, -1)
    for s in st["dungeon"][: st["dungeon_n"]]:
        assert s not in where
        where[int(s)] = (C.Z_DUNGEON, -1)
    # each of the 93 threat sides (and 2 stairs) is in exactly one place
    for s in range(C.NSLEEVE):
        z = st["sl_zone"][s]
        if s in where:
            assert where[s][0] == z and (where[s][1] in (-1, st["sl_owner"][s]))
        else:
            assert z in (C.Z_BOX, C.Z_TROPHY, C.Z_ELIM, C.Z_DESCENDED), (s, z)
    # each of the 122 core sides in exactly one place
    seen = {}
    for d in range(C.MAX_LEVEL_DECK):
        for c in st["cdeck"][d][: st["cdeck_n"][d]]:
            assert c not in seen
            seen[int(c)] = "cdeck"
            assert TT.c_level[c] == d + 1
    for c in list(st["reveal"]) + list(st["draft_keep"].ravel()):
        if c >= 0:
            assert c not in seen
            seen[int(c)] = "reveal"
    for s in range(C.NSLEEVE):
        c = st["sl_core"][s]
        if c >= 0 and st["sl_zone"][s] not in (C.Z_BOX, C.Z_TDECK):
            assert c not in seen, f"core {c} twice"
            seen[int(c)] = "sleeve"
    for c in range(C.NCORE):
        z = st["core_zone"][c]
        exp = {C.CZ_CDECK: "cdeck", C.CZ_REVEAL: "reveal", C.CZ_SLEEVE: "sleeve"}.get(z)
        assert seen.get(c) == exp, (c, z, seen.get(c))
    # upgrades: in the deck, the market or one sleeve
    up = {}
    for u in st["udeck"][: st["udeck_n"]]:
        up[int(u)] = 0
    for u in st["market"]:
        if u >= 0:
            assert u not in up
            up[int(u)] = 1
    for s in range(C.NSLEEVE):
        for k in range(2):
            u = st["sl_up"][s][k]
            if u >= 0:
                assert u not in up and TT.u_cutout[u] == k
                up[int(u)] = 2
    assert sorted(up) == list(range(C.NUPGRADE))
    # resources within their caps (crawlers exist once race/class are chosen)
    for p in range(P if st["phase"] not in (C.PH_RACE, C.PH_CLASS) else 0):
        assert 0 <= st["ap"][p] <= C.AP_CAP
        assert 0 <= st["health"][p] <= C.HEALTH_CAP
        assert 0 <= st["mana"][p] <= C.MANA_CAP
        assert st["gold"][p] >= 0
        assert 1 <= st["small"][p] <= 6 and st["level"][p] >= 1
        assert (
            st["hand_n"][p] + st["deck_n"][p] + st["disc_n"][p] + st["bf_n"][p] + st["play_n"][p]
        ) <= C.NSLEEVE
    f, m = st["cfg_floor"] - 1, st["cfg_mode"]
    assert 0 <= st["danger"] <= TT.tr_len[f, m] - 1
    if st["outcome"] == 0:
        assert st["danger"] < TT.tr_len[f, m] - 1


AVOID = (C.A_END, C.A_PASS, C.A_SKIP, C.A_SPELL_HEAL)


@pytest.mark.parametrize("num_players,biased", [(1, False), (2, False), (1, True), (2, True)])
def test_random_play_soak(num_players, biased):
    """Random legal play (``biased``: 95% of the time anything but ending,
    passing or skipping, which plays deeper into the floors)."""
    rng = np.random.default_rng(num_players * 10 + biased)
    mask = np.zeros(C.NUM_ACTIONS, np.uint8)
    rew = np.zeros(2, np.float32)
    outcomes = {}
    deep = 0
    n_games = 150
    for g in range(n_games):
        floor = 1 + g % 3
        arr = np.zeros(1, STATE_DTYPE)
        st = arr[0]
        rng_seed(st["rng"], 1000 + g, 0)
        st["num_players"] = num_players
        st["max_steps"] = 4000
        c = cfg(
            floor=floor,
            diff=g % 4,
            mode=(g // 3) % 2,
            race=C.RC_DRAFT if g % 2 else C.RC_PRESET,
            klass=C.RC_DRAFT if g % 2 else C.RC_PRESET,
            crawler=g % 2,
        )
        R.configure_row(st, c)
        R.reset_row(st, T)
        pr = np.array([g + 1, 0], np.uint64)
        steps = 0
        full = g < 20
        check(st)
        while st["outcome"] == 0 and steps < 4000:
            n = R.legal_row(st, T, mask)
            assert n > 0, (st["phase"], st["dec"])
            a = rng_choice_mask(pr, mask)
            if biased and rng.random() < 0.95:
                good = [x for x in np.flatnonzero(mask) if x not in AVOID]
                if good:
                    a = int(rng.choice(good))
            R.apply_row(st, T, a, rew)
            steps += 1
            if full or steps % 25 == 0:
                check(st)
        check(st)
        assert st["outcome"] >= C.O_WIN, "episode did not end"
        outcomes[int(st["outcome"])] = outcomes.get(int(st["outcome"]), 0) + 1
        deep += int(st["bosses"].sum() > 0) + int(st["level"][:num_players].max() >= 3)
    assert sum(outcomes.values()) == n_games
    if biased:
        assert deep > n_games // 4  # the biased games reach bosses and level 3


# =============================================================================
# quests, campaign, scoring, optional spaces
# =============================================================================
def test_floor3_quest_parts_in_order_and_boss_battle():
    arr, st = new(seed=21, floor=3)
    to_main(st)
    clear(st)
    card(st, 1, STRIKE, C.Z_DECK)
    st["quest_order"][:] = [0, 1, 2, 3, 4, -1]  # The Pearl Vault first
    R.start_quest(st, T, 0)
    assert st["quest"] == 0 and st["quest_part"] == 0  # DCC-062
    first = TT.quest_first[0]
    assert TT.q_req[first] == C.QR_DEFEAT
    # defeat 3 threats: part 1 done, part 2 active
    for k in range(3):
        rat = card(st, 2 + k, STRIKE, C.Z_BATTLE)
        s = card(st, 6 + k, STRIKE, C.Z_HAND)
        st["ap"][0] = 3
        play(st, s)
        act(st, tgt(0, bf_slot(st, rat)))
    assert st["quest_part"] == 1  # DCC-064
    # while active: +1 gold in upkeep (DCC-063)
    g = st["gold"][0]
    R.start_turn(st, T, np.zeros(2, np.float32))
    assert st["gold"][0] == g + 1
    # jump to the boss part: the boss enters play Looming (DCC-065)
    st["quest_part"] = 3
    R.enter_part(st, T)
    b = st["quest_boss"]
    assert st["sl_zone"][b] == C.Z_BATTLE and st["sl_loom"][b] == 1
    st["sl_dmg"][b] = R.t_health(st, T, b) - 1
    to_main(st)
    s = card(st, 9, STRIKE, C.Z_HAND)
    st["ap"][0] = 3
    play(st, s)
    act(st, tgt(0, bf_slot(st, b)))
    assert st["quest"] == -1 and st["quests_done"] == 1 and st["quest_xp"] == 5
    assert st["sl_zone"][b] == C.Z_TROPHY and st["bosses"][C.BK_QUEST] == 1


def test_campaign_deck_list_and_benefits_carry_over():
    c = cfg(mode=1)
    strike, rest = cid("Strike"), cid("Rest")
    deck = [strike + i for i in range(4)] + [rest, cid("Haymaker"), cid("Steel-Toed Stomp")]
    assert all(CC.core_names[c] == "Strike" for c in deck[:4])  # four physical Strikes
    c[C.CFG_DECK0 : C.CFG_DECK0 + len(deck)] = deck
    u = [i for i, n in enumerate(CC.upgrade_names) if n == "Serrated Edge"][0]
    c[C.CFG_UPG0 + 5 * 2 + TT.u_cutout[u]] = u  # on the Haymaker
    hb = [i for i, n in enumerate(CC.benefit_names) if n == "Thick Skin"][0]
    gb = [i for i, n in enumerate(CC.benefit_names) if n == "Deep Pockets"][0]
    c[C.CFG_BEN0 + gb] = 2
    c[C.CFG_XP] = 7
    arr = np.zeros(1, STATE_DTYPE)
    st = arr[0]
    rng_seed(st["rng"], 3, 0)
    st["num_players"] = 1
    st["max_steps"] = 100
    R.configure_row(st, c)
    R.reset_row(st, T)
    assert st["camp_xp"] == 7 and st["camp_ben"][hb] == 0
    assert st["gold"][0] == 3 + 2 * 2  # DCC-249, DCC-257
    owned = [
        s
        for s in range(C.NTHREAT)
        if st["sl_owner"][s] == 0
        and st["sl_core"][s] >= 0
        and st["sl_zone"][s] in (C.Z_DECK, C.Z_HAND, C.Z_BATTLE)
    ]
    assert sorted(st["sl_core"][s] for s in owned) == sorted(deck)
    hay = [s for s in owned if st["sl_core"][s] == cid("Haymaker")][0]
    assert st["sl_up"][hay][TT.u_cutout[u]] == u and st["upg_zone"][u] == 2
    assert u not in list(st["market"]) and u not in list(st["udeck"][: st["udeck_n"]])
    # the Haymaker on the deck list is the crawler's, not the supply's (DCC-257/258)
    assert cid("Haymaker") not in st["cdeck"] and st["core_zone"][cid("Haymaker")] == C.CZ_SLEEVE


def test_unbeatable_level_up_advances_danger():
    arr, st = new(seed=22, diff=3)
    to_main(st)
    rew = np.zeros(2, np.float32)
    d0 = st["danger"]
    R.level_up(st, T, 0, rew)  # to level 2: no advance
    assert st["danger"] == d0
    R.level_up(st, T, 0, rew)  # to level 3: advance (DCC-212)
    assert st["danger"] > d0


def test_lazarus_and_arcade_score():
    arr, st = scene(seed=23)
    big = card(st, tid("Juicer"), -1, C.Z_BATTLE)
    st["sl_loom"][big] = 0
    st["sl_up"][big][0] = [i for i, n in enumerate(CC.upgrade_names) if n == "Serrated Edge"][0]
    st["sl_up"][big][1] = [i for i, n in enumerate(CC.upgrade_names) if n == "Sponsor Decal"][0]
    card(st, 1, STRIKE, C.Z_DECK)
    st["health"][0] = 10
    act(st, C.A_END)
    assert st["health"][0] == 4 and st["extra"][C.EX_LAZARUS] == 1  # DCC-309
    # win now: difficulty 1 + spaces left + Lazarus 2 (+ the rest), score = xp * 100
    st["bosses"][C.BK_NEIGHBORHOOD] = 1
    st["bosses"][C.BK_BOROUGH] = 1
    to_main(st)
    clear(st)
    card(st, 2, STRIKE, C.Z_BATTLE)
    R.put_deck_bottom(st, C.STAIRS0, 0)
    left = R.spaces_left(st, T)
    act(st, C.A_DESCEND)
    act(st, C.A_END)
    assert st["outcome"] == C.O_WIN
    ach = sum(int(TT.ach_xp[0, j]) for j in range(4) if st["ach"][j])
    extras = sum(C.EXTRA_XP[e] for e in range(5) if st["extra"][e])
    assert st["xp"] == 1 + left + st["boss_xp"] + ach + extras  # DCC-302..305
    assert st["score"] == st["xp"] * 100


def test_elimination_space_and_market_space():
    arr, st = scene(seed=24)
    for k in range(4):
        card(st, 1 + k, STRIKE, C.Z_DECK)
    card(st, 6, STRIKE, C.Z_BATTLE)
    victim = card(st, 7, STRIKE, C.Z_HAND)
    st["space_queue"][0] = 1
    st["space_queue"][2] = 1
    st["gold"][0] = 1
    act(st, C.A_END)
    assert st["phase"] == C.PH_CLEANUP and st["dec"] == C.DEC_SPACE_ELIM
    assert C.A_SKIP in legal(st)  # DCC-215
    act(st, C.A_HAND0 + hand_slot(st, victim))
    assert st["sl_zone"][victim] == C.Z_ELIM and st["gold"][0] == 0  # DCC-216
    assert st["dec"] == C.DEC_SPACE_MARKET
    before = list(st["market"])
    act(st, C.A_BUY0 + 2)
    act(st, C.A_BUY0 + 4)
    act(st, C.A_SKIP)  # DCC-218
    assert st["udeck"][0] in (before[2], before[4]) and st["udeck"][1] in (before[2], before[4])
    assert (st["market"] >= 0).all() and st["phase"] == C.PH_DRAFT


def test_two_player_heal_spell_chooses_a_player():
    arr, st = scene(num_players=2, seed=25)
    for p in range(2):
        card(st, 1 + 11 * p, STRIKE, C.Z_DECK, p)
        card(st, 2 + 11 * p, STRIKE, C.Z_BATTLE, p)
    st["actor"] = 0
    st["mana"][0] = 3
    st["health"][1] = 5
    act(st, C.A_SPELL_HEAL)
    assert st["dec"] == C.DEC_HEAL
    act(st, C.A_PLAYER0 + 1)
    assert st["health"][1] == 6 and st["mana"][0] == 0 and st["actor"] == 0  # DCC-141/288


def test_heuristic_policy_plays_legal_actions_to_the_end():
    from dungeonrl.envs.dcc_unstoppable.policy import policy_row

    mask = np.zeros(C.NUM_ACTIONS, np.uint8)
    rew = np.zeros(2, np.float32)
    ends = 0
    for g in range(24):
        arr = np.zeros(1, STATE_DTYPE)
        st = arr[0]
        rng_seed(st["rng"], 500 + g, 0)
        st["num_players"] = 1 + g % 2
        st["max_steps"] = 4000
        R.configure_row(st, cfg(floor=1 + g % 3, race=C.RC_DRAFT, klass=C.RC_DRAFT))
        R.reset_row(st, T)
        pr = np.zeros(2, np.uint64)
        for _ in range(4000):
            if st["outcome"]:
                break
            a = policy_row(st, T, pr)
            R.legal_row(st, T, mask)
            assert mask[a] == 1
            R.apply_row(st, T, a, rew)
        check(st)
        ends += st["outcome"] >= C.O_WIN
    assert ends == 24


def test_stairs_wait_on_top_only_when_usable():
    arr, st = scene(seed=26)
    card(st, 2, STRIKE, C.Z_BATTLE)
    for k in range(3, 7):
        card(st, k, STRIKE, C.Z_DISCARD)
    R.put_deck_bottom(st, C.STAIRS0, 0)
    st["sl_zone"][C.STAIRS0] = C.Z_DECK
    rew = np.zeros(2, np.float32)
    R.refill(st, T, 0, rew)
    # requirement unmet: level up, the stairs go back under the new deck
    assert st["deck"][0][0] == C.STAIRS0 and st["deck_n"][0] > 1
    assert R.active_count(st, T, 0, False) == 3
    arr, st = scene(seed=26)
    st["bosses"][C.BK_NEIGHBORHOOD] = 1
    st["bosses"][C.BK_BOROUGH] = 1
    card(st, 2, STRIKE, C.Z_BATTLE)
    card(st, 3, STRIKE, C.Z_DISCARD)
    R.put_deck_bottom(st, C.STAIRS0, 0)
    R.refill(st, T, 0, rew)
    assert st["deck_n"][0] == 1 and R.ondeck(st, 0) == C.STAIRS0  # usable: wait
    assert st["level"][0] == 1


def test_a_full_play_area_takes_no_more_cards():
    """The play area holds PLAY_CAP cards (README): a hand card is offered
    only while a slot is free (a 17th card once overran the pile and a
    10,000-game co-op run never ended)."""
    arr, st = scene()
    st["ap"][0] = 6
    for s in range(C.PLAY_CAP - 1):
        card(st, s, STRIKE, C.Z_PLAY)
    h = card(st, 40, STRIKE, C.Z_HAND)
    card(st, 41, STRIKE, C.Z_DECK)
    assert C.A_HAND0 + hand_slot(st, h) in legal(st)  # one slot left: playable
    card(st, C.PLAY_CAP - 1, STRIKE, C.Z_PLAY)
    assert st["play_n"][0] == C.PLAY_CAP
    hand_actions = {C.A_HAND0 + k for k in range(C.HAND_SLOTS)}
    assert not legal(st) & hand_actions  # full: no card is playable
    assert C.A_END in legal(st)
