"""A bot forked from the test worker's forkserver starts as ``python -m shithead_bot.cli`` would."""

from __future__ import annotations

import os
from pathlib import Path

from tests.e2e.harness import ROOT
from tests.e2e.prefork import fork_bot


async def test_a_forked_bot_runs_the_sitecustomize_on_its_pythonpath(tmp_path: Path) -> None:
    """What a new interpreter does at start-up with PYTHONPATH (the ``hard`` stand-in of
    tests/support/standin is a ``sitecustomize``): the forkserver started before the test set it."""
    (tmp_path / "sitecustomize.py").write_text('import sys\nprint("sitecustomize:", __file__, sys.path[1])\n')
    bot = await fork_bot(["--help"], {**os.environ, "PYTHONPATH": str(tmp_path)}, ROOT)
    output = (await bot.stdout.read()).decode()
    assert await bot.wait() == 0
    assert "usage:" in output
    assert f"sitecustomize: {tmp_path / 'sitecustomize.py'} {tmp_path}" in output
