"""``DungeonCrawlerCore``: the batched GameCore of Dungeon Crawler (see
``core.spec``). A core is built for one table size (``num_players``);
the batch kernels themselves accept a different size per row."""
from __future__ import annotations


import numpy as np

from ..core.errors import CorruptStateError
from ..core.kernel_core import KernelCore, int_arg
from ..core.spec import GameSpec, layout_version as shared_layout_version, source_digest
from ...encoders import dungeon_crawler as enc
from . import consts as C, kernels, rules, state
from .content import load_content
from .state import STATE_DTYPE

MAX_EPISODE_STEPS = 5000
VERSION = 0
#: the modules whose code is the game: a snapshot or saved model refuses any change to them
RULES_SOURCES = (rules, C, state, enc)


def action_names(content):
    names = [f"assign:{s}" for s in C.STAT_NAMES]
    for k in range(12):
        a = k // 3
        j = k % 3
        b = j if j < a else j + 1
        names.append(f"shift:{C.STAT_NAMES[a]}>{C.STAT_NAMES[b]}")
    names.append("rebalance_done")
    names += [f"draft_{k}" for k in range(C.DRAFT_N)]
    names += [f"forward_{k}" for k in range(1, C.MAX_MOVE + 1)]
    names += [f"back_{k}" for k in range(1, C.MAX_MOVE + 1)]
    for c in range(C.MAX_CARDS):
        names.append(f"play:{content.card_names[c]}" if c < len(content.card_names)
                     else f"play:unused_{c}")
    names += [f"target_seat_{t}" for t in range(C.MAX_P)]
    names += [f"slot:{s}" for s in C.SLOT_NAMES]
    names += [f"buy_{k}" for k in range(C.OFFER_MAX)]
    names += ["leave", "equip", "decline", "fight"]
    names += [f"loot_take:{s}" for s in C.SLOT_NAMES]
    names += [f"loot_discard:{s}" for s in C.SLOT_NAMES]
    names.append("end_turn")
    assert len(names) == C.NUM_ACTIONS
    return tuple(names)


def layout_version(content):
    return shared_layout_version(STATE_DTYPE, content.digest, VERSION, source_digest(*RULES_SOURCES))


def make_spec(content=None):
    content = content or load_content()
    return GameSpec(
        name="dungeon_crawler", env_id=f"dungeonrl/DungeonCrawler-v{VERSION}", version=VERSION,
        min_players=C.MIN_P, max_players=C.MAX_P, num_actions=C.NUM_ACTIONS,
        action_names=action_names(content), obs_size=enc.OBS_SIZE,
        feature_names=enc.feature_names(), max_episode_steps=MAX_EPISODE_STEPS,
        reward_range=(-1.0, 1.0), illegal_penalty=C.ILLEGAL_PENALTY,
        layout_version=layout_version(content), render_modes=("ansi", "rgb_array"),
        multi_agent=True, make_core=make_core)


class DungeonCrawlerCore(KernelCore):
    """Dungeon Crawler rules for one configuration, batched.

    Arguments: ``num_players`` (2..8), ``reward`` ("zero_sum": +1 to the
    winner and -1/(N-1) to every other seat; "winner_only": +1 to the
    winner, 0 to the rest), ``auto_advance`` (take decisions with a single
    legal action automatically), ``max_steps`` (truncation cap on agent
    decisions), ``content`` (a content folder, default the shipped data).
    The batch kernels accept a different table size per row
    (``reset(states, seeds, num_players=...)``).
    """

    state_dtype = STATE_DTYPE
    kernels = kernels

    def __init__(self, num_players=4, reward="zero_sum", auto_advance=True,
                 max_steps=MAX_EPISODE_STEPS, content=None):
        self.content = load_content(content)
        self.T = self.content.tables
        self.TR = self.content.record
        self.spec = make_spec(self.content)
        players = int_arg(num_players, "num_players", C.MIN_P, C.MAX_P)
        if reward not in C.REWARD_MODES:
            raise ValueError(f"unknown reward {reward!r}: expected one of {list(C.REWARD_MODES)}")
        self._configure(players, max_steps, auto_advance, C.REWARD_MODES.index(reward))

    # -- helpers -----------------------------------------------------------------
    def phase_name(self, state):
        return C.PHASE_NAMES[int(state["phase"])]

    def render_ansi(self, state):
        from .render import render_text
        return render_text(self, state)

    def render_rgb(self, state):
        from .render import render_rgb
        return render_rgb(self, state)

    def action_label(self, state, a):
        from .render import describe_action
        return describe_action(self, state, a)

    def episode_info(self, state):
        n = int(state["num_players"])
        info = {"outcome": C.OUTCOME_NAMES[int(state["outcome"])],
                "winner": int(state["winner"]), "rounds": int(state["round"]),
                "final_boss": self.content.final_names[int(state["final_boss"])],
                "deaths": state["deaths"][:n].tolist(), "kills": state["kills"][:n].tolist()}
        return info

    def check_state(self, state):
        """Reject records that break invariants the kernels index with."""
        s = state

        def bad(msg):
            raise CorruptStateError(f"corrupt Dungeon Crawler state: {msg}")
        n = int(s["num_players"])
        if not C.MIN_P <= n <= C.MAX_P:
            bad(f"num_players {n}")
        if not 0 <= int(s["phase"]) < C.NPHASE:
            bad(f"phase {int(s['phase'])}")
        if int(s["phase"]) != C.PH_OVER and not 0 <= int(s["actor"]) < n:
            bad(f"actor {int(s['actor'])}")
        fl = s["floor"][:n]
        if ((fl < 0) | (fl >= C.NFLOOR)).any():
            bad("hero floor")
        for h in range(n):
            if not 0 <= int(s["pos"][h]) < int(self.T.floor_len[int(s["floor"][h])]):
                bad(f"hero {h} square {int(s['pos'][h])}")
        eq = s["equip"][:n]
        if ((eq < -1) | (eq >= C.NITEM)).any():
            bad("item id")
        if not (0 <= int(s["item_deck_n"]) <= C.NITEM and 0 <= int(s["item_disc_n"]) <= C.NITEM):
            bad("item pile sizes")
        if not (0 <= int(s["card_deck_n"]) <= C.DECK_MAX and 0 <= int(s["card_disc_n"]) <= C.DECK_MAX):
            bad("card pile sizes")
        if not 0 <= int(s["offer_n"]) <= C.OFFER_MAX:
            bad("offer size")
        if not 0 <= int(s["rebal_n"]) <= C.REBAL_SHIFTS:
            bad(f"rebalance shifts {int(s['rebal_n'])}")
        if not 0 <= int(s["final_boss"]) < C.NFINAL:
            bad("final boss")
        if not 0 <= int(s["cb_kind"]) < len(C.OPP_NAMES):
            bad("combat kind")
        if (s["hand"][:n] < 0).any():
            bad("negative hand count")
        if (s["hand"][:n].sum(axis=1) != s["hand_n"][:n]).any():
            bad("hand sizes differ from the cards held")   # the mask relies on hand_n
        arr = np.array([s]) if not isinstance(s, np.ndarray) else s.reshape(1)
        if not np.array_equal(self.recompute_mask(arr)[0], np.asarray(s["legal"])):
            bad("stored legal mask does not match the state")


def make_core(**kwargs):
    return DungeonCrawlerCore(**kwargs)
