"""Load test of the hint service: ``python -m bench.server [--quick]``.

Starts ``bigsur serve`` as a child process on a loopback port (its own SQLite file, the
real process pool) and drives it from this process with client threads:

- hint latency p50 / p95 / p99 at budgets of 100 ms and 1 s with 1, 2 and 4 concurrent
  clients, and the throughput (answers per second);
- 4x capacity: 4 x workers clients hammering 100 ms hints: share of 503s, latency of the
  admitted requests, any other error, and the server's memory (RSS of its process
  group: the server and its search workers);
- the queue (issue 12): 100 ms hints from 1, 2, 4 and 8 steady clients;
- hints while 4 analysis jobs (10 s per decision, a whole game each) run: hint latency
  of one client, then the jobs are cancelled (DELETE);
- slow connections: 3,000 connections (300 with --quick) from 30 loopback addresses
  trickling a byte of their headers or body every 10 s (2 s with --quick), reconnecting
  when closed, while one client polls /healthz: its p50/p95/max, errors, the server
  log's growth;
- ``--scale-out`` (alone; issue 15): hint throughput with 1, 2 and 3 server processes on
  one throwaway PostgreSQL, and the per-request cost of PostgreSQL against SQLite
  (reading a game, storing an action), added to the JSON under ``scale_out``;
- ``--outage SECONDS`` (alone): a PostgreSQL outage under a live server, the latency of
  a request that reads the database and of one that does not, and the recovery, added
  under ``outage``.

Goals (issue 5): p95 <= budget + 100 ms at concurrency up to the core count; at 4x
capacity only 503s as errors and admitted p95 <= budget + 150 ms (with the queue of
issue 12 an admitted hint may first wait up to BIGSUR_QUEUE_WAIT_SECONDS: the goal is
now queue wait + budget + 150 ms). Issue 12: no 503 at 4
clients on 2 workers with 100 ms hints and p95 <= 300 ms; hint p95 <= budget + 200 ms
while 4 analysis jobs run; /healthz p95 <= 100 ms throughout the slow-connection attack.

Prints a table and writes ``bench/results/server.json``.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import socket
import statistics
import tempfile
import threading
import time
from collections import Counter
from pathlib import Path

import httpx

from bench.common import code_version
from server.launch import ServerProcess
from solver.cli import play_random_game
from solver.rules.position import state_to_json
from solver.rules.state import Phase

RESULTS = Path(__file__).parent / "results" / "server.json"


def positions(n: int = 12, seed: int = 0) -> list[dict]:
    """Full states from random 2- to 4-player games, at every stage, none finished."""
    rng = random.Random(seed)
    out = []
    for k in range(n):
        record = play_random_game(2 + k % 3, seed=seed + k)
        states = [s for s, _a in record.states() if s.phase != Phase.OVER]
        out.append(state_to_json(rng.choice(states)))
    return out


def percentile(values: list[float], q: float) -> float | None:
    if not values:
        return None
    values = sorted(values)
    k = (len(values) - 1) * q
    lo, hi = int(k), min(int(k) + 1, len(values) - 1)
    return values[lo] + (values[hi] - values[lo]) * (k - lo)


def group_rss_mb(pgid: int) -> float:
    """Resident memory of every process in the group (Linux /proc)."""
    total = 0
    page = os.sysconf("SC_PAGE_SIZE")
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
            fields = stat[stat.rindex(")") + 2:].split()
            if int(fields[2]) != pgid:
                continue
            total += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * page
        except (OSError, ValueError, IndexError):
            continue
    return total / 2**20


def run_load(url: str | list[str], clients: int, budget_ms: int, pool: list[dict],
             requests: int | None, seconds: float | None, rss=None) -> dict:
    """``clients`` threads each sending hints back to back (``requests`` each, or for
    ``seconds``); returns latencies of the answered requests and the status counts.
    Several ``url``s (server processes): client ``k`` sends to ``url[k % len(url)]``."""
    urls = [url] if isinstance(url, str) else url
    lock = threading.Lock()
    latencies: list[float] = []
    statuses: dict[str, int] = {}
    stop_at = time.monotonic() + seconds if seconds else None
    peak = [0.0]

    def client(k: int) -> None:
        rng = random.Random(k)
        with httpx.Client(base_url=urls[k % len(urls)], timeout=60) as http:
            sent = 0
            while (requests is None or sent < requests) and \
                    (stop_at is None or time.monotonic() < stop_at):
                body = {"position": rng.choice(pool), "budget": {"ms": budget_ms},
                        "seed": rng.randrange(10**6)}
                t0 = time.perf_counter()
                try:
                    status = str(http.post("/v1/hint", json=body).status_code)
                except httpx.HTTPError as err:
                    status = type(err).__name__
                dt = time.perf_counter() - t0
                sent += 1
                with lock:
                    statuses[status] = statuses.get(status, 0) + 1
                    if status == "200":
                        latencies.append(dt * 1000)
                if status == "503":
                    time.sleep(0.01)  # a tight retry loop, far below Retry-After

    def sample_memory() -> None:
        while not done.is_set():
            peak[0] = max(peak[0], rss())
            done.wait(0.2)

    done = threading.Event()
    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    sampler = threading.Thread(target=sample_memory) if rss else None
    started = time.perf_counter()
    for t in threads:
        t.start()
    if sampler:
        sampler.start()
    for t in threads:
        t.join()
    wall = time.perf_counter() - started
    done.set()
    if sampler:
        sampler.join()
    total = sum(statuses.values())
    out = {
        "clients": clients, "budget_ms": budget_ms, "requests": total,
        "statuses": statuses, "wall_s": round(wall, 2),
        "throughput_per_s": round(len(latencies) / wall, 2) if wall else None,
        "p50_ms": _r(percentile(latencies, 0.5)), "p95_ms": _r(percentile(latencies, 0.95)),
        "p99_ms": _r(percentile(latencies, 0.99)),
        "mean_ms": _r(statistics.fmean(latencies) if latencies else None),
        "share_503": round(statuses.get("503", 0) / total, 3) if total else None,
        "other_errors": sum(n for s, n in statuses.items() if s not in ("200", "503")),
    }
    if rss:
        out["peak_rss_mb"] = round(peak[0], 1)
    return out


def run_with_analysis(url: str, pool: list[dict], seconds: float, jobs: int = 4,
                      job_ms: int = 10_000) -> dict:
    """Hint latency of one client (100 ms hints) while ``jobs`` analysis jobs run."""
    record = play_random_game(2, seed=99).to_json()
    with httpx.Client(base_url=url, timeout=60) as http:
        ids = []
        for _ in range(jobs):
            r = http.post("/v1/analyze", json={"record": record, "budget": {"ms": job_ms}})
            ids.append(r.json().get("job_id") if r.status_code == 202 else None)
        time.sleep(1.0)  # the reviews have started
        row = run_load(url, 1, 100, pool, None, seconds)
        cancelled = 0
        for job_id in ids:
            if job_id and http.delete(f"/v1/analyze/{job_id}").json().get("status") == \
                    "cancelled":
                cancelled += 1
    row.update({"scenario": "analysis x4", "jobs_accepted": sum(1 for i in ids if i),
                "jobs_cancelled": cancelled, "job_budget_ms": job_ms})
    return row


def run_slow_connections(url: str, port: int, connections: int, trickle_s: float,
                         seconds: float, log_path: Path) -> dict:
    """Slow-connection attack from 30 loopback addresses while /healthz is polled."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, connections + 512)),
                                                hard))
    log_before = log_path.stat().st_size if log_path.exists() else 0
    stop = threading.Event()
    stats = {"connects": 0, "closed_by_server": 0, "connect_errors": 0}

    def open_one(k: int):
        s = socket.socket()
        s.setblocking(True)
        s.settimeout(2)
        try:
            s.bind((f"127.0.0.{2 + k % 30}", 0))
            s.connect(("127.0.0.1", port))
            if k % 2:  # a body shorter than its Content-Length, then a byte at a time
                s.sendall(b"POST /v1/score HTTP/1.1\r\nHost: x\r\nContent-Type: "
                          b"application/json\r\nContent-Length: 100000\r\n\r\n{")
            else:  # headers a byte at a time
                s.sendall(b"GET /healthz HTTP/1.1\r\n")
            s.setblocking(False)
            stats["connects"] += 1
            return s
        except OSError:
            stats["connect_errors"] += 1
            s.close()
            return None

    def attack() -> None:
        socks = [open_one(k) for k in range(connections)]
        while not stop.is_set():
            for k, s in enumerate(socks):
                if stop.is_set():
                    break
                if s is None:
                    socks[k] = open_one(k)
                    continue
                try:
                    if s.recv(4096) == b"":
                        raise ConnectionResetError
                except BlockingIOError:
                    pass
                except OSError:
                    stats["closed_by_server"] += 1
                    s.close()
                    socks[k] = open_one(k)
                    continue
                try:
                    s.send(b"x" if k % 2 else b"X")
                except OSError:
                    pass
            stop.wait(trickle_s)
        for s in socks:
            if s is not None:
                s.close()

    attacker = threading.Thread(target=attack)
    attacker.start()
    latencies, errors, kinds = [], 0, {}
    t_end = time.monotonic() + seconds
    while time.monotonic() < t_end:
        t0 = time.perf_counter()
        try:
            with httpx.Client(timeout=5) as http:  # a new connection each time
                status = http.get(url + "/healthz").status_code
                ok = status == 200
                if not ok:
                    kinds[str(status)] = kinds.get(str(status), 0) + 1
        except httpx.HTTPError as err:
            ok = False
            kinds[type(err).__name__] = kinds.get(type(err).__name__, 0) + 1
        dt = (time.perf_counter() - t0) * 1000
        if ok:
            latencies.append(dt)
        else:
            errors += 1
        time.sleep(0.1)
    stop.set()
    attacker.join()
    log_after = log_path.stat().st_size if log_path.exists() else 0
    return {"scenario": "slow conns", "connections": connections, "trickle_s": trickle_s,
            "seconds": seconds, "healthz_n": len(latencies), "healthz_errors": errors,
            "healthz_error_kinds": kinds,
            "healthz_p50_ms": _r(percentile(latencies, 0.5)),
            "healthz_p95_ms": _r(percentile(latencies, 0.95)),
            "healthz_max_ms": _r(max(latencies) if latencies else None),
            "log_growth_kb": round((log_after - log_before) / 1024, 1), **stats}


def run_outage(down_s: float) -> dict:
    """A PostgreSQL outage under a live server: one client polls ``/healthz`` (which
    reads the database) and one ``/v1/cards`` (which does not) every 0.2 s, timeout
    30 s; the database is stopped (``ThrowawayPostgres.pause``) for ``down_s`` seconds,
    then started again. Reported: both endpoints' latency during the outage (the cards
    one shows what a database wait costs the process's other requests) and how long
    after the restart ``/healthz`` answered 200 again."""
    from server.launch import ThrowawayPostgres

    tmp = Path(tempfile.mkdtemp(prefix="bigsur-bench-outage-"))
    calls: dict[str, list[tuple[float, float, int]]] = {"healthz": [], "cards": []}
    stop = threading.Event()

    def poll(base: str, name: str, path: str) -> None:
        with httpx.Client(base_url=base, timeout=30) as http:
            while not stop.is_set():
                t = time.monotonic()
                try:
                    status = http.get(path).status_code
                except httpx.HTTPError:
                    status = 0
                calls[name].append((t, time.monotonic() - t, status))
                time.sleep(0.2)

    with ThrowawayPostgres() as pg, \
            ServerProcess(pg.create_database("outage"), {"BIGSUR_WORKERS": "1"},
                          log=tmp / "server.log") as srv:
        threads = [threading.Thread(target=poll, args=(srv.url, name, path), daemon=True)
                   for name, path in (("healthz", "/healthz"), ("cards", "/v1/cards"))]
        for th in threads:
            th.start()
        time.sleep(3.0)
        pg.pause()
        down_at = time.monotonic()
        time.sleep(down_s)
        pg.resume()
        up_at = time.monotonic()
        deadline = up_at + 300
        while time.monotonic() < deadline and not any(
                t >= up_at and status == 200 for t, _, status in calls["healthz"][-5:]):
            time.sleep(0.2)
        time.sleep(2.0)
        stop.set()
        for th in threads:
            th.join(35)
    out: dict = {"down_seconds": down_s}
    for name, rows in calls.items():
        inside = [(1000 * d, str(status)) for t, d, status in rows if down_at <= t < up_at]
        during = [ms for ms, _ in inside]
        statuses = dict(Counter(status for _, status in inside))
        out[name] = {"requests_during": len(during), "statuses_during": statuses,
                     "p50_ms": _r(percentile(during, 0.5)),
                     "p95_ms": _r(percentile(during, 0.95)),
                     "max_ms": _r(max(during, default=None)),
                     "seconds_waited_during": round(sum(during) / 1000, 1)}
    back = [t + d for t, d, status in calls["healthz"] if t >= up_at and status == 200]
    out["healthz_back_after_s"] = round(back[0] - up_at, 1) if back else None
    shutil.rmtree(tmp, ignore_errors=True)
    return out


def run_scale_out(quick: bool, pool: list[dict]) -> dict:
    """Issue 15: hint throughput (100 ms hints, two clients per process) with 1, 2 and 3
    (1 and 2 with ``quick``) server processes of one search worker each on one throwaway
    PostgreSQL, and the per-request cost of the database: reading a game (GET) and
    storing an action (POST) on SQLite and on PostgreSQL, one client, one process."""
    from server.launch import ThrowawayPostgres

    seconds = 2.0 if quick else 20.0
    requests = 10 if quick else 200
    env = {"BIGSUR_WORKERS": "1", "BIGSUR_CHOSEN_SEEDS": "any",
           "BIGSUR_MAX_GAMES_PER_CLIENT": "1000"}
    out: dict = {"seconds": seconds, "throughput": [], "overhead": []}
    tmp = Path(tempfile.mkdtemp(prefix="bigsur-bench-scale-"))
    with ThrowawayPostgres() as pg:
        for n in (1, 2) if quick else (1, 2, 3):  # (quick: proves the runs, in CI)
            url = pg.create_database("bench")
            servers = [ServerProcess(url, env, log=tmp / f"s{n}-{k}.log").start()
                       for k in range(n)]
            try:
                row = run_load([s.url for s in servers], 2 * n, 100, pool, None, seconds)
            finally:
                for s in servers:
                    s.stop()
            row.update(scenario="scale-out", processes=n)
            out["throughput"].append(row)
            print(f"{n} process(es) on one PostgreSQL, {2 * n} clients, 100 ms hints: "
                  f"{row['throughput_per_s']}/s, p95 {row['p95_ms']} ms, statuses "
                  f"{row['statuses']}", flush=True)
        for backend, db in (("sqlite", str(tmp / "overhead.db")),
                            ("postgres", pg.create_database("overhead"))):
            with ServerProcess(db, env, log=tmp / f"{backend}.log") as srv:
                row = time_game_requests(srv.url, requests)
            row["backend"] = backend
            out["overhead"].append(row)
            print(f"{backend}: GET a game p50 {row['get_p50_ms']} ms, POST an action p50 "
                  f"{row['post_p50_ms']} ms ({requests} each)", flush=True)
    shutil.rmtree(tmp, ignore_errors=True)  # (kept, with the servers' logs, on a failure)
    sqlite_row, pg_row = out["overhead"]
    out["postgres_minus_sqlite_ms"] = {
        what: _r(pg_row[f"{what}_p50_ms"] - sqlite_row[f"{what}_p50_ms"])
        for what in ("get", "post")}
    return out


def time_game_requests(url: str, n: int) -> dict:
    """p50/mean of ``n`` GETs of a game and ``n`` POSTed actions (a hot-seat game of two
    humans; a new one when it ends), one client."""
    get_ms, post_ms = [], []
    with httpx.Client(base_url=url, timeout=60) as http:
        game = None
        while len(post_ms) < n:
            if game is None:
                body = http.post("/v1/games", json={"players": 2, "seats": ["human", "human"],
                                                    "seed": len(post_ms)}).json()
                game = (body["game_id"], {t["seat"]: t["token"] for t in body["tokens"]})
            game_id, tokens = game
            t0 = time.perf_counter()
            data = http.get(f"/v1/games/{game_id}", headers={
                "Authorization": f"Bearer {tokens[0]}"}).json()
            get_ms.append((time.perf_counter() - t0) * 1000)
            if data["over"]:
                game = None
                continue
            token = tokens[data["to_act"]]
            legal = http.get(f"/v1/games/{game_id}", headers={
                "Authorization": f"Bearer {token}"}).json()["legal_actions"]
            t0 = time.perf_counter()
            r = http.post(f"/v1/games/{game_id}/actions", json={"action": legal[0]},
                          headers={"Authorization": f"Bearer {token}"})
            post_ms.append((time.perf_counter() - t0) * 1000)
            r.raise_for_status()
    return {"requests": n, "get_p50_ms": _r(percentile(get_ms, 0.5)),
            "get_mean_ms": _r(statistics.fmean(get_ms)),
            "post_p50_ms": _r(percentile(post_ms, 0.5)),
            "post_mean_ms": _r(statistics.fmean(post_ms))}


def _r(x: float | None) -> float | None:
    return None if x is None else round(x, 1)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.server", description=__doc__.split(
        "\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="a short run (CI, smoke)")
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--out", default=str(RESULTS))
    parser.add_argument("--scale-out", action="store_true",
                        help="only the scale-out rows (needs PostgreSQL's binaries), "
                             "added to the JSON at --out under 'scale_out'")
    parser.add_argument("--outage", type=float, metavar="SECONDS",
                        help="only a PostgreSQL outage of SECONDS under a live server "
                             "(needs PostgreSQL's binaries), added to the JSON at --out "
                             "under 'outage'")
    args = parser.parse_args(argv)
    quick = args.quick
    if args.outage is not None:
        out = Path(args.out)
        result = json.loads(out.read_text()) if out.exists() else {}
        result["outage"] = run_outage(args.outage)
        for name in ("healthz", "cards"):
            row = result["outage"][name]
            print(f"during the outage, /{name if name == 'healthz' else 'v1/cards'}: "
                  f"{row['requests_during']} requests, p50 {row['p50_ms']} p95 "
                  f"{row['p95_ms']} max {row['max_ms']} ms, statuses "
                  f"{row['statuses_during']}")
        print(f"/healthz 200 again {result['outage']['healthz_back_after_s']} s after the "
              f"database came back")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=1) + "\n")
        print(f"wrote {out}")
        return 0
    if args.scale_out:
        out = Path(args.out)
        result = json.loads(out.read_text()) if out.exists() else {}
        result["scale_out"] = run_scale_out(quick, positions(6 if quick else 24))
        result["scale_out"]["note"] = (f"{os.cpu_count()} cores shared by every process "
                                       "(servers, PostgreSQL, clients): the absolute "
                                       "throughput is bounded by them")
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(result, indent=1) + "\n")
        print(f"wrote {out}")
        return 0
    per_client = {100: 4, 1000: 1} if quick else {100: 40, 1000: 10}
    overload_s = 3.0 if quick else 30.0
    pool = positions(6 if quick else 24)
    tmp = tempfile.mkdtemp(prefix="bigsur-bench-")
    # the attack of issue 12 (4 jobs of a whole game at 10 s per decision, one client):
    # the defaults would refuse it at submit (BIGSUR_MAX_JOB_SECONDS, _PER_CLIENT)
    env = {"BIGSUR_WORKERS": str(args.workers), "BIGSUR_MAX_BUDGET_MS": "10000",
           "BIGSUR_MAX_JOBS_PER_CLIENT": "4", "BIGSUR_MAX_JOB_SECONDS": "100000"}
    rows = []
    log_path = Path(tmp) / "server.log"
    with ServerProcess(Path(tmp) / "bench.db", env, log=log_path) as srv:
        rss = lambda: group_rss_mb(srv.pid())  # noqa: E731
        idle_rss = rss()
        for budget in (100, 1000):
            for clients in ((1, 2, 4, 8) if budget == 100 else (1, 2, 4)):
                row = run_load(srv.url, clients, budget, pool, per_client[budget], None)
                row["scenario"] = "latency"
                rows.append(row)
                print(f"budget {budget:>4} ms, {clients} client(s): "
                      f"p50 {row['p50_ms']} p95 {row['p95_ms']} p99 {row['p99_ms']} ms, "
                      f"{row['throughput_per_s']}/s, statuses {row['statuses']}", flush=True)
        over = run_load(srv.url, 4 * args.workers, 100, pool, None, overload_s, rss)
        over["scenario"] = "4x capacity"
        rows.append(over)
        busy = run_with_analysis(srv.url, pool, 3.0 if quick else 20.0)
        rows.append(busy)
        print(f"hints while 4 analysis jobs run: p50 {busy['p50_ms']} p95 {busy['p95_ms']} "
              f"ms, statuses {busy['statuses']}, jobs accepted {busy['jobs_accepted']}, "
              f"cancelled {busy['jobs_cancelled']}", flush=True)
        slow = run_slow_connections(srv.url, srv.port, 300 if quick else 3000,
                                    2.0 if quick else 10.0, 5.0 if quick else 60.0, log_path)
        print(f"slow connections: /healthz p50 {slow['healthz_p50_ms']} p95 "
              f"{slow['healthz_p95_ms']} max {slow['healthz_max_ms']} ms, errors "
              f"{slow['healthz_errors']}, log +{slow['log_growth_kb']} kB, {slow}", flush=True)
        time.sleep(0.5)
        alive = httpx.get(srv.url + "/healthz", timeout=10).status_code == 200
    goals = []
    for row in rows:
        if row["scenario"] == "latency" and row["clients"] <= args.workers:
            ok = row["p95_ms"] is not None and row["p95_ms"] <= row["budget_ms"] + 100
            goals.append({"what": f"p95 <= budget + 100 ms ({row['budget_ms']} ms, "
                                  f"{row['clients']} clients)", "ok": ok})
    goals.append({"what": "4x capacity: only 503s as errors", "ok": over["other_errors"] == 0})
    # issue 5 measured this without a queue (503 at once); with the queue of issue 12 an
    # admitted hint may wait up to BIGSUR_QUEUE_WAIT_SECONDS (2 s) before its search
    goals.append({"what": "4x capacity: admitted p95 <= queue wait (2 s) + budget + 150 ms",
                  "ok": over["p95_ms"] is not None and over["p95_ms"] <= 2250})
    four = next(r for r in rows if r["scenario"] == "latency" and r["budget_ms"] == 100
                and r["clients"] == 4)
    goals.append({"what": f"queue: no 503 at 4 clients on {args.workers} workers, 100 ms hints",
                  "ok": four["statuses"].get("503", 0) == 0})
    goals.append({"what": "queue: p95 <= 300 ms at 4 clients, 100 ms hints",
                  "ok": four["p95_ms"] is not None and four["p95_ms"] <= 300})
    goals.append({"what": "4 analysis jobs: hint p95 <= budget + 200 ms",
                  "ok": busy["p95_ms"] is not None and busy["p95_ms"] <= 300
                  and busy["statuses"].get("503", 0) == 0})
    goals.append({"what": "slow connections: /healthz p95 <= 100 ms, no error",
                  "ok": slow["healthz_p95_ms"] is not None and slow["healthz_p95_ms"] <= 100
                  and slow["healthz_errors"] == 0})
    goals.append({"what": "slow connections: the server still answers afterwards", "ok": alive})
    print()
    print(f"{'scenario':12} {'budget':>6} {'cl':>3} {'n':>5} {'p50':>7} {'p95':>7} {'p99':>7} "
          f"{'ok/s':>6} {'503%':>5} {'err':>4}")
    for row in [r for r in rows if "budget_ms" in r]:
        share = row["share_503"] or 0
        print(f"{row['scenario']:12} {row['budget_ms']:>6} {row['clients']:>3} "
              f"{row['requests']:>5} {row['p50_ms'] or '-':>7} {row['p95_ms'] or '-':>7} "
              f"{row['p99_ms'] or '-':>7} {row['throughput_per_s'] or 0:>6} "
              f"{100 * share:>5.1f} {row['other_errors']:>4}")
    print(f"\nserver memory: idle {idle_rss:.0f} MB, peak under 4x load "
          f"{over.get('peak_rss_mb')} MB ({args.workers} worker(s))")
    for g in goals:
        print(f"  [{'ok' if g['ok'] else 'MISSED'}] {g['what']}")
    print(f"slow connections ({slow['connections']}, a byte every {slow['trickle_s']:g} s, "
          f"{slow['seconds']:g} s): /healthz p50 {slow['healthz_p50_ms']} p95 "
          f"{slow['healthz_p95_ms']} max {slow['healthz_max_ms']} ms, "
          f"{slow['healthz_errors']} errors; server closed {slow['closed_by_server']} "
          f"attack connections; log grew {slow['log_growth_kb']} kB")
    out = Path(args.out)
    kept = json.loads(out.read_text()) if out.exists() else {}
    # the --scale-out and --outage parts' results stay (each run alone, added to the file)
    result = {k: kept[k] for k in ("scale_out", "outage") if k in kept}
    result.update({"quick": quick, "workers": args.workers, "cores": os.cpu_count(),
                   "idle_rss_mb": round(idle_rss, 1), "rows": rows + [slow], "goals": goals,
                   "commit": code_version(),
                   "note": "the load runs in this process (threads), the server in a child "
                           "process on 127.0.0.1; on a shared machine the figures are noisy"})
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {out}")
    if all(g["ok"] for g in goals):
        shutil.rmtree(tmp, ignore_errors=True)
    else:
        print(f"the server's log and database are kept in {tmp}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
