"""Helpers for the Unbroken rule scenarios (``tests/unbroken/test_rules_*.py``,
one file per topic): build a game, edit its record, force dice, act by name;
then the scenario helpers the topic files share (start a battle, roll a
face, find content with some property). Expected numbers are read from the
content tables (so the tests check rules, not balance numbers that may be
retuned)."""

from __future__ import annotations

import numpy as np
import pytest

from dungeonrl.envs.unbroken import UnbrokenCore, rules
from dungeonrl.envs.unbroken import consts as C

_CORES = {}


def core_for(character="sneak", difficulty="normal", auto=False, **kw):
    key = (character, difficulty, auto, tuple(sorted(kw.items())))
    if key not in _CORES:
        _CORES[key] = UnbrokenCore(
            character=character, difficulty=difficulty, auto_advance=auto, **kw
        )
    return _CORES[key]


class Game:
    """One Unbroken game driven action by action."""

    def __init__(self, character="sneak", difficulty="normal", seed=0, auto=False, **kw):
        self.core = core_for(character, difficulty, auto, **kw)
        self.T = self.core.T
        self.ct = self.core.content
        self.st = self.core.alloc(1)
        self.core.reset(self.st, np.array([seed], np.uint64))
        self.rew = np.zeros((1, 1), np.float32)
        self.te = np.zeros(1, bool)
        self.tr = np.zeros(1, bool)
        self.il = np.zeros(1, bool)

    # -- access --------------------------------------------------------------
    @property
    def s(self):
        return self.st[0]

    def __getitem__(self, k):
        return self.st[0][k]

    def __setitem__(self, k, v):
        self.st[0][k] = v

    def res(self, name):
        return int(self.s["res"][C.RES_NAMES.index(name)])

    def set_res(self, **kw):
        for k, v in kw.items():
            if k == "time":
                self.st[0]["time"] = v
            else:
                self.st[0]["res"][C.RES_NAMES.index(k)] = v

    def phase(self):
        return C.PHASE_NAMES[int(self.s["phase"])]

    def legal(self):
        return [self.core.spec.action_names[a] for a in np.flatnonzero(self.s["legal"])]

    def refresh(self):
        self.core.refresh(self.st)

    # -- ids by name ----------------------------------------------------------
    def monster(self, name):
        return self.ct.monster_names.index(name)

    def weapon(self, name):
        return self.ct.weapon_names.index(name)

    def skill(self, name):
        return self.ct.skill_names.index(name)

    def cond(self, name):
        return self.ct.condition_names.index(name)

    def card(self, name):
        return self.ct.encounter_names.index(name)

    def attack(self, weapon, attack_name):
        return self.ct.attack_names[self.weapon(weapon)].index(attack_name)

    # -- set-ups ----------------------------------------------------------------
    def force(self, *dice):
        """Queue die results to be used before the generator."""
        self.st[0]["forced"][:] = 0
        self.st[0]["forced"][: len(dice)] = dice
        self.st[0]["forced_n"] = len(dice)
        self.st[0]["forced_i"] = 0

    def set_weapons(self, *names):
        ws = self.st[0]["wstack"]
        ws[:] = -1
        for i, n in enumerate(names):
            ws[i] = self.weapon(n)
        self.st[0]["wstack_n"] = len(names)

    def give_skill(self, name):
        k = self.skill(name)
        s = self.st[0]
        deck = [int(x) for x in s["skill_deck"][: int(s["skill_deck_n"])] if int(x) != k]
        s["skill_deck"][:] = -1
        s["skill_deck"][: len(deck)] = deck
        s["skill_deck_n"] = len(deck)
        s["skill_owned"][k] = 1

    def put_cards_on_top(self, *names):
        """Move named encounter cards to the top of the deck (the last one
        named is drawn first)."""
        s = self.st[0]
        deck = [int(x) for x in s["enc_deck"][: int(s["enc_deck_n"])]]
        for n in names:
            cid = self.card(n)
            if cid in deck:
                deck.remove(cid)
            else:  # take it from the discard pile
                disc = [int(x) for x in s["enc_disc"][: int(s["enc_disc_n"])]]
                disc.remove(cid)
                s["enc_disc"][:] = -1
                s["enc_disc"][: len(disc)] = disc
                s["enc_disc_n"] = len(disc)
            deck.append(cid)
        s["enc_deck"][:] = -1
        s["enc_deck"][: len(deck)] = deck
        s["enc_deck_n"] = len(deck)

    def goto_level(self, level, uses=None):
        self.st[0]["level"] = level
        self.st[0]["uses"] = level if uses is None else uses
        self.st[0]["time"] = int(self.T.time_start[level - 1])

    def set_monster(self, name):
        """Fix this Level's monster (not yet revealed)."""
        self.st[0]["monster"] = self.monster(name)

    # -- acting -------------------------------------------------------------------
    def act(self, name):
        names = self.core.spec.action_names
        a = names.index(name) if isinstance(name, str) else int(name)
        assert self.s["legal"][a] == 1, f"{names[a]} not legal in {self.phase()}: {self.legal()}"
        self.core.step(self.st, np.array([a]), self.rew, self.te, self.tr, self.il)
        assert not self.il[0]
        return float(self.rew[0, 0])

    def text(self):
        return self.core.render_ansi(self.s)


# --- scenario helpers shared by the topic files -------------------------------------
def ops(*rows):
    out = np.zeros((C.MAXOPS, C.OPW), np.int32)
    for i, r in enumerate(rows):
        out[i, : len(r)] = r
    return out


def apply(g, *rows, src=-1):
    rules.apply_ops(g.st[0], g.core.TR[0], ops(*rows), src)


def pass_windows(g):
    while g.phase() == "response":
        g.act("pass")


def battle(g, level, monster_id, **res):
    """Start a battle against ``monster_id`` at ``level`` (declining Trickery
    and passing optional battle-start Responses)."""
    g.goto_level(level)
    g["monster"] = monster_id
    g.set_res(**res)
    g.refresh()
    g.act("fight")
    if g.phase() == "trickery":
        g.act("battle")
    pass_windows(g)


def to_battle(g, monster, level, **res):
    """Put the game at the start of a Level's Preparation Step with a fixed
    (unrevealed) monster and resources, then choose to fight."""
    g.goto_level(level)
    g.set_monster(monster)
    g.set_res(**res)
    g.refresh()
    g.act("fight")


def face_test(g, m, f, **res):
    battle(g, int(g.T.m_level[m]), m, **res)
    g.force(f + 1)
    g.act("skip")
    while g.phase() == "response":
        g.act("pass")


def roll_face(g, face):
    g.force(face + 1)
    g.act("skip")
    pass_windows(g)


def find_card(g, pred):
    for i in range(int(g.T.n_enc_types)):
        if pred(i):
            return g.ct.encounter_names[i]
    pytest.skip("content has no such card")


def has_op(g, card, op):
    return any(int(x) == op for x in g.T.e_ops[card, :, 0])


def monsters(g, pred):
    return [i for i in range(C.NMONSTER) if pred(i)]


def monster_where(g, pred):
    found = [i for i in range(C.NMONSTER) if pred(i)]
    if not found:
        pytest.skip("no monster of that kind in this content")
    return found[0]


def face_of(g, m, typ):
    """First face (0-based) of monster ``m`` with the given face type, or None."""
    fs = [f for f in range(6) if C.FACE_TYPES[int(g.T.m_face_type[m, f])] == typ]
    return fs[0] if fs else None


def face_with(g, m, pred):
    fs = [f for f in range(6) if pred(f)]
    return fs[0] if fs else None


def alt_condition_face(g):
    cand = [
        (m, f)
        for m in range(C.NMONSTER)
        for f in range(6)
        if int(g.T.m_face_has_alt[m, f])
        and int(g.T.m_face_ops[m, f, 0, 0]) == C.OP_LOSE
        and int(g.T.m_face_ops[m, f, 0, 1]) > C.R_L
        and int(g.T.m_face_ops[m, f, 0, 2]) >= 2
        and int(g.T.m_face_alt[m, f, 0, 0]) == C.OP_CONDITION
        and int(g.T.m_face_alt[m, f, 0, 2]) == C.WHEN_NEXT
    ]
    if not cand:
        pytest.skip("no steal-or-Condition face")
    return cand[0]


def char_ability(g, character, pred):
    """Slot j of the character's ability matching ``pred(ability id)``."""
    ci = ("sneak", "sage", "hunter", "brawler").index(character)
    js = [
        j
        for j in range(C.MAX_CHAR_AB)
        if int(g.T.char_ab[ci, j]) >= 0 and pred(int(g.T.char_ab[ci, j]))
    ]
    if not js:
        pytest.skip(f"the {character} has no such ability in this content")
    return js[0]


def ab_codes(g, a):
    return [int(o[0]) for o in g.T.ab_ops[a] if int(o[0]) != C.OP_NONE]


def skill_ability(g, name):
    return int(g.T.s_ab[g.skill(name)])


def basilisk_setup():
    """The rulebook's combat example: a Sneak with a Sword, Daring and
    Wrecker, Paranoid from the last Level, on Level 4 (Normal) against the
    Basilisk, with 2 Ability Uses left."""
    g = Game("sneak", "normal")
    g.goto_level(4, uses=2)
    g.set_weapons("Bare Hands", "Knife", "Sword")
    g.give_skill("Daring")
    g.give_skill("Wrecker")
    g["cond"][g.cond("Paranoid")] = 1
    g.set_monster("Basilisk")
    g.set_res(small=10, medium=0, large=2, metal=1, food=2, cunning=0)
    g.refresh()
    return g
