"""Generated kernels never run a stale compilation of the rules
(``dungeonrl.envs.core.kernel.freshness``): a kernel module carries the digest of
every source compiled into it, and a new process after an edit runs the
edited game, with the same numba cache folder and nothing cleared by hand.

The end-to-end tests copy the fixture game ("Race to 10": ``step_2`` moves 2)
into a temp package ``helpers`` (its kernels, generated there on first use,
import ``helpers.fixture_game``, as under ``tests/``) and play one forced step
in subprocesses sharing a temp ``NUMBA_CACHE_DIR``."""

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from dungeonrl.envs.core.kernel import codegen, freshness

TESTS = Path(__file__).resolve().parents[1]

#: one game from a forced roll of 2 (step_2 is legal), then step_2: where it lands
PLAY = textwrap.dedent("""
    import json, sys
    import numpy as np
    from helpers import fixture_game as G
    from dungeonrl.envs.core.kernel import chance, freshness
    core = G.RaceCore()
    K = core.kernels
    st = np.zeros(1, G.STATE_DTYPE)
    chance.force(st[0], [2, 2])
    core.reset(st, np.zeros(1, np.uint64))
    assert int(st[0]["last_roll"]) == 2 and st[0]["legal"][G.STEP_2] == 1
    flags = [np.zeros(1, np.bool_) for _ in range(3)]
    core.step(st, np.array([G.STEP_2]), np.zeros((1, 1), np.float32), *flags)
    print(json.dumps({"pos": int(st[0]["pos"]), "regenerated": freshness.regenerated,
                      "written": freshness.written, "name": K.__name__,
                      "file": K.step_batch.py_func.__code__.co_filename,
                      "digest": getattr(K, "SOURCE_DIGEST", None)}))
""")


def _race_copy(tmp_path, helper=False, generate=True) -> Path:
    """The fixture game in a package ``helpers`` of its own (returned;
    ``play.py`` sits in its parent folder), with its kernels generated
    there by the command (``generate``) or left to its first use; with
    ``helper``, step_2's distance comes from a numba function in a module of
    its own (an edit there changes no file the kernels import)."""
    pkg = tmp_path / "race" / "helpers"
    pkg.mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    src = (TESTS / "helpers" / "fixture_game.py").read_text()
    assert src.count("        st.pos += 2\n") == 1
    if helper:
        (pkg / "race_moves.py").write_text(
            "from numba import njit\n\nfrom dungeonrl.envs.core.kernel.jit import JIT\n\n\n"
            "@njit(**JIT)\ndef step2_size():\n    return 2\n"
        )
        src = src.replace(
            "from dungeonrl.envs.core.spec import GameSpec\n",
            "from dungeonrl.envs.core.spec import GameSpec\n"
            "from helpers.race_moves import step2_size\n",
        )
        src = src.replace("        st.pos += 2\n", "        st.pos += step2_size()\n")
    (pkg / "fixture_game.py").write_text(src)
    (pkg.parent / "play.py").write_text(PLAY)
    if generate:
        r = subprocess.run(
            [sys.executable, "-m", "dungeonrl.envs.core.kernel.codegen", KEY],
            cwd=pkg.parent,
            env=_env(),
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert r.returncode == 0 and (pkg / "fixture_kernels.py").exists(), r.stderr[-3000:]
    return pkg


#: the fixture's kernel facts, as its core names them
KEY = "helpers.fixture_game:KERNEL_FACTS"


def _env(**extra):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "NUMBA_DISABLE_JIT")}
    env.update(extra)
    return env


def _run(pkg: Path, cache: Path, script="play.py", mode="regenerate", extra_env=None):
    env = _env(NUMBA_CACHE_DIR=str(cache), DUNGEONRL_STALE_KERNELS=mode, **(extra_env or {}))
    return subprocess.run(
        [sys.executable, str(pkg.parent / script)],
        cwd=pkg.parent.parent,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def _play(pkg, cache, **kw):
    r = _run(pkg, cache, **kw)
    assert r.returncode == 0, r.stderr[-3000:]
    return json.loads(r.stdout.strip().splitlines()[-1])


def _edit(path: Path, old: str, new: str):
    text = path.read_text()
    assert text.count(old) == 1, old
    path.write_text(text.replace(old, new))


def test_a_rule_edit_reaches_the_next_process(tmp_path):
    """The first use writes the missing kernel module beside the game.
    Edit the rule (step_2 moves 1 instead of 2): the next process, with
    the same numba cache, plays the new rule (before the digest it ran the
    cached old kernels)."""
    pkg, cache = _race_copy(tmp_path, generate=False), tmp_path / "numba-cache"
    first = _play(pkg, cache)
    assert first["pos"] == 2 and first["regenerated"] == []
    assert first["written"] == [str(pkg / "fixture_kernels.py")] == [first["file"]]
    assert first["name"] == "helpers.fixture_kernels"
    _edit(pkg / "fixture_game.py", "        st.pos += 2\n", "        st.pos += 1\n")
    second = _play(pkg, cache)
    assert second["pos"] == 1
    assert second["regenerated"] == [str(pkg / "fixture_kernels.py")]
    assert second["digest"] != first["digest"] and second["written"] == []
    # the rewritten file is fresh: the next process regenerates nothing
    third = _play(pkg, cache)
    assert third["pos"] == 1 and third["regenerated"] == third["written"] == []


def test_an_edit_to_a_module_the_rules_import_reaches_the_next_process(tmp_path):
    """The edited function is in a module of its own: the rules' file is
    unchanged, so its cached ``apply_row`` (holding the old callee) must be
    dropped too, not only the kernel file recompiled."""
    pkg, cache = _race_copy(tmp_path, helper=True), tmp_path / "numba-cache"
    assert _play(pkg, cache)["pos"] == 2
    _edit(pkg / "race_moves.py", "return 2", "return 1")
    assert _play(pkg, cache)["pos"] == 1


def test_error_mode_refuses_a_stale_file_and_names_the_command(tmp_path):
    pkg = _race_copy(tmp_path)
    _edit(pkg / "fixture_game.py", "        st.pos += 2\n", "        st.pos += 1\n")
    before = (pkg / "fixture_kernels.py").read_text()
    r = _run(pkg, tmp_path / "numba-cache", mode="error")
    assert r.returncode != 0
    assert "StaleKernelsError" in r.stderr and "fixture_kernels.py is stale" in r.stderr
    assert "python -m dungeonrl.envs.core.kernel.codegen" in r.stderr
    assert (pkg / "fixture_kernels.py").read_text() == before


def test_error_mode_writes_no_missing_file_and_names_the_command(tmp_path):
    pkg = _race_copy(tmp_path, generate=False)
    r = _run(pkg, tmp_path / "numba-cache", mode="error")
    assert r.returncode != 0
    assert "StaleKernelsError" in r.stderr and "has not been generated" in r.stderr
    assert "python -m dungeonrl.envs.core.kernel.codegen" in r.stderr
    assert not (pkg / "fixture_kernels.py").exists()


def test_concurrent_first_uses_write_the_file_once(tmp_path):
    """Two processes start at once on a checkout without the kernel module
    (``pytest -n 2`` on a fresh clone): both play, and the file is the
    generator's output, whole."""
    pkg, cache = _race_copy(tmp_path, generate=False), tmp_path / "numba-cache"
    env = _env(NUMBA_CACHE_DIR=str(cache))
    procs = [
        subprocess.Popen(
            [sys.executable, str(pkg.parent / "play.py")],
            cwd=pkg.parent.parent,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    for p in procs:
        out, err = p.communicate(timeout=600)
        assert p.returncode == 0, err[-3000:]
        assert json.loads(out.strip().splitlines()[-1])["pos"] == 2
    text = (pkg / "fixture_kernels.py").read_text()
    assert text.startswith('"""GENERATED') and text.endswith("ensure_fresh(globals())\n")
    assert not [f for f in pkg.iterdir() if f.name.startswith(".kernels-")]  # no temp file left


def _read_only_play(pkg: Path) -> None:
    """``ro.py``: play.py where the kernel file beside the game cannot be written."""
    kernels = pkg / "fixture_kernels.py"
    (pkg.parent / "ro.py").write_text(
        textwrap.dedent(f"""
        import warnings
        from dungeonrl.envs.core.kernel import freshness
        real = freshness._write_atomic
        def refuse(path, text):
            if path == {str(kernels)!r}:
                raise PermissionError(13, "Permission denied", path)
            real(path, text)
        freshness._write_atomic = refuse
        warnings.simplefilter("always")
        exec(open({str(pkg.parent / "play.py")!r}).read())
    """)
    )


def test_a_read_only_stale_file_compiles_from_the_cache_folder(tmp_path):
    """The kernel file cannot be written: the regenerated source goes to
    DUNGEONRL_KERNEL_DIR (named by its digest), is compiled from there and a
    warning gives the command; the installed file is left alone."""
    pkg = _race_copy(tmp_path)
    _edit(pkg / "fixture_game.py", "        st.pos += 2\n", "        st.pos += 1\n")
    kernels = pkg / "fixture_kernels.py"
    before = kernels.read_text()
    _read_only_play(pkg)
    out = tmp_path / "kernel-dir"
    r = _run(
        pkg, tmp_path / "numba-cache", script="ro.py", extra_env={"DUNGEONRL_KERNEL_DIR": str(out)}
    )
    assert r.returncode == 0, r.stderr[-3000:]
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["pos"] == 1
    assert kernels.read_text() == before
    (written,) = out.iterdir()
    assert got["file"] == str(written) == got["regenerated"][0]
    assert f"SOURCE_DIGEST = {got['digest']!r}" in written.read_text()
    assert (
        "cannot be rewritten" in r.stderr
        and "python -m dungeonrl.envs.core.kernel.codegen" in r.stderr
    )


def test_a_read_only_install_writes_its_missing_kernels_to_the_cache_folder(tmp_path):
    """A read-only install without its kernel module: the first use writes
    it to DUNGEONRL_KERNEL_DIR under a name carrying its digest (no warning:
    there is nothing to fix) and imports it under the module's own name;
    the next process finds the same file there (a stable path, so numba's
    disk cache is reused)."""
    pkg = _race_copy(tmp_path, generate=False)
    _read_only_play(pkg)
    out, cache = tmp_path / "kernel-dir", tmp_path / "numba-cache"
    got = []
    for _ in range(2):
        r = _run(pkg, cache, script="ro.py", extra_env={"DUNGEONRL_KERNEL_DIR": str(out)})
        assert r.returncode == 0, r.stderr[-3000:]
        assert "RuntimeWarning" not in r.stderr
        got.append(json.loads(r.stdout.strip().splitlines()[-1]))
    assert not (pkg / "fixture_kernels.py").exists()
    (written,) = out.iterdir()
    assert [g["pos"] for g in got] == [2, 2] and got[0]["name"] == "helpers.fixture_kernels"
    assert got[0]["file"] == got[1]["file"] == str(written) == got[0]["written"][0]
    assert got[1]["written"] == [str(written)]


def test_the_module_set_is_found_from_the_sources(tmp_path, monkeypatch):
    """Module-level imports count, transitively (``from pkg import sub``
    names the submodule); imports inside functions or under
    ``if TYPE_CHECKING:`` and modules outside the project do not."""
    (tmp_path / "fr_rules.py").write_text(
        "import numpy as np\nfrom dungeonrl.envs.core.kernel import chance\n"
        "try:\n    import fr_helper\nexcept ImportError:\n    pass\n"
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    import fr_lazy\n"
        "def later():\n    import fr_lazy\n"
    )
    (tmp_path / "fr_helper.py").write_text(
        "from dungeonrl.envs.core.kernel.zones import pile_push\n"
    )
    (tmp_path / "fr_lazy.py").write_text("")
    monkeypatch.syspath_prepend(str(tmp_path))
    mods = freshness.source_modules(["fr_rules"])
    assert mods == (
        "dungeonrl.envs.core.kernel.chance",
        "dungeonrl.envs.core.kernel.header",
        "dungeonrl.envs.core.kernel.jit",
        "dungeonrl.envs.core.kernel.lazycode",
        "dungeonrl.envs.core.kernel.rng",
        "dungeonrl.envs.core.kernel.zones",
        "fr_helper",
        "fr_rules",
    )
    d = freshness.digest(codegen.TEMPLATE_HASH, mods)
    (tmp_path / "fr_helper.py").write_text(
        "from dungeonrl.envs.core.kernel.zones import pile_push\n#\n"
    )
    assert freshness.digest(codegen.TEMPLATE_HASH, mods) != d
    (tmp_path / "fr_helper.py").write_bytes(
        b"from dungeonrl.envs.core.kernel.zones import pile_push\r\n"
    )
    assert freshness.digest(codegen.TEMPLATE_HASH, mods) == d  # line endings do not count


@pytest.mark.parametrize("game", codegen.GAME_PACKAGES)
def test_each_game_digest_covers_its_rules_encoder_and_helpers(game):
    k = freshness.load_kernels(game)
    mods = set(k.SOURCE_MODULES)
    assert {
        f"dungeonrl.envs.{game}.rules",
        f"dungeonrl.envs.{game}.consts",
        f"dungeonrl.encoders.{game}",
        "dungeonrl.envs.core.kernel.chance",
        "dungeonrl.envs.core.kernel.rng",
        "dungeonrl.envs.core.kernel.jit",
        # imported by name from its package (`from ...kernel import tree`)
        "dungeonrl.envs.core.kernel.tree",
    } <= mods
    assert not mods & {
        "dungeonrl.envs.core.kernel.codegen",
        "dungeonrl.envs.core.kernel.freshness",
        "dungeonrl.envs.core.adapters.vector",
        "dungeonrl.envs.core.adapters.gym_env",
    }
    assert k.SOURCE_DIGEST == freshness.digest(codegen.TEMPLATE_HASH, k.SOURCE_MODULES)


def test_a_bad_mode_is_refused_by_name(monkeypatch):
    monkeypatch.setenv(freshness.MODE_VAR, "sometimes")
    with pytest.raises(ValueError, match="DUNGEONRL_STALE_KERNELS must be one of"):
        freshness.mode()


def _edited_template(tmp_path) -> Path:
    """A copy of the template module with one kernel's docstring edited."""
    text = codegen.template_file().read_text()
    old = '"""One agent decision.'
    assert text.count(old) == 1
    edited = tmp_path / "template.py"
    edited.write_text(text.replace(old, '"""One agent decision (edited).'))
    return edited


def test_an_edit_to_the_template_module_makes_every_kernel_file_stale(tmp_path, monkeypatch):
    """The template's source is in every digest: any edit to the module (a
    docstring here) makes `codegen --check` name every game and each
    imported kernel module's digest differ from its sources."""
    games = codegen.default_games()
    kernels = [freshness.load_kernels(g) for g in games]  # written if missing
    assert codegen.stale(games) == []
    edited = _edited_template(tmp_path)
    monkeypatch.setattr(codegen, "template_file", lambda: edited)
    monkeypatch.setattr(codegen, "TEMPLATE_HASH", codegen.template_hash())
    assert codegen.stale(games) == games
    assert "One agent decision (edited)." in codegen.source("unbroken")
    for k in kernels:
        assert freshness.digest(codegen.TEMPLATE_HASH, k.SOURCE_MODULES) != k.SOURCE_DIGEST


#: play.py with the template module replaced by an edited copy first
EDITED_TEMPLATE = textwrap.dedent("""
    import sys
    from pathlib import Path
    from dungeonrl.envs.core.kernel import codegen
    edited = Path(sys.argv[1])
    codegen.template_file = lambda: edited
    codegen.TEMPLATE_HASH = codegen.template_hash()
    sys.argv[1:] = []
    exec(open("play.py").read())
""")


def test_an_edit_to_the_template_module_reaches_the_next_process(tmp_path):
    """With the template edited, importing the kernels fails in error mode
    (naming the command) and regenerates them from the edited template
    otherwise."""
    pkg, cache = _race_copy(tmp_path), tmp_path / "numba-cache"
    edited = _edited_template(tmp_path)
    (pkg.parent / "edited.py").write_text(EDITED_TEMPLATE)
    env = _env(NUMBA_CACHE_DIR=str(cache))

    def run(mode):
        return subprocess.run(
            [sys.executable, "edited.py", str(edited)],
            cwd=pkg.parent,
            env={**env, "DUNGEONRL_STALE_KERNELS": mode},
            capture_output=True,
            text=True,
            timeout=600,
        )

    before = (pkg / "fixture_kernels.py").read_text()
    r = run("error")
    assert r.returncode != 0 and "fixture_kernels.py is stale" in r.stderr
    assert "python -m dungeonrl.envs.core.kernel.codegen" in r.stderr
    assert (pkg / "fixture_kernels.py").read_text() == before
    r = run("regenerate")
    assert r.returncode == 0, r.stderr[-3000:]
    got = json.loads(r.stdout.strip().splitlines()[-1])
    assert got["pos"] == 2 and got["regenerated"] == [str(pkg / "fixture_kernels.py")]
    assert "One agent decision (edited)." in (pkg / "fixture_kernels.py").read_text()
