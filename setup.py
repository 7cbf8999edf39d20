"""The package list, found rather than listed: every package under each
folder of ``[tool.setuptools.package-dir]`` (``pyproject.toml`` holds the
rest of the metadata), so a game package dropped into ``envs/`` ships too."""

from __future__ import annotations

import os

from setuptools import find_packages, setup

try:  # Python 3.11+
    import tomllib
except ModuleNotFoundError:  # pragma: no cover
    import tomli as tomllib

HERE = os.path.dirname(os.path.abspath(__file__))


def packages() -> list[str]:
    """Every import package: each mapped folder and the packages inside it."""
    with open(os.path.join(HERE, "pyproject.toml"), "rb") as f:
        dirs = tomllib.load(f)["tool"]["setuptools"]["package-dir"]
    out = []
    for name, folder in dirs.items():
        out.append(name)
        for sub in find_packages(os.path.join(HERE, folder)):
            full = f"{name}.{sub}"
            # a folder that is a mapped package of its own is listed under its own name
            if not any(
                full == other or full.startswith(other + ".")
                for other in dirs
                if other != name and other.startswith(name + ".")
            ):
                out.append(full)
    return sorted(set(out))


if __name__ == "__main__":
    setup(packages=packages())
