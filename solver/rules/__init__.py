"""The rules of Big Sur, and nothing but the rules.

The names a program built on the rules needs are here, ``from solver.rules import
new_game, play, ...`` (``__all__`` lists them); each lives in its module (the
engine in :mod:`solver.rules.engine`, scoring in :mod:`solver.rules.scoring`, ...), where
``help()`` documents it. ``docs/rules.md`` ("Using the rules as a library") shows a game,
a position's payments and a record's scores, ``docs/tutorial.md`` writes a bot,
``docs/format.md`` has the notation and the JSON formats of card sets, positions, views
and records.

>>> from solver.rules import legal_actions, new_game, play
>>> state = play(new_game(3, seed=1), "take deck")
>>> state.num_players, state.picks, len(legal_actions(state)) > 1
(3, 1, True)
"""

from .actions import (
    Action,
    ActionError,
    BorrowDiscard,
    BorrowHighway,
    Build,
    Claim,
    Discard,
    End,
    IllegalActionError,
    NotationError,
    Payment,
    PaymentStep,
    Persistent,
    Recycle,
    Substitute,
    Take,
)
from .cards import (
    CardSet,
    CardSetError,
    HighwayCard,
    Landmark,
    UnknownCardError,
    load_card_set,
    parse_card_set,
)
from .cardset_csv import read_csv_file  # noqa: F401 - load_card_set reads .csv with it
from .constants import MATERIALS, SCENERIES
from .determinize import InconsistentViewError, sample_states
from .engine import (
    SetupError,
    apply,
    claimable,
    legal_actions,
    new_game,
    outcome,
    play,
    turns_per_player,
)
from .payment import (
    JointPlan,
    PaymentError,
    PaymentInfeasible,
    PaymentRequestError,
    affordable_cards,
    auto_payment_cards,
    build_costs,
    cheapest_payment,
    joint_payment,
)
from .position import PositionError, check_state, state_from_json, state_to_json
from .record import GameRecord, RecordError
from .scoring import Outcome, ScoreBreakdown, final_scores, score_player
from .state import GameState, Phase, PlayerState
from .views import OpponentView, PlayerView, view_from_json, view_of, view_to_json

__all__ = [
    # a game: deal, act, end
    "new_game", "legal_actions", "play", "apply", "outcome", "claimable",
    "turns_per_player", "SetupError",
    # state and what one seat sees
    "GameState", "PlayerState", "Phase", "PlayerView", "OpponentView", "view_of",
    "sample_states", "InconsistentViewError",
    # actions and their notation
    "Action", "Take", "Build", "Claim", "End", "Payment", "PaymentStep", "Discard",
    "Substitute", "Persistent", "Recycle", "BorrowHighway", "BorrowDiscard",
    "ActionError", "NotationError", "IllegalActionError",
    # paying for builds
    "cheapest_payment", "joint_payment", "build_costs", "auto_payment_cards",
    "affordable_cards", "JointPlan", "PaymentError", "PaymentInfeasible",
    "PaymentRequestError",
    # scores
    "score_player", "final_scores", "ScoreBreakdown", "Outcome",
    # cards
    "load_card_set", "parse_card_set", "CardSet", "HighwayCard", "Landmark",
    "CardSetError", "UnknownCardError", "SCENERIES", "MATERIALS",
    # JSON: positions, views, records
    "state_to_json", "state_from_json", "check_state", "PositionError", "view_to_json",
    "view_from_json",
    "GameRecord", "RecordError",
]
