"""POST /v1/hint: the ranked moves of the player to act in any position."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from solver.rules.engine import legal_actions
from solver.rules.state import GameState
from solver.rules.views import PlayerView, view_to_json
from solver.search.api import GameOverError, NotToActError, to_view
from solver.search.determinize import InconsistentViewError

from ..deps import CardsDep, SearchDep, SettingsDep
from ..errors import JsonRoute, in_position
from ..pool import SearchService, position_kind, read_position
from ..schemas import HintRequest, HintResponse
from .common import SEARCH_ERRORS, budget_dict, client_key, unless_disconnected

router = APIRouter(prefix="/v1", tags=["hints"], route_class=JsonRoute)


async def run_hint(position, budget: dict[str, int], seed: int | None,
                   search: SearchService, request: Request, client: str,
                   view: PlayerView | None = None) -> dict[str, Any]:
    """Search the view of the seat to act (a full state is reduced to it first, here in
    the server: the worker never receives hidden cards); ``view``: that view when the
    caller has made it (:func:`posted_view`). The answer says the seed searched with (0
    for none, as ``analyse`` takes none), so that the same answer can be asked again, and
    the seat's legal actions (a page tells "the only move" from "the only candidate")."""
    seed = 0 if seed is None else seed
    if view is None:
        view = to_view(position)  # GameOverError / NotToActError / InconsistentViewError
    result = await unless_disconnected(request, search.hint(view_to_json(view), budget,
                                                            seed, client))
    result.update({"position_kind": position_kind(position), "budget": budget, "seed": seed,
                   "card_set": position.cards.label,
                   "legal_actions": [a.notation() for a in legal_actions(view)]})
    return result


@router.post("/hint", response_model=HintResponse, responses=SEARCH_ERRORS,
             summary="Rank the moves of the player to act")
async def hint(req: HintRequest, request: Request, settings: SettingsDep,
               cards: CardsDep,
               search: SearchDep) -> dict[str, Any]:
    """A full state (``bigsur-position/1``) or the acting seat's view (``bigsur-view/1``)
    -> the moves of the seat to act, best first: win probability, expected score margin,
    visits, the payment plan of its builds and the principal line, plus search stats.
    The answer says its seed (0 when none is given): with that seed and an iteration
    budget the same request gives the same answer."""
    budget = budget_dict(req.budget, settings.default_budget_ms, settings)
    position = await read_position(req.position, cards)
    return await run_hint(position, budget, req.seed, search, request, client_key(request),
                          posted_view(position))


def posted_view(position: GameState | PlayerView) -> PlayerView:
    """The view a posted position is searched from; a finished game, a view of a seat not
    to act or one no full state matches is refused naming its field inside the request's
    ``position`` (``position.phase``, ``position.view_of``), as every route taking a
    position names it."""
    try:
        return to_view(position)
    except (GameOverError, NotToActError, InconsistentViewError) as err:
        raise in_position(err) from None
