"""What a move does for its player, in plain facts read from that player's view.

A hint ranks moves with numbers; :func:`explain_move` says what one of them does: the
Stretches a build step starts or extends (and their points), the Landmark it claims,
makes claimable or comes within one card of, the 2-Mile bonuses it changes, the
Persistent Material it gains, the hand cards it keeps that fit an end of the Highway;
what a taken Depot card could do for the player beside what the hand does without it
(the Stretch it extends at which end, no more than which hand card would there, the
Landmark it would make claimable, whether it can be paid for this turn) and which other
player it would have served; and what a build step costs: the hand cards its payments
spend. At the seat's last turn nothing is said that only a later turn could use (cards
kept or spent, a Landmark left claimable, a Persistent Material no later build of the
move uses), and a seat whose game is over is denied nothing.

Every fact is computed from the :class:`~solver.rules.views.PlayerView` of the seat to
act (its own hand, every Highway and Landmark, the Depot and the Landmark row) and names
no card that view hides. A fact is a :class:`Fact`: its sentence (``text``, written
for the seat: "you/your", another seat as "Player N", 1-based) and the numbers it
states, so that tests check them against the engine. Sentences end without a period;
cards are named by id, Landmarks by name and id ("Hearst Castle (L19)"), Sceneries and
Materials in lower case.

>>> from solver.rules.actions import Action
>>> from solver.rules.engine import new_game, play
>>> from solver.rules.views import view_of
>>> state = new_game(2, seed=8)
>>> for move in ["take H06", "take H22", "build H06 L", "end", "take H18", "take H03",
...              "build H35 L", "end", "take H19", "take deck"]:
...     state = play(state, move)
>>> view = view_of(state, state.current)
>>> for reason in explain_move(view, (Action.parse("build H19 L"), Action.parse("end"))):
...     print(reason)
makes a new flower Stretch: 2 cards, 2 miles (+2 points)
makes Esalen (L16) claimable with your flower Stretch
H19 gives you a Persistent water every turn
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .actions import Action, Build, Claim, Take
from .cards import CardSet
from .constants import MATERIALS, SCENERIES, STRETCH_MIN_ICONS
from .engine import apply_inplace, claimable, play, turns_per_player
from .payment import affordable_cards
from .scoring import effective_miles, score_player
from .state import GameState, Phase, PlayerState, known_state
from .stretches import Stretch, runs, stretches
from .views import PlayerView
from .wording import plural

__all__ = ["Fact", "MAX_REASONS", "explain_move", "move_facts"]

MAX_REASONS = 3  # a hint line's reasons, most telling first


@dataclass(frozen=True)
class Fact:
    """One true thing a move does, ``text`` for the seat, and what it states in numbers.

    ``kind``: ``"stretch"`` (a build step starts or extends a Stretch: ``scenery``,
    ``cards`` of the Stretch after, ``miles`` after, ``gain`` in points), ``"claim"`` (the
    move claims ``landmark`` above ``card``: ``gain`` points now), ``"claimable"`` (after
    the builds ``landmarks`` of the row can be claimed that could not before), ``"near"``
    (after the builds a run of ``scenery`` at the ``side`` end has 2 icons and not yet a
    Stretch: one more card of it there makes one that could claim ``landmarks``; ``card``: a
    hand card kept that shows the Scenery), ``"persistent"`` (``card`` built gives its
    Persistent ``material``), ``"bonus"`` (the builds change the 2-Mile bonus of ``card`` by
    ``gain`` points, a signed number; ``extra["new"]``: the card is one built), ``"keeps"``
    (hand ``card`` left would start or extend a ``scenery`` Stretch at the ``side`` end;
    with the other cards that would do it in the same words, each in ``extra["each"]``),
    ``"fits"`` (the taken ``card`` at the ``side`` end would start or extend a ``scenery``
    Stretch to ``cards`` / ``miles``, ``gain`` points; ``extra["rival"]``: a hand card that
    would add as many there, or None), ``"take_claimable"`` (built at ``side``, the taken
    card would make ``landmarks`` claimable that the hand alone would not), ``"payable"`` /
    ``"unpayable"`` (the taken card, at the turn's second pick, can / cannot be paid for in
    this turn's build step), ``"spends"`` (a build step's payments discard
    ``extra["spent"]`` hand cards of the ``extra["hand"]`` held before it), ``"denies"`` (at
    the ``side`` end of ``seat``'s Highway the taken card would start or extend Stretches,
    as ``"fits"``, and make ``landmarks`` claimable; one fact for every other seat it would
    serve, each in ``extra["each"]``), ``"no_fit"`` (a deck take: no Depot card would start
    or extend a Stretch of the seat at either end)."""

    kind: str
    text: str
    scenery: int | None = None
    cards: tuple[int, ...] = ()
    miles: int | None = None
    gain: int | None = None
    card: int | None = None
    side: str | None = None
    seat: int | None = None
    landmarks: tuple[int, ...] = ()
    landmark: int | None = None
    material: int | None = None
    extra: dict[str, Any] = field(default_factory=dict)


def explain_move(view: PlayerView, move: Sequence[Action],
                 limit: int = MAX_REASONS) -> list[str]:
    """Up to ``limit`` short sentences on what ``move`` (a whole decision of the seat to
    act, as a hint gives it: one take, or builds then a claim or ``end``) does for the
    seat of ``view``, most telling first (:func:`move_facts`' texts)."""
    return [f.text for f in move_facts(view, move)[:limit]]


def move_facts(view: PlayerView, move: Sequence[Action]) -> list[Fact]:
    """Every :class:`Fact` of ``move`` for the seat of ``view``, most telling first.

    ``view`` must be of the seat to act and ``move`` legal from it (the engine's errors
    otherwise); a take is explained in the take step, builds, claims and ends in the
    build step."""
    if not isinstance(view, PlayerView):
        raise TypeError(f"move_facts: expected a PlayerView, got {type(view).__name__}")
    move = tuple(move)
    if not move:
        return []
    if type(move[0]) is Take:
        return _take_facts(view, move[0])
    return _build_step_facts(view, move)


# ------------------------------------------------------------------ words

def _lm_words(cards: CardSet, lms: Sequence[int]) -> str:
    """Landmarks offered as choices: one Stretch claims one Landmark, one a turn, so
    "A (L1)", "either A (L1) or B (L2)", "A (L1), B (L2) or C (L3)" (never "and")."""
    names = [f"{cards.landmarks[lm].name} ({cards.landmarks[lm].id})" for lm in lms]
    if len(names) == 1:
        return names[0]
    if len(names) == 2:
        return f"either {names[0]} or {names[1]}"
    return ", ".join(names[:-1]) + " or " + names[-1]


def _points(n: int) -> str:
    """"+1 point", "+4 points"."""
    return "+" + plural(n, "point")


def _side_words(side: str) -> str:
    return "left" if side == "L" else "right"


def _seat_words(seat: int) -> str:
    return f"Player {seat + 1}"


# ------------------------------------------------------------------ Highway facts

def _with_card(player: PlayerState, card: int, side: str) -> PlayerState:
    """``player``'s Highway and Landmarks with ``card`` built at the ``side`` end, and
    its hand (the hand card that would go next is named as a build step's is)."""
    hw = [card, *player.highway] if side == "L" else [*player.highway, card]
    return PlayerState(hand=list(player.hand), highway=hw, landmarks=list(player.landmarks))


def _stretches(cards: CardSet, player: PlayerState) -> list[Stretch]:
    return stretches(cards, player.highway, effective_miles(cards, player))


def stretch_changes(cards: CardSet, before: PlayerState, after: PlayerState
                    ) -> list[tuple[Stretch, Stretch | None, int]]:
    """The qualifying Stretches of ``after``'s Highway that ``before``'s had not, or
    shorter: (Stretch after, the Stretch it extends or None for a new one, points
    gained), most points first. ``after``'s Highway is ``before``'s with cards added at
    its ends (runs of one Scenery never merge: each Stretch after holds at most one run
    before)."""
    old = _stretches(cards, before)
    out = []
    for st in _stretches(cards, after):
        base = next((o for o in old if o.scenery == st.scenery
                     and set(o.cards) <= set(st.cards)), None)
        gain = st.miles - (base.miles if base is not None else 0)
        if base is None or len(st.cards) > len(base.cards) or gain:
            out.append((st, base, gain))
    out.sort(key=lambda t: -t[2])
    return out


def _claimable_landmarks(cards: CardSet, player: PlayerState, row: Sequence[int]
                         ) -> dict[int, list[int]]:
    """Landmark -> the cards above which ``player`` could claim it now (the engine's
    :func:`~solver.rules.engine.claimable`)."""
    state = GameState(cards, [player], [], [], [], list(row))
    out: dict[int, list[int]] = {}
    for lm, c in claimable(state, 0):
        out.setdefault(lm, []).append(c)
    return out


def _end_runs(cards: CardSet, highway: Sequence[int]) -> list[tuple[str, Stretch]]:
    """The runs (of every Scenery) that touch an end of the Highway, with that end."""
    if not highway:
        return []
    out = []
    for r in runs(cards, highway):
        if r.cards[0] == highway[0]:
            out.append(("L", r))
        if r.cards[-1] == highway[-1]:
            out.append(("R", r))
    return out


def _stretch_words(st: Stretch, base: Stretch | None, gain: int) -> str:
    """"a new ocean Stretch: 2 cards, 4 miles (+4 points)", "your ocean Stretch to 3
    cards, 6 miles (+2 points)"."""
    size = f"{plural(len(st.cards), 'card')}, {plural(st.miles, 'mile')}"
    scenery = SCENERIES[st.scenery]
    if base is None:
        return f"a new {scenery} Stretch: {size} ({_points(gain)})"
    return f"your {scenery} Stretch to {size} ({_points(gain)})"


def _changes_words(changes: list[tuple[Stretch, Stretch | None, int]], whose: str,
                   sizes: bool = True, s: str = "") -> str:
    """"make a new flower Stretch of 2 cards, 7 miles and extend your field Stretch to 4
    cards, 12 miles" (``whose``: "your" / "their"; ``sizes``: False leaves out the
    new Stretches' sizes and all miles; ``s``: "s" for "makes", "extends")."""
    parts = []
    for st, base, _gain in changes:
        scenery = SCENERIES[st.scenery]
        size = plural(len(st.cards), "card")
        if sizes:
            size += f", {plural(st.miles, 'mile')}"
        if base is None:
            parts.append(f"make{s} a new {scenery} Stretch"
                         + (f" of {size}" if sizes else ""))
        else:
            parts.append(f"extend{s} {whose} {scenery} Stretch to {size}")
    return " and ".join(parts)


def _stretch_data(changes: list[tuple[Stretch, Stretch | None, int]]) -> dict[str, Any]:
    """A Fact's ``extra`` for Stretch changes: each as (Scenery, cards, miles, new)."""
    return {"stretches": [(st.scenery, st.cards, st.miles, base is None)
                          for st, base, _gain in changes]}


# ------------------------------------------------------------------ a build step

def _build_step_facts(view: PlayerView, move: tuple[Action, ...]) -> list[Fact]:
    cards = view.cards
    state = known_state(view)
    builds = [a for a in move if type(a) is Build]
    claim = next((a for a in move if type(a) is Claim), None)
    for b in builds:
        state = play(state, b)  # checked: a move not legal here is the engine's error
    before, after = view.me, state.players[view.seat]
    row = view.landmark_row
    facts: list[Fact] = []
    named: set[tuple[int, int]] = set()  # (hand card, Scenery) a "near" fact names
    last = _last_turn(state, view.seat)
    if claim is not None:
        lm, c = cards.landmark(claim.landmark), cards.card(claim.card)
        claimed = PlayerState(highway=after.highway, landmarks=[*after.landmarks, (lm, c)])
        gain = (score_player(cards, claimed, False).total
                - score_player(cards, after, False).total)
        s = cards.landmark_scenery[lm]
        facts.append(Fact("claim", f"claims {_lm_words(cards, [lm])} with your "
                                   f"{SCENERIES[s]} Stretch "
                                   f"({_points(gain) if gain else 'no points'} now)",
                          scenery=s, landmark=lm, card=c, gain=gain))
    if builds:
        for st, base, gain in stretch_changes(cards, before, after):
            verb = "makes" if base is None else "extends"
            facts.append(Fact("stretch", f"{verb} {_stretch_words(st, base, gain)}",
                              scenery=st.scenery, cards=st.cards, miles=st.miles, gain=gain,
                              extra={"new": base is None}))
        facts.extend(_bonus_facts(cards, before, after))
        if not last:  # at the last build step nothing can be claimed or built later
            facts.extend(_new_claims(cards, before, after, row, claim))
            near = _near_landmarks(cards, after, row, {cards.card(b.card) for b in builds})
            facts.extend(near)
            named = {(f.card, f.scenery) for f in near if f.card is not None}
        facts.extend(_persistent_facts(cards, builds, last))
    if last:
        return facts  # hand cards kept or spent are worth nothing at the game's end
    facts.extend(_kept_cards(cards, after, named))
    cost = _spent_fact(before, after, len(builds))
    if cost is not None:
        # a move's cost matters as much as its best gain: second when it is 2 cards or
        # more (never cut by the reasons' limit), else after the gains
        at = (min(1, len(facts)) if cost.extra["spent"] >= 2
              else next((i for i, f in enumerate(facts) if f.kind == "keeps"), len(facts)))
        facts.insert(at, cost)
    return facts


def _bonuses(cards: CardSet, player: PlayerState) -> dict[int, int]:
    """Each 2-Mile card of ``player``'s Highway -> the points of its bonus, from the
    Final Scoring breakdown (:func:`~solver.rules.scoring.score_player`'s details, as the
    hint's score change reads it: a bonus line is "<card id>: <kind>")."""
    lines = score_player(cards, player).details
    return {cards.card(line["what"].split(":")[0]): line["points"]
            for line in lines if line["category"] == "bonuses"}


def _bonus_facts(cards: CardSet, before: PlayerState, after: PlayerState) -> list[Fact]:
    """The 2-Mile bonuses the builds change, largest change first: a card built scores
    its own, a card of the Highway before gains or loses points (a card no longer at
    an end of the Highway loses its bonus for ending it)."""
    was, now = _bonuses(cards, before), _bonuses(cards, after)
    out = []
    for c, points in now.items():
        change = points - was.get(c, 0)
        if not change:
            continue
        verb = "builds" if c not in was else "raises" if change > 0 else "lowers"
        sign = _points(change) if change > 0 else f"-{plural(-change, 'point')}"
        card = cards.highway[c]
        text = f"{verb} {card.id}'s 2-Mile bonus: {sign}"
        if card.text:  # what the bonus scores, in the card's words
            text += f" ({card.text.rstrip('.')})"
        out.append(Fact("bonus", text, card=c, gain=change, extra={"new": c not in was}))
    out.sort(key=lambda f: -abs(f.gain))
    return out


def _last_turn(state: GameState, seat: int) -> bool:
    """Whether ``seat``'s turn under way is its last of the game: every seat gets
    :func:`~solver.rules.engine.turns_per_player` turns and ``turns`` counts those done."""
    return state.players[seat].turns + 1 >= turns_per_player(state)


def _persistent_facts(cards: CardSet, builds: Sequence[Build], last: bool) -> list[Fact]:
    """The Persistent Materials the builds gain: for every later turn, or at the last
    build step only for the builds after it this turn (the rules let a card's Persistent
    Material pay in the turn it is built) whose cost shows that Material."""
    out = []
    for i, b in enumerate(builds):
        c = cards.card(b.card)
        m = cards.persistent[c]
        if m < 0:
            continue
        if not last:
            when = "every turn"
        elif any(m in cards.cost[cards.card(later.card)] for later in builds[i + 1:]):
            when = "for your later builds this turn"
        else:
            continue
        out.append(Fact("persistent", f"{b.card} gives you a Persistent {MATERIALS[m]} "
                                      f"{when}", card=c, material=m))
    return out


def _spent_fact(before: PlayerState, after: PlayerState, built: int) -> Fact | None:
    """The hand cards the builds' payments discard (a 3-for-1 substitution's three
    included; a built card is not spent), out of the hand before the move."""
    spent = len(before.hand) - len(after.hand) - built
    if spent <= 0:
        return None
    return Fact("spends", f"spends {spent} of your {len(before.hand)} hand cards",
                extra={"spent": spent, "hand": len(before.hand)})


def _new_claims(cards: CardSet, before: PlayerState, after: PlayerState,
                row: Sequence[int], claim: Claim | None) -> list[Fact]:
    """Landmarks of the row the builds make claimable (when the move does not claim)."""
    if claim is not None or not row:
        return []
    was = _claimable_landmarks(cards, before, row)
    now = _claimable_landmarks(cards, after, row)
    by_scenery: dict[int, list[int]] = {}
    for lm in now:
        if lm not in was:
            by_scenery.setdefault(cards.landmark_scenery[lm], []).append(lm)
    return [Fact("claimable", f"makes {_lm_words(cards, lms)} claimable with your "
                              f"{SCENERIES[s]} Stretch", scenery=s, landmarks=tuple(lms))
            for s, lms in by_scenery.items()]


def _near_landmarks(cards: CardSet, after: PlayerState, row: Sequence[int],
                    new: set[int], prefix: str = "") -> list[Fact]:
    """Runs at an end of ``after``'s Highway with 2 icons (one more card of their Scenery
    there makes a Stretch) that hold one of the ``new`` cards, for a Landmark of the
    row not claimable already; the hand card kept that shows the Scenery, if any."""
    out = []
    claims = None
    said = set()  # a run that is the whole Highway touches both ends: said once
    for side, r in _end_runs(cards, after.highway):
        if claims is None:  # Landmarks claimable already are not "one card" away
            claims = _claimable_landmarks(cards, after, row)
        if r.icons != STRETCH_MIN_ICONS - 1 or not new & set(r.cards) \
                or (r.scenery, r.cards) in said:
            continue
        said.add((r.scenery, r.cards))
        lms = [lm for lm in row if cards.landmark_scenery[lm] == r.scenery
               and lm not in claims]
        if not lms:
            continue
        scenery = SCENERIES[r.scenery]
        fit = next((c for c in sorted(set(after.hand), key=lambda c: cards.highway[c].id)
                    if r.scenery in cards.scenery[c] and c not in new), None)
        ends = ("either end" if len(r.cards) == len(after.highway)
                else f"your {_side_words(side)} end")
        text = (f"{prefix}puts you one {scenery} card from a Stretch for "
                f"{_lm_words(cards, lms)}" + ("" if prefix else f" at {ends}"))
        if fit is not None:
            text += f" ({cards.highway[fit].id} in your hand is one)"
        out.append(Fact("near", text, scenery=r.scenery, side=side, landmarks=tuple(lms),
                        card=fit, cards=r.cards))
    return out


def _kept_cards(cards: CardSet, after: PlayerState, named: set[tuple[int, int]]
                ) -> list[Fact]:
    """Hand cards left after the move that would start or extend a Stretch at an end;
    cards doing the same in the same words are one fact (``extra["each"]``: per card
    its ``card``, ``side``, ``gain`` and ``stretches``; ``gain`` the most of one). A
    card ``named`` already with that Scenery (a "near" fact's card) is not said again."""
    groups: dict[str, list[tuple[int, str, list, int]]] = {}
    for c in sorted(set(after.hand), key=lambda c: cards.highway[c].id):
        fit = _best_fit(cards, after, c)
        if fit is None:
            continue
        side, changes, gain = fit
        if any((c, st.scenery) in named for st, _base, _gain in changes):
            continue
        words = (f"{_changes_words(changes, 'your', False, 's')} at the "
                 f"{_side_words(side)} end")
        groups.setdefault(words, []).append((c, side, changes, gain))
    out = []
    for words, group in groups.items():
        c, side, changes, _gain = group[0]
        if len(group) == 1:
            text = (f"keeps {cards.highway[c].id} to "
                    f"{_changes_words(changes, 'your', False)} at the {_side_words(side)} end")
        else:
            ids = _and_words([cards.highway[g[0]].id for g in group])
            text = f"keeps {ids}, {'either' if len(group) == 2 else 'any'} of which {words}"
        out.append(Fact("keeps", text, card=c, side=side, scenery=changes[0][0].scenery,
                        gain=max(g[3] for g in group), extra={"each": [
                            {"card": g[0], "side": g[1], "gain": g[3], **_stretch_data(g[2])}
                            for g in group]}))
    out.sort(key=lambda f: -(f.gain or 0))
    return out


# ------------------------------------------------------------------ a take

def _best_fit(cards: CardSet, player: PlayerState, c: int
              ) -> tuple[str, list[tuple[Stretch, Stretch | None, int]], int] | None:
    """The end of ``player``'s Highway where ``c`` would start or extend a Stretch and
    add most to the score (2-Mile bonuses and Landmark abilities too: a card that buries
    a bonus for ending the Highway is worse there), then most Stretch points, then the
    left: (side, its :func:`stretch_changes` there, Stretch points in all), None when
    it starts or extends none at either end."""
    best, best_key = None, None
    if not player.highway:
        return None
    now = score_player(cards, player, False).total
    for side in ("L", "R"):
        grown = _with_card(player, c, side)
        changes = stretch_changes(cards, player, grown)
        if not changes:
            continue
        gain = sum(g for _st, _base, g in changes)
        key = (score_player(cards, grown, False).total - now, gain)
        if best_key is None or key > best_key:
            best, best_key = (side, changes, gain), key
    return best


def _hand_rival(cards: CardSet, player: PlayerState, side: str, scenery: int, gain: int
                ) -> tuple[int, int] | None:
    """The hand card that built at the ``side`` end would start or extend a ``scenery``
    Stretch for ``gain`` Stretch points or more (the most, then the first id), with its
    points; None if none would."""
    best = None
    for h in sorted(set(player.hand), key=lambda h: cards.highway[h].id):
        changes = stretch_changes(cards, player, _with_card(player, h, side))
        points = sum(g for _st, _base, g in changes)
        if points >= gain and any(st.scenery == scenery for st, _b, _g in changes) \
                and (best is None or points > best[1]):
            best = (h, points)
    return best


def _hand_makes(cards: CardSet, player: PlayerState, side: str, scenery: int,
                landmarks: Sequence[int], row: Sequence[int]) -> bool:
    """Whether the hand cards showing ``scenery``, built at the ``side`` end, make a
    Stretch there that could claim one of ``landmarks`` (no other card needed)."""
    grown = player
    for h in sorted(set(player.hand)):
        if scenery in cards.scenery[h]:
            grown = _with_card(grown, h, side)
    return bool(set(landmarks) & set(_claimable_landmarks(cards, grown, row)))


def _take_facts(view: PlayerView, take: Take) -> list[Fact]:
    cards = view.cards
    me = view.me
    row = view.landmark_row
    if take.card is None:
        return _deck_take_facts(view)
    c = cards.card(take.card)
    state = known_state(view)
    last = _last_turn(state, view.seat)
    payable = None  # at the turn's second pick: whether the card can be built this turn
    if view.picks == 1:
        after_take = state.copy()
        apply_inplace(after_take, take)
        if after_take.phase == Phase.BUILD:
            payable = c in affordable_cards(after_take)
    facts: list[Fact] = []
    if last and payable is False:  # it can never be built: only what it denies is left
        return [Fact("unpayable", "you cannot pay for it this turn", card=c),
                *_denials(view, c)]
    fit = _best_fit(cards, me, c)
    if fit is not None:
        side, changes, gain = fit
        st = changes[0][0]
        text = (f"would {_changes_words(changes, 'your')} at your {_side_words(side)} end "
                f"({_points(gain)})")
        rival = _hand_rival(cards, me, side, st.scenery, gain)
        if rival is not None:  # the hand does as much there without it
            text += (f", no more than {cards.highway[rival[0]].id} in your hand would "
                     f"there ({_points(rival[1])})")
        facts.append(Fact("fits", text, card=c, side=side, scenery=st.scenery,
                          cards=st.cards, miles=st.miles, gain=gain,
                          extra={**_stretch_data(changes),
                                 "rival": None if rival is None else rival[0]}))
    if row and me.highway:
        was = _claimable_landmarks(cards, me, row)
        for side in ("L", "R"):
            now = _claimable_landmarks(cards, _with_card(me, c, side), row)
            new = [lm for lm in now if lm not in was and not _hand_makes(
                cards, me, side, cards.landmark_scenery[lm], [lm], row)]
            if new:
                facts.append(Fact("take_claimable",
                                  f"built at your {_side_words(side)} end, it makes "
                                  f"{_lm_words(cards, new)} claimable",
                                  card=c, side=side, landmarks=tuple(new)))
                break
    if not any(f.kind == "take_claimable" for f in facts):
        near = []
        for side in ("L", "R"):
            near += [f for f in _near_landmarks(cards, _with_card(me, c, side), row, {c},
                                                f"built at your {_side_words(side)} end, it ")
                     # the hand alone makes that Stretch: the take adds nothing to it
                     if not _hand_makes(cards, me, side, f.scenery, f.landmarks, row)]
        if last and view.picks == 1:  # no card comes after this one but the hand's
            near = [f for f in near if f.card is not None]
        if near:  # one, the first a hand card completes if any
            facts.append(next((f for f in near if f.card is not None), near[0]))
    if payable is not None and (facts or (cards.persistent[c] >= 0 and not last)):
        facts.append(Fact("payable", "you can pay for it this turn", card=c) if payable
                      else Fact("unpayable", "you cannot pay for it this turn", card=c))
    denials = _denials(view, c)
    small = [f for f in denials if (f.gain or 0) <= 1 and not f.landmarks]
    facts.extend(f for f in denials if f not in small)
    if cards.persistent[c] >= 0 and not last:  # worth more than a denial of 1 point
        m = cards.persistent[c]
        facts.append(Fact("persistent", f"once built, it gives you a Persistent "
                                        f"{MATERIALS[m]} every turn", card=c, material=m))
    facts.extend(small)
    return facts


def _denials(view: PlayerView, c: int) -> list[Fact]:
    """Other seats at whose Highway end ``c`` would start or extend a Stretch (their
    public Highways only), with the Landmarks of the row it would make claimable for
    them there: one fact for all of them (``extra["each"]``: per seat its ``seat``,
    ``side``, ``gain``, ``landmarks`` and ``stretches``; ``gain`` the most of one)."""
    cards = view.cards
    row = view.landmark_row
    each = []
    total = turns_per_player(known_state(view))
    for seat in sorted(view.others):
        o = view.others[seat]
        if o.turns >= total:  # its game is over: it takes no more cards
            continue
        them = PlayerState(highway=o.highway, landmarks=o.landmarks)
        fit = _best_fit(cards, them, c)
        if fit is None:
            continue
        side, changes, gain = fit
        new: list[int] = []
        if row:
            was = _claimable_landmarks(cards, them, row)
            new = [lm for lm in _claimable_landmarks(cards, _with_card(them, c, side), row)
                   if lm not in was]
        each.append((seat, side, changes, gain, new))
    if not each:
        return []
    cid = cards.highway[c].id
    if len(each) == 1:
        seat, side, changes, gain, new = each[0]
        text = (f"denies {_seat_words(seat)} {cid}, which would "
                f"{_changes_words(changes, 'their', False)} ({_points(gain)})")
        if new:
            text += f" and let them claim {_lm_words(cards, new)}"
    else:
        text = (f"denies {_and_words([_seat_words(e[0]) for e in each])} {cid}, which "
                f"would {_each_changes_words([e[2] for e in each])} "
                f"({_each_points_words([e[3] for e in each])})")
        lms = [e[4] for e in each]
        if all(lms) and all(x == lms[0] for x in lms):
            text += f" and let each claim {_lm_words(cards, lms[0])}"
        elif any(lms):  # seats offered the same Landmarks together
            offers: dict[tuple[int, ...], list[str]] = {}
            for e in each:
                if e[4]:
                    offers.setdefault(tuple(e[4]), []).append(_seat_words(e[0]))
            text += " and let " + _and_words([f"{_and_words(seats)} claim "
                                               f"{_lm_words(cards, lms)}"
                                               for lms, seats in offers.items()])
    first = each[0]
    st = first[2][0][0]
    return [Fact("denies", text, seat=first[0], card=c, side=first[1], scenery=st.scenery,
                 cards=st.cards, miles=st.miles, gain=max(e[3] for e in each),
                 landmarks=tuple(dict.fromkeys(lm for e in each for lm in e[4])),
                 extra={"each": [{"seat": seat, "side": side, "gain": gain,
                                  "landmarks": tuple(new), **_stretch_data(changes)}
                                 for seat, side, changes, gain, new in each]})]


def _and_words(items: Sequence[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _each_changes_words(each: Sequence[list[tuple[Stretch, Stretch | None, int]]]) -> str:
    """What a card would do for each of several seats, in words true for all: "extend
    a field Stretch of each", "make a new Stretch for each", "start or extend a ..."."""
    changes = [ch for changes in each for ch in changes]
    sceneries = {st.scenery for st, _base, _gain in changes}
    what = (f"{SCENERIES[next(iter(sceneries))]} Stretch" if len(sceneries) == 1
            else "Stretch")
    if all(base is None for _st, base, _gain in changes):
        return f"make a new {what} for each"
    if all(base is not None for _st, base, _gain in changes):
        return f"extend a {what} of each"
    return f"start or extend a {what} of each"


def _each_points_words(gains: Sequence[int]) -> str:
    """"+1 point each", or in seat order "+1 and +3 points"."""
    if all(g == gains[0] for g in gains):
        return f"{_points(gains[0])} each"
    return _and_words([f"+{g}" for g in gains]) + " points"


def _deck_take_facts(view: PlayerView) -> list[Fact]:
    cards = view.cards
    me = view.me
    if not me.highway or not view.depot:
        return []
    if any(_best_fit(cards, me, c) is not None for c in set(view.depot)):
        return []
    # "by itself": a Depot card may still bring a Stretch within one card (said of it)
    return [Fact("no_fit", "no Depot card would start or extend a Stretch of yours by "
                           "itself")]
