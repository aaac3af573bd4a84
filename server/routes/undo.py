"""Undo within the build step: ``POST /v1/games/{id}/undo`` takes back the token seat's
last build of the turn it is still playing.

Allowed only while nothing hidden has been revealed by the build and nobody else has
acted on it: the seat is still to act in its build step, the last action of the game is
that seat's build (so the take step and earlier turns never come back), and every other
seat is an AI (AI seats only look at the game on their own turn; a second person at the
table could have seen the built card). Builds draw no cards, so the replayed state is
exactly the state before the build.

The stored action is deleted in one transaction guarded by the action count (like
``Store.append_action``); the game is then replayed from the store. Included by
``server.routes.games``.
"""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from solver.rules.state import Phase

from ..deps import GamesDep, TokenDep
from ..errors import ApiError, JsonRoute
from ..sessions import HUMAN
from .common import SEAT_ERRORS, error_responses

# paths under /v1/games (the including router)
router = APIRouter(tags=["games"], route_class=JsonRoute)


def undo_allowed(live, seat: int) -> str | None:
    """Why the seat cannot undo now (None if it can)."""
    if live.over:
        return "the game is over"
    if live.state.current != seat or live.state.phase != Phase.BUILD:
        return "only your own build step can be undone"
    if not live.actions or live.actions[-1][0] != seat or \
            not live.actions[-1][1].startswith("build "):
        return "your last action this turn is not a build (a take is never undone)"
    if any(s == HUMAN for i, s in enumerate(live.row.seats) if i != seat):
        return "undo is for games against the AI only (another player may have seen the card)"
    return None


@router.post("/{game_id}/undo", responses={**SEAT_ERRORS, **error_responses(
    (409, "the last build cannot be taken back (the reason named; error 'conflict')"))},
             summary="Take back your last build of this turn")
async def undo(game_id: str, token: TokenDep, games: GamesDep) -> dict[str, Any]:
    """The seat's view after taking back its last build (409 naming why not)."""
    live = await games.get(game_id)
    seat = games.seat_of(live, token)
    async with live.lock:
        why = undo_allowed(live, seat)
        if why is not None:
            raise ApiError(409, "game_id", f"cannot undo: {why}", "conflict")
        undone = live.actions[-1][1]
        if not await games.store.in_thread(games.store.drop_last_action, live.id, live.n, HUMAN):
            raise ApiError(409, "game_id", "the game changed; fetch it and retry", "conflict")
        games.live.pop(live.id, None)
    live = await games.get(game_id)  # replayed from the store
    return {**games.seat_response(live, seat), "undone": undone}
