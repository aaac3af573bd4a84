"""GET /v1/cards and /v1/cards/{name}: the card sets the server knows."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter

from solver.rules.cards import CardSet

from ..deps import CardsDep
from ..errors import JsonRoute
from ..schemas import CardSetSummary
from .common import error_responses

router = APIRouter(prefix="/v1", tags=["cards"], route_class=JsonRoute)


def summary(cards: CardSet) -> dict[str, Any]:
    return {"name": cards.name, "version": cards.version, "label": cards.label,
            "reconstruction": cards.reconstruction, "fingerprint": cards.fingerprint,
            "highway": len(cards.highway), "landmarks": len(cards.landmarks)}


@router.get("/cards", response_model=list[CardSetSummary], summary="List the card sets")
async def list_cards(cards: CardsDep) -> list[dict[str, Any]]:
    """Every set a position may name; the shipped ``default`` is a reconstruction of the
    printed cards (``reconstruction: true``, and said so in its label)."""
    return [summary(c) for c in cards.sets.values()]


@router.get("/cards/{name}", responses=error_responses(
                (404, "no card set of that name (error 'not_found')"),
                (422, "a stored set the server's checks now refuse (error 'cards')"), 503),
            summary="One card set, in full")
async def get_card_set(name: str, cards: CardsDep) -> dict[str, Any]:
    """The set in the card-set schema (docs/format.md), with its label."""
    card_set = await cards.get(name)
    return {**card_set.to_json(), "label": card_set.label,
            "fingerprint": card_set.fingerprint}
