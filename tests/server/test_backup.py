"""The backup and restore of docs/deploy.md, on both backends: back up while the server
runs (pg_dump; SQLite's online backup), restore into a new database, and the game goes
on there from where it was."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess

from session_testkit import BOTH_BACKENDS, auth, new_game

from server.launch import postgres_bindir

pytestmark = BOTH_BACKENDS


def play_some(client, game_id: str, tokens: dict[int, str], n: int) -> None:
    for _ in range(n):
        data = client.get(f"/v1/games/{game_id}", headers=auth(tokens[0])).json()
        token = tokens[data["to_act"]]
        legal = client.get(f"/v1/games/{game_id}", headers=auth(token)).json()["legal_actions"]
        r = client.post(f"/v1/games/{game_id}/actions", headers=auth(token),
                        json={"action": legal[0]})
        assert r.status_code == 200, r.text


def test_a_backup_taken_while_serving_restores_every_game(make_client, db_target,
                                                          tmp_path, request):
    client = make_client()
    game_id, tokens = new_game(client, seats=["human", "human"], seed=21)
    play_some(client, game_id, tokens, 3)
    before = client.get(f"/v1/games/{game_id}", headers=auth(tokens[0])).json()
    if db_target.startswith("postgresql://"):
        bindir = postgres_bindir()
        dump = tmp_path / "bigsur.dump"
        subprocess.run([str(bindir / "pg_dump"), "--format=custom", f"--file={dump}",
                        db_target], check=True, capture_output=True)
        restored = request.getfixturevalue("postgres_cluster").create_database("restored")
        subprocess.run([str(bindir / "pg_restore"), "--no-owner", f"--dbname={restored}",
                        str(dump)], check=True, capture_output=True)
    else:
        restored = str(tmp_path / "restored.db")
        if shutil.which("sqlite3"):  # the shell's .backup, as docs/deploy.md shows
            subprocess.run(["sqlite3", db_target, f".backup {restored}"], check=True)
        else:  # the same online backup through Python
            source, target = sqlite3.connect(db_target), sqlite3.connect(restored)
            source.backup(target)
            source.close()
            target.close()
    play_some(client, game_id, tokens, 2)  # after the backup: not in it
    again = make_client(db=restored)
    after = again.get(f"/v1/games/{game_id}", headers=auth(tokens[0])).json()
    assert after["log"] == before["log"] and after["view"] == before["view"]
    play_some(again, game_id, tokens, 2)  # and it plays on
    assert again.get(f"/v1/games/{game_id}", headers=auth(tokens[0])).json()[
        "actions_applied"] == before["actions_applied"] + 2
