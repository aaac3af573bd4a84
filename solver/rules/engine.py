"""The rules: setup, legal actions, applying actions, turn flow and the end of the game.

Two ways in, as in python-chess:

- :func:`play` (checked): for user input; raises a named error whose message names the
  action, the seat and why; the given state is never changed.
- :func:`apply` / :func:`apply_inplace` (unchecked): for search, which only plays
  actions from :func:`legal_actions` (``apply`` refuses any action once the game is over,
  as ``play`` does).

A turn: TAKE (two :class:`Take`, one at a time; a deck draw is seen before the second
pick) -> BUILD (any number of :class:`Build`, then at most one :class:`Claim`, which
ends the turn, or :class:`End`). The end of turn refills the Depot; the game ends when
the deck is empty after that refill.

Also here: :func:`new_game` (a seeded deal), :func:`turns_per_player` (every player gets
the same number of turns, fixed by the deck size at setup), :func:`claimable` (the
(Landmark, card) pairs a seat could claim now), :func:`outcome` (final scores and
winners once the game is over). :func:`legal_actions` also takes the
:class:`~solver.rules.views.PlayerView` of the seat to act, :func:`claimable` that of
any seat.

>>> state = new_game(2, seed=7)
>>> state = play(state, "take deck")
>>> len(legal_actions(state)) > 1
True
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from functools import lru_cache
from numbers import Integral

from .actions import Action, Build, Claim, End, IllegalActionError, Take, parse_action
from .cards import CardSet, UnknownCardError, card_set_or_default
from .constants import (
    CARDS_TAKEN_PER_TURN,
    DEPOT_SIZE,
    HAND_SIZE,
    LANDMARK_ROW_SIZE,
    MATERIALS,
    MAX_PLAYERS,
    MIN_PLAYERS,
    SCENERIES,
    STRETCH_MIN_ICONS,
)
from .payment import (
    PaymentError,
    affordable_cards,
    apply_payment,
    carry_out_payment,
    cheapest_payment,
)
from .position import as_phase, check_seat
from .scoring import Outcome, effective_miles, final_scores
from .state import GameState, Phase, PlayerState, known_state
from .stretches import highway_runs, runs
from .views import PlayerView
from .wording import plural


class SetupError(ValueError):
    """A game that cannot be set up (player count, deck arithmetic)."""


def new_game(num_players: int, seed: int | None = None, cards: CardSet | None = None) -> GameState:
    """Deal a new game: deck filtered by player count and shuffled, hands of 2, Depot of
    5, Landmark row of 5, first player drawn. Same seed, same game. ``cards``: a
    :class:`~solver.rules.cards.CardSet` (``load_card_set(path)``), None for the default
    set."""
    cards = card_set_or_default(cards)
    if isinstance(num_players, bool) or not isinstance(num_players, int) \
            or not MIN_PLAYERS <= num_players <= MAX_PLAYERS:
        raise SetupError(f"players: must be {MIN_PLAYERS} to {MAX_PLAYERS}, got {num_players!r}")
    if seed is not None and (isinstance(seed, bool) or not isinstance(seed, Integral)):
        raise SetupError(f"seed: must be an integer or None, got {seed!r}")
    deck = cards.deck_for(num_players)
    spare = len(deck) - HAND_SIZE * num_players - DEPOT_SIZE
    if spare <= 0 or spare % (CARDS_TAKEN_PER_TURN * num_players):
        raise SetupError(f"card set {cards.name!r}: the {num_players}-player deck has "
                         f"{len(deck)} cards, which does not give every player the same "
                         "number of turns")
    rng = random.Random(None if seed is None else int(seed))  # (a numpy integer too)
    rng.shuffle(deck)
    players = [PlayerState(hand=[deck.pop() for _ in range(HAND_SIZE)])
               for _ in range(num_players)]
    depot = [deck.pop() for _ in range(DEPOT_SIZE)]
    landmark_deck = list(range(len(cards.landmarks)))
    rng.shuffle(landmark_deck)
    row = [landmark_deck.pop() for _ in range(min(LANDMARK_ROW_SIZE, len(landmark_deck)))]
    first = rng.randrange(num_players)
    return GameState(cards, players, deck, depot, landmark_deck, row, current=first,
                     first_player=first)


def turns_per_player(state: GameState) -> int:
    """How many turns each player gets in this game (from the deck size at setup)."""
    return state.cards.turns_per_player(state.num_players)


# ------------------------------------------------------------------ legal actions

def legal_actions(state: GameState | PlayerView) -> list[Action]:
    """Every legal action of the player to act, in a full state or in the view of the
    seat to act. Builds carry no explicit payment: the engine pays them the cheapest way
    (any other payment is legal too, via :func:`play`). Build sides: only "L" while the
    Highway is empty (the first card starts the road).

    From a :class:`~solver.rules.views.PlayerView` the answer is the list (same actions,
    same order) that every full state consistent with the view gives: the actions read
    only the viewer's own seat and public facts (Depot, deck size, Landmark row, the other
    Highways and the Materials on top of the other discard piles, which Landmark
    borrowing reads). The view must be that of the seat to act (else ``ValueError``,
    except once the game is over: ``[]``)."""
    if type(state) is not GameState:
        if isinstance(state, PlayerView):
            state = _stand_in(state)
        elif not isinstance(state, GameState):
            raise TypeError(f"legal_actions: expected a GameState or a PlayerView, "
                            f"got {type(state).__name__}")
    phase = state.phase
    takes, builds, claims = _action_table(state.cards)
    if phase is _TAKE_PHASE:
        actions: list[Action] = [takes[c] for c in sorted(set(state.depot))]
        if state.deck:
            actions.append(_TAKE_DECK)
        return actions
    if phase is not _BUILD_PHASE:  # (tested here: the take and build steps test no more)
        if phase is _OVER_PHASE:
            return []
        return legal_actions(_with_phase(state))  # a plain int such as 0
    if state.players[state.current].highway:
        actions = [b for c in affordable_cards(state) for b in builds[c]]
    else:
        actions = [builds[c][0] for c in affordable_cards(state)]
    if state.landmark_row:
        player = state.players[state.current]
        for pair in _claims(state.cards, player.highway, player.landmarks, state.landmark_row,
                            False):
            claim = claims.get(pair)
            if claim is None:
                cards = state.cards
                claim = claims[pair] = Claim(cards.landmarks[pair[0]].id,
                                             cards.highway[pair[1]].id)
            actions.append(claim)
    actions.append(_END)
    return actions


def _stand_in(view: PlayerView) -> GameState:
    if view.seat != view.current and view.phase != Phase.OVER:
        raise ValueError(f"legal_actions: the view is seat {view.seat}'s but seat "
                         f"{view.current} is to act; only the seat to act knows its actions")
    return known_state(view)


_TAKE_PHASE = Phase.TAKE
_BUILD_PHASE = Phase.BUILD
_OVER_PHASE = Phase.OVER


def _with_phase(state: GameState) -> GameState:
    """A copy of a state whose phase is its number (``state.phase = 0``), not a
    :class:`Phase`, with the Phase of that number: the engine compares phases by
    identity (the hot path), and the checked entries take a number for its Phase.
    A phase that is neither is a :class:`~solver.rules.position.PositionError`."""
    new = state.copy()
    new.phase = as_phase(state.phase)
    return new


_TAKE_DECK = Take(None)
_END = End()


@lru_cache(maxsize=8)
def _action_table(cards: CardSet) -> tuple[tuple[Take, ...], tuple[tuple[Build, Build], ...],
                                           dict[tuple[int, int], Claim]]:
    """The Take and (left, right) Build actions of every card of a set, built once, and
    the Claim actions met so far: actions are immutable values, so :func:`legal_actions`
    hands out shared ones."""
    return (tuple(Take(c.id) for c in cards.highway),
            tuple((Build(c.id, "L"), Build(c.id, "R")) for c in cards.highway), {})


def claimable(state: GameState | PlayerView, seat: int | None = None) -> list[tuple[int, int]]:
    """(landmark, card) pairs the seat (by default the seat to act) could claim now if it
    were its claim step.

    Also of a :class:`~solver.rules.views.PlayerView`, for any seat: a claim reads only
    public facts (the seat's Highway and Landmarks, the Landmark row), so the answer is
    that of every full state consistent with the view. A ``seat`` not in the game is a
    PositionError, as :func:`~solver.rules.views.view_of` says it."""
    if type(state) is not GameState and isinstance(state, PlayerView):
        state = known_state(state)
    if seat is None:
        seat = state.current
    else:
        check_seat(seat, len(state.players))
    player = state.players[seat]
    return _claims(state.cards, player.highway, player.landmarks, state.landmark_row, False)


def claim_possible(cards: CardSet, highway: Sequence[int],
                   landmarks: Sequence[tuple[int, int]], row: Sequence[int]) -> bool:
    """Whether a Highway with these Landmarks could claim a Landmark of ``row``:
    ``bool(claimable(...))`` without a state and without listing every pair (search
    asks it of every Highway it values)."""
    return bool(_claims(cards, highway, landmarks, row, True))


def _claims(cards: CardSet, highway: Sequence[int], landmarks: Sequence[tuple[int, int]],
            row: Sequence[int], first: bool) -> list[tuple[int, int]]:
    """:func:`claimable` of a Highway; ``first``: stop at the first Landmark with pairs."""
    if len(highway) < 2 or not row:  # a Stretch has 3 icons or more: at least 2 cards
        return []
    found_runs = highway_runs(cards, tuple(highway))
    icons = found_runs.icons  # a Scenery with fewer icons in all has no Stretch
    lm_scenery = cards.landmark_scenery
    out: list[tuple[int, int]] = []
    open_cards: dict[int, list[int]] = {}  # per Scenery, found once
    for lm in row:
        s = lm_scenery[lm]
        if icons[s] < STRETCH_MIN_ICONS:
            continue
        found = open_cards.get(s)
        if found is None:
            found = open_cards[s] = _open_cards(lm_scenery, found_runs.runs[s], landmarks, s)
        for c in found:
            out.append((lm, c))
        if first and out:
            break
    return out


def _open_cards(lm_scenery, runs_of_s: Sequence[tuple[Sequence[int], int]],
                landmarks: Sequence[tuple[int, int]], s: int) -> list[int]:
    """The cards of the seat's Stretches of Scenery ``s`` (``runs_of_s``: its runs as
    (cards, icons)) where a Landmark of ``s`` can be claimed: Stretches not yet used for
    one, cards without a Landmark above them."""
    found: list[int] = []
    for run, n in runs_of_s:
        if n < STRETCH_MIN_ICONS:
            continue
        if not landmarks:
            found.extend(run)
        elif not any(lm_scenery[lm] == s and card in run for lm, card in landmarks):
            occupied = {card for _lm, card in landmarks}
            found.extend(c for c in run if c not in occupied)
    return found


def claim_actions(state: GameState) -> list[Claim]:
    cards = state.cards
    return [Claim(cards.landmarks[lm].id, cards.highway[c].id) for lm, c in claimable(state)]


# ------------------------------------------------------------------ applying

def apply(state: GameState, action: Action) -> GameState:
    """Unchecked: the state after ``action`` (a new value; ``state`` is unchanged), except
    that any action once the game is over is refused as :func:`play` refuses it (it
    failed inside, or played an 'end' into a turn the game does not have).

    A full :class:`GameState` only: a :class:`~solver.rules.views.PlayerView` is refused
    (``TypeError``), its hidden cards are unknown; play the states
    :func:`~solver.rules.determinize.sample_states` draws consistent with it."""
    if type(state) is not GameState and not isinstance(state, GameState):
        raise _not_a_state("apply", state)
    if state.phase == Phase.OVER and isinstance(action, Action):  # (text: apply_inplace says)
        raise _game_over(state, action)
    new = state.copy()
    apply_inplace(new, action)
    return new


def apply_inplace(state: GameState, action: Action) -> None:
    """Unchecked, in place: the fast path for search."""
    kind = type(action)
    cards = state.cards
    player = state.players[state.current]
    if kind is Take:
        if action.card is None:
            player.hand.append(state.deck.pop())
        else:
            try:
                c = cards.highway_index[action.card]
            except (KeyError, TypeError):  # caught, not checked first: the hot path
                raise _unknown_id(state, action) from None
            try:
                state.depot.remove(c)
            except ValueError:  # the same: a card of the set that is not in the Depot
                raise _misplaced(state, action) from None
            player.hand.append(c)
            player.known_hand.add(c)
        state.picks += 1
        if state.picks == CARDS_TAKEN_PER_TURN:
            state.phase = Phase.BUILD
    elif kind is Build:
        try:
            c = cards.highway_index[action.card]
        except (KeyError, TypeError):
            raise _unknown_id(state, action) from None
        payment = action.payment
        held = len(player.hand)  # (a failure after the card left the hand is no misplacing)
        try:  # both take the card out of the hand first (list.remove), changing nothing else
            if payment is None:
                payment = cheapest_payment(state, c)
                if payment is None:
                    if c not in player.hand:
                        raise _misplaced(state, action)
                    raise PaymentError(f"{action.notation()!r}: {action.card} cannot be paid "
                                       "for")
                carry_out_payment(state, c, payment)  # found by the engine: no checks needed
            else:
                apply_payment(state, c, payment)
        except ValueError as err:  # a card of the set that is not in the hand
            if isinstance(err, IllegalActionError) or c in player.hand \
                    or len(player.hand) != held:
                raise
            raise _misplaced(state, action) from None
        player.known_hand.discard(c)
        if action.side == "L":
            player.highway.insert(0, c)
        else:
            player.highway.append(c)
    elif kind is Claim:
        try:
            lm = cards.landmark_index[action.landmark]
            c = cards.highway_index[action.card]
        except (KeyError, TypeError):
            raise _unknown_id(state, action) from None
        try:
            state.landmark_row.remove(lm)
        except ValueError:  # a Landmark of the set that is not in the row
            raise _misplaced(state, action) from None
        player.landmarks.append((lm, c))
        if state.landmark_deck:
            state.landmark_row.append(state.landmark_deck.pop())
        _end_turn(state)
    elif kind is End:
        _end_turn(state)
    else:
        raise IllegalActionError(_not_an_action(action))


def _not_an_action(action: object) -> str:
    """Why :func:`apply` / :func:`apply_inplace` refuse ``action`` (text goes through
    :func:`play`)."""
    why = f"not an action: {action!r}: apply takes an Action (one of legal_actions(state))"
    if isinstance(action, str):
        why += f"; for text such as {action!r} use play(state, {action!r}), which reads " \
               "and checks it"
    return why


def _unknown_id(state: GameState, action: Take | Build | Claim) -> IllegalActionError:
    """Why :func:`apply_inplace` refuses an action whose id the card set does not have,
    worded as :func:`play` words it (looked up again only once the fast lookup failed)."""
    cards = state.cards
    try:
        if type(action) is Claim:
            cards.landmark(action.landmark)
        cards.card(action.card)
    except UnknownCardError as err:
        return _illegal(state, action, _unknown_why(state, action, err))
    return _illegal(state, action, "unknown id")  # not reached: one lookup above fails


def _unknown_why(state: GameState, action: Action, err: UnknownCardError) -> str:
    """Why an id is unknown: the card set's words, or, for a Take of a card whose text is
    that of the deck take (``Take('deck')``, ``Take('')``: both read 'take deck'), that
    it is not a card id and which action takes from the deck."""
    if _written_as_deck_take(action) or (type(action) is Take and isinstance(action.card, str)
                                         and action.card.strip().casefold() == "deck"):
        return (f"{action.card!r} is not a Highway card id of card set {state.cards.name!r}: "
                f"the deck take is the action {_TAKE_DECK!r}, written "
                f"{_TAKE_DECK.notation()!r}")
    return str(err)


def _misplaced(state: GameState, action: Take | Build | Claim) -> IllegalActionError:
    """Why an action whose card or Landmark the set has is refused when that is not where
    the action takes it from (the Depot, the hand, the Landmark row): :func:`play` checks
    first, :func:`apply_inplace` finds it once ``list.remove`` failed, before the state
    was changed (the hot path checks nothing); both say it in these words."""
    cards = state.cards
    if type(action) is Take:
        shown = " ".join(cards.highway[c].id for c in state.depot)
        return _illegal(state, action, f"{action.card} is not in the Depot ({shown})")
    if type(action) is Claim:
        shown = " ".join(cards.landmarks[x].id for x in state.landmark_row)
        return _illegal(state, action, f"{action.landmark} is not in the Landmark row "
                        f"({shown})")
    return _illegal(state, action, f"{action.card} is not in your hand")


def _end_turn(state: GameState) -> None:
    while len(state.depot) < DEPOT_SIZE and state.deck:
        state.depot.append(state.deck.pop())
    state.players[state.current].turns += 1
    state.turn += 1
    state.recycle_used = False
    state.persistent_uses = {}
    state.resource_uses = {}
    state.picks = 0
    if not state.deck:
        state.phase = Phase.OVER
        return
    state.phase = Phase.TAKE
    state.current = (state.current + 1) % state.num_players


def _not_a_state(entry: str, state: object) -> TypeError:
    """The error of :func:`apply` / :func:`play` given something else than a GameState."""
    if isinstance(state, PlayerView):
        return TypeError(
            f"{entry}: a PlayerView cannot be played forward: the cards it hides (the other "
            "hands, the deck order, unseen discard fronts) are unknown. Play full states "
            "consistent with it instead: sample_states(view, n) draws n of them "
            "(legal_actions(view) lists the actions of the seat to act)")
    return TypeError(f"{entry}: expected a GameState, got {type(state).__name__}")


# ------------------------------------------------------------------ checked entry

def _illegal(state: GameState, action: Action, why: str) -> IllegalActionError:
    return IllegalActionError(f"illegal action {_named(action)} for seat {state.current} "
                              f"(turn {state.turn + 1}, {as_phase(state.phase)} step): {why}")


def _game_over(state: GameState, action: Action) -> IllegalActionError:
    """Why :func:`play` and :func:`apply` refuse any action once the game is over: no
    seat is to act and there is no turn to name (after 20 turns, turn 21 does not
    exist), so it names the turns played."""
    return IllegalActionError(f"illegal action {_named(action)}: the game is over (after "
                              f"{plural(state.turn, 'turn')})")


def _named(action: Action) -> str:
    """An action in an error: its notation quoted, or its repr when its text is the deck
    take's ('take deck' for ``Take('deck')``)."""
    return repr(action) if _written_as_deck_take(action) else repr(action.notation())


def _written_as_deck_take(action: Action) -> bool:
    """A Take of a card (``Take('deck')``, ``Take('')``) written as the deck take is."""
    return type(action) is Take and action.card is not None \
        and action.notation() == _TAKE_DECK.notation()


def check(state: GameState, action: Action) -> None:
    """Raise IllegalActionError (naming the action and why) unless ``action`` is legal.
    Payments are checked by playing them on a copy."""
    play(state, action)


def play(state: GameState, action: Action | str) -> GameState:
    """Checked: the state after a user's action (text in the notation, or an Action).

    Raises NotationError / IllegalActionError / PaymentError; ``state`` is never changed.
    A :class:`~solver.rules.views.PlayerView` is refused as by :func:`apply`.
    """
    if type(state) is not GameState and not isinstance(state, GameState):
        raise _not_a_state("play", state)
    if type(state.phase) is not Phase:
        state = _with_phase(state)
    if isinstance(action, str):
        action = parse_action(action)
    if not isinstance(action, Action):
        raise IllegalActionError(f"not an action: {action!r} ({type(action).__name__}): "
                                 "play takes an Action or its text, e.g. 'take deck'")
    cards = state.cards
    player = state.player
    kind = type(action)
    if state.phase == Phase.OVER:
        raise _game_over(state, action)
    if state.phase == Phase.TAKE and kind is not Take:
        raise _illegal(state, action, f"first take {CARDS_TAKEN_PER_TURN - state.picks} more "
                       "card(s) ('take CARD' from the Depot or 'take deck')")
    if state.phase == Phase.BUILD and kind is Take:
        raise _illegal(state, action, f"you have already taken {CARDS_TAKEN_PER_TURN} cards "
                       "this turn; build, claim or end")
    try:
        if kind is Take:
            if action.card is None:
                if not state.deck:
                    raise _illegal(state, action, "the Highway deck is empty")
            elif cards.card(action.card) not in state.depot:
                raise _misplaced(state, action)
        elif kind is Build:
            c = cards.card(action.card)
            if c not in player.hand:
                raise _misplaced(state, action)
            if action.side not in ("L", "R"):
                raise _illegal(state, action, "the side must be L or R")
            if action.payment is None and cheapest_payment(state, c) is None:
                cost = ", ".join(MATERIALS[m] for m in cards.cost[c])
                raise _illegal(state, action, f"you cannot pay for {action.card} "
                               f"(cost: {cost}) with your hand and sources this turn")
        elif kind is Claim:
            _check_claim(state, action)
        new = state.copy()
        apply_inplace(new, action)
    except PaymentError as err:
        raise _illegal(state, action, str(err)) from None
    except UnknownCardError as err:
        raise _illegal(state, action, _unknown_why(state, action, err)) from None
    return new


def _check_claim(state: GameState, action: Claim) -> None:
    cards = state.cards
    player = state.player
    lm = cards.landmark(action.landmark)
    c = cards.card(action.card)
    if lm not in state.landmark_row:
        raise _misplaced(state, action)
    if c not in player.highway:
        raise _illegal(state, action, f"{action.card} is not in your Highway")
    if any(card == c for _lm, card in player.landmarks):
        raise _illegal(state, action, f"{action.card} already has a Landmark above it")
    s = cards.landmark_scenery[lm]
    run = next(r for r in runs(cards, player.highway, effective_miles(cards, player), s)
               if c in r.cards) if s in cards.scenery[c] else None
    if run is None:
        raise _illegal(state, action, f"{action.card} shows no {SCENERIES[s]} icon, so it is "
                       f"in no {SCENERIES[s]} Stretch")
    if not run.qualifies:
        raise _illegal(state, action, f"the {SCENERIES[s]} run through {action.card} has "
                       f"{run.icons} icon(s); a Stretch needs at least 3")
    used = [cards.landmarks[x].id for x, card in player.landmarks
            if cards.landmark_scenery[x] == s and card in run.cards]
    if used:
        raise _illegal(state, action, f"that {SCENERIES[s]} Stretch was already used to claim "
                       f"{used[0]}")


def outcome(state: GameState) -> Outcome | None:
    """Final scores and winners once the game is over, else None."""
    return final_scores(state) if state.phase == Phase.OVER else None
