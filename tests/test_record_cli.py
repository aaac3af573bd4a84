"""Game records (replay to the identical state, errors naming the move) and the
``bigsur`` commands that use them: score, replay, selfplay, play (hot-seat, scripted)."""

from __future__ import annotations

import dataclasses
import io
import json
import random
import re

import pytest

from solver.cli import main, play_random_game
from solver.rules.engine import apply, legal_actions, new_game
from solver.rules.position import state_to_json
from solver.rules.record import GameRecord, RecordError, result_json
from solver.rules.scoring import final_scores, score_player
from solver.terminal import hot_seat


def recorded_game(players, seed, cards=None):
    """A random legal game: its record and every state."""
    record = GameRecord.start(players, seed, cards)
    state = record.initial_state()
    states = [state]
    rng = random.Random(seed)
    while not state.is_over:
        action = rng.choice(legal_actions(state))
        record.actions.append(action.notation())
        state = apply(state, action)
        states.append(state)
    return record, states


# ------------------------------------------------------------------ records


@pytest.mark.parametrize("players", [2, 3, 4])
def test_record_replays_to_the_identical_state(players, tmp_path):
    record, states = recorded_game(players, seed=100 + players)
    assert record.replay() == states[-1]
    replayed = [s for s, _a in record.states()]
    assert replayed == states
    path = tmp_path / "game.json"
    record.save(path)
    loaded = GameRecord.load(path)
    assert loaded.to_json() == record.to_json()
    assert loaded.replay() == states[-1]


def test_record_with_inline_cards_and_start_position(custom, small):
    record, states = recorded_game(3, seed=5, cards=custom)
    raw = json.loads(json.dumps(record.to_json()))
    assert raw["cards"]["name"] == "custom"
    assert raw["card_set"]["fingerprint"] == custom.fingerprint
    assert GameRecord.from_json(raw).replay() == states[-1]
    # an inline set passes the checks of a --cards file (the small test set does not)
    small_raw = json.loads(json.dumps(recorded_game(3, seed=5, cards=small)[0].to_json()))
    with pytest.raises(RecordError, match="cards: highway: a full set has 69 cards"):
        GameRecord.from_json(small_raw)
    # a record may start from a position instead of a seed
    middle = len(states) // 2
    from_mid = GameRecord(custom, 3, start_position=state_to_json(states[middle]),
                          actions=record.actions[middle:])
    again = GameRecord.from_json(json.loads(json.dumps(from_mid.to_json())))
    assert again.replay() == states[-1]


def test_record_replay_checks_every_action():
    record, _states = recorded_game(2, seed=1)
    record.actions[3] = "claim L01 H01"
    with pytest.raises(RecordError,
                       match=r"actions\[3\] \(move 4: 'claim L01 H01'\): illegal action"):
        record.replay()
    record.actions[3] = "fly away"
    with pytest.raises(RecordError, match=r"actions\[3\].*cannot read action"):
        record.replay()


def test_an_unreadable_action_is_refused_by_save_and_load_as_replay_refuses_it(tmp_path):
    """GameRecord.save and load took the action 'fly'; only states() found it. Both
    refuse it in the words of states(), naming actions[i]; an action that reads but is
    illegal still saves and loads (only replaying the record can tell)."""
    record, _states = recorded_game(2, seed=1)
    record.actions[3] = "fly"
    with pytest.raises(RecordError) as replayed:
        record.replay()
    assert str(replayed.value).startswith("actions[3] (move 4: 'fly'): cannot read action")
    path = tmp_path / "game.json"
    with pytest.raises(RecordError) as saved:
        record.save(path)
    assert str(saved.value) == str(replayed.value) and not path.exists()
    path.write_text(json.dumps(record.to_json()), encoding="utf-8")  # written by another
    for read in (lambda: GameRecord.load(path), lambda: GameRecord.from_json(record.to_json())):
        with pytest.raises(RecordError) as loaded:
            read()
        assert str(loaded.value) == str(replayed.value)
    record.actions[3] = "claim L01 H01"
    record.save(path)
    with pytest.raises(RecordError, match=r"actions\[3\] \(move 4: 'claim L01 H01'\): illegal"):
        GameRecord.load(path).replay()


@pytest.mark.parametrize("seed", [-1, 2**64])
def test_save_refuses_a_seed_load_would_refuse(tmp_path, seed):
    """A second read: save checked the actions as load does, not the seed, so a record of
    seed -1 was written and then refused by load. Save refuses what load refuses."""
    from solver.rules.cards import load_card_set

    path = tmp_path / "game.json"
    record = GameRecord(load_card_set(), 2, seed=seed)
    with pytest.raises(RecordError, match="seed: must be an integer 0 to"):
        record.save(path)
    assert not path.exists()


@pytest.mark.parametrize("change, words", [
    (lambda r: r.update(format="x"), "format"),
    (lambda r: r.update(players=5), "players: must be 2, 3 or 4"),
    (lambda r: r.update(seed="7x"), "seed: must be an integer"),  # "7" reads as 7
    # a seed outside a game's: -5 dealt the game of 5, and 2**64 + 5 was taken
    (lambda r: r.update(seed=-5), r"seed: must be an integer 0 to 9223372036854775807 "
                                  r"\(2\*\*63 - 1\), as every game's seed, got -5"),
    (lambda r: r.update(seed=2**64 + 5), r"seed: must be .* got 18446744073709551621"),
    (lambda r: r.update(seed=str(2**63)), r"seed: must be .* got 9223372036854775808"),
    (lambda r: r.update(seed=10**40), r"seed: must be .* got a number of 41 digits"),
    (lambda r: r.update(start={}), "exactly one of 'seed' and 'start'"),
    (lambda r: r.pop("seed"), "exactly one of 'seed' and 'start'"),
    (lambda r: r.update(actions=[1]), "actions: must be a list of action strings"),
    (lambda r: r.update(cards=5), "cards: must be"),
    # a short list of names was read, and a report named the missing seat by index
    (lambda r: r.update(names=["only one"]), r"names: must be a list of 2 strings .* of 1"),
    (lambda r: r.update(names=["a", 5]), r"names\[1\]: must be a string"),
    (lambda r: r.update(names=["a", "b" * 201]), r"names\[1\]: .* at most 200"),
])
def test_record_format_errors(change, words):
    raw = GameRecord.start(2, 3).to_json()
    change(raw)
    with pytest.raises(RecordError, match=words):
        GameRecord.from_json(raw)
    with pytest.raises(RecordError, match="must be an object"):
        GameRecord.from_json([])


def test_a_record_takes_every_seed_a_game_takes_and_the_server_draws():
    from server.sessions import DRAWN_SEED_BITS
    from solver.rules.record import MAX_SEED

    assert 2**DRAWN_SEED_BITS - 1 <= MAX_SEED  # the server's records stay readable
    for seed in (0, 2**DRAWN_SEED_BITS - 1, MAX_SEED, str(MAX_SEED)):
        raw = {**GameRecord.start(2, 3).to_json(), "seed": seed}
        assert GameRecord.from_json(raw).seed == int(seed)


def test_record_load_errors(tmp_path):
    with pytest.raises(RecordError, match="missing.json"):
        GameRecord.load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(RecordError, match="bad.json"):
        GameRecord.load(bad)


def test_result_json():
    record, states = recorded_game(2, seed=9)
    assert result_json(states[0]) is None
    out = result_json(states[-1])
    assert out["winners"] == list(final_scores(states[-1]).winners)
    assert out["final_position"] == state_to_json(states[-1])


# ------------------------------------------------------------------ CLI


def test_cli_score_prints_the_breakdown(tmp_path, capsys):
    _record, states = recorded_game(3, seed=12)
    for state in (states[len(states) // 2], states[-1]):
        path = tmp_path / "pos.json"
        path.write_text(json.dumps(state_to_json(state)))
        assert main(["score", str(path)]) == 0
        out = json.loads(capsys.readouterr().out)
        for seat, p in enumerate(state.players):
            expected = score_player(state.cards, p)
            got = out["scores"][seat]
            assert got["total"] == expected.total
            assert (got["stretches"], got["bonuses"], got["landmark_count"],
                    got["landmark_abilities"]) == (expected.stretches, expected.bonuses,
                                                   expected.landmark_count,
                                                   expected.landmark_abilities)
        assert out["game_over"] == state.is_over and "reconstruction" in out["card_set"]
        # an unfinished game has no winners: the seats ahead, named as replay names them
        ahead = list(final_scores(state).winners)
        assert out.get("winners" if state.is_over else "leading") == ahead
        assert ("leading" if state.is_over else "winners") not in out


def test_cli_score_rejects_a_bad_position(tmp_path, capsys):
    raw = state_to_json(new_game(2, seed=1))
    raw["seats"][0]["hand"].append("H99")
    path = tmp_path / "pos.json"
    path.write_text(json.dumps(raw))
    assert main(["score", str(path)]) == 2
    assert "seats[0].hand[2]" in capsys.readouterr().err
    assert main(["score", str(tmp_path / "nope.json")]) == 2


def test_cli_replay_prints_final_scores(tmp_path, capsys):
    record, states = recorded_game(2, seed=21)
    path = tmp_path / "rec.json"
    record.save(path)
    assert main(["replay", str(path)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out == {**final_scores(states[-1]).to_json(), "actions": len(record.actions),
                   "game_over": True, "card_set": states[-1].cards.label}
    record.actions[0] = "end"
    record.save(path)
    assert main(["replay", str(path)]) == 2
    assert "actions[0] (move 1: 'end')" in capsys.readouterr().err


def test_cli_replay_of_an_unfinished_game_names_the_seats_leading_not_winners(tmp_path,
                                                                            capsys):
    # an unfinished game's replay listed the seats ahead as "winners"
    record, states = recorded_game(2, seed=21)
    path = tmp_path / "rec.json"
    for n in (0, len(record.actions) // 2):
        dataclasses.replace(record, actions=record.actions[:n]).save(path)
        assert main(["replay", str(path)]) == 0
        out = json.loads(capsys.readouterr().out)
        outcome = final_scores(states[n]).to_json()
        assert out == {"scores": outcome["scores"], "leading": outcome["winners"],
                       "actions": n, "game_over": False, "card_set": states[n].cards.label}


def test_cli_replay_writes_the_position_at_a_move(tmp_path, capsys):
    # the position at move N of a record could not be had from the command line (only
    # from the service's GET /v1/analyze/{id}/positions/{n})
    from solver.rules.position import state_from_json

    record, states = recorded_game(2, seed=21)
    path, out = tmp_path / "rec.json", tmp_path / "pos.json"
    record.save(path)
    n = len(record.actions)
    for at in (0, 12, n):
        assert main(["replay", str(path), "--at", str(at), "--out", str(out), "--force"]) == 0
        assert state_from_json(json.loads(out.read_text())) == states[at]
        said = capsys.readouterr().out
        assert f"the position after {at} of {n} actions" in said
        st = states[at]  # the turn in words is the file's "turn" + 1, and says so; the
        # player as hint and the page say it, counted from 1 (it said "seat 0")
        assert ("the game is over" if st.is_over else f"Player {st.current + 1} to act in "
                f"turn {st.turn + 1}; the file's \"current\" is {st.current} and its "
                f"\"turn\" {st.turn}, the turns done") in said, said
        assert said.count("(") == said.count(")") == 1, said  # no nested parentheses
    assert main(["score", str(out)]) == 0  # what bigsur score reads
    assert json.loads(capsys.readouterr().out)["game_over"] is True
    assert main(["replay", str(path), "--at", "5"]) == 0  # no --out: on stdout
    assert json.loads(capsys.readouterr().out) == state_to_json(states[5])
    # an existing file only with --force; the record itself never
    assert main(["replay", str(path), "--at", "3", "--out", str(out)]) == 2
    assert capsys.readouterr().err == (f"bigsur: error: --out {out} exists (use --force to "
                                       "overwrite)\n")
    assert main(["replay", str(path), "--at", "3", "--out", str(path), "--force"]) == 2
    assert "is the record being replayed" in capsys.readouterr().err
    assert GameRecord.load(path).actions == record.actions


@pytest.mark.parametrize("at", ["-1", "N+1"])
def test_cli_replay_at_outside_the_record_names_the_range(tmp_path, capsys, at):
    record, _states = recorded_game(2, seed=21)
    path, out = tmp_path / "rec.json", tmp_path / "pos.json"
    record.save(path)
    n = len(record.actions)
    at = at.replace("N+1", str(n + 1))
    assert main(["replay", str(path), "--at", at, "--out", str(out)]) == 2
    assert capsys.readouterr().err == (f"bigsur: error: --at: must be 0 to {n} (the "
                                       f"record's {n} actions), got {at}\n")
    assert not out.exists()


def test_cli_replay_at_replays_only_the_actions_before_it(tmp_path, capsys):
    # a record whose action 10 is illegal still gives the positions before it
    record, states = recorded_game(2, seed=21)
    record.actions[10] = "end"
    path = tmp_path / "rec.json"
    record.save(path)
    assert main(["replay", str(path), "--at", "10"]) == 0
    assert json.loads(capsys.readouterr().out) == state_to_json(states[10])
    assert main(["replay", str(path), "--at", "11"]) == 2
    assert "actions[10] (move 11: 'end')" in capsys.readouterr().err


def test_cli_selfplay_writes_replayable_deterministic_records(tmp_path, capsys):
    for out in ("a", "b"):
        assert main(["selfplay", "--players", "3", "--games", "2", "--seed", "40",
                     "--out", str(tmp_path / out)]) == 0
    capsys.readouterr()
    names = sorted(p.name for p in (tmp_path / "a").iterdir())
    assert names == ["game-40.json", "game-41.json"]
    for name in names:
        a = json.loads((tmp_path / "a" / name).read_text())
        assert a == json.loads((tmp_path / "b" / name).read_text())  # same seed, same game
        record = GameRecord.from_json(a)
        final = record.replay()
        assert final.is_over and a["meta"]["result"] == final_scores(final).to_json()
    assert play_random_game(2, 7).to_json() == play_random_game(2, 7).to_json()


def scripted(lines):
    """A fake ``read`` for hot_seat: the given lines, then "1" (the first legal move)."""
    it = iter(lines)
    prompts = []

    def read(prompt):
        prompts.append(prompt)
        return next(it, "1")

    return read, prompts


def test_hot_seat_plays_a_game_with_scripted_input(tmp_path, small):
    out = []
    save = tmp_path / "hs.json"
    read, prompts = scripted(["help", "moves", "999", "take NOPE", "build S00 Q", "2", "take deck"])
    assert hot_seat(2, 5, small, str(save), read=read, write=out.append) == 0
    text = "\n".join(out)
    assert "Actions (the notation)" in text  # help
    assert re.search(r"^\s*1\s+take ", text, re.M)  # moves (numbered from 1)
    assert "no move number 999" in text
    assert "illegal action 'take NOPE'" in text
    assert "'build S00 Q': the side must be L or R" in text
    assert "winner" in text and f"record saved to {save}" in text
    record = GameRecord.load(save, small)
    final = record.replay()
    assert final.is_over and record.actions[:2] == [
        legal_actions(new_game(2, 5, small))[1].notation(), "take deck"]
    assert prompts[0] == f"seat {new_game(2, 5, small).current}> "


def test_hot_seat_without_seed_records_the_deal(tmp_path, small):
    save = tmp_path / "hs.json"
    read, _ = scripted([])
    assert hot_seat(2, None, small, str(save), read=read, write=lambda s: None) == 0
    record = GameRecord.load(save, small)
    # the deal is recorded (as a drawn seed or as the start position), so it replays
    assert record.seed is not None or record.start_position is not None
    assert record.replay().is_over


def test_hot_seat_quit_and_end_of_input(small):
    out = []
    assert hot_seat(2, 1, small, None, read=lambda p: "quit", write=out.append) == 0

    def eof(prompt):
        raise EOFError

    assert hot_seat(2, 1, small, None, read=eof, write=out.append) == 0
    assert out[-1] == "bye"


def test_cli_play_reads_stdin(monkeypatch, capsys, tmp_path):
    monkeypatch.chdir(tmp_path)  # the game record is saved under ./records
    monkeypatch.setattr("sys.stdin", io.StringIO("moves\ntake deck\nquit\n"))
    assert main(["play", "--players", "2", "--seed", "3"]) == 0
    out = capsys.readouterr().out
    assert "reconstruction" in out and re.search(r"^\s*1\s+take ", out, re.M)


def test_a_record_played_with_other_cards_is_refused():
    raw = GameRecord.start(2, seed=4).to_json()
    raw["card_set"]["fingerprint"] = "0" * 16
    with pytest.raises(RecordError, match="card_set"):
        GameRecord.from_json(raw)


def test_cli_verify_checks_the_commitment_and_never_crashes(tmp_path, capsys):
    import hashlib

    record = play_random_game(2, 4).to_json()
    salt = "0123456789abcdef0123456789abcdef"
    record["meta"] = {"fairness": {"seed": 4, "salt": salt, "commitment": hashlib.sha256(
        f"4:{salt}".encode("ascii")).hexdigest()}}
    path = tmp_path / "served.json"
    path.write_text(json.dumps(record))
    assert main(["verify", str(path)]) == 0
    assert capsys.readouterr().out.startswith("OK: the deal of seed 4 matches")
    path.write_text(json.dumps({**record, "seed": "4"}))  # its digits, as a record may say it
    assert main(["verify", str(path)]) == 0, capsys.readouterr().out
    assert capsys.readouterr().out.startswith("OK: the deal of seed 4 matches")
    record["meta"]["fairness"]["salt"] = "sél"  # was a UnicodeEncodeError traceback
    path.write_text(json.dumps(record))
    assert main(["verify", str(path)]) == 1
    assert capsys.readouterr().out.startswith("FAILED: sha256(seed:salt) is ")
    record["meta"] = "fairness"  # was an AttributeError traceback
    path.write_text(json.dumps(record))
    assert main(["verify", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{path}: meta: must be an object, got str" in err, err
    del record["meta"]  # a record of the command line: no commitment to check
    path.write_text(json.dumps(record))
    assert main(["verify", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no meta.fairness" in err, err


def test_a_records_seat_names_are_plain_text_for_the_library_as_for_the_server():
    """A record's names hold no control character or lone surrogate (a review shows them;
    no UTF-8 answer holds a lone surrogate): GameRecord.from_json refuses them, as the
    server's reader did alone (the CLI's records loaded them)."""
    import pytest

    from solver.rules.record import GameRecord, RecordError

    raw = GameRecord.start(2, 1).to_json()
    for bad in ("Ann\x00", "Bob\x1b[31m", "\ud800", "tab\there"):
        with pytest.raises(RecordError, match=r"names\[1\]: must not contain a control"):
            GameRecord.from_json({**raw, "names": ["Ann", bad]})
    assert GameRecord.from_json({**raw, "names": ["Ann", "Zoë 🌊"]}).names[1] == "Zoë 🌊"
