"""Effect registry: each kind of 2-Mile bonus and Landmark ability, its parameters and
its meaning, in one place.

Cards name an effect by kind with parameters (data); this module gives the kind its
meaning. Adding an ability is one function registered here plus a data entry.

Three categories:
- ``score``: points at final scoring, ``fn(facts, params, owner) -> int`` where
  ``facts`` is a :class:`solver.rules.scoring.HighwayFacts` and ``owner`` the index of
  the card or Landmark carrying the effect.
- ``miles``: extra miles for the card a Landmark sits above, ``fn(params) -> int``.
- ``payment``: extra per-turn Material sources, ``fn(params) -> (resource, uses)``;
  the engine's payment rules read the resource names ``persistent_extra_use``,
  ``borrow_highway`` and ``borrow_discard``.

>>> describe({"kind": "distinct_scenery", "points": 1})
'1 point per different Scenery type in your Highway'
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from .constants import MATERIALS, SCENERIES
from .wording import got, plural


class HighwayFacts(Protocol):
    """What a scoring effect reads about one Highway (the scorer passes a
    :class:`solver.rules.scoring.HighwayFacts`); a protocol here, so that this module
    imports nothing of the cards or the scoring (``cards`` imports this module)."""

    cards: Any  # the CardSet: its per-card tables (miles, material, landmark_scenery)
    highway: Sequence[int]
    miles: Mapping[int, int]
    icon_counts: Sequence[int]
    stretches: Sequence[Any]  # Stretch: .miles, .scenery, .cards
    landmarks: Sequence[tuple[int, int]]


class EffectError(ValueError):
    """An effect in a card set is unknown or has bad parameters."""


@dataclass(frozen=True)
class Param:
    """How one parameter is read from JSON: ``parse(raw) -> value`` or ValueError."""

    parse: Callable[[Any], Any]
    required: bool = True


def _positive_int(raw: Any) -> int:
    if isinstance(raw, bool) or not isinstance(raw, int) or raw < 1:
        raise ValueError(f"must be a positive integer{got(raw)}")
    return raw


def _miles(raw: Any) -> int:
    value = _positive_int(raw)
    if value > 4:
        raise ValueError(f"must be 1 to 4{got(raw)}")
    return value


def _scenery(raw: Any) -> int:
    if raw not in SCENERIES:
        raise ValueError(f"must be one of {', '.join(SCENERIES)}{got(raw)}")
    return SCENERIES.index(raw)


def _material(raw: Any) -> int:
    if raw not in MATERIALS:
        raise ValueError(f"must be one of {', '.join(MATERIALS)}{got(raw)}")
    return MATERIALS.index(raw)


def _scenery_list(raw: Any) -> frozenset[int]:
    if not isinstance(raw, list) or not raw:
        raise ValueError(f"must be a non-empty list of sceneries{got(raw)}")
    return frozenset(_scenery(item) for item in raw)


@dataclass(frozen=True)
class EffectKind:
    kind: str
    category: str  # "score" | "miles" | "payment"
    on: frozenset[str]  # where it may be printed: "bonus" (2-Mile cards), "landmark"
    params: dict[str, Param]
    fn: Callable[..., Any]
    text: Callable[[dict[str, Any]], str]


REGISTRY: dict[str, EffectKind] = {}


def register(kind: str, category: str, on: set[str], params: dict[str, Param],
             text: Callable[[dict[str, Any]], str]):
    """Decorator: register ``fn`` as the meaning of effect ``kind``."""

    def wrap(fn):
        REGISTRY[kind] = EffectKind(kind, category, frozenset(on), params, fn, text)
        return fn

    return wrap


@dataclass(frozen=True)
class Effect:
    """A parsed effect: the kind and its parameters with names resolved to indices."""

    kind: str
    params: tuple[tuple[str, Any], ...]
    raw: tuple[tuple[str, Any], ...]

    @property
    def args(self) -> dict[str, Any]:
        return dict(self.params)

    @property
    def spec(self) -> EffectKind:
        return REGISTRY[self.kind]

    def to_json(self) -> dict[str, Any]:
        return {"kind": self.kind, **dict(self.raw)}


def parse_effect(raw: Any, where: str) -> Effect:
    """Parse ``{"kind": ..., params}`` printed on a ``where`` ("bonus"/"landmark")."""
    if not isinstance(raw, dict) or "kind" not in raw:
        raise EffectError(f"must be an object with a 'kind'{got(raw)}")
    kind = raw["kind"]
    spec = REGISTRY.get(kind) if isinstance(kind, str) else None
    if spec is None:
        known = ", ".join(k for k, s in sorted(REGISTRY.items()) if where in s.on)
        raise EffectError(f"unknown kind {kind!r} (known: {known})")
    if where not in spec.on:
        raise EffectError(f"kind {kind!r} cannot be printed on a {where}")
    extra = set(raw) - {"kind"} - set(spec.params)
    if extra:
        raise EffectError(f"kind {kind!r} has unknown parameter(s) {sorted(extra)}")
    parsed = []
    for name, param in spec.params.items():
        if name not in raw:
            if param.required:
                raise EffectError(f"kind {kind!r} needs parameter {name!r}")
            continue
        try:
            parsed.append((name, param.parse(raw[name])))
        except ValueError as err:
            raise EffectError(f"{kind}.{name} {err}") from None
    raw_items = tuple((k, raw[k]) for k in raw if k != "kind")
    return Effect(kind, tuple(parsed), raw_items)


def describe(raw: dict[str, Any]) -> str:
    """Human wording of an effect given as JSON."""
    return REGISTRY[raw["kind"]].text(raw)


# ---------------------------------------------------------------- scoring effects

@register("distinct_scenery", "score", {"bonus"}, {"points": Param(_positive_int)},
          lambda p: f"{plural(p['points'], 'point')} per different Scenery type in your Highway")
def _distinct_scenery(facts: HighwayFacts, params, owner) -> int:
    return params["points"] * sum(1 for n in facts.icon_counts if n > 0)


@register("scenery_points", "score", {"bonus", "landmark"},
          {"scenery": Param(_scenery), "points": Param(_positive_int)},
          lambda p: f"{plural(p['points'], 'point')} per {p['scenery'].title()} icon "
          "in your Highway")
def _scenery_points(facts: HighwayFacts, params, owner) -> int:
    return params["points"] * facts.icon_counts[params["scenery"]]


@register("mile_cards", "score", {"bonus"},
          {"miles": Param(_miles), "points": Param(_positive_int)},
          lambda p: f"{plural(p['points'], 'point')} per {p['miles']}-Mile card in your Highway")
def _mile_cards(facts: HighwayFacts, params, owner) -> int:
    printed = facts.cards.miles
    return params["points"] * sum(1 for c in facts.highway if printed[c] == params["miles"])


@register("stretch_count", "score", {"bonus"}, {"points": Param(_positive_int)},
          lambda p: f"{plural(p['points'], 'point')} per Stretch in your Highway")
def _stretch_count(facts: HighwayFacts, params, owner) -> int:
    return params["points"] * len(facts.stretches)


@register("landmark_collection", "score", {"bonus", "landmark"},
          {"points": Param(_positive_int), "sceneries": Param(_scenery_list, required=False)},
          lambda p: f"{plural(p['points'], 'point')} per "
          + ("/".join(s.title() for s in p["sceneries"]) + " " if "sceneries" in p else "")
          + "Landmark in your Highway")
def _landmark_collection(facts: HighwayFacts, params, owner) -> int:
    wanted = params.get("sceneries")
    scenery = facts.cards.landmark_scenery
    count = sum(1 for lm, _card in facts.landmarks if wanted is None or scenery[lm] in wanted)
    return params["points"] * count


@register("material_cards", "score", {"bonus"},
          {"material": Param(_material), "points": Param(_positive_int)},
          lambda p: f"{plural(p['points'], 'point')} per {p['material'].title()} card "
          "in your Highway")
def _material_cards(facts: HighwayFacts, params, owner) -> int:
    material = facts.cards.material
    return params["points"] * sum(1 for c in facts.highway if material[c] == params["material"])


@register("highway_end", "score", {"bonus"}, {"points": Param(_positive_int)},
          lambda p: f"{plural(p['points'], 'point')} if this card ends your Highway (either end)")
def _highway_end(facts: HighwayFacts, params, owner) -> int:
    return params["points"] if owner in (facts.highway[0], facts.highway[-1]) else 0


@register("longest_stretch", "score", {"bonus"}, {"divisor": Param(_positive_int)},
          lambda p: f"1 point per {p['divisor']} miles of your longest Stretch")
def _longest_stretch(facts: HighwayFacts, params, owner) -> int:
    longest = max((s.miles for s in facts.stretches), default=0)
    return longest // params["divisor"]


# ---------------------------------------------------------------- mile effects

@register("mile_bonus", "miles", {"landmark"}, {"miles": Param(_miles)},
          lambda p: f"The card below counts {p['miles']} more miles, in every Stretch")
def _mile_bonus(params) -> int:
    return params["miles"]


# ---------------------------------------------------------------- payment effects

@register("persistent_extra_use", "payment", {"landmark"}, {"uses": Param(_positive_int)},
          lambda p: f"Use one of your Persistent Materials {plural(p['uses'], 'extra time')}"
          " each turn")
def _persistent_extra_use(params) -> tuple[str, int]:
    return "persistent_extra_use", params["uses"]


@register("borrow_highway", "payment", {"landmark"}, {"uses": Param(_positive_int)},
          lambda p: "Use a Persistent Material of another player's Highway, "
          + plural(p["uses"], "time") + " per turn")
def _borrow_highway(params) -> tuple[str, int]:
    return "borrow_highway", params["uses"]


@register("borrow_discard", "payment", {"landmark"}, {"uses": Param(_positive_int)},
          lambda p: "Use the top Material of another player's discard pile, "
          + plural(p["uses"], "time") + " per turn")
def _borrow_discard(params) -> tuple[str, int]:
    return "borrow_discard", params["uses"]


PAYMENT_RESOURCES = ("persistent_extra_use", "borrow_highway", "borrow_discard")
