"""The command line's process keeps the memory it frees (glibc), and runs unchanged where it cannot."""

from __future__ import annotations

import ctypes
import platform
import subprocess
import sys

import pytest

from evaluation.cli import memory


@pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="mallopt is glibc's")
def test_glibc_takes_both_settings():
    script = "from evaluation.cli.memory import keep_freed_memory; print(keep_freed_memory())"
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "True"


def test_an_allocator_without_mallopt_is_left_alone(monkeypatch):
    class NoMallopt:
        pass

    monkeypatch.setattr(ctypes, "CDLL", lambda name: NoMallopt())
    assert memory.keep_freed_memory() is False


def test_the_command_line_sets_them_before_numpy_is_imported():
    source = memory.__file__.rsplit("/cli/", 1)[0] + "/__main__.py"
    with open(source) as entry:
        text = entry.read()
    assert text.index("keep_freed_memory()") < text.index("from evaluation.cli.trec_eval import")
    assert "import numpy" not in memory.__loader__.get_source("evaluation.cli.memory")
