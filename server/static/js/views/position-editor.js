/* The position editor: set up the position on a real table and ask the engine about it.
 *
 * It edits a *view* (bigsur-view/1) of the seat asking: what that seat sees (its own
 * hand and discard pile, every Highway and Landmark, the Depot and the Landmark row,
 * other seats' discard Materials and the cards they are known to hold). Hidden cards
 * stay hidden: the deck and other hands are counts, derived from the turn. Everything
 * the rules forbid is flagged as it is entered (``problems``); the server checks the
 * rest when asked for a hint, a score or a payment.
 *
 * "Continue as a game against the AI" sends the view to the server, which draws the
 * hidden cards and starts a game from it (the seat asking is the human).
 *
 * Every edit of the position can be undone (and redone): the editor keeps the last
 * :data:`HISTORY` positions, each a snapshot (the position is a small value), named by
 * the change that left it ("Undo remove H12"); undo-history.js keeps the steps and draws
 * their buttons, and tells their keys. A result shown (a hint, a score, a
 * payment) is shown with the position it is of, and only then.
 *
 * ctx (from main.js): {api, ApiError, showError, clearError, saveFile(blob, name), cardSets(),
 * loadCards(name), continueFromView(view, aiSpec)}.
 */

import {MATERIALS, matIcon, actionWords, paymentSentence, discardTopAfter, plainError,
  plural, confidence, noVerdictWords, listedMoves, orWords} from "../words.js";
import {SC_COLOR, esc, cap, cardSVG, highwaySVG, landmarkSVG} from "../svg.js";
import {hiddenFrom, hintMoveDetails, splitPay} from "../hint-move.js";
import {editorAlert} from "./editor-alert.js";
import {UndoHistory, undoKey} from "./undo-history.js";

const HAND = 2, DEPOT = 5;
const HISTORY = 50; // the positions Undo goes back through
/* ``result``: {html, of} (``of``: the encoded position it is of), or null. ``history``:
 * the positions before each edit, each step's state a snapshot() {pos, kept}, its label
 * the edit ("remove H12"); ``committed``: the position as the last edit left it (JSON),
 * which the next is compared with. */
const P = {ctx: null, root: null, cards: null, pos: null, target: "hand", pending: null,
  score: null, scoreFor: null, scoreErr: null, checked: null, result: null, seq: 0, timer: null,
  ai: "mcts:1s", alert: null, kept: {},
  history: new UndoHistory(HISTORY), committed: null, stepping: false};
const $ = (id) => document.getElementById(id);

/* ------------------------------------------------------------------ pure functions */

export function emptyPosition(cardsName, players, me = 0) {
  return {cards: cardsName, players, me, first: 0, turn: 0, phase: "take", picks: 0,
    depot: [], row: [], hand: [], discard: [],
    seats: Array.from({length: players}, () => ({highway: [], landmarks: [], known: [],
      knownDiscard: [], materials: []})),
    perTurn: {recycle: false, persistent: [], resources: {}}};
}

/* ``p`` with another card set or player count: what was placed stays (the seats beyond
 * the count are dropped); a card the new deck lacks is flagged by ``problems``. */
export function reshaped(p, cardsName, players) {
  const q = emptyPosition(cardsName, players, Math.min(p.me, players - 1));
  for (const k of ["turn", "phase", "picks", "depot", "row", "hand", "discard", "perTurn",
    "myKnown", "myKnownDiscard"]) if (p[k] !== undefined) q[k] = p[k];
  q.first = Math.min(p.first, players - 1);
  q.seats = q.seats.map((s, i) => p.seats[i] || s);
  return q;
}

export const seatTurns = (p, i) => {
  let n = 0;
  for (let k = 0; k < p.turn; k++) if ((p.first + k) % p.players === i) n += 1;
  return n;
};
export const toAct = (p) => (p.first + p.turn) % p.players;

/* Cards each seat holds in all (hand + Highway + discard): 2 + 2 per turn, + this turn's picks. */
function held(p, i) {
  return HAND + 2 * seatTurns(p, i) + (i === toAct(p) ? p.picks : 0);
}

export function handCount(p, i) {
  if (i === p.me) return p.hand.length;
  const s = p.seats[i];
  return held(p, i) - s.highway.length - s.materials.length;
}

/* The deck as the rules leave it: every card of the player-count deck not held, not in
 * the Depot. */
export function deckCount(p, deckSize) {
  let used = p.depot.length;
  for (let i = 0; i < p.players; i++) used += held(p, i);
  return deckSize - used;
}

/* The view (bigsur-view/1) of seat ``me``: never a hidden card. */
export function toView(p, deckSize, landmarkTotal) {
  const claimed = p.seats.reduce((n, s) => n + s.landmarks.length, 0);
  return {
    format: "bigsur-view/1", cards: p.cards, view_of: p.me, current: toAct(p),
    first_player: p.first, phase: p.phase, picks: p.phase === "build" ? 2 : p.picks,
    turn: p.turn, deck: {count: Math.max(0, deckCount(p, deckSize))}, depot: p.depot.slice(),
    landmark_deck: {count: Math.max(0, landmarkTotal - p.row.length - claimed)},
    landmark_row: p.row.slice(),
    per_turn: p.phase === "build" ? {recycle_used: p.perTurn.recycle,
      persistent_used: Object.fromEntries(p.perTurn.persistent.map((c) => [c, 1])),
      resources_used: Object.fromEntries(Object.entries(p.perTurn.resources).filter(([, v]) => v > 0))}
      : {recycle_used: false, persistent_used: {}, resources_used: {}},
    seats: p.seats.map((s, i) => i === p.me ? {
      hand: p.hand.slice(), highway: s.highway.slice(), discard: p.discard.slice(),
      landmarks: s.landmarks.map((l) => ({...l})),
      known_hand: (p.myKnown || []).filter((c) => p.hand.includes(c)),
      known_discard: (p.myKnownDiscard || []).filter((c) => p.discard.includes(c)),
      turns: seatTurns(p, i),
    } : {
      hand: {count: Math.max(0, handCount(p, i)), known: s.known.slice()},
      highway: s.highway.slice(),
      discard: {materials: s.materials.slice(), known: s.knownDiscard.slice()},
      landmarks: s.landmarks.map((l) => ({...l})), turns: seatTurns(p, i),
    }),
  };
}

/* A seat as the seat asking holds it (``mine``: {hand, discard, myKnown, myKnownDiscard})
 * and as another seat sees it ({known, knownDiscard, materials}: its discard pile's
 * Materials and the cards the others know), each from the other. */
function seenByOthers(mine, matOf) {
  return {known: mine.hand.filter((id) => mine.myKnown.includes(id)),
    knownDiscard: mine.discard.filter((id) => mine.myKnownDiscard.includes(id)),
    materials: mine.discard.map(matOf).filter(Boolean)};
}
function asTheirOwn(seen, matOf) {
  const fronts = seen.knownDiscard.slice();
  const discard = [];
  for (const m of seen.materials) { // each Material of the pile, by a known card of it
    const k = fronts.findIndex((id) => matOf(id) === m);
    if (k >= 0) discard.push(fronts.splice(k, 1)[0]);
  }
  return {hand: seen.known.slice(), discard: [...discard, ...fronts], myKnown: seen.known.slice(),
    myKnownDiscard: seen.knownDiscard.slice()};
}
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

/* ``p`` as seat ``seat`` sees it ("I am" changed), each seat keeping its cards. The seat
 * that was asking is seen as the others see it: its discard pile's Materials and the
 * cards known to them; its other cards are hidden from the new seat (among the cards not
 * placed). The new seat's known hand cards and discard fronts are its hand and discard
 * pile (matched to its Materials, bottom to top); the player adds the rest. ``kept``: each
 * seat as it was before its last change of side; a seat whose side is unchanged since
 * gets it back (a switch there and back is no change). ``matOf``: a card's back Material.
 * Returns {pos, note: what the player is to know or add (or null), kept}. */
export function asSeat(p, seat, matOf, kept = {}) {
  if (seat === p.me) return {pos: p, note: null, kept};
  const q = JSON.parse(JSON.stringify(p));
  const a = p.me, was = q.seats[a], now = q.seats[seat];
  const mine = {hand: p.hand, discard: p.discard, myKnown: p.myKnown || [],
    myKnownDiscard: p.myKnownDiscard || []};
  const seen = {known: now.known, knownDiscard: now.knownDiscard, materials: now.materials};
  const wasSeen = kept[a] && same(asTheirOwn(kept[a], matOf), mine) ? kept[a] : seenByOthers(mine, matOf);
  Object.assign(was, JSON.parse(JSON.stringify(wasSeen)));
  Object.assign(now, {known: [], knownDiscard: [], materials: []});
  q.me = seat;
  const taken = new Set(placements(q).map((x) => x.id));
  const back = kept[seat];
  const restore = back && same(seenByOthers(back, matOf), seen) &&
    ![...back.hand, ...back.discard].some((id) => taken.has(id));
  const own = restore ? back : asTheirOwn(seen, matOf);
  Object.assign(q, JSON.parse(JSON.stringify(own)));
  const notes = [];
  const hidden = [...mine.hand, ...mine.discard].filter((id) => !was.known.includes(id) && !was.knownDiscard.includes(id));
  if (hidden.length) {
    notes.push(`Player ${a + 1}'s ${plural(hidden.length, "card")} the others do not know ` +
      `(${hidden.join(" ")}) ${hidden.length > 1 ? "are" : "is"} hidden from you: among the cards not placed ` +
      `again, and back with Player ${a + 1} if you are Player ${a + 1} again`);
  }
  const toHand = handCount(p, seat) - q.hand.length, toPile = seen.materials.length - q.discard.length;
  if (!restore && (toHand > 0 || toPile > 0)) {
    notes.push(`add the ${[toHand > 0 ? plural(toHand, "card") + " of your hand" : "",
      toPile > 0 ? plural(toPile, "card") + " of your discard pile" : ""].filter(Boolean).join(" and ")} ` +
      `that Player ${a + 1} could not see`);
  }
  const keptNext = {...kept, [a]: mine, [seat]: seen};
  return {pos: q, note: notes.length ? `You are now Player ${seat + 1}. ${notes.join("; ")}.` : null,
    kept: JSON.parse(JSON.stringify(keptNext))};
}

/* Back from a view (or from a full position, reduced to ``seat``'s view). */
export function fromView(v, matOf) {
  const n = v.seats.length;
  const me = v.view_of;
  const p = emptyPosition(typeof v.cards === "string" ? v.cards : (v.cards && v.cards.name) || "default", n, me);
  p.first = v.first_player || 0;
  p.turn = v.turn || 0;
  p.phase = v.phase === "build" ? "build" : "take";
  p.picks = p.phase === "build" ? 2 : (v.picks || 0);
  p.depot = v.depot.slice();
  p.row = v.landmark_row.filter(Boolean);
  v.seats.forEach((s, i) => {
    const t = p.seats[i];
    t.highway = s.highway.slice();
    t.landmarks = (s.landmarks || []).map((l) => ({landmark: l.landmark, card: l.card}));
    if (i === me) {
      p.hand = Array.isArray(s.hand) ? s.hand.slice() : [];
      p.myKnown = (s.known_hand || []).slice(); // what the others know of my hand
      p.discard = Array.isArray(s.discard) ? s.discard.slice() : [];
      p.myKnownDiscard = (s.known_discard || []).slice(); // my discard fronts the others saw
    } else if (Array.isArray(s.hand)) { // a full position: reduce to what ``me`` sees
      t.known = (s.known_hand || []).slice();
      t.materials = s.discard.map(matOf);
      t.knownDiscard = (s.known_discard || []).slice();
    } else {
      t.known = (s.hand.known || []).slice();
      t.materials = (s.discard.materials || []).slice();
      t.knownDiscard = (s.discard.known || []).slice();
    }
  });
  const pt = v.per_turn || {};
  p.perTurn = {recycle: !!pt.recycle_used, persistent: Object.keys(pt.persistent_used || {}),
    resources: {...(pt.resources_used || {})}};
  return p;
}

/* A full position (bigsur-position/1) as ``seat`` saw it: the view the editor opens. */
export function viewOfState(st, seat, matOf) {
  const p = fromView({...st, view_of: seat}, matOf);
  return p;
}

export function encode(p) {
  const bytes = new TextEncoder().encode(JSON.stringify(p));
  let bin = "";
  bytes.forEach((b) => { bin += String.fromCharCode(b); });
  return btoa(bin).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}
export function decode(text) {
  const b64 = text.replace(/-/g, "+").replace(/_/g, "/");
  const bin = atob(b64 + "===".slice((b64.length + 3) % 4));
  return JSON.parse(new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0))));
}

/* Every placement of a card: [{id, where}]. */
function placements(p) {
  const out = [];
  const add = (ids, where) => ids.forEach((id) => out.push({id, where}));
  add(p.depot, "the Depot");
  add(p.hand, "your hand");
  add(p.discard, "your discard pile");
  p.seats.forEach((s, i) => {
    add(s.highway, `${poss(p, i)} Highway`);
    add(s.known, `${poss(p, i)} hand (known)`);
    add(s.knownDiscard, `${poss(p, i)} discard pile`);
  });
  return out;
}

const poss = (p, i) => (i === p.me ? "your" : `Player ${i + 1}'s`);

/* What the page finds the rules forbid, as entered (cards: {highway, landmarks} of the
 * set): the placements, the counts, the turns. The rest (the Stretches below the
 * Landmarks, the Landmark row, what a turn's Landmarks allow) the server checks when the
 * page asks for the position's score (``refresh``). */
export function problems(p, cards) {
  const out = [];
  const deck = Object.values(cards.highway).filter((c) => c.players.includes(p.players));
  const inDeck = new Set(deck.map((c) => c.id));
  const seen = new Map();
  for (const {id, where} of placements(p)) {
    if (!cards.highway[id]) out.push(`${id} (${where}) is not a Highway card of this set`);
    else if (!inDeck.has(id)) out.push(`${id} (${where}) is not in the ${p.players}-player deck`);
    if (seen.has(id)) out.push(`${id} is placed twice: ${seen.get(id)} and ${where}`);
    else seen.set(id, where);
  }
  const lmSeen = new Map();
  const lmPlaces = [...p.row.map((l) => [l, "the Landmark row"]),
    ...p.seats.flatMap((s, i) => s.landmarks.map((l) => [l.landmark, `${poss(p, i)} Highway`]))];
  for (const [l, where] of lmPlaces) {
    if (!cards.landmarks[l]) out.push(`${l} (${where}) is not a Landmark of this set`);
    if (lmSeen.has(l)) out.push(`Landmark ${l} is placed twice: ${lmSeen.get(l)} and ${where}`);
    else lmSeen.set(l, where);
  }
  if (p.row.length > 5) out.push(`the Landmark row shows ${p.row.length} Landmarks; it has 5 places`);
  const size = deck.length;
  // the game's turns (every player the same number: the deck is made so); after the last
  // the game is over, so a player is to act after at most one fewer. A count beyond it is
  // the problem itself: what follows from it (cards held, the deck) is not said too.
  const total = maxTurns(p.players, size);
  const turnsOk = p.turn < total;
  if (!turnsOk) {
    out.push(`Turns done ${p.turn}: a ${p.players}-player game with these cards has ${total} turns ` +
      `(${total / p.players} each) and is over after the last, so a player is to act after at most ${total - 1}`);
  }
  p.seats.forEach((s, i) => {
    const t = seatTurns(p, i);
    const who = i === p.me ? "You" : `Player ${i + 1}`;
    if (s.landmarks.length > t) {
      out.push(`${who} ${i === p.me ? "have" : "has"} ${plural(s.landmarks.length, "Landmark")} after ${plural(t, "turn")} (at most one claim a turn)`);
    }
    const perCard = new Set();
    for (const l of s.landmarks) {
      if (!s.highway.includes(l.card)) {
        out.push(`Landmark ${l.landmark} sits above ${l.card}, which is not in ${poss(p, i)} Highway`);
        continue;
      }
      if (perCard.has(l.card)) out.push(`${l.card} carries two Landmarks (one a card)`);
      perCard.add(l.card);
    }
    // a Highway starts empty and grows only in its owner's build steps; the first card
    // built (each costs Materials) is paid at least in part by a card discarded from the
    // hand, as no Persistent Material, Landmark or discard pile can pay yet, and nothing
    // leaves a discard pile
    const built = s.highway.length;
    const buildSteps = t + (i === toAct(p) && p.phase === "build" ? 1 : 0);
    const pile = i === p.me ? p.discard.length : s.materials.length;
    const costs = (id) => ((cards.highway[id] || {}).cost || []).length > 0;
    if (built && !buildSteps) {
      out.push(`${who} ${i === p.me ? "have" : "has"} ${plural(built, "Highway card")} after ${plural(t, "turn")}: ` +
        `a Highway starts empty, and cards are built only in their owner's build step`);
    } else if (built && !pile && s.highway.every(costs)) {
      out.push(`${who} ${i === p.me ? "have" : "has"} built ${plural(built, "Highway card")} with an empty ` +
        `discard pile: the first card built is paid at least in part by discarding from the hand ` +
        `(nothing else can pay yet), and no card leaves a discard pile`);
    }
    if (!turnsOk) return;
    if (i === p.me) {
      const have = p.hand.length + s.highway.length + p.discard.length;
      if (have !== held(p, i)) {
        out.push(`your hand, Highway and discard pile hold ${plural(have, "card")}; after ${plural(t, "turn")}` +
          `${i === toAct(p) && p.picks ? ` and ${plural(p.picks, "pick")}` : ""} you hold ${held(p, i)}`);
      }
    } else {
      const h = handCount(p, i);
      if (h < s.known.length) {
        out.push(`Player ${i + 1}: Highway (${s.highway.length}) and discard pile (${s.materials.length}) leave ` +
          `${plural(Math.max(0, h), "hand card")} of the ${held(p, i)} held after ${plural(t, "turn")}, ` +
          `but ${s.known.length} ${s.known.length === 1 ? "is" : "are"} known`);
      }
      if (s.knownDiscard.length > s.materials.length) {
        out.push(`Player ${i + 1}: ${plural(s.knownDiscard.length, "known discard front")} on a pile of ` +
          `${plural(s.materials.length, "Material")}`);
      }
    }
  });
  if (!turnsOk) return out;
  const dc = deckCount(p, size);
  if (dc < 0) out.push(`the cards placed exceed the ${size}-card deck by ${-dc}`);
  const depotMin = Math.max(0, DEPOT - (p.phase === "build" ? 2 : p.picks));
  if (dc > 0 && (p.depot.length < depotMin || p.depot.length > DEPOT)) {
    out.push(`the Depot holds ${p.depot.length} cards; it holds ${depotMin === DEPOT ? DEPOT : depotMin + " to " + DEPOT} at this step`);
  }
  return out;
}

/* The turns of a game of ``players`` with a ``deckSize``-card deck: each takes 2 cards
 * out of the deck and the Depot, which start with all but the hands (as the server's
 * turns_per_player). */
export const maxTurns = (players, deckSize) =>
  players * Math.floor((deckSize - HAND * players - DEPOT) / (2 * players));

/* ------------------------------------------------------------------ the page */

function deckSize() {
  return Object.values(P.cards.highway).filter((c) => c.players.includes(P.pos.players)).length;
}
function view() { return toView(P.pos, deckSize(), Object.keys(P.cards.landmarks).length); }

/* Open the editor on ``initial`` (a link's position, a review's), else the position
 * being edited. A position on a card set this server does not have (a link from another
 * server) is shown on the default set, and said so: the editor had stayed blank. */
export async function open(ctx, root, initial) {
  if (P.ctx !== ctx) P.alert = editorAlert(ctx);
  P.ctx = ctx;
  P.root = root;
  // the editor is drawn anew into #pe-body; #pe-status (what Undo did, a file loaded: a
  // live region) stays, as a screen reader needs
  if (!root.querySelector("#pe-body")) {
    root.innerHTML = `<div id="pe-body"></div><p id="pe-status" class="sr" role="status"></p>`;
  }
  if (!P.keysBound) { document.addEventListener("keydown", onKey); P.keysBound = true; }
  let pos = initial || P.pos || emptyPosition("default", 3, 0);
  let unknown = null;
  try {
    P.cards = await ctx.loadCards(pos.cards);
  } catch (e) {
    if (!(e instanceof ctx.ApiError) || e.status !== 404 || pos.cards === "default") throw e;
    unknown = String(pos.cards);
    P.cards = await ctx.loadCards("default");
    pos = reshaped(pos, "default", pos.players);
  }
  if (pos !== P.pos) P.kept = {};
  P.pos = pos;
  commit("open position"); // a position opened over one edited: Undo brings that back
  render();
  refresh();
  if (unknown !== null) {
    say(`This server has no card set named "${unknown}": the position is shown with the ` +
      `default cards (a card they lack is flagged). Choose its set under Cards if this server ` +
      `has it under another name.`);
  }
}

function targets() {
  const p = P.pos;
  const out = [["hand", "your hand"], ["depot", "the Depot"], ["discard", "your discard pile"],
    ["row", "the Landmark row"]];
  p.seats.forEach((_, i) => {
    const who = i === p.me ? "your" : `Player ${i + 1}'s`;
    out.push([`hw:${i}:R`, `${who} Highway (right end)`], [`hw:${i}:L`, `${who} Highway (left end)`],
      [`lm:${i}`, `${who} Landmarks (then a card)`]);
    if (i !== p.me) out.push([`known:${i}`, `Player ${i + 1}'s known hand cards`],
      [`kd:${i}`, `Player ${i + 1}'s known discard fronts`]);
  });
  return out;
}

function placed() {
  return new Set(placements(P.pos).map((x) => x.id));
}

function chip(id, attrs) {
  const c = P.cards.highway[id];
  if (!c) return `<button type="button" class="pe-chip bad" ${attrs}>${esc(id)}</button>`;
  const [a, b] = c.scenery;
  return `<button type="button" class="pe-chip" ${attrs} data-zoom="${esc(id)}" title="${esc(id)}: ${c.miles} mi, ${esc(a)}/${esc(b)}, back ${esc(c.material)}">` +
    `<span class="sw" style="background:${SC_COLOR[a]}"></span><span class="sw" style="background:${SC_COLOR[b]}"></span>` +
    `${esc(id)}<small>${c.miles}</small></button>`;
}

function zoneCards(ids, zone) {
  if (!ids.length) return `<span class="muted small">empty</span>`;
  return ids.map((id) => `<button type="button" class="cardbtn pe-card" data-pe-remove="${esc(zone)}" data-card="${esc(id)}" aria-label="${esc(id)} (click to remove)">${cardSVG(id, {compact: true})}</button>`).join("");
}

/* What a score's Stretches are about: the set and the Highways. */
const highwaysKey = (p) => JSON.stringify([p.cards, p.players, p.seats.map((s) => s.highway)]);

/* The Stretches of seat ``i``'s Highway from the server's score, when that score is of
 * these Highways (not of an earlier position's: a position the page finds wrong is not
 * scored again). */
function stretchesOf(i) {
  const s = P.score && P.scoreFor === highwaysKey(P.pos) && P.score.scores[i];
  if (!s) return [];
  return s.details.filter((d) => d.category === "stretches").map((d) => ({
    scenery: d.what.split(" ")[0].toLowerCase(), cards: d.cards || [], points: d.points}));
}

function seatHTML(i) {
  const p = P.pos, s = p.seats[i];
  const mine = i === p.me;
  const who = mine ? "You" : `Player ${i + 1}`;
  const acting = toAct(p) === i ? ` <span class="lab acting">to act</span>` : "";
  let h = `<div class="panel pe-seat${mine ? " mine" : ""}" data-seat="${i}"><h3 class="small">${who}${acting} ` +
    `<span class="muted">\u00b7 ${seatTurns(p, i)} turn${seatTurns(p, i) === 1 ? "" : "s"} done \u00b7 hand ${Math.max(0, handCount(p, i))}` +
    `${mine ? "" : " (from the counts)"}</span></h3>`;
  h += `<div class="pe-hw" data-pe-zone="hw:${i}:R">${highwaySVG(s.highway, s.landmarks, stretchesOf(i), 0.55, null)}</div>`;
  h += `<div class="pe-line"><span class="muted small">Highway, left to right:</span> ` +
    (s.highway.map((id) => chip(id, `data-pe-hwcard="${i}:${esc(id)}"`)).join("") || `<span class="muted small">empty</span>`) + `</div>`;
  h += `<div class="pe-line"><span class="muted small">Landmarks:</span> ` +
    (s.landmarks.map((l) => `<button type="button" class="pe-chip lmchip" data-pe-unclaim="${i}:${esc(l.landmark)}" title="remove">${esc(l.landmark)} above ${esc(l.card)} \u00d7</button>`).join("") || `<span class="muted small">none</span>`) + `</div>`;
  if (mine) {
    h += `<div class="pe-line"><span class="muted small">Your hand (${p.hand.length}):</span></div><div class="cardrow pe-zone" id="pe-hand">${zoneCards(p.hand, "hand")}</div>`;
    h += `<div class="pe-line"><span class="muted small">Discard pile, bottom to top:</span> ` +
      (p.discard.map((id) => chip(id, `data-pe-remove="discard" data-card="${esc(id)}"`)).join("") || `<span class="muted small">empty</span>`) + `</div>`;
  } else {
    h += `<div class="pe-line"><span class="muted small">Known hand cards:</span> ` +
      (s.known.map((id) => chip(id, `data-pe-remove="known:${i}" data-card="${esc(id)}"`)).join("") || `<span class="muted small">none</span>`) + `</div>`;
    h += `<div class="pe-line"><span class="muted small">Discard Materials, bottom to top:</span> ` +
      s.materials.map((m, k) => `<button type="button" class="pe-chip" data-pe-unmat="${i}:${k}" title="remove">${matIcon(m, true)}</button>`).join("") +
      ` <span class="pe-matadd">${MATERIALS.map((m) => `<button type="button" class="pe-mini" data-pe-mat="${i}:${m}" aria-label="add ${m} to Player ${i + 1}'s discard pile">+${matIcon(m, true)}</button>`).join("")}</span></div>`;
    h += `<div class="pe-line"><span class="muted small">Known discard fronts:</span> ` +
      (s.knownDiscard.map((id) => chip(id, `data-pe-remove="kd:${i}" data-card="${esc(id)}"`)).join("") || `<span class="muted small">none</span>`) + `</div>`;
  }
  return h + `</div>`;
}

/* The Landmark abilities a turn counts (the engine's payment resources), as the rules
 * name them ("Landmark Abilities": using a Persistent Material more than once per turn,
 * a Material from another player's Highway, the top Material of another player's
 * discard pile). */
const ABILITY_USES = [
  ["persistent_extra_use", "a Persistent Material used more than once"],
  ["borrow_highway", "a Material used from another player's Highway"],
  ["borrow_discard", "the top Material of another player's discard pile"]];

function perTurnHTML() {
  const p = P.pos;
  if (p.phase !== "build" || toAct(p) !== p.me) return "";
  const ones = p.seats[p.me].highway.filter((id) => P.cards.highway[id] && P.cards.highway[id].miles === 1);
  return `<fieldset class="pe-perturn"><legend>Used this turn</legend>` +
    `<label class="inl"><input type="checkbox" id="pe-recycle"${p.perTurn.recycle ? " checked" : ""}> Recycling</label> ` +
    ones.map((id) => `<label class="inl"><input type="checkbox" data-pe-per="${esc(id)}"${p.perTurn.persistent.includes(id) ? " checked" : ""}> the Persistent Material of ${esc(id)}</label>`).join(" ") +
    `<br><span class="muted small">Landmark abilities, times used:</span>` +
    ABILITY_USES.map(([r, words]) => ` <label class="inl">${words} <input type="number" min="0" max="9" class="num" data-pe-res="${r}" value="${p.perTurn.resources[r] || 0}"></label>`).join(" \u00b7") +
    `</fieldset>`;
}

/* A clicked card or button has no id: the focus goes back to it, or (it was placed or
 * removed) to the one now in its place, so that the keyboard carries on from there. */
const CHIP_ATTRS = ["data-pe-place", "data-pe-lm", "data-pe-remove", "data-pe-hwcard",
  "data-pe-unclaim", "data-pe-mat", "data-pe-unmat", "data-pe-per", "data-pe-res", "data-pe"];
function chipKey(el) {
  const attr = CHIP_ATTRS.find((a) => el.hasAttribute(a));
  if (!attr) return null;
  return {attr, value: el.getAttribute(attr), card: el.dataset.card,
    index: [...P.root.querySelectorAll(`[${attr}]`)].indexOf(el)};
}
function refocusChip(k) {
  const all = [...P.root.querySelectorAll(`[${k.attr}]`)];
  const el = all.find((e) => e.getAttribute(k.attr) === k.value && e.dataset.card === k.card) ||
    all[Math.min(k.index, all.length - 1)];
  if (el) el.focus();
}

const KEEP = ["pe-ids", "pe-builds", "pe-jsonbox", "pe-budget"];
const AI_LEVELS = [["greedy", "AI \u2014 easy"], ["mcts:0.1s", "AI \u2014 normal"], ["mcts:1s", "AI \u2014 strong"]];

export function render() {
  const p = P.pos;
  if (!P.root || !p) return;
  // typed text and the focus survive a re-render (the server's check re-renders)
  const kept = Object.fromEntries(KEEP.map((id) => [id, $(id) ? $(id).value : null]));
  const focused = document.activeElement && P.root.contains(document.activeElement)
    ? document.activeElement.id : null;
  const chipFocus = focused === "" ? chipKey(document.activeElement) : null;
  const used = placed();
  const deck = Object.values(P.cards.highway).filter((c) => c.players.includes(p.players)).map((c) => c.id);
  const lmUsed = new Set([...p.row, ...p.seats.flatMap((s) => s.landmarks.map((l) => l.landmark))]);
  const sets = P.ctx.cardSets() || [];
  const v = view();
  const probs = problems(p, P.cards);
  // the server's word only on what the page did not find itself (one message a problem)
  const refused = serverRefusal();
  const serverProblem = refused && !probs.length ? `<li id="pe-server-problem">${esc(refused)}</li>` : "";
  const opt = (vals, cur) => vals.map(([val, label]) => `<option value="${esc(val)}"${String(val) === String(cur) ? " selected" : ""}>${esc(label)}</option>`).join("");
  const step = p.phase === "build" ? "build" : `take${p.picks}`;
  $("pe-body").innerHTML = `<div class="panel pe-head">
    <h2>Position editor</h2>
    <p class="muted small">Set up the table in front of you, as the seat asking sees it: hidden cards stay
      hidden (the deck and other hands are counts). Choose where cards go, then click cards below or type their ids.</p>
    <div class="row">
      <label for="pe-cards">Cards</label><select id="pe-cards">${opt(sets.map((c) => [c.name, c.label]), p.cards)}</select>
      <label for="pe-players">Players</label><select id="pe-players">${opt([[2, 2], [3, 3], [4, 4]], p.players)}</select>
      <label for="pe-me">I am</label><select id="pe-me">${opt(p.seats.map((_, i) => [i, `Player ${i + 1}`]), p.me)}</select>
      <label for="pe-first">First player</label><select id="pe-first">${opt(p.seats.map((_, i) => [i, `Player ${i + 1}`]), p.first)}</select>
      <label for="pe-turn">Turns done (all players)</label><input id="pe-turn" type="number" min="0" max="${maxTurns(p.players, deck.length) - 1}" class="num" value="${p.turn}">
      <label for="pe-step">Step</label><select id="pe-step">${opt([["take0", "take (no card taken yet)"], ["take1", "take (1 card taken)"], ["build", "build / claim"]], step)}</select>
      <button type="button" data-pe="clear" id="pe-clear">Clear</button>
      ${P.history.buttonsHTML("pe", {focusable: true})}
    </div>
    <p class="small" id="pe-summary">Player ${toAct(p) + 1} to act${toAct(p) === p.me ? " (you)" : ""} \u00b7 deck ${v.deck.count} cards \u00b7 Landmark deck ${v.landmark_deck.count}</p>
    ${perTurnHTML()}
    <div class="pe-problems" id="pe-problems" aria-live="polite">${probs.length || serverProblem
      ? `<b class="bad">Not allowed as entered:</b><ul>${probs.map((x) => `<li>${esc(x)}</li>`).join("")}${serverProblem}</ul>`
      : P.checked === encode(p) ? `<span class="ok">No problem found.</span>`
        : `<span class="muted">Checking\u2026</span>`}</div>
  </div>
  <div class="pe-grid">
  <div>
    <div class="panel pe-place">
      <div class="row">
        <label for="pe-target">Place into</label>
        <select id="pe-target">${opt(targets(), P.target)}</select>
        <label for="pe-ids">ids</label>
        <input id="pe-ids" placeholder="H12 H40, or L03:H12" spellcheck="false" size="22">
        <button type="button" data-pe="type">Place</button>
        ${P.pending ? `<span class="lab acting" id="pe-pending">${esc(P.pending.landmark)}: click the card of ${poss(p, P.pending.seat)} Highway it sits above, or type ${esc(P.pending.landmark)}:its id</span>` : ""}
      </div>
      <h3 class="small">Highway cards not placed (${deck.filter((id) => !used.has(id)).length})</h3>
      <div class="pe-palette">${deck.filter((id) => !used.has(id)).map((id) => chip(id, `data-pe-place="${esc(id)}"`)).join("")}</div>
      <h3 class="small">Landmarks not placed</h3>
      <div class="pe-palette">${Object.keys(P.cards.landmarks).filter((l) => !lmUsed.has(l)).map((l) =>
        `<button type="button" class="pe-chip lmchip" data-pe-lm="${esc(l)}" style="border-left:6px solid ${SC_COLOR[P.cards.landmarks[l].scenery]}" title="${esc(P.cards.landmarks[l].name)}">${esc(l)}</button>`).join("")}</div>
    </div>
    <div class="panel"><h3 class="small" data-pe-zone="depot">Depot</h3><div class="cardrow pe-zone">${zoneCards(p.depot, "depot")}</div>
      <h3 class="small">Landmark row</h3><div class="pe-row">${p.row.map((l) => `<button type="button" class="cardbtn lm" data-pe-remove="row" data-card="${esc(l)}" aria-label="${esc(l)} (click to remove)">${landmarkSVG(l)}</button>`).join("") || `<span class="muted small">empty</span>`}</div></div>
    ${p.seats.map((_, i) => seatHTML(i)).join("")}
  </div>
  <aside class="panel pe-ask">
    <h3 class="small">Ask</h3>
    <div class="row">
      <select id="pe-budget" aria-label="hint search"><option value="iterations:100">100 iterations</option><option value="ms:1000" selected>1 s</option><option value="ms:3000">3 s</option></select>
      <button type="button" class="primary" data-pe="hint" id="pe-hint">Hint</button>
      <button type="button" data-pe="score" id="pe-score">Score</button>
    </div>
    <div class="row"><input id="pe-builds" placeholder="H12:L H40:R" spellcheck="false" size="14" aria-label="cards to build">
      <button type="button" data-pe="pay" id="pe-pay">Pay</button></div>
    <div class="row"><button type="button" data-pe="link" id="pe-link">Copy link</button>
      <button type="button" data-pe="json" id="pe-json">Copy JSON</button>
      <button type="button" data-pe="download" id="pe-download">Download JSON</button>
      <button type="button" data-pe="load" id="pe-loadjson">Load JSON</button></div>
    <textarea id="pe-jsonbox" rows="3" placeholder="paste a bigsur-view/1 or bigsur-position/1 here, then Load JSON" spellcheck="false"></textarea>
    <div class="row pe-file"><label for="pe-file">Load a file</label>
      <input type="file" id="pe-file" accept=".json,application/json"></div>
    <div class="row"><select id="pe-ai" aria-label="the AI's level">${opt(AI_LEVELS, P.ai)}</select>
      <button type="button" data-pe="continue" id="pe-continue">Continue as a game against the AI</button></div>
    <p class="muted small">You play your seat from this position; the server draws the cards you cannot see
      (the other hands, the deck), consistent with everything entered, and the AI plays the other seats.</p>
    <div id="pe-result" aria-live="polite">${shownResult()}</div>
  </aside>
  </div>`;
  for (const [id, value] of Object.entries(kept)) if (value !== null && $(id)) $(id).value = value;
  if (focused && $(focused)) $(focused).focus();
  else if (chipFocus) refocusChip(chipFocus);
  bind();
}

function bind() {
  const p = P.pos;
  // the chosen set loads first: an edit made meanwhile stands, and the set is not changed
  // (reshaping the position of before the wait lost that edit), as Undo's step
  $("pe-cards").addEventListener("change", async (ev) => {
    const name = ev.target.value;
    const committed = P.committed;
    let cards;
    try { cards = await P.ctx.loadCards(name); } catch (e) {
      if ($("pe-cards")) $("pe-cards").value = P.pos.cards;
      say(e);
      return;
    }
    if (P.committed !== committed) {
      if (P.pos.cards !== name) await P.ctx.loadCards(P.pos.cards).catch(() => null); // drawn as before
      tell(`Cards not changed to ${name}: the position was edited meanwhile.`);
      return;
    }
    P.cards = cards;
    P.pos = reshaped(P.pos, name, P.pos.players);
    changed(`cards ${name}`);
  });
  $("pe-players").addEventListener("change", (ev) => {
    P.pos = reshaped(p, p.cards, Number(ev.target.value));
    changed(`${ev.target.value} players`);
  });
  $("pe-me").addEventListener("change", (ev) => {
    const {pos, note, kept} = asSeat(p, Number(ev.target.value),
      (id) => (P.cards.highway[id] || {}).material, P.kept);
    P.pos = pos;
    P.kept = kept;
    if (!targets().some(([t]) => t === P.target)) P.target = "hand";
    changed(`I am Player ${Number(ev.target.value) + 1}`);
    if (note) say(note);
  });
  $("pe-first").addEventListener("change", (ev) => {
    p.first = Number(ev.target.value);
    changed(`first player: Player ${p.first + 1}`);
  });
  $("pe-turn").addEventListener("change", (ev) => {
    p.turn = Math.max(0, Math.floor(Number(ev.target.value)) || 0);
    changed(`turns done ${p.turn}`);
  });
  $("pe-step").addEventListener("change", (ev) => {
    const v = ev.target.value;
    p.phase = v === "build" ? "build" : "take";
    p.picks = v === "build" ? 2 : Number(v.slice(4));
    changed(`step: ${ev.target.selectedOptions[0].textContent}`);
  });
  $("pe-ai").addEventListener("change", (ev) => { P.ai = ev.target.value; });
  $("pe-target").addEventListener("change", (ev) => { P.target = ev.target.value; P.pending = null; });
  $("pe-ids").addEventListener("keydown", (ev) => { if (ev.key === "Enter") { ev.preventDefault(); placeTyped(); } });
  const rec = $("pe-recycle");
  if (rec) rec.addEventListener("change", (ev) => { p.perTurn.recycle = ev.target.checked; changed("used this turn"); });
  P.root.querySelectorAll("[data-pe-per]").forEach((el) => el.addEventListener("change", () => {
    const id = el.dataset.pePer;
    p.perTurn.persistent = p.perTurn.persistent.filter((x) => x !== id);
    if (el.checked) p.perTurn.persistent.push(id);
    changed("used this turn");
  }));
  P.root.querySelectorAll("[data-pe-res]").forEach((el) => el.addEventListener("change", () => {
    p.perTurn.resources[el.dataset.peRes] = Math.max(0, Number(el.value) || 0);
    changed("used this turn");
  }));
  $("pe-file").addEventListener("change", async (ev) => {
    const file = ev.target.files[0];
    if (!file) return;
    let text;
    try { text = await file.text(); } catch (e) {
      say(`${file.name} cannot be read: ${e.message}`);
      return;
    }
    ev.target.value = ""; // the same file may be chosen again
    await loadText(text, file.name);
  });
}

/* The id of this set that ``typed`` names, read case-insensitively ("h14" is H14); ``typed``
 * itself when the set has none (or, differing only in case, two). */
function setId(typed) {
  if (P.cards.highway[typed] || P.cards.landmarks[typed]) return typed;
  const same = [...Object.keys(P.cards.highway), ...Object.keys(P.cards.landmarks)]
    .filter((id) => id.toLowerCase() === typed.toLowerCase());
  return same.length === 1 ? same[0] : typed;
}

const landmarkPlaced = (p, l) => p.row.includes(l) || p.seats.some((s) => s.landmarks.some((x) => x.landmark === l));

/* Place one card id (typed or clicked) into the chosen target; a message naming it when
 * it cannot go there. */
function place(typed) {
  const p = P.pos;
  const t = P.target;
  if (typed.includes(":")) { // L03:H12
    const [l, card] = typed.split(":").map(setId);
    if (!l || !card) return `${typed}: write a Landmark, a colon and the card it sits above, as L03:H12`;
    if (!P.cards.landmarks[l]) return `${l} is not a Landmark of this set`;
    if (landmarkPlaced(p, l)) return `${l} is already placed`;
    const seat = p.seats.findIndex((s) => s.highway.includes(card));
    if (seat < 0) return `${card} is in no Highway`;
    p.seats[seat].landmarks.push({landmark: l, card});
    return null;
  }
  const id = setId(typed);
  if (P.cards.landmarks[id]) {
    if (t !== "row" && !t.startsWith("lm:")) {
      return `${id} is a Landmark: place it into the Landmark row or a seat's Landmarks`;
    }
    if (landmarkPlaced(p, id)) return `${id} is already placed`;
    if (t === "row") { p.row.push(id); return null; }
    const seat = Number(t.slice(3));
    if (!p.seats[seat].highway.length) {
      return `${id}: ${poss(p, seat)} Highway has no card for it to sit above yet`;
    }
    P.pending = {landmark: id, seat};
    return null;
  }
  if (!P.cards.highway[id]) return `${typed} is not a card of this set`;
  if (placed().has(id)) return `${id} is already placed`;
  if (t === "hand") p.hand.push(id);
  else if (t === "depot") p.depot.push(id);
  else if (t === "discard") p.discard.push(id);
  else if (t.startsWith("hw:")) {
    const [, i, side] = t.split(":");
    if (side === "L") p.seats[Number(i)].highway.unshift(id); else p.seats[Number(i)].highway.push(id);
  } else if (t.startsWith("known:")) p.seats[Number(t.slice(6))].known.push(id);
  else if (t.startsWith("kd:")) p.seats[Number(t.slice(3))].knownDiscard.push(id);
  else return `choose where ${id} goes`;
  return null;
}

/* The ids typed in the box (split at spaces, commas and semicolons), each placed in turn.
 * What is refused stays in the box to be corrected, each entry said with why; what was
 * placed leaves it. One Landmark at a time waits for the card it sits above. */
function placeTyped() {
  const box = $("pe-ids");
  const entries = box.value.split(/[\s,;]+/).filter(Boolean);
  const errs = [], done = [], refused = [];
  let waiting = null; // a Landmark of this entry waiting for its card to be clicked
  for (const typed of entries) {
    const before = P.pending;
    let err = place(typed);
    if (!err && P.pending !== before) {
      if (waiting) {
        err = `${P.pending.landmark}: ${waiting.landmark} waits for its card first (one Landmark at a time)`;
        P.pending = waiting;
      } else waiting = P.pending;
    }
    if (err) { errs.push(err); refused.push(typed); } else done.push(typed);
  }
  box.value = refused.join(" ");
  changed(`place ${done.join(" ")}`);
  if (errs.length) say(errs.join("; "));
  const again = $("pe-ids");
  if (again) again.focus();
}

/* An alert of the editor's (a card that cannot go where it was put, a box that holds no
 * position), taken away by the next change of the position (editor-alert.js). */
const say = (err) => P.alert.say(err);

/* The position was edited (``label``: how, "remove H12"): kept for Undo, drawn, checked.
 * A field typed in and left by Tab says its change while the focus is on its way (on
 * <body>): the editor is drawn once it has arrived, and keeps it there (drawn at once, the
 * focus went on to a field the drawing had taken away, and fell to the page's top). */
function changed(label) {
  commit(label);
  if (document.activeElement === document.body) setTimeout(redraw, 0); else redraw();
}

function redraw() {
  P.alert.drop();
  render();
  clearTimeout(P.timer);
  P.timer = setTimeout(refresh, 200);
}

/* ------------------------------------------------------------------ undo and redo */

const snapshot = () => ({pos: JSON.stringify(P.pos), kept: JSON.stringify(P.kept)});

/* The position as it is now is the last edit's (``label``); the one before it, when it
 * differs, is kept for Undo (the last HISTORY), and what was undone can no longer be
 * redone. */
function commit(label) {
  const now = snapshot();
  if (P.committed && now.pos !== P.committed.pos) P.history.record(label || "edit", P.committed);
  P.committed = now;
}

/* Undo (``back``) or Redo the last edit: the position it changed back, with what goes
 * with it (its card set, each seat's side kept for "I am"), said in the status line. An
 * edit made while its card set loads stands, and the step is not taken (it would have
 * taken that edit's place in the history, and left its own entry there). */
async function step(back) {
  if (P.stepping || !P.pos) return;
  const entry = P.history.next(back);
  if (!entry) { tell(back ? "Nothing to undo." : "Nothing to redo."); return; }
  const pos = JSON.parse(entry.state.pos);
  if (pos.cards !== P.pos.cards) {
    const committed = P.committed;
    let cards;
    P.stepping = true;
    try { cards = await P.ctx.loadCards(pos.cards); } catch (e) { say(e); return; } finally {
      P.stepping = false;
    }
    if (P.committed !== committed || P.history.next(back) !== entry) {
      if (P.pos.cards !== pos.cards) await P.ctx.loadCards(P.pos.cards).catch(() => null); // drawn as before
      tell(`Not ${back ? "undone" : "redone"}: the position was edited meanwhile.`);
      return;
    }
    P.cards = cards;
  }
  P.history.take(back, P.committed);
  P.pos = pos;
  P.kept = JSON.parse(entry.state.kept);
  P.committed = {...entry.state}; // (a new object: a wait for a card set sees P.committed change)
  P.pending = null;
  if (!targets().some(([t]) => t === P.target)) P.target = "hand";
  redraw();
  tell(`${back ? "Undone" : "Redone"}: ${entry.label}. ${tableWords()}`);
}

/* The table in a few words, for the status line. */
function tableWords() {
  const p = P.pos;
  const lms = p.row.length + p.seats.reduce((n, s) => n + s.landmarks.length, 0);
  return `You are Player ${p.me + 1} of ${p.players}, Player ${toAct(p) + 1} to act; ` +
    `${plural(placements(p).length, "card")} and ${plural(lms, "Landmark")} placed.`;
}

/* Said in the editor's status line (a polite live region: a screen reader reads it). Its
 * own line, not the page's #announce queue: it holds the editor's state in words (what
 * Undo or a load put on the table), one line replaced by the next ("Nothing to undo."). */
function tell(text) {
  const el = $("pe-status");
  if (!el) return;
  el.textContent = "";
  el.textContent = text;
}

/* Ctrl+Z (Cmd+Z) undoes, Ctrl+Shift+Z or Ctrl+Y redoes, while the editor is shown and the
 * focus is not in a text field (which undoes its own typing); with nothing to take, the
 * status line says so. The Undo and Redo buttons stay focusable for the same answer. */
function onKey(ev) {
  const kind = undoKey(ev);
  if (!kind || !P.root || !P.pos || P.root.closest("[hidden]")) return;
  ev.preventDefault();
  step(kind === "undo");
}

/* ------------------------------------------------------------------ results */

/* A result (a hint, a score, a payment, a refusal of them) of the position encoded ``of``. */
function showResult(html, of = encode(P.pos)) {
  P.result = {html, of};
}

/* The result shown: only of the position as it is (after an edit, or an Undo, the one of
 * another position is not shown as if it were of this one). */
function shownResult() {
  return P.result && P.result.of === encode(P.pos) ? P.result.html : "";
}

/* What the page finds wrong without the server. */
const knownProblems = () => problems(P.pos, P.cards);
const knownIncomplete = () => knownProblems().length > 0;

/* A field of the view the server names, in the page's words ("seats[2].landmarks" ->
 * "Player 3's Landmarks"). */
const SEAT_PARTS = {landmarks: "Landmarks", highway: "Highway", hand: "hand", discard: "discard pile",
  known_hand: "known hand cards", known_discard: "known discard fronts", turns: "turns done"};
const FIELD_WORDS = {landmark_row: "the Landmark row", landmark_deck: "the Landmark deck",
  depot: "the Depot", deck: "the deck", turn: "turns done", picks: "the step", phase: "the step",
  current: "the player to act", per_turn: "used this turn"};
function fieldWords(field) {
  const p = P.pos;
  const f = String(field || "").replace(/^position\./, "");
  let m = /^seats\[(\d+)\](?:\.(\w+))?/.exec(f);
  if (m) {
    const i = Number(m[1]);
    return m[2] ? `${poss(p, i)} ${SEAT_PARTS[m[2]] || m[2]}` : (i === p.me ? "you" : `Player ${i + 1}`);
  }
  m = /^per_turn\.resources_used\.(\w+)$/.exec(f);
  if (m) {
    const use = ABILITY_USES.find(([r]) => r === m[1]);
    return `used this turn: ${use ? use[1] : m[1]}`;
  }
  m = /^per_turn\.persistent_used\.(.+)$/.exec(f);
  if (m) return `used this turn: the Persistent Material of ${m[1]}`;
  return FIELD_WORDS[f.split(".")[0]] || f;
}

/* Why the server refused the position as it is now (its live check, ``refresh``), in the
 * page's words; null when it did not, or it answered about an earlier position. */
function serverRefusal() {
  const e = P.scoreErr;
  if (!e || P.checked !== encode(P.pos)) return null;
  const where = e.field ? fieldWords(e.field) : "";
  const why = plainError(e.reason, wordsCtx());
  return where ? `${where[0].toUpperCase()}${where.slice(1)}: ${why}` : why;
}

/* A hint, a score, a payment or a game of a position the page already finds wrong, or
 * the server's check refused, is not asked for: the server would refuse it (a failed
 * request in the console) for the reason listed under "Not allowed as entered". */
function notComplete() {
  const probs = knownProblems();
  const refused = serverRefusal();
  if (!probs.length && !refused) return null;
  return `Fix the position first (see "Not allowed as entered"): ${(probs.length ? probs : [refused]).join("; ")}.`;
}

/* Ask the server for the score of the view as entered: it checks the view (naming the
 * field) and gives the Stretches the Landmark checks need. A position the page already
 * finds wrong is not sent: the server would refuse it (a 422 in the console each time)
 * and say the same problem again in its words. */
async function refresh() {
  const seq = ++P.seq;
  const v = view();
  const key = encode(P.pos), sentFor = highwaysKey(P.pos);
  // the address holds the position while the editor is shown (a check due after the page
  // moved on had written it back over the address cleared, and a reload opened the editor)
  if (!P.root.closest("[hidden]")) history.replaceState(null, "", "#position=" + key);
  if (knownIncomplete()) { // not scored: the last score is of another position
    if (P.scoreErr || P.score) { P.scoreErr = null; P.score = null; render(); }
    document.body.dataset.peChecked = String(seq);
    return;
  }
  try {
    const res = await P.ctx.api("POST", "/v1/score", {position: v});
    if (seq !== P.seq) return;
    P.score = res;
    P.scoreFor = sentFor;
    P.scoreErr = null;
  } catch (e) {
    if (seq !== P.seq) return;
    P.scoreErr = {field: e.field, reason: (e.body && e.body.reason) || e.message};
  }
  P.checked = key;
  render();
  document.body.dataset.peChecked = String(seq);
}

function pct(x) { return (100 * x).toFixed(1) + "%"; }

/* A hint, a payment and a game start from the turn of the seat asking: said in the
 * page's words (the server counts seats from 0). Not said after the game's last turn
 * (Turns done 500): no one is to act, and "Set I am to Player 3" would fix nothing. */
function notYourTurn() {
  const p = P.pos, t = toAct(p);
  if (t === p.me || p.turn >= maxTurns(p.players, deckSize())) return null;
  return `Player ${t + 1} is to act, not you (Player ${p.me + 1}): a hint, a payment and a game ` +
    `start from your turn. Set "I am" to Player ${t + 1}, or change the first player or the turns done.`;
}

/* Why a hint, a payment or a game (``fromYourTurn``; a score is of every seat) is not
 * asked for, null when nothing stops it: the position's problems first, then (also) the
 * seat asking not being the seat to act. */
function notAsked(fromYourTurn) {
  const incomplete = notComplete();
  const seat = fromYourTurn ? notYourTurn() : null;
  return incomplete && seat ? `${incomplete} Also, ${seat}` : incomplete || seat;
}

async function ask(kind) {
  P.ctx.clearError();
  const v = view(), of = encode(P.pos); // the position asked about
  let html = "";
  const btn = $("pe-" + kind);
  if (btn) btn.setAttribute("aria-busy", "true");
  try {
    const refusal = notAsked(kind !== "score");
    if (refusal) throw new Error(refusal);
    if (kind === "hint") {
      const [unit, n] = $("pe-budget").value.split(":");
      const res = await P.ctx.api("POST", "/v1/hint", {position: v, budget: {[unit]: Number(n)}, seed: 1});
      const ctx = {...wordsCtx(), hidden: hiddenFrom(v, P.cards)};
      // (as the table lists them: the search's move, then the others by value; claims
      // above different cards worth the same on one line)
      const lines = listedMoves(res.moves, 6);
      const moves = lines.map((x) => x.move);
      // how sure the search is, as the table's hint says it (the race's paired test, or no
      // verdict on a few visits; a search too short ever to give one says that once, in
      // place of "search longer")
      const conf = confidence(moves, res.legal_actions || null, lines.length ? lines[0].members.length : 1, res.moves.filter((m) => !m.visits).length);
      const noVerdict = noVerdictWords(conf, res.budget && res.budget.iterations,
        $("pe-budget").options, "in the menu beside Hint");
      html = `<h3 class="small">Hint: best moves for you</h3>` +
        (conf ? `<p class="conf conf-${conf.cue.replace(/ /g, "-")}" id="pe-conf"><b>${esc(cap(conf.cue))}</b>` +
          (noVerdict ? `. <span class="noverdict" id="pe-noverdict">${esc(noVerdict)}</span></p>` : `: ${esc(conf.why)}.</p>`) : "") +
        `<ol class="pe-moves" id="pe-moves">` +
        lines.map((line) => {
          const {move: m, members, above} = line;
          const alsoAbove = members.length > 1 ? ` (or above ${orWords(above.slice(1))}, worth the same)` : "";
          return `<li><b title="${esc(m.actions.join(", "))}">${esc(moveWords(m.actions, ctx) + alsoAbove)}</b> \u2014 win ${pct(m.win_probability)}, ` +
            `${m.expected_margin >= 0 ? "+" : "\u2212"}${Math.abs(m.expected_margin).toFixed(1)} pts, ` +
            plural(members.reduce((n, x) => n + x.visits, 0), "visit") + (members.length > 1 ? " in all" : "") +
            hintMoveDetails(line, moves[0], v, ctx) + `</li>`;
        }).join("") + `</ol>`;
    } else if (kind === "score") {
      const res = await P.ctx.api("POST", "/v1/score", {position: v});
      const cats = [...new Set(res.scores.flatMap((s) => s.details.map((d) => d.category)))];
      html = `<h3 class="small">Score as it stands</h3><table class="scores" id="pe-scores"><tr><th></th>${res.scores.map((_, i) => `<th>${i === P.pos.me ? "You" : "Player " + (i + 1)}</th>`).join("")}</tr>` +
        cats.map((c) => `<tr><td>${esc(c)}</td>${res.scores.map((s) => `<td>${s.details.filter((d) => d.category === c).reduce((n, d) => n + d.points, 0)}</td>`).join("")}</tr>`).join("") +
        `<tr><th>total</th>${res.scores.map((s) => `<th>${s.total}</th>`).join("")}</tr></table>`;
    } else if (kind === "pay") {
      const builds = $("pe-builds").value.split(/[\s,]+/).filter(Boolean);
      if (!builds.length) {
        throw new Error("Type the cards to build in the box next to Pay first, each with " +
          "its end of the Highway: H12:L H40:R.");
      }
      const res = await P.ctx.api("POST", "/v1/payment", {position: v, builds});
      const ctx = wordsCtx();
      let top = ctx.discardTop; // each build in turn: a later one recycles what an earlier one discarded
      html = res.feasible
        ? `<h3 class="small">Cheapest payment</h3><ul id="pe-payment">${res.builds.map((b) => {
          const [build, steps] = splitPay(b.action);
          const line = `${actionWords(build, ctx, "You").replace(/^You build /, "")}: ` +
            paymentSentence(steps, {...ctx, discardTop: top});
          top = discardTopAfter(steps, top);
          return `<li title="${esc(b.action)}">${esc(line)}</li>`;
        }).join("")}</ul>` +
          (res.builds.length > 1 ? `<p class="small">${plural(res.cards_spent, "hand card")} spent in all</p>` : "") +
          `<p class="muted small pe-notation">notation: <code>${res.builds.map((b) => esc(b.action)).join("; ")}</code></p>`
        : `<p id="pe-payment" class="bad">Cannot be paid: ${esc(plainError(res.reason || "", ctx))}</p>`;
    }
  } catch (e) {
    html = `<p class="bad" id="pe-error">${esc(e.message)}</p>`;
  }
  showResult(html, of);
  render();
}

/* Start a game from the view as entered; a refusal (it is not your turn, the game is
 * over, no deal matches what was entered) is shown here, naming the field. */
async function continueAsGame() {
  P.ctx.clearError();
  const of = encode(P.pos);
  const btn = $("pe-continue");
  btn.disabled = true;
  btn.setAttribute("aria-busy", "true");
  try {
    const refusal = notAsked(true);
    if (refusal) throw new Error(refusal);
    await P.ctx.continueFromView(view(), P.ai);
  } catch (e) {
    showResult(`<p class="bad" id="pe-error">Cannot continue as a game: ${esc(e.message)}</p>`, of);
    render();
  } finally {
    const again = $("pe-continue");
    if (again) { again.disabled = false; again.removeAttribute("aria-busy"); }
  }
}

/* What words.js needs to word the seat asking's moves and payments, as the table's
 * hint panel: the cards, the seats' names, the discard piles' tops. */
function wordsCtx() {
  const p = P.pos;
  const matOf = (id) => (P.cards.highway[id] || {}).material || null;
  const last = (a) => (a.length ? a[a.length - 1] : null);
  return {cards: P.cards, seatName: (i) => (i === p.me ? "You" : `Player ${i + 1}`),
    discardTop: last(p.discard),
    discardTops: p.seats.map((s, i) => (i === p.me ? (p.discard.length ? matOf(last(p.discard)) : null)
      : last(s.materials)))};
}

/* A hint's move in the table's words: "You take H12 from the Depot, then take ...". */
function moveWords(actions, ctx) {
  return actions.map((a) => actionWords(splitPay(a)[0], ctx, "You")).join(", then ")
    .replace(/, then You /g, ", then ");
}

async function copy(text, label) {
  $("pe-jsonbox").value = text; // shown first: the clipboard may be refused
  let done = true;
  try { await navigator.clipboard.writeText(text); } catch (e) { done = false; }
  showResult(`<p class="small" id="pe-copied">${esc(label)} ${done ? "copied to the clipboard and" : ""} shown in the box above.</p>`);
  $("pe-result").innerHTML = shownResult();
}

/* The view as Copy JSON gives it, saved as a file (bigsur-position-<set>-<date>.json),
 * which `bigsur hint FILE` and `bigsur score FILE` read and Load a file reads back. */
function download() {
  const d = new Date(), two = (n) => String(n).padStart(2, "0");
  const name = `bigsur-position-${String(P.pos.cards).replace(/[^\w.-]+/g, "-")}-` +
    `${d.getFullYear()}-${two(d.getMonth() + 1)}-${two(d.getDate())}.json`;
  P.ctx.saveFile(new Blob([JSON.stringify(view(), null, 1)], {type: "application/json"}), name);
  showResult(`<p class="small" id="pe-downloaded">Saved as ${esc(name)}: Load a file opens it here again, ` +
    `and <code>bigsur hint ${esc(name)}</code> asks the command line.</p>`);
  $("pe-result").innerHTML = shownResult();
}

/* A bigsur-view/1 or bigsur-position/1 (``text``, from ``where``: "the box", a file's
 * name) read into the editor, as one edit (Undo goes back). What is wrong with it is said,
 * naming it, and the position being edited is left as it was, with its cards. */
async function loadText(text, where) {
  const src = where === "the box" ? "The box" : where;
  let raw;
  try { raw = JSON.parse(text); } catch (e) {
    say(`${src} does not hold JSON: ${e.message}`);
    return;
  }
  const format = raw && typeof raw === "object" ? raw.format : null;
  if (format !== "bigsur-view/1" && format !== "bigsur-position/1") {
    say(`${src}: format: expected bigsur-view/1 or bigsur-position/1, ` +
      `${format === undefined || format === null ? "found none" : `got ${JSON.stringify(format)}`}`);
    return;
  }
  // what the editor reads: named when missing (not a script error)
  const missing = ["seats", "depot", "landmark_row"].filter((k) => !Array.isArray(raw[k]));
  if (format === "bigsur-view/1" && !Number.isInteger(raw.view_of)) missing.push("view_of");
  if (!missing.length) {
    raw.seats.forEach((s, i) => {
      if (!s || typeof s !== "object" || !Array.isArray(s.highway)) missing.push(`seats[${i}].highway`);
      else if (format === "bigsur-position/1" && !Array.isArray(s.discard)) missing.push(`seats[${i}].discard`);
      else if (format === "bigsur-view/1") { // a list (the seat asking's) or the others' counts
        for (const k of ["hand", "discard"]) if (!s[k] || typeof s[k] !== "object") missing.push(`seats[${i}].${k}`);
      }
    });
  }
  const whole = where === "the box" ? ": copy it whole" : "";
  if (missing.length) {
    say(`The ${format} in ${where} has no ${missing.join(", ")}${whole}.`);
    return;
  }
  const n = raw.seats.length;
  const seat = format === "bigsur-view/1" ? raw.view_of : raw.current === undefined ? 0 : raw.current;
  const seatKey = format === "bigsur-view/1" ? "view_of" : "current";
  const wrong = n < 2 || n > 4 ? `seats: ${n} players; a game has 2 to 4`
    : !Number.isInteger(seat) || seat < 0 || seat >= n
      ? `${seatKey}: must be a seat, 0 to ${n - 1}; got ${JSON.stringify(seat)}` : null;
  if (wrong) {
    say(`The ${format} in ${where} cannot be read: ${wrong}.`);
    return;
  }
  const name = typeof raw.cards === "string" ? raw.cards : (raw.cards && raw.cards.name) || "default";
  const was = P.pos.cards;
  let cards = null, pos;
  try {
    cards = await P.ctx.loadCards(name);
    pos = format === "bigsur-position/1"
      ? viewOfState(raw, seat, (id) => {
        if (!cards.highway[id]) throw new Error(`${id} is not a Highway card of ${name}`);
        return cards.highway[id].material;
      })
      : fromView(raw);
    // all the page works out of it can be worked out (a value of the wrong kind is said here)
    problems(pos, cards);
    toView(pos, 0, 0);
  } catch (e) {
    if (cards && name !== was) await P.ctx.loadCards(was).catch(() => null); // drawn as before
    say(e instanceof P.ctx.ApiError ? e : `The ${format} in ${where} cannot be read: ${e.message}`);
    return;
  }
  P.cards = cards;
  P.pos = pos;
  P.kept = {};
  changed(where === "the box" ? "Load JSON" : `load ${where}`);
  tell(`Loaded ${where}. ${tableWords()}`);
}

/* Clicks inside the editor (main.js forwards them); true when handled. */
export function onClick(el) {
  const ds = el.dataset;
  const p = P.pos;
  if (!p) return false;
  if (ds.pePlace) {
    const err = place(ds.pePlace);
    changed(`place ${ds.pePlace}`);
    if (err) say(err);
    return true;
  }
  if (ds.peLm) {
    if (P.target !== "row" && !P.target.startsWith("lm:")) P.target = "row";
    const err = place(ds.peLm);
    changed(`place ${ds.peLm}`);
    if (err) say(err);
    return true;
  }
  if (ds.peHwcard) {
    const [i, id] = ds.peHwcard.split(":");
    const seat = p.seats[Number(i)];
    let label = `remove ${id}`;
    if (P.pending) {
      if (P.pending.seat !== Number(i)) { say(`${P.pending.landmark} goes above a card of Player ${P.pending.seat + 1}'s Highway`); return true; }
      seat.landmarks.push({landmark: P.pending.landmark, card: id});
      label = `claim ${P.pending.landmark}`;
      P.pending = null;
    } else {
      seat.highway = seat.highway.filter((x) => x !== id);
      seat.landmarks = seat.landmarks.filter((l) => l.card !== id);
    }
    changed(label);
    return true;
  }
  if (ds.peRemove) {
    const z = ds.peRemove, id = ds.card;
    const drop = (arr) => arr.filter((x) => x !== id);
    if (z === "hand") p.hand = drop(p.hand);
    else if (z === "depot") p.depot = drop(p.depot);
    else if (z === "discard") p.discard = drop(p.discard);
    else if (z === "row") p.row = drop(p.row);
    else if (z.startsWith("known:")) { const s = p.seats[Number(z.slice(6))]; s.known = drop(s.known); }
    else if (z.startsWith("kd:")) { const s = p.seats[Number(z.slice(3))]; s.knownDiscard = drop(s.knownDiscard); }
    changed(`remove ${id}`);
    return true;
  }
  if (ds.peUnclaim) {
    const [i, l] = ds.peUnclaim.split(":");
    p.seats[Number(i)].landmarks = p.seats[Number(i)].landmarks.filter((x) => x.landmark !== l);
    changed(`remove ${l}`);
    return true;
  }
  if (ds.peMat) {
    const [i, m] = ds.peMat.split(":");
    p.seats[Number(i)].materials.push(m);
    changed(`add ${m} (Player ${Number(i) + 1})`);
    return true;
  }
  if (ds.peUnmat) {
    const [i, k] = ds.peUnmat.split(":").map(Number);
    const [m] = p.seats[i].materials.splice(k, 1);
    changed(`remove ${m} (Player ${i + 1})`);
    return true;
  }
  if (!ds.pe) return false;
  if (ds.pe === "clear") { P.pos = emptyPosition(p.cards, p.players, p.me); P.kept = {}; changed("clear"); }
  else if (ds.pe === "undo" || ds.pe === "redo") step(ds.pe === "undo");
  else if (ds.pe === "hint" || ds.pe === "score" || ds.pe === "pay") ask(ds.pe);
  else if (ds.pe === "continue") continueAsGame();
  else if (ds.pe === "link") copy(location.href.split("#")[0] + "#position=" + encode(p), "Link");
  else if (ds.pe === "json") copy(JSON.stringify(view(), null, 1), "The view (bigsur-view/1)");
  else if (ds.pe === "download") download();
  else if (ds.pe === "load") loadText($("pe-jsonbox").value, "the box");
  else if (ds.pe === "type") placeTyped();
  return true;
}
