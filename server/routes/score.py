"""POST /v1/score, POST /v1/payment and POST /v1/replay: scoring breakdowns, cheapest
payments and a record's positions, for people building tools on top."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from solver.rules.position import state_to_json
from solver.rules.scoring import final_scores
from solver.rules.state import GameState, Phase
from solver.rules.wording import got
from solver.search.determinize import InconsistentViewError, determinize

from ..deps import CardsDep, SearchDep
from ..errors import ApiError, JsonRoute, in_position
from ..pool import read_position
from ..schemas import (
    PaymentRequest,
    PaymentResponse,
    ReplayRequest,
    ScoreRequest,
    ScoreResponse,
)
from ..sessions import position_after
from .common import ERRORS, SEARCH_ERRORS, client_key, posted_record, unless_disconnected

router = APIRouter(prefix="/v1", tags=["tools"], route_class=JsonRoute)


@router.post("/score", response_model=ScoreResponse, responses=ERRORS,
             summary="Score every Highway of a position")
async def score(req: ScoreRequest, cards: CardsDep) -> dict[str, Any]:
    """The final-scoring breakdown of every seat's Highway as it stands (Stretches,
    2-Mile bonuses, Landmark count, Landmark abilities); a view works too (Highways
    are public)."""
    position = await read_position(req.position, cards)
    return {**final_scores(position).to_json(),  # a view's Highways are public too
            "game_over": position.phase == Phase.OVER, "card_set": position.cards.label}


@router.post("/payment", response_model=PaymentResponse, responses=SEARCH_ERRORS,
             summary="Cheapest joint payment for a turn's builds")
async def payment(req: PaymentRequest, request: Request, cards: CardsDep,
                  search: SearchDep) -> dict[str, Any]:
    """A full state at the build step and the cards to build this turn, in order
    (``"H12"``, or ``"H12:L"`` / ``"H12:R"`` for the end; default R, or L on a Highway
    still empty when that build is made) -> whether they can all be paid,
    and the cheapest joint payment (CP-SAT, :mod:`solver.payment_ilp`): fewest hand cards,
    then the least valuable ones, then the most useful discard top for next turn. Runs
    in the search pool (503 when it is busy)."""
    position = await read_position(req.position, cards)
    raw = await cards.canonical(req.position)
    viewer = None
    if not isinstance(position, GameState):
        # a view of the seat to act (the position editor): a payment reads only that seat's
        # cards and public ones, so any full state consistent with the view pays the same
        if position.current != position.seat:
            raise ApiError(422, "position.view_of", f"a payment is the seat to act's "
                           f"(seat {position.current}), the view is of seat {position.seat}",
                           "position")
        viewer = position.seat
        try:  # (read_position has matched the view with a full state already)
            position = determinize(position, 0)
        except InconsistentViewError as err:
            raise in_position(err) from None
        raw = state_to_json(position)
    if position.phase != Phase.BUILD:
        raise ApiError(422, "position.phase", f"payments are made in the build step, the "
                       f"position is in the {position.phase.name.lower()} step", "position")
    builds = []
    empty = not position.player.highway  # as it is when each build is made
    for i, text in enumerate(req.builds):
        card, sep, side = text.partition(":")
        side = {"": None, "l": "L", "left": "L", "r": "R", "right": "R"}.get(side.lower(), "?")
        if not card or side == "?" or (sep and side is None):
            raise ApiError(422, f"builds[{i}]", f"expected CARD, CARD:L or CARD:R{got(text)}",
                           "payment")
        builds.append([card, side or ("L" if empty else "R")])
        empty = False
    return await unless_disconnected(request, search.payment(raw, builds,
                                                             client_key(request), viewer))


@router.post("/replay", responses=ERRORS, summary="A position of a game record")
async def replay(req: ReplayRequest, cards: CardsDep) -> dict[str, Any]:
    """The full position (bigsur-position/1) after the first ``n`` actions of ``record``
    (every action checked by the rules; 422 naming ``actions[i]``, or ``n`` out of
    ``0..len(actions)``). Stateless, as ``bigsur replay RECORD --at N``: the page's review
    of an uploaded record opens its decisions with it, whether or not the server still
    has that review's job."""
    return position_after(await posted_record(req.record, cards), req.n)
