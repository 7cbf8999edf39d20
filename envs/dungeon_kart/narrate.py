"""Dungeon Kart in words, for a person at one seat: what only that seat
knows (the spell card it holds) and its own Racer and dashboard. Used by
the web app (:mod:`dungeonrl.web`) beside the public table text; the race
itself is told by the labels of the moves."""

from __future__ import annotations


def hand_text(core, state, seat) -> list:
    """The seat's Racer, dashboard and held spell card, in words."""
    ct, s = core.content, state
    out = [f"You are player_{seat}"]
    racer, dash = int(s["racer"][seat]), int(s["dash"][seat])
    if racer >= 0:
        upper, lower = ct.power_text[racer]
        out[0] += f", racing {ct.racer_names[racer]}"
        out.append(f"Upper power: {upper}")
        out.append(f"Lower power: {lower}")
    if dash >= 0:
        out.append(f"Dashboard {ct.dashboard_names[dash]}: {ct.dashboard_text[dash]}")
    card = int(s["spell"][seat])
    if card >= 0:
        kind = int(ct.tables.card_kind[card])
        out.append(f"Your spell: {ct.spell_names[kind]} ({ct.spell_text[kind]})")
    elif int(s["marker"][seat]):
        out.append("You hold a spell marker (it becomes a spell card when one is drawn)")
    else:
        out.append("You hold no spell")
    out.append(f"Coins {int(s['coins'][seat])}")
    return out
