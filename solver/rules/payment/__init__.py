"""Paying for builds: checking any concrete payment, and the cheapest joint payment of a
turn's builds (the fast exact path; the CP-SAT model is :mod:`solver.payment_ilp`).

Sources of Materials (each step of a payment supplies one):

- discard a hand card for the Material on its back;
- substitution: discard any 3 hand cards for 1 Material of choice;
- the Persistent Material of each 1-Mile card in your Highway, once per turn (more with
  a ``persistent_extra_use`` Landmark);
- Recycling, once per turn, the Material on top of your discard pile at that moment
  (so a card discarded earlier in the same payment or turn can be recycled);
- Landmark abilities: ``borrow_highway`` (another player's Persistent Material) and
  ``borrow_discard`` (the top of another player's discard pile), per turn.

A payment supplies exactly the cost (readings in docs/rules.md). Discarded cards go to
the discard pile in payment order; the last one is the new top.

Cheapest (docs/format.md, "Payments"): fewest hand cards, then the least value of the
cards spent, then the most useful final discard top. :func:`joint_payment` pays an
ordered list of builds jointly (paying each alone, cheapest, can leave a later build
unpayable); :func:`cheapest_payment` is its 1-build case and the engine's auto-pay;
:func:`affordable_cards` / :func:`affordable_sets` say what can be built this turn.

The package, one concern a module (each imports only public names of the others):

- :mod:`.sources`: the free sources of the player to act, Landmark allowances, the
  errors, card values;
- :mod:`.checked`: checking and carrying out a concrete payment;
- :mod:`.counts`: the count search (fewest cards and plan shapes, on counts);
- :mod:`.plan`: a request (:class:`Problem`) and its answer (:class:`JointPlan`);
- :mod:`.arrange`: from counts to concrete payments (which cards, in which order);
- :mod:`.api`: the entry points below.

``from solver.rules.payment import X`` works for every name listed in ``__all__`` (and,
for existing callers, the former private names of the single module).
"""

from __future__ import annotations

from .api import (
    affordable_cards,
    affordable_sets,
    auto_payment_cards,
    build_costs,
    cheapest_cards_needed,
    cheapest_payment,
    clear_caches,
    joint_cost,
    joint_payment,
)
from .arrange import (
    arrange,
    best_arrangement,
    free_steps,
    spend_cards,
    useful_vector,
)
from .checked import (
    apply_payment,
    carry_out_payment,
    spent_cards,
)
from .counts import (
    collect,
    count_dp,
    min_cards_simple,
    plan_shapes,
    plan_shapes_reduced,
    reduce_key,
    reduce_single,
    search_one,
    single,
    single_search,
    solve_counts,
    solve_counts_reduced,
)
from .plan import (
    JointPlan,
    Problem,
    explain_payments,
    fill_single,
    final_top,
    infeasible_error,
)
from .sources import (
    N_MATERIALS,
    VALUE_SCALE,
    PaymentError,
    PaymentInfeasible,
    PaymentRequestError,
    Sources,
    allowances,
    card_ids,
    card_keep_value,
    cost_items,
    grants_any,
    hand_counts,
    landmark_grants,
    material_counts,
    qvalues,
    step_tables,
    ties,
)

# the names of the former single module, for existing callers (payment_ilp, bench, tests)
_Problem = Problem
_Sources = Sources
_arrange = arrange
_collect = collect
_count_dp = count_dp
_free_steps = free_steps
_plan_shapes = plan_shapes_reduced
_reduce = reduce_key
_single = single
_solve_counts = solve_counts_reduced
_useful_vector = useful_vector

__all__ = [
    "clear_caches",
    "affordable_cards",
    "affordable_sets",
    "allowances",
    "apply_payment",
    "arrange",
    "auto_payment_cards",
    "best_arrangement",
    "build_costs",
    "card_ids",
    "card_keep_value",
    "carry_out_payment",
    "cheapest_cards_needed",
    "cheapest_payment",
    "collect",
    "cost_items",
    "count_dp",
    "explain_payments",
    "fill_single",
    "final_top",
    "free_steps",
    "grants_any",
    "hand_counts",
    "infeasible_error",
    "joint_cost",
    "joint_payment",
    "JointPlan",
    "landmark_grants",
    "material_counts",
    "min_cards_simple",
    "N_MATERIALS",
    "PaymentError",
    "PaymentInfeasible",
    "PaymentRequestError",
    "plan_shapes",
    "plan_shapes_reduced",
    "Problem",
    "qvalues",
    "reduce_key",
    "reduce_single",
    "search_one",
    "single",
    "single_search",
    "solve_counts",
    "solve_counts_reduced",
    "Sources",
    "spend_cards",
    "step_tables",
    "spent_cards",
    "ties",
    "useful_vector",
    "VALUE_SCALE",
]
