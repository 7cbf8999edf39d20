"""A game joins every layer by being dropped in: a package with a ``game.py``
(``GAME = GameEntry(...)``) in a folder of ``dungeonrl.envs`` is found by
the catalog, and from there by the registry (Gymnasium), the CLI, the agents,
the code generator's list and the conformance and fuzz suites, with no other
file edited.

The game dropped in is the fixture "Race to 10" (``tests/helpers/fixture_game.py``)
as a package ``race`` in a temporary folder named by ``DUNGEONRL_GAMES_PATH``
(never inside the source tree, so parallel test workers never see it); its
companions (agent hooks with a heuristic and a core option, a CLI ``bench``
companion; conformance hooks) sit in two modules next to it, named by the
declaration. The team fixture "Relay" (``tests/helpers/fixture_team.py``) is dropped
in the same way with its PettingZoo module inside its own package. Each
check runs in a fresh process with that environment."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from dungeonrl.envs import catalog

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HERE = os.path.join(ROOT, "tests")

GAME_INIT = '''\
"""Race to 10, the fixture game, as a game package (its exports load on
first use, so discovering the game imports nothing of it)."""


def __getattr__(name):
    from helpers import fixture_game
    return getattr(fixture_game, name)
'''

GAME_DECL = """\
from dungeonrl.envs.catalog import GameEntry

GAME = GameEntry(
    name="race",
    env_id="dungeonrl-test/Race-v0",
    agent_hooks="race_addons:AGENT_HOOKS",
    cli="race_addons",
    test_hooks="race_conformance:TEST_HOOKS",
)
"""

ADDONS = '''\
"""The drop-in game's companions: agent hooks and CLI companion."""
import numpy as np

from dungeonrl.envs.core.hooks import GameHooks as AgentHooks

from helpers import fixture_game as F


class Heuristic:
    """Two squares when allowed, else a roll when allowed, else one square."""

    name = "heuristic"

    def __init__(self, core):
        self.core = core

    def act(self, buf, rows):
        legal = buf.states["legal"][rows]
        return np.where(legal[:, F.STEP_2] == 1, F.STEP_2,
                        np.where(legal[:, F.ROLL] == 1, F.ROLL, F.STEP_1)).astype(np.int64)


AGENT_HOOKS = AgentHooks(
    heuristic=Heuristic,
    core_options=(("--cap", dict(dest="max_steps", type=int, default=None,
                                 help="moves before truncation")),),
)


def bench(args):
    """The race's own bench companion."""
    print(f"race bench companion seed={args.seed}")


def bench_options(spec):
    return []


'''

CONFORMANCE = '''\
"""The drop-in game's conformance hooks."""
import numpy as np

from helpers.game_hooks import GameHooks as TestHooks, Violations, as_batch, as_row

from helpers import fixture_game as F


class RaceTestHooks(TestHooks):
    name = "race"
    configs = [{}, {"max_steps": 5}]
    truncate_config = {"max_steps": 2}
    chance_fields = ("rng",)

    def check_invariants(self, core, state):
        S = as_batch(state)
        v = Violations("Race")
        v.need((S["pos"] >= 0) & (S["pos"] <= F.GOAL), "pos off the track", S["pos"])
        v.need((S["last_roll"] >= 1) & (S["last_roll"] <= 6), "last roll not a d6",
               S["last_roll"])
        v.raise_if_any(S)

    def resample_hidden(self, core, state, rng):
        out = as_row(state)
        out[0]["rng"][:] = rng.integers(0, 2**63, size=2, dtype=np.uint64)
        return out

    def change_visible(self, core, state):
        out = as_row(state)
        out[0]["pos"] = (int(out[0]["pos"]) + 1) % F.GOAL
        return out

    def corruptions(self, core, state):
        r = as_row(state)
        r[0]["pos"] = F.GOAL + 1
        return [("beyond the goal", r)]

    def batch_kernels(self):
        from dungeonrl.envs.core.kernel.freshness import load_kernels
        k = load_kernels("helpers.fixture_game:KERNEL_FACTS")
        return [k.reset_batch, k.mask_batch, k.observe_batch, k.step_autoreset,
                k.refresh_batch]


TEST_HOOKS = RaceTestHooks()
'''


#: the team fixture "Relay" (``tests/helpers/fixture_team.py``), a multi-seat game
#: whose PettingZoo module lives inside its own package
RELAY = {
    "games/relay/__init__.py": """\
def __getattr__(name):
    from helpers import fixture_team
    return getattr(fixture_team, name)
""",
    "games/relay/game.py": """\
from dungeonrl.envs.catalog import GameEntry

GAME = GameEntry(name="relay", env_id="dungeonrl-test/Relay-v0",
                 pettingzoo="dungeonrl.envs.relay.pettingzoo")
""",
    "games/relay/pettingzoo.py": """\
from ..core.adapters.pz_module import define
from . import SPEC

globals().update(define(SPEC, __name__, default_players=4))
""",
}

RACE = {
    "games/race/__init__.py": GAME_INIT,
    "games/race/game.py": GAME_DECL,
    "race_addons.py": ADDONS,
    "race_conformance.py": CONFORMANCE,
}


def drop_in(root, files=RACE) -> dict:
    """Write a game and its companions under ``root``; the environment of
    a process that sees them."""
    games = os.path.join(root, "games")
    for rel, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
        with open(os.path.join(root, rel), "w") as f:
            f.write(text)
    env = dict(os.environ)
    env[catalog.GAMES_PATH_VAR] = games
    env["PYTHONPATH"] = os.pathsep.join([str(root), HERE, env.get("PYTHONPATH", "")])
    return env


def run(env, *args, timeout=600):
    r = subprocess.run(
        [sys.executable, *args], env=env, cwd=ROOT, capture_output=True, text=True, timeout=timeout
    )
    assert r.returncode == 0, f"{args}:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    return r.stdout


LAYERS = textwrap.dedent("""\
    import json
    import sys
    import gymnasium
    import dungeonrl
    cheap = "helpers.fixture_game" not in sys.modules    # discovery imported none of the game
    from dungeonrl import registry
    from dungeonrl.envs import catalog
    from dungeonrl.envs.core.kernel import codegen
    from dungeonrl.envs.core.hooks import hooks_for
    from dungeonrl.benchmarks import fuzz
    from helpers import game_hooks
    from helpers import conformance_common

    out = {"catalog": list(catalog.GAMES), "registry": list(registry.GAMES),
           "listed": dungeonrl.list_games(), "codegen": list(codegen.GAME_PACKAGES),
           "fuzz": fuzz.games(), "fuzz_hooks": list(fuzz.HOOKS),
           "conformance": list(conformance_common.GAMES),
           "test_hooks": sorted(game_hooks.HOOKS),
           "agent_heuristic": hooks_for("race").heuristic is not None, "cheap": cheap}
    env = gymnasium.make("dungeonrl-test/Race-v0")
    obs, info = env.reset(seed=3)
    obs, r, term, trunc, info = env.step(1)
    out["stepped"] = [float(obs[0]), float(r)]
    out["module"] = registry.game_module("race")
    print(json.dumps(out))
""")


@pytest.fixture(scope="module")
def dropped(tmp_path_factory):
    return drop_in(tmp_path_factory.mktemp("dropin"))


def test_a_dropped_in_game_joins_every_layer(dropped):
    out = json.loads(run(dropped, "-c", LAYERS).strip().splitlines()[-1])
    suite = list(catalog.GAMES)
    # after the suite's games (the declaration's default order), in every list
    assert out["catalog"] == suite + ["race"]
    assert out["registry"] == [catalog.package(g) for g in suite] + ["dungeonrl.envs.race"]
    assert out["listed"][: len(suite) + 1] == suite + ["race"]
    assert out["codegen"] == suite + ["race"]
    assert "race" in out["fuzz"] and "race" in out["fuzz_hooks"]
    assert "race" in out["conformance"] and "race" in out["test_hooks"]
    assert out["agent_heuristic"] and out["cheap"]
    assert out["module"] == "dungeonrl.envs.race"
    assert out["stepped"] == [pytest.approx(0.1), pytest.approx(-0.05)]


def test_the_cli_lists_evaluates_and_finds_its_companion(dropped):
    listed = run(dropped, "-m", "dungeonrl", "list")
    assert "race" in listed and "dungeonrl-test/Race-v0" in listed
    assert "--cap" in run(dropped, "-m", "dungeonrl", "eval", "race", "--help")
    text = run(
        dropped,
        "-m",
        "dungeonrl",
        "eval",
        "race",
        "--agent",
        "heuristic",
        "--agent",
        "random",
        "--games",
        "40",
        "--cap",
        "12",
    )
    assert "heuristic" in text and "random" in text
    assert "race bench companion seed=7" in run(
        dropped, "-m", "dungeonrl", "bench", "race", "--seed", "7"
    )


def test_the_suites_collect_and_run_it(dropped):
    ids = run(
        dropped,
        "-m",
        "pytest",
        "--collect-only",
        "-q",
        "-p",
        "no:cacheprovider",
        "tests/conformance/test_masks.py",
        "tests/fuzz/test_args.py",
    )
    assert "test_mask_soundness[race]" in ids, ids[-2000:]
    assert "[race]" in ids.split("fuzz/test_args.py", 1)[1]
    run(
        dropped,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "tests/conformance/test_masks.py",
        "-k",
        "race",
    )


MULTI = textwrap.dedent("""\
    import sys
    import numpy as np
    import gymnasium
    import pettingzoo
    import dungeonrl
    from dungeonrl import registry
    assert "helpers.fixture_team" not in sys.modules
    assert "relay" in dungeonrl.list_games()
    assert "dungeonrl-test/Relay-v0" in pettingzoo.aec_registry
    from dungeonrl.envs.relay import pettingzoo as pz
    assert registry.aec_factory("relay") is pz.env
    env = pz.env()
    env.reset(seed=1)
    mask = env.observe(env.agent_selection)["action_mask"]
    env.step(int(np.flatnonzero(mask)[0]))
    par = pz.parallel_env()
    par.reset(seed=1)
    single = gymnasium.make("dungeonrl-test/Relay-v0", opponents="random")
    obs, _ = single.reset(seed=0)
    print("ok", env.agent_selection, obs.shape)
""")


def test_a_multi_seat_game_declares_its_pettingzoo_module(tmp_path):
    out = run(drop_in(tmp_path, RELAY), "-c", MULTI)
    assert out.strip().splitlines()[-1].startswith("ok player_")


def test_the_drop_in_stays_out_of_this_process():
    assert "race" not in catalog.GAMES


@pytest.fixture
def extra_folder(tmp_path, monkeypatch):
    """A folder of ``dungeonrl.envs`` for this test only (modules imported
    from it are forgotten afterwards)."""
    import dungeonrl.envs as envs

    monkeypatch.setattr(envs, "__path__", [*envs.__path__, str(tmp_path)])
    before = set(sys.modules)
    yield tmp_path
    for name in set(sys.modules) - before:
        if name.startswith("dungeonrl.envs."):
            del sys.modules[name]


def _declare(folder, pkg, body):
    os.makedirs(folder / pkg)
    (folder / pkg / "__init__.py").write_text("")
    (folder / pkg / "game.py").write_text("from dungeonrl.envs.catalog import GameEntry\n" + body)


def test_discovery_orders_by_the_declaration(extra_folder):
    _declare(
        extra_folder, "zz_probe", "GAME = GameEntry(name='zz_probe', env_id='p/Z-v2', order=15)\n"
    )
    (extra_folder / "not_a_game").mkdir()
    (extra_folder / "not_a_game" / "__init__.py").write_text("")
    found = catalog.discover()
    assert list(found)[:2] == ["unbroken", "zz_probe"]  # order 15: after 10, before 20
    assert found["zz_probe"].version == 2
    assert "not_a_game" not in found


@pytest.mark.parametrize(
    "body,error",
    [
        ("GAME = GameEntry(name='other', env_id='p/X-v0')\n", "not 'bad_probe'"),
        ("GAME = GameEntry(name='bad_probe', env_id='dungeonrl/Unbroken-v0')\n", "both"),
        ("GAME = None\n", "GameEntry"),
        ("GAME = GameEntry(name='bad_probe', env_id='p/no-version')\n", "-v<version>"),
    ],
)
def test_a_bad_declaration_is_named(extra_folder, body, error):
    _declare(extra_folder, "bad_probe", body)
    with pytest.raises((TypeError, ValueError), match=error):
        catalog.discover()
