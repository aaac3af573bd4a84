"""`bigsur --help` and the rules commands import no module of another command (the
extensions load only when their command runs), and selfplay writes the records of the
games it played without replaying them."""

from __future__ import annotations

import json
import subprocess
import sys

from solver.cli import EXTENSIONS, main, play_random_game
from solver.rules.scoring import final_scores

HEAVY = ("ortools", "numpy", "fastapi", "solver.search", "solver.payment_ilp", "server")


def _modules_after(args: list[str]) -> set[str]:
    code = (f"import sys\nfrom solver.cli import main\ntry:\n    main({args!r})\n"
            "except SystemExit:\n    pass\nprint(' '.join(sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    return set(out.splitlines()[-1].split())


def test_help_lists_every_command_without_importing_them(capsys):
    loaded = _modules_after(["--help"])
    assert not [m for m in loaded if m.split(".")[0] in HEAVY or m.startswith(HEAVY)]
    try:
        main(["--help"])
    except SystemExit:
        pass
    shown = capsys.readouterr().out
    assert all(name in shown for name in EXTENSIONS)


def test_an_extension_command_loads_its_own_module_only(capsys):
    loaded = _modules_after(["pay", "--help"])
    assert "solver.payment_ilp" in loaded
    assert "solver.search.ismcts" not in loaded and "server.app" not in loaded


def test_selfplay_records_replay_to_their_stored_result(tmp_path, capsys):
    assert main(["selfplay", "--games", "3", "--seed", "5", "--out", str(tmp_path)]) == 0
    for seed in (5, 6, 7):
        raw = json.loads((tmp_path / f"game-{seed}.json").read_text())
        record = play_random_game(2, seed)
        assert raw["actions"] == record.actions
        expected = final_scores(record.replay()).to_json()
        assert raw["meta"]["result"] == expected


def test_a_closed_output_pipe_is_no_traceback(monkeypatch, capsys):
    """`bigsur cards show | head -1`: the reader leaves; exit 1 without a traceback."""
    import io

    class ClosedPipe(io.StringIO):
        def write(self, _text):
            raise BrokenPipeError(32, "Broken pipe")

    monkeypatch.setattr(sys, "stdout", ClosedPipe())
    assert main(["cards", "show"]) == 1
