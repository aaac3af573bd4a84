"""Typed dependencies of the routes: the settings, the card sets, the search pool, the
play sessions and the analysis jobs, all created by the app factory and held in
``app.state``; and a seat's token (``Authorization: Bearer TOKEN``), declared once so that
every route taking it says so in the OpenAPI document. Tests override :func:`get_search`
with a deterministic fake."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated

from fastapi import Depends, Request
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer

from .cardsets import CardRegistry

if TYPE_CHECKING:
    from .jobs import JobService
    from .pool import SearchService
    from .sessions import GameService
    from .settings import Settings


def get_settings(request: Request) -> Settings:
    return request.app.state.settings


def get_cards(request: Request) -> CardRegistry:
    return request.app.state.cards


def get_search(request: Request) -> SearchService:
    return request.app.state.search


def get_games(request: Request) -> GameService:
    return request.app.state.games


def get_jobs(request: Request) -> JobService:
    return request.app.state.jobs


bearer = HTTPBearer(auto_error=False, description="the seat token from POST /v1/games")


def seat_token(cred: Annotated[HTTPAuthorizationCredentials | None, Depends(bearer)]
               ) -> str | None:
    """The bearer token sent, or None (``GameService.seat_of`` answers 401 then)."""
    return cred.credentials if cred is not None else None


SettingsDep = Annotated["Settings", Depends(get_settings)]
CardsDep = Annotated[CardRegistry, Depends(get_cards)]
SearchDep = Annotated["SearchService", Depends(get_search)]
GamesDep = Annotated["GameService", Depends(get_games)]
JobsDep = Annotated["JobService", Depends(get_jobs)]
TokenDep = Annotated[str | None, Depends(seat_token)]
