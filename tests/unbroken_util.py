"""Helpers for Unbroken scenario tests: build a game, edit its record, force
dice, act by name. Expected numbers are read from the content tables (so the
tests check rules, not balance numbers that may be retuned)."""
from __future__ import annotations

import numpy as np

from dungeonrl.envs.unbroken import UnbrokenCore
from dungeonrl.envs.unbroken import consts as C

_CORES = {}


def core_for(character="sneak", difficulty="normal", auto=False, **kw):
    key = (character, difficulty, auto, tuple(sorted(kw.items())))
    if key not in _CORES:
        _CORES[key] = UnbrokenCore(character=character, difficulty=difficulty,
                                   auto_advance=auto, **kw)
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
