"""Self-play training of the value model (`bigsur train`).

    data = generate(cards, players=(2, 3, 4), games=3000, seed=1, workers=2)
    model, report = fit(data, seed=1)
    model.save("value.npz"); print(report.table())

1. **Data**: self-play games, by default with the rollout policy (the greedy heuristic
   with Gumbel noise, fast) or any bot spec (``policy="mcts:100i"``: expert iteration,
   the searcher generating the next model's data). At every turn start, one row per
   seat: :func:`~solver.search.value.seat_features_row`, the heuristic's prediction,
   and the seat's final score (with ``positions=True``, the position itself too).
   Games are split into chunks run on any ``concurrent.futures`` executor (processes
   by default, Dask for a cluster); chunk ``k`` uses seed ``seed + k``, so the data is
   the same whatever the executor.
2. **Fit**: an MLP (numpy, Adam, mean squared error of the points still to come),
   games split 85/15 into training and held-out sets, early stopping on the held-out
   loss; then the spread of final scores (``sigma0 + sigma1 * sqrt(turns left)``) is
   fitted to who won the held-out games (:func:`fit_sigma`), so that the win
   probabilities it implies are calibrated.
3. **Report**: held-out error of the model and of the heuristic by game phase (mean
   absolute error of the final score and of the final margin), and the Brier score
   and calibration of the win probabilities both imply.
"""

from __future__ import annotations

import json
import math
import random
import signal
from collections.abc import Callable
from concurrent.futures import Executor, ProcessPoolExecutor
from dataclasses import dataclass, field, replace

import numpy as np

from ..rules.cards import CardSet, load_card_set
from ..rules.engine import apply_inplace, new_game, outcome
from ..rules.position import state_from_json, state_to_json
from ..rules.state import GameState, Phase
from ..rules.views import view_of
from .policies import estimate_scores, play_turn
from .value import (
    FEATURE_NAMES,
    HeuristicEvaluator,
    ValueModel,
    seat_features_row,
    turns_left,
    win_shares,
)

# a row's state id is game id * STATE_IDS_PER_GAME + the state's index in its game
STATE_IDS_PER_GAME = 1000


@dataclass
class Dataset:
    """Rows of seat features with their targets, grouped by state and game.

    ``positions``: the turn-start positions themselves (state id -> compact position
    JSON, :func:`~solver.rules.position.state_to_json`) when the data was generated with
    ``positions=True``, so that new features can be computed from saved games without
    playing them again (``bench.value_features``)."""

    x: np.ndarray  # (rows, features)
    final: np.ndarray  # final score of the row's seat
    heuristic: np.ndarray  # the heuristic's expected final score
    state_id: np.ndarray  # rows of one state share an id
    game_id: np.ndarray
    turns_left: np.ndarray  # of the row's state
    winner_share: np.ndarray  # the seat's share of the win (ties shared)
    positions: dict[int, str] = field(default_factory=dict, repr=False)

    @property
    def rows(self) -> int:
        return len(self.final)

    def state_groups(self) -> list[np.ndarray]:
        """The row indices of each state (its seats' rows), in state-id order."""
        order = np.argsort(self.state_id, kind="stable")
        return np.split(order, np.flatnonzero(np.diff(self.state_id[order])) + 1)

    def subset(self, mask: np.ndarray) -> Dataset:
        part = Dataset(*(getattr(self, f)[mask] for f in ROW_FIELDS))
        if self.positions:
            part.positions = {int(k): self.positions[int(k)]
                              for k in np.unique(part.state_id) if int(k) in self.positions}
        return part

    @staticmethod
    def concat(parts: list[Dataset]) -> Dataset:
        data = Dataset(*(np.concatenate([getattr(p, f) for p in parts]) for f in ROW_FIELDS))
        for p in parts:
            data.positions.update(p.positions)
        return data

    @staticmethod
    def combine(parts: list[Dataset]) -> Dataset:
        """Several saved data sets as one: each part's game and state ids are moved past
        the previous parts', so that games stay apart in the split and in the report."""
        moved, next_game = [], 0
        for p in parts:
            shift = next_game - int(p.game_id.min()) if p.rows else 0
            moved.append(replace(p, game_id=p.game_id + shift,
                                 state_id=p.state_id + shift * STATE_IDS_PER_GAME,
                                 positions={k + shift * STATE_IDS_PER_GAME: v
                                            for k, v in p.positions.items()}))
            next_game = int(moved[-1].game_id.max()) + 1 if p.rows else next_game
        return Dataset.concat(moved)

    def save(self, path, meta: dict | None = None) -> None:
        """Write the arrays, and ``meta`` (who played the games, how long they took) as
        JSON beside them, so that a model fitted from the file can say where it came from.
        Positions are one newline-separated UTF-8 blob with their state ids in order."""
        extra = {"meta": np.array(json.dumps(meta))} if meta is not None else {}
        if self.positions:
            ids = sorted(self.positions)
            blob = "\n".join(self.positions[k] for k in ids).encode()
            extra["position_ids"] = np.array(ids, dtype=np.int64)
            extra["positions"] = np.frombuffer(blob, dtype=np.uint8)
        np.savez_compressed(path, **{f: getattr(self, f) for f in ROW_FIELDS}, **extra)

    @staticmethod
    def load(path) -> Dataset:
        with np.load(path) as z:
            data = Dataset(*(z[f] for f in ROW_FIELDS))
            if "positions" in z.files:
                texts = bytes(z["positions"]).decode().split("\n")
                data.positions = dict(zip(z["position_ids"].tolist(), texts, strict=True))
        return data

    def position(self, state_id: int, cards: CardSet) -> GameState:
        """The saved position of a state, on the card set the games were played with
        (``KeyError`` when the data has none)."""
        return state_from_json(json.loads(self.positions[int(state_id)]), cards)

    @staticmethod
    def load_meta(path) -> dict:
        """The ``meta`` saved with the data; for files written before data carried it,
        what the arrays tell (the number of games)."""
        with np.load(path) as z:
            if "meta" in z.files:
                return json.loads(str(z["meta"]))
            return {"games": int(len(np.unique(z["game_id"])))}


# the row-aligned arrays of a Dataset, in order
ROW_FIELDS = ("x", "final", "heuristic", "state_id", "game_id", "turns_left", "winner_share")


# ------------------------------------------------------------------ self-play data

def _play_game(cards: CardSet, players: int, seed: int, policy: str,
               positions: list | None = None, search: dict | None = None
               ) -> tuple[list, list]:
    """One self-play game: (rows, final scores). A row is (state index, seat,
    features, heuristic score, turns left). ``positions``: a list that gets each
    turn start's position (:func:`compact_position`), in state order."""
    rng = random.Random(seed)
    state = new_game(players, rng.randrange(2**62), cards)
    bots = policy_bots(policy, players, search)
    rows = []
    k = 0
    while state.phase != Phase.OVER:
        heur = estimate_scores(state)
        left = turns_left(state)
        for seat in range(players):
            rows.append((k, seat, seat_features_row(state, seat), heur[seat], left))
        if positions is not None:
            positions.append(compact_position(state))
        k += 1
        policy_turn(state, bots, rng)
    result = outcome(state)
    final = [float(s.total) for s in result.scores]
    shares = [1.0 / len(result.winners) if i in result.winners else 0.0
              for i in range(players)]
    return rows, final + shares


def compact_position(state: GameState) -> str:
    """A position as compact JSON without its card set (the data's games share one)."""
    raw = state_to_json(state)
    del raw["cards"]
    return json.dumps(raw, separators=(",", ":"))


def policy_bots(policy: str, players: int, search: dict | None = None) -> list | None:
    """The bots of a self-play ``policy`` (a bot spec), one per seat; None for
    ``"rollout"`` (the search's rollout policy, played by :func:`policy_turn`).
    ``search``: :class:`~solver.search.ismcts.SearchParams` overrides for a searching
    policy (``{"own_take_value": "greedy"}``: a cheaper searcher); ValueError for any
    other policy."""
    from .bots import make_bot
    from .ismcts import SearchParams

    bots = None if policy == "rollout" else [make_bot(policy) for _ in range(players)]
    if search:
        if bots is None or not all(isinstance(getattr(b, "params", None), SearchParams)
                                   for b in bots):
            raise ValueError(f"search overrides need a searching policy (mcts:...), not "
                             f"{policy!r}")
        for b in bots:
            b.params = replace(b.params, **search)
    return bots


def policy_turn(state: GameState, bots: list | None, rng: random.Random) -> None:
    """Play the current turn in place with the self-play policy (:func:`policy_bots`):
    the rollout policy when ``bots`` is None, else each seat's bot with seeds from
    ``rng``."""
    if bots is None:
        play_turn(state, rng, noise=0.3)
        return
    turn = state.turn
    while state.phase != Phase.OVER and state.turn == turn:
        seat = state.current
        action = bots[seat].act(view_of(state, seat), rng.randrange(2**31))
        apply_inplace(state, action)


def _chunk(cards: CardSet, players: tuple[int, ...], games: int, seed: int,
           policy: str, first_game: int, positions: bool = False,
           search: dict | None = None) -> Dataset:
    xs, final, heur, sid, gid, left, share = [], [], [], [], [], [], []
    saved: dict[int, str] = {}
    rng = random.Random(seed)
    for g in range(games):
        n = players[(first_game + g) % len(players)]
        texts: list[str] | None = [] if positions else None
        rows, end = _play_game(cards, n, rng.randrange(2**62), policy, texts, search)
        for k, text in enumerate(texts or ()):
            saved[(first_game + g) * STATE_IDS_PER_GAME + k] = text
        scores, shares = end[:n], end[n:]
        for k, seat, phi, h, tl in rows:
            xs.append(phi)
            final.append(scores[seat])
            heur.append(h)
            sid.append((first_game + g) * STATE_IDS_PER_GAME + k)
            gid.append(first_game + g)
            left.append(tl)
            share.append(shares[seat])
    return Dataset(np.array(xs, dtype=np.float64).reshape(-1, len(FEATURE_NAMES)),
                   np.array(final), np.array(heur), np.array(sid, dtype=np.int64),
                   np.array(gid, dtype=np.int64), np.array(left, dtype=np.float64),
                   np.array(share), saved)


def self_play_executor(workers: int) -> ProcessPoolExecutor:
    """The local pool of :func:`generate`: its workers leave Ctrl-C to the parent, which
    stops the pool (Ctrl-C reaches the whole process group, and a worker waiting for its
    next chunk printed a traceback)."""
    return ProcessPoolExecutor(max_workers=max(1, workers),
                               initializer=_leave_ctrl_c_to_the_parent)


def _leave_ctrl_c_to_the_parent() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def generate(cards: CardSet | None = None, players: tuple[int, ...] = (2, 3, 4),
             games: int = 3000, seed: int = 0, workers: int = 2, policy: str = "rollout",
             executor: Executor | None = None,
             progress: Callable[[int, int], None] | None = None,
             chunk: int = 50, positions: bool = False,
             search: dict | None = None) -> Dataset:
    """Self-play data (see the module doc); deterministic in ``seed``. ``positions``:
    keep every turn start's position too (:attr:`Dataset.positions`; about 1 KB of JSON
    each, one per turn of the game). ``search``: the searching policy's
    :class:`~solver.search.ismcts.SearchParams` overrides (:func:`policy_bots`)."""
    cards = cards or load_card_set()
    policy_bots(policy, 2, search)  # a bad policy or override fails here, not in a worker
    starts = list(range(0, games, chunk))
    own = executor is None
    if own:
        executor = self_play_executor(workers)
    try:
        futures = [executor.submit(_chunk, cards, tuple(players), min(chunk, games - s),
                                   seed * 1_000_003 + s, policy, s, positions, search)
                   for s in starts]
        parts = []
        for i, f in enumerate(futures):
            parts.append(f.result())
            if progress:
                progress(min((i + 1) * chunk, games), games)
    finally:
        if own:  # after Ctrl-C or a failed chunk, the chunks not started are dropped
            executor.shutdown(cancel_futures=True)
    return Dataset.concat(parts)


# ------------------------------------------------------------------ fitting

def split_games(data: Dataset, holdout: float, rng: np.random.Generator
                ) -> tuple[Dataset, Dataset]:
    """``data`` split by game at random: the rest, and ``holdout`` of the games (at least
    one) held out."""
    games = np.unique(data.game_id)
    if len(games) < 2:
        raise ValueError(f"{len(games)} game(s): at least 2 are needed, since whole games "
                         "are held out to test the fit")
    held = set(rng.choice(games, size=max(1, int(len(games) * holdout)), replace=False))
    test_mask = np.array([g in held for g in data.game_id])
    return data.subset(~test_mask), data.subset(test_mask)


def fit(data: Dataset, seed: int = 0, hidden: tuple[int, ...] = (64, 64),
        epochs: int = 60, batch: int = 256, lr: float = 1e-3, holdout: float = 0.15,
        fingerprint: str = "", progress: Callable[[int, float, float], None] | None = None,
        current: ValueModel | None = None, init: ValueModel | None = None,
        td_lambda: float = 1.0) -> tuple[ValueModel, TrainReport]:
    """Train an MLP on ``data`` (split by game); return it and its held-out report
    (against the heuristic, and against ``current``: the model it would replace).

    ``init``: start from that model's weights instead of random ones (fine-tuning: its
    layer sizes and input scaling are kept, ``hidden`` is ignored), so that a small set
    of expert games corrects a model trained on many cheap games rather than replacing
    what they taught; early stopping on the held-out games decides how far it moves.

    ``td_lambda`` < 1: train on TD(lambda) targets (:func:`lambda_returns`, bootstrapped
    from ``init``) instead of the final scores; held-out loss and report still compare
    with the final scores."""
    rng = np.random.default_rng(seed)
    train, test = split_games(data, holdout, rng)
    if td_lambda < 1.0:
        if init is None:
            raise ValueError("td_lambda < 1 bootstraps from a model: give init")
        y_train = lambda_returns(train, init, td_lambda) - train.x[:, 0]
    else:
        y_train = train.final - train.x[:, 0]
    y_test = test.final - test.x[:, 0]
    if init is None:
        mean = train.x.mean(axis=0)
        std = train.x.std(axis=0)
        std[std < 1e-6] = 1.0
        model = ValueModel.random(seed, hidden, fingerprint, inputs=data.x.shape[1])
    else:
        mean, std = init.mean, init.std
        model = init
        hidden = tuple(w.shape[1] for w in init.weights[:-1])
    xt = (train.x - mean) / std
    xv = (test.x - mean) / std

    params = [p.copy() for p in (*model.weights, *model.biases)]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    layers = len(model.weights)
    best = (_loss(params, layers, xv, y_test), [p.copy() for p in params]) \
        if init is not None else (math.inf, None)
    step = 0
    patience = 0
    for epoch in range(epochs):
        order = rng.permutation(len(xt))
        for start in range(0, len(order), batch):
            idx = order[start:start + batch]
            grads = _gradients(params, layers, xt[idx], y_train[idx])
            step += 1
            for i, g in enumerate(grads):
                m[i] = 0.9 * m[i] + 0.1 * g
                v[i] = 0.999 * v[i] + 0.001 * g * g
                mh = m[i] / (1 - 0.9 ** step)
                vh = v[i] / (1 - 0.999 ** step)
                params[i] -= lr * mh / (np.sqrt(vh) + 1e-8)
        train_loss = _loss(params, layers, xt, y_train)
        test_loss = _loss(params, layers, xv, y_test)
        if progress:
            progress(epoch + 1, train_loss, test_loss)
        if test_loss < best[0] - 1e-4:
            best = (test_loss, [p.copy() for p in params])
            patience = 0
        else:
            patience += 1
            if patience >= 8:
                break
    params = best[1]
    model = ValueModel(params[:layers], params[layers:], mean, std, fingerprint,
                       meta={"hidden": list(hidden), "epochs": epoch + 1, "seed": seed,
                             "train_rows": int(train.rows), "test_rows": int(test.rows)})
    if init is not None:
        model.meta["init"] = {k: init.meta.get(k)
                              for k in ("generation", "games", "policy", "card_set")}
    model.sigma0, model.sigma1 = fit_sigma(test, test.x[:, 0] + model.predict_rows(test.x))
    report = evaluate(model, test, current=current)
    return model, report


def lambda_returns(data: Dataset, model: ValueModel, lam: float) -> np.ndarray:
    """TD(lambda) targets for each row's final score: going back from the end of the
    game, ``G_t = (1 - lam) * V(s_t+1) + lam * G_t+1`` over the seat's later rows, where
    ``V`` is ``model``'s predicted final score and the last row's target is the final
    score. ``lam = 1`` gives the final scores themselves; a smaller ``lam`` trades the
    noise of the later draws for ``model``'s error. Rows of a state are in seat order
    and a game's states in order, as :func:`generate` writes them."""
    predicted = data.x[:, 0] + model.predict_rows(data.x)
    n = data.rows
    index = np.arange(n)
    first_of_state = np.r_[True, data.state_id[1:] != data.state_id[:-1]]
    seat = index - np.maximum.accumulate(np.where(first_of_state, index, 0))
    order = np.lexsort((data.state_id, seat, data.game_id))
    target = data.final.astype(np.float64).copy()
    following = None  # the row after, in the same game and seat
    for i in order[::-1]:
        if following is not None and data.game_id[following] == data.game_id[i] \
                and seat[following] == seat[i]:
            target[i] = (1 - lam) * predicted[following] + lam * target[following]
        following = i
    return target


def _loss(params, layers, x, y) -> float:
    return float(np.mean((_forward(params, layers, x) - y) ** 2))


def _forward(params, layers, x):
    h = x
    for i in range(layers - 1):
        h = np.maximum(h @ params[i] + params[layers + i], 0.0)
    return (h @ params[layers - 1] + params[2 * layers - 1])[:, 0]


def _gradients(params, layers, x, y):
    acts = [x]
    h = x
    for i in range(layers - 1):
        h = np.maximum(h @ params[i] + params[layers + i], 0.0)
        acts.append(h)
    out = (h @ params[layers - 1] + params[2 * layers - 1])[:, 0]
    delta = (2.0 / len(y)) * (out - y)[:, None]
    gw = [None] * layers
    gb = [None] * layers
    for i in range(layers - 1, -1, -1):
        gw[i] = acts[i].T @ delta
        gb[i] = delta.sum(axis=0)
        if i:
            delta = (delta @ params[i].T) * (acts[i] > 0)
    return gw + gb


def fit_sigma(data: Dataset, predicted: np.ndarray) -> tuple[float, float]:
    """The spread ``sigma0 + sigma1 * sqrt(turns left)`` whose win shares
    (:func:`~solver.search.value.win_shares` of ``predicted`` final scores) best predict
    who won the games of ``data`` (held-out rows: least cross-entropy, on a grid of half
    points). Fitted on the outcomes themselves rather than on each score's residuals: a
    margin spreads more than either score (both seats' luck), and a spread fitted on one
    score made the early game's win probabilities overconfident."""
    batches = _win_share_batches(data, predicted)
    if not batches:
        return 4.0, 6.0  # no state with two seats: keep the hand-written evaluation's
    best = (math.inf, 4.0, 6.0)
    for s0 in np.arange(0.5, 16.01, 0.5):
        for s1 in np.arange(0.0, 16.01, 0.5):
            loss = sum(_cross_entropy(scores, shares, s0 + s1 * root)
                       for scores, shares, root in batches)
            if loss < best[0]:
                best = (loss, float(s0), float(s1))
    return best[1], best[2]


def _win_share_batches(data: Dataset, predicted: np.ndarray) -> list[tuple]:
    """Per number of seats: (predicted scores, actual win shares, sqrt(turns left)) of
    every state of ``data``, one row per state, seats in columns."""
    by_seats: dict[int, list[np.ndarray]] = {}
    for g in data.state_groups():
        if len(g) >= 2:
            by_seats.setdefault(len(g), []).append(g)
    batches = []
    for groups in by_seats.values():
        idx = np.stack(groups)
        batches.append((predicted[idx], data.winner_share[idx],
                        np.sqrt(data.turns_left[idx[:, 0]].astype(float))))
    return batches


def batch_win_shares(scores: np.ndarray, sigma: np.ndarray) -> np.ndarray:
    """:func:`~solver.search.value.win_shares` of many states at once: ``scores``
    (states, seats), ``sigma`` (states,)."""
    d = scores[:, :, None] - scores[:, None, :]
    pair = 1.0 / (1.0 + np.exp(-d * 1.7 / sigma[:, None, None]))
    n = scores.shape[1]
    pair[:, np.arange(n), np.arange(n)] = 1.0
    raw = pair.prod(axis=2)
    return raw / raw.sum(axis=1, keepdims=True)


def _cross_entropy(scores: np.ndarray, shares: np.ndarray, sigma: np.ndarray) -> float:
    p = np.clip(batch_win_shares(scores, sigma), 1e-9, 1.0)
    return float(-(shares * np.log(p)).sum())


# ------------------------------------------------------------------ report

@dataclass
class TrainReport:
    """Held-out quality of the model against the heuristic (and, when given, the current
    model: the one it would replace), by game phase."""

    rows: list[dict] = field(default_factory=list)

    def table(self) -> str:
        names = [n for n in ("heuristic", "current", "model")
                 if self.rows and f"score_mae_{n}" in self.rows[0]]
        width = 9 * len(names)
        head = " ".join(f"{n:>8}" for n in names)
        lines = [f"{'phase':<8}{'rows':>7}  {'score MAE':>{width}}  {'margin MAE':>{width}}  "
                 f"{'win Brier':>{width}}",
                 f"{'':<8}{'':>7}  {head:>{width}}  {head:>{width}}  {head:>{width}}"]
        for r in self.rows:
            cells = []
            for metric, fmt in (("score_mae", ".2f"), ("margin_mae", ".2f"), ("brier", ".3f")):
                cells.append(" ".join(f"{r[f'{metric}_{n}']:>8{fmt}}" for n in names))
            lines.append(f"{r['phase']:<8}{r['rows']:>7}  " + "  ".join(
                f"{c:>{width}}" for c in cells))
        return "\n".join(lines)

    def to_json(self) -> dict:
        return {"by_phase": self.rows}


def game_phase(turn_fraction: float) -> str:
    """The third of the game a turn fraction (turns played / all turns) falls in: the
    phases every error report is broken down by."""
    return "early" if turn_fraction < 1 / 3 else ("middle" if turn_fraction < 2 / 3 else "late")


def evaluate(model: ValueModel, data: Dataset, heuristic: HeuristicEvaluator | None = None,
             current: ValueModel | None = None) -> TrainReport:
    """Compare ``model`` with the heuristic (and with ``current``, the model it would
    replace) on ``data`` (held-out rows): ``score_mae_<name>``, ``margin_mae_<name>`` and
    ``brier_<name>`` per phase for each, and the model's calibration table."""
    heuristic = heuristic or HeuristicEvaluator()
    predictors = {"heuristic": (data.heuristic, heuristic),
                  "model": (data.x[:, 0] + model.predict_rows(data.x), model)}
    if current is not None:
        predictors["current"] = (data.x[:, 0] + current.predict_rows(data.x), current)
    frac = data.x[:, FEATURE_NAMES.index("turn_fraction")]
    named = np.array([game_phase(f) for f in frac])
    phases = [(name, named == name) for name in ("early", "middle", "late")]
    phases.append(("all", np.ones_like(frac, dtype=bool)))
    rows = []
    for name, mask in phases:
        if not mask.any():
            continue
        sub = data.subset(mask)
        row = {"phase": name, "rows": int(mask.sum())}
        for who, (pred, ev) in predictors.items():
            row[f"score_mae_{who}"] = float(np.mean(np.abs(pred[mask] - sub.final)))
            margin, brier, cal = _margins_and_brier(sub, pred[mask], ev)
            row[f"margin_mae_{who}"] = margin
            row[f"brier_{who}"] = brier
            if who == "model":
                row["calibration_model"] = cal
        rows.append(row)
    return TrainReport(rows)


def _margins_and_brier(sub: Dataset, pred: np.ndarray, ev) -> tuple[float, float, list]:
    """The mean error of ``pred``'s margins (score minus the best other score), the
    Brier score of the win shares it implies with ``ev``'s spread, and their calibration
    table (predicted win-share bins), over the states of ``sub`` (rows grouped by
    state)."""
    groups = sub.state_groups()
    errors, briers = [], []
    bins = np.zeros((10, 2))
    for g in groups:
        if len(g) < 2:
            continue
        final = sub.final[g]
        p = pred[g]
        for i in range(len(g)):
            others = np.delete(np.arange(len(g)), i)
            errors.append(abs((p[i] - p[others].max()) - (final[i] - final[others].max())))
        left = float(sub.turns_left[g[0]])
        shares = win_shares(list(p), ev.sigma0 + ev.sigma1 * math.sqrt(left))
        actual = sub.winner_share[g]
        briers.append(float(np.mean((np.array(shares) - actual) ** 2)))
        for s, a in zip(shares, actual, strict=True):
            bins[min(9, int(s * 10))] += (a, 1)
    cal = [{"predicted": (b + 0.5) / 10, "actual": float(bins[b, 0] / bins[b, 1]),
            "n": int(bins[b, 1])} for b in range(10) if bins[b, 1]]
    return float(np.mean(errors)), float(np.mean(briers)), cal


__all__ = ["Dataset", "TrainReport", "batch_win_shares", "evaluate", "fit", "fit_sigma",
           "generate", "lambda_returns", "split_games",
           "game_phase", "policy_bots", "policy_turn"]
