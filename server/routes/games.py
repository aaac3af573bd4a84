"""Play sessions: create a game, see a seat's view, act, ask for a hint, get the record.

A seat authenticates with its secret token: ``Authorization: Bearer TOKEN``.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Query, Request, Response

from solver.rules.views import view_of

from ..deps import GamesDep, SearchDep, SettingsDep, TokenDep
from ..errors import ApiError, JsonRoute
from ..schemas import (
    ActionCount,
    ActionRequest,
    ActionResponse,
    CreateGameRequest,
    GameCreated,
    HintResponse,
    SeatView,
    SessionHintRequest,
)
from ..sessions import HUMAN
from .common import (
    SEARCH_ERRORS,
    SEAT_ERRORS,
    ai_wait,
    budget_dict,
    client_key,
    error_responses,
    game_poll,
    poll_hint,
    polled,
    unless_disconnected,
)
from .hints import run_hint

router = APIRouter(prefix="/v1/games", tags=["games"], route_class=JsonRoute)
OVER_FIRST = error_responses((409, "the game is not over yet (error 'not_over')"))


@router.post("", status_code=201, response_model=GameCreated,
             responses={**SEARCH_ERRORS, **polled(201)}, summary="Start a game")
async def create_game(request: Request, response: Response, settings: SettingsDep,
                      games: GamesDep, search: SearchDep,
                      req: CreateGameRequest | None = None) -> dict[str, Any]:
    """2-4 players, each seat ``"human"`` or a bot spec; returns the game id and one
    secret token per human seat (keep it: it is the only way to play that seat). If an
    AI seat starts, it plays before this returns (up to ``wait`` seconds, by default
    BIGSUR_AI_WAIT_SECONDS; ``ai_thinking`` and Retry-After say when it still plays).
    With ``position`` the game continues from that position (a view of the seat to act,
    its hidden cards drawn with ``seed``; or a full position) instead of a deal. Every
    field is optional, the body too."""
    req = req or CreateGameRequest()
    wait = ai_wait(req.wait, settings)
    if req.position is not None:
        if "cards" in req.model_fields_set:
            raise ApiError(422, "cards", "a game from a position uses the position's own "
                           "card set (its 'cards')", "setup")
        players = req.players if "players" in req.model_fields_set else None
        live, tokens = await games.continue_from(req.position, req.seats, req.seed, players,
                                                 client_key(request))
    else:
        live, tokens = await games.create(req.players, req.seats, req.seed, req.cards,
                                          client_key(request))
    await games.wait_ai(live, search, wait)
    out = {"game_id": live.id, "players": live.row.players,
           "seats": [{"seat": i, "kind": HUMAN if s == HUMAN else "ai",
                      "spec": None if s == HUMAN else s} for i, s in enumerate(live.row.seats)],
           "tokens": [{"seat": i, "token": t} for i, t in sorted(tokens.items())],
           "card_set": live.cards.label, "fairness": games.fairness(live),
           "ai_thinking": live.status() == "ai"}
    poll_hint(response, game_poll(out))
    return out


@router.get("/{game_id}", response_model=SeatView, responses={**SEAT_ERRORS, **polled(200)},
            summary="A seat's view and legal actions")
async def get_game(game_id: str, request: Request, response: Response, token: TokenDep,
                   settings: SettingsDep, games: GamesDep, search: SearchDep,
                   wait: float = Query(0, ge=0, allow_inf_nan=False, description=(
                       "long-poll: wait up to this many seconds (cut to "
                       "BIGSUR_AI_WAIT_SECONDS) for the game to change: until its "
                       "actions_applied is not `since` or it is over; without `since`, "
                       "until no AI seat is thinking")),
                   since: int | None = Query(None, ge=0, description=(
                       "the actions_applied the client has seen (with `wait`)"))
                   ) -> dict[str, Any]:
    """What the token's seat may see: its view (bigsur-view/1), its legal actions when it
    is to act, the public log and, once over, the scores. With ``wait`` it answers once
    the game changed from what the client saw (``since``), or the AI finished playing,
    or ``wait`` seconds passed (the view unchanged): one request instead of a poll loop.
    While the AI is thinking the answer carries Retry-After."""
    seconds = ai_wait(wait, settings)
    live = await games.get(game_id)
    seat = games.seat_of(live, token)
    games.start_ai(live, search)  # resumes an AI interrupted by a restart
    if seconds > 0:
        live = await unless_disconnected(request, games.wait_change(live, since, seconds))
    out = games.seat_response(live, seat)
    poll_hint(response, game_poll(out))
    return out


@router.post("/{game_id}/actions", response_model=ActionResponse,
             responses={**SEAT_ERRORS, **SEARCH_ERRORS, **polled(200), **error_responses(
                 (409, "not this seat's turn, the game is over, or the action id was used "
                       "for another action"))},
             summary="Play an action")
async def post_action(game_id: str, req: ActionRequest, response: Response,
                      token: TokenDep, settings: SettingsDep, games: GamesDep,
                      search: SearchDep) -> dict[str, Any]:
    """Apply the seat's action (committed before the answer; a retry with the same
    ``action_id`` is applied once), then let the AI seats play until a human must act
    (waiting up to ``wait`` seconds, by default BIGSUR_AI_WAIT_SECONDS; ``ai_thinking``
    and Retry-After say whether they are still playing)."""
    wait = ai_wait(req.wait, settings)
    live = await games.get(game_id)
    seat = games.seat_of(live, token)
    applied = await games.act(live, seat, req.action, req.action_id)
    await games.wait_ai(live, search, wait)
    out = {**games.seat_response(live, seat), "applied": applied}
    poll_hint(response, game_poll(out))
    return out


@router.post("/{game_id}/hint", response_model=HintResponse,
             responses={**SEAT_ERRORS, **SEARCH_ERRORS, **error_responses(
                 (409, "the game is over, or it is not this seat's turn"))},
             summary="A hint for the seat to act, from its own view")
async def session_hint(game_id: str, request: Request, token: TokenDep,
                       settings: SettingsDep, games: GamesDep, search: SearchDep,
                       req: SessionHintRequest | None = None) -> dict[str, Any]:
    """Ranked moves for the token's seat, computed from that seat's view only (the body
    is optional: the default budget, seed 0; the answer says its seed, as ``POST /v1/hint``)."""
    req = req or SessionHintRequest()
    live = await games.get(game_id)
    seat = games.seat_of(live, token)
    if live.over:
        raise ApiError(409, "game_id", "the game is over: there is no move to hint",
                       "game_over")
    if live.state.current != seat:
        raise ApiError(409, "game_id", f"a hint is for the seat to act: it is seat "
                       f"{live.state.current}'s turn, not yours (seat {seat})", "not_your_turn")
    budget = budget_dict(req.budget, settings.default_budget_ms, settings)
    return await run_hint(view_of(live.state, seat), budget, req.seed, search, request,
                          client_key(request, token))


@router.delete("/{game_id}", status_code=204, response_class=Response,
               responses={**SEAT_ERRORS, **error_responses(
                   (403, "not a token of this game, or not its creator's (error 'auth')"))},
               summary="Delete a game (its creator)")
async def delete_game(game_id: str, token: TokenDep, games: GamesDep) -> Response:
    """The token of the game's first human seat (the creator's) deletes it: its AI stops
    (a search in progress is stopped), the game and its actions are removed (404 after)."""
    live = await games.get(game_id)
    seat = games.seat_of(live, token)
    await games.delete(live, seat)
    return Response(status_code=204)  # no body, so no Content-Type either


@router.get("/{game_id}/record", responses={**SEAT_ERRORS, **OVER_FIRST},
            summary="The game record")
async def get_record(game_id: str, token: TokenDep,
                     games: GamesDep) -> dict[str, Any]:
    """The full record (bigsur-record/1: seed, every action with its payment, scores)
    once the game is over; any seat's token."""
    live = await games.get(game_id)
    games.seat_of(live, token)
    return games.record(live)


@router.get("/{game_id}/positions/{n}", responses={**SEAT_ERRORS, **OVER_FIRST},
            summary="A past position of a finished game")
async def get_position(game_id: str, n: ActionCount, token: TokenDep,
                       games: GamesDep) -> dict[str, Any]:
    """The full position (bigsur-position/1) after the first ``n`` actions, once the game
    is over (every card is public then); any seat's token. Used by the review."""
    live = await games.get(game_id)
    games.seat_of(live, token)
    return games.position(live, n)


# reviewing a hosted game by id, undo in the build step (new files, same prefix)
from .game_review import router as _review_router  # noqa: E402
from .undo import router as _undo_router  # noqa: E402

router.include_router(_review_router)
router.include_router(_undo_router)
