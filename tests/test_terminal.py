"""Terminal play with scripted input (no tty): whole games against the AI and hot-seat,
the hint command, refused input explained, completion, the ``play`` subcommand."""

from __future__ import annotations

import argparse
import io
import re
import sys

import pytest

from solver.rules.actions import Build, Take
from solver.rules.engine import legal_actions, new_game, play
from solver.rules.record import GameRecord
from solver.rules.scoring import final_scores
from solver.rules.state import Phase
from solver.rules.views import view_of
from solver.search.api import Budget, analyse
from solver.terminal import (
    HUMAN,
    PlayError,
    add_cli,
    completions,
    hot_seat,
    play_game,
    seats_from_args,
)


class Script:
    """``read`` for play_game: the given lines, then a fallback (default: move 1, the
    first legal move)."""

    def __init__(self, lines=(), fallback="1", limit=2000):
        self.lines = list(lines)
        self.fallback = fallback
        self.prompts: list[str] = []
        self.limit = limit

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if len(self.prompts) > self.limit:
            raise AssertionError("the game did not end")
        return self.lines.pop(0) if self.lines else self.fallback


def test_full_game_against_the_ai_saves_a_record_that_replays(tmp_path):
    out: list[str] = []
    save = tmp_path / "game.json"
    rc = play_game([HUMAN, "random"], seed=4, save=str(save), read=Script(), write=out.append)
    assert rc == 0
    text = "\n".join(out)
    record = GameRecord.load(save)
    assert record.names == [HUMAN, "random"] and record.seed == 4
    final = record.replay()
    assert final.is_over
    outcome = final_scores(final)
    for i, s in enumerate(outcome.scores):  # the printed breakdown is the real one
        assert re.search(rf"Seat {i}[^\n:]*: {s.total} \(stretches {s.stretches}, "
                         rf"2-Mile bonuses {s.bonuses}", text), text[-2000:]
    assert record.meta["result"]["scores"][0]["total"] == outcome.scores[0].total
    # the AI's moves are announced; its payments (hidden card fronts) are not
    ai_lines = [ln for ln in out if ln.startswith("  Seat 1 · random: ")]
    assert ai_lines and not any(" pay " in ln for ln in ai_lines)
    # the table shows the card set as a reconstruction and the human's hand only
    assert "reconstruction" in text
    assert text.count("Hand:") >= 1


def test_the_human_never_sees_the_ai_hand():
    out: list[str] = []
    state = new_game(2, seed=9)
    ai_seat = 1
    hidden = [state.cards.highway[c].id for c in state.players[ai_seat].hand]
    play_game([HUMAN, "greedy"], seed=9, read=Script(["quit"]), write=out.append)
    first_table = "\n".join(out)
    known = set()  # cards the AI took from the Depot before the human's first prompt
    for line in out:
        m = re.match(r"  Seat 1 · greedy: take (H\d+)", line)
        if m:
            known.add(m.group(1))
    for card in hidden:
        if card not in known:
            assert card not in first_table, card


def test_hint_then_play_the_hinted_move(tmp_path):
    out: list[str] = []
    save = tmp_path / "hint.json"
    script = Script(["take deck", "take deck", "hint 40i", "h 1", "quit"])
    play_game([HUMAN, "greedy"], seed=2, save=str(save), read=script, write=out.append)
    assert "Hint (40 iterations" in "\n".join(out)
    record = GameRecord.load(save)
    # where the hint was asked: the human's first build step; the hint is reproducible
    # (iteration budget, seed = number of actions so far), so search it again here
    n, state = next((i, st) for i, (st, _a) in enumerate(record.states())
                    if st.current == 0 and st.phase == Phase.BUILD)
    best = analyse(view_of(state, 0), Budget(iterations=40), seed=n).moves[0]
    assert record.actions[n:n + len(best.actions)] == best.actions
    assert best.label in "\n".join(out)


def test_refused_input_is_explained_and_the_game_goes_on():
    out: list[str] = []
    script = Script(["build H01 L", "take H99", "frobnicate", "h 1", "99", "quit"])
    play_game([HUMAN, HUMAN], seed=1, read=script, write=out.append)
    errors = [ln for ln in out if ln.startswith("! ")]
    assert len(errors) == 5, errors
    assert "first take 2 more card(s)" in errors[0]
    assert "H99" in errors[1]
    assert "cannot read action 'frobnicate'" in errors[2]
    assert "no hint for this position" in errors[3]
    assert "no move number 99" in errors[4]
    assert len(script.prompts) == 6  # every line was answered, none ended the game


def test_hot_seat_all_humans_still_works(tmp_path):
    out: list[str] = []
    save = tmp_path / "hs.json"
    script = Script()
    rc = hot_seat(3, 6, None, str(save), read=script, write=out.append)
    assert rc == 0
    record = GameRecord.load(save)
    assert record.players == 3 and record.names == [HUMAN] * 3 and record.replay().is_over
    # each seat asked, and asked to take the keyboard when the turn passes to it
    assert {p for p in script.prompts if p.endswith("> ")} == {"seat 0> ", "seat 1> ",
                                                                 "seat 2> "}
    assert {p for p in script.prompts if "pass the keyboard" in p} == {
        f"seat {i} to play: pass the keyboard, then press Enter " for i in range(3)}


def test_eof_leaves_and_still_saves(tmp_path):
    def read(_prompt):
        raise EOFError

    save = tmp_path / "eof.json"
    out: list[str] = []
    assert play_game([HUMAN, "random"], seed=3, save=str(save), read=read,
                     write=out.append) == 0
    assert "bye" in out and GameRecord.load(save).seed == 3


def test_completions_of_legal_actions():
    state = new_game(2, seed=5)
    legal = [a.notation() for a in legal_actions(state)] + ["hint", "help"]
    assert completions("", 0, legal) == sorted({"take ", "hint", "help"})
    depot = sorted(state.cards.highway[c].id for c in state.depot)
    assert completions("take ", 5, legal) == sorted(depot + ["deck"])
    first = depot[0]
    assert completions(f"take {first[:2]}", 5, legal) == sorted(
        d for d in depot if d.startswith(first[:2]))
    assert completions("build ", 6, legal) == []  # no build in the take step


def test_completions_take_any_case_as_typed_ids_are_read():
    # 'take h43' plays H43 (any case when one id matches) but 'take h4<Tab>' completed
    # nothing: completion matched the case
    from solver.terminal import prompt_candidates, typed_action

    state = new_game(2, seed=5)
    candidates = prompt_candidates(state)
    depot = sorted(state.cards.highway[c].id for c in state.depot)
    first = depot[0]
    for typed in (first[:2].lower(), first[:2].upper()):
        found = completions(f"TAKE {typed}", 5, candidates)
        assert found == sorted(d for d in depot if d.lower().startswith(typed.lower()))
        assert all(typed_action(state.cards, f"take {w}") == f"take {w}" for w in found)
    assert completions("take DE", 5, candidates) == ["deck"]
    assert completions("HIN", 0, candidates) == ["hint"]
    assert "H41" in completions("card h4", 5, candidates)
    assert "L06" in completions("CARD l0", 5, candidates)


def test_seats_from_args():
    assert seats_from_args(3, "greedy", None) == [HUMAN, "greedy", "greedy"]
    assert seats_from_args(2, None, None) == [HUMAN, HUMAN]
    assert seats_from_args(2, None, "greedy,human") == ["greedy", HUMAN]
    with pytest.raises(PlayError, match="at least one seat must be human"):
        seats_from_args(2, None, "greedy,random")
    with pytest.raises(PlayError, match="seat 1"):
        seats_from_args(2, "nonsense", None)
    with pytest.raises(PlayError, match="--players"):
        seats_from_args(5, "greedy", None)


def test_play_subcommand_with_piped_input(tmp_path, monkeypatch, capsys):
    parser = argparse.ArgumentParser(prog="bigsur")
    add_cli(parser.add_subparsers(dest="command", required=True))
    save = tmp_path / "cli.json"
    args = parser.parse_args(["play", "--players", "2", "--ai", "random", "--seed", "8",
                              "--save", str(save)])
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 500))
    assert args.func(args) == 0
    text = capsys.readouterr().out
    assert "winner(s):" in text and f"record saved to {save}" in text
    assert "\x1b[" not in text  # no colour codes when stdout is not a terminal
    assert GameRecord.load(save).replay().is_over
    bad = parser.parse_args(["play", "--ai", "mcts:xyz"])
    assert bad.func(bad) == 2
    assert "seat 1" in capsys.readouterr().err


def test_play_refuses_a_bad_hint_budget_or_save_path_up_front(tmp_path, capsys):
    parser = argparse.ArgumentParser(prog="bigsur")
    add_cli(parser.add_subparsers(dest="command", required=True))
    for argv, words in [(["--hint-budget", "abc"], "--hint-budget: budget must be"),
                        (["--save", str(tmp_path)], "is a directory"),
                        # a folder that does not exist was made, anywhere (/nonexistent)
                        (["--save", str(tmp_path / "no" / "x.json")],
                         f"no such directory: {tmp_path / 'no'}"),
                        # a folder that takes no file (os.access lets root write there)
                        (["--save", "/proc/x.json"], "--save /proc/x.json: cannot make a "
                                                     "file in /proc (")]:
        args = parser.parse_args(["play", "--ai", "random", *argv])
        assert args.func(args) == 2  # a BudgetError traceback / an error after the game
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and words in err, err
    assert not (tmp_path / "no").exists()


def test_a_record_that_cannot_be_saved_is_reported_not_a_traceback(tmp_path):
    out: list[str] = []
    blocker = tmp_path / "file"
    blocker.write_text("")
    save = blocker / "rec.json"  # its parent is a file: the save fails
    rc = play_game([HUMAN, "random"], seed=3, save=str(save), read=Script(["take deck",
                   "quit"]), write=out.append)
    assert rc == 1
    assert any(line.startswith(f"! cannot save the record to {save}") and "take deck" in line
               for line in out), out


def test_the_default_record_name_keeps_seed_zero(tmp_path, monkeypatch, capsys):
    parser = argparse.ArgumentParser(prog="bigsur")
    add_cli(parser.add_subparsers(dest="command", required=True))
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    args = parser.parse_args(["play", "--ai", "random", "--seed", "0"])
    assert args.func(args) == 0
    capsys.readouterr()
    assert [p.name.startswith("play-0-") for p in (tmp_path / "records").iterdir()] == [True]


def test_the_default_record_name_carries_the_seed_drawn_for_a_game_without_one(
        tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    status, out, err = play_cli(["--ai", "random"], "quit\n", monkeypatch, capsys)
    assert status == 0, err
    seed = re.search(r"; seed (\d+)\.", out).group(1)  # the banner's
    (saved,) = (tmp_path / "records").iterdir()
    assert saved.name.startswith(f"play-{seed}-"), saved.name
    assert GameRecord.load(saved).seed == int(seed)


def test_two_games_of_one_default_record_name_keep_both_records(tmp_path, monkeypatch,
                                                                capsys):
    import solver.terminal

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(solver.terminal.time, "time", lambda: 1_700_000_000.0)  # one second
    first = play_cli(["--ai", "random", "--seed", "3"], "take deck\nquit\n", monkeypatch,
                     capsys)
    second = play_cli(["--ai", "random", "--seed", "3"], "quit\n", monkeypatch, capsys)
    assert first[0] == second[0] == 0, (first, second)
    name = tmp_path / "records" / "play-3-1700000000.json"
    other = name.with_name("play-3-1700000000-2.json")
    kept = GameRecord.load(name).actions
    assert kept[-1] == "take deck"  # the first game's, kept
    assert GameRecord.load(other).actions == kept[:-1]  # the second's, beside it
    assert re.search(rf"record saved to {re.escape(str(other.relative_to(tmp_path)))} "
                     rf"\(\d+ actions?; {re.escape(str(name.relative_to(tmp_path)))} was "
                     "there already", second[1]), second[1]


@pytest.mark.parametrize("force", [False, True])
def test_a_save_file_written_during_the_game_is_replaced_only_with_force(
        force, tmp_path, monkeypatch, capsys):
    save = tmp_path / "g.json"

    class AnotherGameSaves(io.StringIO):
        """The keyboard: 'quit', read after another game has saved to ``save``."""

        def readline(self, *_args) -> str:
            save.write_text("another game")
            return "quit\n"

    parser = argparse.ArgumentParser(prog="bigsur")
    add_cli(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["play", "--ai", "random", "--seed", "2", "--save", str(save)]
                             + (["--force"] if force else []))
    monkeypatch.setattr(sys, "stdin", AnotherGameSaves())
    status, err = args.func(args), capsys.readouterr().err
    assert status == 0, err
    if force:
        assert GameRecord.load(save).seed == 2
        assert not (tmp_path / "g-2.json").exists()
    else:
        assert save.read_text() == "another game"
        assert GameRecord.load(tmp_path / "g-2.json").seed == 2


@pytest.mark.parametrize("players", [0, 1, 5])
def test_play_refuses_a_player_count_outside_2_to_4_zero_too(players, tmp_path, monkeypatch,
                                                             capsys):
    monkeypatch.chdir(tmp_path)
    status, out, err = play_cli(["--players", players, "--ai", "random"], "quit\n",
                                monkeypatch, capsys)
    assert status == 2 and not out
    assert err == f"bigsur: error: --players: must be 2 to 4, got {players}\n", err
    assert not (tmp_path / "records").exists()


def test_play_refuses_no_save_with_a_save_file(tmp_path, monkeypatch, capsys):
    from solver.cli import main

    save = tmp_path / "x.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO("quit\n"))
    with pytest.raises(SystemExit) as refused:  # (argparse's error, as every command's)
        main(["play", "--ai", "random", "--no-save", "--save", str(save)])
    assert refused.value.code == 2
    out, err = capsys.readouterr()
    assert not out  # no game started
    assert err == ("bigsur play: error: argument --save: not allowed with argument --no-save"
                   "\ntry 'bigsur play --help'\n"), err
    assert not save.exists()


def test_ctrl_c_during_a_hint_stops_the_search_not_the_game(tmp_path, monkeypatch):
    def interrupted(*_args, **_kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr("solver.search.api.analyse", interrupted)
    out: list[str] = []
    save = tmp_path / "g.json"
    script = Script(["hint 30s", "take deck", "quit"])
    rc = play_game([HUMAN, HUMAN], seed=1, save=str(save), read=script, write=out.append)
    assert rc == 0 and "\ninterrupted" not in out  # not the game's Ctrl-C exit (130)
    assert "! hint interrupted" in "\n".join(out)
    assert GameRecord.load(save).actions == ["take deck"]  # the game went on


def test_a_bad_hint_budget_is_named_once():
    out: list[str] = []
    play_game([HUMAN, HUMAN], seed=1, read=Script(["hint abc", "quit"]), write=out.append)
    errors = [ln for ln in out if ln.startswith("! ")]
    assert errors == ["! hint: budget must be <iterations>i or <seconds>s (e.g. 500i, 1.5s), "
                      "got 'abc'"], errors


def test_a_hint_or_an_ai_of_more_iterations_than_the_cap_is_refused(tmp_path, monkeypatch,
                                                                     capsys):
    """'hint 5000000i' at the prompt, --hint-budget 5000000i and an AI of mcts:5000000i
    started searches that could not end in a game's time: refused, naming the limit (the
    command line's MAX_ITERATIONS, as hint and analyze --iterations)."""
    from solver.cli import MAX_ITERATIONS, main

    def no_search(*_args, **_kwargs):
        raise AssertionError("the search was started")

    monkeypatch.setattr("solver.search.api.analyse", no_search)
    too_many = MAX_ITERATIONS + 1
    out: list[str] = []
    play_game([HUMAN, HUMAN], seed=1, read=Script([f"hint {too_many}i", "quit"]),
              write=out.append)
    assert [ln for ln in out if ln.startswith("! ")] == [
        f"! hint: {too_many} iterations exceeds the limit of {MAX_ITERATIONS}"]
    games: list[tuple] = []
    monkeypatch.setattr("solver.terminal.play_game", lambda *a, **k: games.append(a) or 0)
    for argv, field in [(["--hint-budget", f"{too_many}i"], "--hint-budget"),
                        (["--ai", f"mcts:{too_many}i"], "seat 1"),
                        (["--seats", f"mcts:{too_many}i,human"], "seat 0")]:
        assert main(["play", "--no-save", *argv]) == 2
        assert capsys.readouterr().err == (f"bigsur: error: {field}: {too_many} iterations "
                                           f"exceeds the limit of {MAX_ITERATIONS}\n")
    assert not games
    assert main(["play", "--no-save", "--ai", f"mcts:{MAX_ITERATIONS}i",
                 "--hint-budget", f"{MAX_ITERATIONS}i"]) == 0  # the cap itself is taken
    assert len(games) == 1


def test_the_depot_is_not_numbered_since_numbers_play_moves():
    # typing N plays move N of 'moves' (in another order, from 0): numbered Depot
    # columns read as 'type 1 to take the first card' and took another one
    out: list[str] = []
    play_game([HUMAN, HUMAN], seed=1, read=Script(["quit"]), write=out.append)
    lines = "\n".join(out).splitlines()
    depot = next(i for i, ln in enumerate(lines) if ln.startswith("Depot"))
    assert re.match(r"│H\d\d ", lines[depot + 2]), lines[depot:depot + 4]


def test_the_hint_shows_the_visits_that_rank_its_moves():
    # the moves are ranked by visits, not by win %: without the count, a move 3 with a
    # higher win % than move 1 read as a wrong hint
    out: list[str] = []
    play_game([HUMAN, HUMAN], seed=1, read=Script(["hint 40i", "quit"]), write=out.append)
    text = "\n".join(out)
    result = analyse(view_of(new_game(2, seed=1), new_game(2, seed=1).current),
                     Budget(iterations=40), seed=0)
    assert re.search(r"\bvisits\b", text)
    for i, m in enumerate(result.moves[:5], 1):
        assert re.search(rf"^ *{i} +{m.visits} +{100 * m.win_probability:.1f}%", text,
                         re.M), text


def test_a_seat_spelled_human_in_capitals_is_a_player_and_errors_name_human():
    # '--seats Human,greedy' was refused as an unknown bot, whose list has no 'human'
    assert seats_from_args(2, None, "Human, greedy") == [HUMAN, "greedy"]
    assert seats_from_args(2, "HUMAN", None) == [HUMAN, HUMAN]
    with pytest.raises(PlayError, match="seat 1: .*'human' for a player"):
        seats_from_args(2, None, "human,nobot")


def test_hot_seat_waits_for_the_next_player_before_showing_its_hand():
    # the table of the next seat (its hand) was drawn at once, under the eyes of the
    # player who had just ended the turn
    out: list[str] = []
    script = Script(["take deck", "take deck", "end", "", "quit"])

    def read(prompt):
        out.append(f"PROMPT {prompt}")
        return script(prompt)

    play_game([HUMAN, HUMAN], seed=1, read=read, write=out.append)
    first = script.prompts[0][5]  # "seat N> "
    prompts = [i for i, line in enumerate(out) if line.startswith("PROMPT ")]
    assert out[prompts[3]] == f"PROMPT seat {1 - int(first)} to play: pass the keyboard, " \
        "then press Enter "
    assert "Hand:" not in "\n".join(out[prompts[2]:prompts[3]])  # nothing after 'end'
    after = "\n".join(out[prompts[3]:prompts[4]])
    assert "Hand:" in after and f"Seat {1 - int(first)} — " in after


# ------------------------------------------------------------------ undo

def saved_actions(tmp_path, seats, seed, lines, name="g.json"):
    """The actions of the record a scripted game saves, and what it wrote."""
    out: list[str] = []
    save = tmp_path / name
    play_game(seats, seed=seed, save=str(save), read=Script(lines), write=out.append)
    return GameRecord.load(save).actions, out


def ai_turn_after_the_end(actions):
    """The AI's actions after the human's 'take deck', 'take deck', 'end' in a record."""
    k = next(k for k in range(len(actions)) if actions[k:k + 3] == ["take deck"] * 2 + ["end"])
    return actions[k + 3:]


def test_undo_takes_back_the_human_move_and_the_ai_moves_after_it(tmp_path):
    # a misclicked 'end' could not be taken back; undo returns to the human's decision
    plain, _ = saved_actions(tmp_path, [HUMAN, "greedy"], 21,
                             ["take deck", "take deck", "end", "quit"], "d.json")
    # (seed 21: two deck takes each, so no card went into the Depot nor the human's sight)
    assert ai_turn_after_the_end(plain) == ["take deck", "take deck", "end"], plain
    undone, out = saved_actions(tmp_path, [HUMAN, "greedy"], 21,
                                ["take deck", "take deck", "end", "undo", "quit"], "a.json")
    direct, _ = saved_actions(tmp_path, [HUMAN, "greedy"], 21,
                              ["take deck", "take deck", "quit"], "b.json")
    assert undone == direct  # the saved record holds no undone move
    assert "taken back: end and the AI's 3 moves after it" in out, out
    # the game goes on from there: playing 'end' again is the game without the undo
    again, _ = saved_actions(tmp_path, [HUMAN, "greedy"], 21,
                             ["take deck", "take deck", "end", "undo", "end", "quit"], "c.json")
    assert again == plain and len(plain) > len(direct) + 1  # the AI played after 'end'


def test_undo_never_takes_back_the_ai_turn_once_the_human_saw_what_it_drew(tmp_path):
    # the human's 'end' after two deck takes refills nothing, but the AI's turn took a
    # Depot card, and its 'end' refilled the Depot in front of the human: taking the
    # 'end' back (with the AI's turn) put that card back on top of the deck, known
    plain, _ = saved_actions(tmp_path, [HUMAN, "greedy"], 2,
                             ["take deck", "take deck", "end", "quit"], "a.json")
    ai_turn = ai_turn_after_the_end(plain)
    assert any(a.startswith("take H") for a in ai_turn), ai_turn  # a Depot take
    actions, out = saved_actions(tmp_path, [HUMAN, "greedy"], 2,
                                 ["take deck", "take deck", "end", "undo", "quit"], "b.json")
    errors = [ln for ln in out if ln.startswith("! ")]
    assert errors == ["! undo: the end of a turn cannot be taken back with the AI's moves "
                      "after it: you have seen cards they drew from the deck"], errors
    assert actions == plain  # the record is left as it was


def test_undo_with_nothing_to_take_back_is_refused(tmp_path):
    actions, out = saved_actions(tmp_path, [HUMAN, "greedy"], 2,
                                 ["undo", "1", "undo", "undo", "quit"])  # a Depot take
    errors = [ln for ln in out if ln.startswith("! ")]
    assert errors == ["! undo: nothing to take back (no move of yours in this game)"] * 2
    first, _ = saved_actions(tmp_path, [HUMAN, "greedy"], 2, ["quit"], "first.json")
    assert actions == first  # the AI's opening moves (if it started) are kept


def test_undo_refuses_an_extra_word(tmp_path):
    actions, out = saved_actions(tmp_path, [HUMAN, HUMAN], 1,
                                 ["take deck", "undo 2", "quit"])
    assert "! undo: unexpected '2' (type 'undo' alone: it takes back one move)" in out
    assert actions == ["take deck"]


@pytest.mark.parametrize("word, does", [
    ("moves", "it lists the legal actions"), ("table", "it draws the table again"),
    ("score", "it shows the scores so far"), ("help", "it lists the actions and commands"),
    ("quit", "it leaves the game"), ("exit", "it leaves the game"),
])
def test_a_command_typed_with_an_extra_word_is_refused_as_undo_is(word, does, tmp_path):
    # 'moves foo' listed the moves and 'quit foo' left, the extra word ignored
    actions, out = saved_actions(tmp_path, [HUMAN, HUMAN], 1,
                                 [f"{word} foo", "take deck", "quit"])
    errors = [ln for ln in out if ln.startswith("! ")]
    assert errors == [f"! {word}: unexpected 'foo' (type '{word}' alone: {does})"], errors
    assert actions == ["take deck"]  # nothing done, and the game went on
    assert "Commands:" not in "\n".join(out)  # not the help either


def test_undo_never_takes_back_a_card_drawn_from_the_deck(tmp_path):
    # 'take deck' (H35), 'undo', 'take deck' gave H35 again: the undo showed the deck's
    # top card, which the rules hide
    actions, out = saved_actions(tmp_path, [HUMAN, "greedy"], 2,
                                 ["take deck", "undo", "undo", "quit"], "a.json")
    errors = [ln for ln in out if ln.startswith("! ")]
    assert errors == ["! undo: a card drawn from the deck cannot be taken back: you have "
                      "seen it"] * 2, errors
    direct, _ = saved_actions(tmp_path, [HUMAN, "greedy"], 2, ["take deck", "quit"], "b.json")
    assert actions == direct and actions[-1] == "take deck"
    # a Depot card (face up) is taken back as before, and a build after a deck take
    actions, out = saved_actions(tmp_path, [HUMAN, "greedy"], 2,
                                 ["take deck", "1", "undo", "quit"], "c.json")
    assert actions == direct and any(ln.startswith("taken back: take H") for ln in out), out


def depot_takes_and_a_build():
    """A seed whose deal seat 0 starts, and what seat 0 types: two Depot takes, then a
    build legal after them."""
    for seed in range(100):
        state = new_game(2, seed)
        if state.current != 0:
            continue
        typed = []
        for _ in range(2):
            take = next(a for a in legal_actions(state)
                        if isinstance(a, Take) and a.notation() != "take deck")
            typed.append(take.notation())
            state = play(state, take)
        build = next((a for a in legal_actions(state) if isinstance(a, Build)), None)
        if build is not None:
            return seed, typed, Build(build.card, build.side).notation()
    pytest.fail("no deal in 100 where seat 0 starts and can build after two Depot takes")


def test_undo_never_takes_back_an_end_whose_refill_the_human_saw_after_the_ai_turn(
        tmp_path):
    # two Depot takes, a build, 'end': the Depot is refilled from the deck, the AI plays
    # its turn, and the human's next table shows the refill. Taking the 'end' back (with
    # the AI's turn) put those cards back on top of the deck, known to the human; the
    # build and the takes before it could then be played again knowing them
    seed, takes, build = depot_takes_and_a_build()
    plain, _ = saved_actions(tmp_path, [HUMAN, "greedy"], seed,
                             [*takes, build, "end", "quit"], "a.json")
    assert len(plain) > 4  # the AI played after 'end'
    actions, out = saved_actions(tmp_path, [HUMAN, "greedy"], seed,
                                 [*takes, build, "end", "undo", "undo", "quit"], "b.json")
    errors = [ln for ln in out if ln.startswith("! ")]
    assert errors == ["! undo: the end of a turn cannot be taken back once the Depot was "
                      "refilled from the deck: you have seen the cards drawn"] * 2, errors
    assert actions == plain  # the 'end' and the AI's turn are kept


@pytest.mark.parametrize("seats", [[HUMAN, "greedy"], [HUMAN, HUMAN]])
def test_undo_takes_back_a_build_before_the_end_of_the_turn(seats, tmp_path):
    # nothing was drawn from the deck since the build: it is taken back, at a hot-seat
    # table too
    seed, takes, build = depot_takes_and_a_build()
    actions, out = saved_actions(tmp_path, seats, seed, [*takes, build, "undo", "quit"])
    assert not [ln for ln in out if ln.startswith("! ")], out
    taken = [ln for ln in out if ln.startswith("taken back: ")]  # (with its payment)
    assert len(taken) == 1 and taken[0].startswith(f"taken back: {build}"), out
    assert taken[0].endswith(" (seat 0)") == (seats[1] == HUMAN), taken
    assert actions == takes


def test_hot_seat_undo_takes_back_the_last_move_whoever_made_it(tmp_path):
    first = new_game(2, seed=1).current
    other = 1 - first
    # (two deck draws: the 'end' refills no Depot, so it shows the next player no card)
    script = Script(["take deck", "take deck", "end", "", "undo", "", "undo", "quit"])
    out: list[str] = []
    save = tmp_path / "hs.json"
    play_game([HUMAN, HUMAN], seed=1, save=str(save), read=script, write=out.append)
    # the next player took back the 'end' of the one before: the keyboard goes back
    assert f"taken back: end (seat {first})" in out, out
    assert script.prompts[5] == f"seat {first} to play: pass the keyboard, then press Enter "
    assert script.prompts[6] == f"seat {first}> "
    assert "! undo: a card drawn from the deck cannot be taken back: you have seen it" in out
    assert GameRecord.load(save).actions == ["take deck", "take deck"]
    assert other != first


def test_hot_seat_undo_never_takes_back_an_end_whose_refill_another_seat_saw(tmp_path):
    # the next player saw the Depot refilled by the 'end' of the one before, then took
    # that 'end' back (and the Depot take before it): the cards went back to the deck,
    # known to them
    first = new_game(2, seed=1).current
    script = Script(["take deck", "1", "end", "", "undo", "undo", "quit"])
    out: list[str] = []
    save = tmp_path / "hs.json"
    play_game([HUMAN, HUMAN], seed=1, save=str(save), read=script, write=out.append)
    errors = [ln for ln in out if ln.startswith("! ")]
    assert errors == ["! undo: the end of a turn cannot be taken back once the Depot was "
                      "refilled from the deck: you have seen the cards drawn"] * 2, errors
    actions = GameRecord.load(save).actions
    assert len(actions) == 3 and actions[2] == "end", actions
    assert script.prompts[4] == f"seat {1 - first}> "  # asked by the next player


def random_game_step(found, what: str) -> tuple[GameRecord, list, int]:
    """The first step of the 2-player random games of seeds 0 to 199
    (``solver.cli.play_random_game``) at which ``found(steps, k)`` holds (``steps``: the
    (state before, action) of each action, the final state last): the game's record cut
    after that step's action, its steps and ``k``. The test fails naming ``what`` when no
    game has one."""
    from solver.cli import play_random_game

    for seed in range(200):
        full = play_random_game(2, seed)
        steps = list(full.states())
        k = next((k for k in range(len(steps) - 1) if found(steps, k)), None)
        if k is not None:
            return GameRecord(full.cards, 2, seed=seed, actions=full.actions[:k + 1]), steps, k
    pytest.fail(f"no {what} in 200 random games")


def test_undo_never_takes_back_a_claim_whose_refill_another_seat_saw():
    # a claim ends the turn and refills the Depot as 'end' does
    from solver.rules.actions import Claim
    from solver.terminal import Sight, UndoRefused, take_back

    def refilling_claim(steps, k):
        (before, action), after = steps[k], steps[k + 1][0]
        return (isinstance(action, Claim) and set(before.deck) - set(after.deck)
                and not after.is_over)

    record, steps, k = random_game_step(refilling_claim, "claim that refilled the Depot")
    (before, action), after = steps[k], steps[k + 1][0]
    mover, other = before.current, after.current
    seen = {other: Sight.of(after, other)}
    with pytest.raises(UndoRefused, match="^a claim cannot be taken back once the Depot was "
                       "refilled from the deck: you have seen the cards drawn$"):
        take_back(record, [mover, other], seen)
    assert len(record.actions) == k + 1  # left as it was
    # the mover's own sight of the refill is a reason too (the cards are known to it)
    with pytest.raises(UndoRefused, match="^a claim cannot be taken back once the Depot was "
                       f"refilled from the deck: seat {mover} has seen the cards drawn$"):
        take_back(record, [mover], {mover: Sight.of(after, mover)})
    # a misclicked claim whose refill nobody was shown is taken back
    state, taken = take_back(record, [mover, other], {mover: Sight.of(before, mover),
                                                       other: Sight.of(before, other)})
    assert taken == [(mover, action)] and len(record.actions) == k


def test_undo_never_takes_back_an_ai_claim_whose_landmark_the_human_saw():
    # the human's 'end', then the AI's turn ending in a claim that revealed a Landmark in
    # the row: the human's next table shows it, and taking the 'end' back (with the AI's
    # turn) put it back into the Landmark deck, known to the human
    from solver.rules.actions import Claim, End
    from solver.terminal import Sight, UndoRefused, take_back

    def last_turn_of(steps, k, human):
        return max((i for i in range(k) if steps[i][0].current == human), default=None)

    def ai_claim_after_an_end(steps, k):
        (before, action), after = steps[k], steps[k + 1][0]
        if not (k and isinstance(action, Claim) and not after.is_over
                and set(after.landmark_row) - set(before.landmark_row)):
            return False
        last = last_turn_of(steps, k, after.current)  # the human: before the AI and after
        return last is not None and isinstance(steps[last][1], End)

    record, steps, k = random_game_step(ai_claim_after_an_end,
                                        "AI claim that refilled the Landmark row after an 'end'")
    (before, _action), after = steps[k], steps[k + 1][0]
    human = after.current
    last = last_turn_of(steps, k, human)
    seen = {human: Sight(landmarks=set(after.landmark_row))}  # the row, and no card
    with pytest.raises(UndoRefused, match="^the end of a turn cannot be taken back with the "
                       "AI's moves after it: you have seen the Landmark they revealed$"):
        take_back(record, [human], seen)
    assert len(record.actions) == k + 1  # left as it was
    # the row before the AI's turn is no reason: the 'end' and the AI's turn go back
    shown_before = Sight(landmarks=set(before.landmark_row))
    state, taken = take_back(record, [human], {human: shown_before})
    assert [seat for seat, _ in taken] == [human] + [1 - human] * (k - last)
    assert len(record.actions) == last


def test_hot_seat_undo_never_takes_back_a_claim_whose_landmark_another_seat_saw(tmp_path):
    # a claim refills the Landmark row from the Landmark deck: the next player saw the
    # Landmark revealed, then took the claim back; the Landmark went back to the deck,
    # known to them (the Depot's refill was guarded, the Landmark row's was not)
    from solver.rules.actions import Claim

    def row_refill_only(steps, k):  # a claim that refilled the row, no card to the Depot
        (before, action), after = steps[k], steps[k + 1][0]
        return (isinstance(action, Claim) and not after.is_over
                and set(after.landmark_row) - set(before.landmark_row)
                and set(before.deck) == set(after.deck))

    record, steps, k = random_game_step(row_refill_only, "such claim")
    seed, played = record.seed, record.actions
    lines = []  # the game as typed at a hot-seat table, up to the claim
    for i, (before, _action) in enumerate(steps[:k + 1]):
        if i and before.current != steps[i - 1][0].current:
            lines.append("")  # Enter: the keyboard passed to the next player
        lines.append(played[i])
    script = Script([*lines, "", "undo", "undo", "quit"])
    out: list[str] = []
    save = tmp_path / "hs.json"
    play_game([HUMAN, HUMAN], seed=seed, save=str(save), read=script, write=out.append)
    errors = [ln for ln in out if ln.startswith("! ")]
    assert errors == ["! undo: a claim cannot be taken back once the Landmark row was "
                      "refilled from the Landmark deck: you have seen the Landmark "
                      "revealed"] * 2, errors
    actions = GameRecord.load(save).actions  # the claim is kept
    assert len(actions) == k + 1 and actions[-1] == played[k], actions
# ------------------------------------------------------------------ resume

def play_cli(argv, stdin, monkeypatch, capsys):
    """``bigsur play ARGV`` with ``stdin`` as the keyboard: (status, stdout, stderr)."""
    parser = argparse.ArgumentParser(prog="bigsur")
    add_cli(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(["play", *map(str, argv)])
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    status = args.func(args)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_resume_continues_a_saved_game_with_its_seats_seed_and_cards(tmp_path, monkeypatch,
                                                                     capsys):
    part, _ = saved_actions(tmp_path, [HUMAN, "greedy"], 2, ["take deck", "quit"], "p.json")
    status, out, err = play_cli(["--resume", tmp_path / "p.json"], "take deck\nend\nquit\n",
                                monkeypatch, capsys)
    assert status == 0, err
    assert f"resumed {tmp_path / 'p.json'} at action {len(part)}" in out
    resumed = GameRecord.load(tmp_path / "p.json")  # saved back where it came from
    assert resumed.names == [HUMAN, "greedy"] and resumed.seed == 2
    whole, _ = saved_actions(tmp_path, [HUMAN, "greedy"], 2,
                             ["take deck", "take deck", "end", "quit"], "w.json")
    assert resumed.actions == whole


def test_resume_refuses_a_finished_game(tmp_path, monkeypatch, capsys):
    done = tmp_path / "done.json"
    play_game([HUMAN, "random"], seed=4, save=str(done), read=Script(), write=lambda s: None)
    status, _out, err = play_cli(["--resume", done], "", monkeypatch, capsys)
    assert status == 2
    assert err.count("\n") == 1 and f"--resume {done}: the game is over" in err, err


@pytest.mark.parametrize("change, words", [
    (lambda raw: "{not json", "not valid JSON"),
    (lambda raw: {**raw, "actions": raw["actions"][:1] + ["build H99 L"]}, "actions[1]"),
    (lambda raw: {**raw, "players": 7}, "players: must be 2, 3 or 4"),
    (lambda raw: {**raw, "names": ["Alice", "greedy"]}, "seat 0: unknown bot 'Alice'"),
    (lambda raw: {**raw, "names": ["greedy", "random"]}, "at least one seat must be human"),
])
def test_resume_names_what_is_wrong_with_a_record(tmp_path, monkeypatch, capsys, change,
                                                  words):
    import json

    saved_actions(tmp_path, [HUMAN, "greedy"], 2, ["take deck", "quit"], "p.json")
    raw = change(json.loads((tmp_path / "p.json").read_text()))
    bad = tmp_path / "bad.json"
    bad.write_text(raw if isinstance(raw, str) else json.dumps(raw))
    status, _out, err = play_cli(["--resume", bad], "quit\n", monkeypatch, capsys)
    assert status == 2
    assert err.count("\n") == 1 and err.startswith(f"bigsur: error: --resume {bad}: ") \
        and words in err, err


def test_resume_takes_no_seed_or_cards_of_its_own(tmp_path, monkeypatch, capsys):
    saved_actions(tmp_path, [HUMAN, "greedy"], 2, ["take deck", "quit"], "p.json")
    for extra in (["--seed", "3"], ["--cards", "x.json"], ["--players", "3"]):
        status, _out, err = play_cli(["--resume", tmp_path / "p.json", *extra], "quit\n",
                                     monkeypatch, capsys)
        assert status == 2 and f"{extra[0]}: not with --resume" in err, err




def test_resume_with_seats_given_names_who_plays_from_then_on(tmp_path, monkeypatch, capsys):
    import json

    part, _ = saved_actions(tmp_path, [HUMAN, "greedy"], 2, ["take deck", "quit"], "p.json")
    raw = json.loads((tmp_path / "p.json").read_text())
    raw["names"] = ["Alice", "Bob"]  # names, not seats: --seats says who plays
    (tmp_path / "p.json").write_text(json.dumps(raw))
    status, _out, err = play_cli(["--resume", tmp_path / "p.json", "--seats", "human,greedy"],
                                 "quit\n", monkeypatch, capsys)
    assert status == 0, err
    after = len(part) + 1  # the first move played on, counted from 1 as reviews count
    assert GameRecord.load(tmp_path / "p.json").names == [
        f"Alice, then human from move {after}", f"Bob, then greedy from move {after}"]
    status, _out, err = play_cli(["--resume", tmp_path / "p.json", "--seats",
                                  "human,greedy,greedy"], "quit\n", monkeypatch, capsys)
    assert status == 2 and "a 2-player game, got 3 seats" in err, err


def test_a_seat_resumed_with_another_player_keeps_who_played_it_before(tmp_path, monkeypatch,
                                                                      capsys):
    from solver.report import seat_name

    part, _ = saved_actions(tmp_path, [HUMAN, "greedy"], 2, ["take deck", "quit"], "p.json")
    path = tmp_path / "p.json"
    status, _out, err = play_cli(["--resume", path, "--seats", "human,random"],
                                 "take deck\nquit\n", monkeypatch, capsys)
    assert status == 0, err
    changed = f"greedy, then random from move {len(part) + 1}"
    record = GameRecord.load(path)
    assert record.names == [HUMAN, changed]  # greedy made the moves before
    assert seat_name(record, 1) == f"Seat 1 ({changed})"  # as the review says the seat
    # resumed again as it is: the seat played now is the last one, its history kept
    status, out, err = play_cli(["--resume", path], "quit\n", monkeypatch, capsys)
    assert status == 0, err
    assert "Seat 1 · random" in out
    assert GameRecord.load(path).names == [HUMAN, changed]


# ------------------------------------------------------------------ small things

def test_hint_refuses_an_extra_word():
    # 'hint 5i extra' searched as 'hint 5i' and said nothing of 'extra'
    out: list[str] = []
    play_game([HUMAN, HUMAN], seed=1, read=Script(["hint 5i extra", "quit"]), write=out.append)
    errors = [ln for ln in out if ln.startswith("! ")]
    assert errors == ["! hint: unexpected 'extra' (hint [BUDGET], e.g. 'hint 2s')"], errors
    assert "Hint (" not in "\n".join(out)


def test_a_record_of_one_action_is_not_one_actions(tmp_path):
    _actions, out = saved_actions(tmp_path, [HUMAN, HUMAN], 1, ["take deck", "quit"])
    assert out[-1].endswith("(1 action)"), out[-1]


def test_a_hint_of_one_iteration_and_one_point_read_in_the_singular():
    from types import SimpleNamespace

    from solver.terminal import Screen, _hint_table

    move = SimpleNamespace(label="take deck", actions=["take deck"], line=[], visits=1,
                           win_probability=0.5, expected_margin=1.0)
    result = SimpleNamespace(stats={"iterations": 1, "seconds": 0.01}, moves=[move])
    out: list[str] = []
    Screen(out.append, color=False).show(_hint_table(result))
    assert "Hint (1 iteration," in out[0], out[0]


def test_a_hint_margin_near_zero_is_not_printed_minus_zero():
    from types import SimpleNamespace

    from solver.terminal import Screen, _hint_table

    move = SimpleNamespace(label="end", actions=["end"], line=[], visits=9,
                           win_probability=0.5, expected_margin=-0.04)
    result = SimpleNamespace(stats={"iterations": 9, "seconds": 0.01}, moves=[move])
    out: list[str] = []
    Screen(out.append, color=False).show(_hint_table(result))
    assert "+0.0" in out[0] and "-0.0" not in out[0], out[0]


def test_the_depot_wraps_in_a_narrow_terminal_instead_of_cutting_cards():
    # at 50 columns the Depot's cards were cut to 'H41 2…' / '♣for≈…'
    state = new_game(2, seed=1)
    out: list[str] = []
    play_game([HUMAN, "greedy"], seed=1, read=Script(["quit"]), write=out.append, width=50)
    lines = "\n".join(out).splitlines()
    start = next(i for i, ln in enumerate(lines) if ln.startswith("Depot"))
    end = next(i for i, ln in enumerate(lines) if ln.startswith("Landmarks"))
    depot = "\n".join(lines[start + 2:end])  # below the legend, which may wrap itself
    assert "…" not in depot, depot
    assert all(len(ln) <= 50 for ln in lines[start:])  # the table; the greeting is a line
    for c in state.depot:
        card = state.cards.highway[c]
        assert f"{card.id} {card.miles}mi" in depot, depot
    # wide, the Depot stays one row of cards
    wide: list[str] = []
    play_game([HUMAN, "greedy"], seed=1, read=Script(["quit"]), write=wide.append, width=120)
    row = next(ln for ln in "\n".join(wide).splitlines() if re.match(r"│H\d\d ", ln))
    assert len(re.findall(r"H\d\d \dmi", row)) == len(state.depot), row


def test_the_screen_reads_the_terminal_width_at_each_drawing():
    # the width was read once when the game started: a terminal narrowed during the game
    # cut the Depot's cards again
    from solver.terminal import Screen, render_rich

    state = new_game(2, seed=1)
    widths = iter([120, 50])
    out: list[str] = []
    screen = Screen(out.append, color=False, width=lambda: next(widths))
    screen.show(render_rich(state, 0))
    screen.show(render_rich(state, 0))
    assert max(map(len, out[0].splitlines())) > 50
    assert max(map(len, out[1].splitlines())) <= 50 and "…" not in out[1].split("Landmarks")[0]


def test_a_stretch_line_counts_the_miles_a_landmark_adds():
    # with L06 Julia Pfeiffer Burns (1 more mile) above H32 the lines read 5 and 10 pts,
    # the scorer counts 6 and 11: the panel's 'stretches 17' was not the lines' sum
    from solver.rules.scoring import score_player
    from solver.terminal import Screen, render, render_rich

    state = new_game(2, seed=11)
    cards, p = state.cards, state.players[0]
    p.highway = [cards.card(c) for c in "H68 H64 H32 H36 H13".split()]
    p.landmarks = [(cards.landmark("L06"), cards.card("H32"))]
    total = score_player(cards, p).stretches
    out: list[str] = []
    Screen(out.append, color=False).show(render_rich(state, 0))
    rich_pts = [int(n) for n in re.findall(r"Stretch (\d+) pts? ", out[0])]
    assert sorted(rich_pts) == [6, 11] and sum(rich_pts) == total, out[0]
    assert f"stretches {total} ·" in out[0]
    plain = [int(n) for n in re.findall(r"Stretch \w+: (\d+) mi", render(state, 0))]
    assert sorted(plain) == [6, 11]


def test_a_number_typed_says_the_move_it_played(tmp_path):
    # at the first prompt '0' (now '1') silently played 'take H14', the list never shown
    state = new_game(2, seed=1)
    depot = legal_actions(state)[0].card
    actions, out = saved_actions(tmp_path, [HUMAN, HUMAN], 1,
                                 ["1", "take deck", "moves", "1", "quit"])
    assert f"1: take {depot} from the Depot" in out, out
    build_or_end = actions[2]
    words = [ln for ln in out if ln.startswith("1: ")]
    assert len(words) == 2 and actions[:2] == [f"take {depot}", "take deck"], (words, actions)
    if build_or_end == "end":
        assert words[1] == "1: end the turn"
    else:
        card, side = build_or_end.split()[1:3]
        assert words[1] == f"1: build {card} at the {'left' if side == 'L' else 'right'} " \
            "end of your Highway", words


def test_move_numbers_count_from_1_as_the_hints_do(tmp_path):
    # 'moves' and a number typed counted from 0 while 'hint' and 'h N' count from 1
    state = new_game(2, seed=1)
    moves = legal_actions(state)
    actions, out = saved_actions(tmp_path, [HUMAN, HUMAN], 1,
                                 ["moves", "0", str(len(moves) + 1), str(len(moves)), "quit"])
    table = next(ln for ln in out if " take " in ln and "#" in ln)  # the moves table
    rows = [r for r in (ln.split() for ln in table.splitlines()) if r and r[0].isdigit()]
    assert [r[0] for r in rows] == [str(n) for n in range(1, len(moves) + 1)], table
    assert [r[1:3] for r in rows] == [m.notation().split()[:2] for m in moves], table
    errors = [ln for ln in out if ln.startswith("! ")]
    assert errors == [f"! no move number {n}; 'moves' lists {len(moves)} moves, numbered 1 "
                      f"to {len(moves)}" for n in (0, len(moves) + 1)], errors
    assert actions == [moves[-1].notation()]  # the last move's number played the last move


@pytest.mark.parametrize("typed", ["²", "9" * 5000, "h ²", "h " + "9" * 5000])
def test_a_number_python_cannot_read_is_refused_not_a_crash(typed, tmp_path):
    # '²' is a digit int() refuses and 5000 digits a number it will not read: both
    # raised ValueError out of the game
    actions, out = saved_actions(tmp_path, [HUMAN, HUMAN], 1,
                                 ["hint 5i", typed, "take deck", "quit"])
    errors = [ln for ln in out if ln.startswith("! ")]
    assert len(errors) == 1 and (errors[0].startswith("! h N: N is a hint number 1 to ")
                                 if typed.startswith("h ") else
                                 errors[0].startswith("! no move number ")), errors
    assert actions == ["take deck"]


def test_card_ids_and_deck_are_read_in_any_case_at_the_prompt(tmp_path):
    # 'take h43' gave "unknown Highway card 'h43'" and 'TAKE DECK' "unknown Highway card
    # 'DECK'", while the verbs were read in any case
    from solver.rules.actions import ActionError
    from solver.rules.engine import play

    state = new_game(2, seed=1)
    depot = legal_actions(state)[0].card
    actions, out = saved_actions(tmp_path, [HUMAN, HUMAN], 1,
                                 [f"take {depot.lower()}", "TAKE DECK", "quit"])
    assert actions == [f"take {depot}", "take deck"], out  # the record in the set's ids
    assert not [ln for ln in out if ln.startswith("! ")]
    with pytest.raises(ActionError):  # the library's notation stays strict
        play(state, f"take {depot.lower()}")
    # the ids of a build's payment and of a claim too
    from solver.terminal import typed_action

    typed = "build h12 r pay h03 sub:h01+h02+h04=steel per:h05 rec bh:1:h06 bd:1"
    assert typed_action(state.cards, typed) == \
        "build H12 R pay H03 sub:H01+H02+H04=steel per:H05 rec bh:1:H06 bd:1"
    assert typed_action(state.cards, "claim l06 h32") == "claim L06 H32"


def test_a_card_id_matching_several_ids_in_another_case_is_refused_with_them(tmp_path):
    # a card set may hold ids that differ only in case: then none is guessed
    import json

    from solver.rules.cards import load_card_set

    data = load_card_set().to_json()
    state = new_game(2, seed=1)
    depot = [state.cards.highway[c].id for c in state.depot]
    for card in data["highway"]:
        if card["id"] == depot[0]:
            card["id"] = "Hx"
        elif card["id"] == depot[1]:
            card["id"] = "hX"
    path = tmp_path / "cards.json"
    path.write_text(json.dumps(data))
    cards = load_card_set(str(path))
    out: list[str] = []
    play_game([HUMAN, HUMAN], seed=1, cards=cards, read=Script(["take HX", "take hx", "quit"]),
              write=out.append)
    errors = [ln for ln in out if ln.startswith("! ")]
    assert len(errors) == 2, errors
    assert all(re.search(r"did you mean (Hx or hX|hX or Hx)\?$", e) for e in errors), errors
    assert "unknown Highway card 'HX'" in errors[0]


def test_card_command_says_a_cards_bonus_and_a_landmarks_ability():
    # the table shows '★bonus' and claimed Landmarks by name only; the condition was in
    # 'bigsur cards show' alone, and 'help' named no way to see it
    from solver.terminal import HELP, prompt_candidates

    out: list[str] = []
    play_game([HUMAN, HUMAN], seed=1, read=Script(["card h41", "card L06", "card Q99",
                                                   "card", "quit"]), write=out.append)
    text = "\n".join(out)
    assert re.search(r"^H41 +2 .*1 point per 2 miles of your longest Stretch$", text, re.M), text
    assert "printed: 1 point per 2 miles of your longest Stretch (rounded down)." in text
    assert re.search(r"^L06 +Julia Pfeiffer Burns +forest +The card below counts", text, re.M)
    assert "! card: no card or Landmark 'Q99' in card set 'default'" in out
    assert "! card ID: one card or Landmark id, e.g. 'card H41', 'card L06'" in out
    assert "card ID" in HELP
    candidates = prompt_candidates(new_game(2, seed=1))
    assert "H41" in completions("card H4", 5, candidates)
    assert "card L06" in candidates
