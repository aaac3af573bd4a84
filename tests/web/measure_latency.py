"""Page latencies, measured (not a test): ``python tests/web/measure_latency.py``.

Starts a server on a free loopback port (one search worker, temporary database), then in
Debian's Chromium: page load to ready (setup screen and resuming a game), an AI turn of
``mcts:1s`` from "End turn" to "Your turn", and hints of 1 s and 100 iterations. Prints
the median and maximum of each; the README quotes them.
"""

from __future__ import annotations

import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from tests.web.test_web_page import CHROMIUM, CHROMIUM_ARGS, _free_port  # noqa: E402


def main() -> None:
    from playwright.sync_api import sync_playwright

    port = _free_port()
    base = f"http://127.0.0.1:{port}"
    with tempfile.TemporaryDirectory() as tmp:
        env = {**os.environ, "BIGSUR_DB": str(Path(tmp) / "g.db"), "BIGSUR_WORKERS": "1",
               "PYTHONPATH": str(ROOT)}
        proc = subprocess.Popen([sys.executable, "-m", "uvicorn", "server.app:create_app",
                                 "--factory", "--port", str(port), "--log-level", "warning"],
                                cwd=ROOT, env=env)
        try:
            for _ in range(300):
                try:
                    urllib.request.urlopen(base + "/healthz", timeout=1)
                    break
                except OSError:
                    time.sleep(0.2)
            res = measure(sync_playwright, base)
        finally:
            proc.terminate()
            proc.wait(10)
    for k, v in res.items():
        print(f"{k}: median {statistics.median(v) * 1000:.0f} ms, max {max(v) * 1000:.0f} ms "
              f"(n={len(v)})")


def measure(sync_playwright, base: str) -> dict[str, list[float]]:
    res: dict[str, list[float]] = {}
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        pg = b.new_context(viewport={"width": 1366, "height": 768}).new_page()

        def load() -> float:
            t = time.monotonic()
            pg.goto(base + "/?speed=0")
            pg.wait_for_selector("body[data-ready='1']")
            return time.monotonic() - t

        res["page load, setup screen"] = [load() for _ in range(5)]
        pg.select_option("#seat-1", "mcts:1s")
        pg.click("#setup-start")
        pg.wait_for_selector("#game:not([hidden])")
        ai, h1, h100 = [], [], []
        your_turn = "document.querySelector('#status').innerText.includes('Your turn')"
        for _turn in range(4):
            pg.wait_for_selector("body[data-ready='1']:not(.busy)")
            pg.wait_for_function(your_turn, timeout=60_000)
            for _ in range(2):
                pg.click("#deck .cardbtn")
                pg.wait_for_selector("body:not(.busy)")
            for budget, out in (("ms:1000", h1), ("iterations:100", h100)):
                pg.select_option("#hint-budget", budget)
                t = time.monotonic()
                pg.click("#hint-btn")
                pg.wait_for_selector("#hint .hintlist li", timeout=60_000)
                out.append(time.monotonic() - t)
            t = time.monotonic()
            pg.click("#actionbar .endbtn")
            pg.wait_for_selector("body:not(.busy)", timeout=60_000)
            pg.wait_for_function(your_turn, timeout=60_000)
            ai.append(time.monotonic() - t)
        res["AI turn (mcts:1s), End to Your turn"] = ai
        res["hint, 1 s budget"] = h1
        res["hint, 100 iterations"] = h100
        res["page load, resuming a game"] = [load() for _ in range(5)]
        b.close()
    return res


if __name__ == "__main__":
    main()
