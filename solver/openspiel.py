"""Big Sur as an OpenSpiel game (``python_big_sur``), and OpenSpiel's bots as our bots.

Optional: needs the ``[openspiel]`` extra (``pip install 'bigsur-solver[openspiel]'``,
the ``open-spiel`` package). Importing this module registers the game::

    import pyspiel
    import solver.openspiel  # registers python_big_sur
    game = pyspiel.load_game("python_big_sur", {"players": 3})

The game
--------
- Sequential, explicit stochastic, imperfect information, terminal rewards, 2-4 players
  (parameter ``players``, default 2; parameter ``cards``: ``"default"``, a card-set file,
  or a set registered with :func:`game_for`).
- **Chance.** The setup is dealt one chance outcome at a time: each seat's 2 hand cards
  (seat 0 first), the 5 Depot cards, the Landmark row, then the first player. In play,
  every card leaving the Highway deck is a chance outcome: a player's ``take deck``, and
  each card of the end-of-turn Depot refill (after ``end`` or a claim); the Landmark that
  refills the row after a claim is one too (before the Depot refill). Outcomes are
  uniform over the cards still hidden in that deck. Outcome ids: Highway card index
  ``c`` (0..H-1), Landmark ``H + j``, first player ``H + L + seat``.
- **Actions** are the engine's abstraction (:func:`solver.rules.engine.legal_actions`:
  builds carry no payment, the engine pays the cheapest way), coded by
  :class:`ActionCodec`: take Depot card ``c`` = ``c``; take deck = ``H``; build ``c`` at
  L/R = ``H + 1 + 2c`` / ``H + 2 + 2c``; claim Landmark ``j`` above ``c`` =
  ``3H + 1 + jH + c``; end = ``3H + 1 + LH``. Action strings are our notation
  (``take H12``, ``take deck``, ``build H12 L``, ``claim L03 H12``, ``end``); chance
  strings are the card ids (``draw H12``, ``draw L03``, ``first player 1``).
  ``apply_action`` checks its id: an action that is not legal now, or a chance outcome
  that is not among ``chance_outcomes()``, raises ``IllegalActionError`` (an id that
  codes no action at all: :class:`ActionCodeError`) and leaves the state unchanged.
- **Rewards** (terminal, zero-sum): with ``n`` players and win share ``w`` (1 for a sole
  winner, ``1/k`` to each of ``k`` tied winners, 0 for a loser), a seat gets
  ``(n w - 1) / (n - 1)``. Two players: +1 win, -1 loss, 0 tie. Four players: a sole
  winner +1, each loser -1/3; everyone tied: 0.
- **Information state = observation** = the player's :class:`~solver.rules.views.PlayerView`
  (its own cards, all public facts and what is publicly known of the other hands and
  discard piles; :mod:`solver.rules.views`) plus the public part of a pending chance
  sequence (the action being resolved, the next Landmark). The view keeps every fact the
  rules let a seat see that can still matter, but not the order in which they were seen:
  it is the information state of a player who remembers facts, not the full
  action-observation history, so histories that reach the same view share one string.
- **Resampling** (:meth:`BigSurState.resample_from_infostate`) uses our determinizer
  (:class:`~solver.search.determinize.Determinizer`): a uniform draw over the full states
  matching the view, seeded from the ``probability_sampler``. Python callers (OpenSpiel's
  Python ``ISMCTSBot``) use it; C++ algorithms cannot see a Python game's resampler.
- **OpenSpiel's own tools**: ``pyspiel.random_sim_test`` and the Python ``MCTSBot`` /
  ``ISMCTSBot`` work. With open-spiel 2.0.2, C++ bots such as ``pyspiel.MCTSBot``
  crash (segmentation fault) on Python games, OpenSpiel's ``python_kuhn_poker`` too,
  and ``evaluate_bots.evaluate_bots`` stops on the Python bots (no ``restart_at``):
  play the Python bots in your own loop (``bot.step(state)``).
- Clones share the card set; ``serialize`` pickles the state's fields plus the name of
  the card set (so it round-trips any state). A resampled state or one made by
  :func:`state_from_engine` starts with an empty ``history()``.

Bots
----
:class:`OpenSpielBot` puts OpenSpiel's Python ``ISMCTSBot`` (``os-ismcts``) or its
Python ``MCTSBot`` searching one determinization (``os-mcts``) behind our
:class:`~solver.search.bots.Bot` protocol, with a budget per turn split like our
MCTSBot's; :func:`register_bots` adds their specs (``os-ismcts:200i``, ``os-mcts:0.5s``)
to :func:`~solver.search.bots.make_bot`.
"""

from __future__ import annotations

import json
import random
import time
from pathlib import Path

try:
    import numpy as np
    import pyspiel
    from open_spiel.python.algorithms import ismcts as _os_ismcts
    from open_spiel.python.algorithms import mcts as _os_mcts
except ImportError as _err:  # pragma: no cover - exercised only without the extra
    raise ImportError("solver.openspiel needs OpenSpiel: pip install "
                      "'bigsur-solver[openspiel]' (the open-spiel package)") from _err

from .rules.actions import Action, Build, Claim, End, IllegalActionError, Take
from .rules.cards import CardSet, load_card_set
from .rules.constants import DEPOT_SIZE, HAND_SIZE, LANDMARK_ROW_SIZE, MATERIALS, MAX_PLAYERS
from .rules.engine import apply_inplace, legal_actions, new_game, turns_per_player
from .rules.position import per_turn_to_json, state_to_json
from .rules.scoring import final_scores
from .rules.state import GameState, Phase, PlayerState
from .rules.views import OpponentView, PlayerView, view_of
from .rules.wording import plural
from .search.determinize import Determinizer

GAME_NAME = "python_big_sur"
DEFAULT_PARAMS = {"players": 2, "cards": "default"}


class OpenSpielParamError(ValueError):
    """A game parameter of ``python_big_sur`` that cannot be used (named in the message)."""


class ActionCodeError(ValueError):
    """An action or action id that has no code in this game (named in the message)."""


# ------------------------------------------------------------------ card sets by name

_CARD_SETS: dict[str, CardSet] = {}


def _cards_for(spec: str) -> CardSet:
    """The card set a ``cards`` parameter names: "default", "set:<fingerprint>" (one
    registered by :func:`game_for` in this process) or a card-set file."""
    if spec in _CARD_SETS:
        return _CARD_SETS[spec]
    if spec.startswith("set:"):
        raise OpenSpielParamError(f"cards: no card set {spec!r} was registered in this "
                                  "process (use game_for(cards, players))")
    try:
        cards = load_card_set(None if spec == "default" else Path(spec))
    except ValueError as err:
        raise OpenSpielParamError(f"cards: {err}") from None
    _CARD_SETS[spec] = cards
    return cards


def cards_param(cards: CardSet) -> str:
    """The ``cards`` parameter naming ``cards`` (registering it in this process)."""
    default = load_card_set()
    if cards.fingerprint == default.fingerprint:
        return "default"
    spec = f"set:{cards.fingerprint}"
    _CARD_SETS[spec] = cards
    return spec


# ------------------------------------------------------------------ action codes

class ActionCodec:
    """Integer codes of the player actions and chance outcomes of one card set (see the
    module doc for the layout)."""

    def __init__(self, cards: CardSet):
        self.cards = cards
        self.h = h = len(cards.highway)
        self.lm = lm = len(cards.landmarks)
        self.take_deck = h
        self.build0 = h + 1
        self.claim0 = 3 * h + 1
        self.end = 3 * h + 1 + lm * h
        self.num_actions = self.end + 1
        self.landmark0 = h  # chance: Landmark j = h + j
        self.first0 = h + lm  # chance: first player s = h + lm + s
        self.num_chance = h + lm + MAX_PLAYERS
        self._hid = [c.id for c in cards.highway]
        self._lid = [x.id for x in cards.landmarks]

    def encode(self, action: Action) -> int:
        cards = self.cards
        kind = type(action)
        try:
            if kind is Take:
                return self.take_deck if action.card is None else cards.highway_index[action.card]
            if kind is Build:
                if action.payment is not None:
                    raise ActionCodeError(f"{action.notation()!r}: only builds paid the "
                                          "cheapest way (no 'pay ...') have a code")
                if action.side not in ("L", "R"):
                    raise ActionCodeError(f"{action.notation()!r}: side must be L or R")
                return self.build0 + 2 * cards.highway_index[action.card] + (action.side == "R")
            if kind is Claim:
                return (self.claim0 + cards.landmark_index[action.landmark] * self.h
                        + cards.highway_index[action.card])
            if kind is End:
                return self.end
        except KeyError as err:
            raise ActionCodeError(f"{action.notation()!r}: unknown card {err.args[0]!r} in "
                                  f"card set {cards.name!r}") from None
        raise ActionCodeError(f"not an action: {action!r}")

    def decode(self, code: int) -> Action:
        code = int(code)
        h = self.h
        if 0 <= code < h:
            return Take(self._hid[code])
        if code == self.take_deck:
            return Take(None)
        if self.build0 <= code < self.claim0:
            c, right = divmod(code - self.build0, 2)
            return Build(self._hid[c], "R" if right else "L")
        if self.claim0 <= code < self.end:
            j, c = divmod(code - self.claim0, h)
            return Claim(self._lid[j], self._hid[c])
        if code == self.end:
            return End()
        raise ActionCodeError(f"action id {code}: must be 0 to {self.end}")

    def chance_string(self, code: int) -> str:
        code = int(code)
        if 0 <= code < self.h:
            return f"draw {self._hid[code]}"
        if self.landmark0 <= code < self.first0:
            return f"draw {self._lid[code - self.landmark0]}"
        if self.first0 <= code < self.num_chance:
            return f"first player {code - self.first0}"
        raise ActionCodeError(f"chance outcome {code}: must be 0 to {self.num_chance - 1}")


# ------------------------------------------------------------------ game state box

_HAND, _DEPOT, _ROW, _FIRST = "hand", "depot", "row", "first"


class _Box:
    """Everything a :class:`BigSurState` holds, in one attribute so that OpenSpiel's
    clone (a deepcopy of each attribute) copies it with :meth:`GameState.copy` and its
    pickling names the card set instead of copying it.

    ``setup``: setup slots still to deal; ``pending``: the player action whose chance
    outcomes are being drawn (``take deck``, or ``end`` / a claim awaiting the next
    Landmark and the Depot refill); ``next_landmark``: the Landmark drawn for a pending
    claim (public)."""

    __slots__ = ("gs", "spec", "setup", "pending", "landmark_due", "next_landmark",
                 "_legal", "_dets")

    def __init__(self, gs: GameState, spec: str, setup: tuple = (), pending=None,
                 landmark_due: bool = False, next_landmark: int | None = None):
        self.gs = gs
        self.spec = spec
        self.setup = setup
        self.pending = pending
        self.landmark_due = landmark_due
        self.next_landmark = next_landmark
        self._legal: tuple[list[int], dict[int, Action]] | None = None
        self._dets: dict[int, Determinizer] | None = None

    def copy(self) -> _Box:
        box = _Box(self.gs.copy(), self.spec, self.setup, self.pending, self.landmark_due,
                   self.next_landmark)
        box._legal = self._legal  # immutable once built
        return box

    def __deepcopy__(self, memo) -> _Box:
        return self.copy()

    def __getstate__(self) -> dict:
        gs = self.gs
        return {
            "spec": self.spec, "setup": list(self.setup),
            "pending": None if self.pending is None else self.pending.notation(),
            "landmark_due": self.landmark_due, "next_landmark": self.next_landmark,
            "players": [[p.hand, p.highway, p.discard, p.landmarks, sorted(p.known_hand),
                         sorted(p.known_discard), p.turns] for p in gs.players],
            "deck": gs.deck, "depot": gs.depot, "landmark_deck": gs.landmark_deck,
            "landmark_row": gs.landmark_row, "current": gs.current,
            "first_player": gs.first_player, "phase": int(gs.phase), "picks": gs.picks,
            "turn": gs.turn, "recycle_used": gs.recycle_used,
            "persistent_uses": sorted(gs.persistent_uses.items()),
            "resource_uses": sorted(gs.resource_uses.items()),
        }

    def __setstate__(self, raw: dict) -> None:
        cards = _cards_for(raw["spec"])
        players = [PlayerState(list(h), list(hw), list(d), [tuple(x) for x in lms], set(kh),
                               set(kd), t) for h, hw, d, lms, kh, kd, t in raw["players"]]
        gs = GameState(cards, players, list(raw["deck"]), list(raw["depot"]),
                       list(raw["landmark_deck"]), list(raw["landmark_row"]), raw["current"],
                       raw["first_player"], Phase(raw["phase"]), raw["picks"], raw["turn"],
                       raw["recycle_used"], dict(raw["persistent_uses"]),
                       dict(raw["resource_uses"]))
        self.__init__(gs, raw["spec"], tuple(tuple(s) for s in raw["setup"]),
                      None if raw["pending"] is None else Action.parse(raw["pending"]),
                      raw["landmark_due"], raw["next_landmark"])


# ------------------------------------------------------------------ the game

def _game_type() -> pyspiel.GameType:
    return pyspiel.GameType(
        short_name=GAME_NAME,
        long_name="Python Big Sur",
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=MAX_PLAYERS,
        min_num_players=2,
        provides_information_state_string=True,
        provides_information_state_tensor=True,
        provides_observation_string=True,
        provides_observation_tensor=True,
        parameter_specification=dict(DEFAULT_PARAMS))


_GAME_TYPE = _game_type()


def utilities(num_players: int, winners) -> list[float]:
    """Zero-sum rewards from the winners: ``(n w - 1) / (n - 1)`` per seat, ``w`` its
    win share (1 sole winner, 1/k each of k tied winners, 0 loser)."""
    n = num_players
    share = 1.0 / len(winners)
    return [(n * (share if i in winners else 0.0) - 1.0) / (n - 1) for i in range(n)]


class BigSurGame(pyspiel.Game):
    """``python_big_sur`` (see the module doc). Parameters: ``players`` (2-4) and
    ``cards`` (a card-set name, see :func:`_cards_for`)."""

    def __init__(self, params=None):
        params = {**DEFAULT_PARAMS, **(params or {})}
        players = params["players"]
        if isinstance(players, bool) or not isinstance(players, int) or not 2 <= players <= 4:
            raise OpenSpielParamError(f"players: must be 2, 3 or 4, got {players!r}")
        spec = params["cards"]
        if not isinstance(spec, str) or not spec:
            raise OpenSpielParamError(f"cards: must be a card-set name or file, got {spec!r}")
        cards = _cards_for(spec)
        new_game(players, 0, cards)  # SetupError if the deck does not suit this count
        self.cards = cards
        self.spec = spec
        self.codec = ActionCodec(cards)
        deck = cards.deck_for(players)
        lm_count = len(cards.landmarks)
        row = min(LANDMARK_ROW_SIZE, lm_count)
        self.setup_slots = tuple([(_HAND, s) for s in range(players) for _ in range(HAND_SIZE)]
                                 + [(_DEPOT,)] * DEPOT_SIZE + [(_ROW,)] * row + [(_FIRST,)])
        self.total_turns = turns_per_player(new_game(players, 0, cards)) * players
        # every card is built at most once; per turn 2 takes and an end or a claim;
        # chance: the setup, every later deck card and every Landmark refill
        max_len = (3 * self.total_turns + len(deck) + len(self.setup_slots)
                   + len(deck) + lm_count)
        info = pyspiel.GameInfo(
            num_distinct_actions=self.codec.num_actions,
            max_chance_outcomes=self.codec.num_chance,
            num_players=players,
            min_utility=-1.0 / (players - 1),
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=max_len)
        super().__init__(_GAME_TYPE, info, params)
        self._template = _Box(
            GameState(cards, [PlayerState() for _ in range(players)], list(deck), [],
                      list(range(lm_count)), []), spec, self.setup_slots)

    def new_initial_state(self) -> BigSurState:
        return BigSurState(self, self._template.copy())

    def make_py_observer(self, iig_obs_type=None, params=None) -> BigSurObserver:
        return BigSurObserver(self, iig_obs_type, params)


class BigSurState(pyspiel.State):
    """One history of ``python_big_sur``: an engine :class:`GameState` plus the setup
    and pending chance steps (see the module doc)."""

    def __init__(self, game: BigSurGame, box: _Box | None = None):
        super().__init__(game)
        self._b = box if box is not None else game._template.copy()

    # -------------------------------------------------------------- engine access

    @property
    def engine_state(self) -> GameState:
        """The engine state (do not change it: the state caches its legal actions)."""
        return self._b.gs

    def _codec(self) -> ActionCodec:
        return self.get_game().codec

    # -------------------------------------------------------------- OpenSpiel API

    def current_player(self) -> int:
        b = self._b
        if b.setup or b.pending is not None:
            return pyspiel.PlayerId.CHANCE
        if b.gs.phase == Phase.OVER:
            return pyspiel.PlayerId.TERMINAL
        return b.gs.current

    def _legal(self) -> tuple[list[int], dict[int, Action]]:
        b = self._b
        if b._legal is None:
            codec = self._codec()
            by_code = {codec.encode(a): a for a in legal_actions(b.gs)}
            b._legal = (sorted(by_code), by_code)
        return b._legal

    def _legal_actions(self, player: int) -> list[int]:
        if player != self.current_player():
            return []
        return list(self._legal()[0])

    def chance_outcomes(self) -> list[tuple[int, float]]:
        codes = self._chance_codes()
        p = 1.0 / len(codes)
        return [(c, p) for c in codes]

    def _chance_codes(self) -> list[int]:
        """The ids of the chance node's outcomes, all equally likely, in order."""
        b = self._b
        gs = b.gs
        codec = self._codec()
        kind = b.setup[0][0] if b.setup else None
        if kind == _ROW or (kind is None and b.landmark_due):
            return [codec.landmark0 + j for j in sorted(gs.landmark_deck)]
        if kind == _FIRST:
            return [codec.first0 + s for s in range(gs.num_players)]
        return sorted(gs.deck)

    def _apply_action(self, action: int) -> None:
        b = self._b
        if b.setup or b.pending is not None:
            self._check_chance(action)
            move = None
        else:
            move = self._legal()[1].get(action)
            if move is None:
                raise self._illegal(action)
        b._legal = None
        b._dets = None
        gs = b.gs
        codec = self._codec()
        if b.setup:
            kind = b.setup[0]
            b.setup = b.setup[1:]
            if kind[0] == _ROW:
                gs.landmark_deck.remove(action - codec.landmark0)
                gs.landmark_row.append(action - codec.landmark0)
            elif kind[0] == _FIRST:
                gs.current = gs.first_player = action - codec.first0
            else:
                gs.deck.remove(action)
                (gs.players[kind[1]].hand if kind[0] == _HAND else gs.depot).append(action)
            return
        if b.pending is not None:
            if b.landmark_due:  # the Landmark that refills the row after a claim
                gs.landmark_deck.remove(action - codec.landmark0)
                gs.landmark_deck.append(action - codec.landmark0)  # next drawn
                b.landmark_due = False
                b.next_landmark = action - codec.landmark0
            elif type(b.pending) is Take:  # take deck: this card is drawn
                gs.deck.remove(action)
                gs.deck.append(action)
                apply_inplace(gs, b.pending)
                b.pending = None
                return
            else:  # one card of the end-of-turn Depot refill
                gs.deck.remove(action)
                gs.depot.append(action)
            self._resolve()
            return
        kind = type(move)
        if kind is Take and move.card is None:
            b.pending = move
        elif kind is End or kind is Claim:
            b.pending = move
            b.landmark_due = kind is Claim and bool(gs.landmark_deck)
            self._resolve()
        else:
            apply_inplace(gs, move)

    def _illegal(self, code: int) -> IllegalActionError:
        """The error for a player action id that is not legal here (the state is unchanged)."""
        gs = self._b.gs
        what = self._codec().decode(code).notation()  # ActionCodeError if no action at all
        if gs.phase == Phase.OVER:
            return IllegalActionError(f"action id {code} ({what!r}) is not legal: the game "
                                      f"is over (after {plural(gs.turn, 'turn')})")
        legal = ", ".join(a.notation() for a in self._legal()[1].values())
        return IllegalActionError(f"action id {code} ({what!r}) is not legal for seat "
                                  f"{gs.current} (turn {gs.turn + 1}, {gs.phase.name.lower()} "
                                  f"step); legal: {legal}")

    def _check_chance(self, code: int) -> None:
        """Raise IllegalActionError unless ``code`` is one of the current chance outcomes
        (checked before anything changes, so a bad id leaves the state as it was)."""
        if code not in self._chance_codes():
            codec = self._codec()
            try:
                what = f" ({codec.chance_string(code)!r})"
            except ActionCodeError:
                what = ""
            raise IllegalActionError(f"chance outcome {code}{what} is not possible here: "
                                     "see chance_outcomes()")

    def _resolve(self) -> None:
        """Apply a pending ``end`` / claim once its chance outcomes are all drawn (the
        engine's own refill then finds the Depot full)."""
        b = self._b
        gs = b.gs
        if b.landmark_due or (len(gs.depot) < DEPOT_SIZE and gs.deck):
            return
        apply_inplace(gs, b.pending)
        b.pending = None
        b.next_landmark = None

    def _action_to_string(self, player: int, action: int) -> str:
        codec = self._codec()
        if player == pyspiel.PlayerId.CHANCE:
            return codec.chance_string(action)
        return codec.decode(action).notation()

    def is_terminal(self) -> bool:
        b = self._b
        return b.gs.phase == Phase.OVER and b.pending is None and not b.setup

    def returns(self) -> list[float]:
        gs = self._b.gs
        if not self.is_terminal():
            return [0.0] * gs.num_players
        return utilities(gs.num_players, final_scores(gs).winners)

    def resample_from_infostate(self, player_id: int, probability_sampler) -> BigSurState:
        """A state drawn uniformly from those with the same information state for
        ``player_id`` (our determinizer), seeded by one call of ``probability_sampler``
        (any callable returning a float in [0, 1), e.g. OpenSpiel's
        ``UniformProbabilitySampler`` or ``random.Random(seed).random``)."""
        b = self._b
        if b._dets is None:
            b._dets = {}
        det = b._dets.get(player_id)
        if det is None:
            det = b._dets[player_id] = Determinizer(view_of(b.gs, player_id))
        seed = int(float(probability_sampler()) * 2**53)
        sample = det.sample(random.Random(seed))
        if b.next_landmark is not None:  # public: the Landmark drawn for a pending claim
            sample.landmark_deck.remove(b.next_landmark)
            sample.landmark_deck.append(b.next_landmark)
        box = _Box(sample, b.spec, b.setup, b.pending, b.landmark_due, b.next_landmark)
        return BigSurState(self.get_game(), box)

    def __str__(self) -> str:
        b = self._b
        raw = state_to_json(b.gs)
        raw.pop("cards", None)
        raw["setup_left"] = len(b.setup)
        raw["pending"] = None if b.pending is None else b.pending.notation()
        raw["landmark_due"] = b.landmark_due
        return json.dumps(raw, sort_keys=True)


def state_from_engine(game: BigSurGame, gs: GameState) -> BigSurState:
    """A ``python_big_sur`` state holding a copy of the engine state ``gs`` (set up, not
    inside a chance step), e.g. to let an OpenSpiel bot choose a move. Its history is
    empty: it starts where ``gs`` is."""
    if gs.num_players != game.num_players():
        raise OpenSpielParamError(f"state: has {gs.num_players} players but the game "
                                  f"{game} has {game.num_players()}")
    if gs.cards.fingerprint != game.cards.fingerprint:
        raise OpenSpielParamError(f"state: played with card set {gs.cards.label}, the game "
                                  f"uses {game.cards.label}")
    return BigSurState(game, _Box(gs.copy(), game.spec))


_GAMES: dict[tuple[int, str], BigSurGame] = {}


def game_for(cards: CardSet | None = None, players: int = 2) -> BigSurGame:
    """The ``python_big_sur`` game of ``players`` seats with ``cards`` (default set when
    None), loaded through ``pyspiel.load_game`` once per process."""
    spec = cards_param(cards or load_card_set())
    key = (players, spec)
    if key not in _GAMES:
        _GAMES[key] = pyspiel.load_game(GAME_NAME, {"players": players, "cards": spec})
    return _GAMES[key]


# ------------------------------------------------------------------ observations

_BORROWS = ("borrow_highway", "borrow_discard")  # Landmark abilities counted per turn


class BigSurObserver:
    """Strings and tensors of a seat's view (information state = observation; see the
    module doc). ``private_info`` NONE leaves out the seat's own hand and discard fronts
    (what every seat knows of it); ALL_PLAYERS is not offered (use the full state)."""

    def __init__(self, game: BigSurGame, iig_obs_type=None, params=None):
        if params:
            raise OpenSpielParamError(f"observer params: none are supported, got {params}")
        private = pyspiel.PrivateInfoType.SINGLE_PLAYER
        if iig_obs_type is not None:
            if not iig_obs_type.public_info:
                raise OpenSpielParamError("observer public_info: must be True (a seat's view "
                                          "is mostly public facts)")
            private = iig_obs_type.private_info
        if private == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise OpenSpielParamError("observer private_info: ALL_PLAYERS is not offered; "
                                      "read BigSurState.engine_state instead")
        self.private = private == pyspiel.PrivateInfoType.SINGLE_PLAYER
        self.game = game
        cards = game.cards
        h, lm, n, m = len(cards.highway), len(cards.landmarks), game.num_players(), len(MATERIALS)
        pieces = [("viewer", (n if self.private else 0,)), ("current", (n + 1,)),
                  ("stage", (5,)), ("picks", (1,)),
                  ("progress", (3,)), ("depot", (h,)), ("landmark_row", (lm,)),
                  ("next_landmark", (lm,)), ("recycle_used", (1,)),
                  ("persistent_uses", (h,)), ("borrow_uses", (len(_BORROWS),))]
        if self.private:
            pieces += [("hand", (h,)), ("discard", (h,)), ("discard_top", (h,))]
        pieces += [("highway", (n, h)), ("highway_ends", (n, 2, h)),
                   ("highway_position", (n, h)), ("landmarks", (n, lm)),
                   ("landmark_cards", (n, h)), ("landmark_position", (n, lm)),
                   ("hand_count", (n,)), ("known_hand", (n, h)),
                   ("discard_materials", (n, m)), ("discard_top_material", (n, m)),
                   ("known_discard", (n, h)), ("turns", (n,))]
        total = sum(int(np.prod(shape)) for _name, shape in pieces)
        self.tensor = np.zeros(total, np.float32)
        self.dict = {}
        at = 0
        for name, shape in pieces:
            size = int(np.prod(shape))
            self.dict[name] = self.tensor[at:at + size].reshape(shape)
            at += size

    def set_from(self, state: BigSurState, player: int) -> None:
        b = state._b
        gs = b.gs
        d = self.dict
        self.tensor.fill(0.0)
        n = gs.num_players
        cards = gs.cards
        h = len(cards.highway)
        if self.private:
            d["viewer"][player] = 1
        cp = state.current_player()
        if cp == pyspiel.PlayerId.CHANCE:
            d["current"][n] = 1
        elif cp >= 0:
            d["current"][cp] = 1
        stage = 0 if b.setup else 1 + int(gs.phase)
        d["stage"][stage] = 1
        d["stage"][4] = b.pending is not None
        d["picks"][0] = gs.picks
        d["progress"][:] = (gs.turn / max(1, self.game.total_turns), len(gs.deck) / h,
                            len(gs.landmark_deck) / max(1, len(cards.landmarks)))
        d["depot"][gs.depot] = 1
        d["landmark_row"][gs.landmark_row] = 1
        if b.next_landmark is not None:
            d["next_landmark"][b.next_landmark] = 1
        d["recycle_used"][0] = gs.recycle_used
        for c, uses in gs.persistent_uses.items():
            d["persistent_uses"][c] = uses
        for i, kind in enumerate(_BORROWS):
            d["borrow_uses"][i] = gs.resource_uses.get(kind, 0)
        if self.private:
            me = view_of(gs, player).me
            d["hand"][me.hand] = 1
            d["discard"][me.discard] = 1
            if me.discard:
                d["discard_top"][me.discard[-1]] = 1
        per_turns = max(1, self.game.total_turns // n)
        for s in range(n):
            o = _public_seat(gs, s)
            d["highway"][s, o.highway] = 1
            if o.highway:
                d["highway_ends"][s, 0, o.highway[0]] = 1
                d["highway_ends"][s, 1, o.highway[-1]] = 1
            for i, c in enumerate(o.highway):  # the order decides the Stretches
                d["highway_position"][s, c] = (i + 1) / 10.0
            for lm_i, c in o.landmarks:
                d["landmarks"][s, lm_i] = 1
                d["landmark_cards"][s, c] = 1
                d["landmark_position"][s, lm_i] = (o.highway.index(c) + 1) / 10.0
            d["hand_count"][s] = o.hand_count / 10.0
            d["known_hand"][s, o.known_hand] = 1
            d["known_discard"][s, o.known_discard] = 1
            for mt in o.discard_materials:
                d["discard_materials"][s, mt] += 0.1
            if o.discard_materials:
                d["discard_top_material"][s, o.discard_materials[-1]] = 1
            d["turns"][s] = o.turns / per_turns

    def string_from(self, state: BigSurState, player: int) -> str:
        return info_string(state, player, self.private)


def _ids(cards: CardSet, items) -> str:
    hid = cards.highway
    return " ".join(hid[c].id for c in items) or "-"


def _lms(cards: CardSet, pairs) -> str:
    return " ".join(f"{cards.landmarks[j].id}@{cards.highway[c].id}" for j, c in pairs) or "-"


def info_string(state: BigSurState, player: int, private: bool = True) -> str:
    """The information-state (= observation) string of ``player``: its view, plus the
    setup / pending chance step (see the module doc). ``private`` False: the public
    part only, the same for every player."""
    b = state._b
    gs = b.gs
    cards = gs.cards
    view: PlayerView = view_of(gs, player)
    if b.setup:
        stage = f"setup, {len(b.setup)} deal step(s) left"
    else:
        stage = (f"turn {gs.turn + 1}, {gs.phase.name.lower()} step, picks {gs.picks}, "
                 f"seat {gs.current} acts, first player {gs.first_player}")
    lines = [f"{f'seat {player}' if private else 'public'} | {stage}"]
    if b.pending is not None:
        extra = "" if b.next_landmark is None else \
            f", next Landmark {cards.landmarks[b.next_landmark].id}"
        lines.append(f"chance: resolving {b.pending.notation()!r}{extra}")
    lines.append(f"deck {view.deck_count} | depot {_ids(cards, view.depot)} | landmark row "
                 + (" ".join(cards.landmarks[j].id for j in view.landmark_row) or "-")
                 + f" | landmark deck {view.landmark_deck_count}")
    lines.append("per turn " + json.dumps(per_turn_to_json(gs), sort_keys=True))
    if private:
        me = view.me
        lines.append(f"me: hand {_ids(cards, sorted(me.hand))} | discard "
                     f"{_ids(cards, me.discard)}")
    for s in range(gs.num_players):
        o = view.others.get(s) or _public_seat(gs, s)
        lines.append(f"seat {s}: hand {o.hand_count}, known {_ids(cards, o.known_hand)} | "
                     "discard " + (" ".join(MATERIALS[m] for m in o.discard_materials) or "-")
                     + f", known {_ids(cards, o.known_discard)} | highway "
                     f"{_ids(cards, o.highway)} | landmarks {_lms(cards, o.landmarks)} | "
                     f"turns {o.turns}")
    return "\n".join(lines)


def _public_seat(gs: GameState, seat: int) -> OpponentView:
    """What every player sees of ``seat`` (as :func:`view_of` shows another seat)."""
    p = gs.players[seat]
    return OpponentView(len(p.hand), sorted(p.known_hand), p.highway[:],
                        [gs.cards.material[c] for c in p.discard], sorted(p.known_discard),
                        p.landmarks[:], p.turns)


pyspiel.register_game(_GAME_TYPE, BigSurGame)


# ------------------------------------------------------------------ OpenSpiel bots

class _OutOfTime(Exception):
    """Raised at the start of a simulation once the deadline has passed."""


class BudgetISMCTSBot(_os_ismcts.ISMCTSBot):
    """OpenSpiel's Python ISMCTSBot, stopped by a deadline as well as by
    ``max_simulations``, counting its simulations (``self.simulations``)."""

    def __init__(self, *args, deadline: float | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.deadline = deadline
        self.simulations = 0

    def sample_root_state(self, state):
        root = getattr(self, "_root_node", None)
        if (self.deadline is not None and root is not None and root.total_visits > 0
                and time.perf_counter() >= self.deadline):
            raise _OutOfTime
        self.simulations += 1
        return super().sample_root_state(state)

    def run_search(self, state):
        try:
            return super().run_search(state)
        except _OutOfTime:
            return self.get_final_policy(state, self._root_node)


class BudgetMCTSBot(_os_mcts.MCTSBot):
    """OpenSpiel's Python MCTSBot, stopped by a deadline as well as by
    ``max_simulations``, counting its simulations (``self.simulations``)."""

    def __init__(self, *args, deadline: float | None = None, **kwargs):
        super().__init__(*args, **kwargs)
        self.deadline = deadline
        self.simulations = 0
        self._root = None

    def _apply_tree_policy(self, root, state):
        self._root = root
        if (self.deadline is not None and root.children and root.explore_count > 1
                and time.perf_counter() >= self.deadline):  # a child has been tried
            raise _OutOfTime
        self.simulations += 1
        return super()._apply_tree_policy(root, state)

    def mcts_search(self, state):
        try:
            return super().mcts_search(state)
        except _OutOfTime:
            return self._root


UNLIMITED = 10**9


def os_search(kind: str, state: BigSurState, seed: int, simulations: int | None = None,
              seconds: float | None = None, uct_c: float = 2.0) -> tuple[int, int]:
    """One OpenSpiel search at ``state`` (a decision node): (action id, simulations).
    ``kind``: "ismcts" (Python ISMCTSBot over our resampler, its RNGs seeded) or "mcts"
    (Python MCTSBot on ``state`` itself, which should be a determinization). Exactly
    one of ``simulations`` and ``seconds``. Evaluator: one random rollout to the end."""
    rs = np.random.RandomState(seed % 2**32)
    evaluator = _os_mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=rs)
    sims = UNLIMITED if simulations is None else simulations
    deadline = None if seconds is None else time.perf_counter() + seconds
    game = state.get_game()
    if kind == "ismcts":
        bot = BudgetISMCTSBot(game, evaluator, uct_c, sims, random_state=rs,
                              deadline=deadline)
        rng = random.Random(seed)
        bot.set_resampler(lambda st, pl: st.resample_from_infostate(pl, rng.random))
    elif kind == "mcts":
        bot = BudgetMCTSBot(game, uct_c, sims, evaluator, solve=False, random_state=rs,
                            deadline=deadline)
    else:
        raise OpenSpielParamError(f"kind: must be 'ismcts' or 'mcts', got {kind!r}")
    action = bot.step(state)
    return int(action), bot.simulations


class OpenSpielBot:
    """An OpenSpiel search behind our :class:`~solver.search.bots.Bot` protocol.

    ``kind`` "ismcts": OpenSpiel's Python ISMCTSBot (UCT c = 2, random rollouts, max
    visit count, resampling with our determinizer); "mcts": OpenSpiel's Python MCTSBot
    searching ONE determinization of the view (drawn with the decision's seed; chance
    stays chance). The budget (a :class:`~solver.search.api.Budget`) is per TURN, split
    as our MCTSBot splits it: first take 40%, second take half of the rest, then each
    build-step decision half of what is left."""

    def __init__(self, kind: str, budget, uct_c: float = 2.0):
        from .search.api import Budget
        from .search.bots import BotSpecError

        if kind not in ("ismcts", "mcts"):
            raise BotSpecError(f"OpenSpiel bot kind must be 'ismcts' or 'mcts', got {kind!r}")
        if not isinstance(budget, Budget):
            raise BotSpecError(f"OpenSpiel bot budget must be a Budget, got {budget!r}")
        self.kind = kind
        self.budget = budget
        self.uct_c = uct_c
        self.name = f"os-{kind}:" + (f"{budget.iterations}i" if budget.iterations is not None
                                     else f"{budget.seconds:g}s")
        self._turn = None
        self._spent = 0.0
        self.simulations = 0

    def act(self, view: PlayerView, seed: int) -> Action:
        turn = (view.seat, view.turn)
        if turn != self._turn:
            self._turn, self._spent = turn, 0.0
        game = game_for(view.cards, view.num_players)
        sample = Determinizer(view).sample(random.Random(seed))
        state = state_from_engine(game, sample)
        legal = state.legal_actions()
        if len(legal) == 1:
            return game.codec.decode(legal[0])
        share = (0.4 if view.picks == 0 else 0.5) if view.phase == Phase.TAKE else 0.5
        its = self.budget.iterations
        total = its if its is not None else self.budget.seconds
        amount = max(total - self._spent, 0.0) * share
        if its is not None:
            n = max(2, round(amount))
            code, sims = os_search(self.kind, state, seed, simulations=n, uct_c=self.uct_c)
            self._spent += n
        else:
            start = time.perf_counter()
            code, sims = os_search(self.kind, state, seed, seconds=max(amount, 0.005),
                                   uct_c=self.uct_c)
            self._spent += time.perf_counter() - start
        self.simulations += sims
        return game.codec.decode(code)


def register_bots() -> None:
    """Add ``os-ismcts:<budget>`` and ``os-mcts:<budget>`` (budget ``500i`` or ``1s`` per
    turn) to :func:`solver.search.bots.make_bot` in this process."""
    from .search.api import Budget, BudgetError
    from .search.bots import BOT_FACTORIES, BotSpecError

    def factory(kind: str):
        def make(arg: str) -> OpenSpielBot:
            try:
                return OpenSpielBot(kind, Budget.parse(arg))
            except BudgetError as err:
                raise BotSpecError(f"bot spec 'os-{kind}:{arg}': {err}") from None
        return make

    BOT_FACTORIES.setdefault("os-ismcts", factory("ismcts"))
    BOT_FACTORIES.setdefault("os-mcts", factory("mcts"))
