/* Click-to-pay, the model: a card's cost as chips, filled by the payment steps the
 * player clicks, in order. Pure (no DOM); the server checks the payment when it is sent. */

import {stepsInWords, cardsUsed} from "./words.js";

/** cost: the card's Materials; steps: payment steps in notation, in click order.
 * -> {chips: [{material, step, words}], extra: [{step, material, words}], need: [m]} */
export function payState(cost, steps, ctx) {
  const chips = cost.map((m) => ({material: m, step: null, words: null}));
  const extra = [];
  for (const s of stepsInWords(steps, ctx)) {
    const chip = chips.find((c) => c.step === null && c.material === s.material);
    if (chip) { chip.step = s.step; chip.words = s.words; } else extra.push(s);
  }
  return {chips, extra, need: chips.filter((c) => c.step === null).map((c) => c.material)};
}

/** Whether one more use of the Persistent Material of the 1-mile card ``card`` fits this
 * turn: each is used once a turn, and Landmarks (persistent_extra_use) allow ``extra``
 * more uses a turn in all. used: per_turn.persistent_used (uses so far, by card);
 * steps: the payment being clicked. */
export function persistentUseFits(card, steps, used, extra) {
  const uses = {...used};
  for (const s of steps) if (s.startsWith("per:")) uses[s.slice(4)] = (uses[s.slice(4)] || 0) + 1;
  const extraSoFar = Object.values(uses).reduce((n, u) => n + Math.max(0, u - 1), 0);
  return !uses[card] || extraSoFar < extra;
}

/** The payment-step prefix of each borrowing ability (Landmark ``ability.kind``). */
export const BORROW_PREFIX = {borrow_highway: "bh:", borrow_discard: "bd:"};

/** Borrowings of ability ``kind`` still free this turn, the payment being clicked
 * included: ``allowed`` uses a turn (the player's Landmarks of that kind), ``usedTurn``
 * this turn's earlier uses (per_turn.resources_used), ``steps`` the payment. */
export function borrowsLeft(kind, steps, usedTurn, allowed) {
  const inPayment = steps.filter((s) => s.startsWith(BORROW_PREFIX[kind])).length;
  return Math.max(0, allowed - (usedTurn || 0) - inPayment);
}
