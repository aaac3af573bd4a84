"""An operator's leftovers (docs/deploy.md): misspelt settings said at start-up, finished
games deleted after BIGSUR_KEEP_FINISHED_DAYS, a Dask outage logged one line per failed
AI turn, /healthz back promptly after a PostgreSQL outage, a BIGSUR_DB in a folder that
does not exist refused."""

from __future__ import annotations

import re
import time
from pathlib import Path

from server.launch import ServerProcess
from server.settings import OTHER_VARIABLES, Settings, unknown_variables

ROOT = Path(__file__).resolve().parents[2]


# ------------------------------------------------------------------ unknown variables

def test_serve_warns_of_each_bigsur_variable_that_is_not_a_setting(tmp_path):
    """BIGSUR_MAX_BUDGET=5000 (for BIGSUR_MAX_BUDGET_MS) or BIGSUR_WORKER=2 started the
    server on the defaults without a word. Each is one warning naming the closest
    setting; the variables read elsewhere (tests, the search's model) are not named."""
    log = tmp_path / "server.log"
    env = {"BIGSUR_WARM": "false", "BIGSUR_WORKERS": "1", "BIGSUR_MAX_BUDGET": "5000",
           "BIGSUR_WORKER": "2", "BIGSUR_NOTHING_LIKE_IT": "x", "BIGSUR_FULL": "0",
           "BIGSUR_REQUIRE_POSTGRES": "0", "bigsur_queue_size": "10"}
    with ServerProcess(tmp_path / "games.db", env=env, log=log, log_level="info"):
        pass
    warnings = [line for line in log.read_text().splitlines()
                if line.startswith("WARNING:") and "is not a setting" in line]
    assert sorted(w.split("bigsur.server: ", 1)[1] for w in warnings) == [
        "BIGSUR_MAX_BUDGET is not a setting (did you mean BIGSUR_MAX_BUDGET_MS?); ignored",
        "BIGSUR_NOTHING_LIKE_IT is not a setting; ignored",
        "BIGSUR_WORKER is not a setting (did you mean BIGSUR_WORKERS?); ignored"], warnings


def test_serve_options_given_as_variables_are_pointed_at_the_option():
    assert unknown_variables({"BIGSUR_PORT": "80"}) == [
        "BIGSUR_PORT is not a setting (bigsur serve takes --port); ignored"]


def test_every_bigsur_variable_the_code_reads_is_a_setting_or_known():
    """A variable read outside Settings (the tests', the benchmarks', the search's) must
    be listed in OTHER_VARIABLES, or bigsur serve would call it unknown."""
    settings = {f"BIGSUR_{name.upper()}" for name in Settings.model_fields}
    lists = {Path(__file__).resolve(), ROOT / "server" / "settings.py"}  # (misspellings)
    named = set()
    for folder in ("solver", "server", "bench", "tests"):
        for path in (ROOT / folder).rglob("*.py"):
            if path not in lists:
                named |= set(re.findall(r"BIGSUR_[A-Z0-9_]*[A-Z0-9]\b", path.read_text()))
    assert named - settings <= set(OTHER_VARIABLES), sorted(named - settings
                                                            - set(OTHER_VARIABLES))
    assert not unknown_variables({name: "1" for name in named})


def wait_for(predicate, what: str, timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, what
        time.sleep(0.05)
