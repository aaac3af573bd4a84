"""The evaluation of a position: a learned value model, with the hand-written one as
fallback.

Search cuts rollouts off and must then guess every seat's final score. Two evaluators
answer ``scores(state) -> [expected final score per seat]``:

- :class:`HeuristicEvaluator`: :func:`solver.search.policies.estimate_scores`, the
  hand-written terms with least-squares weights (:data:`~solver.search.policies.EVAL_WEIGHTS`);
- :class:`ValueModel`: a small multi-layer perceptron (numpy only) trained on
  self-play (:mod:`solver.search.train`) to predict the points a seat still scores,
  from :func:`seat_features_row` of that seat. It sees the same facts as the heuristic
  plus the hand's Materials, what the seat's Highway can still pay with, the turn
  order and the player count, and learns how they combine.

Win probabilities come from predicted scores the same way for both: the chance that
one seat's final score beats another's is ``Phi(d / sigma)`` with
``sigma = sigma0 + sigma1 * sqrt(turns left)`` (the spread of final scores around the
prediction, fitted on held-out games for the model).

The model file (``.npz``) carries its format version, the feature names, the
fingerprint of the card set it was trained on and its sigma fit. :func:`default_evaluator`
uses a model trained on the cards in play (``BIGSUR_VALUE_MODEL``, else the shipped
``solver/search/models/value.npz``); on other cards, such as the printed list an owner
loads, it uses the model as is, with a warning. Its features describe Highways, hands
and Materials rather than particular cards, and on card sets reshuffled from the
reconstruction (``python -m bench.cardsets``) the shipped model beat the hand-written
evaluation as clearly as on its own cards, and beat a model trained on such a set's own
rollout games (docs/ai.md): what a model learns from searched play weighs more than
which cards it saw. Fine-tuning it on such a set's searched games (``bigsur train
--cards FILE --policy mcts:60i --init`` the shipped model) leaned ahead of it as is but
not significantly (56.5%, p = 0.095, 100 games), so it is an option, not the default.
"""

from __future__ import annotations

import io
import math
import os
import sys
import warnings
from functools import lru_cache
from pathlib import Path

import numpy as np
from threadpoolctl import ThreadpoolController

from ..rules.cards import CardSet, load_card_set
from ..rules.state import GameState, Phase
from .policies import (
    FEATURES,
    StepOutcome,
    estimate_scores,
    future_steps,
    highway_score,
    tables,
)

MODEL_FORMAT = "bigsur-value/1"
SHIPPED_MODEL = Path(__file__).with_name("models") / "value.npz"

# the inputs of the model, in order (one row per seat)
FEATURE_NAMES: tuple[str, ...] = (
    ("score_now",) + FEATURES + (
        "hand_size", "hand_stone", "hand_water", "hand_timber", "hand_engineering",
        "hand_steel", "hand_one_mile_cards", "hand_fit_max", "highway_length",
        "landmark_count", "persistent_sources", "distinct_persistent", "seats_before_me",
        "to_act_now", "turn_fraction", "players_2", "players_3", "players_4"))


def seat_features_row(state: GameState, seat: int) -> list[float]:
    """The :data:`FEATURE_NAMES` of ``seat`` in ``state`` (any phase but over)."""
    p = state.players[seat]
    f = future_steps(state, seat)
    to_act = seat == state.current and state.phase == Phase.BUILD
    seat_now = StepOutcome(tuple(p.highway), tuple(p.landmarks), tuple(p.hand),
                           bool(p.discard), tuple(state.landmark_row), False)
    return _rows(state, [seat_now], f, f > 0 or to_act,
                 before=(seat - state.current) % state.num_players, to_act=to_act,
                 turn=state.turn)[0]


def turn_end_row(state: GameState, outcome) -> list[float]:
    """:func:`seat_features_row` of the player to act once its turn has ended with
    ``outcome`` (a :class:`~solver.search.buildsteps.StepOutcome`; the game goes on),
    without making that state: the same numbers. One row of :func:`turn_end_rows`."""
    return turn_end_rows(state, [outcome])[0]


def turn_end_rows(state: GameState, outcomes) -> list[list[float]]:
    """:func:`turn_end_row` of each of ``outcomes`` (none may end the game), in one pass.
    Memoised by outcome and turn (a search's rollouts meet the same outcomes at the same
    turn again in other determinizations); the rows are shared, do not change them."""
    tab = tables(state.cards)
    memo = tab.turn_end_rows
    turns = state.player.turns
    n = state.num_players
    keys = [(o, state.turn, turns, n) for o in outcomes]
    rows = [memo.get(k) for k in keys]
    missing = [i for i, row in enumerate(rows) if row is None]
    if missing:
        f = max(tab.total_turns(state) - turns - 1, 0)
        made = _rows(state, [outcomes[i] for i in missing], f, f > 0, before=n - 1,
                     to_act=False, turn=state.turn + 1)
        for i, row in zip(missing, made, strict=True):
            rows[i] = row
            tab.remember(memo, keys[i], row)
    return rows


def _rows(state: GameState, seats, f: int, live: bool, before: int, to_act: bool,
          turn: int) -> list[list[float]]:
    """Rows of :data:`FEATURE_NAMES` of one seat in several situations (``seats``:
    :class:`~solver.search.policies.StepOutcome` values, its Highway, Landmarks, hand,
    discard and the Landmark row), all with ``f`` build steps to come, ``before`` seats
    moving before it and turn ``turn``: the terms of
    :func:`~solver.search.policies.seat_features` (each Highway's read once, each hand's
    in one loop over its cards) and the model's own."""
    tab = tables(state.cards)
    cards = state.cards
    material, persistent = cards.material, cards.persistent
    one_mile, rate = tab.one_mile, tab.growth
    n = state.num_players
    total = tab.total_turns(state) * n
    tail = [float(before), float(to_act), turn / max(total, 1), float(n == 2),
            float(n == 3), float(n == 4)]
    roads: dict[tuple, tuple] = {}  # (highway, landmarks, row) -> its part of the row
    out = []
    for seat in seats:
        hw, lms = seat.highway, seat.landmarks
        road = roads.get((hw, lms, seat.row))
        if road is None:
            persist = [persistent[c] for c in hw if one_mile[c]]
            road = roads[hw, lms, seat.row] = (
                tab.road_terms(hw, lms, f, live, seat.row), tab.fits(hw),
                [float(len(hw)), float(len(lms)), float(len(persist)),
                 float(len(set(persist)))])
        (score, growth, persistent_t, borrow, open_run, near, claim, single), fits, \
            hw_part = road
        hand = seat.hand
        counts = [0.0] * 5
        ones = hand_fit = hand_one = hand_growth = 0.0
        fit_max = 0.0 if not hand else None
        for c in hand:  # (policies._hand_terms and the counts, in the same order)
            v = fits.get(c)
            if v is None:
                v = tab.fit(hw, c)
            if fit_max is None or v > fit_max:
                fit_max = v
            counts[material[c]] += 1
            if one_mile[c]:
                ones += 1
            if f > 0:
                hand_fit += v
                if one_mile[c]:
                    hand_one += f - 1
                hand_growth += rate[c]
        if f > 0:
            hand_growth *= f - 1
            hand_card = float(len(hand))
            recycle = f if seat.has_discard else 0.0
        else:
            hand_card = recycle = 0.0
        out.append([score, float(f), persistent_t, borrow, recycle, hand_card, hand_fit,
                    hand_one, open_run, near, claim, growth, hand_growth, single,
                    float(len(hand)), *counts, ones, fit_max, *hw_part, *tail])
    return out


@lru_cache(maxsize=1)
def _blas() -> ThreadpoolController:
    return ThreadpoolController()  # (finding the loaded BLAS libraries is the slow part)


def one_blas_thread():
    """A context in which numpy's BLAS runs on one thread. The evaluation multiplies
    small matrices, often beside other searches (root-parallel workers, tournament games,
    the server's pool): more threads then only fight over the cores (a 200-row batch
    took 3x the CPU time with two threads on a loaded 2-core machine)."""
    return _blas().limit(limits=1, user_api="blas")


def turns_left(state: GameState) -> int:
    """The most turns any seat still has (0 once the game is over)."""
    if state.phase == Phase.OVER:
        return 0
    total = tables(state.cards).total_turns(state)
    return max(total - p.turns for p in state.players)


def win_shares(scores: list[float], sigma: float) -> list[float]:
    """Each seat's chance of the best score when final scores spread by ``sigma``
    around ``scores`` (a logistic approximation of pairwise normal comparisons,
    normalised to sum to 1)."""
    n = len(scores)
    raw = []
    for i in range(n):
        p = 1.0
        for j in range(n):
            if j != i:
                p *= 1.0 / (1.0 + math.exp(-(scores[i] - scores[j]) * 1.7 / sigma))
        raw.append(p)
    total = sum(raw)
    return [r / total for r in raw]


class HeuristicEvaluator:
    """The hand-written evaluation (fallback, and the baseline the model must beat)."""

    name = "heuristic"

    def __init__(self, sigma0: float = 4.0, sigma1: float = 6.0):
        self.sigma0, self.sigma1 = sigma0, sigma1

    def scores(self, state: GameState) -> list[float]:
        return estimate_scores(state)

    def seat_scores(self, states: list[GameState], seat: int) -> list[float]:
        return [self.scores(s)[seat] for s in states]

    def sigma(self, state: GameState) -> float:
        return self.sigma0 + self.sigma1 * math.sqrt(turns_left(state))


class ValueModel:
    """A trained MLP: features of a seat -> points that seat still scores.

    >>> model = ValueModel.random(seed=0)
    >>> len(model.weights) == len(model.biases) == 3
    True
    """

    name = "learned"

    def __init__(self, weights: list[np.ndarray], biases: list[np.ndarray],
                 mean: np.ndarray, std: np.ndarray, fingerprint: str,
                 sigma0: float = 4.0, sigma1: float = 6.0, meta: dict | None = None):
        self.weights = [np.asarray(w, dtype=np.float64) for w in weights]
        self.biases = [np.asarray(b, dtype=np.float64) for b in biases]
        self.mean = np.asarray(mean, dtype=np.float64)
        self.std = np.asarray(std, dtype=np.float64)
        self.fingerprint = fingerprint
        self.sigma0, self.sigma1 = float(sigma0), float(sigma1)
        self.meta = dict(meta or {})
        self.source: str | None = None  # the file it was loaded from
        # fold the input scaling into the first layer: one matmul less per call
        self._w0 = self.weights[0] / self.std[:, None]
        self._b0 = self.biases[0] - (self.mean / self.std) @ self.weights[0]

    @classmethod
    def random(cls, seed: int = 0, hidden: tuple[int, ...] = (64, 64),
               fingerprint: str = "", inputs: int | None = None) -> ValueModel:
        """An untrained model (He initialisation), the start of training. ``inputs``:
        another number of input columns than :data:`FEATURE_NAMES` (feature experiments,
        ``bench.value_features``; such a model is not for saving)."""
        rng = np.random.default_rng(seed)
        d = inputs or len(FEATURE_NAMES)
        sizes = (d, *hidden, 1)
        pairs = zip(sizes, sizes[1:], strict=False)
        weights = [rng.normal(0, math.sqrt(2 / a), (a, b)) for a, b in pairs]
        biases = [np.zeros(b) for b in sizes[1:]]
        return cls(weights, biases, np.zeros(d), np.ones(d), fingerprint)

    def widened(self, mean: np.ndarray, std: np.ndarray) -> ValueModel:
        """The same model with more inputs that it ignores for now (zero weights), scaled
        by ``mean`` and ``std``: the start of a fine-tune on more features, which keeps
        what the model learned instead of fitting afresh.

        >>> m = ValueModel.random(seed=0, inputs=3)
        >>> w = m.widened(np.zeros(2), np.ones(2))
        >>> bool(np.allclose(w.predict_rows(np.ones((1, 5))), m.predict_rows(np.ones((1, 3)))))
        True
        """
        extra = np.zeros((len(mean), self.weights[0].shape[1]))
        weights = [np.vstack([self.weights[0], extra]), *self.weights[1:]]
        std = np.where(np.asarray(std) < 1e-6, 1.0, std)
        return ValueModel(weights, self.biases, np.r_[self.mean, mean], np.r_[self.std, std],
                          self.fingerprint, self.sigma0, self.sigma1, self.meta)

    # ------------------------------------------------------------ evaluation

    def predict_rows(self, x: np.ndarray) -> np.ndarray:
        """Points still to come for rows of :data:`FEATURE_NAMES` (unscaled)."""
        h = np.maximum(x @ self._w0 + self._b0, 0.0)
        for w, b in zip(self.weights[1:-1], self.biases[1:-1], strict=True):
            h = np.maximum(h @ w + b, 0.0)
        return (h @ self.weights[-1] + self.biases[-1])[:, 0]

    def scores(self, state: GameState) -> list[float]:
        """Expected final score of every seat (exact once the game is over)."""
        if state.phase == Phase.OVER:
            return estimate_scores(state)
        rows = [seat_features_row(state, i) for i in range(state.num_players)]
        x = np.array(rows)
        return (x[:, 0] + self.predict_rows(x)).tolist()

    def seat_scores(self, states: list[GameState], seat: int) -> list[float]:
        """``seat``'s expected final score in each of ``states``, the same numbers as
        ``scores(state)[seat]`` (exact once a game is over), the live ones in one batch."""
        exact = [float(estimate_scores(s)[seat]) if s.phase == Phase.OVER else None
                 for s in states]
        return self._predicted_where_none(
            exact, [seat_features_row(s, seat) for s in states if s.phase != Phase.OVER])

    def turn_end_scores(self, state: GameState, outcomes) -> list[float]:
        """The expected final score of the player to act once its turn has ended with
        each of ``outcomes`` (:class:`~solver.search.buildsteps.StepOutcome`): the same
        numbers as :meth:`seat_scores` of those states, without making them."""
        cards = state.cards
        exact = [float(highway_score(cards, o.highway, o.landmarks)) if o.over else None
                 for o in outcomes]
        return self._predicted_where_none(
            exact, turn_end_rows(state, [o for o in outcomes if not o.over]))

    def _predicted_where_none(self, exact: list, rows: list[list[float]]) -> list[float]:
        """``exact`` with each None replaced, in order, by the predicted final score of
        the next of ``rows`` (feature rows; one batch)."""
        if not rows:
            return exact
        x = np.array(rows)
        predicted = iter((x[:, 0] + self.predict_rows(x)).tolist())
        return [next(predicted) if v is None else v for v in exact]

    def sigma(self, state: GameState) -> float:
        return self.sigma0 + self.sigma1 * math.sqrt(turns_left(state))

    # ------------------------------------------------------------ files

    def to_bytes(self) -> bytes:
        if len(self.mean) != len(FEATURE_NAMES):
            raise ValueModelError(f"a model of {len(self.mean)} inputs is an experiment: "
                                  f"a model file has the {len(FEATURE_NAMES)} FEATURE_NAMES")
        buf = io.BytesIO()
        arrays = {f"w{i}": w for i, w in enumerate(self.weights)}
        arrays.update({f"b{i}": b for i, b in enumerate(self.biases)})
        header = {"format": MODEL_FORMAT, "features": list(FEATURE_NAMES),
                  "fingerprint": self.fingerprint, "sigma0": self.sigma0,
                  "sigma1": self.sigma1, "meta": self.meta}
        import json

        np.savez_compressed(buf, mean=self.mean, std=self.std,
                            header=np.frombuffer(json.dumps(header).encode(), dtype=np.uint8),
                            **arrays)
        return buf.getvalue()

    def save(self, path: str | Path) -> None:
        Path(path).write_bytes(self.to_bytes())

    @classmethod
    def load(cls, path: str | Path) -> ValueModel:
        """Read a model file; :class:`ValueModelError` names what is wrong with it."""
        import json

        try:
            with np.load(Path(path), allow_pickle=False) as z:
                header = json.loads(bytes(z["header"]).decode())
                layers = sum(1 for k in z.files if k.startswith("w"))
                weights = [z[f"w{i}"] for i in range(layers)]
                biases = [z[f"b{i}"] for i in range(layers)]
                mean, std = z["mean"], z["std"]
        except (OSError, KeyError, ValueError) as err:
            raise ValueModelError(f"value model {path}: not a model file ({err})") from None
        if header.get("format") != MODEL_FORMAT:
            raise ValueModelError(f"value model {path}: format {header.get('format')!r}, "
                                  f"expected {MODEL_FORMAT!r}")
        if tuple(header.get("features", ())) != FEATURE_NAMES:
            raise ValueModelError(f"value model {path}: trained on other features; "
                                  "retrain it with `bigsur train`")
        model = cls(weights, biases, mean, std, header["fingerprint"], header["sigma0"],
                    header["sigma1"], header.get("meta"))
        model.source = str(path)
        return model


class ValueModelError(ValueError):
    """A value model file that cannot be used."""


Evaluator = HeuristicEvaluator | ValueModel


@lru_cache(maxsize=8)
def _shipped(path: str) -> ValueModel | None:
    if not Path(path).exists():
        return None
    return ValueModel.load(path)


def _models_on_offer() -> list[ValueModel]:
    """The models on offer, first choice first: ``BIGSUR_VALUE_MODEL``, then the shipped."""
    paths = [os.environ.get("BIGSUR_VALUE_MODEL"), str(SHIPPED_MODEL)]
    return [m for m in (_shipped(p) for p in dict.fromkeys(filter(None, paths)))
            if m is not None]


def model_in_use(cards: CardSet) -> ValueModel | None:
    """The learned model the search evaluates ``cards`` with: the first model on offer
    trained on them, else the first model on offer, trained on other cards and used as
    is; None when there is no model file at all."""
    offered = _models_on_offer()
    return next((m for m in offered if m.fingerprint == cards.fingerprint),
                offered[0] if offered else None)


def current_model(cards: CardSet) -> ValueModel | None:
    """The learned model trained on ``cards`` (``BIGSUR_VALUE_MODEL``'s, else the
    shipped one), or None when neither was."""
    model = model_in_use(cards)
    return model if model is not None and model.fingerprint == cards.fingerprint else None


def default_evaluator(cards: CardSet) -> Evaluator:
    """:func:`model_in_use` (with a warning, once per card set, when it was trained on
    other cards), else the hand-written heuristic."""
    model = model_in_use(cards)
    if model is None:
        return HeuristicEvaluator()
    if model.fingerprint != cards.fingerprint and not _same_cards(model, cards):
        _warn_other_cards(cards.fingerprint, cards.name, model.fingerprint)
    return model


def _same_cards(model: ValueModel, cards: CardSet) -> bool:
    """Whether ``model`` was trained on the cards of ``cards`` under another name or
    description (``cards_fingerprint``): known of the shipped set's cards, as a model file
    records only its set's ``fingerprint``."""
    default = load_card_set()
    return (model.fingerprint == default.fingerprint
            and cards.cards_fingerprint == default.cards_fingerprint)


@lru_cache(maxsize=32)
def _warn_other_cards(fingerprint: str, name: str, trained_on: str) -> None:
    warnings.warn(f"no value model was trained on card set {name!r} ({fingerprint[:12]}); "
                  f"the one trained on {trained_on[:12]} is used as is: on reshuffled card "
                  "sets it played as well as on its own, and fine-tuning it on such a set's "
                  "searched games (`bigsur train --cards FILE --policy mcts:60i --init "
                  "MODEL`) gained no significant strength (docs/ai.md)",
                  stacklevel=_outside_this_package())


_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _outside_this_package() -> int:
    """The ``stacklevel`` of a warning given by this function's caller that names the
    first frame outside the ``solver`` package: the user's call, however deep the search
    made it."""
    frame, level = sys._getframe(2), 2  # (1 is the caller, the frame that warns)
    while frame is not None and os.path.abspath(frame.f_code.co_filename).startswith(
            _PACKAGE):
        frame, level = frame.f_back, level + 1
    return level if frame is not None else 1


__all__ = ["FEATURE_NAMES", "HeuristicEvaluator", "SHIPPED_MODEL", "ValueModel",
           "ValueModelError", "current_model", "default_evaluator", "model_in_use",
           "one_blas_thread", "seat_features_row", "turn_end_row", "turn_end_rows",
           "turns_left", "win_shares"]
