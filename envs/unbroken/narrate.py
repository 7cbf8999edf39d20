"""What happened at the Unbroken table, in words, for ``dungeonrl play``.

* ``narrate(core, prev, state, seat=0)``: the events between two records
  (the one the player last decided on and the one now): Levels and phases,
  the monster revealed or ambushing, battle rounds, the monster's Combat Roll
  and the face it selects when the record shows it (a response window on
  the roll), armor broken and wounds dealt, DEFEND, victory and rewards,
  every resource gained or lost (Effort, Food, materials, Time), weapons
  crafted or downgraded, skills learned and offered, conditions gained and
  ended, encounter cards revealed and used, and the end of the game.
* ``hand_text(core, state, seat=0)``: what the player holds: the weapon and
  its attacks, character abilities, skills, conditions.
* ``legend(core)``: the symbols and words of the text Display.

Pure Python over two records (content names from the content tables); it
never reads the generator, the encounter or skill decks, or an unrevealed
monster.
"""

from __future__ import annotations

from . import consts as C
from .render import PHASE_ASK, _ops_text, _restable

__all__ = ["narrate", "hand_text", "legend"]


def _face(core, m, f):
    ct, T = core.content, core.T
    txt = _ops_text(ct, T.m_face_ops[m, f]) or "nothing"
    if T.m_face_has_alt[m, f]:
        txt += " [else " + _ops_text(ct, T.m_face_alt[m, f]) + "]"
    return f"{C.FACE_TYPES[int(T.m_face_type[m, f])]}: {txt}"


def _weapon(s):
    return int(s["wstack"][int(s["wstack_n"]) - 1])


def legend(core=None) -> list:
    """The symbols and words of the text Display, one per line."""
    return [
        "Effort S/M/L: Small, Medium and Large Effort (pay for attacks, actions and wounds)",
        "Cunning, Food, Wood, Metal, Treasure: resources; each has a bar (its maximum)",
        "Time: the Time Tracker; at 0 the monster ambushes you (Level 4: paid in Small Effort)",
        "attack_k: break N lowers the monster's Armor; wound N lowers its Health once the "
        "Armor is gone",
        "Monster faces 1-6: what its Combat Roll does (type: effect); [else ...] applies "
        "when the effect cannot be applied in full",
        "Conditions: (active) now, (next Level) waiting, [N tokens], (N rounds) left",
        "DEFEND: the monster blocks your next attack",
        "Card k: an encounter card: spend -> gain; its time cost is paid when you resolve it",
    ]


def hand_text(core, state, seat=0) -> list:
    """The player's weapon, abilities, skills and conditions, in words."""
    ct, T, s = core.content, core.T, state
    ch = int(s["character"])
    w = _weapon(s)
    out = [
        f"You are the {ct.character_names[ch]} ({ct.character_blurbs[ch]})",
        f"Weapon: {ct.weapon_names[w]}",
    ]
    for k in range(int(T.w_natk[w])):
        kind = "break" if int(T.w_atk_kind[w, k]) == 0 else "wound"
        out.append(
            f"  {ct.attack_names[w][k]}: {kind} {int(T.w_atk_power[w, k])} for "
            f"{_restable(T.w_atk_cost[w, k])}"
        )
    out.append(f"Character abilities ({int(s['uses'])} uses left this Level):")
    for j in range(C.MAX_CHAR_AB):
        ab = int(T.char_ab[ch, j])
        if ab >= 0:
            out.append(
                f"  {ct.ability_names[ab]} ({_restable(T.ab_cost[ab], True)}): "
                f"{_ops_text(ct, T.ab_ops[ab]) or C.KIND_NAMES[int(T.ab_kind[ab])]}"
            )
    skills = [i for i in range(len(ct.skill_names)) if s["skill_owned"][i]]
    out.append("Skills:" + ("" if skills else " none"))
    for i in skills:
        out.append(f"  {ct.skill_names[i]}: {ct.skill_texts[i]}")
    conds = [c for c in range(C.NCOND) if int(s["cond"][c])]
    out.append("Conditions:" + ("" if conds else " none"))
    for c in conds:
        v = int(s["cond"][c])
        tag = {1: "active", 2: "next Level", 3: "active and next Level"}[v]
        out.append(f"  {ct.condition_names[c]} ({tag})")
    return out


def narrate(core, prev, state, seat=0) -> list:
    """Events between records ``prev`` and ``state``, in words."""
    ct, T = core.content, core.T
    p, s = prev, state
    out: list[str] = []
    say = out.append
    m = int(s["monster"])
    mname = ct.monster_names[m] if m >= 0 and int(s["m_revealed"]) else "the monster"

    if int(s["level"]) != int(p["level"]):
        say(f"-- Level {int(s['level'])} begins (Time {int(s['time'])}) --")
    if int(s["m_revealed"]) and not int(p["m_revealed"]):
        say(
            f"Monster revealed: {mname} (Armor {int(s['m_armor_max'])}, "
            f"Health {int(s['m_health_max'])})"
        )
    if int(s["ambushed"]) and not int(p["ambushed"]):
        say(f"{mname} ambushes you!")
    if int(s["in_battle"]) and not int(p["in_battle"]):
        say(f"Battle with {mname} begins")
    elif int(s["in_battle"]) and int(s["round"]) != int(p["round"]):
        say(f"Battle round {int(s['round'])}")

    # --- the monster ------------------------------------------------------------------
    same_monster = int(p["monster"]) == m and int(p["m_revealed"]) and int(s["m_revealed"])
    if same_monster:
        da = int(s["m_armor"]) - int(p["m_armor"])
        dh = int(s["m_health"]) - int(p["m_health"])
        if da < 0:
            say(
                f"you broke {-da} Armor of {mname} (Armor {int(s['m_armor'])}/"
                f"{int(s['m_armor_max'])})"
            )
        elif da > 0:
            say(f"{mname} gained {da} Armor ({int(s['m_armor'])})")
        if dh < 0 and not (
            int(p["in_battle"]) and not int(s["in_battle"]) and int(s["m_health"]) == 0
        ):
            say(
                f"you dealt {-dh} wounds to {mname} (Health {int(s['m_health'])}/"
                f"{int(s['m_health_max'])})"
            )
        elif dh > 0:
            say(f"{mname} healed {dh} (Health {int(s['m_health'])})")
        if int(p["m_health"]) > 0 and int(s["m_health"]) == 0 and int(p["in_battle"]):
            say(f"{mname} is defeated! Rewards: {_restable(T.m_reward[m])}")
    if int(s["defend"]) and not int(p["defend"]):
        say(f"{mname} takes a DEFEND stance: your next attack is blocked")
    elif int(p["defend"]) and not int(s["defend"]) and same_monster:
        say(f"your attack was blocked by {mname}'s DEFEND")
    if int(s["roll"]) and int(s["roll"]) != int(p["roll"]) and m >= 0:
        say(
            f"{mname} rolled {int(s['roll'])} on the Slashes Die -> "
            f"{_face(core, m, int(s['roll']) - 1)}"
        )
    if int(s["tricked"]) and not int(p["tricked"]):
        say(f"you tricked {mname} and slipped past it")

    # --- resources, time ----------------------------------------------------------------
    gains, losses = [], []
    for r in range(C.NRES):
        d = int(s["res"][r]) - int(p["res"][r])
        if d > 0:
            gains.append(f"{d} {C.RES_NAMES[r]}")
        elif d < 0:
            losses.append(f"{-d} {C.RES_NAMES[r]}")
    if gains:
        say("gained " + ", ".join(gains))
    if losses:
        say("lost " + ", ".join(losses))
    dt = int(s["time"]) - int(p["time"])
    if dt and int(s["level"]) == int(p["level"]):
        say(f"Time {dt:+d} (now {int(s['time'])})")
    du = int(s["uses"]) - int(p["uses"])
    if du and int(s["level"]) == int(p["level"]):
        say(f"ability uses {du:+d} (now {int(s['uses'])})")

    # --- weapon, skills, conditions ------------------------------------------------------------
    w0, w1 = _weapon(p), _weapon(s)
    if w1 != w0:
        if int(s["wstack_n"]) > int(p["wstack_n"]):
            say(f"you crafted {ct.weapon_names[w1]} (over {ct.weapon_names[w0]})")
        else:
            say(f"your weapon went down to {ct.weapon_names[w1]} (from {ct.weapon_names[w0]})")
    for i in range(len(ct.skill_names)):
        if s["skill_owned"][i] and not p["skill_owned"][i]:
            say(f"learned skill {ct.skill_names[i]}: {ct.skill_texts[i]}")
    if int(s["skill_offer_n"]) and (
        int(p["skill_offer_n"]) == 0 or (s["skill_offer"] != p["skill_offer"]).any()
    ):
        names = [ct.skill_names[int(x)] for x in s["skill_offer"][: int(s["skill_offer_n"])]]
        say("skill offer: " + " / ".join(names))
    for c in range(C.NCOND):
        a, b = int(p["cond"][c]), int(s["cond"][c])
        name = ct.condition_names[c]
        if (b & 1) and not (a & 1):
            say(
                f"you suffer {name}"
                + (f" ({int(s['cond_rounds'][c])} rounds)" if int(s["cond_rounds"][c]) else "")
            )
        elif (a & 1) and not (b & 1):
            say(f"{name} is over")
        if (b & 2) and not (a & 2):
            say(f"{name} waits for the next Level")
        dtk = int(s["cond_tokens"][c]) - int(p["cond_tokens"][c])
        if dtk and b:
            say(f"{name} tokens {dtk:+d} (now {int(s['cond_tokens'][c])})")

    # --- encounter cards --------------------------------------------------------------------
    before = [int(x) for x in p["revealed"][: int(p["revealed_n"])]]
    after = [int(x) for x in s["revealed"][: int(s["revealed_n"])]]
    left = list(before)
    new = []
    for x in after:
        if x in left:
            left.remove(x)
        else:
            new.append(x)
    for x in left:
        say(f"{ct.encounter_names[x]} left the table")
    for x in new:
        say(
            f"revealed {ct.encounter_names[x]} (time {int(T.e_time[x])}: spend "
            f"{_restable(T.e_spend[x], True)} -> gain {_restable(T.e_gain[x])})"
        )
    if int(s["reveal_bonus"]) and int(s["reveal_bonus"]) != int(p["reveal_bonus"]):
        say(f"the next exploration reveals {int(s['reveal_bonus']):+d} cards")
    committed = int(s["commit"]) or int(s["commit_now"])
    if committed and not (int(p["commit"]) or int(p["commit_now"])):
        say("you are committed to the next encounter")

    # --- phase, end -------------------------------------------------------------------------
    ph0, ph1 = int(p["phase"]), int(s["phase"])
    if ph1 == C.PH_OVER and ph0 != C.PH_OVER:
        out_name = C.OUTCOME_NAMES[int(s["outcome"])]
        if out_name == "win":
            say(
                f"GAME OVER: you won with a score of {int(s['score'])} "
                f"({ct.title_names[int(s['title'])]})"
            )
        elif int(s["dead"]):
            say("GAME OVER: you could not pay a forced Effort loss and fell")
        else:
            say(f"GAME OVER: {out_name.replace('_', ' ')}")
    elif ph1 != ph0 or int(s["level"]) != int(p["level"]):
        ask = PHASE_ASK.get(C.PHASE_NAMES[ph1], C.PHASE_NAMES[ph1])
        if ph1 == C.PH_HUNGER:
            ask += f" (eat {int(s['hunger_req'])})"
        if ph1 == C.PH_RESPOND:
            ask += f" ({C.TRIGGER_NAMES[int(s['win_trigger'])].replace('_', ' ')})"
        say("now: " + ask)
    return out
