"""``UnbrokenCore``: the batched GameCore of Unbroken (see ``core.spec``)."""
from __future__ import annotations


import numpy as np

from ..core.errors import ContentError, CorruptStateError
from ..core.kernel_core import KernelCore, choice_arg
from ..core.spec import GameSpec, layout_version as shared_layout_version
from ...encoders import unbroken as enc
from . import consts as C, kernels
from .content import load_content
from .state import NAB_MAX, STATE_DTYPE

CHARACTERS = ("sneak", "sage", "hunter", "brawler")
REWARDS = ("win_loss", "score")
MAX_EPISODE_STEPS = 3000
VERSION = 0


def action_names(content):
    names = ["focus", "inspiration", "plan"]
    names += [f"craft_{j}" for j in range(C.MAX_UPGRADES)]
    names += ["downgrade", "orienteer", "scout", "fight", "explore"]
    names += [f"resolve_{i}" for i in range(C.MAX_REVEAL)]
    names += [f"rest_{i}" for i in range(C.MAX_REVEAL)]
    names += ["trick", "battle"]
    names += [f"attack_{k}" for k in range(C.MAX_ATTACKS)]
    names += ["skip", "pass"]
    for i in range(C.MAX_SKILLS):
        s = content.skill_names[i] if i < len(content.skill_names) else f"unused_{i}"
        names.append(f"skill:{s}")
    names += [f"character_{j}" for j in range(C.MAX_CHAR_AB)]
    names += [f"monster_{j}" for j in range(C.MAX_MON_OPT)]
    names += ["keep_0", "keep_1"]
    names += [f"eat_{k}" for k in range(C.MAX_EAT + 1)]
    assert len(names) == C.NUM_ACTIONS
    return tuple(names)


def layout_version(content):
    return shared_layout_version(STATE_DTYPE, content.digest, VERSION)


def make_spec(content=None):
    content = content or load_content()
    return GameSpec(
        name="unbroken", env_id=f"dungeonrl/Unbroken-v{VERSION}", version=VERSION,
        min_players=1, max_players=1, num_actions=C.NUM_ACTIONS,
        action_names=action_names(content), obs_size=enc.OBS_SIZE,
        feature_names=enc.feature_names(), max_episode_steps=MAX_EPISODE_STEPS,
        reward_range=(-1.0, 2.0), illegal_penalty=C.ILLEGAL_PENALTY,
        layout_version=layout_version(content), render_modes=("ansi",),
        obs_low=enc.OBS_LOW, obs_high=enc.OBS_HIGH,
        multi_agent=False, make_core=make_core)


class UnbrokenCore(KernelCore):
    """Unbroken rules for one configuration, batched.

    Arguments: ``character`` ("sneak", "sage", "hunter", "brawler" or
    "random": a new one each episode), ``difficulty`` ("easy", "normal",
    "hard"), ``reward`` ("win_loss" or "score"), ``auto_advance`` (take
    decisions with one legal action automatically), ``max_steps`` (the
    truncation cap on decisions),
    ``content`` (a content folder, default the shipped data).
    """

    state_dtype = STATE_DTYPE
    kernels = kernels

    def __init__(self, character="sneak", difficulty="normal", reward="win_loss",
                 auto_advance=True, max_steps=MAX_EPISODE_STEPS, content=None):
        self.content = load_content(content)
        if len(self.content.ability_names) > NAB_MAX:
            raise ContentError(f"content defines {len(self.content.ability_names)} "
                               f"abilities; at most {NAB_MAX} are supported")
        self.T = self.content.tables
        self.TR = self.content.record
        self.spec = make_spec(self.content)
        self.character = choice_arg(character, CHARACTERS, "character", allow_random=True)
        self.difficulty = choice_arg(difficulty, C.DIFFICULTIES, "difficulty")
        reward_mode = choice_arg(reward, REWARDS, "reward")
        self._configure(1, max_steps, auto_advance, reward_mode,
                        cfg=(self.character, self.difficulty))

    # -- helpers -----------------------------------------------------------------
    def phase_name(self, state):
        return C.PHASE_NAMES[int(state["phase"])]

    def action_label(self, state, a):
        """A readable description of action ``a`` in this state (for play)."""
        from .render import describe_action
        return describe_action(self, state, a)

    def render_ansi(self, state):
        from .render import render_text
        return render_text(self, state)

    def episode_info(self, state):
        out = int(state["outcome"])
        info = {"outcome": C.OUTCOME_NAMES[out], "level": int(state["level"]),
                "character": CHARACTERS[int(state["character"])]}
        if out == C.O_WIN:
            info["score"] = int(state["score"])
            info["title"] = self.content.title_names[int(state["title"])]
        return info

    def episode_info_batch(self, states, rows):
        """:meth:`episode_info` of the rows ``rows`` of ``states`` at once (the
        vector env's finished rows): ``{key: (values, present)}`` in the key
        order of :meth:`episode_info`, one value per row of ``rows``,
        ``present`` a bool array (None: every row) for keys only some rows
        have; keys no row has are left out. Reads single fields, never copies
        whole records."""
        out = states["outcome"][rows].astype(np.int64)
        cols = {"outcome": (np.array(C.OUTCOME_NAMES, object)[out], None),
                "level": (states["level"][rows].astype(np.int64), None),
                "character": (np.array(CHARACTERS, object)[states["character"][rows]], None)}
        win = out == C.O_WIN
        if win.any():
            cols["score"] = (states["score"][rows].astype(np.int64), win)
            titles = np.array(self.content.title_names, object)
            cols["title"] = (titles[np.where(win, states["title"][rows], 0)], win)
        return cols

    def check_state(self, state):
        """Reject records that break invariants the kernels index with."""
        s = state
        def bad(msg):
            raise CorruptStateError(f"corrupt Unbroken state: {msg}")
        if not 0 <= int(s["phase"]) < C.NPHASE:
            bad(f"phase {int(s['phase'])}")
        if not 1 <= int(s["level"]) <= 4:
            bad(f"level {int(s['level'])}")
        if not 0 <= int(s["character"]) < C.NCHAR:
            bad(f"character {int(s['character'])}")
        if not 0 <= int(s["difficulty"]) < 3:
            bad(f"difficulty {int(s['difficulty'])}")
        if not 1 <= int(s["wstack_n"]) <= C.WSTACK:
            bad(f"weapon stack size {int(s['wstack_n'])}")
        for w in s["wstack"][: int(s["wstack_n"])]:
            if not 0 <= int(w) < C.NWEAPON:
                bad(f"weapon id {int(w)}")
        res = s["res"]
        if (res < 0).any() or (res > self.T.bars).any():
            bad("a resource is outside its bar")
        if not 0 <= int(s["time"]) <= int(self.T.time_track):
            bad(f"time {int(s['time'])}")
        if not 0 <= int(s["revealed_n"]) <= C.MAX_REVEAL:
            bad("revealed count")
        if not (0 <= int(s["enc_deck_n"]) <= C.DECK_CAP and 0 <= int(s["enc_disc_n"]) <= C.DECK_CAP):
            bad("encounter pile sizes")
        ne = int(self.T.n_enc_types)
        for arr, n in ((s["enc_deck"], s["enc_deck_n"]), (s["enc_disc"], s["enc_disc_n"]),
                       (s["revealed"], s["revealed_n"])):
            v = arr[: int(n)]
            if ((v < 0) | (v >= ne)).any():
                bad("encounter card id")
        if int(s["monster"]) >= C.NMONSTER or int(s["monster"]) < -1:
            bad(f"monster {int(s['monster'])}")
        if int(s["m_revealed"]) == 1 and int(s["monster"]) < 0:
            bad("revealed monster missing")
        if not 0 <= int(s["skill_offer_n"]) <= 2:
            bad("skill offer size")
        ns = int(self.T.n_skills)
        if not (0 <= int(s["skill_deck_n"]) <= ns and 0 <= int(s["skill_disc_n"]) <= ns):
            bad("skill pile sizes")
        if not 0 <= int(s["roll"]) <= 6:
            bad("monster roll")
        if not 0 <= int(s["stage"]) <= C.S_MANDATORY:
            bad("stage")
        self.check_mask(s, "Unbroken")


def make_core(**kwargs):
    return UnbrokenCore(**kwargs)
