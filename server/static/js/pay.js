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

/** The 3 cards of a 3-for-1 in the order they are discarded (the last one is then on
 * top of the discard pile): as chosen, except that while Recycling is free (``recycleFree``)
 * a card whose Material the payment still needs (``stillNeeded``, the 3-for-1 counted)
 * goes last, for the Recycle to supply it; discarded in the order clicked, another
 * card could end on top and leave the payment with no way to complete it.
 * materialOf: a card's Material. */
export function substitutionOrder(cards, materialOf, stillNeeded, recycleFree) {
  const needed = (c) => stillNeeded.includes(materialOf(c));
  if (!recycleFree || !cards.length || needed(cards[cards.length - 1])) return cards.slice();
  const k = cards.findIndex(needed);
  return k < 0 ? cards.slice() : cards.filter((_, i) => i !== k).concat([cards[k]]);
}
