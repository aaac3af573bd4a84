"""The card-level step: from the optimal counts (:mod:`.counts`) to concrete payments.
Which cards are spent (the cheapest by value), which build discards which, where
Recycling happens and which card ends on top of the discard pile (level 3, exact).
"""

from __future__ import annotations

from ..actions import (
    BorrowDiscard,
    BorrowHighway,
    PaymentStep,
    Recycle,
    Substitute,
)
from ..constants import MATERIALS
from .plan import Problem
from .sources import N_MATERIALS, card_ids, cost_items, step_tables

_NOTHING_USEFUL = (0,) * N_MATERIALS  # level 3 when nothing is discarded (the top stays)


_RECYCLE = Recycle()


def useful_vector(P: Problem, spent) -> list[int]:
    """Level 3: per Material, its cost slots among the pool cards kept."""
    useful = [0] * N_MATERIALS
    items = cost_items(P.cards)
    spent = set(spent)
    for c in P.pool:
        if c not in spent:
            for m, k in items[c]:
                useful[m] += k
    return useful


def spend_cards(P: Problem, x, s, force, target: int = -1, extra: int = 0):
    """The cheapest cards for a spend: (singles by Material, substitution cards, total
    quantised value). With ``target`` (a Material), equally valued cards are taken
    fewest cost slots of ``target`` first (they leave a top of that Material most
    useful), and the substitutions hold ``extra`` more cards of it; None if they cannot.
    """
    material = P.cards.material
    q = P.qvalue
    if target < 0:
        order = sorted(P.pool, key=q.__getitem__)  # stable: equal values keep hand order
    else:
        cc = P.cards.cost_counts
        order = sorted(P.pool, key=lambda c: (q[c], cc[c][target]))
    singles: list[list[int]] = [[] for _ in range(N_MATERIALS)]
    need = list(x)
    rest = []
    total = 0
    for c in order:
        m = material[c]
        if need[m]:
            need[m] -= 1
            singles[m].append(c)
            total += q[c]
        else:
            rest.append(c)
    subs: list[int] = []
    if extra and not s:
        return None
    if s:
        req = [0] * N_MATERIALS
        if force >= 0:
            req[force] = 1
        if extra:
            req[target] += extra
        if force >= 0 or extra:
            picked = []
            others = []
            for c in rest:
                m = material[c]
                if req[m]:
                    req[m] -= 1
                    picked.append(c)
                else:
                    others.append(c)
            if any(req) or len(picked) > 3 * s:
                return None
            subs = picked + others[:3 * s - len(picked)]
        else:
            subs = rest[:3 * s]
    if subs:
        total += sum(map(q.__getitem__, subs))
    return singles, subs, total


def free_steps(P: Problem, path) -> list[list[PaymentStep]]:
    """Concrete free steps (Persistent, borrowed) per build, for a source plan."""
    for recs in path:
        for rec in recs:
            if rec[1] or rec[2] or rec[3] or rec[4]:
                break
        else:
            continue
        break
    else:
        return [[] for _ in path]
    state = P.state
    cards = P.cards
    ids = card_ids(cards)
    steps_of = step_tables(P.cards)
    persistent = cards.persistent
    uses = state.persistent_uses
    player = state.player
    fresh: list[list[int]] = [[] for _ in range(N_MATERIALS)]
    used: list[list[int]] = [[] for _ in range(N_MATERIALS)]
    for c in player.highway:
        m = persistent[c]
        if m >= 0:
            (used if uses.get(c, 0) else fresh)[m].append(c)
    out = []
    for i, recs in enumerate(path):
        steps: list[PaymentStep] = []
        extras: list[PaymentStep] = []
        for m, b, e, hh, dd, _r, _u in recs:
            for _ in range(b):
                c = fresh[m].pop(0)
                used[m].append(c)
                steps.append(steps_of[1][c])
            if not (e or hh or dd):
                continue
            for _ in range(e):
                extras.append(steps_of[1][used[m][0]])
            for _ in range(hh):
                seat, c = next((j, c) for j, other in enumerate(state.players)
                               if j != state.current for c in other.highway
                               if persistent[c] == m)
                steps.append(BorrowHighway(seat, ids[c]))
            for _ in range(dd):
                seat = next(j for j, other in enumerate(state.players)
                            if j != state.current and other.discard
                            and cards.material[other.discard[-1]] == m)
                steps.append(BorrowDiscard(seat))
        out.append(steps + extras)
        if i + 1 < len(path):
            m = persistent[P.builds[i]]
            if m >= 0:
                fresh[m].append(P.builds[i])
    return out


def arrange(P: Problem, singles, group_mats, subs, rec, useful, free):
    """Order the discards of every build: which card is recycled, which ends on top. The
    substitution cards are placed in groups here. Returns (usefulness, payments) or None.

    Rules used (docs/format.md, "Payments"): Recycling takes the top at its moment, so the
    recycled Material is the top at the turn's start (nothing discarded before), the last
    card of the last build that discarded, or a card of the same build discarded just
    before it; the final top is the last card of the last build that discards.
    """
    material = P.cards.material
    nb = len(singles)
    disc = [bool(singles[i] or group_mats[i]) for i in range(nb)]
    L = _last_true(disc, nb)
    if rec is None:
        justs = [(None, -1)]
    else:
        k, m = rec
        prior = _last_true(disc, k)
        justs = [("T", prior)] if prior >= 0 or P.src.recycle == m else []
        justs.append(("O", k))
    if L >= 0:
        tops = [(c, False) for c in singles[L]]
        if group_mats[L]:
            tops += [(c, True) for c in subs]
    else:
        tops = [(None, False)]
    best = None
    for mode, w in justs:
        for Y, y_sub in tops:
            X = x_sub = None
            if mode is not None:
                m = rec[1]
                if mode == "T" and w < 0:
                    pass  # the top at the start of the turn
                else:
                    if Y is not None and material[Y] == m and L == w:
                        X, x_sub = Y, y_sub
                    elif mode == "T" and L == w:
                        continue  # the window build ends the turn's discards: top is X
                    else:
                        X, x_sub = _pick_recycled(singles[w], subs if group_mats[w] else (), m,
                                                  material, Y)
                        if X is None:
                            continue
                        if mode == "O" and L == w and Y is not None and x_sub and y_sub \
                                and len(group_mats[w]) < 2:
                            # X and Y would share the build's only group: try X single
                            X2 = next((c for c in singles[w] if material[c] == m), None)
                            if X2 is None:
                                continue
                            X, x_sub = X2, False
            score = useful[material[Y]] if Y is not None else 0
            if best is None or score > best[0]:
                best = (score, mode, w, X, x_sub, Y, y_sub)
    if best is None:
        return None
    score, mode, w, X, x_sub, Y, y_sub = best
    ids = card_ids(P.cards)
    steps_of = step_tables(P.cards)
    # place the substitution cards in groups: X into build w, Y into build L
    slots = [3 * len(g) for g in group_mats]
    placed: list[list[int]] = [[] for _ in range(nb)]
    pinned = set()
    if x_sub:
        placed[w].append(X)
        pinned.add(X)
    if y_sub and Y not in pinned:
        placed[L].append(Y)
        pinned.add(Y)
    pool = [c for c in subs if c not in pinned]
    for i in range(nb):
        while len(placed[i]) < slots[i]:
            placed[i].append(pool.pop(0))
    payments = []
    for i in range(nb):
        units: list[list[int]] = [[c] for c in singles[i]]
        cards_i = placed[i]
        if x_sub and i == w and y_sub and i == L and X != Y:
            # X in the first group, Y in the last one
            rest = [c for c in cards_i if c not in (X, Y)]
            cards_i = [X] + rest + [Y]
        groups = [cards_i[3 * g:3 * g + 3] for g in range(len(group_mats[i]))]
        units += groups
        unit_x = next((u for u in units if X in u), None) if i == w else None
        unit_y = next((u for u in units if Y in u), None) if i == L else None
        if unit_x is not None:
            unit_x.remove(X)
            unit_x.append(X)
        if unit_y is not None and (unit_y is not unit_x or X == Y):
            if Y in unit_y:
                unit_y.remove(Y)
                unit_y.append(Y)
        others = [u for u in units if u is not unit_x and u is not unit_y]
        seq: list = []
        if mode == "T" and rec[0] == i:
            seq.append("rec")
        if mode == "O" and i == w:
            if unit_y is unit_x and unit_x is not None:
                seq += others + [unit_x, "rec"]
            else:
                seq += [unit_x, "rec"] + others + ([unit_y] if unit_y is not None else [])
        else:
            tail = []
            if unit_y is not None:
                tail.append(unit_y)
            if unit_x is not None and unit_x is not unit_y:
                tail.append(unit_x)  # a prior window build: X last (never also L)
            seq += others + tail
        steps = list(free[i])
        g = 0
        mats_i = group_mats[i]
        for u in seq:
            if u == "rec":
                steps.append(_RECYCLE)
            elif len(u) == 1:
                steps.append(steps_of[0][u[0]])
            else:
                steps.append(Substitute(tuple(ids[c] for c in u), MATERIALS[mats_i[g]]))
                g += 1
        payments.append(tuple(steps))
    return score, payments


def _last_true(flags, end: int) -> int:
    """The last index below ``end`` whose flag is set, or -1 (a loop: no generator on the
    hot path)."""
    for i in range(end - 1, -1, -1):
        if flags[i]:
            return i
    return -1


def _arrange_plain(P: Problem, singles, group_mats, subs, useful, free):
    """arrange without Recycling: the most useful card of the last discarding build
    ends on top."""
    material = P.cards.material
    ids = card_ids(P.cards)
    steps_of = step_tables(P.cards)
    nb = len(singles)
    L = -1
    for i in range(nb - 1, -1, -1):
        if singles[i] or group_mats[i]:
            L = i
            break
    Y = None
    score = 0
    y_sub = False
    if L >= 0:
        for c in singles[L]:
            if Y is None or useful[material[c]] > score:
                Y, score = c, useful[material[c]]
        if group_mats[L]:
            for c in subs:
                if Y is None or useful[material[c]] > score:
                    Y, score, y_sub = c, useful[material[c]], True
    pool = [c for c in subs if c != Y] if y_sub else subs
    at = 0
    payments = []
    for i in range(nb):
        steps = list(free[i])
        last = i == L
        for c in singles[i]:
            if not (last and c == Y):
                steps.append(steps_of[0][c])
        gm = group_mats[i]
        for g, m in enumerate(gm):
            if last and y_sub and g == len(gm) - 1:
                group = pool[at:at + 2] + [Y]
                at += 2
            else:
                group = pool[at:at + 3]
                at += 3
            steps.append(Substitute(tuple(ids[c] for c in group), MATERIALS[m]))
        if last and Y is not None and not y_sub:
            steps.append(steps_of[0][Y])
        payments.append(tuple(steps))
    return score, payments


def _pick_recycled(singles_w, subs_w, m, material, Y):
    """A card of Material m discarded in the window build, other than Y: (card, is_sub)."""
    for c in singles_w:
        if material[c] == m and c != Y:
            return c, False
    for c in subs_w:
        if material[c] == m and c != Y:
            return c, True
    return None, False


def _splits(caps: list[int], i: int, left: int, acc: list[int],
            out: list[tuple[int, ...]]) -> None:
    """Every way to split ``left`` single discards over the builds from ``i`` on, at
    most ``caps[j]`` to build ``j``, added to ``out`` (a module function, not a closure:
    a closure that calls itself is a reference cycle)."""
    if i == len(caps):
        if not left:
            out.append(tuple(acc))
        return
    for k in range(min(caps[i], left), -1, -1):
        _splits(caps, i + 1, left - k, acc + [k], out)


def _allocations(path, singles_by_m):
    """Ways to give each build its single discards (per Material, among the builds with
    that Material uncovered); the other uncovered slots are paid by substitutions."""
    nb = len(path)
    per_m = []
    for m in range(N_MATERIALS):
        if not singles_by_m[m]:
            continue
        caps = [next((rec[6] for rec in recs if rec[0] == m), 0) for recs in path]
        splits: list[tuple[int, ...]] = []
        _splits(caps, 0, len(singles_by_m[m]), [], splits)
        per_m.append((m, splits))
    combos: list[dict[int, tuple[int, ...]]] = [{}]
    for m, splits in per_m:
        combos = [{**c, m: sp} for c in combos for sp in splits]
    for combo in combos:
        singles: list[list[int]] = [[] for _ in range(nb)]
        group_mats: list[list[int]] = [[] for _ in range(nb)]
        for i, recs in enumerate(path):
            for rec in recs:
                m, u = rec[0], rec[6]
                group_mats[i] += [m] * (u - (combo[m][i] if m in combo else 0))
        for m, split in combo.items():
            cards_m = singles_by_m[m]
            at = 0
            for i in range(nb):
                singles[i] += cards_m[at:at + split[i]]
                at += split[i]
        yield singles, group_mats


def _rec_of(path):
    for i, recs in enumerate(path):
        for m, _b, _e, _hh, _dd, r, _u in recs:
            if r:
                return i, m
    return None


def _candidate_spends(P: Problem, spends) -> list[tuple]:
    """The cheapest card choices (level 2) of the optimal spends, as (singles by
    Material, substitution cards, total, x, shapes). Values from the caller may tie between
    cards of different Materials or costs; then several sets of cards are equally cheap,
    and for each target Material the set that keeps the most cost slots of it is added
    (with one more substitution card of it, too): whichever card ends on top, one of these
    sets is at least as good for level 3 as any other equally cheap set."""
    out = []
    for x, s, force, shapes in spends:
        out.append((*spend_cards(P, x, s, force), x, shapes))
    low = min(t[2] for t in out)
    if len(out) > 1:
        out = [t for t in out if t[2] == low]
    if not P.tied:
        return out
    seen = {(id(t[4]), frozenset(t[1]).union(*t[0])) for t in out}
    for x, s, force, shapes in spends:
        for target in range(N_MATERIALS):
            for extra in ((0, 1) if s else (0,)):
                got = spend_cards(P, x, s, force, target, extra)
                if got is None or got[2] != low:
                    continue
                key = (id(shapes), frozenset(got[1]).union(*got[0]))
                if key not in seen:
                    seen.add(key)
                    out.append((*got, x, shapes))
    return out


def best_arrangement(P: Problem, spends):
    """The best arranged plan among the cheapest spends (level 2 by the values), exact on
    level 3: every shape of every cheapest spend is a candidate, bounded from above by
    the best card that could end on top; they are tried best bound first (ties: the most
    per-turn sources left), each with every single allocation, until no candidate left
    can do better. Returns (usefulness, payments, spent cards, quantised value)."""
    material = P.cards.material
    if len(spends) == 1 and not P.tied:
        x, s, force, shapes = spends[0]
        chosen = [(*spend_cards(P, x, s, force), x, shapes)]
    else:
        chosen = _candidate_spends(P, spends)
    cands = []
    for singles_by_m, subs, total, x, shapes in chosen:
        spent = [c for g in singles_by_m for c in g] + subs
        useful = useful_vector(P, spent) if spent else _NOTHING_USEFUL
        if len(chosen) == 1 and len(shapes) == 1 and len(shapes[0][1]) == 1:
            # one candidate and one build (one allocation): nothing to bound
            cands.append((0, shapes[0][0], shapes[0][1], singles_by_m, subs, x, useful,
                          spent, total))
            break
        sub_best = None
        for spare, path, (single_mask, sub_ok, pin, discards) in shapes:
            bound = -1
            if not discards:
                bound = 0
            elif sub_ok:
                if sub_best is None:
                    sub_best = max(useful[material[c]] for c in subs)
                bound = sub_best
            for m in range(N_MATERIALS):
                if single_mask >> m & 1 and useful[m] > bound:
                    bound = useful[m]
            if pin >= 0 and useful[pin] < bound:
                bound = useful[pin]
            cands.append((bound, spare, path, singles_by_m, subs, x, useful, spent, total))
    if len(cands) > 1:
        cands.sort(key=lambda c: (c[0], c[1]), reverse=True)
    best = None
    for bound, spare, path, singles_by_m, subs, x, useful, spent, total in cands:
        if best is not None and (bound < best[0] or (bound == best[0] and spare <= best[1])):
            break
        got = _arrange_shape(P, path, singles_by_m, subs, x, useful, bound)
        if got is not None and (best is None or (got[0], spare) > best[:2]):
            best = (got[0], spare, got[1], path, spent, total)
    if best is None:  # pragma: no cover - the count search only keeps valid Recyclings
        raise AssertionError("no arrangement of a counted plan")
    score, _spare, payments, path, spent, total = best
    free = free_steps(P, path)
    if any(free):
        payments = [tuple(f) + p for f, p in zip(free, payments, strict=True)]
    return score, payments, spent, total


def _arrange_shape(P: Problem, path, singles_by_m, subs, x, useful, bound):
    """The best (usefulness, payments without the free steps) of one shape over every
    allocation of the single discards to the builds, or None if none can be ordered
    (stops at ``bound``)."""
    nb = len(path)
    free = [()] * nb
    rec = _rec_of(path)
    if nb == 1:
        group_mats = []
        for rec_ in path[0]:
            if rec_[6] > x[rec_[0]]:
                group_mats += [rec_[0]] * (rec_[6] - x[rec_[0]])
        allocs = [([[c for g in singles_by_m for c in g]], [group_mats])]
    else:
        allocs = _allocations(path, singles_by_m)
    best = None
    for singles, group_mats in allocs:
        if rec is None:
            got = _arrange_plain(P, singles, group_mats, subs, useful, free)
        elif rec[1] == P.src.recycle and (rec[0] == 0 or not any(
                singles[i] or group_mats[i] for i in range(rec[0]))):
            # the top at the turn's start is recycled first: no constraint left
            got = _arrange_plain(P, singles, group_mats, subs, useful, free)
            got[1][rec[0]] = (_RECYCLE,) + got[1][rec[0]]
        else:
            got = arrange(P, singles, group_mats, subs, rec, useful, free)
        if got is not None and (best is None or got[0] > best[0]):
            best = got
            if got[0] >= bound:
                break
    return best
