"""Dungeon Kart content: the shipped data compiles and satisfies the
rulebook's constraints; the track builder and the custom-board format work
and reject bad input with errors naming the file, entry and field."""

import os
import shutil

import numpy as np
import pytest

from dungeonrl.envs.core.errors import ContentError
from dungeonrl.envs.dungeon_kart import consts as C
from dungeonrl.envs.dungeon_kart import hexgeo as H
from dungeonrl.envs.dungeon_kart.content import (
    DATA_DIR,
    Face,
    build_track,
    load_content,
    parse_board,
)

MUD = """name: Mud Straight
dir: E
1 2 . . m . . . ."""


@pytest.fixture(scope="module")
def ct():
    return load_content()


def test_hexgeo_left_right_and_rotation():
    for d in range(6):
        assert H.left(H.right(d)) == d
        assert H.opposite(H.opposite(d)) == d
        q, r = H.rotate(*H.DIRS[d], 1)
        assert (q, r) == H.DIRS[H.right(d)]  # rotating clockwise = turning right
    assert H.distance((0, 0), (2, -1)) == 2
    # text-map columns: hex (q, r) at line r, column 2q + r
    assert H.map_cell(3, 1) == (1, 7)


def test_shipped_content_constraints(ct):
    T = ct.tables
    assert len(ct.faces) == 30  # DK-002
    assert ct.track_names[0] == "Beginner Track"  # DK-021
    kinds = set(T.tr_kind[: T.n_tracks].tolist())
    assert kinds == {C.TR_CIRCUIT, C.TR_SPRINT}
    for t in range(T.n_tracks):
        assert T.tr_nstart[t] == 8  # 8 players fit
    assert len(ct.dashboard_names) == 8 and len(ct.racer_names) == 10
    assert {"King Croak", "Belladonna", "Porkus", "Gorgona", "Klonos"} <= set(ct.racer_names)
    # every dashboard: two abilities; grass marker 3 (4 with Off-Road), no dirt marker with it
    for d in range(8):
        assert bin(int(T.dash_abil[d])).count("1") == 2  # DK-048
        off = (T.dash_abil[d] >> C.AB_OFFROAD) & 1
        assert T.dash_pen[d, C.T_GRASS] == (4 if off else 3)  # DK-053, DK-054
        assert (T.dash_pen[d, C.T_DIRT] == 0) == bool(off)  # DK-055, DK-056
    assert 9 in T.dash_mp[:, 1:].ravel().tolist()  # DK-073
    # upper 2 / lower 3 coins, Klonos dearer (DK-201, DK-202)
    k = ct.racer_names.index("Klonos")
    for r in range(10):
        if r == k:
            assert T.pw_cost[r, 0] > 2 and T.pw_cost[r, 1] > 3
        else:
            assert T.pw_cost[r].tolist() == [2, 3]
    assert {"Freeze", "Fireball", "Zombie Attack"} <= set(ct.spell_names)
    assert all(T.deck_size[d] > 0 for d in range(3))
    assert T.bag_size >= max(int(T.tr_haz[t].sum()) for t in range(T.n_tracks))
    # 2 players use the first two spots of the 3-player board (DK-039)
    assert T.place_deck[2, :2].tolist() == T.place_deck[3, :2].tolist()


def test_walls_are_symmetric_and_start_tile_first(ct):
    T = ct.tables
    for t in range(T.n_tracks):
        on = np.flatnonzero(T.tr_tile[t] >= 0)
        for c in on:
            for d in range(6):
                if (T.tr_walls[t, c] >> d) & 1:
                    n = H.neighbour_cell(c, d)
                    if T.tr_tile[t, n] >= 0:
                        assert (T.tr_walls[t, n] >> H.opposite(d)) & 1
        starts = np.flatnonzero(T.tr_start[t] > 0)
        assert (T.tr_tile[t, starts] == 0).all()


def test_custom_board_in_a_few_lines():
    ct = load_content(boards=(MUD,))
    i = ct.track_index("Mud Straight")
    tr = ct.tracks[i]
    T = ct.tables
    oq, orr = tr.offset
    mud = [(q, r) for (q, r), (_, ch, _) in tr.cells.items() if ch == "m"]
    assert mud == [(4, 0)]
    c = orr * H.BOARD_W + 4 + oq
    assert T.tr_terr[i, c] == C.T_MUD and T.tr_kind[i] == C.TR_SPRINT
    assert T.tr_nstart[i] == 2
    ct.check_players(i, 2)
    with pytest.raises(ContentError, match="start hexes"):
        ct.check_players(i, 3)


def test_bad_board_text_names_the_place():
    with pytest.raises(ContentError, match=r"board.*'map'.*unknown hex character 'z'"):
        parse_board("1 . z .")
    with pytest.raises(ContentError, match="off the honeycomb"):
        parse_board("1  . .")
    with pytest.raises(ContentError, match="'dir'"):
        parse_board("dir: UP\n1 . .")


def test_builder_errors_name_tile_and_edge(ct):
    f = dict(ct.faces)
    with pytest.raises(ContentError, match=r"dead end: the exit edge of the last tile 3A"):
        build_track("t", C.TR_CIRCUIT, f, ["1A", "2A", "3A"])
    with pytest.raises(ContentError, match=r"overlap: tile 7A .* tile 1A"):
        build_track("t", C.TR_SPRINT, f, ["1A", "2A", "3A", "4A", "5A", "6A", "7A"])
    narrow = Face("N1", "narrow", {(0, 0): ".", (1, 0): "."}, [(0, 0)], 0, [(1, 0)], 0)
    f["N1"] = narrow
    with pytest.raises(
        ContentError,
        match=r"unmatched road opening: tile N1's entry edge "
        r"has 1 lanes but tile 1A's exit edge has 3",
    ):
        build_track("t", C.TR_SPRINT, f, ["1A", "N1"])
    with pytest.raises(ContentError, match="used twice"):
        build_track("t", C.TR_SPRINT, f, ["1A", "2A", "2B"])
    with pytest.raises(ContentError, match="must be a Starting Line tile"):
        build_track("t", C.TR_SPRINT, f, ["2A"])


def _copy(tmp_path):
    d = tmp_path / "data"
    shutil.copytree(DATA_DIR, d)
    return d


def _edit(d, name, old, new):
    p = os.path.join(d, name + ".toml")
    s = open(p).read()
    assert old in s
    open(p, "w").write(s.replace(old, new, 1))


@pytest.mark.parametrize(
    "name,old,new,msg",
    [
        (
            "dashboards",
            "mp = [2, 5, 6, 7, 9, 11]",
            "mp = [2, 5, 6, 7, 9]",
            r"dashboards.toml, dashboard 'Rusty Wheelbarrow', field 'mp'",
        ),
        (
            "dashboards",
            'abilities = ["acceleration", "heavy"]',
            'abilities = ["acceleration", "fly"]',
            r"dashboards.toml, dashboard 'Rusty Wheelbarrow', field 'abilities': unknown ability",
        ),
        (
            "dashboards",
            "penalty = { dirt = 0, grass = 4, mud = 2, water = 2 }\n"
            'abilities = ["off_road", "handling"]',
            "penalty = { dirt = 0, grass = 3, mud = 2, water = 2 }\n"
            'abilities = ["off_road", "handling"]',
            r"dashboard 'Swamp Skiff', field 'penalty': grass marker must be at setting 4",
        ),
        (
            "racers",
            'upper = { effect = "steal_coins", cost = 2, amount = 1',
            'upper = { effect = "steal_coins", cost = 3, amount = 1',
            r"racers.toml, racer 'Belladonna', field 'upper'",
        ),
        (
            "spells",
            'effect = "fireball"\ntiming = "any"',
            'effect = "fireball"\ntiming = "round"',
            r"spells.toml, spell 'Fireball', field 'timing'",
        ),
        ("tiles", 'face = "2A"', 'face = "2C"', r"tiles.toml, tile 2C, field 'face'"),
        (
            "tracks",
            '"1A", "2A", "3A", "4A", "8A"',
            '"1A", "2A", "3A", "4A", "10A"',
            r"tracks.toml, track 'Beginner Track' \(tile faces of tiles.toml\), "
            r"field 'tiles': dead end",
        ),
        (
            "chance",
            "boost = [1, 1, 2, 2, 3, 3]",
            "boost = [1, 1, 2, 2, 3, 0]",
            r"chance.toml, field 'boost'",
        ),
        (
            "tiles",
            'face = "14A"',
            'face = "14A"\nwalls = [[0, 0, "E"], [0, 0, "SE"]]',
            r"tiles.toml, tile 14A, field 'map': dead end: hex \[0, 0\]",
        ),
        (
            "heroes",
            'hit = "gift"',
            'hit = "hug"',
            r"heroes.toml, hero 'The Generous Giant', field 'hit'",
        ),
        (
            "heroes",
            'hit = "rob"\namount = 2',
            'hit = "rob"',
            r"heroes.toml, hero 'Mirelda the Toll-Witch', field 'amount': is required",
        ),
    ],
)
def test_malformed_content_names_file_entry_field(tmp_path, name, old, new, msg):
    d = _copy(tmp_path)
    _edit(d, name, old, new)
    with pytest.raises(ContentError, match=msg):
        load_content(str(d))


INVENTORY = "/work/shared/rules/inventory/dungeon-kart.md"


@pytest.mark.skipif(not os.path.exists(INVENTORY), reason="rule inventory not available")
def test_readme_covers_every_rule_id():
    import re

    inv = open(INVENTORY).read()
    readme = open(os.path.join(os.path.dirname(DATA_DIR), "README.md")).read()
    for dk in re.findall(r"^- (DK-\d{3}):", inv, re.M):
        assert f"| {dk} |" in readme, f"{dk} missing from the coverage table"
    for g in sorted(set(re.findall(r"DK-G(\d\d)", inv))):
        assert f"G{g}" in readme, f"DK-G{g} not addressed"
    for a in sorted(set(re.findall(r"DK-A(\d\d)", inv))):
        assert f"A{a}" in readme, f"DK-A{a} not addressed"
    # every cited test exists
    here = os.path.dirname(__file__)
    for f, name in re.findall(r"dungeon_kart/(test_\w+\.py)::(test_\w+)", readme):
        assert f"def {name}(" in open(os.path.join(here, f)).read(), name
