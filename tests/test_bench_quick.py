"""Every benchmark runs end to end in its --quick form and writes well-formed JSON.

The figures are not asserted (speed is measured, never tested); these tests prove the
benchmarks themselves work, so the long runs can be trusted to finish.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
BENCHES = ["engine", "payment", "strength", "search_diagnostics", "server", "vs_openspiel",
           "server --scale-out"]


@pytest.mark.slow
@pytest.mark.parametrize("name", BENCHES)
def test_quick_benchmark_runs_and_writes_json(name, tmp_path):
    module, *extra = name.split()
    out = tmp_path / f"{module}.json"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.run([sys.executable, "-m", f"bench.{module}", "--quick", *extra,
                           "--out", str(out)],
                          cwd=tmp_path, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    data = json.loads(out.read_text())
    assert data, f"bench.{name} wrote an empty result"
    assert proc.stdout.strip(), f"bench.{name} printed no table"
