"""The value model: features, files, the card-set guard, training and its report."""

from __future__ import annotations

import json
import math
import random
import warnings

import numpy as np
import pytest

from solver.rules.cards import load_card_set, parse_card_set
from solver.rules.engine import new_game
from solver.rules.state import Phase
from solver.search import value as value_mod
from solver.search.policies import estimate_scores, play_turn
from solver.search.train import (
    ROW_FIELDS,
    Dataset,
    batch_win_shares,
    evaluate,
    fit,
    fit_sigma,
    generate,
    lambda_returns,
)
from solver.search.value import (
    FEATURE_NAMES,
    HeuristicEvaluator,
    ValueModel,
    ValueModelError,
    default_evaluator,
    seat_features_row,
    win_shares,
)


@pytest.fixture(scope="module")
def small_data():
    return generate(load_card_set(), (2, 3), games=24, seed=3, workers=1, chunk=6)


def test_features_have_their_names_and_read_the_seat():
    state = new_game(3, 1)
    rng = random.Random(1)
    for _ in range(4):
        play_turn(state, rng)
    rows = [seat_features_row(state, i) for i in range(3)]
    assert all(len(r) == len(FEATURE_NAMES) for r in rows)
    names = list(FEATURE_NAMES)
    for i, r in enumerate(rows):
        assert r[names.index("hand_size")] == len(state.players[i].hand)
        assert r[names.index("players_3")] == 1.0
        assert r[names.index("highway_length")] == len(state.players[i].highway)


def test_win_shares_sum_to_one_and_order_by_score():
    shares = win_shares([30.0, 20.0, 25.0], 5.0)
    assert sum(shares) == pytest.approx(1.0)
    assert shares[0] > shares[2] > shares[1]
    assert win_shares([10.0, 10.0], 3.0) == pytest.approx([0.5, 0.5])


def test_batch_win_shares_are_the_win_shares_of_each_state():
    rng = np.random.default_rng(5)
    for seats in (2, 3, 4):
        scores = rng.normal(40, 15, (6, seats))
        sigma = rng.uniform(2, 30, 6)
        batch = batch_win_shares(scores, sigma)
        for row, s, expected in zip(scores, sigma, batch, strict=True):
            assert win_shares(list(row), float(s)) == pytest.approx(list(expected))


def _outcomes_drawn_with_spread(sigma0: float, sigma1: float, states: int, seed: int):
    """States of 2 and 3 seats whose winners are drawn from the win shares of their
    predicted scores with the spread sigma0 + sigma1 * sqrt(turns left)."""
    rng = np.random.default_rng(seed)
    rows = []
    for k in range(states):
        seats = 2 + k % 2
        left = int(rng.integers(0, 26))
        predicted = rng.normal(50, 12, seats)
        shares = win_shares(list(predicted), sigma0 + sigma1 * math.sqrt(left))
        winner = rng.choice(seats, p=shares)
        for i in range(seats):
            rows.append((predicted[i], k, left, 1.0 if i == winner else 0.0))
    pred, sid, left, won = (np.array(c) for c in zip(*rows, strict=True))
    n = len(rows)
    data = Dataset(np.zeros((n, len(FEATURE_NAMES))), np.zeros(n), np.zeros(n),
                   sid.astype(np.int64), sid.astype(np.int64), left.astype(np.int64), won)
    return data, pred


def test_the_spread_is_fitted_to_who_won():
    """The fit recovers the spread that drew the winners (at the start, the middle and
    the end of a game), not the spread of a single score."""
    data, predicted = _outcomes_drawn_with_spread(3.0, 5.0, 6000, seed=1)
    s0, s1 = fit_sigma(data, predicted)
    for left in (0, 4, 16, 25):
        truth = 3.0 + 5.0 * math.sqrt(left)
        assert s0 + s1 * math.sqrt(left) == pytest.approx(truth, rel=0.25, abs=1.5)
    wide, wide_pred = _outcomes_drawn_with_spread(3.0, 10.0, 6000, seed=2)
    w0, w1 = fit_sigma(wide, wide_pred)
    assert w0 + w1 * 4 > s0 + s1 * 4 + 8  # twice the spread 16 turns from the end


def test_train_cli_calibrates_a_model_without_changing_its_weights(small_data, tmp_path,
                                                                   capsys):
    from solver.cli import main

    cards = load_card_set()
    small_data.save(tmp_path / "held-out.npz", meta={"games": 24, "policy": "rollout"})
    start = ValueModel.random(4, hidden=(8,), fingerprint=cards.fingerprint)
    start.sigma0, start.sigma1 = 40.0, 0.0  # far too wide: every game a coin toss
    start.save(tmp_path / "start.npz")
    out = tmp_path / "cal.npz"
    assert main(["train", "--data", str(tmp_path / "held-out.npz"), "--calibrate",
                 str(tmp_path / "start.npz"), "--out", str(out)]) == 0
    assert "40.00 + 0.00" in capsys.readouterr().out
    cal = ValueModel.load(out)
    x = small_data.x[:20]
    assert np.array_equal(cal.predict_rows(x), start.predict_rows(x))
    assert (cal.sigma0, cal.sigma1) != (40.0, 0.0)
    assert cal.meta["calibrated"]["sigma_before"] == [40.0, 0.0]
    done = cal.meta["calibrated"]
    assert done["rows_fitted"] + done["rows_held_out"] == small_data.rows
    assert done["rows_fitted"] and done["rows_held_out"]
    for bad in (tmp_path / "junk.npz", tmp_path / "other.npz"):
        if bad.name == "junk.npz":
            bad.write_bytes(b"not a model")
        else:
            ValueModel.random(0, fingerprint="0" * 16).save(bad)
        assert main(["train", "--games", "2", "--calibrate", str(bad), "--out",
                     str(tmp_path / "n.npz")]) == 2
        assert "--calibrate" in capsys.readouterr().err and not (tmp_path / "n.npz").exists()


def test_generate_is_deterministic_and_grouped(small_data):
    again = generate(load_card_set(), (2, 3), games=24, seed=3, workers=2, chunk=6)
    assert np.array_equal(small_data.x, again.x)
    assert np.array_equal(small_data.final, again.final)
    # every state has one row per seat, and the winners' shares of a state sum to 1
    ids, counts = np.unique(small_data.state_id, return_counts=True)
    assert set(counts) <= {2, 3}
    first = small_data.subset(small_data.state_id == ids[0])
    assert first.winner_share.sum() == pytest.approx(1.0)
    # the heuristic column is the heuristic's prediction
    assert np.all(np.isfinite(small_data.heuristic))


def test_fit_learns_and_reports(small_data, tmp_path):
    cards = load_card_set()
    model, report = fit(small_data, seed=0, hidden=(16,), epochs=40, batch=32, lr=3e-3,
                        fingerprint=cards.fingerprint)
    phases = [r["phase"] for r in report.rows]
    assert "all" in phases
    row = report.rows[-1]
    for key in ("score_mae_heuristic", "score_mae_model", "brier_heuristic", "brier_model"):
        assert np.isfinite(row[key])
    # it learned something: better than predicting "no more points" for everybody
    zero = float(np.mean(np.abs(small_data.final - small_data.x[:, 0])))
    assert row["score_mae_model"] < zero
    assert "heuristic" in report.table()
    # round trip through a file
    path = tmp_path / "m.npz"
    model.save(path)
    back = ValueModel.load(path)
    x = small_data.x[:7]
    assert np.allclose(back.predict_rows(x), model.predict_rows(x))
    assert back.fingerprint == cards.fingerprint
    assert (back.sigma0, back.sigma1) == (model.sigma0, model.sigma1)


def test_model_scores_every_seat_and_exact_at_the_end(small_data):
    model, _ = fit(small_data, seed=1, hidden=(8,), epochs=3)
    state = new_game(2, 9)
    rng = random.Random(2)
    while state.phase != Phase.OVER:
        scores = model.scores(state)
        assert len(scores) == 2 and all(np.isfinite(scores))
        play_turn(state, rng)
    assert model.scores(state) == estimate_scores(state)


def test_bad_model_files_are_refused(tmp_path):
    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a model")
    with pytest.raises(ValueModelError, match="not a model file"):
        ValueModel.load(bad)
    other = ValueModel.random(0)
    other.meta = {}
    path = tmp_path / "m.npz"
    other.save(path)
    raw = dict(np.load(path))
    import json

    header = json.loads(bytes(raw["header"]).decode())
    header["features"] = ["something", "else"]
    raw["header"] = np.frombuffer(json.dumps(header).encode(), dtype=np.uint8)
    np.savez(path, **raw)
    with pytest.raises(ValueModelError, match="other features"):
        ValueModel.load(path)


def _other_cards(cards):
    raw = cards.to_json()
    raw["highway"][0]["scenery"] = list(reversed(raw["highway"][0]["scenery"])) \
        if len(set(raw["highway"][0]["scenery"])) == 2 else ["ocean", "forest"]
    raw["highway"][0]["cost"] = ["steel", "steel"]
    other = parse_card_set(raw, require_full=False)
    assert other.fingerprint != cards.fingerprint
    return other


def test_other_card_sets_use_the_model_as_is_with_a_warning(tmp_path, monkeypatch):
    """A model trained on other cards evaluates these as is (it measured far stronger
    than the heuristic on reshuffled sets), and says so once per card set."""
    cards = load_card_set()
    model = ValueModel.random(0, fingerprint=cards.fingerprint)
    path = tmp_path / "m.npz"
    model.save(path)
    monkeypatch.setenv("BIGSUR_VALUE_MODEL", str(path))
    monkeypatch.setattr(value_mod, "SHIPPED_MODEL", tmp_path / "absent.npz")
    value_mod._shipped.cache_clear()
    value_mod._warn_other_cards.cache_clear()
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert isinstance(default_evaluator(cards), ValueModel)
        assert not caught  # trained on these cards: nothing to say
        other = _other_cards(cards)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            ev = default_evaluator(other)
            default_evaluator(other)
        assert isinstance(ev, ValueModel) and ev.fingerprint == cards.fingerprint
        assert value_mod.current_model(other) is None
        said = [str(w.message) for w in caught]
        assert len(said) == 1 and "no value model was trained on card set" in said[0]
        assert "bigsur train --cards" in said[0]
    finally:
        value_mod._shipped.cache_clear()


def test_a_model_trained_on_the_cards_in_play_comes_first(tmp_path, monkeypatch):
    """``BIGSUR_VALUE_MODEL`` trained on other cards does not hide a shipped model
    trained on the cards in play; with no model file at all the heuristic evaluates."""
    cards = load_card_set()
    mine, theirs = tmp_path / "mine.npz", tmp_path / "theirs.npz"
    ValueModel.random(0, fingerprint=cards.fingerprint).save(mine)
    ValueModel.random(1, fingerprint="0" * 16).save(theirs)
    monkeypatch.setattr(value_mod, "SHIPPED_MODEL", mine)
    monkeypatch.setenv("BIGSUR_VALUE_MODEL", str(theirs))
    value_mod._shipped.cache_clear()
    try:
        assert value_mod.model_in_use(cards).source == str(mine)
        assert value_mod.model_in_use(_other_cards(cards)).source == str(theirs)
        monkeypatch.setattr(value_mod, "SHIPPED_MODEL", tmp_path / "absent.npz")
        monkeypatch.delenv("BIGSUR_VALUE_MODEL")
        assert value_mod.model_in_use(cards) is None
        assert isinstance(default_evaluator(cards), HeuristicEvaluator)
    finally:
        value_mod._shipped.cache_clear()


def test_dataset_round_trip(small_data, tmp_path):
    path = tmp_path / "d.npz"
    small_data.save(path)
    back = Dataset.load(path)
    assert back.rows == small_data.rows
    assert np.array_equal(back.state_id, small_data.state_id)


def test_saved_positions_are_the_positions_the_rows_describe(tmp_path):
    """Data generated with positions keeps every turn start: read back from the file,
    each state's position gives the very features saved in its seats' rows, and the
    rows are the same as without positions."""
    cards = load_card_set()
    data = generate(cards, (2, 3), games=4, seed=5, workers=1, chunk=2, positions=True)
    plain = generate(cards, (2, 3), games=4, seed=5, workers=1, chunk=2)
    assert np.array_equal(data.x, plain.x) and not plain.positions
    data.save(tmp_path / "p.npz")
    back = Dataset.load(tmp_path / "p.npz")
    assert back.positions == data.positions
    groups = back.state_groups()
    assert len(groups) == len(back.positions)
    for group in groups[::7]:
        state = back.position(back.state_id[group[0]], cards)
        for seat, row in enumerate(group):
            assert np.allclose(seat_features_row(state, seat), back.x[row])
    # subsets and combinations keep each state's position under its (moved) id
    both = Dataset.combine([back, back])
    assert len(both.positions) == 2 * len(back.positions)
    assert set(both.positions) == set(np.unique(both.state_id).tolist())
    first = both.subset(both.game_id == both.game_id.max())
    assert set(first.positions) == set(np.unique(first.state_id).tolist())


def test_position_features_read_the_seat_and_the_others(tmp_path):
    """The position feature set: each column from the saved position, checked against
    the engine's own answers for that seat."""
    from bench.value_features import POSITION_FEATURES, position_columns, with_features
    from solver.rules.engine import claimable
    from solver.rules.payment import affordable_cards

    cards = load_card_set()
    data = generate(cards, (2, 3), games=3, seed=8, workers=1, chunk=3, positions=True)
    cols = position_columns(data, cards)
    assert cols.shape == (data.rows, len(POSITION_FEATURES))
    named = dict(zip(POSITION_FEATURES, range(len(POSITION_FEATURES)), strict=True))
    checked = 0
    for group in data.state_groups()[::5]:
        state = data.position(data.state_id[group[0]], cards)
        for seat, row in enumerate(group):
            probe = state.copy()
            probe.current = seat
            assert cols[row, named["hand_affordable"]] == len(affordable_cards(probe))
            mine = {lm for lm, _ in claimable(state, seat)}
            others = set().union(*({lm for lm, _ in claimable(state, i)}
                                   for i in range(state.num_players) if i != seat))
            assert cols[row, named["claimable_landmarks"]] == len(mine)
            assert cols[row, named["contested_landmarks"]] == len(mine & others)
            assert cols[row, named["hand_fitting"]] <= len(state.players[seat].hand)
            checked += 1
    assert checked > 5 and cols[:, named["depot_fit_max"]].max() > 0
    wide = with_features(data, "own+position", {"position": cols})
    assert wide.x.shape[1] == len(FEATURE_NAMES) + len(POSITION_FEATURES)
    # data without positions is refused with a reason
    with pytest.raises(ValueError, match="no saved positions"):
        position_columns(generate(cards, (2,), games=1, seed=1, workers=1), cards)


def test_a_widened_model_predicts_as_before_until_fine_tuned(small_data):
    """Extra inputs start with zero weights: the widened model's predictions are the
    model's own whatever the new columns hold, until fine-tuning puts them to use."""
    model, _ = fit(small_data, seed=0, epochs=2)
    extra = np.random.default_rng(0).normal(3.0, 2.0, (small_data.rows, 2))
    wide = model.widened(extra.mean(axis=0), extra.std(axis=0))
    x = np.hstack([small_data.x, extra])
    assert np.allclose(wide.predict_rows(x), model.predict_rows(small_data.x))
    assert len(wide.mean) == len(FEATURE_NAMES) + 2
    data = Dataset(x, *(getattr(small_data, f) for f in ROW_FIELDS[1:]))
    tuned, _ = fit(data, seed=0, epochs=3, init=wide)
    assert tuned.weights[0].shape == wide.weights[0].shape
    assert not np.allclose(tuned.weights[0][-2:], 0.0)  # the new inputs came into use


def test_saved_data_carries_where_it_came_from(small_data, tmp_path):
    small_data.save(tmp_path / "with.npz", meta={"games": 24, "policy": "rollout"})
    assert Dataset.load_meta(tmp_path / "with.npz") == {"games": 24, "policy": "rollout"}
    assert Dataset.load(tmp_path / "with.npz").rows == small_data.rows
    # a file saved before data carried its meta still tells how many games it holds
    small_data.save(tmp_path / "without.npz")
    assert Dataset.load_meta(tmp_path / "without.npz") == {"games": 24}


def test_combined_data_keeps_every_game_and_state_apart(small_data):
    both = Dataset.combine([small_data, small_data])
    assert both.rows == 2 * small_data.rows
    games = len(np.unique(small_data.game_id))
    assert len(np.unique(both.game_id)) == 2 * games
    assert len(np.unique(both.state_id)) == 2 * len(np.unique(small_data.state_id))
    # rows of one state still belong to one game
    first_game = {}
    for sid, gid in zip(both.state_id, both.game_id, strict=True):
        assert first_game.setdefault(int(sid), int(gid)) == gid


def test_train_cli_fits_several_saved_files_and_records_them(small_data, tmp_path, capsys):
    from solver.cli import main

    small_data.save(tmp_path / "a.npz", meta={"games": 24, "policy": "mcts:60i",
                                              "data_seconds": 10.0,
                                              "searcher_generation": 3})
    small_data.save(tmp_path / "b.npz")
    out = tmp_path / "m.npz"
    assert main(["train", "--data", str(tmp_path / "a.npz"), str(tmp_path / "b.npz"),
                 "--policy", "mcts:60i", "--epochs", "1", "--hidden", "8",
                 "--out", str(out)]) == 0
    assert "of 48 games" in capsys.readouterr().err
    meta = ValueModel.load(out).meta
    assert meta["games"] == 48
    assert meta["data_seconds"] is None  # b.npz does not say how long it took
    assert meta["generation"] == 4  # one more than the newest searcher the data records
    assert [d["file"] for d in meta["data"]] == ["a.npz", "b.npz"]
    (tmp_path / "junk.npz").write_bytes(b"not data")
    assert main(["train", "--data", str(tmp_path / "junk.npz"),
                 "--out", str(tmp_path / "n.npz")]) == 2
    assert "--data" in capsys.readouterr().err and not (tmp_path / "n.npz").exists()


def test_evaluate_compares_on_the_same_rows(small_data):
    model, _ = fit(small_data, seed=2, hidden=(8,), epochs=2)
    report = evaluate(model, small_data)
    assert report.rows[-1]["rows"] == small_data.rows


def test_report_compares_with_the_model_it_would_replace(small_data):
    model, _ = fit(small_data, seed=2, hidden=(8,), epochs=2)
    other, _ = fit(small_data, seed=3, hidden=(8,), epochs=1)
    report = evaluate(model, small_data, current=other)
    row = report.rows[-1]
    assert row["score_mae_current"] != row["score_mae_model"]
    # the same model as "current" measures exactly as the model
    same = evaluate(model, small_data, current=model).rows[-1]
    for metric in ("score_mae", "margin_mae", "brier"):
        assert same[f"{metric}_current"] == same[f"{metric}_model"]
    assert "current" in report.table()
    assert "current" not in evaluate(model, small_data).table()


def test_fine_tuning_starts_from_the_given_model(small_data):
    base, _ = fit(small_data, seed=4, hidden=(8,), epochs=3)
    x = small_data.x[:50]
    before = base.predict_rows(x)
    tuned, _ = fit(small_data, seed=5, hidden=(32, 32), epochs=3, lr=1e-4, init=base)
    # the layer sizes and input scaling of the start are kept, the weights moved from it
    assert [w.shape for w in tuned.weights] == [w.shape for w in base.weights]
    assert np.array_equal(tuned.mean, base.mean) and np.array_equal(tuned.std, base.std)
    assert tuned.meta["hidden"] == [8]
    assert not np.allclose(tuned.predict_rows(x), before)
    # the start's own weights are left as they were
    assert np.array_equal(base.predict_rows(x), before)


def test_lambda_returns_mix_the_outcome_with_later_predictions(small_data):
    model, _ = fit(small_data, seed=4, hidden=(8,), epochs=2)
    assert np.array_equal(lambda_returns(small_data, model, 1.0), small_data.final)
    predicted = small_data.x[:, 0] + model.predict_rows(small_data.x)
    one_step = lambda_returns(small_data, model, 0.0)
    # lambda 0: the prediction at the seat's next row; its last row: the final score.
    # Rows of a state come in seat order, so the seat's next row is `players` rows on.
    for i in range(small_data.rows):
        same = small_data.state_id == small_data.state_id[i]
        players = int(same.sum())
        j = i + players
        if j < small_data.rows and small_data.game_id[j] == small_data.game_id[i]:
            assert one_step[i] == pytest.approx(predicted[j])
        else:
            assert one_step[i] == small_data.final[i]
    half = lambda_returns(small_data, model, 0.5)
    assert not np.allclose(half, small_data.final) and not np.allclose(half, one_step)
    tuned, report = fit(small_data, seed=5, epochs=2, init=model, td_lambda=0.7)
    assert report.rows[-1]["rows"] > 0
    with pytest.raises(ValueError, match="init"):
        fit(small_data, seed=5, epochs=1, td_lambda=0.7)


def test_train_cli_saves_positions_the_feature_bench_reads(tmp_path, capsys):
    """`bigsur train --save-data` keeps the positions; `bench.value_features` computes
    the position features from them and records which data it fitted; data without
    positions is refused by name."""
    from bench.value_features import main as features_main
    from solver.cli import main

    data_file = tmp_path / "d.npz"
    assert main(["train", "--games", "3", "--players", "2", "--epochs", "1", "--hidden",
                 "8", "--save-data", str(data_file), "--out", str(tmp_path / "m.npz")]) == 0
    saved = Dataset.load(data_file)
    assert saved.positions and set(saved.positions) == set(np.unique(saved.state_id).tolist())
    out = tmp_path / "vf.json"
    assert features_main(["--data", str(data_file), "--sets", "own,own+position",
                          "--epochs", "1", "--hidden", "8", "--out", str(out)]) == 0
    run = json.loads(out.read_text())["runs"][-1]
    assert [r["features"] for r in run["rows"]] == ["own", "own+position"]
    assert run["rows"][1]["inputs"] == run["rows"][0]["inputs"] + 7
    assert run["data"][0]["games"] == 3 and run["data"][0]["file"] == str(data_file)
    capsys.readouterr()
    plain = tmp_path / "plain.npz"
    saved.positions = {}
    saved.save(plain)
    with pytest.raises(SystemExit):
        features_main(["--data", str(plain), "--sets", "own+position", "--out", str(out)])
    assert "no saved positions" in capsys.readouterr().err


def test_train_cli_refuses_a_bad_start_model(tmp_path, capsys):
    from solver.cli import main

    bad = tmp_path / "bad.npz"
    bad.write_bytes(b"not a model")
    assert main(["train", "--games", "2", "--init", str(bad), "--out",
                 str(tmp_path / "m.npz")]) == 2
    assert "--init" in capsys.readouterr().err and not (tmp_path / "m.npz").exists()
    other = ValueModel.random(0, fingerprint="0" * 16)
    other.save(tmp_path / "other.npz")
    assert main(["train", "--games", "2", "--calibrate", str(tmp_path / "other.npz"),
                 "--out", str(tmp_path / "m.npz")]) == 2
    err = capsys.readouterr().err
    assert "--calibrate" in err and "another card set" in err
    assert not (tmp_path / "m.npz").exists()


def test_train_cli_fine_tunes_a_model_of_other_cards_into_one_of_these(tmp_path, capsys):
    """``--init`` may start from a model trained on other cards (the shipped one, for an
    owner's printed list): it says so, and the model it writes is for the cards in play."""
    from solver.cli import main

    cards = load_card_set()
    other = ValueModel.random(0, fingerprint="0" * 16)
    other.meta["generation"] = 1
    other.save(tmp_path / "other.npz")
    assert main(["train", "--games", "4", "--epochs", "1", "--workers", "1", "--init",
                 str(tmp_path / "other.npz"), "--out", str(tmp_path / "m.npz")]) == 0
    assert "trained on another card set" in capsys.readouterr().err
    model = ValueModel.load(tmp_path / "m.npz")
    assert model.fingerprint == cards.fingerprint
    assert model.meta["init"]["generation"] == 1


def test_train_cli_td_lambda_needs_a_model_to_bootstrap_from(tmp_path, capsys):
    from solver.cli import main

    assert main(["train", "--games", "2", "--td-lambda", "0.8",
                 "--out", str(tmp_path / "m.npz")]) == 2
    assert "--td-lambda" in capsys.readouterr().err and not (tmp_path / "m.npz").exists()


def test_opponent_columns_read_the_other_seats_of_the_same_state(small_data):
    from bench.value_features import opponent_columns, with_features

    most, mean = opponent_columns(small_data)
    ids = small_data.state_id
    for row in (0, 1, len(ids) // 2, len(ids) - 1):
        others = small_data.x[(ids == ids[row]) & (np.arange(len(ids)) != row)]
        assert np.allclose(most[row], others.max(axis=0))
        assert np.allclose(mean[row], others.mean(axis=0))
    wide = with_features(small_data, "own+opp_max+opp_mean",
                         {"opp_max": most, "opp_mean": mean})
    assert wide.x.shape == (small_data.rows, 3 * len(FEATURE_NAMES))
    assert np.array_equal(wide.x[:, :len(FEATURE_NAMES)], small_data.x)
    assert np.array_equal(wide.final, small_data.final)


def test_a_model_of_other_inputs_fits_but_is_not_saved(small_data, tmp_path):
    from bench.value_features import opponent_columns, with_features

    most, _ = opponent_columns(small_data)
    wide = with_features(small_data, "own+opp_max", {"opp_max": most})
    model, report = fit(wide, seed=0, epochs=1)
    assert len(model.mean) == 2 * len(FEATURE_NAMES)
    assert report.rows[-1]["margin_mae_model"] > 0
    with pytest.raises(ValueModelError, match="experiment"):
        model.save(tmp_path / "wide.npz")


def test_luck_table_splits_the_error_into_the_replays_spread_and_the_rest():
    """Two positions, two replays each: the luck is the replays' own variance, an
    evaluation's error is measured against every replay."""
    from bench.search_diagnostics import luck_table

    cards = load_card_set()
    state = new_game(2, 5, cards)

    def replay(final, model, heuristic):
        return {"final": final, "predicted": {"model": model, "heuristic": heuristic}}

    # seat 0's margins: 10 and 20 (variance 50); predicted 15 both times -> error^2 25
    first = [replay([30.0, 20.0], [35.0, 20.0], [20.0, 20.0]),
             replay([40.0, 20.0], [35.0, 20.0], [20.0, 20.0])]
    # seat 1's margins: 0 and 0 (no luck); predicted 4 -> error^2 16
    second = [replay([10.0, 10.0], [10.0, 14.0], [10.0, 10.0]),
              replay([12.0, 12.0], [12.0, 16.0], [12.0, 12.0])]
    rows = luck_table([(state, 0), (state, 1)], [first, second])
    assert [r["phase"] for r in rows] == ["early", "all"]
    row = rows[-1]
    assert row["positions"] == 2
    assert row["luck_margin_rms"] == pytest.approx(np.sqrt((50 + 0) / 2))
    assert row["model_margin_rms"] == pytest.approx(np.sqrt((25 + 16) / 2))
    assert row["heuristic_margin_rms"] == pytest.approx(np.sqrt((250 + 0) / 2))
    assert row["luck_share_model_margin"] == pytest.approx(50 / 41)
    # the seats' own final scores: 30, 40 (variance 50) and 10, 12 (variance 2)
    assert row["luck_score_rms"] == pytest.approx(np.sqrt((50 + 2) / 2))


def test_replays_keep_the_seats_view_and_play_to_the_end():
    from bench.search_diagnostics import luck_positions, replay_position

    cards = load_card_set()
    (state, seat), = luck_positions(1, 3, cards, "rollout")
    replays = replay_position((state, seat, 3, "rollout", 11))
    assert len(replays) == 3
    for r in replays:
        assert len(r["final"]) == len(r["predicted"]["model"]) == state.num_players
    # every deal keeps what the seat knows (its hand, the public cards), so the seat's
    # own predicted score is the same in all of them; the games then go differently
    own = {r["predicted"]["model"][seat] for r in replays}
    assert len(own) == 1
    assert own == {value_mod.default_evaluator(cards).scores(state)[seat]}
    assert len({tuple(r["final"]) for r in replays}) > 1


def test_seat_scores_batch_the_model_for_one_seat(small_data):
    model, _ = fit(small_data, seed=1, hidden=(8,), epochs=3)
    state = new_game(3, 4)
    rng = random.Random(5)
    states = []
    for _ in range(5):
        play_turn(state, rng)
        states.append(state.copy())
    for seat in range(3):
        assert model.seat_scores(states, seat) == pytest.approx(
            [model.scores(s)[seat] for s in states], abs=1e-9)
    assert model.seat_scores([], 0) == []
    while state.phase != Phase.OVER:
        play_turn(state, rng)
    assert model.seat_scores([states[0], state], 1) == pytest.approx(
        [model.scores(states[0])[1], estimate_scores(state)[1]])  # exact at the end


def test_a_build_step_chosen_by_an_evaluator_follows_it():
    from solver.rules.actions import Build
    from solver.rules.engine import apply_inplace
    from solver.search.buildsteps import all_build_steps
    from solver.search.policies import build_step_inplace, greedy_take, valued_build_step_inplace

    def hand_kept(state, outcomes):  # prefers never spending a card
        return [float(len(o.hand)) for o in outcomes]

    def road_length(state, outcomes):  # prefers the longest Highway
        return [float(len(o.highway)) for o in outcomes]

    checked = 0
    for seed in range(12):
        state = new_game(2, seed)
        while state.phase != Phase.OVER and checked < 8:
            while state.phase == Phase.TAKE:
                apply_inplace(state, greedy_take(state))
            seat = state.current
            longest = max(len(a.players[seat].highway)
                          for _m, a in all_build_steps(state, 3_000, with_states=True))
            if state.turn >= 4 and longest > len(state.player.highway):
                keep = state.copy()
                acts = valued_build_step_inplace(keep, hand_kept)
                assert not any(type(a) is Build for a in acts)
                assert keep.phase == Phase.OVER or keep.current != seat  # the turn ended
                grow = state.copy()
                acts = valued_build_step_inplace(grow, road_length)
                assert any(type(a) is Build for a in acts)
                assert len(grow.players[seat].highway) > len(state.player.highway)
                checked += 1
            build_step_inplace(state)
    assert checked == 8


def test_self_play_searches_with_the_given_overrides(monkeypatch):
    """``generate(search=...)`` plays every game's searching bots with those
    SearchParams overrides (a cheaper searcher for self-play data)."""
    from concurrent.futures import ThreadPoolExecutor

    from solver.search import train

    calls = []
    real = train.policy_bots

    def spy(policy, players, search=None):
        bots = real(policy, players, search)
        calls.append({b.params.own_take_value for b in bots})
        return bots

    monkeypatch.setattr(train, "policy_bots", spy)
    with ThreadPoolExecutor(1) as in_process:
        data = train.generate(players=(2,), games=2, seed=3, policy="mcts:3i",
                              executor=in_process, search={"own_take_value": "greedy"})
    assert data.rows > 0
    assert calls == [{"greedy"}] * 3  # the check before the games, then one per game
    with pytest.raises(ValueError, match="searching policy"):
        real("rollout", 2, {"c_uct": 0.3})


def test_train_cli_records_search_overrides_and_names_a_bad_one(tmp_path, capsys):
    """``bigsur train --search NAME=VALUE`` is recorded in the data and the model; a bad
    override, or one without a searching policy, is refused by name before any game."""
    from solver.cli import main

    data_file, out = tmp_path / "d.npz", tmp_path / "m.npz"
    assert main(["train", "--games", "2", "--players", "2", "--workers", "1", "--policy",
                 "mcts:3i", "--search", "own_take_value=greedy", "--epochs", "1", "--hidden",
                 "8", "--save-data", str(data_file), "--out", str(out)]) == 0
    assert Dataset.load_meta(data_file)["search"] == {"own_take_value": "greedy"}
    assert ValueModel.load(out).meta["search"] == {"own_take_value": "greedy"}
    capsys.readouterr()
    for bad, named in ((["own_take_value=cheap"], "own_take_value"),
                       (["own_take_vale=greedy"], "'own_take_vale=greedy'")):
        assert main(["train", "--games", "2", "--policy", "mcts:3i", "--search", *bad,
                     "--out", str(tmp_path / "bad.npz")]) == 2
        err = capsys.readouterr().err
        assert "--search" in err and named in err and "Traceback" not in err
    assert main(["train", "--games", "2", "--search", "c_uct=0.3",
                 "--out", str(tmp_path / "bad.npz")]) == 2
    assert "searching policy" in capsys.readouterr().err
    assert not (tmp_path / "bad.npz").exists()


def test_the_shipped_cards_under_another_name_get_no_warning_and_one_names_the_call(
        tmp_path, monkeypatch):
    """The default cards renamed (``cards_fingerprint`` equal) are the cards the model was
    trained on: no warning ("no value model was trained on card set 'mine'" was said).
    Other cards are warned of at the user's call, not inside the search (ismcts.py)."""
    from solver.rules.views import view_of
    from solver.search.api import Budget, analyse

    cards = load_card_set()
    path = tmp_path / "m.npz"
    ValueModel.random(0, fingerprint=cards.fingerprint).save(path)
    monkeypatch.setenv("BIGSUR_VALUE_MODEL", str(path))
    value_mod._shipped.cache_clear()
    value_mod._warn_other_cards.cache_clear()
    raw = cards.to_json()
    raw.update(name="mine", description="my copy", reconstruction=False)
    mine = parse_card_set(raw)
    assert mine.fingerprint != cards.fingerprint
    try:
        for some, warned in ((mine, False), (_other_cards(cards), True)):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                assert default_evaluator(some).fingerprint == cards.fingerprint
                value_mod._warn_other_cards.cache_clear()
                analyse(view_of(new_game(2, seed=1, cards=some), 0), Budget.parse("4i"),
                        seed=1)
            said = [w for w in caught if "no value model" in str(w.message)]
            assert len(said) == 2 * warned, some.name
            assert all(w.filename == __file__ for w in said)
    finally:
        value_mod._shipped.cache_clear()
        value_mod._warn_other_cards.cache_clear()
