"""OpenSpiel interop (issue 7): ``python_big_sur`` passes OpenSpiel's own conformance
test, follows our engine exactly, resamples states that share the information state,
and OpenSpiel's Python bots can play it. Skipped only when OpenSpiel is not installed
(the ``[openspiel]`` extra)."""

from __future__ import annotations

import json
import random

import pytest

pytest.importorskip("pyspiel")
pytest.importorskip("open_spiel.python.algorithms.ismcts")

import numpy as np  # noqa: E402
import pyspiel  # noqa: E402
from open_spiel.python.algorithms import ismcts, mcts  # noqa: E402

from solver import openspiel as so  # noqa: E402
from solver.rules.actions import Build, Claim, End, Take  # noqa: E402
from solver.rules.engine import apply, legal_actions, new_game  # noqa: E402
from solver.rules.scoring import final_scores  # noqa: E402
from solver.rules.state import GameState  # noqa: E402
from solver.rules.views import view_of  # noqa: E402
from solver.search.tournament import GameTask, play_game  # noqa: E402


def load(players: int = 2):
    return pyspiel.load_game(so.GAME_NAME, {"players": players})


def random_walk(game, seed: int, stop_at: int | None = None):
    """Play uniformly random chance outcomes and actions; yield every state visited."""
    rng = random.Random(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        yield state
        if stop_at is not None and state.move_number() >= stop_at:
            return
        if state.is_chance_node():
            codes, probs = zip(*state.chance_outcomes(), strict=True)
            assert abs(sum(probs) - 1.0) < 1e-9
            state.apply_action(rng.choice(codes))
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    yield state


def walk_to(game, seed: int, moves: int):
    """The state after ``moves`` random steps (or the end) of :func:`random_walk`."""
    state = None
    for state in random_walk(game, seed, stop_at=moves):  # noqa: B007
        pass
    return state


# ------------------------------------------------------------------ conformance

@pytest.mark.parametrize("players", [2, 3, 4])
def test_openspiel_random_sim_test(players):
    game = load(players)
    assert game.num_players() == players
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


@pytest.mark.parametrize("players", [2, 4])
def test_openspiel_random_sim_test_with_another_card_set(players, small):
    game = so.game_for(small, players)
    assert game.get_parameters()["cards"] == f"set:{small.fingerprint}"
    assert game.num_distinct_actions() == 3 * 29 + 2 + 8 * 29
    pyspiel.random_sim_test(game, num_sims=3, serialize=True, verbose=False)


def test_game_description():
    game = load()
    gtype = game.get_type()
    assert gtype.short_name == "python_big_sur"
    assert gtype.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert gtype.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert gtype.reward_model == pyspiel.GameType.RewardModel.TERMINAL
    assert (gtype.min_num_players, gtype.max_num_players) == (2, 4)
    h, lm = len(game.cards.highway), len(game.cards.landmarks)
    assert game.num_distinct_actions() == 3 * h + 2 + lm * h
    assert game.max_chance_outcomes() == h + lm + 4
    assert game.information_state_tensor_size() == game.observation_tensor_size() > 0


@pytest.mark.parametrize("params, field", [({"players": 5}, "players"),
                                            ({"players": 1}, "players"),
                                            ({"cards": "set:0000"}, "cards"),
                                            ({"cards": "/no/such/cards.json"}, "cards")])
def test_bad_parameters_are_named(params, field):
    with pytest.raises(so.OpenSpielParamError, match=field):
        so.BigSurGame(params)


def test_utilities_are_zero_sum_win_shares():
    assert so.utilities(2, (0,)) == [1.0, -1.0]
    assert so.utilities(2, (0, 1)) == [0.0, 0.0]
    assert so.utilities(4, (2,)) == pytest.approx([-1 / 3, -1 / 3, 1.0, -1 / 3])
    assert so.utilities(4, (0, 3)) == pytest.approx([1 / 3, -1 / 3, -1 / 3, 1 / 3])
    assert so.utilities(3, (0, 1, 2)) == pytest.approx([0.0, 0.0, 0.0])
    for n in (2, 3, 4):
        for winners in ((0,), (0, 1), tuple(range(n))):
            assert sum(so.utilities(n, winners)) == pytest.approx(0.0)


# ------------------------------------------------------------------ actions

def test_action_codes_round_trip_and_match_the_engine():
    game = load(3)
    codec = game.codec
    seen_decisions = 0
    for seed in range(3):
        for state in random_walk(game, seed):
            if state.is_terminal() or state.is_chance_node():
                continue
            seen_decisions += 1
            codes = state.legal_actions()
            assert codes == sorted(codes)
            actions = legal_actions(state.engine_state)
            assert sorted(codec.encode(a) for a in actions) == codes
            strings = [state.action_to_string(state.current_player(), c) for c in codes]
            assert len(set(strings)) == len(strings)
            for code, text in zip(codes, strings, strict=True):
                action = codec.decode(code)
                assert action.notation() == text
                assert codec.encode(action) == code
                assert state.string_to_action(text) == code
    assert seen_decisions > 100


def test_action_code_errors_name_the_action():
    codec = load().codec
    with pytest.raises(so.ActionCodeError, match="H99"):
        codec.encode(Take("H99"))
    with pytest.raises(so.ActionCodeError, match="action id"):
        codec.decode(codec.num_actions)
    with pytest.raises(so.ActionCodeError, match="pay"):
        codec.encode(so.Action.parse("build H01 L pay H02 H03"))


# ------------------------------------------------------------------ same game as ours

def _expected_outcomes(es: GameState, action, codec) -> list[int]:
    """The chance outcomes that make the adapter draw what the engine draws after
    ``action`` in ``es`` (the deck's top is last)."""
    if type(action) is Take and action.card is None:
        return [es.deck[-1]]
    if type(action) in (End, Claim):
        out = []
        if type(action) is Claim and es.landmark_deck:
            out.append(codec.landmark0 + es.landmark_deck[-1])
        refill = min(5 - len(es.depot), len(es.deck))
        out.extend(es.deck[-1 - i] for i in range(refill))
        return out
    return []


def _same(a: GameState, b: GameState) -> None:
    """Equal states, except the order of the hidden deck and Landmark deck (every draw
    is a chance outcome in the adapter, so their order carries nothing)."""
    a, b = a.copy(), b.copy()
    for s in (a, b):
        s.deck.sort()
        s.landmark_deck.sort()
    assert a == b


@pytest.mark.parametrize("players, seed, small_set", [(2, 11, False), (3, 12, False),
                                                       (4, 13, False), (2, 14, True),
                                                       (4, 15, True)])
def test_adapter_follows_the_engine_exactly(players, seed, small_set, request):
    """Chance outcomes chosen as new_game(seed) deals them and random actions: after
    every action the adapter's state is the engine's, and the returns match the winners.
    The small set has 8 Landmarks and 2-3 turns per player."""
    game = so.game_for(request.getfixturevalue("small"), players) if small_set else load(players)
    codec = game.codec
    es = new_game(players, seed, game.cards)
    state = game.new_initial_state()
    deal = [c for p in es.players for c in p.hand] + list(es.depot)
    deal += [codec.landmark0 + j for j in es.landmark_row] + [codec.first0 + es.first_player]
    for code in deal:
        assert state.is_chance_node()
        assert code in dict(state.chance_outcomes())
        state.apply_action(code)
    _same(state.engine_state, es)
    rng = random.Random(seed)
    claims = 0
    while not state.is_terminal():
        assert state.current_player() == es.current
        codes = state.legal_actions()  # random, but keen to build and claim
        claim_codes = [c for c in codes if codec.claim0 <= c < codec.end]
        build_codes = [c for c in codes if codec.build0 <= c < codec.claim0]
        for keen in (claim_codes, build_codes):
            if keen and rng.random() < 0.8:
                codes = keen
                break
        code = rng.choice(codes)
        action = codec.decode(code)
        claims += type(action) is Claim
        outcomes = _expected_outcomes(es, action, codec)
        es = apply(es, action)
        state.apply_action(code)
        for out in outcomes:
            assert state.is_chance_node()
            assert out in dict(state.chance_outcomes())
            state.apply_action(out)
        assert not state.is_chance_node()
        _same(state.engine_state, es)
    assert es.is_over
    assert claims > 0 or small_set  # the Landmark-row refill was exercised too
    assert state.returns() == so.utilities(players, final_scores(es).winners)


def _claim_position(seed: int = 4) -> GameState:
    """An engine state of a 2-player game where a claim is legal (build-keen random play)."""
    rng = random.Random(seed)
    es = new_game(2, seed)
    while not any(type(a) is Claim for a in legal_actions(es)):
        actions = legal_actions(es)
        builds = [a for a in actions if type(a) is Build]
        es = apply(es, rng.choice(builds if builds and rng.random() < 0.8 else actions))
        assert not es.is_over, "no claim in this game: pick another seed"
    return es


def test_pending_claim_shows_the_next_landmark_and_resamples_keep_it():
    es = _claim_position()
    game = load(2)
    state = so.state_from_engine(game, es)
    claim = next(a for a in legal_actions(es) if type(a) is Claim)
    state.apply_action(game.codec.encode(claim))
    outcomes = [code for code, _p in state.chance_outcomes()]
    assert outcomes == sorted(game.codec.landmark0 + j for j in es.landmark_deck)
    state.apply_action(outcomes[-1])
    nxt = game.cards.landmarks[outcomes[-1] - game.codec.landmark0].id
    for p in range(2):
        key = state.information_state_string(p)
        assert f"next Landmark {nxt}" in key
        for k in range(3):
            r = state.resample_from_infostate(p, random.Random(k).random)
            assert r.information_state_string(p) == key
            assert r.engine_state.landmark_deck[-1] == outcomes[-1] - game.codec.landmark0
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    assert state.engine_state.landmark_row[-1] == outcomes[-1] - game.codec.landmark0


def test_claim_with_an_empty_landmark_deck_draws_only_the_depot_refill():
    es = _claim_position()
    es.landmark_deck.clear()  # as if every Landmark had been claimed or shown
    game = load(2)
    state = so.state_from_engine(game, es)
    claim = next(a for a in legal_actions(es) if type(a) is Claim)
    refill = min(5 - len(es.depot), len(es.deck))
    state.apply_action(game.codec.encode(claim))
    for _ in range(refill):
        assert state.is_chance_node()
        assert all(code < game.codec.landmark0 for code, _p in state.chance_outcomes())
        state.apply_action(state.chance_outcomes()[0][0])
    assert not state.is_chance_node()
    gs = state.engine_state
    assert len(gs.landmark_row) == len(es.landmark_row) - 1 and len(gs.depot) == 5
    assert gs.players[es.current].landmarks[-1] == (
        es.cards.landmark(claim.landmark), es.cards.card(claim.card))


# ------------------------------------------------------------------ information state

@pytest.mark.parametrize("players", [2, 3, 4])
def test_resampled_states_share_the_information_state(players):
    game = load(players)
    checked = differ = 0
    for state in random_walk(game, 100 + players):
        if state.is_terminal() or state.move_number() % 7:
            continue
        sampler = random.Random(state.move_number()).random
        for p in range(players):
            key = state.information_state_string(p)
            tensor = state.information_state_tensor(p)
            for _ in range(3):
                r = state.resample_from_infostate(p, sampler)
                assert r.information_state_string(p) == key
                assert r.observation_string(p) == state.observation_string(p)
                assert r.information_state_tensor(p) == tensor
                assert r.current_player() == state.current_player()
                if state.is_chance_node():  # which cards are hidden in the deck varies
                    assert len(r.chance_outcomes()) == len(state.chance_outcomes())
                elif p == state.current_player():
                    assert r.legal_actions() == state.legal_actions()
                checked += 1
                differ += str(r) != str(state)
    assert checked > 100
    assert differ > checked // 2  # the hidden cards really are redrawn


def test_resampled_states_play_on_to_the_end():
    game = load(2)
    state = walk_to(game, 5, 70)
    rng = random.Random(3)
    for k in range(5):
        r = state.resample_from_infostate(k % 2, rng.random)
        while not r.is_terminal():
            if r.is_chance_node():
                r.apply_action(rng.choice([c for c, _p in r.chance_outcomes()]))
            else:
                r.apply_action(rng.choice(r.legal_actions()))
        assert sorted(r.returns()) in ([-1.0, 1.0], [0.0, 0.0])


def test_information_string_hides_other_hands_and_public_observer_is_shared():
    game = load(3)
    state = walk_to(game, 8, 90)
    gs = state.engine_state
    hid = [c.id for c in gs.cards.highway]
    for p in range(3):
        text = state.information_state_string(p)
        for q in range(3):
            unknown = [hid[c] for c in gs.players[q].hand if c not in gs.players[q].known_hand]
            for card in unknown:
                assert (card in text) == (q == p), (p, q, card)
    public = pyspiel.IIGObservationType(perfect_recall=False, public_info=True,
                                        private_info=pyspiel.PrivateInfoType.NONE)
    from open_spiel.python.observation import make_observation

    obs = make_observation(game, public)
    strings = {obs.string_from(state, p) for p in range(3)}
    assert len(strings) == 1
    tensors = set()
    for p in range(3):
        obs.set_from(state, p)
        tensors.add(obs.tensor.tobytes())
    assert len(tensors) == 1


def test_serialize_round_trip_of_a_resampled_state():
    game = load(2)
    state = walk_to(game, 21, 50)
    r = state.resample_from_infostate(0, random.Random(1).random)
    back = game.deserialize_state(r.serialize())
    assert str(back) == str(r)
    assert back.information_state_string(1) == r.information_state_string(1)


def test_state_from_engine_checks_the_game():
    with pytest.raises(so.OpenSpielParamError, match="players"):
        so.state_from_engine(load(2), new_game(3, 0))
    state = so.state_from_engine(load(2), new_game(2, 4))
    es = new_game(2, 4)
    assert state.current_player() == es.current
    assert state.legal_actions() == sorted(load(2).codec.encode(a) for a in legal_actions(es))


# ------------------------------------------------------------------ OpenSpiel's bots

def _mid_game(players: int = 2, seed: int = 3, moves: int = 80):
    game = load(players)
    state = walk_to(game, seed, moves)
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    return game, state


def test_openspiel_python_ismcts_bot_plays_with_its_own_sampler():
    """Unmodified Python ISMCTSBot: its own resampling call and its assertion that every
    sample has the root's information state."""
    game, state = _mid_game()
    rs = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), 2.0, max_simulations=8,
                           random_state=rs)
    action = bot.step(state)
    assert action in state.legal_actions()


def test_openspiel_python_mcts_bot_on_a_determinization():
    game, state = _mid_game()
    sample = state.resample_from_infostate(state.current_player(), random.Random(2).random)
    rs = np.random.RandomState(0)
    bot = mcts.MCTSBot(game, 2.0, 8, mcts.RandomRolloutEvaluator(1, rs), solve=False,
                       random_state=rs)
    assert bot.step(sample) in state.legal_actions()


def test_budgeted_searches_are_reproducible_and_count_simulations():
    _game, state = _mid_game(seed=9)
    for kind in ("ismcts", "mcts"):
        a1, n1 = so.os_search(kind, state.clone(), seed=5, simulations=6)
        a2, n2 = so.os_search(kind, state.clone(), seed=5, simulations=6)
        assert (a1, n1) == (a2, n2)
        assert n1 == 6
        assert a1 in state.legal_actions()
        _a, timed = so.os_search(kind, state.clone(), seed=5, seconds=0.05)
        assert timed >= 2
        # out of time at once: still the two simulations needed to choose a tried move
        tiny, timed = so.os_search(kind, state.clone(), seed=5, seconds=1e-9)
        assert timed == 2 and tiny in state.legal_actions()
    with pytest.raises(so.OpenSpielParamError, match="kind"):
        so.os_search("alphazero", state, seed=0, simulations=2)


def test_openspiel_bots_play_a_checked_game_through_our_protocol(monkeypatch):
    """Both OpenSpiel bots behind our Bot protocol, in the tournament's checked game loop
    (illegal actions or crashes would be reported as the game's error)."""
    from solver.search import bots
    from solver.search.bots import BotSpecError, make_bot

    monkeypatch.setattr(bots, "BOT_FACTORIES", dict(bots.BOT_FACTORIES))  # undone after
    so.register_bots()

    with pytest.raises(BotSpecError, match="os-ismcts"):
        make_bot("os-ismcts:fast")
    result = play_game(GameTask(0, 77, 0, ("os-ismcts:4i", "os-mcts:4i"), "default"))
    assert result.error is None
    assert result.scores is not None and len(result.scores) == 2
    bot = make_bot("os-ismcts:4i")
    es = new_game(2, 5)
    action = bot.act(view_of(es, es.current), seed=1)
    assert action in legal_actions(es)


# ------------------------------------------------------------------ misuse and tensors

def test_illegal_action_ids_raise_and_leave_the_state_unchanged():
    """An id that is not legal now (or a chance outcome not offered) raises a named
    error before anything changes (it used to be applied: "end" in the take step ended
    the turn, a bad deal step was half applied)."""
    from solver.rules.actions import IllegalActionError

    game = load(2)
    state = game.new_initial_state()
    before = str(state)
    with pytest.raises(IllegalActionError, match="chance outcome .*draw L03"):
        state.apply_action(game.codec.landmark0 + 2)  # a Landmark while hands are dealt
    assert str(state) == before and state.history() == []
    state = walk_to(game, 3, 40)
    while state.is_chance_node():
        state.apply_action(state.chance_outcomes()[0][0])
    before, history = str(state), state.history()
    legal = state.legal_actions()
    for code in (game.codec.end, next(c for c in range(game.codec.h) if c not in legal)):
        if code in legal:
            continue
        with pytest.raises(IllegalActionError, match=f"action id {code} .*legal: "):
            state.apply_action(code)
        assert str(state) == before and state.history() == history
    with pytest.raises(so.ActionCodeError, match="action id"):
        state.apply_action(game.num_distinct_actions())
    state.apply_action(legal[0])  # still playable
    assert state.history() == history + [legal[0]]


def test_an_action_id_after_the_end_says_the_game_is_over_naming_no_turn():
    """After a 2-player game's 20 turns no seat is to act and turn 21 does not exist: an
    action id then says the game is over, as the engine does, and changes nothing."""
    from solver.rules.actions import IllegalActionError

    game = load(2)
    state = walk_to(game, 3, 10_000)
    assert state.is_terminal()
    before = str(state)
    with pytest.raises(IllegalActionError, match=r"not legal: the game is over \(after 20 "
                       r"turns\)") as refused:
        state.apply_action(game.codec.end)
    assert "seat" not in str(refused.value) and "turn 21" not in str(refused.value)
    assert str(state) == before


def test_information_tensor_tells_highway_order_landmark_places_and_borrow_uses():
    """Views that differ only in the order of a Highway, in which card a Landmark sits
    above, or in the per-turn Landmark borrowing used have different tensors (the
    strings always differed; the order decides the Stretches)."""
    game = load(2)
    gs = new_game(2, seed=4)
    p = gs.players[1]
    p.highway = p.hand[:] + [gs.deck.pop() for _ in range(3)]  # 5 cards, order known
    p.hand = []
    variants = [gs.copy() for _ in range(4)]
    hw = variants[1].players[1].highway
    hw[1], hw[2] = hw[2], hw[1]  # same cards, same ends, another order
    variants[2].players[1].landmarks = [(0, p.highway[1]), (1, p.highway[3])]
    variants[3].players[1].landmarks = [(0, p.highway[3]), (1, p.highway[1])]
    bh = gs.copy()
    bh.resource_uses = {"borrow_highway": 1}
    variants.append(bh)
    for viewer in (0, 1):
        strings = {so.state_from_engine(game, v).information_state_string(viewer)
                   for v in variants}
        tensors = {np.asarray(so.state_from_engine(game, v).information_state_tensor(viewer),
                              np.float32).tobytes() for v in variants}
        assert len(strings) == len(tensors) == len(variants), viewer


def test_bigsur_tournament_knows_the_openspiel_bots(tmp_path, capsys, monkeypatch):
    """``os-ismcts`` / ``os-mcts`` were library specs only (``register_bots()``): the
    command line said "unknown bot". Its worker processes register them too."""
    from solver.cli import main
    from solver.search import bots

    monkeypatch.setattr(bots, "BOT_FACTORIES", dict(bots.BOT_FACTORIES))  # undone after

    code = main(["tournament", "--bots", "os-mcts:3i,random", "--games", "2", "--workers",
                 "1", "--quiet", "--out", str(tmp_path / "t")])
    out = capsys.readouterr()
    assert code == 0, out.err
    summary = json.loads((tmp_path / "t" / "summary.json").read_text())
    assert summary["config"]["bots"] == ["os-mcts:3i", "random"]
    assert len(list((tmp_path / "t" / "records").glob("*.json"))) == 2
    code = main(["tournament", "--bots", "os-mcts:fast,random", "--games", "2", "--quiet"])
    assert code == 2 and "os-mcts" in capsys.readouterr().err
