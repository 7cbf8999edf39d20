"""Dungeon Kart: the 2-8 player hex kart race (``shared/rules/dungeon-kart.txt``)
as rules + content + encoder + render for the shared engine.

Modules: :mod:`.hexgeo` (geometry), :mod:`.content` (TOML -> tables, track
builder, custom text boards), :mod:`.consts` (numbering, action layout),
:mod:`.state` (the state record), :mod:`.rules` (row functions),
:mod:`.policy` (scripted heuristic), :mod:`.render` (text and picture);
the encoder is :mod:`dungeonrl.encoders.dungeon_kart`. See README.md.
"""
