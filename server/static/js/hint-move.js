/* A hint's listed move as the table's hint panel and the position editor's both show it,
 * under its words and numbers: what it adds to the score now, its payment, why the
 * search likes it and the line the search expects after it. One rendering for both
 * panels: the editor's showed none of it for the same moves. */

import {actionWords, discardTopAfter, lineBySeat, lineCtx, paymentSentence, reasonWords,
  scoreChangeWords, signed} from "./words.js";
import {esc, cap} from "./svg.js";

/* The seats' colours (each 4.5:1 or more as text on white and on the hint's shown line;
 * the 4th was #e07b00, 3:1). */
export const SEAT_COLOR = ["#1f6fb2", "#c2185b", "#2e7d32", "#a35200"];

/** Whether a card id is one the seat of view ``v`` (bigsur-view/1) cannot see now (not in
 * its hand, the Depot, a Highway or another's known hand cards): a search line past the
 * seat's own move names sampled cards, which actionWords does not name (``ctx.hidden``). */
export function hiddenFrom(v, cards) {
  const seen = new Set(v.depot);
  v.seats.forEach((x, i) => {
    (i === v.view_of ? x.hand : x.hand.known).forEach((c) => seen.add(c));
    x.highway.forEach((c) => seen.add(c));
  });
  return (id) => !seen.has(id) && !!cards.highway[id];
}

/** "build H40 R pay per:H11 rec" -> ["build H40 R", ["per:H11", "rec"]]. */
export function splitPay(action) {
  const w = String(action || "").trim().split(/\s+/);
  const k = w.indexOf("pay");
  return k < 0 ? [w.join(" "), []] : [w.slice(0, k).join(" "), w.slice(k + 1)];
}

/** A hint move's payment plan (its ``payment``) in words, each build in turn, a later
 * one recycling what an earlier one discarded ("H40: discard H12 (stone) and ... \u2014
 * 2 cards from your hand; ..."); "" for a move without builds. */
export function planWords(pay, ctx) {
  if (!pay || !Array.isArray(pay.builds)) return "";
  let top = ctx.discardTop;
  return pay.builds.map((b) => {
    const [build, steps] = splitPay(b.action);
    const card = b.card || build.split(/\s+/)[1];
    const words = `${card}: ${paymentSentence(steps, {...ctx, discardTop: top})}`;
    top = discardTopAfter(steps, top);
    return words;
  }).join("; ");
}

/** A payment in notation (a tooltip, the editor's "notation" line: what the command line
 * and the API read). */
export function payText(pay) {
  if (typeof pay === "string") return pay;
  if (Array.isArray(pay)) return pay.join(" ");
  if (pay.action) return pay.action;
  if (pay.builds) return pay.builds.map((b) => b.action).join("; ");
  return JSON.stringify(pay);
}

/** The details of a hint's listed move (a line of :func:`listedMoves`), as HTML: a move
 * that scored alike with the first on every deal both played says so; then what a build
 * step adds now to the score ("Your score as it stands: +5 ..."), its payment, its
 * ``reasons`` and the line the search expects (its first 3 turns, by player). ``first``:
 * the first listed move; ``v``: the view the hint was asked in (bigsur-view/1);
 * ``ctx``: the words' context (``cards``, ``seatName``, the discard tops, ``hidden``:
 * :func:`hiddenFrom`). */
export function hintMoveDetails({move: m}, first, v, ctx) {
  const shownNumbers = (x) => `${(100 * x.win_probability).toFixed(1)} ${signed(x.expected_margin)}`;
  const plan = planWords(m.payment, ctx);
  const reasons = reasonWords(m.reasons, ctx.seatName); // why the search likes it (newer servers)
  const then = lineBySeat(m.actions, m.line || [], v.view_of, v.seats.length).slice(0, 3).map((p) => {
    const who = p.seat === v.view_of ? "You" : ctx.seatName(p.seat);
    const acts = p.actions.map((a) => actionWords(a, lineCtx(ctx, p.seat, v.view_of), who)
      .slice(who.length).trim());
    return `<li><span class="who" style="color:${SEAT_COLOR[p.seat % 4]}">${esc(who)}</span> ${esc(acts.join(", "))}</li>`;
  }).join("");
  // (its own numbers are of its few rounds; the race kept the first of the two)
  return (m.versus_top && m.versus_top.alike ? `<div class="small muted alike">Scored the same as the first ` +
      `move on each of the ${m.versus_top.rounds} sampled deals both played: the same move as far as the ` +
      `search can tell` + (shownNumbers(m) !== shownNumbers(first)
      ? "; its numbers differ as they count only those deals" : "") + `</div>` : "") +
    (m.score_change ? `<div class="small scorenow">${esc(cap(scoreChangeWords(m.score_change)))}</div>` : "") +
    (plan ? `<div class="small pay" title="${esc(payText(m.payment))}">Pay: ${esc(plan)}</div>` : "") +
    (reasons.length ? `<ul class="small thenlist reasons">${reasons.map((x) => `<li>${esc(x)}</li>`).join("")}</ul>` : "") +
    (then ? `<div class="small muted">Then (the search's guess; cards you have not seen are not named):<ul class="thenlist">${then}</ul></div>` : "");
}
