"""The JSON contract: request and response models (the OpenAPI spec at /docs).

Positions and records are passed through as objects and checked by the engine's own
readers (``state_from_json`` / ``view_from_json`` / ``GameRecord.from_json``), whose errors
name the field; their formats are in docs/format.md.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    StringConstraints,
    WithJsonSchema,
    model_validator,
)
from pydantic_core import PydanticCustomError

from solver.rules.record import MAX_SEED  # (the one largest seed, the CLI's too)

# what every route's seed may be (docs/api.md "Seeds"), in each refusal of one
SEED_RULE = f"an integer 0 to {MAX_SEED} (2**63 - 1), or its decimal digits as a string"


def _seed(value: Any) -> Any:
    """One rule for every route's seed: an integer 0 to MAX_SEED, or its decimal digits
    as a string (a JavaScript number rounds above 2**53, so the page sends
    ``"9007199254740993"``). Every refusal says the rule, bounds included."""
    if isinstance(value, str):
        if not (value.isascii() and value.isdigit()):
            raise PydanticCustomError("seed_string", "must be {rule} (no sign, space or other "
                                      "character)", {"rule": SEED_RULE})
        if len(value) > len(str(MAX_SEED)) + 1:  # (not read: int() of a long text is slow)
            raise PydanticCustomError("seed_range", "must be {rule}, got {n} digits",
                                      {"rule": SEED_RULE, "n": len(value)})
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise PydanticCustomError("seed_type", "must be {rule}, got {got}",
                                  {"rule": SEED_RULE, "got": _json_type(value)})
    if not 0 <= value <= MAX_SEED:
        shown = str(value) if len(str(value)) <= 24 else \
            f"a number of {len(str(abs(value)))} digits"
        raise PydanticCustomError("seed_range", "must be {rule}, got {got}",
                                  {"rule": SEED_RULE, "got": shown})
    return value


def _json_type(value: Any) -> str:
    """The JSON name of a decoded value's type, as a request wrote it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return {float: "a fraction", list: "an array", dict: "an object"}.get(
        type(value), type(value).__name__)


# the seed of every route (hints, reviews, games): SEED_RULE, checked by _seed (its JSON
# Schema says both forms: a generated client may send either)
Seed = Annotated[int, BeforeValidator(_seed),
                 WithJsonSchema({"anyOf": [
                     {"type": "integer", "minimum": 0, "maximum": MAX_SEED},
                     {"type": "string", "pattern": "^[0-9]+$",
                      "maxLength": len(str(MAX_SEED)) + 1}]})]


def _action_count(value: Any) -> Any:
    """A count of actions in a path (``/positions/{n}``): decimal digits only, as the
    body's strict ``n`` takes only an integer. pydantic's lax integer of a path took
    "1.0", "+1", " 1" and "1_0" as 1."""
    if isinstance(value, str) and not (value.isascii() and value.isdigit()):
        raise PydanticCustomError("action_count", "must be a whole number of actions, 0 "
                                  "or more, in digits, got '{got}'", {"got": value})
    return value


# the ``n`` of GET /v1/games/{id}/positions/{n} and /v1/analyze/{id}/positions/{n}
ActionCount = Annotated[int, BeforeValidator(_action_count),
                        WithJsonSchema({"type": "integer", "minimum": 0})]


def _distinct_seats(seats: list[int]) -> list[int]:
    """Seats to review: at least one, none twice (no list reviews every seat)."""
    if not seats:
        raise PydanticCustomError("no_seats", "must name at least one seat (leave it out to "
                                  "review every seat)")
    twice = sorted({s for s in seats if seats.count(s) > 1})
    if twice:
        raise PydanticCustomError("repeated_seat", "seat {seat} is listed twice",
                                  {"seat": twice[0]})
    return seats


# the seats a review covers (POST /v1/analyze, POST /v1/games/{id}/analysis)
ReviewSeats = Annotated[list[Annotated[int, Field(strict=True)]], Field(max_length=4),
                        AfterValidator(_distinct_seats)]


def _storable(value: str) -> str:
    """Text that is stored (an action, an action id): PostgreSQL's text columns refuse
    NUL and neither database takes a lone surrogate (JSON's "\\ud800"), so both are refused
    here, naming the field, rather than failing in the database with a 500."""
    if "\x00" in value:
        raise PydanticCustomError("nul_character", "must not contain a NUL (\\x00) character")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as err:
        raise PydanticCustomError(
            "surrogate", "must be valid Unicode text: a lone surrogate at position {pos}",
            {"pos": err.start}) from None
    return value


StoredText = Annotated[str, AfterValidator(_storable)]
# seconds a request waits for the AI seats: cut to BIGSUR_AI_WAIT_SECONDS by the route
# (routes.common.ai_wait), as the setting is the server's
AiWait = Annotated[float, Field(ge=0, strict=True, allow_inf_nan=False, description=(
    "seconds to wait for the AI seats to play before answering, 0 or more, cut to "
    "BIGSUR_AI_WAIT_SECONDS (default: that setting); 0 answers as soon as the request is "
    "stored, with ai_thinking true while an AI seat is to play"))]
# an action id: its lengths on the string itself (on the optional they read "items")
ActionId = Annotated[str, StringConstraints(min_length=1, max_length=100),
                     AfterValidator(_storable)]


def _examples() -> dict[str, Any]:
    """Real positions and records for the OpenAPI examples (/docs, and the explicit
    examples schemathesis sends first)."""
    from solver.rules.engine import legal_actions, new_game, play
    from solver.rules.position import state_to_json
    from solver.rules.record import GameRecord
    from solver.rules.views import view_of, view_to_json

    take = play(new_game(2, seed=1), "take deck")
    seed = next(k for k in range(100) if any(
        a.notation().startswith("build") for a in legal_actions(
            play(play(new_game(2, seed=k), "take deck"), "take deck"))))
    build = play(play(new_game(2, seed=seed), "take deck"), "take deck")
    card = next(a.card for a in legal_actions(build) if a.notation().startswith("build"))
    record = GameRecord.start(2, 1)
    record.actions = ["take deck", "take deck", "end"]
    return {"state": state_to_json(take), "view": view_to_json(view_of(take, take.current)),
            "build_state": state_to_json(build), "build_card": card,
            "record": record.to_json()}


EXAMPLES = _examples()


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Open(BaseModel):
    model_config = ConfigDict(extra="allow")


class ErrorBody(Open):
    """Every 4xx/5xx: what kind of error, which field, why."""

    error: str = Field(description="kind of error, e.g. position, illegal_action, limit")
    field: str | None = Field(description="the field at fault, e.g. seats[1].hand")
    reason: str
    message: str = Field(description="field: reason")
    errors: list[dict[str, Any]] | None = Field(
        None, description="request validation (error 'validation'): every problem, "
                          "{field, reason, type}, at most 20; a card set's check (error "
                          "'cards'): every problem, {card, field, message, text}")
    errors_left_out: int | None = Field(None, description="how many problems beyond the "
                                                          "20 listed in 'errors'")


class Budget(Strict):
    """Search budget: at most one of ``ms`` (wall time) and ``iterations`` (reproducible
    with a seed), integers (``"100"`` and ``true`` are refused); ``{}`` is the default
    budget. Capped by BIGSUR_MAX_BUDGET_MS / BIGSUR_MAX_ITERATIONS."""

    ms: int | None = Field(None, ge=1, strict=True, description="milliseconds of search")
    iterations: int | None = Field(None, ge=1, strict=True, description="search iterations")

    @model_validator(mode="after")
    def _at_most_one(self) -> Budget:
        if self.ms is not None and self.iterations is not None:
            raise ValueError("give at most one of 'ms' and 'iterations'")
        return self


HINT_SEED = ("the search's seed (docs/api.md, Seeds), default (or null) 0; the answer says it: "
             "with an iteration budget the same request and seed give the same answer")
REVIEW_SEED = ("decision i is searched with seed (seed * 1000003 + i) mod 2**63 (docs/api.md, "
               "Seeds)")


class HintRequest(Strict):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"position": EXAMPLES["state"], "budget": {"iterations": 200}, "seed": 1},
        {"position": EXAMPLES["view"], "budget": {"ms": 100}}]})

    position: dict[str, Any] = Field(
        description="a full state (format bigsur-position/1) or one seat's view "
                    "(bigsur-view/1); its 'cards' is \"default\", a set name from "
                    "GET /v1/cards, or a card set inline")
    budget: Budget | None = Field(None, description="default: BIGSUR_DEFAULT_BUDGET_MS")
    seed: Seed | None = Field(None, description=HINT_SEED)


class SessionHintRequest(Strict):
    budget: Budget | None = None
    seed: Seed | None = Field(None, description=HINT_SEED)


class RankedMove(Open):
    actions: list[str] = Field(description="engine actions in notation (a macro move may "
                                           "hold several, e.g. two builds)")
    label: str | None = None
    visits: int | None = None
    win_probability: float | None = None
    expected_margin: float | None = Field(None, description="expected score minus the "
                                                             "best other score")
    payment: Any = Field(None, description="the cheapest payment plan of its builds")
    line: list[Any] = Field(default_factory=list, description="principal line after it")
    score_change: dict[str, int] | None = Field(
        None, description="what a build step adds now to the seat's score as its Highway "
                          "stands, by category and total (null for a take or a bare end)")
    reasons: list[str] = Field(
        default_factory=list, description="what the move does for the seat, 0 to 3 short "
        "sentences read from its view, most telling first (solver.rules.explain)")
    versus_top: dict[str, Any] | None = Field(
        None, description="how sure the search is that the first move is better: "
        "{rounds, standard_errors, clear, alike} of the paired test on the rounds both played "
        "(solver.search.ismcts.PairedGap); null for the first move or without a race")


class HintResponse(Open):
    seat: int
    moves: list[RankedMove]
    stats: dict[str, Any] = Field(default_factory=dict)
    position_kind: Literal["state", "view"]
    budget: dict[str, Any]
    seed: int = Field(description="the seed searched with (0 when the request gave none)")
    card_set: str
    legal_actions: list[str] = Field(default_factory=list, description="the legal actions "
                                     "of the seat to act, as a game's view lists them")
    elapsed_ms: float | None = None


class AnalyzeRequest(Strict):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"record": EXAMPLES["record"], "budget": {"iterations": 50}, "seed": 0}]})

    record: dict[str, Any] = Field(description="a game record (format bigsur-record/1)")
    budget: Budget | None = Field(None, description="per decision; default: "
                                                     "BIGSUR_ANALYSIS_BUDGET_MS")
    seed: Seed = Field(0, description=REVIEW_SEED)
    seats: ReviewSeats | None = Field(None, description="review only these seats' decisions")


class Progress(Strict):
    done: int
    total: int


class JobResponse(Open):
    job_id: str
    status: Literal["queued", "running", "done", "failed", "cancelled"]
    progress: Progress
    budget: dict[str, Any]
    seed: int
    result: dict[str, Any] | None = Field(
        None, description="decisions (value before, best move and value, value of the "
                          "move played, losses, label) and per-player accuracy")
    error: dict[str, Any] | None = None


class ScoreRequest(Strict):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"position": EXAMPLES["state"]}, {"position": EXAMPLES["view"]}]})

    position: dict[str, Any]


class ReplayRequest(Strict):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"record": EXAMPLES["record"], "n": 2}]})

    record: dict[str, Any] = Field(description="a game record (format bigsur-record/1)")
    n: int = Field(ge=0, strict=True, description="how many of its actions to play")


class ScoreResponse(Open):
    scores: list[dict[str, Any]]
    winners: list[int]
    game_over: bool
    card_set: str


def _some_cards(builds: list[str]) -> list[str]:
    """Builds to pay for: at least one (pydantic's wording of an empty list was "List
    should have at least 1 item after validation, not 0")."""
    if not builds:
        raise PydanticCustomError("no_builds", "must name at least one card")
    return builds


class PaymentRequest(Strict):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"position": EXAMPLES["build_state"], "builds": [EXAMPLES["build_card"] + ":L"]}]})

    position: dict[str, Any] = Field(description="a full state at the build step")
    builds: Annotated[list[str], AfterValidator(_some_cards)] = Field(
        max_length=20, json_schema_extra={"minItems": 1},
        description='cards to build this turn, in order: "H12", or "H12:L" / "H12:R" for '
                    'the end (default: R, or L on a Highway still empty when it is built)')


class PaymentResponse(Open):
    feasible: bool
    builds: list[dict[str, Any]] = Field(
        default_factory=list, description="per build: card, side, cost, what pays each "
                                          "Material, the action in notation")
    cards_spent: int | None = None
    spent: list[str] = Field(default_factory=list)
    top: str | None = Field(None, description="the discard pile's top card afterwards")
    solver: str | None = None
    reason: str | None = Field(None, description="why not, when infeasible")
    short: list[str] = Field(default_factory=list, description="the Material(s) lacking")


class CardSetSummary(Open):
    name: str
    version: str
    label: str
    reconstruction: bool
    fingerprint: str
    highway: int
    landmarks: int


class CreateGameRequest(Strict):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"players": 2, "seats": ["human", "greedy"], "seed": 7},
        {"players": 3, "seats": ["human", "mcts:1s", "human"]},
        {"position": EXAMPLES["view"], "seed": 5}]})

    players: int = Field(2, ge=2, le=4, strict=True,
                         description="default: one per seat of `seats`, else 2")
    seats: list[str] | None = Field(
        None, min_length=2, max_length=4,
        description='"human" or a bot spec per seat (random, greedy, mcts:<s>s, '
                    'mcts:<n>i); default: seat 0 human, the others BIGSUR_DEFAULT_AI')
    seed: Seed | None = Field(None, description="only with one human seat (an integer or a "
                              "string of decimal digits); default: drawn by the "
                              "server, committed to at creation and revealed once the game "
                              "is over")
    cards: str = Field("default", max_length=200, description="a set name from "
                                                              "GET /v1/cards")
    position: dict[str, Any] | None = Field(
        None, description="continue from this position instead of a deal: the view "
                          "(bigsur-view/1) of the seat to act, whose hidden cards the server "
                          "draws with `seed` (that seat is the human, the others AI), or a "
                          "full position (bigsur-position/1; there `seed` seeds only the AI "
                          "seats' decisions); `players` and `cards` come from it. No "
                          "fairness commitment (there is no seeded deal)")
    wait: AiWait | None = None

    @model_validator(mode="after")
    def _players_from_seats(self) -> CreateGameRequest:
        """Without ``players``, a deal has one player per seat listed (2 to 4, as ``seats``
        allows); with both, the game checks that they agree. A position's game takes its
        players from the position."""
        if "players" not in self.model_fields_set and self.seats is not None and \
                self.position is None:
            self.players = len(self.seats)
        return self


class SeatToken(Strict):
    seat: int
    token: str


class SeatInfo(Strict):
    seat: int
    kind: Literal["human", "ai"]
    spec: str | None


class Fairness(Strict):
    scheme: str = Field(description='sha256("SEED:SALT") in hex')
    commitment: str = Field(description="published at creation")
    seed_chosen_by_creator: bool = Field(description="only possible with one human seat")
    seed: int | None = Field(description="revealed once the game is over")
    salt: str | None = Field(description="revealed once the game is over")


class GameCreated(Strict):
    game_id: str
    players: int
    seats: list[SeatInfo]
    tokens: list[SeatToken] = Field(description="one secret per human seat; send it as "
                                                "'Authorization: Bearer TOKEN'")
    card_set: str
    fairness: Fairness | None = Field(None, description="the commitment to the deal "
                                                        "(bigsur verify checks it)")
    ai_thinking: bool = Field(description="an AI seat is still to play (when `wait` ran "
                              "out): GET the game, with ?wait= to be answered once it has")


class LogEntry(Strict):
    index: int
    seat: int
    action: str
    cards_spent: int | None = Field(None, description="a build: the hand cards its payment "
                                    "discarded (public: the pile grows by their backs)")
    known_spent: list[str] | None = Field(None, description="a build: those of them every "
                                          "seat knew (taken face up from the Depot)")
    drawn: str | None = Field(None, description="the seat's own deck take: the card it drew "
                              "(another seat's deck take does not say)")


class SeatView(Strict):
    game_id: str
    seat: int
    players: int
    seats: list[SeatInfo]
    card_set: str
    over: bool
    to_act: int | None
    your_turn: bool
    ai_thinking: bool
    actions_applied: int
    view: dict[str, Any] = Field(description="this seat's view (bigsur-view/1)")
    legal_actions: list[str]
    log: list[LogEntry] = Field(description="every action; other seats' builds without "
                                            "their payment, each build with its public "
                                            "part (cards_spent, known_spent)")
    result: dict[str, Any] | None
    payments: dict[str, Any] | None = Field(
        None, description="build step, your turn: the cheapest payment of each buildable "
                          "hand card ({card: {steps, cards_spent}})")
    fairness: Fairness | None = None


class ActionRequest(Strict):
    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"action": "take deck", "action_id": "move-1"}, {"action": "build H12 L"}]})

    action: StoredText = Field(min_length=1, max_length=2000,
                               description="one action in the notation")
    action_id: ActionId | None = Field(None, description="client-chosen id: a retry with the "
                                                    "same id is applied once")
    wait: AiWait | None = None


class Applied(Strict):
    index: int
    action: str
    duplicate: bool


class ActionResponse(SeatView):
    applied: Applied


class Health(Open):
    status: str
    workers: int
    busy: int
    games: dict[str, int]
    jobs: int
