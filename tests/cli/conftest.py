"""Shared fixtures of the CLI tests."""

import io

import pytest


@pytest.fixture
def in_tmp(tmp_path, monkeypatch):
    """Run in an empty folder (default run folders land there); stdin is
    closed so that a prompt ends a play command at once."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", io.StringIO(""))
    return tmp_path
