/* Plain words for the game's notation: actions, payments, hint lines, server errors.
 * Pure functions (no DOM): the server's notation in, sentences out. ``cards`` is the
 * card set as the page holds it: {highway: {id: card}, landmarks: {id: landmark}}.
 */

export const MATERIALS = ["stone", "water", "timber", "engineering", "steel"];
export const MAT_COLOR = {stone: "#6f6f6f", water: "#2a86d1", timber: "#8b5a2b",
  engineering: "#e07b00", steel: "#3b4f66"};
/* A Material's colour for text (4.5:1 or more on a card's paper, #fdfaf2): MAT_COLOR's
 * water and engineering are too light for text (3.7:1 and 2.9:1). */
export const MAT_INK = {...MAT_COLOR, water: "#1d6bb0", engineering: "#a35200"};

/* One glyph per Material, drawn in a 16 x 16 box: shape, not colour alone. */
const GLYPH = {
  stone: `<path d="M1.5 12 L3.5 5.5 L8.5 2.5 L14 5.5 L14.5 11.5 L8.5 14.2 Z" fill="#6f6f6f"/>` +
    `<path d="M4 9 L8 7 M9 10 L12 8.5" stroke="#ddd" stroke-width="1.1" fill="none"/>`,
  water: `<path d="M8 1.2 C8 1.2 2.8 7.4 2.8 10.4 a5.2 5.2 0 0 0 10.4 0 C13.2 7.4 8 1.2 8 1.2Z" fill="#2a86d1"/>` +
    `<path d="M5.6 10.5 a2.6 2.6 0 0 0 2.4 2.3" stroke="#cfe6fa" stroke-width="1.2" fill="none"/>`,
  timber: `<rect x="1" y="4.5" width="12" height="7" rx="1.2" fill="#8b5a2b"/>` +
    `<ellipse cx="13" cy="8" rx="2.5" ry="3.5" fill="#d9a86c" stroke="#8b5a2b" stroke-width="0.9"/>` +
    `<ellipse cx="13" cy="8" rx="1" ry="1.5" fill="none" stroke="#8b5a2b" stroke-width="0.7"/>`,
  engineering: `<path d="M8 0.8 l1.3 2 2.3-.6.4 2.3 2.2 1-1 2.1 1 2.1-2.2 1-.4 2.3-2.3-.6L8 15.2l-1.3-2-2.3.6-.4-2.3-2.2-1 1-2.1-1-2.1 2.2-1 .4-2.3 2.3.6Z" fill="#e07b00"/>` +
    `<circle cx="8" cy="8" r="2.4" fill="#fff"/>`,
  steel: `<path d="M2 2 H14 V5 H9.6 V11 H14 V14 H2 V11 H6.4 V5 H2 Z" fill="#3b4f66"/>`,
};

/** A Material glyph inside an SVG, centred at (x, y), ``size`` wide. */
export function matGlyph(m, x, y, size) {
  const k = size / 16;
  return `<g transform="translate(${x - size / 2} ${y - size / 2}) scale(${k})">` +
    `${GLYPH[m] || ""}<title>${m}</title></g>`;
}

/** A Material as inline HTML: its glyph and (unless ``bare``) its name. */
export function matIcon(m, bare = false) {
  return `<span class="mat mat-${m}" title="${m}"><svg class="mi" viewBox="0 0 16 16" ` +
    `aria-hidden="true">${GLYPH[m] || ""}</svg>${bare ? "" : `<span class="mname">${m}</span>`}</span>`;
}

export const plural = (n, one, many) => `${n} ${n === 1 ? one : many || one + "s"}`;

/** A word with its indefinite article: ``aOrAn("ocean")`` is "an ocean". */
export const aOrAn = (word) => `${/^[aeiou]/i.test(word) ? "an" : "a"} ${word}`;

/** A player's name as an owner: "your" for the reader (the name "You"), else the name
 * with "'s" ("AI 2 (easy)'s"); ``capital``: "Your", to start a sentence or a heading. */
export function possessive(name, capital = false) {
  if (name === "You") return capital ? "Your" : "your";
  return `${name}'s`;
}

/* ``x`` with one decimal, never "-0.0" (as the command line's ``number``). */
const tenths = (x) => {
  const t = Number(x).toFixed(1);
  return Number(t) === 0 ? "0.0" : t;
};

/** What a reviewed decision lost against the best move the search found, in its units,
 * as ``bigsur analyze`` says it: "21.4 win-% / 5.0 pts" (points of winning chance, and
 * points of expected final margin; a loss is never below 0, so no sign). The review's
 * ``loss_win_pct`` and ``loss_points`` (or a player's mean losses). */
export function lossWords(winPct, points) {
  return `${tenths(winPct)} win-% / ${tenths(points)} pts`;
}

/** A player's accuracy as ``bigsur analyze`` says it: "78.1/100", a score out of 100
 * (lichess's per-move formula on the win-% lost, averaged over the player's rated
 * decisions; 100: none lost any win-%), not a share of the moves. None rated: "\u2014". */
export function accuracyWords(accuracy) {
  return accuracy === null || accuracy === undefined ? "\u2014" : `${tenths(accuracy)}/100`;
}

/** The steps of a payment (notation tokens) in words, and the Material each supplies.
 * ``ctx``: {cards, discardTop (own discard top card id or null) or discardTopMaterial
 * (its Material, where the card is not known), discardTops (per seat: Material or null),
 * seatName(i), whose ("your", the default, or "their": another player's payment), hidden(id)
 * (whether the reader has not seen a card: then it is not named)}.
 * Returns [{step, material, words}]. */
export function stepsInWords(steps, ctx) {
  const hw = ctx.cards.highway;
  const whose = ctx.whose || "your";
  let top = ctx.discardTop ? (hw[ctx.discardTop] || {}).material : ctx.discardTopMaterial || null;
  // a card the reader has not seen (another seat's hand in a search line's sample) is a
  // guess: not named, nor its Material
  const unseen = (id) => !!(ctx.hidden && ctx.hidden(id));
  const out = [];
  for (const step of steps) {
    let material = null, words = step;
    if (step === "rec") {
      material = top;
      words = `recycle the top of ${whose} discard pile${material ? " (" + material + ")" : ""}`;
    } else if (step.startsWith("per:")) {
      const id = step.slice(4);
      material = (hw[id] || {}).persistent || null;
      // a second use of the same card (a Landmark's extra use a turn) said as such
      words = steps.indexOf(step) < out.length ? `the same ${material || "Material"} of ${id} again (an extra use)`
        : `the Persistent ${material || "Material"} of ${id} in ${whose} Highway`;
    } else if (step.startsWith("sub:")) {
      const [list, m] = step.slice(4).split("=");
      const ids = list.split("+");
      material = m;
      words = `3-for-1: discard ${ids.map((id) => (unseen(id) ? "a card not seen" : id)).join(", ")} for ${m}`;
      const last = ids[ids.length - 1];
      top = unseen(last) ? null : (hw[last] || {}).material || top;
    } else if (step.startsWith("bh:")) {
      const [, seat, id] = step.split(":");
      material = (hw[id] || {}).persistent || null;
      words = `borrow the Persistent ${material || "Material"} of ${id} from ${possessive(ctx.seatName(Number(seat)))} Highway`;
    } else if (step.startsWith("bd:")) {
      const seat = Number(step.slice(3));
      material = ctx.discardTops ? ctx.discardTops[seat] : null;
      words = `borrow the top of ${possessive(ctx.seatName(seat))} discard pile${material ? " (" + material + ")" : ""}`;
    } else if (hw[step] && unseen(step)) {
      words = `discard a card from ${whose} hand`;
      top = null;
    } else if (hw[step]) {
      material = hw[step].material;
      words = `discard ${step} (${material})`;
      top = material;
    }
    out.push({step, material, words});
  }
  return out;
}

/* Scenery and Material names as the cards' texts spell them: "Ocean", "Water". */
const capName = (x) => String(x).charAt(0).toUpperCase() + String(x).slice(1);

/** An effect of a card set (a 2-Mile card's ``bonus``, a Landmark's ``ability``:
 * {kind, ...parameters}, docs/format.md) in words, as the cards' texts say them: for a
 * set whose cards carry no ``text``. An unknown kind: its name in words. */
export function effectWords(effect) {
  if (!effect) return "";
  const e = effect, pts = plural(e.points, "point");
  const times = (n = 1) => (n === 1 ? "once" : `${n} times`);
  switch (e.kind) {
    case "distinct_scenery": return `${pts} per different Scenery type in your Highway`;
    case "scenery_points": return `${pts} per ${capName(e.scenery)} icon in your Highway`;
    case "mile_cards": return `${pts} per ${e.miles}-Mile card in your Highway`;
    case "stretch_count": return `${pts} per Stretch in your Highway`;
    case "landmark_collection":
      return `${pts} per ${e.sceneries ? orWords(e.sceneries.map(capName)) + " " : ""}Landmark in your Highway`;
    case "material_cards": return `${pts} per card in your Highway with ${capName(e.material)} on its back`;
    case "highway_end": return `${pts} if this card is at an end of your Highway`;
    case "longest_stretch": return `1 point per ${e.divisor} miles of your longest Stretch`;
    case "mile_bonus": return `the card below this Landmark counts ${plural(e.miles, "more mile", "more miles")}`;
    case "persistent_extra_use":
      return `${plural(e.uses || 1, "extra use", "extra uses")} a turn of your Persistent Materials`;
    case "borrow_highway":
      return `${times(e.uses)} a turn, a Persistent Material of another player's Highway`;
    case "borrow_discard":
      return `${times(e.uses)} a turn, the top Material of another player's discard pile`;
    default: return String(e.kind || "").replace(/_/g, " ");
  }
}

/** A line of a player's score (the server's ``details``: {category, points, what}) in
 * words: a 2-Mile bonus or a Landmark ability by its card's text (else its effect in
 * words), never the effect's key ("H27: landmark_collection"), and "5 Landmarks held"
 * for "5 Landmark(s)". ``cards``: the card set as the page holds it. */
export function scoringItemWords(item, cards) {
  const what = String(item.what || "");
  const own = /^(\S+): (\w+)$/.exec(what); // "H27: landmark_collection"
  const said = (text, effect) => (text || effectWords(effect)).replace(/\.$/, "");
  if (own && item.category === "bonuses") {
    const c = cards.highway[own[1]];
    return `${own[1]}'s bonus: ${said(c && c.text, c ? c.bonus : {kind: own[2]})}`;
  }
  if (own && item.category === "landmark_abilities") {
    const l = cards.landmarks[own[1]];
    return `${l ? `${l.name} (${own[1]})` : own[1]}: ${said(l && l.text, l ? l.ability : {kind: own[2]})}`;
  }
  const held = /^(\d+) Landmark/.exec(what);
  if (held && item.category === "landmark_count") return `${plural(Number(held[1]), "Landmark")} held`;
  return what;
}

/** "a, b or c". */
export function orWords(parts) {
  return parts.length <= 1 ? parts.join("") : parts.slice(0, -1).join(", ") + " or " + parts[parts.length - 1];
}

export function joinWords(parts) {
  if (parts.length <= 1) return parts.join("");
  return parts.slice(0, -1).join(", ") + " and " + parts[parts.length - 1];
}

/** Hand cards a payment's steps discard, in order (one by one or three for one). */
export function cardsUsed(steps) {
  const out = [];
  for (const s of steps) {
    if (s.startsWith("sub:")) out.push(...s.slice(4).split("=")[0].split("+"));
    else if (!s.includes(":") && s !== "rec") out.push(s);
  }
  return out;
}

/** Each payment of ``entries`` with the discard piles' tops as they were when it was paid:
 * {ctxs: index -> {discardTopMaterial (the payer's own pile), discardTops (per seat)},
 * seen}, the words' ctx for :func:`stepsInWords`. ``entries``: {index, seat, action} in
 * game order, every action of the game up to ``piles``, a payment as "build H12 L pay
 * ..." where it is shown (a game's log shows only the reader's own); ``piles``: each
 * seat's discard pile after them, as Materials, bottom to top; ``shown``: the seats whose
 * every payment ``entries`` show.
 * A pile grows only by its own seat's payments: before a payment it is the pile without
 * what that seat discarded from then on. A pile whose seat's payments are hidden is known
 * only while the seat has not played since, else from ``remembered`` (index -> {seat:
 * Material}, as seen earlier); ``seen`` has such tops known now, to remember. */
export function paymentsAsPaid(entries, piles, shown, remembered = {}) {
  const discarded = piles.map(() => 0);
  const played = new Set();
  const topOf = (seat) => {
    const pile = piles[seat] || [];
    if (shown.has(seat)) return pile[pile.length - discarded[seat] - 1] || null;
    return played.has(seat) ? null : pile[pile.length - 1] || null;
  };
  const ctxs = new Map(), seen = {};
  for (let k = entries.length - 1; k >= 0; k--) {
    const e = entries[k];
    const w = e.action.trim().split(/\s+/);
    const pay = w.indexOf("pay");
    if (w[0] === "build" && pay >= 0) {
      const steps = w.slice(pay + 1);
      discarded[e.seat] += cardsUsed(steps).length;
      const tops = piles.map(() => null);
      for (const s of steps.filter((x) => x.startsWith("bd:"))) {
        const seat = Number(s.slice(3));
        tops[seat] = topOf(seat);
        if (tops[seat] && !shown.has(seat)) seen[e.index] = {...seen[e.index], [seat]: tops[seat]};
        if (!tops[seat]) tops[seat] = (remembered[e.index] || {})[seat] || null;
      }
      ctxs.set(e.index, {discardTopMaterial: topOf(e.seat), discardTops: tops});
    }
    played.add(e.seat);
  }
  return {ctxs, seen};
}

/** The card on top of the player's discard pile after a payment's ``steps``, ``top``
 * (a card id or null) before it: a later build of the same move recycles that card. */
export function discardTopAfter(steps, top) {
  const used = cardsUsed(steps);
  return used.length ? used[used.length - 1] : top;
}

/** A payment in one sentence: "discard H58 (steel) and recycle ... — 1 card from hand". */
export function paymentSentence(steps, ctx) {
  if (!steps.length) return "nothing to pay";
  const w = stepsInWords(steps, ctx).map((s) => s.words);
  const spent = cardsUsed(steps).length;
  return joinWords(w) + (spent ? ` \u2014 ${plural(spent, "card")} from your hand` : " \u2014 no card from your hand");
}

/** The context of ``seat``'s actions in a hint's line read by ``reader``: another seat's
 * Recycling is of its own pile, whose top the view shows by Material (``discardTops``),
 * not the reader's (``discardTop``). */
export function lineCtx(ctx, seat, reader) {
  if (seat === reader) return ctx;
  return {...ctx, discardTop: null,
    discardTopMaterial: ctx.discardTops ? ctx.discardTops[seat] || null : null};
}

/** An action in words, for the log and the hint lines. ``who`` is "You" or a name;
 * ``hidden(id)`` says whether a card id is one the reader cannot see; ``drawn``, the
 * card a deck take drew, when the reader knows it. */
export function actionWords(text, ctx, who) {
  const w = text.trim().split(/\s+/);
  const you = who === "You";
  const v = (s, y) => (you ? y : s);
  const hidden = (id) => ctx.hidden && ctx.hidden(id);
  // a card not seen yet (a search line's sample) is not named: said as what it is
  const card = (id, unseen) => (hidden(id) ? unseen : id);
  if (w[0] === "take") {
    // (``ctx.drawn``: the card the reader drew there, which its own log names)
    if (w[1] === "deck") return `${who} ${v("takes", "take")} the top card of the deck` + (ctx.drawn ? `: ${ctx.drawn}` : "");
    // (Depot cards are face up: one not seen yet comes with a refill, at a turn's end)
    if (hidden(w[1])) return `${who} ${v("takes", "take")} a Depot card refilled from the deck`;
    return `${who} ${v("takes", "take")} ${w[1]} from the Depot`;
  }
  if (w[0] === "build") {
    const side = w[2] === "L" ? "left" : "right";
    let s = `${who} ${v("builds", "build")} ${card(w[1], `a card from ${you ? "your" : "their"} hand`)} at the ${side} end`;
    const k = w.indexOf("pay");
    if (k >= 0 && !hidden(w[1])) {
      // another player's payment uses their Highway and discard pile, not the reader's
      const paid = stepsInWords(w.slice(k + 1), {...ctx, whose: you ? "your" : "their"});
      s += `, paying: ${paid.map((x) => x.words).join("; ")}`;
    }
    return s;
  }
  if (w[0] === "claim") {
    const l = ctx.cards.landmarks[w[1]];
    return `${who} ${v("claims", "claim")} ${l ? l.name + " (" + w[1] + ")" : w[1]} above ${card(w[2], "a card not seen yet")}`;
  }
  if (w[0] === "end") return `${who} ${v("ends", "end")} the turn`;
  return `${who}: ${text}`;
}

/** "What decided it": the scoring category with the widest gap between the winner and
 * the runner-up (the best other score; with 3 or 4 players not necessarily the reader's,
 * whose gap to the winner decided nothing between them). ``fin``: a game's result,
 * {scores: [{total, stretches, bonuses, landmark_count, landmark_abilities}], winners}.
 * A sentence, or null (a tie, or no category ahead). */
export function decidingCategory(fin, seatName) {
  if (!fin || !fin.scores || fin.scores.length < 2 || !fin.winners.length) return null;
  const sc = fin.scores;
  const win = fin.winners[0];
  const rival = sc.map((x, i) => i).filter((i) => i !== win)
    .sort((a, b) => sc[b].total - sc[a].total)[0];
  if (sc[rival].total >= sc[win].total) return null; // a shared win
  const cats = [["Stretches", "stretches"], ["2-Mile bonuses", "bonuses"],
    ["Landmarks", "landmark_count"], ["Landmark abilities", "landmark_abilities"]];
  const gaps = cats.map(([name, key]) => [name, sc[win][key] - sc[rival][key],
    sc[win][key], sc[rival][key]]).sort((a, b) => b[1] - a[1]);
  if (gaps[0][1] <= 0) return null;
  return `What decided it: ${gaps[0][0]} \u2014 ${seatName(win)} ${gaps[0][2]}, ` +
    `${seatName(rival)} ${gaps[0][3]} points.`;
}

/** A search line split by player: each turn's actions under the seat that plays them.
 * The line starts after ``first`` (the move's own actions, played by ``seat``). */
export function lineBySeat(first, line, seat, players) {
  const out = [];
  let cur = seat;
  const push = (s, a) => {
    const last = out[out.length - 1];
    if (last && last.seat === s) last.actions.push(a); else out.push({seat: s, actions: [a]});
  };
  const all = [...first.map((a) => [a, true]), ...line.map((a) => [a, false])];
  for (const [a, own] of all) {
    if (!own) push(cur, a);
    if (a === "end" || a.startsWith("claim ")) cur = (cur + 1) % players;
  }
  return out;
}

/* A move's value as the search rates it (its reward, solver/search/ismcts.py:
 * margin_weight 0.25, margin_scale 15): the win chance three parts, the points, squashed
 * into 0..1, one part. */
const searchValue = (m) => 0.75 * m.win_probability + 0.125 * (1 + Math.tanh(m.expected_margin / 15));

const ordinal = (n) => ({2: "2nd", 3: "3rd"})[n] || `${n}th`;

/* Visits the first move needs before the search's verdict means anything. */
export const FEW_VISITS = 100;

/* Rounds in common under which a race's paired test that has not told two moves apart
 * says too little to call them close or the first likely best. */
export const FEW_ROUNDS = 30;

/* The bound within which a race's paired test is held (``versus_top.standard_errors``,
 * +-999: solver/search/ismcts.py); ``versus_top.every_round`` says when the first move
 * scored more than the other by the same amount on every round both played. */
export const GAP_BOUND = 999;

/* Standard errors of the paired test far beyond the race's bar (2, or Student's t at
 * 97.5%): a gap however small is then sure, no "either is fine". */
export const SURE_STANDARD_ERRORS = 10;

/** How sure the search is about its first move: a short cue and why. ``moves``: the
 * listed moves, the search's first move first (:func:`listedMoves`' order);
 * ``legal``: the position's legal actions. A lone move is all that is possible ("only
 * move"), the last build step solved exactly ("solved exactly", its final score), or the
 * only one the search kept ("only candidate"). Else two things, said apart. How big the
 * gap is: against the best other listed move by the search's value (among those whose
 * value means something: raced, played at least one deal and not the first move again;
 * else searched FEW_VISITS times), a close call when it is small. How sure the search is
 * of the order: when it raced its candidates (a move's ``versus_top``, the paired test
 * against the first move on the sampled deals both played), the test against the listed
 * move least told apart: "clearly best" needs the test's clear lead over every listed
 * move, whatever the visits (a race gives its last candidates equal visits), and a
 * close call the test is sure of (SURE_STANDARD_ERRORS, or ``every_round``: behind on
 * every deal by the same amount) is "best by a small but sure margin", not "either is fine"; without a
 * race, twice the visits and no verdict under FEW_VISITS. (The two can be different
 * moves: one dropped early trails far by its numbers on few deals.) Where every listed
 * move shows the same 0.0% or 100.0% win chance, in points only. ``choices``: how many
 * moves the first line stands for (claims above different cards worth the same, merged
 * into one line); ``untried``: the search's candidates it never played (0 visits; a short
 * race lets the later ones in as it drops others), which a clear lead over the rest
 * cannot rule out. -> {cue, why, paired (the race's test decided it)}. */
export function confidence(moves, legal, choices = 1, untried = 0) {
  if (!moves || !moves.length) return null;
  const a = moves[0];
  if (moves.length < 2 && choices > 1) {
    return {cue: "close call", why: `its ${choices} choices are worth the same as far as the search ` +
      "can tell: any of them"};
  }
  if (moves.length < 2) {
    if (legal && legal.length === 1 && a.actions && a.actions.length === 1 && a.actions[0] === legal[0]) {
      return {cue: "only move", why: legal[0] === "end" ? "nothing else is possible, so end the turn"
        : "nothing else is possible"};
    }
    if (a.exact) {
      return {cue: "solved exactly", why: "your best last build step" +
        (a.final_score != null ? ` (final score ${a.final_score})` : "")};
    }
    return {cue: "only candidate", why: "no other move was worth searching"};
  }
  const others = moves.slice(1).map((m, i) => ({m, k: i + 1}));
  const raced = others.some(({m}) => m.versus_top);
  const alike = ({m}) => !!(m.versus_top && m.versus_top.alike);
  // the gap's measure: the best other move by value (one that scored alike every round
  // is the first move again); the most visited other when none has a value that means much
  const valued = others.filter((o) => (raced ? o.m.visits > 0 && !alike(o) : o.m.visits >= FEW_VISITS));
  const b = valued.length ? valued.reduce((x, y) => (searchValue(y.m) > searchValue(x.m) ? y : x))
    : others.reduce((x, y) => (y.m.visits > x.m.visits ? y : x));
  // the test's: the move least told apart (fewest standard errors behind the first);
  // a move alike on every round counts only when no other is listed
  const tested = others.filter((o) => o.m.versus_top);
  const apart = tested.filter((o) => !alike(o));
  const t = raced ? (apart.length ? apart : tested).reduce((x, y) =>
    (y.m.versus_top.standard_errors < x.m.versus_top.standard_errors ? y : x)) : null;
  const paired = t && t.m.versus_top;
  const listedAs = (k) => `the ${ordinal(k + 1)} listed`;
  const next = b.k === 1 ? "the next move" : `the best other move, ${listedAs(b.k)}`;
  const nextByTest = t && t.k !== b.k ? listedAs(t.k) : next;
  const shownPct = (m) => (100 * m.win_probability).toFixed(1);
  const pointsOnly = moves.every((m) => shownPct(m) === shownPct(a)) && ["0.0", "100.0"].includes(shownPct(a));
  const dw = pointsOnly ? 0 : 100 * (a.win_probability - b.m.win_probability);
  const dm = a.expected_margin - b.m.expected_margin;
  const ratio = b.m.visits ? a.visits / b.m.visits : 99;
  // (a race gives its last candidates the same rounds: equal visits are no reason)
  const visits = (a.visits === b.m.visits ? `${a.visits} visits each` : `${a.visits} vs ${b.m.visits} visits`) +
    (pointsOnly ? `; every move's win chance ${shownPct(a)}%` : "");
  const deals = paired && `the ${paired.rounds} sampled deals both played`;
  const clearLead = paired && (apart.length > 1 && t.k !== b.k
    ? "a clear lead over every listed move on the sampled deals each played with it"
    : `a clear lead on ${deals}`);
  const said = (cue, why) => ({cue, why, paired: !!paired});
  if (paired && paired.alike) {
    return said("close call", `${t.k === 1 ? "the top moves" : `the top move and ${listedAs(t.k)}`} ` +
      `scored alike on ${deals}: either is fine`);
  }
  if (paired ? !paired.clear && paired.rounds < FEW_ROUNDS : a.visits < FEW_VISITS) {
    return said("too few iterations to tell", paired
      ? `the search cannot yet separate the top move from ${nextByTest} on ${deals}: search longer`
      : `only ${plural(a.visits, "visit")} for the top move (a verdict needs ${FEW_VISITS}): search longer`);
  }
  const notTried = untried > 0 ? `, but ${plural(untried, "other candidate")} not searched yet` : "";
  const small = Math.abs(dw) < 2 && Math.abs(dm) < 1.5;
  // (the gaps are each move's mean over its own rounds, the test the rounds both played:
  // a verdict needs the two to agree)
  const ahead = searchValue(a) > searchValue(b.m);
  if (ahead && (paired ? paired.clear && !notTried && !small
    : ratio >= 2 && (dw >= 3 || dm >= 2))) {
    return said("clearly best", `${visits}, ${gaps(dw, dm, next, pointsOnly)}` +
      (paired ? `, ${clearLead}` : ""));
  }
  // a small gap the test is sure of (every listed move behind on every deal both played,
  // or by far more than the race's bar) is no "either is fine"
  if (small && ahead && paired && paired.clear && !notTried && paired.standard_errors >= SURE_STANDARD_ERRORS) {
    const onDeals = t.k === b.k ? deals : "the sampled deals each played with it";
    return said("best by a small but sure margin", `${gaps(dw, dm, next, pointsOnly)}, ` +
      (paired.every_round ? `a lead on every one of ${onDeals}`
        : `a lead of ${paired.standard_errors >= GAP_BOUND ? "999 or more"
          : paired.standard_errors.toFixed(1)} standard errors on ${onDeals}`) +
      ` (${visits})`);
  }
  if (small) {
    const pair = b.k === 1 ? "the top moves are" : `the top move and ${listedAs(b.k)} are`;
    return said("close call", `${pair} within ${pointsOnly ? ""
      : Math.abs(dw).toFixed(1) + " win-% and "}${Math.abs(dm).toFixed(1)} points (${visits}): either is fine` +
      (paired && paired.clear && ahead ? `, though the search is sure of the order on ${
        t.k === b.k ? deals : "the sampled deals each played with it"}` : ""));
  }
  const lead = !paired ? "" : !paired.clear ? `, not yet a clear lead${t.k !== b.k
    ? ` over ${listedAs(t.k)}` : ""} on ${deals}`
    : ahead ? `, ${clearLead}`
      : `, though ahead by the search's test on ${t.k === b.k ? deals
        : "the sampled deals each played with it"}`;
  return said("likely best", `${visits}, ${gaps(dw, dm, next, pointsOnly)}${lead}` +
    (paired ? notTried : ""));
}

/** The note of a hint whose search was too short ever to give a verdict, "" for any
 * other: without a race's paired test (``conf.paired``), a verdict needs FEW_VISITS visits
 * for the top move, which shares the search's ``iterations`` with the other moves ("search
 * longer" after each 100-iteration search promised one that never came); a race's test can
 * tell moves apart on fewer. ``iterations``: the iteration budget the search was asked
 * for (none for a time budget: a timed search that ran few iterations can search
 * longer, as its "why" says, where the note named the very choice made). ``conf``:
 * confidence()'s; ``menu``: the search menu's
 * options ({value: "ms:1000" or "iterations:100", label}: a <select>'s), those that can
 * give a verdict named; ``where``: the menu in words ("under “search”"). The table's
 * hint says it in place of confidence()'s "why", not under it (the two said the same
 * twice); the position editor's hint says it too. */
export function noVerdictWords(conf, iterations, menu, where) {
  if (!conf || conf.paired || conf.cue !== "too few iterations to tell" || !iterations
      || iterations > FEW_VISITS) return "";
  const longer = [...menu].filter((o) => {
    const [kind, n] = o.value.split(":");
    return kind === "ms" || Number(n) > FEW_VISITS;
  }).map((o) => o.label.trim());
  return `A search of ${plural(iterations, "iteration")} never gives a verdict (it needs ${FEW_VISITS} ` +
    `visits for the top move)${longer.length ? `: choose ${orWords(longer)} ${where} for one` : ""}.`;
}

/** A hint's moves as the list says them: moves whose actions differ only in the card a
 * claim goes above, with the same numbers as shown (win %, points, score now, exact),
 * are one entry naming the choices. [{k: the first one's index in ``moves``, move: it,
 * members: the merged moves, first to last, above: their claims' cards or null}]. */
export function mergedClaims(moves) {
  const shown = (m) => JSON.stringify([m.actions.map((a) => (a.startsWith("claim ") ? a.split(/\s+/)[1] : a)),
    (100 * m.win_probability).toFixed(1), signed(m.expected_margin), m.score_change || null, !!m.exact,
    m.final_score == null ? null : m.final_score]);
  const out = [], byKey = new Map();
  moves.forEach((m, k) => {
    const claim = m.actions.find((a) => a.startsWith("claim "));
    const card = claim ? claim.split(/\s+/)[2] : null;
    const key = claim ? shown(m) : null;
    const same = key && byKey.get(key);
    if (same) { same.members.push(m); same.above.push(card); return; }
    const entry = {k, move: m, members: [m], above: claim ? [card] : null};
    if (key) byKey.set(key, entry);
    out.push(entry);
  });
  return out;
}

/** A hint's moves as its list shows them (:func:`mergedClaims`' lines): the ``n`` the
 * search tried most, its first move first, then the others by the search's value, best
 * first, and those never tried last. By visits alone the 2nd listed was often worth less
 * than the 4th: a race gives its last candidates equal visits, and a move it dropped
 * early has few. */
export function listedMoves(moves, n = 4) {
  const lines = mergedClaims(moves).slice(0, n);
  const tried = (x) => (x.members.some((m) => m.visits) ? 1 : 0);
  const rest = lines.slice(1).map((x, i) => ({x, i}));
  rest.sort((p, q) => (tried(q.x) - tried(p.x)) || (searchValue(q.x.move) - searchValue(p.x.move))
    || (p.i - q.i));
  return lines.slice(0, 1).concat(rest.map((p) => p.x));
}

/** A hint move's ``reasons`` (short sentences, no final period; the hint's seat "you",
 * another seat "Player N", 1-based) as the page says them: each capitalised, with its
 * period, "Player N" by the page's name for that seat (``seatName(i)``, 0-based). None
 * (an older server): []. */
export function reasonWords(reasons, seatName) {
  if (!Array.isArray(reasons)) return [];
  return reasons.filter((r) => typeof r === "string" && r.trim()).map((r) => {
    const s = r.trim().replace(/\bPlayer (\d+)\b/g, (_, n) => seatName(Number(n) - 1));
    return s.charAt(0).toUpperCase() + s.slice(1) + (/[.!?]$/.test(s) ? "" : ".");
  });
}

/** A number with its sign, a minus sign for negatives: ``signed(-4.25)`` is "\u22124.3",
 * ``signed(3, 0)`` "+3". */
export const signed = (x, digits = 1) => (x >= 0 ? "+" : "\u2212") + Math.abs(x).toFixed(digits);

/** What a hint's build step adds now to the player's score as the Highway stands
 * (the move's ``score_change``: total and the categories that moved), as
 * ``bigsur hint`` says it: "your score as it stands: +5 (Stretches +3, 2-Mile bonuses
 * +2)"; null when the move has none (a take, a bare end). */
export function scoreChangeWords(change) {
  if (!change) return null;
  const parts = [["stretches", "Stretches"], ["bonuses", "2-Mile bonuses"],
    ["landmark_count", "Landmarks held"], ["landmark_abilities", "Landmark abilities"]]
    .filter(([k]) => change[k]).map(([k, words]) => `${words} ${signed(change[k], 0)}`);
  return `your score as it stands: ${signed(change.total, 0)}` +
    (parts.length ? ` (${parts.join(", ")})` : "");
}

/* The first move against ``next`` (another move's words), in win-% and points (points
 * only with ``pointsOnly``): "behind" rather than a negative "ahead" (the most visited
 * move can trail on one of the two). */
function gaps(dw, dm, next = "the next move", pointsOnly = false) {
  const w = `${Math.abs(dw).toFixed(1)} win-%`, p = `${Math.abs(dm).toFixed(1)} points`;
  if (pointsOnly) return `${p} ${dm >= 0 ? "ahead of" : "behind"} ${next}`;
  if ((dw >= 0) === (dm >= 0)) return `${w} and ${p} ${dw >= 0 ? "ahead of" : "behind"} ${next}`;
  return dw >= 0 ? `${w} ahead of ${next} but ${p} behind`
    : `${p} ahead of ${next} but ${w} behind`;
}

/** The round of a game's ``turn`` (every seat's turns counted from 0) as the table says it
 * ("Round R of T"; the list of games and the review say it too): each round every seat
 * plays one turn. At most ``rounds`` when given (a finished game's table: its last round). */
export function roundOf(turn, players, rounds = null) {
  return Math.min(rounds || Infinity, Math.floor(turn / players) + 1);
}

/** A server error message with its notation turned into words. */
export function plainError(message, ctx) {
  let m = String(message || "").replace(/^[a-z_]+(\[\d+\])?(\.[a-z_]+)*: /, ""); // the field name
  m = m.replace(/payment step '([^']+)'/g, (_, step) => {
    const [s] = stepsInWords([step], ctx);
    return s ? `"${s.words}"` : step;
  });
  m = m.replace(/'(build [^']+|take [^']+|claim [^']+|end)'/g, (_, a) =>
    `"${actionWords(a, ctx, "You").replace(/^You /, "")}"`);
  return seatsNamed(m, ctx.seatName);
}

/** A server message's seats, numbered from 0 ("for seat 1"), by the page's names for
 * them (``seatName(1)``: "AI 2", or "Player 2" in an uploaded record's review). */
export function seatsNamed(message, seatName) {
  return String(message).replace(/\bseat (\d)\b/g, (_, s) => seatName(Number(s)));
}

const COUNT_WORDS = ["no", "one", "two", "three", "four", "five"];

/** A turn in short words, past tense: "took H54 and a deck card, built H54 and claimed
 * Salmon Creek Falls"; deck cards counted ("took two deck cards"). ``actions`` are
 * notation strings; "end" says nothing. */
export function turnInShort(actions, ctx) {
  const taken = [], built = [], claimed = [];
  const decks = actions.filter((a) => /^\s*take deck\b/.test(a)).length;
  let deckSaid = false; // all the deck cards where the first was taken
  for (const text of actions) {
    const w = text.trim().split(/\s+/);
    if (w[0] === "take" && w[1] === "deck") {
      if (!deckSaid) taken.push(decks === 1 ? "a deck card" : `${COUNT_WORDS[decks] || decks} deck cards`);
      deckSaid = true;
    } else if (w[0] === "take") taken.push(w[1]);
    else if (w[0] === "build") built.push(w[1]);
    else if (w[0] === "claim") {
      const l = ctx.cards.landmarks[w[1]];
      claimed.push(l ? l.name : w[1]);
    }
  }
  const parts = [];
  if (taken.length) parts.push("took " + joinWords(taken));
  if (built.length) parts.push("built " + joinWords(built));
  if (claimed.length) parts.push("claimed " + joinWords(claimed));
  return parts.length ? joinWords(parts) : "ended the turn";
}

/** Turning points of a review, in words: the biggest swings of one seat's own estimates
 * (in game order), then the costliest labelled decisions.
 *
 * A swing compares two estimates made from the same seat's view: after one of its moves
 * (the search's value of the move played) and before its next decision. Between two
 * seats' estimates the view changes (each search knows its own hand, not the other's),
 * so a jump there is not something a move did; the other seats' turns in between are
 * named as what happened (one turn in short words, several by their players). Within a
 * turn only a deck take's card can move the estimate: a swing after another move of the
 * turn is search noise, and no turning point.
 * ``ctx``: {me, seatName, cards, paid (optional: index -> the payment's ctx, as
 * paymentsAsPaid gives it), better (optional: a decision's better move in words, or
 * null: said here without the Materials of discard piles)}; at most ``most`` swings, in game order, then at most two
 * labelled decisions. -> [{index, text, labelled}] (the decision to open). */
export function turningPoints(res, ctx, most = 3) {
  const {me, seatName} = ctx;
  const played = (dc) => actionWords(dc.played, {...ctx, ...(ctx.paid && ctx.paid.get(dc.index))},
    seatName(dc.seat));
  const whose = possessive(seatName(me));
  const chance = (p) => (100 * p).toFixed(1) + "%";
  const mine = res.decisions.filter((dc) => dc.seat === me && dc.value_before);
  const swings = [];
  for (let k = 0; k + 1 < mine.length; k++) {
    const a = mine[k], b = mine[k + 1];
    // two estimates of one situation: within a turn, after a Depot take or a build,
    // nothing unseen has happened (the Depot refills at the turn's end; a deck take
    // shows a card), so a swing there is two searches disagreeing, not a move's doing
    if (a.turn != null && a.turn === b.turn && a.played.trim() !== "take deck") continue;
    const after = a.value_played || a.value_before;
    const between = res.decisions.filter((dc) => dc.index > a.index && dc.index < b.index);
    swings.push({a, b, between, from: after.win_probability, to: b.value_before.win_probability,
      points: b.value_before.expected_margin - after.expected_margin});
  }
  const out = swings.filter((x) => Math.abs(x.to - x.from) >= 0.08)
    .sort((x, y) => Math.abs(y.to - y.from) - Math.abs(x.to - x.from)).slice(0, most)
    .sort((x, y) => x.a.index - y.a.index)
    .map((x) => {
      const change = `${whose} winning chances ${chance(x.from)} \u2192 ${chance(x.to)} ` +
        `(${signed(x.points)} expected points)`;
      const others = [];  // the other seats' turns between, each as one entry
      for (const dc of x.between.filter((d) => d.seat !== me)) {
        const last = others[others.length - 1];
        if (last && last.seat === dc.seat) last.dcs.push(dc); else others.push({seat: dc.seat, dcs: [dc]});
      }
      if (!others.length) {
        const what = actionWords(x.a.played, {...ctx, drawn: x.a.drawn}, seatName(me)).split(", paying:")[0];
        // a card from the deck: what it was is known only after the draw, and moved the
        // estimate (the review's decision names it, ``drawn``, from the finished record)
        const text = x.a.played.trim() === "take deck" ? `${what}; the card drawn moved ${change}`
          : `${what} \u2014 ${change}`;
        return {index: x.a.index, text: `Move ${x.a.index + 1}: ${text}.`};
      }
      const first = others[0].dcs[0].index;
      const last = others[others.length - 1].dcs[others[others.length - 1].dcs.length - 1].index;
      const what = others.length === 1
        ? `${seatName(others[0].seat)} ${turnInShort(others[0].dcs.map((dc) => dc.played), ctx)}`
        : `the turns of ${joinWords(others.map((t) => seatName(t.seat)))}`;
      return {index: first, text: `${first === last ? "Move " + (first + 1) : "Moves " + (first + 1) +
        "\u2013" + (last + 1)}: ${what} \u2014 ${change}.`};
    });
  res.decisions.filter((dc) => dc.label && dc.loss_points !== null)
    .sort((x, y) => (y.loss_win_pct + y.loss_points) - (x.loss_win_pct + x.loss_points)).slice(0, 2)
    .forEach((dc) => {
      if (out.some((x) => x.index === dc.index)) return;
      const better = (dc.best && ctx.better && ctx.better(dc)) || (dc.best ? dc.best.map((a) =>
        actionWords(a, ctx, seatName(dc.seat)).slice(seatName(dc.seat).length).trim()).join(", then ") : "?");
      out.push({index: dc.index, labelled: true, text: `Move ${dc.index + 1}: ${played(dc)} ` +
        `(${aOrAn(dc.label)}: lost ${lossWords(dc.loss_win_pct, dc.loss_points)} ` +
        `against the best move found; better: ${better}).`});
    });
  return out;
}

/** Whether the search's best move at a reviewed decision begins with the move played
 * (then there is no better move to show). A build is the same decision whatever it paid
 * with, as the review matches them (``solver.analysis.same_decision``): a player who
 * paid the same cards in another order, or other cards, built what the search chose. */
export function playedWasBest(dc) {
  const decision = (action) => String(action).trim().split(/\s+pay(?:\s|$)/)[0];
  return !!(dc.best && dc.best.length && decision(dc.best[0]) === decision(dc.played));
}

/** Whether a reviewed decision's values of the move played and of the best move come from
 * the review's second search (docs/api.md: a loss that earns a label is measured again
 * with four times the budget; its values stand), its value before from the first: the
 * review's ``measured_again``. */
export function measuredAgain(dc) {
  return !!dc.measured_again;
}
