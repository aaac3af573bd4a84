"""The rules library's public entry points meet a library user's common mistakes with
errors that say what to do instead (docs/rules.md, "Using the rules as a library")."""

from __future__ import annotations

import dataclasses
import json

import pytest

from solver.rules import (
    Build,
    Claim,
    End,
    GameState,
    IllegalActionError,
    Phase,
    ScoreBreakdown,
    Take,
    apply,
    final_scores,
    legal_actions,
    new_game,
    play,
    sample_states,
    score_player,
    state_to_json,
    view_of,
)


@pytest.fixture
def state():
    return play(new_game(3, seed=1), "take deck")


# ------------------------------------------------------------------ a view is not a state


@pytest.mark.parametrize("entry", [apply, play])
def test_apply_and_play_refuse_a_view_and_point_to_sample_states(state, entry):
    view = view_of(state, state.current)
    action = legal_actions(view)[0]
    with pytest.raises(TypeError, match=rf"{entry.__name__}: a PlayerView cannot be played "
                       r"forward.*hides.*unknown.*sample_states\(view, n\)"):
        entry(view, action)
    # what the message suggests works: a full state consistent with the view
    sampled = sample_states(view, 1, seed=2)[0]
    assert isinstance(entry(sampled, action), GameState)


def test_play_refuses_a_view_given_text(state):
    with pytest.raises(TypeError, match="PlayerView cannot be played forward"):
        play(view_of(state, state.current), "take deck")


@pytest.mark.parametrize("entry", [apply, play])
def test_apply_and_play_name_what_they_expected(entry):
    with pytest.raises(TypeError, match=rf"{entry.__name__}: expected a GameState, got dict"):
        entry({}, End())


# ------------------------------------------------------------------ text goes through play


def test_apply_given_text_points_to_play(state):
    state = play(state, "take deck")  # the build step: "end" is legal
    with pytest.raises(IllegalActionError, match=r"not an action: 'end': apply takes an "
                       r"Action.*for text such as 'end' use play\(state, 'end'\)"):
        apply(state, "end")
    assert play(state, "end").turn == state.turn + 1  # what the message suggests works
    with pytest.raises(IllegalActionError, match=r"not an action: 42: apply takes an Action"):
        apply(state, 42)


@pytest.mark.parametrize("action, unknown", [
    (Take("H99"), "Highway card 'H99'"),
    (Take(5), "Highway card 5"),
    (Build("H99", "L"), "Highway card 'H99'"),
    (Claim("L99", "H01"), "Landmark 'L99'"),
    (Claim("L01", "H99"), "Highway card 'H99'"),
], ids=["take", "take-number", "build", "claim-landmark", "claim-card"])
def test_apply_names_an_unknown_id_as_play_does(state, action, unknown):
    """apply (unchecked) looks ids up without checking them first; one the card set does
    not have is the IllegalActionError play raises, not a KeyError."""
    with pytest.raises(IllegalActionError, match=rf"illegal action '{action.notation()}' "
                       rf"for seat {state.current} .*: unknown {unknown} in card set"):
        apply(state, action)


def _misplaced_cases(state):
    """(state, action, where) of actions whose card or Landmark the set has but that is
    not where the action takes it from."""
    from solver.rules.payment import cheapest_payment

    cards = state.cards
    other = (state.current + 1) % state.num_players
    ids = cards.highway
    build = play(state, "take deck")  # the build step
    not_in_row = next(lm.id for i, lm in enumerate(cards.landmarks)
                      if i not in build.landmark_row)
    payable = next(c for c in build.deck if cheapest_payment(build, c) is not None)
    unpayable = next(c for c in build.deck if cheapest_payment(build, c) is None)
    return [
        (state, Take(ids[state.players[other].hand[0]].id), "the Depot"),  # another's hand
        (state, Take(ids[state.player.hand[0]].id), "the Depot"),          # one's own
        (state, Take(ids[state.deck[0]].id), "the Depot"),                 # in the deck
        # paid by the engine: a payment found for the card, and none found
        (build, Build(ids[payable].id, "L"), "your hand"),
        (build, Build(ids[unpayable].id, "R"), "your hand"),
        (build, Build(ids[build.players[other].hand[0]].id, "R", ()), "your hand"),  # own payment
        (build, Claim(not_in_row, ids[build.player.hand[0]].id), "the Landmark row"),
    ]


@pytest.mark.parametrize("case", range(7))
def test_apply_names_a_card_not_where_the_action_takes_it_as_play_does(state, case):
    """apply (unchecked) took a card out of its place with list.remove: a card of the set
    elsewhere (another hand, the deck) was Python's bare 'list.remove(x): x not in list'.
    It is play's IllegalActionError naming the card and where it was expected, and the
    state is left as it was."""
    from solver.rules.engine import apply_inplace

    at, action, where = _misplaced_cases(state)[case]
    name = action.landmark if isinstance(action, Claim) else action.card
    with pytest.raises(IllegalActionError) as err:
        apply(at, action)
    assert str(err.value).startswith(f"illegal action '{action.notation()}' for seat "
                                     f"{at.current} "), err.value
    assert f": {name} is not in {where}" in str(err.value), err.value
    with pytest.raises(IllegalActionError) as checked:
        play(at, action)
    assert str(checked.value) == str(err.value)  # in play's words
    copy = at.copy()
    with pytest.raises(IllegalActionError):
        apply_inplace(copy, action)
    assert copy == at  # refused before anything changed


# ------------------------------------------------------------------ a finished game


@pytest.fixture(scope="module")
def finished():
    state = new_game(2, seed=3)
    while not state.is_over:
        state = play(state, legal_actions(state)[0])
    return state


def _after_the_end(state):
    """An action of every kind (its cards anywhere: no action is legal any more)."""
    card = state.cards.highway[0].id
    return [Take(), Take(card), Build(card, "R"), Claim(state.cards.landmarks[0].id, card),
            End()]


@pytest.mark.parametrize("kind", range(5), ids=["deck", "depot", "build", "claim", "end"])
def test_apply_refuses_any_action_once_the_game_is_over_as_play_does(finished, kind):
    """apply(finished, Take()) was an IndexError (pop from empty list) and
    apply(finished, End()) played a turn 21 the game does not have. apply refuses it in
    play's words and leaves the state as it was."""
    action = _after_the_end(finished)[kind]
    before = state_to_json(finished)
    with pytest.raises(IllegalActionError) as err:
        apply(finished, action)
    with pytest.raises(IllegalActionError) as checked:
        play(finished, action)
    assert str(err.value) == str(checked.value)
    assert "the game is over" in str(err.value), err.value
    assert state_to_json(finished) == before


def test_the_game_over_names_the_turns_played_not_a_turn_after_them(finished):
    """A finished 2-player game said "(turn 21, over step): the game is over": it has 20
    turns. It says how many were played; a game under way still numbers its turns
    from 1."""
    with pytest.raises(IllegalActionError) as err:
        play(finished, "end")
    assert str(err.value) == (f"illegal action 'end': the game is over (after "
                              f"{finished.turn} turns)")
    assert f"turn {finished.turn + 1}" not in str(err.value)
    start = new_game(2, seed=3)
    with pytest.raises(IllegalActionError, match=rf"^illegal action 'end' for seat "
                       rf"{start.current} \(turn 1, take step\): first take 2 more"):
        play(start, "end")


# ------------------------------------------------------------------ score_player's arguments


@pytest.mark.parametrize("args", [
    lambda st: (st, 0),                       # a state and a seat
    lambda st: (st.cards, 0),                 # a seat for the player
    lambda st: (st.players[0], st.cards),     # the two swapped
    lambda st: (st, st.players[0]),           # the state for its cards
    lambda st: ([], st.players[0]),
], ids=["state-seat", "cards-seat", "swapped", "state-player", "list-player"])
def test_score_player_names_the_arguments_it_expects(state, args):
    cards, player = args(state)
    with pytest.raises(TypeError, match=r"score_player\(cards, player\): expected a CardSet "
                       r"and a PlayerState.*state\.cards, state\.players\[seat\].*, got "
                       + type(cards).__name__ + " and " + type(player).__name__):
        score_player(cards, player)


def test_score_player_takes_a_seat_of_a_state_or_a_view(state):
    while state.turn < 15:  # Highways with something to score
        state = play(state, legal_actions(state)[0])
    assert any(score_player(state.cards, p).total for p in state.players)
    view = view_of(state, 1)
    assert score_player(state.cards, state.players[1]) == score_player(view.cards, view.me)
    # an opponent in a view has the Highway and Landmarks scoring reads
    assert score_player(view.cards, view.others[2]) == score_player(state.cards,
                                                                    state.players[2])


# ------------------------------------------------------------------ a score prints its total


def test_a_score_breakdown_prints_its_total():
    score = ScoreBreakdown(stretches=19, bonuses=7, landmark_count=3, landmark_abilities=2)
    assert str(score) == ("31 points: stretches 19, 2-Mile bonuses 7, Landmark count 3, "
                          "Landmark abilities 2")
    assert f"{score}" == str(score) and str(ScoreBreakdown()).startswith("0 points: ")
    # the dataclass stays as it was: fields, equality
    assert [f.name for f in dataclasses.fields(score)] == [
        "stretches", "bonuses", "landmark_count", "landmark_abilities", "details"]
    assert score == ScoreBreakdown(19, 7, 3, 2) and score != ScoreBreakdown(19, 7, 3, 1)


def test_a_score_breakdowns_repr_starts_with_its_total_and_pastes_back(state):
    # the repr had every category but not the total, what a library user looks for first
    score = ScoreBreakdown(stretches=19, bonuses=7, landmark_count=3, landmark_abilities=2)
    assert repr(score) == ("ScoreBreakdown(total=31, stretches=19, bonuses=7, "
                           "landmark_count=3, landmark_abilities=2, details=[])")
    while not state.is_over:  # a real one, with its detail lines
        state = play(state, legal_actions(state)[0])
    for score in final_scores(state).scores:
        assert repr(score).startswith(f"ScoreBreakdown(total={score.total}, ")
        assert eval(repr(score)) == score  # as a python-chess value's repr
        assert dataclasses.replace(score, bonuses=score.bonuses + 1).total == score.total + 1
    with pytest.raises(ValueError, match=r"^total: 30 is not the sum of the categories, 31$"):
        ScoreBreakdown(total=30, stretches=19, bonuses=7, landmark_count=3,
                       landmark_abilities=2)


# ------------------------------------------------------------------ a phase prints its name


def test_a_phase_prints_its_name_and_stays_an_int(state):
    assert f"{state.phase}" == str(state.phase) == "take"
    assert [str(p) for p in Phase] == ["take", "build", "over"]  # the words of the JSON
    assert f"{Phase.BUILD:>7}|{Phase.OVER:<5}|" == "  build|over |"
    assert f"{Phase.OVER:d} {Phase.BUILD:02d}" == "2 01"
    assert repr(Phase.TAKE) == "<Phase.TAKE: 0>"
    # the value is the int it was: comparisons, hashing, JSON numbers
    assert Phase.TAKE == 0 and Phase.OVER > Phase.BUILD and int(Phase.BUILD) == 1
    assert {0: "a"}[Phase.TAKE] == "a" and hash(Phase.OVER) == hash(2)
    assert json.dumps({"phase": Phase.BUILD}) == '{"phase": 1}'
    assert state_to_json(state)["phase"] == "take"


# ------------------------------------------------------------------ typed package


def test_the_package_ships_its_py_typed_marker():
    """PEP 561: type checkers read the library's annotations only with a ``py.typed``
    marker in the installed package; pyproject.toml ships it as package data."""
    import tomllib
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    assert (root / "solver" / "py.typed").is_file()
    project = tomllib.loads((root / "pyproject.toml").read_text(encoding="utf-8"))
    assert "py.typed" in project["tool"]["setuptools"]["package-data"]["solver"]


# ------------------------------------------------------------------ what is saved loads


@pytest.mark.parametrize("kwargs, words", [
    ({"players": 2, "seed": "x"}, "seed: must be an integer, got 'x'"),
    ({"players": 5, "seed": 1}, "players: must be 2, 3 or 4, got 5"),
    ({"players": 2, "seed": 1, "names": ["a"]}, "names: must be a list of 2 strings"),
])
def test_a_record_started_with_bad_fields_is_refused_not_saved_unreadable(kwargs, words,
                                                                          tmp_path):
    """GameRecord.start(players=2, seed="x").save(...) wrote a record that
    GameRecord.load refused ('seed: must be an integer'); start checks as load does."""
    from solver.rules.record import GameRecord, RecordError

    with pytest.raises(RecordError, match=words):
        GameRecord.start(**kwargs)
    good = GameRecord.start(2, 7, names=["a", "b"])
    good.save(tmp_path / "r.json")
    assert GameRecord.load(tmp_path / "r.json").seed == 7


@pytest.mark.parametrize("seed", ["x", 1.5, True])
def test_new_game_takes_an_integer_seed(seed):
    """new_game(2, seed="x") or seed=1.5 dealt a game (random.Random takes both): a record
    of it could not be written. A numpy integer deals as the same int does."""
    import numpy as np

    from solver.rules.engine import SetupError

    with pytest.raises(SetupError, match=f"seed: must be an integer or None, got {seed!r}"):
        new_game(2, seed=seed)
    assert new_game(2, seed=np.int64(3)).players[0].hand == new_game(2, seed=3).players[0].hand


def test_view_of_and_view_to_json_name_what_they_were_given():
    """view_to_json(state) and view_of(None, 0) failed with an AttributeError from inside
    ('GameState' object has no attribute 'seat'); each names what it takes."""
    from solver.rules.views import view_of, view_to_json

    state = new_game(2, seed=1)
    with pytest.raises(TypeError, match="view_to_json: expected a PlayerView .*got a "
                       "GameState: state_to_json writes a full state"):
        view_to_json(state)
    with pytest.raises(TypeError, match="view_of: expected a GameState .*got NoneType"):
        view_of(None, 0)
    with pytest.raises(TypeError, match="got a PlayerView: it is a view already"):
        view_of(view_of(state, 0), 0)
    assert view_to_json(view_of(state, 0))["format"] == "bigsur-view/1"


def test_a_view_says_whether_the_game_is_over_as_a_state_does():
    """A bot looping on views had only view.phase == Phase.OVER: GameState.is_over had
    no view counterpart. view.is_over says it for every seat at every step; it is read
    only and no field of the view (its JSON is unchanged)."""
    from solver.rules.views import view_from_json, view_to_json

    state = new_game(2, seed=3)
    seen = set()
    while True:
        for seat in range(state.num_players):
            view = view_of(state, seat)
            assert view.is_over is state.is_over
            seen.add(view.is_over)
        if state.is_over:
            break
        state = play(state, legal_actions(state)[0])
    assert seen == {False, True}
    assert view_from_json(view_to_json(view)).is_over
    assert "is_over" not in {f.name for f in dataclasses.fields(view)}
    with pytest.raises(AttributeError):
        view.is_over = False


def test_state_to_json_and_check_state_name_what_they_were_given():
    """state_to_json(view), check_state(view) and check_state(None) failed with an
    AttributeError from inside ('PlayerView' object has no attribute 'deck'); each names
    what it takes, as view_to_json does for a full state, and points a view to its own
    functions."""
    from solver.rules import check_state, view_from_json, view_to_json

    state = new_game(2, seed=1)
    view = view_of(state, 0)
    with pytest.raises(TypeError, match=r"state_to_json: expected a GameState \(a full "
                       r"state\), got a PlayerView: view_to_json writes a view"):
        state_to_json(view)
    with pytest.raises(TypeError, match=r"check_state: expected a GameState \(a full "
                       r"state\), got a PlayerView: .*view_from_json\(view_to_json\(view\)\)"):
        check_state(view)
    with pytest.raises(TypeError, match=r"check_state: expected a GameState \(a full "
                       r"state\), got NoneType"):
        check_state(None)
    # what the messages point to works, and a full state still passes
    assert view_from_json(view_to_json(view)) == view
    check_state(state)
    assert state_to_json(state)["format"] == "bigsur-position/1"


def test_apply_reports_a_faulty_payment_as_itself_not_as_a_misplaced_card(state,
                                                                         monkeypatch):
    """A payment that fails after the built card left the hand (a planner's fault, not the
    player's) is raised as it is: apply relabelled it "H.. is not in your hand", the card
    being in the hand."""
    import solver.rules.engine as engine
    from solver.rules.actions import Discard

    build = play(state, "take deck")
    card = build.player.hand[0]
    elsewhere = next(c for c in build.deck)
    monkeypatch.setattr(engine, "cheapest_payment",
                        lambda _state, _card: (Discard(build.cards.highway[elsewhere].id),))
    with pytest.raises(ValueError) as err:
        engine.apply_inplace(build.copy(), Build(build.cards.highway[card].id, "R"))
    assert "is not in your hand" not in str(err.value), err.value
