"""Typed dependencies of the routes: the settings, the card sets, the search pool, the
play sessions and the analysis jobs, all created by the app factory and held in
``app.state``. Tests override :func:`get_search` with a deterministic fake."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Any

from fastapi import Depends, Request

from solver.rules.cards import CardSet, CardSetError, load_card_set, read_card_set
from solver.rules.position import cards_to_json

from .errors import ApiError

if TYPE_CHECKING:
    from .app import Settings
    from .jobs import JobService
    from .pool import SearchService
    from .sessions import GameService


class CardRegistry:
    """The card sets the server knows by name: ``default`` (the shipped reconstruction)
    and the set of ``BIGSUR_CARDS`` when given (under its own name). That file passes
    the checks of ``--cards FILE`` (a full set: 69 + 20 cards, equal turns) or the
    server refuses to start (:class:`CardSetError`, one line naming the file)."""

    def __init__(self, extra_path: str | None = None):
        default = load_card_set()
        self.sets: dict[str, CardSet] = {"default": default}
        if extra_path:
            try:
                extra = read_card_set(extra_path)
            except CardSetError as err:  # `bigsur serve` prints its summary() and exits
                raise CardSetError(f"{extra_path} (BIGSUR_CARDS)", err.errors) from None
            if extra.name in self.sets:
                raise ValueError(f"BIGSUR_CARDS: the set in {extra_path} is named "
                                 f"{extra.name!r}, which is taken; rename it")
            self.sets[extra.name] = extra

    def get(self, name: str) -> CardSet:
        try:
            return self.sets[name]
        except (KeyError, TypeError):
            raise ApiError(404, "name", f"no card set named {name!r} (known: "
                           f"{', '.join(sorted(self.sets))})", "not_found") from None

    def for_position(self, raw: Any) -> CardSet | None:
        """A registered set when the position names one other than "default"; None lets
        the engine resolve "default" or an inline set."""
        if isinstance(raw, str) and raw != "default" and raw in self.sets:
            return self.sets[raw]
        return None

    def canonical(self, raw: dict[str, Any]) -> dict[str, Any]:
        """The position with a registered set name replaced by the set inline (workers
        know only "default" and inline sets)."""
        named = self.for_position(raw.get("cards"))
        if named is None:
            return raw
        out = dict(raw)
        out["cards"] = cards_to_json(named)
        return out


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


SettingsDep = Annotated["Settings", Depends(get_settings)]
CardsDep = Annotated[CardRegistry, Depends(get_cards)]
SearchDep = Annotated["SearchService", Depends(get_search)]
GamesDep = Annotated["GameService", Depends(get_games)]
JobsDep = Annotated["JobService", Depends(get_jobs)]
