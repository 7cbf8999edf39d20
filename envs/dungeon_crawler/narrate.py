"""What happened at the Dungeon Crawler table, in words, for ``dungeonrl play``.

* ``narrate(core, prev, state, seat)``: the events between two records
  (typically the one the player last decided on and the one now), told from
  ``seat``'s chair: turns, movement rolls (die and boots bonus), walks,
  stairs and automatic moves (respawn, Recall), fights with each strike's
  damage (and the die when one round was fought: damage is ATK + d6 - DEF,
  at least 1), deaths, kills and gold, items gained and lost by name,
  purchases with their prices, cards drawn and played (by name for the
  seat's own hand; counts for rivals unless the card is played face up),
  status effects, monsters returning and the end of the game.
* ``hand_text(core, state, seat)``: the seat's hand (card names, counts and
  what each does), gear, gold and offer on the table.
* ``legend(core)``: the symbols of the text map (``render_ansi``).

Pure Python over two records: nothing reads the generator or the undrawn
decks, and rivals' hands are never named.
"""

from __future__ import annotations

from . import consts as C
from .rules_py import hero_statuses, hero_view

__all__ = ["narrate", "hand_text", "legend", "card_text"]


def _who(h, seat):
    return "you" if h == seat else f"player_{h}"


def _mon_at(core, s, f, q):
    ct, T = core.content, core.T
    k = int(T.sq_kind[f, q])
    if k == C.SQ_MOB:
        m = int(s["sq_mob"][f, q])
        return ct.mob_names[m] if m >= 0 else "a monster"
    if k == C.SQ_BOSS:
        return ct.boss_names[f]
    if k == C.SQ_LAIR:
        return ct.final_names[int(s["final_boss"])]
    return "a monster"


def _item(core, it):
    T = core.T
    return (
        f"{core.content.item_names[it]} ({C.SLOT_NAMES[int(T.item_slot[it])]}, "
        f"{C.TIER_NAMES[int(T.item_tier[it])]})"
    )


def card_text(core, c) -> str:
    """What action card type ``c`` does, in a few words."""
    T = core.T
    e = C.EFFECT_NAMES[int(T.card_effect[c])]
    atk, dfn, heal = int(T.card_atk[c]), int(T.card_def[c]), int(T.card_heal[c])
    if e == "combat_buff":
        parts = [f"{v:+d} {n}" for v, n in ((atk, "ATK"), (dfn, "DEF")) if v]
        return " ".join(parts) + " for this combat"
    if e == "heal":
        txt = "heal to full" if heal < 0 else f"heal {heal} HP"
        return txt + (f", {atk:+d} ATK next combat" if atk else "")
    return {
        "ambush": "attack a rival on your turn",
        "assassinate": "a deadly attack on a rival, on your turn",
        "escape": "leave the combat",
        "bodyguard": "cancel an attack on you",
        "sprint": f"+{int(T.card_move[c])} movement this turn",
        "shadow_step": "slip past bosses and rivals this turn",
        "recall": "send a rival below floor 1 to the start of the floor above",
        "pickpocket": "take and wear an unvaulted item of a rival on your floor",
        "curse": f"a rival loses {atk} ATK until cured",
        "enchant": f"+{atk} ATK while your weapon stays",
        "vault": "protect one of your gear slots for good",
        "cache": f"+{int(T.card_gold[c])} gold",
        "strip": "discard an unvaulted item of a rival on your floor",
        "poison": f"a rival loses {int(T.card_dmg[c])} HP at its next {int(T.card_turns[c])} "
        "turn starts",
        "weakness": f"a rival has -{atk} ATK in its next combat",
        "antidote": "clear poison, weakness and curse",
        "summon": "a mob of the target's floor attacks it",
        "reshuffle": "the item discard goes back into the item deck",
        "well": f"every hero on your floor heals {heal}",
    }.get(e, e)


def legend(core=None) -> list:
    """The symbols of the text map and status lines, one per line."""
    sq = "  ".join(f"{C.SQ_CHARS[k]} {C.SQ_NAMES[k]}" for k in range(C.NSQKIND))
    return [
        "Map squares: " + sq + "; a slain monster or opened chest shows '.' ('x' for the lair)",
        "Heroes on the map: their seat number (0-7), '*' when several share a square",
        "gear[...]: one letter per slot (weapon gloves helmet chest pants boots): "
        "C common, U uncommon, R rare, L legendary, - empty",
        "vault: one bit per slot (1 = protected); flags P poisoned, W weakened, C cursed, "
        "E enchanted weapon",
        "Combat damage per strike: ATK + d6 - DEF of the target, at least 1; "
        "the faster side strikes first",
    ]


def hand_text(core, state, seat) -> list:
    """The seat's own hand, gear, gold and any offer it is looking at."""
    ct, T, s = core.content, core.T, state
    v = hero_view(core, s, seat)
    out = [
        f"You are player_{seat}: HP {v['hp']}/{v['max_hp']}, ATK {v['atk']}, "
        f"DEF {v['def']}, SPD {v['spd']}, {v['gold']} gold, floor {v['floor'] + 1} "
        f"square {v['pos']}"
    ]
    cards = [(c, int(n)) for c, n in enumerate(s["hand"][seat]) if int(n) > 0]
    if cards:
        out.append(f"Your hand ({int(s['hand_n'][seat])}/{C.HAND_MAX} cards):")
        for c, n in cards:
            kind = "immediate" if int(T.card_kind[c]) == C.K_IMMEDIATE else "hand"
            out.append(
                f"  {n} x {ct.card_names[c]} ({C.FAMILY_NAMES[int(T.card_family[c])]}, "
                f"{kind}): {card_text(core, c)}"
            )
    else:
        out.append("Your hand: empty")
    gear = []
    for sl in range(C.NSLOT):
        it = int(s["equip"][seat, sl])
        lock = " [vaulted]" if (int(s["vault"][seat]) >> sl) & 1 else ""
        if it >= 0:
            vals = [
                (k.upper(), int(getattr(T, "item_" + k)[it])) for k in ("atk", "def", "hp", "spd")
            ]
            stats = "".join(f"; {v:+d} {k}" for k, v in vals if v)
            gear.append(
                f"  {C.SLOT_NAMES[sl]}: {ct.item_names[it]} "
                f"({C.TIER_NAMES[int(T.item_tier[it])]}{stats}){lock}"
            )
        else:
            gear.append(f"  {C.SLOT_NAMES[sl]}: -{lock}")
    out.append("Your gear:")
    out += gear
    flags = hero_statuses(v)
    if flags:
        out.append("Status: " + ", ".join(flags))
    if int(s["offer_kind"]) != C.OF_NONE and int(s["offer_seat"]) == seat:
        out += _offer_lines(core, s)
    return out


def _offer_lines(core, s):
    ct, T = core.content, core.T
    kind = int(s["offer_kind"])
    out = [f"On offer ({C.OFFER_NAMES[kind]}):"]
    for k in range(int(s["offer_n"])):
        x = int(s["offer"][k])
        if x < 0:
            continue
        if kind == C.OF_SHOP:
            out.append(
                f"  {k}: {ct.card_names[x]} for {int(T.card_price)} gold - {card_text(core, x)}"
            )
        elif kind == C.OF_ARMORY:
            out.append(f"  {k}: {_item(core, x)} for {int(T.item_price[int(T.item_tier[x])])} gold")
        else:
            out.append(f"  {k}: {_item(core, x)}")
    return out


def _strike_die(core, ref, who_atk, who_def, dmg, mon_atk=None, mon_def=None):
    """The d6 of one strike, from ``dmg = max(1, ATK + d6 - DEF)``."""
    atk = hero_view(core, ref, who_atk)["atk"] if mon_atk is None else mon_atk
    dfn = hero_view(core, ref, who_def)["def"] if mon_def is None else mon_def
    d6 = dmg - atk + dfn
    if dmg > 1 and 1 <= d6 <= 6:
        return f"rolled {d6}"
    if dmg == 1:
        lo = 1 - atk + dfn
        if lo >= 1:
            return f"rolled {min(lo, 6)} or less" if lo < 6 else "minimum damage"
    return None


def _mon_stats(core, s, ref):
    T = core.T
    k = int(ref["cb_kind"])
    if k == C.OPP_MOB:
        return T.mob_stats[int(ref["sq_mob"][int(ref["cb_f"]), int(ref["cb_sq"])])]
    if k == C.OPP_BOSS:
        return T.boss_stats[int(ref["cb_f"])]
    if k == C.OPP_FINAL:
        return T.final_stats[int(ref["final_boss"])]
    if k == C.OPP_SUMMON:
        return T.mob_stats[int(ref["cb_mob"])]
    return None


def _creation_lines(core, p, s, seat, say) -> None:
    """Hero creation: stat rolls and the stats they gave."""
    n = int(s["num_players"])
    if (
        int(s["phase"]) == C.PH_ASSIGN
        and int(s["cr_roll"])
        and (int(s["cr_roll"]) != int(p["cr_roll"]) or int(s["actor"]) != int(p["actor"]))
    ):
        say(
            f"{_who(int(s['actor']), seat)} rolled {C.ROLL_BASE} + d4 = {int(s['cr_roll'])} "
            f"(d4: {int(s['cr_roll']) - C.ROLL_BASE}) for a stat"
        )
    for h in range(n):
        if (s["base"][h] != p["base"][h]).any() and int(p["round"]) == int(s["round"]) == 0:
            stats = ", ".join(
                f"{C.STAT_NAMES[i].upper()} {int(x)}" for i, x in enumerate(s["base"][h]) if int(x)
            )
            if stats:
                say(f"{_who(h, seat)}: {stats}")


def _combat_lines(core, p, s, seat, say) -> tuple:
    """A new round, the fight going on and the hits on its monster; returns
    ``(ref, k, opp, rounds, combat_before)``: the record holding the fight's
    modifiers, its opponent kind and name, the rounds fought between the two
    records and whether a fight was on before."""
    ct, T = core.content, core.T
    if int(s["round"]) != int(p["round"]) and int(s["turn"]) >= 0 and int(p["turn"]) >= 0:
        say(f"-- round {int(s['round']) + 1} begins --")
    combat_before = int(p["cb_kind"]) != C.OPP_NONE
    opp, rounds = None, 0
    ref = p if combat_before else s  # record holding the fight's modifiers

    if not combat_before and int(s["cb_kind"]) != C.OPP_NONE:
        ref = s
    k = int(ref["cb_kind"])
    if k != C.OPP_NONE:
        a = int(ref["cb_a"])
        if k == C.OPP_HERO:
            opp = _who(int(ref["cb_b"]), seat)
        elif k == C.OPP_SUMMON:
            opp = f"a summoned {ct.mob_names[int(ref['cb_mob'])]}"
        else:
            opp = _mon_at(core, ref, int(ref["cb_f"]), int(ref["cb_sq"]))
        if not combat_before or int(p["cb_a"]) != int(s["cb_a"]):
            if int(s["cb_kind"]) != C.OPP_NONE:
                st = _mon_stats(core, s, s)
                extra = (
                    f" (ATK {int(st[0])} DEF {int(st[1])} SPD {int(st[3])})"
                    if st is not None
                    else ""
                )
                say(f"Fight: {_who(a, seat)} vs {opp}{extra}")
        rounds = int(s["cb_round"]) - (int(p["cb_round"]) if combat_before else 0)
        if rounds > 0:
            # hits on the hero side(s)
            ms = _mon_stats(core, s, ref)
            tgt_m = None
            if k in (C.OPP_MOB, C.OPP_BOSS, C.OPP_FINAL):
                f, q = int(ref["cb_f"]), int(ref["cb_sq"])
                tgt_m = (int(p["sq_hp"][f, q]), int(s["sq_hp"][f, q]) if s["sq_alive"][f, q] else 0)
            elif k == C.OPP_SUMMON:
                full = int(T.mob_stats[int(ref["cb_mob"]), 2])
                tgt_m = (int(p["cb_mhp"]) if combat_before else full, max(0, int(s["cb_mhp"])))
            one = rounds == 1
            if tgt_m is not None and tgt_m[0] > tgt_m[1]:
                dmg = tgt_m[0] - tgt_m[1]
                die = (
                    _strike_die(core, ref, a, None, dmg, mon_def=int(ms[1]))
                    if one and tgt_m[1] > 0
                    else None
                )  # a killing blow may exceed the HP left
                say(
                    f"{_who(a, seat)} hit {opp} for {dmg}"
                    + (f" ({die})" if die else "")
                    + (f" in {rounds} rounds" if not one else "")
                    + f"; {opp} HP {tgt_m[1]}"
                )
    return ref, k, opp, rounds, combat_before


def _hp_lines(core, p, s, seat, say, fight) -> None:
    """Hit points lost and healed (with who struck and the die), deaths."""
    T = core.T
    n = int(s["num_players"])
    ref, k, opp, rounds, _ = fight
    for h in range(n):
        d_deaths = int(s["deaths"][h]) - int(p["deaths"][h])
        dh = int(s["hp"][h]) - int(p["hp"][h])
        if d_deaths > 0:
            killer = [j for j in range(n) if j != h and int(s["kills"][j]) > int(p["kills"][j])]
            by = (
                f" by {_who(killer[0], seat)}"
                if killer
                else (f" by {opp}" if k not in (C.OPP_NONE, C.OPP_HERO) else "")
            )
            say(
                f"{_who(h, seat)} {'were' if h == seat else 'was'} slain{by} and "
                f"{'respawn' if h == seat else 'respawns'} at the start of floor "
                f"{int(s['floor'][h]) + 1} with full HP ({int(s['hp'][h])})"
            )
            continue
        gear_hp = sum(int(T.item_hp[int(i)]) for i in s["equip"][h] if int(i) >= 0) - sum(
            int(T.item_hp[int(i)]) for i in p["equip"][h] if int(i) >= 0
        )
        if int(p["turn"]) < 0 and int(s["turn"]) < 0 or (gear_hp and dh == gear_hp):
            continue  # creation, or HP following a change of gear (told with the item)
        if dh < 0:
            why = ""
            if k != C.OPP_NONE and h in (
                int(ref["cb_a"]),
                int(ref["cb_b"]) if k == C.OPP_HERO else -1,
            ):
                src = None
                if k == C.OPP_HERO:
                    att = int(ref["cb_b"]) if h == int(ref["cb_a"]) else int(ref["cb_a"])
                    die = _strike_die(core, ref, att, h, -dh) if rounds == 1 else None
                    src = _who(att, seat)
                else:
                    ms = _mon_stats(core, s, ref)
                    die = (
                        _strike_die(core, ref, None, h, -dh, mon_atk=int(ms[0]))
                        if rounds == 1 and ms is not None
                        else None
                    )
                    src = opp
                why = f" from {src}" + (f" ({die})" if die else "")
            elif int(p["poison"][h]) > int(s["poison"][h]):
                why = " to poison"
            say(f"{_who(h, seat)} lost {-dh} HP{why} (HP {int(s['hp'][h])})")
        elif dh > 0:
            say(f"{_who(h, seat)} healed {dh} HP (HP {int(s['hp'][h])})")


def _board_lines(core, p, s, seat, say, fight) -> None:
    """Monsters slain or back, chests opened or new, a summon slain."""
    ct, T = core.content, core.T
    n = int(s["num_players"])
    ref, k, _, _, combat_before = fight
    for f in range(C.NFLOOR):
        for q in range(int(T.floor_len[f])):
            was, now = int(p["sq_alive"][f, q]), int(s["sq_alive"][f, q])
            if was == now:
                continue
            kind = int(T.sq_kind[f, q])
            where = f"floor {f + 1} square {q}"
            if kind == C.SQ_CHEST:
                say(
                    f"the chest on {where} was opened"
                    if was
                    else f"a new chest appeared on {where}"
                )
            elif was:
                killer = [h for h in range(n) if int(s["kills"][h]) > int(p["kills"][h])]
                by = f" by {_who(killer[0], seat)}" if killer else ""
                say(f"{_mon_at(core, p, f, q)} on {where} was slain{by}")
            else:
                say(f"{_mon_at(core, s, f, q)} returned to {where} (HP {int(s['sq_hp'][f, q])})")
    if (
        int(s["cb_kind"]) == C.OPP_NONE
        and combat_before
        and k == C.OPP_SUMMON
        and int(s["cb_mhp"]) <= 0
    ):
        say(f"the summoned {ct.mob_names[int(ref['cb_mob'])]} was slain")


def _movement_lines(core, p, s, seat, say) -> None:
    """A turn's movement roll, walks, stairs and moves up."""
    ct, T = core.content, core.T
    n = int(s["num_players"])
    if (
        int(s["phase"]) == C.PH_MOVE
        and int(s["turn"]) >= 0
        and (
            int(s["turn"]) != int(p["turn"])
            or int(s["round"]) != int(p["round"])
            or int(p["phase"]) != C.PH_MOVE
        )
    ):
        h = int(s["turn"])
        bt = int(s["equip"][h, C.SL_BOOTS])
        boots = int(T.item_spd[bt]) if bt >= 0 else 0
        roll = int(s["roll"])
        say(
            f"{_who(h, seat).capitalize() if h == seat else _who(h, seat)}: turn starts; "
            f"movement roll {roll - boots}" + (f" + {boots} boots = {roll}" if boots else "")
        )
    for h in range(n):
        f0, q0 = int(p["floor"][h]), int(p["pos"][h])
        f1, q1 = int(s["floor"][h]), int(s["pos"][h])
        if (f0, q0) == (f1, q1) or int(s["deaths"][h]) > int(p["deaths"][h]):
            continue
        kind = C.SQ_NAMES[int(T.sq_kind[f1, q1])]
        if f1 > f0:
            say(
                f"{_who(h, seat)} took the stairs down to floor {f1 + 1} ({ct.floor_names[f1]}), "
                f"square {q1}"
            )
        elif f1 < f0:
            say(
                f"{_who(h, seat)} {'were' if h == seat else 'was'} sent up to floor {f1 + 1}, "
                f"square {q1}"
            )
        else:
            step = "forward" if q1 > q0 else "back"
            say(
                f"{_who(h, seat)} moved {abs(q1 - q0)} {step} to floor {f1 + 1} "
                f"square {q1} ({kind})"
            )


def _gear_gold_lines(core, p, s, h, seat, say) -> None:
    """Seat ``h``'s gear bought, equipped or lost, vaulted slots and gold."""
    ct, T = core.content, core.T
    bought = None
    for sl in range(C.NSLOT):
        a0, a1 = int(p["equip"][h, sl]), int(s["equip"][h, sl])
        if a0 == a1:
            continue
        if a1 >= 0:
            price = ""
            if int(p["offer_kind"]) == C.OF_ARMORY and int(p["offer_seat"]) == h:
                cost = int(T.item_price[int(T.item_tier[a1])])
                price = f" for {cost} gold"
                bought = cost
            verb = "bought" if price else "equipped"
            rep = f", replacing {ct.item_names[a0]}" if a0 >= 0 else ""
            say(f"{_who(h, seat)} {verb} {_item(core, a1)}{price}{rep}")
        else:
            say(f"{_who(h, seat)} lost {_item(core, a0)}")
    v0, v1 = int(p["vault"][h]), int(s["vault"][h])
    for sl in range(C.NSLOT):
        if (v1 >> sl) & 1 and not (v0 >> sl) & 1:
            say(f"{_who(h, seat)} vaulted the {C.SLOT_NAMES[sl]} slot")
    dg = int(s["gold"][h]) - int(p["gold"][h])
    dn = int(s["hand_n"][h]) - int(p["hand_n"][h])
    if int(p["offer_kind"]) == C.OF_SHOP and int(p["offer_seat"]) == h and dn > 0:
        bought = dn * int(T.card_price)
    if dg:
        if bought is not None and dg == -bought:
            dg = 0  # told with the purchase
        if dg:
            say(
                f"{_who(h, seat)} {'gained' if dg > 0 else 'spent'} {abs(dg)} gold "
                f"(now {int(s['gold'][h])})"
            )


def _card_lines(core, p, s, h, seat, say) -> None:
    """Cards drawn, bought and played by seat ``h`` (by name for ``seat``'s
    own hand, counts for rivals)."""
    ct, T = core.content, core.T
    if h == seat:
        for c in range(C.MAX_CARDS):
            dc = int(s["hand"][h, c]) - int(p["hand"][h, c])
            if dc > 0:
                buy = int(p["offer_kind"]) == C.OF_SHOP and int(p["offer_seat"]) == h
                say(
                    f"you {'bought' if buy else 'drew'} {ct.card_names[c]}"
                    + (f" for {int(T.card_price)} gold" if buy else "")
                    + (f" (x{dc})" if dc > 1 else "")
                    + f": {card_text(core, c)}"
                )
            elif dc < 0:
                say(f"you played {ct.card_names[c]}" + (f" (x{-dc})" if dc < -1 else ""))
    else:
        dn = int(s["hand_n"][h]) - int(p["hand_n"][h])
        shop = int(p["offer_kind"]) == C.OF_SHOP and int(p["offer_seat"]) == h
        if dn > 0 and shop and int(p["gold"][h]) - int(s["gold"][h]) == dn * int(T.card_price):
            say(
                f"player_{h} bought {dn} card{'s' if dn > 1 else ''} for "
                f"{dn * int(T.card_price)} gold"
            )
        elif dn > 0:
            say(f"player_{h} drew {dn} card{'s' if dn > 1 else ''} ({int(s['hand_n'][h])} in hand)")
        elif dn < 0:
            say(
                f"player_{h} played {-dn} card{'s' if dn < -1 else ''} "
                f"({int(s['hand_n'][h])} in hand)"
            )


def _status_lines(p, s, h, seat, say) -> None:
    """Status effects of seat ``h`` gained and lost."""
    for name, field in (
        ("poisoned", "poison"),
        ("weakened", "weak"),
        ("cursed", "curse"),
        ("enchanted", "enchant"),
    ):
        was, now = int(p[field][h]), int(s[field][h])
        if now and not was:
            extra = (
                f" ({now} turns, {int(s['poison_dmg'][h])} HP each)"
                if field == "poison"
                else f" ({now:+d} ATK)"
                if field == "enchant"
                else f" (-{now} ATK)"
            )
            say(f"{_who(h, seat)} {'are' if h == seat else 'is'} {name}{extra}")
        elif was and not now and field != "poison" and field != "weak":
            say(f"{_who(h, seat)} {'are' if h == seat else 'is'} no longer {name}")
        elif was and not now and field == "poison" and int(p["poison"][h]) > 1:
            say(f"{_who(h, seat)} {'are' if h == seat else 'is'} cured of poison")


def _offer_end_lines(core, p, s, seat, say) -> None:
    """An offer put on the table, and the end of the game."""
    ct = core.content
    ok0, ok1 = int(p["offer_kind"]), int(s["offer_kind"])
    if ok1 != C.OF_NONE and (ok1 != ok0 or int(p["offer_seat"]) != int(s["offer_seat"])):
        h = int(s["offer_seat"])
        if h == seat:
            for line in _offer_lines(core, s):
                say(line)
        else:
            say(f"player_{h} looks at {int(s['offer_n'])} {C.OFFER_NAMES[ok1]} offer(s)")

    if int(s["outcome"]) != C.O_PLAYING and int(p["outcome"]) == C.O_PLAYING:
        w = int(s["winner"])
        if w >= 0:
            say(
                f"GAME OVER: {_who(w, seat)} slew {ct.final_names[int(s['final_boss'])]} "
                f"and {'win' if w == seat else 'wins'}"
            )
        else:
            say(f"GAME OVER: {C.OUTCOME_NAMES[int(s['outcome'])]}")


def narrate(core, prev, state, seat) -> list:
    """Events between records ``prev`` and ``state``, told to ``seat``."""
    p, s = prev, state
    out: list[str] = []
    say = out.append
    _creation_lines(core, p, s, seat, say)
    fight = _combat_lines(core, p, s, seat, say)
    _hp_lines(core, p, s, seat, say, fight)
    _board_lines(core, p, s, seat, say, fight)
    _movement_lines(core, p, s, seat, say)
    for h in range(int(s["num_players"])):
        _gear_gold_lines(core, p, s, h, seat, say)
        _card_lines(core, p, s, h, seat, say)
        _status_lines(p, s, h, seat, say)
    _offer_end_lines(core, p, s, seat, say)
    return out
