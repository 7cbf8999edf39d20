"""``DungeonKartCore``: the Dungeon Kart configuration over the engine's
generated kernels (``kernels.py``); everything hot is the engine's."""
from __future__ import annotations

import numpy as np

from ..core.errors import ContentError, CorruptStateError
from ..core.header import O_ILLEGAL, O_PLAYING, O_TRUNCATED
from ..core.kernel_core import KernelCore, choice_arg, int_arg
from ..core.spec import GameSpec, layout_version as shared_layout_version, source_digest
from ...encoders import dungeon_kart as enc
from . import consts as C, kernels, rules, state
from .content import load_content
from .state import STATE_DTYPE

MAX_EPISODE_STEPS = 10_000
VERSION = 0
DRAFTS = ("pick", "random")
OUTCOME_NAMES = {O_PLAYING: "playing", O_TRUNCATED: "truncated", O_ILLEGAL: "illegal_action",
                 C.O_RACE_OVER: "finished"}


def action_names() -> tuple:
    return tuple(C.action_name(a) for a in range(C.NUM_ACTIONS))


def make_spec(content=None) -> GameSpec:
    content = content or load_content()
    return GameSpec(
        name="dungeon_kart", env_id=f"dungeonrl/DungeonKart-v{VERSION}", version=VERSION,
        min_players=C.MIN_P, max_players=C.MAX_P, num_actions=C.NUM_ACTIONS,
        action_names=action_names(), obs_size=enc.OBS_SIZE,
        feature_names=tuple(enc.FEATURE_NAMES), max_episode_steps=MAX_EPISODE_STEPS,
        reward_range=(-1.0, 1.0), illegal_penalty=C.ILLEGAL_PENALTY,
        layout_version=shared_layout_version(STATE_DTYPE, content.digest, VERSION,
                                             source_digest(rules, C, state, enc)),
        render_modes=("ansi", "rgb_array"), multi_agent=True, make_core=make_core,
        utility="zero_sum_ranking", ties=True, turn_order="fixed", chance="explicit",
        information="imperfect")


class DungeonKartCore(KernelCore):
    """Dungeon Kart for one configuration, batched.

    Arguments: ``num_players`` (2..8), ``track`` (a track name or index of the
    content, or the text of a custom board, see the game's README),
    ``draft`` ("pick": racers and dashboards drafted by decisions; "random":
    dealt), ``max_rounds`` (the round cap, truncation; default 60),
    ``auto_advance``, ``max_steps`` (decision cap, truncation), ``content``
    (a content folder, default the shipped data).
    """

    state_dtype = STATE_DTYPE
    kernels = kernels

    def __init__(self, num_players=4, track="Beginner Track", draft="pick", max_rounds=60,
                 reward="rank", auto_advance=True, max_steps=MAX_EPISODE_STEPS, content=None):
        boards = ()
        if isinstance(track, str) and "\n" in track:
            boards = (track,)
        self.content = load_content(content, boards=boards)
        self.T = self.content.tables
        self.TR = self.content.record
        self.spec = make_spec(self.content)
        players = int_arg(num_players, "num_players", C.MIN_P, C.MAX_P)
        self.track = (len(self.content.track_names) - 1 if boards
                      else self.content.track_index(track))
        try:
            self.content.check_players(self.track, players)
        except ContentError as e:
            raise ValueError(str(e)) from None
        self.draft = choice_arg(draft, DRAFTS, "draft")
        rounds = int_arg(max_rounds, "max_rounds", 1, 10_000)
        reward_mode = choice_arg(reward, C.REWARD_MODES, "reward")
        self._configure(players, max_steps, auto_advance, reward_mode,
                        cfg=(self.track, self.draft, rounds))

    # -- helpers (not hot) ------------------------------------------------------
    def phase_name(self, state) -> str:
        return C.PHASE_NAMES[int(state["phase"])]

    def render_ansi(self, state) -> str:
        from .render import render_ansi
        return render_ansi(state, self.content)

    def render_rgb(self, state):
        from .render import render_rgb
        return render_rgb(state, self.content)

    def action_label(self, state, a) -> str:
        from .render import describe_action
        return describe_action(state, self.content, a)

    def episode_info(self, state) -> dict:
        n = int(state["num_players"])
        return {"outcome": OUTCOME_NAMES.get(int(state["outcome"]), "?"),
                "rounds": int(state["round"]),
                "track": self.content.track_names[int(state["track"])],
                "place": state["place"][:n].tolist(),
                "finished": state["finished"][:n].astype(bool).tolist(),
                "coins": state["coins"][:n].tolist()}

    def check_state(self, state) -> None:
        """Reject a record the kernels cannot run safely: every index they
        use for a table or an array in range (seats, phase, track, racer /
        dashboard ids, board cells, speed settings, facings, spell card ids,
        pile sizes, tokens, offer ids), racing karts on hexes of the track,
        every spell card in exactly one place (the piles are sized for the
        deck: a duplicate would overflow a discard pile), coins >= 0, and
        the stored legal mask equal to the rules' mask."""
        from .hexgeo import NCELL

        def bad(msg):
            raise CorruptStateError(f"corrupt Dungeon Kart state: {msg}")
        T = self.T
        n = int(state["num_players"])
        if not C.MIN_P <= n <= C.MAX_P:
            bad(f"num_players {n}")
        ph = int(state["phase"])
        if not 0 <= ph < len(C.PHASE_NAMES):
            bad(f"phase {ph}")
        if int(state["outcome"]) not in OUTCOME_NAMES:
            bad(f"outcome {int(state['outcome'])}")
        if (ph == C.PH_OVER) != (int(state["outcome"]) != O_PLAYING):
            bad("phase and outcome disagree on the race being over")
        tk = int(state["track"])
        if not 0 <= tk < len(self.content.track_names):
            bad(f"track {tk}")
        if int(T.tr_nstart[tk]) < n:
            bad(f"track {tk} seats fewer than {n} karts")
        if not -1 <= int(state["actor"]) < n:
            bad(f"actor {int(state['actor'])}")
        for f in ("cur", "first"):
            if not 0 <= int(state[f]) < n:
                bad(f"{f} {int(state[f])}")
        if not 0 <= int(state["forced_i"]) <= int(state["forced_n"]) <= 16:
            bad("forced-chance cursor")
        coins = np.asarray(state["coins"])[:n]
        if (coins < 0).any():
            bad("negative coins")
        racer, dash = np.asarray(state["racer"])[:n], np.asarray(state["dash"])[:n]
        if ((racer < -1) | (racer >= C.NRACER)).any() or ((dash < -1) | (dash >= C.NDASH)).any():
            bad(f"racer / dashboard id out of range: {racer.tolist()} {dash.tolist()}")
        if not 0 <= int(state["offer_n"]) <= C.MAX_P + 1:
            bad(f"offer size {int(state['offer_n'])}")
        offer = np.asarray(state["offer"])
        if ((offer < -1) | (offer >= max(C.NRACER, C.NDASH))).any():
            bad("offer id out of range")
        drafting = ph in (C.PH_DRAFT_RACER, C.PH_DRAFT_DASH)
        racing = not drafting and (racer >= 0).all() and (dash >= 0).all()   # karts placed
        if not drafting and ph != C.PH_OVER and not ((racer >= 0).all() and (dash >= 0).all()):
            bad("a racing seat without a racer or a dashboard")
        pos = np.asarray(state["pos"])[:n].astype(np.int64)
        fin = np.asarray(state["finished"])[:n]
        if ((fin != 0) & (fin != 1)).any():
            bad("finished flag not 0/1")
        if ((pos < -1) | (pos >= NCELL)).any() or (np.asarray(state["prev"])[:n] >= NCELL).any():
            bad(f"kart cell off the board: {pos.tolist()}")
        if racing:
            on = (fin == 0) & (pos >= 0)
            if ((fin == 0) & (pos < 0)).any() and ph != C.PH_OVER:
                bad("a racing kart off the board")
            pc = np.clip(pos, 0, NCELL - 1)
            terr = np.asarray(T.tr_terr[tk])[pc]
            if (on & ((np.asarray(C.TERRAIN_PIPS)[terr] == 0)
                      | (np.asarray(T.tr_tile[tk])[pc] < 0))).any():
                bad(f"a kart on a hex that is not track: {pos.tolist()}")
            sp = np.asarray(state["speed"])[:n]
            if ((sp < 1) | (sp > C.NSET)).any():
                bad(f"speed setting out of range: {sp.tolist()}")
            fc = np.asarray(state["facing"])[:n]
            if ((fc < 0) | (fc > 5)).any():
                bad(f"facing out of range: {fc.tolist()}")
            pl = np.asarray(state["place"])[:n]
            if ((pl < 1) | (pl > n)).any():
                bad(f"placement out of range: {pl.tolist()}")
        if not 0 <= int(state["finish_seq"]) <= n or int(fin.sum()) != int(state["finish_seq"]):
            bad("finish count")
        if int(state["mp"]) < 0:
            bad("negative MP")
        # spell cards: each id in exactly one place
        nc = int(T.n_cards)
        seen = np.zeros(nc, np.int64)
        for d in range(C.NDECK):
            for f, fn in (("deck", "deck_n"), ("disc", "disc_n")):
                k = int(state[fn][d])
                if not 0 <= k <= C.DECK_MAX:
                    bad(f"{f} {d} size {k}")
                cards = np.asarray(state[f][d])[:k].astype(np.int64)
                if ((cards < 0) | (cards >= nc)).any():
                    bad(f"{f} {d} holds a card id out of range")
                if (np.asarray(T.card_deck)[cards] != d).any():
                    bad(f"{f} {d} holds a card of another deck")
                np.add.at(seen, cards, 1)
        spell = np.asarray(state["spell"])[:n].astype(np.int64)
        if ((spell < -1) | (spell >= nc)).any():
            bad(f"held spell id out of range: {spell.tolist()}")
        np.add.at(seen, spell[spell >= 0], 1)
        if (seen != 1).any():
            bad("spell cards not each in exactly one place")
        bn = int(state["bag_n"])
        if not 0 <= bn <= int(T.bag_size):
            bad(f"bag size {bn}")
        tok = np.asarray(state["tok"])
        bag = np.asarray(state["bag"])[:bn]
        if ((tok < 0) | (tok >= C.NTOK)).any() or ((bag < 0) | (bag >= C.NTOK)).any():
            bad("token id out of range")
        self.check_mask(state, "Dungeon Kart")


def make_core(**kwargs) -> DungeonKartCore:
    return DungeonKartCore(**kwargs)
