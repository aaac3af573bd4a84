"""The cheapest joint payment of a turn's builds, as a CP-SAT model.

Given a position at the build step and an ordered list of builds, :func:`cheapest_joint`
decides which hand cards are discarded for which build, the substitutions, which
Persistent Materials (base and extra uses), borrowed Materials and Recycling pay what,
and the discard order, minimising lexicographically (docs/format.md, "Payments"):

1. the number of hand cards spent;
2. their total value (``values[c]``, default :func:`solver.rules.payment.card_keep_value`,
   compared at 1e-6: ``VALUE_SCALE``);
3. minus the usefulness of the final discard top: the cost slots of its Material among
   the hand cards kept (next turn's Recycling is worth most when it pays them).

The three levels are one weighted integer objective (weights larger than the range of
the lower levels), so one solve is exact. The model counts per build and Material;
cards of one Material are told apart only by their value (the cheaper is spent first,
a symmetry cut). The solution is turned into engine payments by the same arrangement
code as the fast path (:mod:`solver.rules.payment`), so both give the same kind of
:class:`~solver.rules.payment.JointPlan`.

Timing: the model build and the solve are timed apart (``plan.stats``); the solver runs
with one worker and no presolve (the models are tiny; presolve costs more than it saves).

    bigsur pay POSITION.json --build H12:left --build H40:right
"""

from __future__ import annotations

import json
import time

from ortools.sat.python import cp_model

from .rules.constants import SUBSTITUTION_CARDS
from .rules.payment import (
    N_MATERIALS,
    VALUE_SCALE,
    JointPlan,
    PaymentInfeasible,
    PaymentRequestError,
    _arrange,
    _free_steps,
    _Problem,
    _useful_vector,
    final_top,
    infeasible_error,
)
from .rules.state import GameState

__all__ = ["PaymentInfeasible", "PaymentRequestError", "SolverParams", "add_cli",
           "build_model", "cheapest_joint"]


class SolverParams:
    """CP-SAT parameters tuned for latency on these small models."""

    num_workers = 1
    presolve = False
    time_limit_s = 10.0
    # measured on bench.payment positions: probing and lazy LP rows cost more than they save
    extra: dict = {"cp_model_probing_level": 0, "add_lp_constraints_lazily": False}


class _Model:
    """The CP-SAT model of one request, with the variables needed to read a plan back."""

    def __init__(self, P: _Problem):
        self.P = P
        self.m = cp_model.CpModel()
        self.ns: dict = {}  # (build, material) -> single discards
        self.sb: dict = {}  # (build, material) -> substitutions supplying it
        self.sc: dict = {}  # (build, material) -> substitution cards of that Material
        self.free: dict = {}  # (build, material, kind) -> uses; kind in b e h d r
        self.sp: dict = {}  # pool card -> spent
        self._build()

    def _build(self) -> None:  # noqa: C901 - one model, read top to bottom
        P = self.P
        m = self.m
        cards = P.cards
        material = cards.material
        k = len(P.builds)
        base0, used0, extra0, bh0, bh_mask, bd0, bd_mask, recycle = P.src.key()
        hand = P.hand
        subs_ok = P.hand_total >= SUBSTITUTION_CARDS
        # ---- hand cards, cheaper first within a Material
        sp = self.sp
        by_m: list[list[int]] = [[] for _ in range(N_MATERIALS)]
        for c in P.pool:
            sp[c] = m.new_bool_var("")
            by_m[material[c]].append(c)
        cc = cards.cost_counts
        q = P.qvalue
        for group in by_m:
            group.sort(key=lambda c: (q[c], cc[c], c))
            for a, b in zip(group, group[1:], strict=False):
                if q[a] < q[b] or cc[a] == cc[b]:
                    m.add_implication(sp[b], sp[a])
        # ---- per build and Material: who pays the cost slots
        avail = list(base0)
        base_sum: list[list] = [[] for _ in range(N_MATERIALS)]
        extras, borrows_h, borrows_d, recs = [], [], [], []
        ns, sb, sc, free = self.ns, self.sb, self.sc, self.free
        groups = []
        for i in range(k):
            cost = P.costs[i]
            for mat in range(N_MATERIALS):
                need = cost[mat]
                if not need:
                    continue
                terms = []
                if hand[mat]:
                    ns[i, mat] = v = m.new_int_var(0, min(need, hand[mat]), "")
                    terms.append(v)
                if subs_ok:
                    sb[i, mat] = v = m.new_int_var(0, need, "")
                    terms.append(v)
                if avail[mat]:
                    free[i, mat, "b"] = v = m.new_int_var(0, min(need, avail[mat]), "")
                    terms.append(v)
                    base_sum[mat].append(v)
                    if len(base_sum[mat]) > 1 and sum(
                            min(P.costs[j][mat], avail[mat]) for j in range(i + 1)) > avail[mat]:
                        m.add(sum(base_sum[mat]) <= avail[mat])
                if extra0 and (used0 >> mat & 1 or base_sum[mat]):
                    free[i, mat, "e"] = v = m.new_int_var(0, min(need, extra0), "")
                    terms.append(v)
                    extras.append(v)
                    if not used0 >> mat & 1:
                        m.add(v <= need * sum(base_sum[mat]))
                if bh0 and bh_mask >> mat & 1:
                    free[i, mat, "h"] = v = m.new_int_var(0, min(need, bh0), "")
                    terms.append(v)
                    borrows_h.append(v)
                if bd0 and bd_mask >> mat & 1:
                    free[i, mat, "d"] = v = m.new_int_var(0, min(need, bd0), "")
                    terms.append(v)
                    borrows_d.append(v)
                if recycle != -2 and (recycle == mat or hand[mat]):
                    free[i, mat, "r"] = v = m.new_bool_var("")
                    terms.append(v)
                    recs.append((i, mat, v))
                if terms:
                    m.add(sum(terms) == need)
                else:
                    m.add_bool_or([])  # nothing can supply this Material: infeasible
            if i + 1 < k and P.built[i] >= 0:
                avail[P.built[i]] += 1
            # substitution cards of build i
            if subs_ok:
                g = sum(sb[i, mat] for mat in range(N_MATERIALS) if (i, mat) in sb)
                cards_i = []
                for mat in range(N_MATERIALS):
                    if hand[mat]:
                        sc[i, mat] = v = m.new_int_var(0, hand[mat], "")
                        cards_i.append(v)
                m.add(sum(cards_i) == SUBSTITUTION_CARDS * g)
                groups.append(g)
            else:
                groups.append(0)
        if extras:
            m.add(sum(extras) <= extra0)
        if borrows_h:
            m.add(sum(borrows_h) <= bh0)
        if borrows_d:
            m.add(sum(borrows_d) <= bd0)
        if len(recs) > 1:
            m.add(sum(v for _i, _m, v in recs) <= 1)
        for mat in range(N_MATERIALS):
            if hand[mat]:
                used = [ns[i, mat] for i in range(k) if (i, mat) in ns]
                used += [sc[i, mat] for i in range(k) if (i, mat) in sc]
                m.add(sum(used) == sum(sp[c] for c in by_m[mat]))
        if not P.pool:
            self.objective(0, 0)
            return
        # ---- who discards what, per build
        nd = []
        disc = []
        hasm: dict = {}
        for i in range(k):
            terms = [ns[i, mat] for mat in range(N_MATERIALS) if (i, mat) in ns]
            terms += [sc[i, mat] for mat in range(N_MATERIALS) if (i, mat) in sc]
            d = m.new_bool_var("")
            if terms:
                total = sum(terms)
                m.add(total >= 1).only_enforce_if(d)
                m.add(total == 0).only_enforce_if(~d)
            else:
                m.add(d == 0)
            nd.append(terms)
            disc.append(d)
            for mat in range(N_MATERIALS):
                if not hand[mat]:
                    continue
                t = [x for x in (ns.get((i, mat)), sc.get((i, mat))) if x is not None]
                v = m.new_bool_var("")
                if t:
                    m.add(sum(t) >= 1).only_enforce_if(v)
                else:
                    m.add(v == 0)
                hasm[i, mat] = v
        # ---- Recycling: the top at its moment
        own: dict = {}
        if recs:
            rec_mats = {mat for _i, mat, _v in recs}
            top_at: dict = {}  # (build, Material) -> may be on top when the build starts
            for mat in rec_mats:
                prev = None  # True / False constants for build 0
                for i in range(k):
                    if i == 0:
                        prev = recycle == mat
                        top_at[0, mat] = prev
                        continue
                    t = m.new_bool_var("")
                    h = hasm.get((i - 1, mat))
                    if prev is True:
                        a = ~disc[i - 1]
                    elif prev is False:
                        a = None
                    else:
                        a = m.new_bool_var("")
                        m.add_implication(a, ~disc[i - 1])
                        m.add_implication(a, prev)
                    lits = [x for x in (h, a) if x is not None]
                    if lits:
                        m.add_bool_or(lits).only_enforce_if(t)
                    else:
                        m.add(t == 0)
                    top_at[i, mat] = t
                    prev = t
            for i, mat, v in recs:
                o = hasm.get((i, mat))
                if o is not None:
                    own[i, mat] = ov = m.new_bool_var("")
                    m.add_implication(ov, o)
                else:
                    ov = None
                t = top_at[i, mat]
                lits = [x for x in (ov,) if x is not None]
                if t is True:
                    continue
                if t is not False:
                    lits.append(t)
                if lits:
                    m.add_bool_or(lits).only_enforce_if(v)
                else:
                    m.add(v == 0)
        # ---- level 3: the final top
        last = [m.new_bool_var("") for _ in range(k)]
        for i in range(k):
            m.add_implication(last[i], disc[i])
            for j in range(i + 1, k):
                m.add_implication(last[i], ~disc[j])
        mats_in_hand = [mat for mat in range(N_MATERIALS) if hand[mat]]
        y: dict = {}
        for i in range(k):
            for mat in mats_in_hand:
                y[i, mat] = v = m.new_bool_var("")
                m.add_implication(v, last[i])
                m.add_implication(v, hasm[i, mat])
        m.add(sum(y.values()) <= 1)
        if recs:
            # the last discarding build is a window for a later Recycling: top is its Material
            for j in range(k):
                for mat in mats_in_hand:
                    later = [v for i, rm, v in recs if i > j and rm != mat]
                    if later:
                        m.add(y[j, mat] + sum(later) <= 1)
            # Recycling a card of the last build itself: the top must not share its group
            nsb: dict = {}
            g2: dict = {}
            for (i, rm), ov in own.items():
                for mat in mats_in_hand:
                    if mat == rm:
                        continue
                    lits = [~ov, ~y[i, mat]]
                    for x in (mat, rm):
                        if (i, x) in ns:
                            if (i, x) not in nsb:
                                nsb[i, x] = b = m.new_bool_var("")
                                m.add(ns[i, x] >= 1).only_enforce_if(b)
                            lits.append(nsb[i, x])
                    if not isinstance(groups[i], int):
                        if i not in g2:
                            g2[i] = b = m.new_bool_var("")
                            m.add(groups[i] >= 2).only_enforce_if(b)
                        lits.append(g2[i])
                    m.add_bool_or(lits)
        # usefulness of the top: cost slots of its Material among the cards kept
        bound = sum(sum(cc[c]) for c in P.pool)
        u3 = m.new_int_var(0, bound, "")
        m.add(u3 <= bound * sum(y.values()))
        for mat in mats_in_hand:
            kept = [(cc[c][mat], sp[c]) for c in P.pool if cc[c][mat]]
            full = sum(n for n, _v in kept)
            tm = sum(y[i, mat] for i in range(k))
            m.add(u3 <= full - sum(n * v for n, v in kept) + (bound - full) * (1 - tm))
        self.y = y
        self.objective(bound, [(1, u3)])

    def objective(self, useful_max: int, useful) -> None:
        P = self.P
        w2 = useful_max + 1
        w1 = w2 * (sum(P.qvalue.values()) + 1)
        terms = [(w1 + w2 * P.qvalue[c]) * v for c, v in self.sp.items()]
        if useful:
            terms += [-n * w for n, w in useful]
        self.m.minimize(sum(terms))


def build_model(state: GameState, builds, values=None) -> _Model:
    """The CP-SAT model of a request (for inspection and benchmarks)."""
    return _Model(_Problem(state, builds, values))


def cheapest_joint(state: GameState, builds, values=None, params=SolverParams,
                   hint: JointPlan | None = None) -> JointPlan:
    """The cheapest joint payment of ``builds`` (an ordered list of cards in hand: indices,
    ids or (card, side)) by CP-SAT; ``state`` may be the view of the seat to act. Raises
    PaymentInfeasible (naming the short Material) or PaymentRequestError. ``plan.stats``
    holds ``build_ms``, ``solve_ms``, ``status`` and the solver's ``objective``."""
    t0 = time.perf_counter()
    c0 = time.thread_time()
    P = _Problem(state, builds, values)
    model = _Model(P)
    if hint is not None:
        spent = set(hint.spent)
        for c, v in model.sp.items():
            model.m.add_hint(v, c in spent)
    t1 = time.perf_counter()
    c1 = time.thread_time()
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = params.num_workers
    solver.parameters.cp_model_presolve = params.presolve
    solver.parameters.max_time_in_seconds = params.time_limit_s
    for name, value in params.extra.items():
        setattr(solver.parameters, name, value)
    status = solver.solve(model.m)
    t2 = time.perf_counter()
    c2 = time.thread_time()
    stats = {"build_ms": (t1 - t0) * 1e3, "solve_ms": (t2 - t1) * 1e3,
             "build_cpu_ms": (c1 - c0) * 1e3, "solve_cpu_ms": (c2 - c1) * 1e3,
             "status": solver.status_name(status)}
    if status == cp_model.INFEASIBLE:
        # the reason (what is short) comes from the count search of the fast path
        n, closest = P.solve_counts()
        if n is None:
            err = infeasible_error(P.cards, P.builds, P.hand, closest)
        else:  # pragma: no cover - the two paths disagree: a bug, reported as such
            names = ", ".join(P.cards.highway[c].id for c in P.builds)
            err = PaymentInfeasible(f"cannot pay for {names} (CP-SAT found no payment, "
                                    "the fast path found one)")
        err.stats = stats
        raise err
    if status != cp_model.OPTIMAL:
        raise RuntimeError(f"CP-SAT stopped with status {solver.status_name(status)}")
    plan = _read_plan(model, solver)
    plan.solver = "cp-sat"
    stats["objective"] = solver.objective_value
    plan.stats = stats
    return plan


def _read_plan(model: _Model, solver: cp_model.CpSolver) -> JointPlan:
    """Turn the solution into engine payments (the fast path's arrangement code)."""
    P = model.P
    material = P.cards.material
    val = solver.value
    spent = [c for c, v in model.sp.items() if val(v)]
    pool_m: list[list[int]] = [[] for _ in range(N_MATERIALS)]
    for c in spent:
        pool_m[material[c]].append(c)
    path = []
    singles: list[list[int]] = []
    group_mats: list[list[int]] = []
    rec = None
    for i, cost in enumerate(P.costs):
        recs = []
        s_i: list[int] = []
        g_i: list[int] = []
        for mat in range(N_MATERIALS):
            if not cost[mat]:
                continue
            got = [val(model.free[i, mat, kind]) if (i, mat, kind) in model.free else 0
                   for kind in "behdr"]
            n_single = val(model.ns[i, mat]) if (i, mat) in model.ns else 0
            n_sub = val(model.sb[i, mat]) if (i, mat) in model.sb else 0
            if got[4]:
                rec = (i, mat)
            recs.append((mat, *got, n_single + n_sub))
            s_i += [pool_m[mat].pop() for _ in range(n_single)]
            g_i += [mat] * n_sub
        path.append(tuple(recs))
        singles.append(s_i)
        group_mats.append(g_i)
    subs = [c for group in pool_m for c in group]
    useful = _useful_vector(P, spent)
    got = _arrange(P, singles, group_mats, subs, rec, useful, _free_steps(P, path))
    if got is None:  # pragma: no cover - the model only admits arrangeable plans
        raise RuntimeError("CP-SAT plan could not be ordered")
    payments = got[1]
    total = sum(P.qvalue[c] for c in spent)
    plan = JointPlan(list(zip(P.builds, P.sides, strict=True)), payments, len(spent),
                     total / VALUE_SCALE, sorted(spent, key=lambda c: (P.qvalue[c], c)))
    plan.top, plan.usefulness = final_top(P.state, P.builds, payments)
    return plan


# ------------------------------------------------------------------ command line

def add_cli(sub) -> None:
    """Register ``bigsur pay POSITION.json --build CARD:left ... [--cards FILE]``."""
    p = sub.add_parser("pay", help="cheapest joint payment of builds in a position or a "
                                   "view (JSON plan)")
    p.add_argument("position", help="bigsur-position/1 or bigsur-view/1 JSON file at the "
                   "build step (a view: of the seat to act)")
    p.add_argument("--build", action="append", required=True, metavar="CARD:SIDE",
                   help="a card to build and its end (left/right or L/R); repeat, in order")
    p.add_argument("--cards", help="card-set file (default: the position's own)")
    p.add_argument("--fast", action="store_true", help="use the fast exact path, not CP-SAT")
    p.set_defaults(func=cmd_pay)


_SIDES = {"left": "L", "l": "L", "right": "R", "r": "R"}


def parse_build(text: str) -> tuple[str, str]:
    """``CARD:left`` / ``CARD:R`` -> (card id, "L"/"R"); PaymentRequestError otherwise."""
    card, sep, side = text.rpartition(":")
    if not sep or not card or side.lower() not in _SIDES:
        raise PaymentRequestError(f"--build {text!r}: expected CARD:left or CARD:right")
    return card, _SIDES[side.lower()]


def cmd_pay(args) -> int:
    from .cli import UserError, load_position  # (the command line's file reader)
    from .rules.determinize import InconsistentViewError, determinize
    from .rules.payment import joint_payment
    from .rules.views import PlayerView

    state = load_position(args.position, args.cards, views=True)
    viewer = None
    if isinstance(state, PlayerView):
        # a payment reads only the acting seat's cards and public ones: any full state
        # consistent with the view pays the same (as POST /v1/payment)
        if state.seat != state.current:
            raise UserError(f"view_of: the view is of seat {state.seat} but seat "
                            f"{state.current} is to act; only the seat to act pays")
        viewer = state.seat
        try:
            state = determinize(state, 0)
        except InconsistentViewError as err:
            raise UserError(str(err)) from None
    # card ids in any case, as the play prompt reads them ('h05:l' is H05 at the left)
    builds = [(state.cards.typed_id(card), side) for card, side in map(parse_build, args.build)]
    try:
        plan = (joint_payment if args.fast else cheapest_joint)(state, builds)
    except PaymentInfeasible as err:
        print(json.dumps({"feasible": False, "reason": str(err), "short": list(err.short)},
                         indent=1))
        return 1
    out = {"feasible": True} | plan.to_json(state, viewer)
    print(json.dumps(out, indent=1))
    return 0
