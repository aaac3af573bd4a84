"""The count search: the fewest hand cards (and the plan shapes reaching them) for an
ordered list of builds, cached on keys without card identities.

The fast exact path. A request is an ordered list of builds; the answer is the cheapest
joint payment under the lexicographic objective of docs/format.md ("Payments"):
  1. fewest hand cards spent;
  2. least total value of the spent cards (values quantised to 1e-6, see VALUE_SCALE);
  3. the most useful final top of the discard pile: the number of cost slots of its
     Material among the hand cards left after the builds (next turn's Recycling).
All three levels are exact, as in CP-SAT (solver.payment_ilp).

How: hand cards are interchangeable within a Material except for their value, so the
search runs over counts. A dynamic programme over the builds, in order, tries every
split of each build's cost between the free sources (base Persistent uses, extra uses,
borrowed Materials, Recycling) and "uncovered"; its state is the remaining per-turn
sources, the Recycling status and the uncovered Materials so far (U). Uncovered slots are
paid by single discards while the hand has that Material, else by substitutions
(min(U, h) singles + 3 * the rest; one or two singles fewer when Recycling needs a card
of some Material inside a substitution, see _recycle_demotions); so levels 1 and 2
depend only on (singles per Material, substitutions, a Material a substitution must
contain), and the cheapest cards for those are taken greedily (the cheapest singles of
each Material, then the cheapest remaining cards). The count search is cached on a key
without card identities.

Level 3 depends on more than the totals: which build discards last, how many slots of
each Material it leaves uncovered (whether a single of a Material, or a substitution
card, can be placed there and end on top), and where Recycling happens (the card on
top at that moment must be of its Material). A plan request therefore runs the same
programme a second time (:func:`plan_shapes`, also cached on counts) with the *shape* of
the plan so far in its state: per build, the uncovered count and the Recycling of each
Material. It keeps only states that can still reach the optimal card count, and returns
every distinct shape of the optimal spends. (One build needs no programme: its count
search keeps the shapes at no cost.) The card-level step then tries, for every
shape, every way to give the single discards to the builds and every card that may end
on top (with the Recycling constraint), best bound first, until no shape can do better.
"""

from __future__ import annotations

from functools import lru_cache

from .sources import N_MATERIALS


def _build_options(mats, bav, umask, e_left, h_left, d_left, rec_open, h_mask, d_mask,
                   hand, recycle):
    """Every split of one build's cost: per Material (m, base, extra, borrowed from a
    Highway, borrowed from a discard pile, recycled, uncovered)."""
    out = []
    recs: list = [None] * len(mats)
    if not (e_left or h_left or d_left):
        _simple_options(mats, bav, rec_open, hand, recycle, recs, 0, -1, out)
        return out
    _split_options(mats, bav, umask, h_mask, d_mask, rec_open, hand, recycle, recs, out,
                   0, e_left, h_left, d_left, -1)
    return out


def _split_options(mats, bav, umask, h_mask, d_mask, rec_open, hand, recycle, recs, out,
                   j, e_left, h_left, d_left, r_used) -> None:
    """:func:`_build_options` from Material ``j`` on, with what is left of the extra
    uses and borrows (a module function, not a closure: a closure that calls itself is
    a reference cycle, garbage only a full collection frees)."""
    if j == len(mats):
        out.append((tuple(recs), e_left, h_left, d_left, r_used))
        return
    m, cnt = mats[j]
    bit = 1 << m
    for b in range(min(cnt, bav[m]), -1, -1):
        rb = cnt - b
        e_max = min(rb, e_left) if e_left and (umask & bit or b) else 0
        for e in range(e_max, -1, -1):
            re = rb - e
            for hh in range(min(re, h_left) if h_mask & bit else 0, -1, -1):
                rh = re - hh
                for dd in range(min(rh, d_left) if d_mask & bit else 0, -1, -1):
                    rd = rh - dd
                    r_max = 1 if (rec_open and r_used < 0 and rd
                                  and (m == recycle or hand[m])) else 0
                    for r in range(r_max, -1, -1):
                        recs[j] = (m, b, e, hh, dd, r, rd - r)
                        _split_options(mats, bav, umask, h_mask, d_mask, rec_open, hand,
                                       recycle, recs, out, j + 1, e_left - e, h_left - hh,
                                       d_left - dd, m if r else r_used)


def _simple_options(mats, bav, rec_open, hand, recycle, recs, j, r_used, out) -> None:
    """:func:`_build_options` when the only free sources are the Persistent Materials
    and Recycling (no extra uses, nothing to borrow): the same splits, in the same order."""
    if j == len(mats):
        out.append((tuple(recs), 0, 0, 0, r_used))
        return
    m, cnt = mats[j]
    for b in range(min(cnt, bav[m]), -1, -1):
        rd = cnt - b
        if rec_open and r_used < 0 and rd and (m == recycle or hand[m]):
            recs[j] = (m, b, 0, 0, 0, 1, rd - 1)
            _simple_options(mats, bav, rec_open, hand, recycle, recs, j + 1, m, out)
        recs[j] = (m, b, 0, 0, 0, 0, rd)
        _simple_options(mats, bav, rec_open, hand, recycle, recs, j + 1, r_used, out)


def reduce_key(costs: tuple, built: tuple, hand: tuple, hand_total: int, src: tuple) -> tuple:
    """The count-search key reduced to what can matter (Materials no cost needs, more
    copies than the costs hold), so that equivalent positions share the caches."""
    need = costs[0] if len(costs) == 1 else tuple(map(sum, zip(*costs, strict=True)))
    slots = sum(need)
    hand_r, key = _reduce_pool(need, hand, src)
    return (costs, tuple([g if g >= 0 and need[g] else -1 for g in built]), hand_r,
            hand_total if hand_total < 3 * slots else 3 * slots, key)


@lru_cache(maxsize=200_000)
def search_one(cost: tuple, hand: tuple, src: tuple):
    """:func:`single_search` on a key not yet reduced (``hand``: the pool's cards per
    Material, a tuple; ``src``: ``Sources.key()``): the reduction is paid once per key."""
    return single_search(*reduce_single(cost, hand, src))


def reduce_single(cost: tuple, hand: tuple, src: tuple) -> tuple:
    """:func:`reduce_key` for one build, as the arguments of :func:`single_search` (the
    pool's size is compared with the answer by the caller). One build reads a pool count
    only against slots of its own cost (``u <= h``, ``h > u`` with a slot recycled), so
    ``cost[m]`` cards of a Material are as good as more: the pool is clipped there."""
    return (cost, *_reduce_pool(cost, hand, src, 0))


def _reduce_pool(need: tuple, hand, src: tuple, beyond: int = 1) -> tuple[tuple, tuple]:
    """The pool's Materials and the free sources, reduced to what a total cost ``need``
    can use (a pool count is clipped at ``need[m] + beyond``)."""
    base0, used0, extra0, bh0, bh_mask, bd0, bd_mask, recycle = src
    slots = 0
    cm = 0
    for m in range(N_MATERIALS):
        if need[m]:
            cm |= 1 << m
            slots += need[m]
    bh_mask &= cm
    bd_mask &= cm
    key = (
        tuple([b if b < n else n for b, n in zip(base0, need, strict=True)]),
        used0 & cm if extra0 else 0,
        extra0 if extra0 < slots else slots,
        (bh0 if bh0 < slots else slots) if bh_mask else 0, bh_mask,
        (bd0 if bd0 < slots else slots) if bd_mask else 0, bd_mask,
        recycle if recycle < 0 or need[recycle] else -1)
    return tuple([(h if h <= n else n + beyond) if n else 0
                  for h, n in zip(hand, need, strict=True)]), key


@lru_cache(maxsize=200_000)
def solve_counts(costs: tuple, built: tuple, hand: tuple, hand_total: int, src: tuple):
    """The count search for builds with cost vectors ``costs`` (in order; ``built``: the
    Persistent Material each gives to the later ones, or -1), a pool of ``hand_total``
    cards with ``hand`` per Material, and free sources ``src`` (``Sources.key()``).
    Returns ``(cards, spends)``: the fewest hand cards and every distinct (singles per
    Material, substitutions, Material a substitution must hold or -1, shapes) reaching
    them, where shapes are those of :func:`plan_shapes` for one build (it costs nothing
    more there) and None for more; when nothing pays, ``(None, (cards the closest plan
    would need, its uncovered Materials))``.
    """
    return solve_counts_reduced(*reduce_key(costs, built, hand, hand_total, src))


@lru_cache(maxsize=50_000)
def plan_shapes(costs: tuple, built: tuple, hand: tuple, hand_total: int, src: tuple):
    """:func:`solve_counts` with, per spend, every distinct shape of plan reaching it (see
    the comment above), each as ``(spare, path, bound key)``: the source plan that leaves
    the most per-turn sources (``spare``, larger is better) and, per build, one record per
    cost Material ``(m, base, extra, borrowed Highway, borrowed discard, recycled,
    uncovered)``; the bound key is :func:`_shape_bound_key`."""
    return plan_shapes_reduced(*reduce_key(costs, built, hand, hand_total, src))


@lru_cache(maxsize=200_000)
def solve_counts_reduced(costs: tuple, built: tuple, hand: tuple, hand_total: int, src: tuple):
    """The count search on a reduced key (see :func:`solve_counts`)."""
    if len(costs) == 1:  # one build: no programme, and the shapes cost nothing more
        return single(costs[0], hand, hand_total, src)
    return collect(count_dp(costs, built, hand, src, False, None), hand, hand_total, False)


@lru_cache(maxsize=50_000)
def plan_shapes_reduced(costs: tuple, built: tuple, hand: tuple, hand_total: int, src: tuple):
    """:func:`plan_shapes` on a reduced key. For one build the count search holds the
    shapes already; for more, the optimal card count comes first (the cheaper programme
    without shapes) and bounds the one with."""
    cap, got = solve_counts_reduced(costs, built, hand, hand_total, src)
    if cap is None or len(costs) == 1:
        return cap, got
    return collect(count_dp(costs, built, hand, src, True, cap), hand, hand_total, True)


def single(cost: tuple, hand: tuple, hand_total: int, src: tuple):
    """The count search for one build, with its shapes, without the programme: every
    split of the cost is a final state (the same answer as ``collect(count_dp(...))``,
    faster; the engine asks it for every hand card). The pool's size only decides
    whether the cheapest plan is affordable, so the search is cached without it."""
    low, U, spends = single_search(cost, hand, src)
    if low > hand_total:
        return None, (low, U)
    return low, spends


@lru_cache(maxsize=100_000)
def single_search(cost: tuple, hand: tuple, src: tuple):
    """:func:`single` for a pool of any size: (fewest cards, the uncovered Materials of
    the first cheapest plan, the spends)."""
    base0, used0, extra0, bh0, bh_mask, bd0, bd_mask, recycle = src
    rec_open = recycle != -2
    mats = [(m, cost[m]) for m in range(N_MATERIALS) if cost[m]]
    base_sum = sum(base0)
    low = None
    best: list = []
    for recs, e2, h2, d2, r_m in _build_options(mats, base0, used0, extra0, bh0, bd0,
                                                rec_open, bh_mask, bd_mask, hand, recycle):
        n = used = supp = 0
        for m, b, _e, _hh, _dd, _r, u in recs:
            used += b
            if u:
                supp |= 1 << m
                h = hand[m]
                n += u if u <= h else 3 * u - 2 * h
        if low is not None and n > low:
            continue
        force = -1
        if r_m >= 0 and r_m != recycle and not (supp >> r_m & 1 and hand[r_m]):
            # Recycling a card of this build: a substitution card of Material r_m
            if not (hand[r_m] > _uncovered(recs, r_m) and any(
                    rec[6] > hand[rec[0]] for rec in recs)):
                continue
            force = r_m
        if low is None or n < low:
            low = n
            best = []
        best.append((recs, n, force, (r_m < 0 and rec_open, e2, h2, d2, base_sum - used)))
    U = [0] * N_MATERIALS
    for rec in best[0][0]:  # one record per cost Material
        U[rec[0]] = rec[6]
    U = tuple(U)
    found: dict = {}
    for recs, _n, force, spare in best:
        x = [0] * N_MATERIALS
        singles = 0
        sub_ok = False
        for rec in recs:
            u = rec[6]
            if u:
                m = rec[0]
                h = hand[m]
                if u > h:
                    x[m] = h
                    sub_ok = True
                else:
                    x[m] = u
                if h:
                    singles |= 1 << m
        x = tuple(x)
        by_shape = found.setdefault((x, (low - sum(x)) // 3, force), {})
        shape = tuple([(rec[0], rec[5], rec[6]) for rec in recs])
        if shape not in by_shape or spare > by_shape[shape][0]:
            # the bound key of _shape_bound_key, for one build
            by_shape[shape] = (spare, (recs,), (singles, sub_ok, -1, low > 0))
    return low, U, tuple((x, s, force, tuple(by_shape.values()))
                         for (x, s, force), by_shape in found.items())


def _uncovered(recs, m: int) -> int:
    """Slots of Material m that a build's records leave to hand cards."""
    for rec in recs:
        if rec[0] == m:
            return rec[6]
    return 0


def _splits(mats, bav, umask, e_left, h_left, d_left, rec_open, h_mask, d_mask, hand,
            recycle, gain) -> list[tuple]:
    """Every split of one build's cost (:func:`_build_options`) with what it leaves:
    (records, base left, used mask, extra, borrow_h, borrow_d, recycled Material or -1,
    uncovered (Material, count) pairs, their Material mask, the build's shape)."""
    out = []
    for recs, e2, h2, d2, r_m in _build_options(mats, bav, umask, e_left, h_left, d_left,
                                                rec_open, h_mask, d_mask, hand, recycle):
        bav2 = list(bav)
        umask2 = umask
        uncovered = []
        supp = 0
        for m, b, _e, _hh, _dd, _r, u in recs:
            if b:
                bav2[m] -= b
                umask2 |= 1 << m
            if u:
                uncovered.append((m, u))
                supp |= 1 << m
        if gain >= 0:
            bav2[gain] += 1
        out.append((recs, tuple(bav2), umask2, e2, h2, d2, r_m, uncovered, supp,
                    tuple([(rec[0], rec[5], rec[6]) for rec in recs])))
    return out


def count_dp(costs: tuple, built: tuple, hand: tuple, src: tuple, shaped: bool,
              cap: int | None) -> dict:
    """The dynamic programme over the builds; returns its final states (key -> a source
    plan reaching it). ``shaped``: the key also holds the shape of the plan so far; with
    ``cap`` (the optimal card count), states that would spend more cards are dropped."""
    base0, used0, extra0, bh0, bh_mask, bd0, bd_mask, recycle = src
    rec_open = recycle != -2
    if cap is None:
        cap = 1 << 30
    # core state: (base left, used mask, extra, borrow_h, borrow_d, recycle status, any
    # discard yet, Materials uncovered in the last build that discarded, U, cards U costs)
    # recycle status: 0 open, 1 settled (used and valid, or never), (m, S) needs a
    # substitution holding m in a build whose uncovered Materials S include a
    # substituted one. The key is the core, or (core, shape) when shaped.
    start = (base0, used0, extra0, bh0, bd0, 0 if rec_open else 1, False, 0, -1,
             (0,) * N_MATERIALS, 0)
    states = {(start, ()) if shaped else start: ()}
    last = len(costs) - 1
    for i, cost in enumerate(costs):
        mats = [(m, cost[m]) for m in range(N_MATERIALS) if cost[m]]
        new: dict = {}
        gain = built[i] if i < last else -1
        memo: dict = {}  # the splits depend on the free sources left only
        for state, path in states.items():
            if shaped:
                core, shape = state
            else:
                core = state
            bav, umask, e_left, h_left, d_left, rst, anyd, lsupp, edge, U, n = core
            okey = (bav, umask, e_left, h_left, d_left, rst == 0)
            splits = memo.get(okey)
            if splits is None:
                splits = memo[okey] = _splits(mats, bav, umask, e_left, h_left, d_left,
                                              rst == 0, bh_mask, bd_mask, hand, recycle, gain)
            for recs, bav2, umask2, e2, h2, d2, r_m, uncovered, supp, part in splits:
                if supp:
                    U2 = list(U)
                    n2 = n
                    for m, u in uncovered:  # singles while the hand has them, else 3 each
                        o = U2[m]
                        k = U2[m] = o + u
                        h = hand[m]
                        n2 += (k if k <= h else 3 * k - 2 * h) - (o if o <= h else 3 * o - 2 * h)
                    if n2 > cap:
                        continue
                    U2 = tuple(U2)
                else:
                    U2 = U
                    n2 = n
                rst2 = rst
                if r_m >= 0:
                    ok = False
                    need_sub = 0
                    if not anyd:
                        ok = r_m == recycle
                    elif lsupp >> r_m & 1 and hand[r_m]:
                        ok = True
                    else:
                        need_sub |= lsupp
                    if not ok:
                        if supp >> r_m & 1 and hand[r_m]:
                            ok = True
                        else:
                            need_sub |= supp
                    if ok:
                        rst2 = 1
                    elif need_sub:
                        rst2 = (r_m, need_sub)
                    else:
                        continue
                if supp:
                    edge2 = -1
                elif r_m >= 0 and anyd:
                    edge2 = r_m  # recycled after the last discard: that card stays on top
                else:
                    edge2 = edge
                key = (bav2, umask2, e2, h2, d2, rst2, anyd or bool(supp), supp or lsupp,
                       edge2, U2, n2)
                if shaped:
                    key = (key, shape + (part,))
                if key not in new:
                    new[key] = path + (recs,)
        states = new
    return states


_NO_DEMOTION = ((),)


def _recycle_demotions(U: tuple, hand: tuple, m: int, need_sub: int) -> tuple:
    """How a plan can recycle a substitution card of Material ``m`` discarded last in a
    build whose uncovered Materials are ``need_sub``: that build needs a slot paid by a
    substitution (some Material q of it with more slots than hand cards, U[q] > hand[q]),
    and a card of m must be left for it after the singles (hand[m] > U[m]). When not, a
    slot can still be paid by a substitution instead of a single card of its Material
    (2 cards more each): the alternatives, each a tuple of the Materials that lose a
    single (all of one length); () if Recycling cannot be valid."""
    sub_slot = any(need_sub >> q & 1 and U[q] > hand[q] for q in range(N_MATERIALS))
    if hand[m] > U[m]:
        if sub_slot:
            return _NO_DEMOTION
        return tuple((q,) for q in range(N_MATERIALS) if need_sub >> q & 1)
    if not hand[m]:
        return ()
    if sub_slot or need_sub >> m & 1:
        return ((m,),)  # the freed card of m pays in the window's substitution
    return tuple((m, q) for q in range(N_MATERIALS) if need_sub >> q & 1)


def collect(states: dict, hand: tuple, hand_total: int, shaped: bool):
    """The answer of the count search from the final states: ``(cards, spends)`` or
    ``(None, closest)`` (see :func:`solve_counts`); with shapes, each spend also lists
    its shapes as :func:`plan_shapes` says."""
    low = None
    best: list = []
    for state, path in states.items():
        core = state[0] if shaped else state
        n = core[10]
        if low is not None and n > low:
            continue
        rst = core[5]
        force = -1
        demoted = _NO_DEMOTION
        if type(rst) is tuple:  # Recycling needs a substitution card of Material m
            force = rst[0]
            demoted = _recycle_demotions(core[9], hand, force, rst[1])
            if not demoted:
                continue
            n += 2 * len(demoted[0])
            if low is not None and n > low:
                continue
        if low is None or n < low:
            low = n
            best = []
        best.append((state, core, path, force, demoted))
    if low is None or low > hand_total:
        return None, (low, best[0][1][9]) if best else (0, (0,) * N_MATERIALS)
    found: dict = {}
    for state, core, path, force, demoted in best:
        U = core[9]
        x0 = [u if u < h else h for u, h in zip(U, hand, strict=True)]
        for singles_less in demoted:
            x = x0
            if singles_less:
                x = x0[:]
                for q in singles_less:
                    x[q] -= 1
            x = tuple(x)
            spend = (x, (low - sum(x)) // 3, force)
            if not shaped:
                found[spend] = None
                continue
            by_shape = found.setdefault(spend, {})
            spare = (core[5] == 0, core[2], core[3], core[4], sum(core[0]))
            shape = state[1]
            if shape not in by_shape or spare > by_shape[shape][0]:
                by_shape[shape] = (spare, path)
    if not shaped:
        return low, tuple([(x, s, force, None) for x, s, force in found])
    return low, tuple(
        (x, s, force, tuple((spare, path, _shape_bound_key(path, x))
                            for spare, path in by_shape.values()))
        for (x, s, force), by_shape in found.items())


def _shape_bound_key(path, x) -> tuple[int, bool, int, bool]:
    """What bounds level 3 for a shape (card-independent): the Materials a single of the
    last discarding build may have, whether that build may hold a substitution, the
    Material the top is pinned to by a Recycling after the last discard (-1: none), and
    whether anything is discarded at all."""
    last = -1
    for i in range(len(path) - 1, -1, -1):
        if any(rec[6] for rec in path[i]):
            last = i
            break
    if last < 0:
        return 0, False, -1, False
    total = [0] * N_MATERIALS
    for recs in path:
        for rec in recs:
            total[rec[0]] += rec[6]
    singles = 0
    sub_ok = False
    for rec in path[last]:
        m, u = rec[0], rec[6]
        if u:
            if x[m]:
                singles |= 1 << m
            if total[m] > x[m]:
                sub_ok = True
    pin = -1
    for i in range(last + 1, len(path)):
        for rec in path[i]:
            if rec[5]:
                pin = rec[0]
    return singles, sub_ok, pin, True


def min_cards_simple(items, hand, base, recycle) -> int:
    """Fewest hand cards paying one build whose only free sources are the Persistent
    Materials ``base`` (unused, by Material) and Recycling (``recycle``: the Material on
    top, -1 nothing on top yet, -2 used this turn): the count search's ``low`` for sources
    without extra uses or borrowing (``items``: the cost as (Material, count) pairs,
    ``hand``: the pool's cards per Material), without its search.

    Every Persistent use that a cost slot can take is taken (it only lowers the slots
    left to hand cards); then at most one slot is recycled, the one saving most (3 cards
    for a slot that a substitution pays, else 1) among those the rules allow: the top at
    the turn's start, a card of the Material discarded just before (the build still
    discards one of it), or a card of it inside a substitution of the build."""
    n = 0
    left = []
    for m, k in items:
        b = base[m]
        u = k - b if b < k else 0
        if u:
            h = hand[m]
            if u <= h:
                n += u
            else:
                n += 3 * u - 2 * h
            left.append((m, u, h))
    if recycle == -2 or not left:
        return n
    gain = 0
    for m, u, h in left:
        if not (m == recycle or h):
            continue
        g = 3 if u > h else 1
        if g <= gain:
            continue
        if m == recycle or (u > 1 and h):
            gain = g
        elif h > u - 1:
            # Recycling a substitution card of m: the build must still substitute
            if any(uq > hq for q, uq, hq in left if q != m) or u - 1 > h:
                gain = g
    return n - gain
