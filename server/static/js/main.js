/* Big Sur in the browser: play against the AI, click-to-pay, hints, scores and review.
 *
 * Native ES modules, no build step, no outside assets: api.js (the /v1 calls), words.js
 * (notation -> plain words, Material glyphs), pay.js (the click-to-pay model), svg.js
 * (cards, Landmarks, Highways), table-model.js (views -> what to draw), hint-move.js (a
 * hint's move in detail, as this page and the position editor show it) and this file
 * (state, rendering, events). The game lives on the server; the page keeps the game ids
 * and seat tokens (localStorage), so a reload resumes the game, and the reviews (a game's
 * per game, the latest uploaded record's with its text), so a reload shows them again or
 * picks their running job up. The server owns the rules: every action is sent to it and
 * a refusal is shown in plain words.
 */
import {ApiError, api, recordText, seedOfRecordText, startReview, latestReview, job as getJob,
  analyseRecordText, replayRecordText, continueGame} from "./api.js";
import {MATERIALS, MAT_COLOR, matGlyph, matIcon, stepsInWords, paymentSentence, discardTopAfter, cardsUsed, actionWords,
  paymentsAsPaid,
  confidence, plainError, joinWords, plural, possessive, turningPoints as reviewTurningPoints,
  measuredAgain,
  playedWasBest, decidingCategory, lossWords, accuracyWords, signed,
  scoringItemWords, mergedClaims, listedMoves, seatsNamed, orWords, aOrAn, noVerdictWords, roundOf}
from "./words.js";
import {payState, persistentUseFits, borrowsLeft, substitutionOrder} from "./pay.js";
import {SCENERY, SC_COLOR, esc, cap, wrap, setCards, sceneryIcon, cardWords, cardSVG,
  unknownCardSVG, landmarkWords, landmarkSVG, highwaySVG, highwayWords} from "./svg.js";
import {tableFromView, tableFromState, matOf, applyPublic, setModelCards} from "./table-model.js";
import {SEAT_COLOR, hiddenFrom, hintMoveDetails} from "./hint-move.js";
import * as cardsetEditor from "./views/cardset-editor.js";
import * as positionEditor from "./views/position-editor.js";
import * as reviewUpload from "./views/review-upload.js";



// ------------------------------------------------------------------ vocabulary
const LABEL_COLOR = {inaccuracy: "#d4a000", mistake: "#e06000", blunder: "#c62828"};
/* AI levels: what a player chooses; the spec the server plays. Measured (docs/ai.md):
 * mcts:0.1s beats greedy 85.8%, mcts:1s 93.0%; 3 s against 1 s played no better. */
const LEVELS = [["greedy", "easy"], ["mcts:0.1s", "normal"], ["mcts:1s", "strong"]];
const AI_CHOICES = [
  ["human", "a person (hot seat)"], ["greedy", "AI \u2014 easy"], ["mcts:0.1s", "AI \u2014 normal"],
  ["mcts:1s", "AI \u2014 strong"], ["random", "AI \u2014 random moves"],
  ["mcts:200i", "AI \u2014 MCTS 200 iterations"], ["mcts:0.5s", "AI \u2014 MCTS 0.5 s"],
  ["mcts:3s", "AI \u2014 MCTS 3 s"]];
const DEFAULT_AI = "mcts:1s";
const GAMES_KEY = "bigsur.games";
/* A seat's AI in words: its level, else the setup's choice ("MCTS 200 iterations",
 * "random moves"), never the bot notation; "human" (a record's person) "a person"; an
 * unknown spec as it is. */
const levelOf = (spec) => {
  if (spec === "human") return "a person";
  const level = LEVELS.find(([s]) => s === spec);
  if (level) return level[1];
  const choice = AI_CHOICES.find(([s]) => s === spec && s !== "human");
  return choice ? choice[1].replace(/^AI \u2014 /, "") : spec;
};
const STORE_KEY = "bigsur.game";
const PLAYING_KEY = "bigsur.playing"; // the id of the game in progress (gameInProgress)

// ------------------------------------------------------------------ state
const S = {
  view: "setup",
  cardSets: [],
  cards: null, // {name, label, reconstruction, highway: {id: card}, landmarks: {id: lm}}
  game: null, // {id, tokens: {seat: token}, seats}
  data: null, // last seat response
  selected: null, // hand card id selected for building
  paying: null, // {card} while the custom payment box is open
  hint: null, // {n, result}
  scores: null, // live scores {n, scores}
  animating: false,
  thinking: null, // the AI's name while a turn ended is sent and that AI thinks (waitSent)
  skip: false,
  busy: false,
  review: null, // the game's review: {gameId, result, budget, selected, position}
  upload: null, // an uploaded record's review: {name, text, jobId, budget, cardsName, names, nActions,
  //               cards, result, selected, position, running, pickedUp, lost, shown}; kept (UPLOAD_KEY)
  reviewSource: "game", // which review the review view shows: "game" or "upload"
  scoresOpen: new Set(), // the seats whose score breakdown is open (kept across redraws)
};

/* The review the review view shows. */
function shownReview() { return S.reviewSource === "upload" ? S.upload : S.review; }

const $ = (id) => document.getElementById(id);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const pct = (p) => (100 * p).toFixed(1) + "%";

/* An error (a refusal of the server's, or a bug) in the page's words. */
function errorText(err) {
  const words = (m) => (S.cards && S.data ? plainError(m, {...payCtxSafe(), seatName}) : m);
  return err instanceof ApiError
    ? (err.status === 422 || err.status === 409 ? `Not allowed: ${words(err.message)}`
      : err.status ? `The server refused (${err.status}): ${err.message}` : err.message)
    : String(err && err.message || err);
}

function showError(err) {
  $("alert-text").textContent = errorText(err);
  $("alert").hidden = false;
  if (err instanceof Error && !(err instanceof ApiError)) console.error(err); // a bug
}

function payCtxSafe() {
  try { return payCtx(); } catch (e) { return {cards: S.cards, seatName}; }
}

function clearError() { $("alert").hidden = true; $("alert-text").textContent = ""; }

// ------------------------------------------------------------------ cards
/* A card set as the page holds it, from ``raw``: a set as GET /v1/cards/{name} gives it,
 * or (``inline``) one a record holds inline, which has no label and need not be the set
 * the server stores under its name. */
function pageCards(raw, inline = false) {
  const highway = {}, landmarks = {};
  for (const c of raw.highway) highway[c.id] = c;
  for (const l of raw.landmarks) landmarks[l.id] = l;
  const label = raw.label || `${raw.name} v${raw.version || "1"}` +
    (raw.reconstruction ? " (reconstruction, not the printed cards)" : "");
  return {name: raw.name, label, reconstruction: !!raw.reconstruction, highway, landmarks, raw,
    inline};
}

/* The set the server has under ``name``, not yet in use. */
async function fetchCards(name) {
  return pageCards({...await api("GET", "/v1/cards/" + encodeURIComponent(name)), name});
}

/* Draw and name every card from ``cards`` (pageCards) from now on. */
function useCards(cards) {
  S.cards = cards;
  setCards(cards);
  setModelCards(cards);
  $("cardset-label").textContent = "Cards: " + cards.label;
  $("cardset-label").classList.toggle("recon", !!cards.reconstruction);
  return cards;
}

/* The server's set ``name`` in use (a record's inline set of the same name is not it,
 * nor an older version of it than the list of sets names: a set saved again in the
 * card-set editor kept drawing its first version's cards). */
async function loadCards(name) {
  const listed = S.cardSets.find((c) => c.name === name);
  const current = S.cards && S.cards.name === name && !S.cards.inline &&
    (!listed || String(listed.version) === String(S.cards.raw.version));
  if (current) return S.cards;
  return useCards(await fetchCards(name));
}

/* The cards the game is played with in use (``d``: a seat's answer of it): the server's
 * set of its name, or, when that name has held a new version since the game started, the
 * game's own version, which the server then sends inline in the view (the newest one drew
 * and named other cards than the game's). */
async function loadGameCards(d = S.data) {
  const own = d && d.view && d.view.cards;
  if (own && typeof own === "object") return useCards(pageCards(own, true));
  return loadCards(own || (S.game && S.game.cards) || "default");
}

function turnsPerPlayer(players) {
  if (!S.cards) return null;
  const n = S.cards.raw.highway.filter((c) => c.players.includes(players)).length;
  return (n - 2 * players - 5) / (2 * players);
}

// ------------------------------------------------------------------ seats and names
function seatName(i) {
  if (S.view === "review" && S.reviewSource === "upload" && S.upload) {
    // a record names a seat by its bot spec: said in the game page's words ("normal")
    return S.upload.names ? `Player ${i + 1} (${levelOf(S.upload.names[i])})` : `Player ${i + 1}`;
  }
  const g = S.data || {};
  const info = g.seats ? g.seats[i] : null;
  const named = S.game && S.game.names && S.game.names[i];
  const mine = S.game && S.game.tokens[i] !== undefined;
  if (named) return named; // (the name typed at the setup, else "You": defaultName)
  if (mine && Object.keys(S.game.tokens).length === 1) return "You";
  if (!info) return `Player ${i + 1}`;
  if (info.kind === "human") return `Player ${i + 1}`;
  return `AI ${i + 1} (${levelOf(info.spec)})`;
}

function myseat() { return S.data ? S.data.seat : 0; }

function tokenFor(seat) { return S.game ? S.game.tokens[seat] : null; }

/* The token to use: the seat to act when it is one of ours (hot-seat), else our first. */
function activeToken(toAct) {
  if (!S.game) return null;
  if (toAct !== null && toAct !== undefined && S.game.tokens[toAct] !== undefined) {
    return S.game.tokens[toAct];
  }
  const seats = Object.keys(S.game.tokens).map(Number).sort((a, b) => a - b);
  return S.game.tokens[seats[0]];
}

// ------------------------------------------------------------------ rendering the table
function stretchesFrom(score) {
  if (!score) return [];
  return score.details.filter((d) => d.category === "stretches").map((d) => ({
    scenery: d.what.split(" ")[0].toLowerCase(), cards: d.cards || [], points: d.points}));
}

/* The status line (``html``: whose turn and what to do, a heading the focus can go to at
 * the start of a turn; a polite live region) and beside it ``deck`` (the round and the
 * deck's count; kept when not given). Written only when it changes (each redraw said it
 * again to a screen reader), or with ``again`` (an AI's move the same as its last: "takes
 * the top card of the deck" twice is said twice). */
let statusShown = null;
function setStatus(html, deck, again = false) {
  if (html !== statusShown || again) { $("status-line").innerHTML = html; statusShown = html; }
  if (deck !== undefined && $("status-deck").textContent !== deck) $("status-deck").textContent = deck;
}

/* A few words for a screen reader (#announce, a polite live region): a move of the
 * player's own, a hint found, a payment complete, an analysis started or done, the
 * decision chosen. A new paragraph each time, added (the same words are said again, and
 * two said at once are both queued), the oldest taken away beyond three (unannounced). */
function announce(text) {
  if (!text) return;
  const box = $("announce"), p = document.createElement("p");
  p.textContent = text;
  box.append(p);
  while (box.children.length > 3) box.firstElementChild.remove();
}

/* The end of the game in words, for the status line: who won, and every score. */
function overWords(d) {
  const sc = d.result ? d.result.scores : [];
  const w = d.result ? d.result.winners.map(seatName) : [];
  const won = w.length > 1 ? `Shared win: ${joinWords(w)}` : w.length ? `${w[0]} ${w[0] === "You" ? "win" : "wins"}` : "";
  return `The game is over${won ? ": " + won : ""}.` +
    (sc.length ? ` Scores: ${sc.map((x, i) => `${seatName(i)} ${x.total}`).join(", ")}.` : "");
}

function cardButton(id, cls, label, data, inner) {
  return `<button type="button" class="cardbtn ${cls || ""}" aria-label="${esc(label)}" ` +
    Object.entries(data || {}).map(([k, v]) => `data-${k}="${esc(v)}"`).join(" ") +
    `>${inner || cardSVG(id)}</button>`;
}

function renderTable(t, opts = {}) {
  const d = S.data;
  const legal = opts.legal || [];
  const mine = t.me;
  const myTurn = !opts.static && !opts.animating && d && d.your_turn;
  const scores = opts.scores || [];
  const hm = !opts.static && !opts.animating && myTurn ? hintMarks() : null;
  const sugg = (kind, id) => hm && hm[kind].some((x) => (x.card || x.landmark || x) === id)
    ? " suggested" : "";

  // status line
  const tpp = turnsPerPlayer(t.seats.length);
  const round = roundOf(t.turn, t.seats.length, tpp);
  let status;
  if (opts.caption) {
    status = `<b>${esc(opts.caption)}</b>`;
  } else if (d && d.over && !opts.static) {
    status = `<b>${esc(overWords(d))}</b>`;
  } else if (opts.static) {
    status = `<b>${esc(opts.staticTitle || "Position")}</b>`;
  } else if (myTurn) {
    // hot seat: say whose turn it is (the same screen serves every human seat)
    const who = S.game && Object.keys(S.game.tokens).length > 1
      ? `${esc(seatName(t.current))}, your turn:` : "Your turn:";
    status = t.phase === "take"
      ? `<b>${who}</b> take ${t.picks === 0 ? "2 cards" : "1 more card"} from the Depot or the deck.`
      : `<b>${who}</b> build cards from your hand (select one, then Left or Right), ` +
        "claim a Landmark, or end the turn.";
  } else {
    status = `<b>${esc(seatName(t.current))}</b> is playing\u2026`;
  }
  const deckInfo = `Round ${round}${tpp ? " of " + tpp : ""} \u00b7 deck ${t.deckCount}`;
  if (!opts.target) {
    setStatus(status, deckInfo, !!opts.caption);
    // 3-4 players: the other Highways do not fit above your hand (style.css orders them)
    $("game").classList.toggle("many", t.seats.length > 2);
  }

  const root = opts.target || document;
  const q = (id) => opts.target ? opts.target.querySelector("[data-part=" + id + "]") : $(id);

  // Depot
  const takeLegal = new Set(legal.filter((a) => a.startsWith("take ")).map((a) => a.slice(5)));
  q("depot").innerHTML = t.depot.map((id, i) => id === null
    ? `<div class="cardslot">${unknownCardSVG("refilled")}</div>`
    : (opts.static ? `<div class="cardslot" data-card="${esc(id)}">${cardSVG(id)}</div>`
      : cardButton(id, (takeLegal.has(id) ? "takeable" : "") + (hm && hm.take.includes(id) ? " suggested" : ""), `Take ${cardWords(id)} (key ${i + 1})`,
        {act: "take " + id, key: String(i + 1)},
        cardSVG(id, {badge: String(i + 1)})))).join("");
  // Deck
  const deckInner = unknownCardSVG(`${t.deckCount} cards`);
  q("deck").innerHTML = opts.static ? `<div class="cardslot" data-card="deck">${deckInner}</div>`
    : cardButton(null, (takeLegal.has("deck") ? "takeable" : "") + (hm && hm.take.includes("deck") ? " suggested" : ""),
      `Take the top card of the deck (${t.deckCount} cards left, key D)`, {act: "take deck"},
      deckInner);
  // Landmark row: a Landmark that can be claimed says above which cards of your Highway
  // (one a place; the row showed only that it could be, and a second place went unseen)
  const places = {};
  for (const a of legal.filter((x) => x.startsWith("claim "))) {
    const [, lm, card] = a.split(" ");
    (places[lm] = places[lm] || []).push(card);
  }
  const placesWords = (id) => `above ${orWords(places[id])}` +
    (places[id].length > 1 ? ` (${places[id].length} places)` : "");
  q("landmarks").innerHTML = t.landmarkRow.map((id) => id === null
    ? `<div class="lmslot">${landmarkSVG(null)}</div>`
    : (opts.static ? `<div class="lmslot" data-card="${esc(id)}">${landmarkSVG(id)}</div>`
      : `<button type="button" class="cardbtn lm ${places[id] ? "claimable" : ""}${hm && hm.claim.some((x) => x.landmark === id) ? " suggested" : ""}" ` +
        `data-claim="${esc(id)}" aria-label="${esc("Claim " + landmarkWords(id) + (places[id] ? ` \u2014 ${placesWords(id)}` : ""))}">` +
        `${landmarkSVG(id)}${places[id] ? `<span class="lmplaces" aria-hidden="true">Claim ${esc(placesWords(id))}</span>` : ""}</button>`)).join("");
  const lmc = q("lmcount");
  if (lmc) lmc.textContent = `${t.lmDeckCount} more in the deck`;

  // Seats (others first, clockwise from me), then mine below
  const order = [];
  for (let k = 1; k < t.seats.length; k++) order.push((mine + k) % t.seats.length);
  const seatHTML = (i, scale) => {
    const s = t.seats[i];
    const sc = scores[i];
    const total = sc ? sc.total : 0;
    const br = sc ? `Stretches ${sc.stretches}, 2-Mile bonuses ${sc.bonuses}, Landmarks ` +
      `${sc.landmark_count} + ${sc.landmark_abilities}` : "";
    const top = s.discardTopMaterial
      ? matIcon(s.discardTopMaterial) +
        (s.discardTop ? ` <span class="muted">(${esc(s.discardTop)})</span>` : "")
      : "<span class=\"muted\">empty</span>";
    const known = s.known && s.known.length && i !== mine
      ? ` \u00b7 known: ${s.known.map(esc).join(" ")}` : "";
    const acting = i === t.current && !(d && d.over && !opts.static);
    return `<div class="seat panel${acting ? " acting" : ""}${i === mine ? " me" : ""}" data-seat="${i}" ` +
      `style="--seat:${SEAT_COLOR[i % 4]}" role="group" aria-label="${esc(seatName(i))}">` +
      `<div class="seat-head"><h2 class="small"><span class="dot"></span>${esc(i === mine && !opts.static ? "Your Highway" : seatName(i) + (opts.static && i === mine ? " (to act)" : ""))}</h2>` +
      (i === t.firstPlayer ? `<span class="firstp" title="First player: the round starts with this seat">\u2691 first player</span>` : "") +
      // the breakdown opens from the keyboard too (a title shows on hovering only)
      (br ? `<details class="score"${S.scoresOpen.has(i) ? " open" : ""}><summary title="${esc(br)}">${total} pts</summary>` +
        `<span class="breakdown small">${esc(br)}</span></details>` : `<span class="score">${total} pts</span>`) +
      `<span class="muted small">hand ${s.handCount}${known} \u00b7 discard ${s.discardCount}, top ${top}` +
      `${s.landmarks.length ? " \u00b7 " + plural(s.landmarks.length, "Landmark") : ""}</span></div>` +
      // the picture hidden from a screen reader, which reads the Highway in words
      `<div class="hwwrap" aria-hidden="true">${highwaySVG(s.highway, s.landmarks, stretchesFrom(sc), scale,
        opts.highlight && opts.highlight.seat === i ? opts.highlight.card : null,
        i === mine && hm ? hm.build : [], i === mine && hm ? hm.claim : [])}</div>` +
      highwayWords(i === mine && !opts.static ? "Your Highway" : possessive(seatName(i), true) + " Highway",
        s.highway, s.landmarks, stretchesFrom(sc), i === mine && hm ? hm.build : [],
        i === mine && hm ? hm.claim : []) + `</div>`;
  };
  // Highway cards as large as the width allows (a long road shrinks to fit); #seats has
  // no box of its own in the 3-4 player order and on a phone (display: contents): its
  // column's width, or on a phone (no box for the column either) the page's column's
  const seatsEl = q("seats");
  const grid = seatsEl.closest(".game-grid");
  const avail = Math.max(400, (seatsEl.clientWidth || seatsEl.parentElement.clientWidth ||
    (grid && grid.clientWidth) || 960) - 40);
  const fit = (i, most) => Math.min(most, avail / Math.max(1, (t.seats[i].highway.length +
    (i === mine && hm ? hm.build.length : 0)) * 106));
  // at most: a phone's small cards; 2 players as both Highways fit a laptop's screen;
  // 3-4 players (a Highway a row, below the hand: there is room beside half-size cards,
  // which were too small to read) larger, every Highway the same
  const small = innerWidth < 700, many = t.seats.length > 2;
  const [most, mostMine] = small ? [0.45, 0.5] : many ? [0.75, 0.75] : [0.58, 0.62];
  // which score breakdowns are open is read from the table being replaced (a details'
  // toggle event comes later, and never from one a redraw took away first), when it is
  // this game's: another game's open seats are not this one's
  const game = String(S.game ? S.game.id : "");
  if (seatsEl.dataset.game !== game) S.scoresOpen.clear();
  else {
    for (const d of seatsEl.querySelectorAll(".seat details.score")) {
      S.scoresOpen[d.open ? "add" : "delete"](Number(d.closest(".seat").dataset.seat));
    }
  }
  seatsEl.dataset.game = game;
  q("seats").innerHTML = order.map((i) => seatHTML(i, fit(i, most))).join("") +
    seatHTML(mine, fit(mine, mostMine));

  // Hand
  const me = t.seats[mine];
  const buildable = new Set(legal.filter((a) => a.startsWith("build ")).map((a) => a.split(" ")[1]));
  if (S.selected && me.hand && !me.hand.includes(S.selected)) S.selected = null;
  // your build step: the hand's line says that the hand is empty, once
  const emptySaid = !opts.target && myTurn && t.phase === "build";
  q("hand").innerHTML = (me.hand || []).map((id) => opts.static
    ? `<div class="cardslot" data-card="${esc(id)}">${cardSVG(id)}</div>`
    : cardButton(id, (buildable.has(id) ? "buildable" : "") + (S.selected === id ? " selected" : "") + sugg("build", id),
      `${S.selected === id ? "Selected: " : "Select "}${cardWords(id)}${buildable.has(id) ? " (you can build it)" : ""}`,
      {select: id})).join("") || (emptySaid ? "" : "<p class=\"muted\">Empty.</p>");
  if (!opts.target) {
    $("handinfo").textContent = myTurn && t.phase === "build"
      ? (buildable.size ? `You can pay for: ${[...buildable].join(", ")}`
        : me.hand && me.hand.length ? "You cannot pay for any card now."
          : "Your hand is empty.") // (the action bar says there is nothing to build)
      : "";
    root.dispatchEvent(new Event("bigsur:rendered"));
  }
}

function renderActions() {
  const d = S.data;
  const bar = $("actionbar");
  if (!d || d.over) { bar.innerHTML = ""; closePay(); return; }
  const t = d.view;
  const legal = d.legal_actions || [];
  const myTurn = d.your_turn && !S.animating;
  const parts = [];
  if (t.phase === "build" && myTurn) {
    const sel = S.selected;
    const buildable = legal.some((a) => a.startsWith(`build ${sel} `));
    const anyBuild = legal.some((a) => a.startsWith("build "));
    const noRoad = t.seats[t.view_of].highway.length === 0;
    const claims = legal.filter((a) => a.startsWith("claim "));
    // (the hand's own line already says that no card can be paid for)
    parts.push(`<span class="sel">${sel ? `Selected <b>${esc(sel)}</b>${buildable ? "" : " (you cannot pay for it now)"}`
      : (anyBuild ? "Select a card of your hand to build it."
        : `Nothing to build: ${claims.length ? "claim a Landmark or end" : "end"} your turn.`)}</span>`);
    // (no Build buttons that could only refuse: none with nothing payable, and disabled
    // with no card selected or one that cannot be paid for)
    const dis = sel && buildable ? "" : "aria-disabled=\"true\"";
    if (anyBuild || sel) {
      if (noRoad) {
        parts.push(`<button type="button" data-build="L" ${dis} title="paying the cheapest way">Build (starts your road)<span class="keyhint"> <kbd>L</kbd>/<kbd>R</kbd></span></button>`);
      } else {
        parts.push(`<button type="button" data-build="L" ${dis} title="paying the cheapest way">Build left <kbd>L</kbd></button>`);
        parts.push(`<button type="button" data-build="R" ${dis} title="paying the cheapest way">Build right <kbd>R</kbd></button>`);
      }
    }
    if (claims.length) {
      // a claim is the turn's last step: the server ends the turn with it
      parts.push(`<span class="claims" role="group" aria-label="Landmark claims (a claim ends your turn)">Claim (ends your turn): ` + claims.map((a) => {
        const [, lm, card] = a.split(" ");
        const l = S.cards.landmarks[lm];
        return `<button type="button" class="claimbtn" data-act="${esc(a)}" ` +
          `title="${esc(landmarkWords(lm) + " \u2014 claiming ends your turn")}">${esc(l ? l.name : lm)} above ${esc(card)}</button>`;
      }).join("") + `</span>`);
    }
    const built = d.log.length && d.log[d.log.length - 1].seat === t.view_of &&
      d.log[d.log.length - 1].action.startsWith("build ");
    parts.push(`<button type="button" data-act="end" class="endbtn">${built ? "End turn" : "End turn without building"} <kbd>E</kbd></button>`);
    if (canUndo()) {
      const last = d.log[d.log.length - 1].action.split(" ")[1];
      parts.push(`<button type="button" data-undo="1" title="take back your last build of this turn">Undo building ${esc(last)} <kbd>U</kbd></button>`);
    }
  } else if (t.phase === "take" && myTurn) {
    parts.push(`<span class="sel">Take ${t.picks === 0 ? "2 cards" : "1 more card"}: click a Depot card<span class="keyhint"> <kbd>1</kbd>\u2013<kbd>5</kbd></span> or the deck<span class="keyhint"> <kbd>D</kbd></span>.` +
      (S.selected ? ` Selected <b>${esc(S.selected)}</b>: you can build it once you have taken your cards.` : "") + `</span>`);
    parts.push(`<button type="button" data-act="take deck">Take from deck <kbd>D</kbd></button>`);
  } else {
    parts.push(`<span class="sel muted">${S.animating ? "The AI is playing (Esc to skip)." : "Waiting for " + esc(seatName(t.current)) + "\u2026"}</span>`);
  }
  bar.innerHTML = parts.join("");
  renderPay();
}

/* Materials borrowed from other discard piles, as they were when paid: per game id,
 * per log index, {seat: Material} (the log is written again from the whole game on each
 * change, after the piles changed; the server's log holds the steps only). */
const BORROWED_KEY = "bigsur.borrowed";

function borrowedSeen() {
  try { return JSON.parse(localStorage.getItem(BORROWED_KEY) || "{}") || {}; } catch (e) { return {}; }
}

/* Each seat's discard pile in a seat's view ``v``, as Materials bottom to top. */
function pilesOfView(v) {
  return v.seats.map((s, i) => (i === v.view_of ? s.discard.map(matOf) : s.discard.materials));
}

/* For each of the seat's own builds in the log with a payment, the words' ctx as it was
 * when paid (paymentsAsPaid: index -> {discardTopMaterial, discardTops}). The log shows
 * only the seat's own payments: another seat's pile top is known while that seat has not
 * played since, and is remembered in this browser for later (unknown afterwards
 * elsewhere: not named). */
function paidCtxs(d) {
  const v = d.view;
  const id = S.game ? S.game.id : null;
  const all = borrowedSeen();
  const known = (id && all[id]) || {};
  const {ctxs, seen} = paymentsAsPaid(d.log, pilesOfView(v), new Set([v.view_of]), known);
  let learned = false;
  for (const [index, tops] of Object.entries(seen)) {
    for (const [seat, m] of Object.entries(tops)) {
      if ((known[index] || {})[seat] !== m) {
        known[index] = {...known[index], [seat]: m};
        learned = true;
      }
    }
  }
  if (learned && id) {
    delete all[id];
    const kept = Object.keys(all).slice(-29); // the last 30 games' borrowings at most
    localStorage.setItem(BORROWED_KEY, JSON.stringify(
      {...Object.fromEntries(kept.map((g) => [g, all[g]])), [id]: known}));
  }
  return ctxs;
}

/* The game's moves (S.data's log), the first ``upTo`` of them: while the AI's moves are
 * shown one at a time, those shown so far (transition), each added as it is played. */
function renderLog(upTo = Infinity) {
  const d = S.data;
  const log = $("log");
  if (!d) { log.innerHTML = ""; return; }
  const ctx = {cards: S.cards, seatName, discardTop: null, discardTops: null};
  const paid = paidCtxs(d);
  let html = "";
  let lastTurnSeat = null;
  for (const e of d.log.slice(0, upTo)) {
    const newTurn = lastTurnSeat !== e.seat;
    lastTurnSeat = e.seat;
    const who = seatName(e.seat);
    const sentence = actionWords(e.action, {...ctx, ...paid.get(e.index), drawn: e.drawn}, who).slice(who.length);
    html += `<li class="${newTurn ? "newturn" : ""}" style="--seat:${SEAT_COLOR[e.seat % 4]}" data-index="${e.index}">` +
      `<span class="who">${esc(who)}</span>${esc(sentence)}</li>`;
  }
  log.innerHTML = html;
  log.scrollTop = log.scrollHeight;
}

function hintCtx() {
  return {...payCtx(), hidden: hiddenFrom(S.data.view, S.cards)};
}

/* The position a hint was asked in: the number of actions played and the seat's view
 * (an undo and another build reach the same number in another position). */
function hintKey(d) {
  return d ? `${d.actions_applied}:${JSON.stringify(d.view)}` : "";
}

/* Whether the hint is one for the position on the screen. */
function hintCurrent(h) {
  return !!(h && h.result && S.data && h.key === hintKey(S.data));
}

/* The move a hint shows on the table: {take, build: {card, side}, claim: {landmark, card,
 * places}}. A line of the list that merges claims above different cards (mergedClaims:
 * "above H04 or H41") marks every place (``places``: the line's cards). */
function hintMarks() {
  const h = S.hint;
  if (!hintCurrent(h)) return null;
  const shown = S.hintShow || 0;
  const m = h.result.moves[shown];
  if (!m) return null;
  const line = mergedClaims(h.result.moves).find((x) => x.k === shown);
  const marks = {take: [], build: [], claim: []};
  for (const a of m.actions) {
    const w = a.split(/\s+/);
    if (w[0] === "take") marks.take.push(w[1]);
    if (w[0] === "build") marks.build.push({card: w[1], side: w[2]});
    if (w[0] === "claim") {
      const above = line && line.above ? line.above : [w[2]];
      for (const card of above) marks.claim.push({landmark: w[1], card, places: above});
    }
  }
  return marks;
}

/* What an exact move is (the search's last build step): its own final score is exact,
 * its win chance and points are not (the others' hands and last steps are hidden). */
const EXACT_WHY = "Your last build step, solved exactly: no other build, order, side or " +
  "claim gives you a higher final score. The win chance and points are still estimates: " +
  "the other players' hands are hidden.";

/* The hint box written only when it changes (each redraw wrote it again). */
let hintShown = null;
function setHint(html) {
  if (html === hintShown) return;
  hintShown = html;
  $("hint").innerHTML = html;
}

/* A hint's move (a line of mergedClaims) in words: "You take H12 from the Depot, then
 * take ...". */
function hintMoveWords({move: m, above}, ctx) {
  return m.actions.map((a) => actionWords(a.replace(/ pay .*$/, ""), ctx, "You")
    .replace(/ above \S+$/, (x) => (a.startsWith("claim ") && above.length > 1 ? ` above ${orWords(above)}` : x)))
    .join(", then ").replace(/, then You /g, ", then ");
}

/* A hint found, in a few words for a screen reader (the box, its legend and every
 * line's detail are read where they stand, not announced whole). */
function hintSummary() {
  const listed = listedMoves(S.hint.result.moves);
  if (!listed.length) return "The hint found no move.";
  const m = listed[0].move;
  return `Hint: ${hintMoveWords(listed[0], hintCtx())}; win ${pct(m.win_probability)}, ` +
    `${signed(m.expected_margin)} pts` + (listed.length > 1 ? `; ${plural(listed.length - 1, "other move")} listed.` : ".");
}

/* How often the search tried a hint line's move; a line standing for claims above several
 * cards (mergedClaims) says whose visits are whose: "384 visits above H04, 6 above H41"
 * (alike ones together: "384 visits each above H18 and H36, 6 above H38"), or "384 visits
 * each" when all are alike. */
function hintVisitsWords({move: m, members, above}) {
  if (members.every((x) => x.visits === m.visits)) {
    return plural(m.visits, "visit") + (members.length > 1 ? " each" : "");
  }
  const alike = [];
  members.forEach((x, i) => {
    const same = alike.find((g) => g.visits === x.visits);
    if (same) same.cards.push(above[i]); else alike.push({visits: x.visits, cards: [above[i]]});
  });
  return alike.map((g, i) => (i ? String(g.visits) : plural(g.visits, "visit")) +
    (g.cards.length > 1 ? " each" : "") + ` above ${joinWords(g.cards)}`).join(", ");
}

function renderHint() {
  const h = S.hint;
  if (!S.data || S.data.over) { setHint(""); return; }
  if (!h) { setHint("<p class=\"muted\">Ask for the search's best moves here.</p>"); return; }
  if (h.pending) { setHint("<p class=\"muted thinking\">Searching\u2026</p>"); return; }
  if (!hintCurrent(h)) {
    setHint("<p class=\"muted\">Ask for the search's best moves in this position.</p>");
    return;
  }
  const r = h.result;
  // (claims above different cards with the same numbers: one line naming the cards)
  const listed = listedMoves(r.moves);
  const moves = listed.map((x) => x.move);
  const ctx = hintCtx();
  const conf = confidence(moves, S.data.legal_actions, listed.length ? listed[0].members.length : 1,
    r.moves.filter((m) => !m.visits).length);
  const v = S.data.view;
  const shown = S.hintShow || 0;
  const its = r.stats && r.stats.iterations;
  // a search too short ever to give a verdict says that once, with the menu's choices that
  // can give one, in place of the "search longer" of any other short search
  const noVerdict = noVerdictWords(conf, r.budget && r.budget.iterations, $("hint-budget").options,
    "under “search”");
  let html = !conf ? "" : `<p class="conf conf-${conf.cue.replace(/ /g, "-")}"><b>${esc(cap(conf.cue))}</b>` +
    (noVerdict ? `. <span class="noverdict">${esc(noVerdict)}</span></p>` : `: ${esc(conf.why)}.</p>`);
  html += `<ol class="hintlist">`;
  listed.forEach((line) => {
    const {k, move: m, members} = line;
    const words = hintMoveWords(line, ctx);
    const visits = hintVisitsWords(line);
    html += `<li class="${k === shown ? "shown" : ""}"><div class="hintrow"><b>${esc(words)}</b>` +
      (m.exact ? ` <span class="badge exact" title="${EXACT_WHY}">${m.final_score != null
        ? `exact score ${m.final_score}` : "exact"}</span>` : "") + `</div>` +
      // (a move never tried has no numbers: "win 0.0%" read as a sure loss)
      (members.some((x) => x.visits) ? `<div class="hintnums"><span title="estimated chance to win">win ${pct(m.win_probability)}</span>` +
      `<span title="expected score minus the best other score">${signed(m.expected_margin)} pts</span>` +
      `<span class="muted" title="how often the search tried this move">${visits}</span></div>`
        : `<div class="hintnums muted">not searched yet (the search ended before trying it)</div>`) +
      hintMoveDetails(line, moves[0], v, ctx) +
      `<div class="hintbtns"><button type="button" class="playhint" data-hint="${k}">Play this</button>` +
      (k === shown ? `<span class="muted small">shown on the table</span>` :
        `<button type="button" class="showhint" data-showhint="${k}">Show on the table</button>`) +
      `</div></li>`;
  });
  // the numbers said in words once (their titles are not shown on a touch screen)
  const rival = v.seats.length === 2 ? possessive(seatName((v.view_of + 1) % 2)) : "the best other player's";
  html += `</ol><p class="muted small hintlegend">win: your chance to win; pts: your expected ` +
    `final score minus ${esc(rival)}; visits: how often the search tried the move. ` +
    `First the search's choice (the move it tried most), then the other moves it tried most, ` +
    `best first by the search's value: the win chance counting three parts to the points' one` +
    (moves.some((m, k) => moves.slice(0, k).some((up) => m.win_probability >
      up.win_probability && m.expected_margin < up.expected_margin))
      ? ` (so a move lower in the list can show a higher win chance, with fewer points)` : "") +
    (moves.some((m) => m.score_change) ? `; your score as it stands: what the move adds ` +
      `now (Final Scoring applied to your Highway today; the win chance also weighs what ` +
      `it costs you later)` : "") + `.</p>`;
  html += `<p class="muted small">${its ? plural(its, "iteration") + ", " : ""}` +
    `${r.elapsed_ms ? (r.elapsed_ms / 1000).toFixed(1) + " s" : ""}</p>`;
  setHint(html);
}

function renderFinal() {
  const d = S.data;
  const sec = $("final");
  if (!d || !d.over || !d.result) { sec.hidden = true; return; }
  const first = sec.hidden;
  sec.hidden = false;
  if (first) setTimeout(() => sec.scrollIntoView({block: "start"}), 0);
  const sc = d.result.scores;
  const winners = new Set(d.result.winners);
  const rows = [["Stretches", "stretches"], ["2-Mile bonuses", "bonuses"],
    [`Landmarks held <span class="muted small">(1\u20132: 3, 3\u20134: 5, 5+: 8)</span>`, "landmark_count"], ["Landmark abilities", "landmark_abilities"]];
  let html = `<table class="scores"><thead><tr><th scope="col">Category</th>` +
    sc.map((_, i) => `<th scope="col" style="color:${SEAT_COLOR[i % 4]}">${esc(seatName(i))}${winners.has(i) ? " \u2605" : ""}</th>`).join("") +
    `</tr></thead><tbody>`;
  for (const [name, key] of rows) {
    html += `<tr><th scope="row">${name}</th>${sc.map((s) => `<td>${s[key]}</td>`).join("")}</tr>`;
  }
  html += `<tr class="total"><th scope="row">Total</th>${sc.map((s) => `<td>${s.total}</td>`).join("")}</tr>`;
  html += `</tbody></table>`;
  const w = [...winners].map(seatName);
  html += `<p class="winner">${w.length > 1 ? "Shared win: " + esc(w.join(", ")) : esc(w[0]) + (w[0] === "You" ? " win!" : " wins.")}</p>`;
  html += `<details><summary>Every scoring item</summary><div class="details-grid">` +
    sc.map((s, i) => `<div><h3 class="small">${esc(seatName(i))}</h3><ul>` +
      s.details.map((x) => `<li>${x.points} \u2014 ${esc(scoringItemWords(x, S.cards))}${x.cards ? " (" + esc(x.cards.join(" ")) + ")" : ""}</li>`).join("") +
      `</ul></div>`).join("") + `</div></details>`;
  $("final-body").innerHTML = html;
  renderFinalReview();
  if (S.seedFor !== S.game.id) {
    S.seedFor = S.game.id;
    $("final-seed").textContent = "";
    recordText(S.game.id, activeToken(null)).then((text) => {
      const seed = seedOfRecordText(text);
      if (seed) $("final-seed").textContent = `Seed ${seed} (New game \u203a Advanced deals this game again).`;
    }).catch(() => {});
  }
  startOrPickUpReview(); // the review starts by itself
}

async function refreshScores() {
  const d = S.data;
  if (!d) return;
  if (d.over && d.result) { S.scores = {n: d.actions_applied, scores: d.result.scores}; return; }
  if (S.scores && S.scores.n === d.actions_applied) return;
  try {
    const r = await api("POST", "/v1/score", {position: d.view});
    S.scores = {n: d.actions_applied, scores: r.scores};
  } catch (e) {
    S.scores = null;
  }
}

async function renderGame() {
  const d = S.data;
  if (!d) return;
  // the AI's moves being shown own the table (a key or click meanwhile drew the next
  // turn's between two of them): the change is drawn after them (transition)
  if (S.animating) { renderHint(); restoreFocus(); return; }
  await refreshScores();
  const t = tableFromView(d.view);
  renderTable(t, {legal: d.legal_actions, scores: S.scores ? S.scores.scores : []});
  renderActions();
  renderLog();
  renderHint();
  renderFinal();
  $("hint-btn").disabled = !d.your_turn || d.over;
  $("nav-game").hidden = false;
  restoreFocus();
}

// ------------------------------------------------------------------ playing
/* The game as the seat to act sees it; ``wait`` (seconds): a long-poll, answered once no
 * AI seat is thinking (or the game is over, or that long passed; the server cuts it to
 * its BIGSUR_AI_WAIT_SECONDS). A server refusing the parameter (422 naming it) is asked
 * at once from then on. */
let longPoll = true;
async function fetchGame(wait = 0) {
  const token = activeToken(S.data ? S.data.to_act : null);
  const path = `/v1/games/${encodeURIComponent(S.game.id)}`;
  let d = null;
  if (wait && longPoll) {
    try {
      d = await api("GET", `${path}?wait=${wait}`, undefined, token);
    } catch (e) {
      if (!(e instanceof ApiError && e.status === 422 && e.field === "wait")) throw e;
      longPoll = false;
    }
  }
  if (!d) d = await api("GET", path, undefined, token);
  // hot-seat: look from the seat to act when it is one of ours
  if (!d.over && d.to_act !== d.seat && tokenFor(d.to_act) !== undefined) {
    d = await api("GET", path, undefined, tokenFor(d.to_act));
  }
  return d;
}

/* While the AI thinks: one long-poll until it is done, not a GET every 400 ms (the pause
 * stays between two asks: a server that ignores ``wait`` is asked as often as before, and
 * one whose AI stopped, answering at once, no more often). Not ``since``: it answers at
 * each AI action, and the page shows the AI's moves once they are all made. */
const AI_LONG_POLL = 25;
async function waitForAI(d) {
  while (d && d.ai_thinking && !d.over) {
    await sleep(400);
    d = await fetchGame(AI_LONG_POLL);
  }
  return d;
}

/* Show the moves between two seat responses, AI moves one by one, then the new table. */
async function transition(prev, next) {
  const speed = Number($("ai-speed").value);
  const fresh = next.log.slice(prev ? prev.log.length : next.log.length);
  const others = fresh.filter((e) => S.game.tokens[e.seat] === undefined);
  S.data = next;
  // the others' moves not shown one by one (instant, skipped) said in one go
  const sayAll = (moves) => announce(moves.map((e) =>
    actionWords(e.action, {cards: S.cards, seatName}, seatName(e.seat))).join("; "));
  if (!prev || speed === 0 || !others.length || prev.seat !== next.seat) {
    await renderGame();
    if (prev && others.length) sayAll(others);
    return;
  }
  S.animating = true;
  S.skip = false;
  $("skip-btn").hidden = false;
  renderActions();
  // the log as far as the table shows: the player's own moves, not yet the others'
  const shownFirst = fresh.findIndex((e) => e.seat !== next.seat);
  renderLog(prev.log.length + shownFirst);
  restoreFocus(); // (the action bar drawn anew: the status line, which says each move)
  const t = tableFromView(prev.view);
  const after = tableFromView(next.view);
  // my own seat cannot change during others' moves: show it as it is now
  t.seats[next.seat] = after.seats[next.seat];
  // a seat's hand and discard counts follow each step (a build's log entry says how many
  // hand cards it paid with and which known ones), its pile's top Material too (the pile
  // only grows: its top then is that place of next's pile); its points and Stretches
  // follow each build or claim (stepScores). From the step that ends its last turn of
  // these moves, the seat is shown as next's view has it (the same, or a log without
  // the payments' counts catching up)
  const lastEnd = {};
  fresh.forEach((e, j) => { if (e.action === "end" || e.action.startsWith("claim ")) lastEnd[e.seat] = j; });
  const scores = S.scores ? S.scores.scores.slice() : [];
  let scoresAfter = null;
  // a build or claim brings that Highway into view (3-4 players on a laptop: below the
  // fold), and the page goes back to where the player had it once the AI is done;
  // never after the player scrolled meanwhile
  const startY = window.scrollY;
  let ourY = startY;
  const skipped = [];
  try { // (from here on: whatever fails, the moves end and the keys act again)
    const [after1, steps] = await Promise.all([
      next.over ? null : api("POST", "/v1/score", {position: next.view}).catch(() => null),
      stepScores(prev, next, fresh)]);
    if (after1) scoresAfter = after1.scores; // (else the points as they were until the moves are shown)
    if (next.over && next.result) scoresAfter = next.result.scores;
    for (const [j, e] of fresh.entries()) {
      applyPublic(t, e);
      const seat = t.seats[e.seat];
      if (e.cards_spent && e.seat !== next.seat) {
        seat.discardTopMaterial = next.view.seats[e.seat].discard.materials[seat.discardCount - 1] ||
          seat.discardTopMaterial;
      }
      if (steps[j]) scores[e.seat] = steps[j];
      if (lastEnd[e.seat] === j && e.seat !== next.seat) {
        const a = after.seats[e.seat];
        Object.assign(seat, {handCount: a.handCount, known: a.known, discardCount: a.discardCount,
          discardTop: a.discardTop, discardTopMaterial: a.discardTopMaterial});
        if (scoresAfter) scores[e.seat] = scoresAfter[e.seat];
      }
      if (S.skip && e.seat !== next.seat) skipped.push(e);
      if (e.seat === next.seat || S.skip) continue;
      const [verb, card] = e.action.split(" ");
      const caption = actionWords(e.action, {cards: S.cards, seatName}, seatName(e.seat));
      renderTable(t, {animating: true, caption,
        highlight: verb === "build" ? {seat: e.seat, card} : null, scores});
      restoreFocus();
      renderLog(prev.log.length + j + 1);
      highlightLog(e.index);
      const seatEl = document.querySelector(`#seats .seat[data-seat="${e.seat}"]`);
      if ((verb === "build" || verb === "claim") && seatEl && window.scrollY === ourY) {
        seatEl.scrollIntoView({block: "nearest"});
        ourY = window.scrollY;
      }
      await sleepSkippable(speed);
    }
  } finally {
    S.animating = false;
    $("skip-btn").hidden = true;
  }
  if (scoresAfter && !next.over) S.scores = {n: next.actions_applied, scores: scoresAfter}; // (asked once)
  const back = ourY !== startY && window.scrollY === ourY; // (before the table changes height)
  await renderGame();
  if (skipped.length) sayAll(skipped);
  if (back) window.scrollTo(window.scrollX, startY);
}

/* The points of another seat after each of its builds and claims among ``fresh`` (the log
 * entries from ``prev`` to ``next``), by the log's index in ``fresh``: each asked of the
 * server (POST /v1/score) with next's view, that seat's Highway and Landmarks as they
 * stood at that step (the cards it built later back in its hidden hand, the Landmarks
 * it claimed later in the Landmark deck: a Highway scores by itself). A step the server
 * does not score (a view it refuses, an answer without its scores) has none. */
async function stepScores(prev, next, fresh) {
  const t = tableFromView(prev.view);
  const asks = fresh.map((e) => {
    applyPublic(t, e);
    const verb = e.action.split(" ")[0];
    if (e.seat === next.seat || (verb !== "build" && verb !== "claim")) return null;
    const v = structuredClone(next.view), s = v.seats[e.seat], then = t.seats[e.seat];
    if (then.highway.length > s.highway.length || then.landmarks.length > s.landmarks.length) return null;
    s.hand.count += s.highway.length - then.highway.length;
    v.landmark_deck.count += s.landmarks.length - then.landmarks.length;
    s.highway = then.highway.slice();
    s.landmarks = then.landmarks.map((x) => ({...x}));
    return api("POST", "/v1/score", {position: v}).then((r) => r.scores[e.seat]).catch(() => null);
  });
  return Promise.all(asks);
}

async function sleepSkippable(ms) {
  const end = Date.now() + ms;
  while (!S.skip && Date.now() < end) await sleep(Math.min(40, end - Date.now()));
}

function highlightLog(index) {
  for (const li of $("log").querySelectorAll("li.now")) li.classList.remove("now");
  const li = $("log").querySelector(`li[data-index="${index}"]`);
  if (li) {
    li.classList.add("now");
    const log = $("log"); // scroll the list only, never the page
    log.scrollTop = Math.max(0, li.offsetTop - log.offsetTop - log.clientHeight / 2);
  }
}

let actionCounter = 0;

/* What an action tried too early is told (a key pressed again quickly): said until the
 * action before it has landed, then taken away (clearWaitNotice). */
const WAIT_AI = "Wait for the AI's moves to finish (or press Esc to skip).";
const WAIT_SENT = "Wait: the previous action is still on its way to the server.";
/* While a turn ended is on its way and the AI to play next thinks (as the status line says). */
const waitSent = () => (S.thinking ? `Wait: ${S.thinking} is thinking; its moves are shown next.` : WAIT_SENT);

function clearWaitNotice() {
  const said = $("alert-text").textContent;
  if ([WAIT_AI, WAIT_SENT].includes(said) || /^Wait: .* is thinking; its moves are shown next\.$/.test(said)) clearError();
}

/* Send one action; the server checks it (its 4xx message is shown when refused). */
/* Send the move ``text`` of the player to act; a refusal is given to ``refused`` (the
 * page's alert, else the payment panel's own line). True when it was played. */
async function act(text, refused = showError) {
  if (!S.data || !S.game) return false;
  if (S.animating) { showError(WAIT_AI); return false; }
  if (S.busy) { showError(waitSent()); return false; }
  clearError();
  S.busy = true;
  setBusy(true);
  const prev = S.data;
  const token = activeToken(prev.to_act);
  const endsTurn = text === "end" || text.startsWith("claim ");
  const next = (prev.view.current + 1) % prev.players;
  S.thinking = endsTurn && S.game.tokens[next] === undefined ? seatName(next) : null;
  const waitFor = S.thinking ? `${esc(S.thinking)} is thinking\u2026` : "Sending your move\u2026";
  setStatus(`<span class="thinking"><b>${waitFor}</b></span>`);
  try {
    const actionId = `${S.game.id}:${prev.actions_applied}:${Date.now()}:${++actionCounter}`;
    let d = await api("POST", `/v1/games/${encodeURIComponent(S.game.id)}/actions`,
      {action: text, action_id: actionId}, token);
    d = await waitForAI(d);
    S.thinking = null; // (its moves come)
    if (!d.over && d.to_act !== d.seat && tokenFor(d.to_act) !== undefined) d = await fetchGame();
    // the card selected is kept while the turn goes on (one chosen at the take step: for
    // the build step), not into another turn
    const turnGoesOn = d.actions_applied === prev.actions_applied + 1 &&
      (d.view.phase === "build" || (d.view.phase === "take" && prev.view.phase === "take"));
    if (!turnGoesOn) S.selected = null;
    S.payment = null;
    // the player's own move said, as the AI's are (its status line may not change)
    const own = d.log.slice(prev.log.length).filter((e) => e.seat === prev.view.current);
    announce(own.map((e) => actionWords(e.action, {cards: S.cards, seatName, ...payCtx()}, seatName(e.seat))).join("; "));
    await transition(prev, d);
    return true;
  } catch (e) {
    refused(e);
    if (S.data === prev) await renderGame(); // the status line says whose turn it is again
    return false;
  } finally {
    S.busy = false;
    S.thinking = null;
    setBusy(false);
    clearWaitNotice(); // (a refusal of this action stays: it is not a wait)
  }
}

/* body.busy: an action is on its way or being shown (tests wait for it to clear). */
let busyDepth = 0;
function setBusy(on) {
  busyDepth = Math.max(0, busyDepth + (on ? 1 : -1));
  document.body.classList.toggle("busy", busyDepth > 0);
}

async function playHint(k) {
  const h = S.hint;
  if (!hintCurrent(h)) return;
  const move = h.result.moves[k];
  setBusy(true);
  try {
    for (const a of move.actions) {
      const ok = await act(a);
      if (!ok) break;
    }
  } finally {
    setBusy(false);
  }
}

/* The last hint of the tab's game, kept for a reload (sessionStorage; shown again only
 * in the position it was asked in, hintCurrent). */
const HINT_KEY = "bigsur.hint";
function keepHint() {
  try {
    sessionStorage.setItem(HINT_KEY, JSON.stringify({gameId: S.game.id, ...S.hint}));
  } catch (e) { /* too large to keep: searched again when asked */ }
}
function keptHint() {
  let h = null;
  try { h = JSON.parse(sessionStorage.getItem(HINT_KEY) || "null"); } catch (e) { h = null; }
  return h && S.game && h.gameId === S.game.id ? {n: h.n, key: h.key, result: h.result} : null;
}

async function askHint() {
  const d = S.data;
  if (!d || d.over) return;
  // the AI's moves being shown: a hint would name cards the table has not shown yet
  if (S.animating) { showError(WAIT_AI); return; }
  if (!d.your_turn) { showError("A hint is for your own turn."); return; }
  // an action on its way: the position it would search is about to change
  if (S.busy) { showError(waitSent()); return; }
  if (S.hint && S.hint.pending) return; // one search at a time
  clearError();
  const [kind, val] = $("hint-budget").value.split(":");
  S.hint = {pending: true};
  renderHint();
  announce("Searching for a hint\u2026");
  try {
    const result = await api("POST", `/v1/games/${encodeURIComponent(S.game.id)}/hint`,
      {budget: {[kind]: Number(val)}, seed: d.actions_applied}, activeToken(d.to_act));
    S.hint = {n: d.actions_applied, key: hintKey(d), result};
    S.hintShow = 0;
    keepHint();
    if (S.data === d) announce(hintSummary());
  } catch (e) {
    S.hint = null;
    showError(e);
  }
  if (S.data === d) await renderGame(); else { renderHint(); restoreFocus(); } // marks the move on the table
}

/* Undo: the server takes back the last build of this turn (games against the AI). */
function canUndo() {
  const d = S.data;
  if (!d || d.over || !d.your_turn || d.view.phase !== "build" || !d.log.length) return false;
  const last = d.log[d.log.length - 1];
  return last.seat === d.seat && last.action.startsWith("build ") &&
    d.seats.every((x) => x.seat === d.seat || x.kind === "ai");
}

async function undo() {
  if (!canUndo()) { showError("Only a build of this turn can be undone (in games against the AI)."); return; }
  if (S.busy || S.animating) return;
  clearError();
  S.busy = true;
  setBusy(true);
  const undone = S.data.log[S.data.log.length - 1].action.split(/\s+/)[1]; // the card back in hand
  try {
    const d = await api("POST", `/v1/games/${encodeURIComponent(S.game.id)}/undo`, undefined,
      activeToken(S.data.to_act));
    S.data = d;
    S.selected = null;
    S.payment = null;
    wantFocus(`#hand .cardbtn[data-select="${CSS.escape(undone)}"]`); // the card back in hand
    await renderGame();
  } catch (e) {
    showError(e);
  } finally {
    S.busy = false;
    setBusy(false);
  }
}

function build(side) {
  if (!S.selected) { showError("Select a card of your hand first ([ and ] or click it)."); return; }
  const v = S.data.view;
  if (!v.seats[v.view_of].highway.length) side = "L"; // the first card starts the road
  act(`build ${S.selected} ${side}`);
}

// -------------------------------------------------- click-to-pay
/* The payment panel opens when a hand card is selected in the build step: the cost as
 * chips that fill as sources are clicked (hand cards, 3-for-1, Recycling, Persistent
 * Materials, borrowed Materials), what is still needed, and the cheapest payment the
 * server suggests, in words. The server checks the payment when the card is built. */
function payCtx() {
  const v = S.data.view;
  const me = v.seats[v.view_of];
  const tops = v.seats.map((x, i) => i === v.view_of
    ? (me.discard.length ? matOf(me.discard[me.discard.length - 1]) : null)
    : (x.discard.materials.length ? x.discard.materials[x.discard.materials.length - 1] : null));
  return {cards: S.cards, seatName, discardTop: me.discard.length ? me.discard[me.discard.length - 1] : null,
    discardTops: tops};
}

function ownAbilities() {
  const v = S.data.view;
  const kinds = new Set();
  for (const l of v.seats[v.view_of].landmarks) {
    const lm = S.cards.landmarks[l.landmark];
    if (lm) kinds.add(lm.ability.kind);
  }
  return kinds;
}

/* The player's own Landmarks with the ability ``kind`` (Landmark cards). */
function ownLandmarksWith(kind) {
  const v = S.data.view;
  return v.seats[v.view_of].landmarks.map((l) => S.cards.landmarks[l.landmark])
    .filter((lm) => lm && lm.ability.kind === kind);
}

/* A borrowing ability (borrow_highway / borrow_discard): its Landmarks' names, the uses
 * it allows a turn, those left for the payment being clicked, and whether this turn's
 * earlier builds used it up. */
function borrowing(kind) {
  const lms = ownLandmarksWith(kind);
  const allowed = lms.reduce((n, lm) => n + (lm.ability.uses || 1), 0);
  const usedTurn = (S.data.view.per_turn.resources_used || {})[kind] || 0;
  const steps = S.payment ? S.payment.steps : [];
  return {names: joinWords(lms.map((lm) => lm.name)), allowed,
    left: borrowsLeft(kind, steps, usedTurn, allowed), usedUp: usedTurn >= allowed};
}

/* Why a borrowing step cannot be added, in words (once a turn, or as often as the
 * Landmarks allow). */
function borrowRefusal(kind) {
  const b = borrowing(kind);
  const what = kind === "borrow_highway" ? "a Persistent Material of another player's Highway"
    : "the top of another player's discard pile";
  const often = b.allowed === 1 ? "once a turn" : `${b.allowed} times a turn`;
  return b.usedUp
    ? `${b.names} lets you borrow ${what} ${often}, and you have borrowed this turn.`
    : `${b.names} lets you borrow ${what} ${often}: this payment already borrows ` +
      `${b.allowed === 1 ? "once" : b.allowed + " times"} (remove that step with \u00d7 to borrow another).`;
}

/* Why a Landmark of the row cannot be claimed now (none of the legal actions claims it). */
function unclaimableWhy(id) {
  const l = S.cards.landmarks[id];
  const name = l ? `${l.name} (${id})` : id;
  if (!S.data.your_turn || S.data.view.phase !== "build") {
    return `${name} can be claimed in your build step, after your two takes.`;
  }
  const scenery = l ? `${l.scenery} ` : "";
  return `You cannot claim ${name} now: it needs a Stretch in your Highway, 3 or more ` +
    `${scenery}icons on neighbouring cards, not used for another Landmark.`;
}

/* Extra uses of Persistent Materials a turn that the player's own Landmarks allow. */
function extraPersistentUses() {
  return ownLandmarksWith("persistent_extra_use").reduce((n, lm) => n + (lm.ability.uses || 1), 0);
}

function renderPay() {
  const box = $("paybox");
  const d = S.data;
  const sel = S.selected;
  if (!d || d.over || !d.your_turn || S.animating || d.view.phase !== "build" || !sel ||
      !S.cards.highway[sel]) { closePay(); return; }
  const opened = !S.payment || S.payment.card !== sel; // a card just selected for building
  if (opened) S.payment = {card: sel, steps: [], sub: null};
  const P = S.payment;
  const v = d.view;
  const me = v.seats[v.view_of];
  const c = S.cards.highway[sel];
  const ctx = payCtx();
  const st = payState(c.cost, P.steps, ctx);
  const used = new Set(cardsUsed(P.steps));
  const inSub = new Set(P.sub || []);
  const sugg = d.payments && d.payments[sel];
  let html = `<div class="payhead"><span><b>Pay for ${esc(sel)}</b> (${c.miles} mi, ${esc(c.scenery.join(" + "))})</span>` +
    `<span class="paychips" aria-label="Cost">` + st.chips.map((ch) =>
      `<span class="paychip${ch.step ? " filled" : ""}" title="${esc(ch.step ? ch.material + ": " + ch.words : ch.material + ": not paid yet")}">` +
      `${matIcon(ch.material)}${ch.step ? " \u2713" : ""}</span>`).join("") + `</span>` +
    `<span id="pay-need" class="${st.need.length || st.extra.length ? "need" : "paid"}">${
      st.extra.length ? esc(notNeededWords(sel, st.extra))
        : st.need.length ? "Still need: " + st.need.map((m) => matIcon(m)).join(" ")
          : "Paid in full."}</span></div>`;
  if (sugg) {
    html += `<p class="paysugg">Cheapest: ${esc(paymentSentence(sugg.steps, ctx))}. ` +
      `<button type="button" data-paysuggest="1">Fill it in</button> ` +
      (v.seats[v.view_of].highway.length
        ? `<button type="button" data-build="L">Build left with it</button> <button type="button" data-build="R">Build right with it</button>`
        : `<button type="button" data-build="L">Build with it</button>`) + `</p>`;
  } else {
    html += `<p class="paysugg need">You cannot pay for ${esc(sel)} now.</p>`;
  }
  // sources
  const others = me.hand.filter((h, i) => h !== sel || me.hand.indexOf(h) !== i);
  html += `<div class="paysrc" role="group" aria-label="Pay with">` +
    `<span class="muted small">${P.sub ? `3-for-1: choose 3 cards (${P.sub.length} chosen)` : "Pay with:"}</span>` +
    others.map((h) => {
      const m = S.cards.highway[h].material;
      const on = P.sub ? inSub.has(h) : used.has(h);
      const dis = P.sub ? used.has(h) : false;
      return `<button type="button" class="srcbtn${on ? " on" : ""}" data-paystep="${esc(h)}" ` +
        `aria-pressed="${on}" ${dis ? "aria-disabled=\"true\"" : ""} title="${esc(cardWords(h))}">${matIcon(m, true)} ${esc(h)}</button>`;
    }).join("");
  if (P.sub && P.sub.length === 3) {
    html += `<span class="submats">for: ` + MATERIALS.map((m) =>
      `<button type="button" class="srcbtn${st.need.includes(m) ? " want" : ""}" data-submat="${m}">${matIcon(m)}</button>`).join("") + `</span>`;
  }
  if (!P.sub) {
    html += `<button type="button" class="srcbtn" data-paysub="1" ${others.length - used.size < 3 ? "aria-disabled=\"true\"" : ""} ` +
      `title="discard any 3 hand cards for one Material of your choice">3-for-1\u2026</button>`;
    const top = ctx.discardTop;
    // a card discarded earlier in this payment is on top by then, even on an empty pile
    if (top || used.size || P.steps.includes("rec")) {
      const recUsed = v.per_turn.recycle_used || P.steps.includes("rec");
      html += `<button type="button" class="srcbtn${P.steps.includes("rec") ? " on" : ""}" data-paystep="rec" ` +
        `${v.per_turn.recycle_used ? "aria-disabled=\"true\"" : ""} title="the Material on top of your discard pile, once a turn">` +
        `Recycle ${matIcon(stepsInWords(P.steps.concat(["rec"]), ctx).pop().material || matOf(top), true)}${recUsed && !P.steps.includes("rec") ? " (used)" : ""}</button>`;
    }
    const usedPer = v.per_turn.persistent_used || {};
    for (const h of me.highway) {
      const hc = S.cards.highway[h];
      if (!hc || !hc.persistent) continue;
      const uses = P.steps.filter((x) => x === "per:" + h).length;
      html += `<button type="button" class="srcbtn${uses ? " on" : ""}" data-paystep="per:${esc(h)}" ` +
        `title="the Persistent Material of ${esc(h)} in your Highway, once a turn${extraPersistentUses() ? " (your Landmarks allow extra uses: click again for another)" : ""}">` +
        `Persistent ${matIcon(hc.persistent, true)} ${esc(h)}${uses > 1 ? ` (${uses} uses)` : usedPer[h] ? " (used)" : ""}</button>`;
    }
    const ab = ownAbilities();
    // a borrowing used up by this turn's earlier builds: shown used, a click says why
    const usedUp = (kind) => borrowing(kind).usedUp
      ? [" aria-disabled=\"true\"", " (used)"] : ["", ""];
    v.seats.forEach((x, i) => {
      if (i === v.view_of) return;
      if (ab.has("borrow_highway")) {
        const [dis, used] = usedUp("borrow_highway");
        for (const h of x.highway) {
          const hc = S.cards.highway[h];
          if (!hc || !hc.persistent) continue;
          const step = `bh:${i}:${h}`;
          html += `<button type="button" class="srcbtn${P.steps.includes(step) ? " on" : ""}" data-paystep="${esc(step)}"${dis} ` +
            `title="Landmark ability (${esc(borrowing("borrow_highway").names)}): a Persistent Material of another player's Highway">Borrow ${matIcon(hc.persistent, true)} ${esc(h)} (${esc(seatName(i))})${used}</button>`;
        }
      }
      if (ab.has("borrow_discard") && ctx.discardTops[i]) {
        const [dis, used] = usedUp("borrow_discard");
        const step = `bd:${i}`;
        html += `<button type="button" class="srcbtn${P.steps.includes(step) ? " on" : ""}" data-paystep="${esc(step)}"${dis} ` +
          `title="Landmark ability (${esc(borrowing("borrow_discard").names)}): the top Material of another player's discard pile">Borrow ${matIcon(ctx.discardTops[i], true)} from ${esc(possessive(seatName(i)))} discard${used}</button>`;
      }
    });
  } else {
    html += `<button type="button" class="srcbtn" data-paysub="0">Cancel 3-for-1</button>`;
  }
  html += `</div>`;
  if (P.steps.length) {
    html += `<ol class="paysteps">` + stepsInWords(P.steps, ctx).map((x, k) =>
      `<li>${esc(x.words)}${st.extra.some((e) => e.step === x.step) ? ` <span class="warn">(${esc(sel)} does not need ${esc(x.material || "it")})</span>` : ""} ` +
      `<button type="button" class="linkish" data-payundo="${k}" aria-label="Remove this step">\u00d7</button></li>`).join("") + `</ol>`;
  }
  const noRoad = me.highway.length === 0;
  const unpayable = sugg ? "" : " aria-disabled=\"true\"";  // no payment can make it
  if (P.refusal) html += `<p class="bad" id="pay-refusal">${esc(P.refusal)}</p>`;
  html += `<div class="actionbar">` + (noRoad
    ? `<button type="button" class="primary" data-paybuild="L"${unpayable}>Build with this payment</button>`
    : `<button type="button" class="primary" data-paybuild="L"${unpayable}>Build left with this payment</button>` +
      `<button type="button" class="primary" data-paybuild="R"${unpayable}>Build right with this payment</button>`) +
    (P.steps.length ? `<button type="button" data-payclear="1">Clear</button>` : "") + `</div>`;
  box.innerHTML = html;
  box.hidden = false;
  // its Build button on the screen (it opened below the fold at 1280x800): the page moved
  // only when the box is not all in view, the focus left where it is (as an AI's build)
  if (opened) box.scrollIntoView({block: "nearest"});
  // "Still need" / "Paid in full" said when it changes (the box is drawn anew each click)
  const need = st.extra.length ? notNeededWords(sel, st.extra)
    : `${sel}: ${st.need.length ? "still need " + st.need.join(", ") : "paid in full"}.`;
  if (need !== needSaid) { needSaid = need; announce(cap(need)); }
}
let needSaid = null;

/* The steps of a payment that supply a Material its card does not need (any more), in
 * words: the server refuses such a payment, so the panel does not send it. */
function notNeededWords(card, extra) {
  const what = joinWords(extra.map((x) => `${x.material || "a Material"} (${x.words})`));
  return `Not payable as clicked: ${card} does not need ${what}. ` +
    `Remove ${extra.length > 1 ? "those steps" : "that step"} with \u00d7.`;
}

/* Why a hand card cannot be one of the 3 cards of a 3-for-1: the payment already
 * discards it (the step in words, and how to free the card). */
function usedInPayment(card) {
  const step = S.payment.steps.find((x) => cardsUsed([x]).includes(card));
  const words = step ? stepsInWords([step], payCtx())[0].words : "discarded";
  return `${card} is already in this payment (${words}): remove that step with \u00d7 ` +
    "to use it in the 3-for-1.";
}

function closePay() {
  S.payment = null;
  needSaid = null;
  const b = $("paybox");
  b.hidden = true;
  b.innerHTML = "";
}

function payClick(ds) {
  const P = S.payment;
  if (!P) return false;
  if (!ds.paybuild) P.refusal = null; // said of the payment as it was
  if (ds.paystep) {
    const step = ds.paystep;
    if (P.sub) {
      const i = P.sub.indexOf(step);
      if (i >= 0) P.sub.splice(i, 1); else if (P.sub.length < 3) P.sub.push(step);
    } else if (S.cards.highway[step]) {
      const k = P.steps.indexOf(step);
      if (k >= 0) P.steps.splice(k, 1);
      else {
        const k2 = P.steps.findIndex((x) => x.startsWith("sub:") && x.includes(step));
        if (k2 >= 0) P.steps.splice(k2, 1); else P.steps.push(step);
      }
    } else if (step.startsWith("per:")) {
      // once a turn, again while the Landmarks allow extra uses; then a click takes them away
      const perTurn = S.data.view.per_turn.persistent_used || {};
      if (persistentUseFits(step.slice(4), P.steps, perTurn, extraPersistentUses())) P.steps.push(step);
      else if (P.steps.includes(step)) P.steps = P.steps.filter((x) => x !== step);
      else {
        showError(`The Persistent Material of ${step.slice(4)} is used once a turn, and you have used it this turn.`);
        return true;
      }
    } else {
      const k = P.steps.indexOf(step);
      const kind = step.startsWith("bh:") ? "borrow_highway" : step.startsWith("bd:") ? "borrow_discard" : null;
      if (k >= 0) P.steps.splice(k, 1);
      else if (kind && !borrowing(kind).left) { showError(borrowRefusal(kind)); return true; }
      else P.steps.push(step);
    }
  } else if (ds.paysub !== undefined) {
    P.sub = ds.paysub === "1" ? [] : null;
  } else if (ds.submat) {
    if (P.sub && P.sub.length === 3) {
      // the card on top afterwards one whose Material is still needed, for the Recycle
      const step = (cards) => `sub:${cards.join("+")}=${ds.submat}`;
      const need = payState(S.cards.highway[P.card].cost, P.steps.concat([step(P.sub)]), payCtx()).need;
      const recycleFree = !S.data.view.per_turn.recycle_used && !P.steps.includes("rec");
      P.steps.push(step(substitutionOrder(P.sub, (h) => S.cards.highway[h].material, need, recycleFree)));
    }
    P.sub = null;
  } else if (ds.payundo !== undefined) {
    P.steps.splice(Number(ds.payundo), 1);
  } else if (ds.payclear) {
    P.steps = []; P.sub = null;
  } else if (ds.paysuggest) {
    const sugg = S.data.payments && S.data.payments[P.card];
    if (sugg) { P.steps = sugg.steps.slice(); P.sub = null; }
  } else if (ds.paybuild) {
    payBuild(ds.paybuild);
    return true;
  } else return false;
  renderPay();
  refocusPay(ds);
  return true;
}

/* The payment box is drawn anew on each click: the keyboard focus goes back to the same
 * control (the same source, "Fill it in"), or, when that is gone (a 3-for-1 started or
 * finished, a step cleared), to the first source. */
const PAY_KEYS = ["paystep", "paysub", "submat", "payundo", "payclear", "paysuggest"];
function refocusPay(ds) {
  const box = $("paybox");
  if (box.hidden) return;
  const key = PAY_KEYS.find((k) => ds[k] !== undefined);
  const same = key && [...box.querySelectorAll("button")].find((b) => b.dataset[key] === ds[key]);
  const b = same || box.querySelector(".paysrc .srcbtn") || box.querySelector("button");
  if (b) b.focus();
}

/* Build the selected card with the payment clicked. A payment the panel knows is wrong
 * is not sent; why it is wrong, or why the server refused it, is said in the panel, by
 * its Build buttons (the page's alert is at the top, off the screen), the focus on them. */
async function payBuild(side) {
  const P = S.payment;
  const v = S.data.view;
  const c = S.cards.highway[P.card];
  const st = payState(c.cost, P.steps, payCtx());
  const refuse = (text) => {
    if (S.payment !== P) { showError(text); return; } // (the panel is gone)
    P.refusal = text;
    announce(text);
    renderPay();
    $("pay-refusal").scrollIntoView({block: "nearest"});
    const again = $("paybox").querySelector(`[data-paybuild="${side}"]`);
    if (again && !$("paybox").contains(document.activeElement)) again.focus();
  };
  if (P.sub) { refuse("Finish the 3-for-1 first: choose 3 cards, then the Material they give."); return; }
  if (st.extra.length) { refuse(notNeededWords(P.card, st.extra)); return; }
  if (st.need.length) {
    refuse(`Still need ${joinWords(st.need)} for ${P.card}: click a card of your hand, ` +
      "Recycling, a Persistent Material or 3-for-1 \u2014 or use the cheapest payment.");
    return;
  }
  if (!v.seats[v.view_of].highway.length) side = "L"; // the first card starts the road
  let refusal = null;
  await act(`build ${P.card} ${side} pay ${P.steps.join(" ")}`, (e) => { refusal = errorText(e); });
  if (refusal) refuse(refusal);
}

// ------------------------------------------------------------------ setup
function renderSeatChoices() {
  const n = Number($("setup-players").value);
  const box = $("setup-seats");
  const old = [...box.querySelectorAll("select")].map((x) => x.value);
  const oldNames = [...box.querySelectorAll("input")].map((x) => x.value);
  let html = "";
  for (let i = 0; i < n; i++) {
    const val = old[i] || (i === 0 ? "human" : DEFAULT_AI);
    const choices = i === 0 ? [["human", "you"]].concat(AI_CHOICES.slice(1)) : AI_CHOICES;
    html += `<div class="seatrow"><label for="name-${i}" class="sr">Name of player ${i + 1}</label>` +
      `<input id="name-${i}" class="seatname" type="text" maxlength="24" spellcheck="false" ` +
      `placeholder="${i === 0 ? "You" : "Player " + (i + 1)}" value="${esc(oldNames[i] || "")}">` +
      `<label for="seat-${i}" class="sr">Who is player ${i + 1}</label>` +
      `<select id="seat-${i}" data-seat="${i}">` +
      choices.map(([v, l]) => `<option value="${v}"${v === val ? " selected" : ""}>${l}</option>`).join("") +
      `</select></div>`;
  }
  box.innerHTML = html;
}

/* A seat's name when none is typed at the setup: "You" for the one person at the page
 * (at any seat), "Player N" for each person of a hot seat, the AI by its level. */
function defaultName(i, spec, hotSeat = false) {
  if (spec === "human") return hotSeat ? `Player ${i + 1}` : "You";
  return `AI ${i + 1} (${levelOf(spec)})`;
}

/* Games this browser started on this server (ids and seat tokens): resume or review. */
function savedGames() {
  try { return JSON.parse(localStorage.getItem(GAMES_KEY) || "[]"); } catch (e) { return []; }
}

function rememberGame(game) {
  const list = savedGames().filter((x) => x.id !== game.id);
  list.unshift({id: game.id, tokens: game.tokens, cards: game.cards, names: game.names,
    started: game.started || Date.now(), players: game.players});
  localStorage.setItem(GAMES_KEY, JSON.stringify(list.slice(0, 30)));
}

async function renderGamesList() {
  const list = savedGames();
  const box = $("games-list");
  if (!list.length) { box.innerHTML = `<li class="muted">None yet.</li>`; return; }
  const rows = await Promise.all(list.slice(0, 12).map(async (g) => {
    const token = Object.values(g.tokens)[0];
    try {
      const d = await api("GET", `/v1/games/${encodeURIComponent(g.id)}`, undefined, token);
      return {g, d};
    } catch (e) {
      return {g, d: null, gone: e instanceof ApiError && [403, 404].includes(e.status)};
    }
  }));
  const keep = rows.filter((r) => !r.gone).map((r) => r.g);
  if (keep.length !== list.slice(0, 12).length) {
    localStorage.setItem(GAMES_KEY, JSON.stringify(keep.concat(list.slice(12))));
    $("setup-resume").hidden = !(S.view === "setup" && gameInProgress()); // (one gone)
  }
  box.innerHTML = rows.filter((r) => r.d).map(({g, d}) => {
    const names = (g.names || []).join(" vs ") || `${d.players} players`;
    const when = new Date(g.started).toLocaleString([], {dateStyle: "short", timeStyle: "short"});
    let state;
    if (d.over) {
      const sc = d.result.scores.map((x) => x.total).join(" : ");
      state = `finished, ${sc}`;
    } else state = `round ${roundOf(d.view.turn, d.players)}, in progress`; // as the table says
    return `<li><span class="gname">${esc(names)}</span> <span class="muted small">${esc(when)} \u00b7 ${esc(state)}</span> ` +
      `<button type="button" data-open-game="${esc(g.id)}" data-mode="${d.over ? "review" : "game"}">` +
      `${d.over ? "Review" : "Resume"}</button></li>`;
  }).join("") || `<li class="muted">None yet.</li>`;
}

async function openSavedGame(id, mode) {
  const g = savedGames().find((x) => x.id === id);
  if (!g) return;
  const asked = ++viewAsked;
  const game = S.game = {...g, view: mode};
  S.data = null; S.hint = null; S.scores = null; S.selected = null; S.review = null;
  S.payment = null;
  localStorage.setItem(STORE_KEY, JSON.stringify(S.game));
  try {
    const d = await fetchGame();
    if (S.game === game) S.data = d; // (loaded, for the Table button, though not shown)
    if (asked !== viewAsked) return; // another view asked for meanwhile: that one stays
    await loadGameCards();
    if (asked !== viewAsked) return;
    // the table (its status line) is this game's, also under its review
    if (mode === "review" && S.data.over) {
      await renderGame();
      if (asked === viewAsked) await openReview("game");
      return;
    }
    show("game");
    await renderGame();
    if (S.data.ai_thinking) {
      const prev = S.data;
      await transition(prev, await waitForAI(prev));
    }
  } catch (e) { showError(e); }
}

async function startGame(ev) {
  ev.preventDefault();
  clearError();
  const players = Number($("setup-players").value);
  const seats = [...$("setup-seats").querySelectorAll("select")].map((x) => x.value);
  const hotSeat = seats.filter((x) => x === "human").length > 1;
  const names = seats.map((spec, i) => $("name-" + i).value.trim() || defaultName(i, spec, hotSeat));
  if (!seats.includes("human")) {
    showError("At least one player must be a person: \"you\" for player 1, or \"a person (hot seat)\".");
    return;
  }
  const seedText = $("setup-seed").value.trim();
  if (seedText !== "" && !/^\d{1,19}$/.test(seedText)) {
    showError("The seed must be a whole number (digits only), or empty for a random one.");
    return;
  }
  const body = {players, seats, cards: $("setup-cards").value || "default"};
  if (seedText !== "") body.seed = seedText; // a decimal string: exact above 2^53
  $("setup-start").disabled = true;
  setBusy(true);
  try {
    await enterGame(await api("POST", "/v1/games", body), body.cards, names);
  } catch (e) {
    showError(e);
  } finally {
    $("setup-start").disabled = false;
    setBusy(false);
  }
}

/* A game just created (the answer of POST /v1/games): keep its seat tokens, load it,
 * let the AI play up to the human's turn and show the table. */
async function enterGame(g, cardsName, names) {
  const tokens = {};
  for (const t of g.tokens) tokens[t.seat] = t.token;
  S.game = {id: g.game_id, tokens, cards: cardsName, names, players: g.players, started: Date.now()};
  localStorage.setItem(STORE_KEY, JSON.stringify(S.game));
  rememberGame(S.game);
  S.data = null; S.hint = null; S.scores = null; S.selected = null; S.review = null;
  S.payment = null;
  S.reviewSource = "game";
  let d = await fetchGame();
  await loadGameCards(d);
  d = await waitForAI(d);
  S.data = d;
  show("game");
  await renderGame();
}

/* The position editor's "Continue as a game against the AI": its view's seat is the
 * human, every other seat the AI ``aiSpec``; the server draws the hidden cards. */
async function continueFromView(view, aiSpec) {
  const seats = Array.from({length: view.seats.length}, (_, i) => i === view.view_of ? "human" : aiSpec);
  const g = await continueGame(view, seats);
  const names = seats.map((spec, i) => spec === "human" ? "You" : defaultName(i, spec));
  await enterGame(g, typeof view.cards === "string" ? view.cards : view.cards.name, names);
}

/* The game of a reload picked up from the server: the one the address names (#game=ID,
 * #review=ID: one of this browser's games), else the one shown last (localStorage).
 * Shown (its table, or its review when the address or, without one, the last visit
 * left it there and it is over) unless the address ``wanted`` names another view: then
 * only drawn, for the Table button. Whether there was one. */
async function resume(wanted = null) {
  const raw = localStorage.getItem(STORE_KEY);
  let saved = null;
  try { saved = JSON.parse(raw || "null"); } catch (e) { localStorage.removeItem(STORE_KEY); }
  if (raw && !(saved && saved.id && saved.tokens)) { localStorage.removeItem(STORE_KEY); saved = null; }
  const id = wanted && wanted.id !== "upload" ? wanted.id : null;
  if (id && (!saved || saved.id !== id)) {
    const g = savedGames().find((x) => x.id === id);
    if (g) saved = {...g, view: wanted.view};
  }
  if (!saved) return false;
  S.game = saved;
  const view = !wanted ? saved.view : wanted.view === "review" && wanted.id === "upload" ? null : wanted.view;
  try {
    let d = await fetchGame();
    S.data = d;
    await loadGameCards(d);
    S.hint = keptHint(); // (a reload shows the hint asked for in this position again)
    if (wanted && !["game", "review"].includes(view)) { // another view shown
      await renderGame();
      if (d.ai_thinking) waitForAI(d).then((next) => transition(d, next)).catch(showError);
      return true;
    }
    show(view === "review" && d.over ? "review" : "game");
    await renderGame();
    if (d.ai_thinking) {
      const prev = d;
      d = await waitForAI(d);
      await transition(prev, d);
    }
    if (S.view === "review") await openReview();
    return true;
  } catch (e) {
    if (e instanceof ApiError && [401, 403, 404].includes(e.status)) {
      S.game = null;
      forgetGame(saved.id);
      // the address named another game than the one left: the one left shown instead
      const left = localStorage.getItem(STORE_KEY) !== null;
      showError(new ApiError(e.status, null, (left ? "The game of this address" : "The saved game") +
        " is gone from the server: " + e.message));
      return left ? resume(wanted && {view: wanted.view, id: null}) : false;
    }
    showError(e);
    return false;
  }
}

/* A game gone from the server forgotten: as the game left (STORE_KEY) when it is that one,
 * else (the address named it) as an entry of the games list; as the game in progress
 * (PLAYING_KEY) when it is that one. */
function forgetGame(id) {
  let left = null;
  try { left = JSON.parse(localStorage.getItem(STORE_KEY) || "null"); } catch (e) { left = null; }
  if (!left || left.id === id) localStorage.removeItem(STORE_KEY);
  else localStorage.setItem(GAMES_KEY, JSON.stringify(savedGames().filter((g) => g.id !== id)));
  if (localStorage.getItem(PLAYING_KEY) === id) localStorage.removeItem(PLAYING_KEY);
}

// ------------------------------------------------------------------ the address
/* Each view is an entry of the browser's history: Back and Forward go from view to view
 * (Back left the page), and a reload shows the view again. The address's hash names it:
 * #setup, #game=ID, #review=ID (a game's review; #review=upload: the uploaded record's),
 * #cards, and the position editor's #position=... (the editor writes it as the position
 * changes) or #editor. The query (?speed=, ?review=) stays as it is. A game is shown
 * from the server by its id, as at a reload (it goes on while another view is shown). */
const VIEWS = ["setup", "game", "review", "cards", "editor"];
let addressFollowed = null; // the address last shown or followed (popstate and hashchange both come)
let addressLive = false; // (until the page is ready the view shown replaces the entry)
let addressFollowing = false; // (so does the view shown for Back: a new entry would trap it)
let followSeq = 0; // the number of the latest Back or Forward followed
/* The number of the latest view asked for (a nav button, Back, Forward, a game opened):
 * each show takes the next, and so does a load that shows its view once the server has
 * answered, which then shows nothing when another view was asked for meanwhile (a second
 * Back before the game of the first came: it was shown over that Back's view, as a new
 * entry that cut the history's Forward part). */
let viewAsked = 0;

function addressOf(view) {
  if (view === "editor") return location.hash.startsWith("#position=") ? location.hash : "#editor";
  if (view === "game" && S.game) return "#game=" + encodeURIComponent(S.game.id);
  if (view === "review") {
    if (S.reviewSource === "upload" && S.upload) return "#review=upload";
    if (S.game) return "#review=" + encodeURIComponent(S.game.id);
  }
  return "#" + view;
}

/* The view the address names, {view, id}; null when it names none. */
function viewOfAddress() {
  const h = location.hash;
  if (h.startsWith("#position=")) return {view: "editor", id: null};
  const m = /^#([a-z]+)(?:=(.+))?$/.exec(h);
  if (!m || !VIEWS.includes(m[1])) return null;
  let id = null;
  try { id = m[2] ? decodeURIComponent(m[2]) : null; } catch (e) { id = null; }
  return {view: m[1], id};
}

/* The address of ``view`` shown, as a new entry of the history (``replace``: in place of
 * the current one). */
function addressTo(view, replace = false) {
  const hash = addressOf(view);
  if (location.hash !== hash) {
    const url = location.pathname + location.search + hash;
    if (addressLive && !addressFollowing && !replace) history.pushState(null, "", url);
    else history.replaceState(null, "", url);
  }
  addressFollowing = false; // (the view shown for Back is this one: the next is the player's)
  addressFollowed = location.href;
}

/* Back, Forward, or a link followed in this tab: the view its address names. */
async function followAddress() {
  if (location.href === addressFollowed) return;
  addressFollowed = location.href;
  const want = viewOfAddress() || {view: S.data ? "game" : "setup", id: null};
  const seq = ++followSeq;
  addressFollowing = true; // (until the view is shown: show)
  if (want.view === "editor" && location.hash.startsWith("#position=")) await openLinked();
  else await openView(want.view, want.id);
  if (seq === followSeq) addressFollowing = false; // (a later one's view may still be loading)
}

/* The view shown for Back or Forward: the focus, when it was in the view left (Alt+Left
 * from a field), at the top of this one (its heading; an editor: its section). */
function focusViewTop() {
  const a = document.activeElement;
  if (a && a !== document.body && canFocus(a)) return;
  const h = document.querySelector(HEADING[S.view] || "#" + S.view);
  if (!h) return;
  if (!h.hasAttribute("tabindex")) { // (focusable while it has the focus only)
    h.setAttribute("tabindex", "-1");
    h.addEventListener("blur", () => h.removeAttribute("tabindex"), {once: true});
  }
  h.focus();
}

/* Show ``view`` (a nav button, Back, Forward); ``id``: the game the address names (one
 * of this browser's games), or "upload" for the uploaded record's review. */
async function openView(view, id = null) {
  if (view === "setup") { show("setup"); return; }
  if (view === "cards") { await openCardSets(); return; }
  if (view === "editor") { await openEditor(null); return; }
  if (view === "review" && id === "upload") { await openReview("upload"); return; }
  if (id && (!S.game || S.game.id !== id || !S.data) && savedGames().some((g) => g.id === id)) {
    await openSavedGame(id, view);
    return;
  }
  if (view === "game" && !S.data) { show("setup"); return; } // (no game in this tab)
  const asked = ++viewAsked;
  // the editors may have loaded another card set: the game's own first
  try { await loadGameCards(); } catch (e) { showError(e); }
  if (asked !== viewAsked) return; // (another view asked for meanwhile)
  if (view === "game") { show("game"); await renderGame(); } else await openReview(id ? "game" : undefined);
}

const TITLES = {setup: "New game", game: "Table", review: "Review", cards: "Card sets", editor: "Position editor"};

function show(view) {
  viewAsked++;
  S.view = view;
  for (const v of VIEWS) $(v).hidden = v !== view;
  const followed = addressFollowing;
  addressTo(view);
  if (followed) focusViewTop();
  document.title = `${TITLES[view]} \u2014 Big Sur`; // (each entry of the history named)
  for (const b of document.querySelectorAll(".nav[data-view]")) {
    b.setAttribute("aria-current", b.dataset.view === view ? "page" : "false");
  }
  if (S.game) {
    S.game.view = view;
    localStorage.setItem(STORE_KEY, JSON.stringify(S.game));
  }
  noteGameInProgress();
  $("setup-resume").hidden = !(view === "setup" && gameInProgress());
  if (view === "setup") renderGamesList();
  const uploadShown = view === "review" && S.reviewSource === "upload";
  if (S.upload && S.upload.jobId && !!S.upload.shown !== uploadShown) {
    S.upload.shown = uploadShown;
    keepUpload();
  }
}

/* The game loaded, noted as the game in progress (PLAYING_KEY) when it is, or no longer
 * noted once it has ended: at every view shown (show), so that the game entered last,
 * however (started, resumed, named by the address), is the one "Resume it" offers. */
function noteGameInProgress() {
  if (!S.game || !S.data) return;
  if (!S.data.over) localStorage.setItem(PLAYING_KEY, S.game.id);
  else if (localStorage.getItem(PLAYING_KEY) === S.game.id) localStorage.removeItem(PLAYING_KEY);
}

/* The id of the game in progress the setup's "Resume it" offers: the one noted last
 * (noteGameInProgress), when the games list still has it; null when none (a game that
 * ended, or that the games list found gone from the server). */
function gameInProgress() {
  const id = localStorage.getItem(PLAYING_KEY);
  return id && savedGames().some((g) => g.id === id) ? id : null;
}

function resumeGameInProgress() {
  const id = gameInProgress();
  if (id && S.game && S.game.id === id) { show("game"); renderGame(); }
  else if (id) openSavedGame(id, "game");
}

// ------------------------------------------------------------------ review
/* The review runs on the server by game id (the page never re-sends the record): it
 * starts by itself when the game ends; its progress shows on the final scores and in
 * the review; the result is kept in localStorage per game. */
function reviewKey() { return S.game ? "bigsur.review." + S.game.id : null; }

/* ``value`` kept in localStorage under ``key``; false when the browser refuses it (over
 * its quota: a large record), and then nothing older stands under ``key`` in its place. */
function keepJSON(key, value) {
  try {
    localStorage.setItem(key, JSON.stringify(value));
    return true;
  } catch (e) {
    localStorage.removeItem(key);
    return false;
  }
}

/* An uploaded record's review is kept too, the latest upload only (a new upload replaces
 * it): the record's text and file name (its parts and its cards are read again from the
 * text), the job id, the budget, the result once done, the decision shown, and whether
 * its review was the one on the screen. A record over the browser's quota is not kept:
 * its review works for this visit. */
const UPLOAD_KEY = "bigsur.upload";

function keepUpload() {
  const up = S.upload;
  if (!up) { localStorage.removeItem(UPLOAD_KEY); return; }
  if (!up.jobId) return; // not submitted yet
  keepJSON(UPLOAD_KEY, {name: up.name, text: up.text, jobId: up.jobId, budget: up.budget || null,
    result: up.result || null, selected: up.selected ?? null, shown: !!up.shown});
}

/* The kept upload's review (not yet its cards: useReviewCards gets them), if any. */
function restoreUpload() {
  let kept = null;
  try { kept = JSON.parse(localStorage.getItem(UPLOAD_KEY) || "null"); } catch (e) { kept = null; }
  let info = null;
  try { info = kept && kept.jobId && reviewUpload.readRecord(kept.text); } catch (e) { info = null; }
  if (!info) { localStorage.removeItem(UPLOAD_KEY); return; }
  S.upload = {name: kept.name, text: kept.text, ...info, cards: null, jobId: kept.jobId,
    budget: kept.budget, result: kept.result, selected: kept.selected, running: false,
    shown: !!kept.shown};
  if (S.upload.shown) S.reviewSource = "upload";
}

/* The review's search per decision: the menu's choice (?review= sets it, addressBudget). */
function reviewBudget() {
  const [kind, val] = $("review-budget").value.split(":");
  return {[kind]: Number(val)};
}

/* ?review= in the menu: a choice by its value ("ms:500") or its word ("deep"), or any
 * budget the server takes, "iterations:N" or "ms:N" (N a whole number from 1; its caps are
 * the server's to say), added to the menu. Another value is said in one line and leaves
 * the menu as it is (it was sent as it was: refused, or silently not shown). */
function addressBudget() {
  const wanted = new URLSearchParams(location.search).get("review");
  if (wanted === null) return;
  const v = wanted.trim().toLowerCase();
  const sel = $("review-budget");
  const byWord = [...sel.options].find((o) => o.textContent.trim().toLowerCase().split(" ")[0] === v);
  if (byWord) { sel.value = byWord.value; return; }
  const m = /^(iterations|ms):0*([1-9]\d{0,8})$/.exec(v.replace(/\s+/g, ""));
  if (m) { showBudgetChoice({[m[1]]: Number(m[2])}); return; }
  const words = [...sel.options].map((o) => o.textContent.trim().split(" ")[0]);
  const note = $("review-address"); // (in the review's head, until another choice is made)
  note.textContent = `The address's review=${wanted} is not a search budget: use ${orWords(words)}, ` +
    "or iterations:N or ms:N (N a whole number); the menu's choice is used.";
  note.hidden = false;
  sel.addEventListener("change", () => { note.hidden = true; }, {once: true});
}

/* The game's review kept in the browser: its job, result, budget and the decision shown
 * (a reload or a later visit shows that decision again). */
function keepGameReview(rv) {
  keepJSON(reviewKey(), {jobId: rv.jobId, result: rv.result, budget: rv.budget,
    selected: rv.selected ?? null});
}

function loadSavedReview() {
  if (S.review && S.review.gameId === (S.game && S.game.id)) return S.review;
  let saved = null;
  try { saved = JSON.parse(localStorage.getItem(reviewKey()) || "null"); } catch (e) { saved = null; }
  S.review = saved && saved.result ? {...saved, gameId: S.game.id} : {gameId: S.game.id};
  return S.review;
}

/* Open the review view on ``source`` ("game": this game's review, "upload": the
 * uploaded record's; none: the one shown last, or the upload's without a finished game).
 * Without a finished game or an upload it offers the upload. */
async function openReview(source) {
  clearUploadError(); // (said of an upload tried before: not of the review shown now)
  if (source) S.reviewSource = source;
  else if (S.upload && !(S.data && S.data.over)) S.reviewSource = "upload";
  if (S.reviewSource === "upload" && S.upload) {
    showBudgetChoice(budgetOf(S.upload));
    show("review");
    await useReviewCards();
    renderReview();
    if (S.upload.jobId) pickUpUpload(); // (not awaited: it follows the job to its end)
    return;
  }
  S.reviewSource = "game";
  show("review");
  if (!S.data || !S.data.over) { renderReview(); return; }
  await useReviewCards();
  showBudgetChoice(budgetOf(loadSavedReview()));
  renderReview();
  await startOrPickUpReview();
}

/* Each review draws and names the cards of its own record: the page's set made the shown
 * review's (an uploaded record's as it came with the record, the game's by its name). */
async function useReviewCards() {
  try {
    if (S.reviewSource === "upload" && S.upload) {
      const up = S.upload;
      if (!up.cards) up.cards = await uploadCards(up); // a kept upload's, after a reload
      if (S.upload === up && S.reviewSource === "upload") useCards(up.cards);
    } else if (S.game) await loadGameCards();
  } catch (e) { showError(e); }
}

/* An uploaded record's own cards (``info``: readRecord's): inline (the server checks them
 * with the record), or the set of that name on this server; in use only while its review
 * is shown. */
async function uploadCards(info) {
  if (info.inlineCards) return pageCards(info.inlineCards, true);
  try { return await fetchCards(info.cardsName); } catch (e) {
    throw new reviewUpload.RecordFileError("cards", `the record's card set "${info.cardsName}" is not on this server (${e.message}); add it under Card sets first`);
  }
}

/* An uploaded record's review not accepted or failed: said next to the upload, naming the
 * file. */
function uploadFailed(name, e) {
  const box = $("review-upload-error");
  // (its players as its review names them: the page's names are the table's)
  box.textContent = `${name}: ${e instanceof ApiError && e.status === 422 ? "not accepted: " : ""}` +
    seatsNamed(e.message, (i) => `Player ${i + 1}`);
  box.hidden = false;
}

/* The upload's failure no longer said: another upload, another review shown or analysed. */
function clearUploadError() {
  const box = $("review-upload-error");
  box.hidden = true;
  box.textContent = "";
}

/* What the page calls a record pasted in the review (in place of a file's name). */
const PASTED = "the pasted record";

/* Review the record pasted in the review's box; an empty box is said, not sent. */
function reviewPasted() {
  const text = $("review-paste").value;
  if (!text.trim()) { uploadFailed(PASTED, new Error("nothing was pasted")); return; }
  runUpload(text, PASTED);
}

/* The kept upload's job picked up, once a page load (as the game's review is), when its
 * result was not kept yet: followed while it runs, its result taken. A kept result needs
 * no job (its positions come from the record, POST /v1/replay). When the server no
 * longer has the job (404: a finished job is dropped after BIGSUR_JOB_TTL_SECONDS) or it
 * failed, the review says so and "Analyse again" reviews the kept record anew. */
async function pickUpUpload() {
  const up = S.upload;
  if (!up || up.result || up.pickedUp || up.running) return;
  up.pickedUp = true;
  up.running = true;
  up.lost = null;
  renderReview();
  try {
    const running = await getJob(up.jobId);
    up.budget = running.budget;
    if (shownReview() === up) showBudgetChoice(up.budget);
    const job = await reviewUpload.followJob({job: getJob}, running,
      (done, total) => setProgress(up, done, total));
    up.result = job.result;
    up.budget = job.budget;
    keepUpload();
    announce(`The review of ${up.name} is ready.`);
  } catch (e) {
    if (!(e instanceof reviewUpload.RecordFileError ||
          (e instanceof ApiError && e.status === 404))) {
      up.pickedUp = false; // (the server out of reach: tried again when the review opens)
      showError(e);
    } else {
      up.lost = e instanceof ApiError
        ? `The server no longer has this review: ${e.body && e.body.reason || e.message}.`
        : `The server's review of this record failed (${e.message}).`;
    }
  } finally {
    up.running = false;
    setProgress(up, null);
  }
  if (S.upload === up && S.view === "review" && S.reviewSource === "upload") renderReview();
}

/* Review an uploaded record (its text, the file's name): the file is checked here
 * (naming the field), then on the server (every action), and reviewed as a job. */
async function runUpload(text, name) {
  clearUploadError();
  let info, cards;
  try {
    info = reviewUpload.readRecord(text);
    cards = await uploadCards(info);
  } catch (e) { uploadFailed(name, e); return; }
  const prev = {upload: S.upload, source: S.reviewSource};
  const up = {name, text, ...info, cards, result: null, running: true, selected: null,
    pickedUp: true, shown: true};
  S.upload = up;
  S.reviewSource = "upload";
  $("review-file").disabled = true;
  renderReview();
  announce(`Analysing ${name}\u2026`);
  try {
    const job = await reviewUpload.analyseUploaded({analyseRecordText, job: getJob}, text,
      reviewBudget(), (done, total) => setProgress(up, done, total), (started) => {
        up.jobId = started.job_id;
        up.budget = started.budget;
        keepUpload(); // from now on a reload picks the job up
        if (S.upload === up && S.view === "review") addressTo("review"); // #review=upload
      });
    S.upload = {...up, result: job.result, budget: job.budget, running: false, progress: null};
    keepUpload();
    announce(`The review of ${name} is ready.`);
  } catch (e) {
    S.upload = prev.upload;
    S.reviewSource = prev.upload ? prev.source : "game";
    if (S.upload) S.upload.shown = S.reviewSource === "upload";
    keepUpload(); // the upload before it, if any, is the one kept again
    if (S.view === "review") addressTo("review", true); // (the review shown again)
    uploadFailed(name, e);
  } finally {
    up.running = false;
    setProgress(up, null);
    $("review-file").disabled = false;
  }
  if (S.view === "review") await useReviewCards();
  renderReview();
}

/* Start (or join) the server's review of this game and follow its progress; with
 * ``pickUp``, follow the server's latest review of the game instead, when it is not the
 * one shown (a deeper one started before the page was left), and nothing when none. */
async function runReview(again, pickUp = false) {
  if (!S.game || !S.data || !S.data.over) return;
  const rv = loadSavedReview();
  if (rv.running) return;
  rv.running = true;
  const gameId = S.game.id;
  const token = activeToken(null);
  if (!pickUp) { clearError(); clearUploadError(); }
  renderJobs();
  try {
    let job = pickUp ? await latestReviewJob(gameId, token, rv)
      : await api("POST", `/v1/games/${encodeURIComponent(gameId)}/analysis`,
        {budget: reviewBudget(), seed: 0, again: !!again}, token);
    if (!job) return;
    announce(pickUp ? "An analysis of the game is running." : "Analysing the game\u2026");
    rv.jobBudget = job.budget; // (a deeper analysis picked up: the menu says it while it runs)
    if (shownReview() === rv) showBudgetChoice(rv.jobBudget);
    while (job.status === "queued" || job.status === "running") {
      setProgress(rv, job.progress.done, job.progress.total);
      await sleep(400);
      job = await getJob(job.job_id);
    }
    if (job.status !== "done") { // (a failure, not a refusal: no "Not allowed:")
      showError(`The analysis failed: ${job.error ? job.error.message : "unknown error"}.`);
      return;
    }
    if (!S.game || S.game.id !== gameId) return;
    // the decision shown came from the old analysis: it is shown again from the new one
    S.review = {gameId, jobId: job.job_id, result: job.result, budget: job.budget,
      selected: rv.selected ?? null, pickedUp: true};
    keepGameReview(S.review);
    announce("The game's review is ready.");
    if (shownReview() === S.review) showBudgetChoice(job.budget);
    renderFinalReview();
    if (S.view === "review") renderReview();
  } catch (e) {
    showError(e);
  } finally {
    rv.running = false;
    rv.jobBudget = null;
    if (pickUp && shownReview() === rv) showBudgetChoice(rv.budget); // (none, or it failed)
    setProgress(rv, null);
  }
}

/* The server's latest review job of the game when it is another one than ``rv`` shows
 * (running, or done since), else null. */
async function latestReviewJob(gameId, token, rv) {
  let job;
  try { job = await latestReview(gameId, token); } catch (e) {
    if (e instanceof ApiError && e.status === 404) return null; // none on this server
    throw e;
  }
  if (job.job_id === rv.jobId || ["failed", "cancelled"].includes(job.status)) return null;
  return job;
}

/* The review of a finished game as it is shown: started when there is none; else the
 * server's latest review picked up, once a page load. */
function startOrPickUpReview() {
  const rv = loadSavedReview();
  if (rv.running) return Promise.resolve();
  if (!rv.result) return runReview(false);
  if (rv.pickedUp) return Promise.resolve();
  rv.pickedUp = true;
  return runReview(false, true);
}

/* The budget of a review's analysis as the menu says it: its running job's while one runs
 * (a deeper analysis picked up after a reload), else its result's. */
function budgetOf(rv) {
  return rv ? (rv.running && rv.jobBudget) || rv.budget : null;
}

/* The "search per decision" choice showing ``budget`` (the analysis shown's), added to the
 * menu when it is none of its choices (a budget from the address; the menu kept showing
 * another). */
function showBudgetChoice(budget) {
  if (!budget || !(budget.iterations || budget.ms)) return;
  const value = budget.iterations ? `iterations:${budget.iterations}` : `ms:${budget.ms}`;
  const sel = $("review-budget");
  if (![...sel.options].some((o) => o.value === value)) {
    sel.add(new Option(budget.iterations ? plural(budget.iterations, "iteration") : `${budget.ms / 1000} s`, value));
  }
  sel.value = value;
}

/* A review's job progress, kept on the review (``rv.progress``: {done, total}; null: none
 * running) and drawn where that review is shown (renderJobs). */
function setProgress(rv, done, total = 0) {
  rv.progress = done === null ? null : {done, total};
  renderJobs();
}

/* Each review's job where that review is shown: the game's on the final scores, and in
 * the review view the job of the review shown, named (an upload's review and the game's
 * analysis can run at once: both drew on both bars, the numbers jumping between the two
 * jobs); the other review's running job is said on the button that shows that review.
 * Analyse waits for the job of the review shown only. */
function renderJobs() {
  const game = S.review && S.game && S.review.gameId === S.game.id ? S.review : null;
  const up = S.upload, shown = shownReview();
  progressBar("final-progress", "final-status", game && game.progress, "Analysing the game");
  progressBar("review-progress", "review-status", shown && shown.progress,
    shown && shown === up ? `Analysing ${up.name}` : "Analysing the game");
  const also = (rv) => (rv && rv !== shown && rv.progress
    ? ` (analysing: ${rv.progress.done} of ${rv.progress.total})` : "");
  $("review-back-game").textContent = "Back to your game's review" + also(game);
  if (up) $("review-show-upload").textContent = `The review of ${up.name}` + also(up);
  // (aria-disabled: a disabled button loses the keyboard focus; a click is ignored)
  $("review-run").setAttribute("aria-disabled", String(!!(shown && shown.running)));
}

/* A job's progress on its bar (a progressbar: its value, not a live region, which said
 * "Analysing: N of 73" some forty times; the start and the end are announced) and on its
 * line. */
function progressBar(barId, labelId, progress, what) {
  const bar = $(barId);
  bar.hidden = !progress;
  const words = progress ? `${what}: ${progress.done} of ${progress.total} decisions\u2026` : "";
  if ($(labelId).textContent !== words) $(labelId).textContent = words;
  if (progress) {
    bar.max = Math.max(1, progress.total);
    bar.value = progress.done;
    bar.setAttribute("aria-valuetext", `${progress.done} of ${progress.total} decisions`);
  }
}

/* On the final scores: a line about the review once it is ready. */
function renderFinalReview() {
  const box = $("final-review-summary");
  if (!box) return;
  const rv = S.review;
  if (!rv || !rv.result) { box.innerHTML = ""; return; }
  const tp = turningPoints(rv).slice(0, 2);
  box.innerHTML = `<p><b>Review ready.</b> ${tp.map((x) => esc(x.text)).join(" ")} ` +
    `<button type="button" data-review-game="" class="linkbtn">See the review <kbd>V</kbd></button></p>`;
}

function perspective() {
  if (S.reviewSource === "upload") return 0;
  const seats = S.game ? Object.keys(S.game.tokens).map(Number).sort((a, b) => a - b) : [0];
  return seats[0];
}

/* The graph's lines: each player's winning chances as that player's own search saw them
 * (each from its own hand, so the lines need not add up to 100%; another seat's estimate
 * turned round jumped at every change of mover), whatever the number of players: before
 * each of its decisions, after the move it played (the turning points compare these),
 * then the game's result (a k-way tie: 1 in k). -> [{seat, points: [[index, p]]}] */
function advantage(res) {
  const fin = res.final_scores;
  const top = fin ? Math.max(...fin) : null;
  const winners = fin ? fin.filter((x) => x === top).length : 0;
  const last = res.decisions.length ? res.decisions[res.decisions.length - 1].index + 1 : 0;
  return res.players.map((p) => {
    const points = [];
    for (const dc of res.decisions) {
      if (dc.seat !== p.seat || !dc.value_before) continue;
      points.push([dc.index, dc.value_before.win_probability]);
      if (dc.value_played) points.push([dc.index + 1, dc.value_played.win_probability]);
    }
    if (fin) points.push([last, fin[p.seat] === top ? 1 / winners : 0]);
    return {seat: p.seat, points};
  });
}

/* The moves of a review with the discard piles' tops as they were when paid, as the log
 * names them (paymentsAsPaid; a review shows every seat's payments): index -> ctx. The
 * piles after the last move are the finished game's (its final view) or, for an uploaded
 * record, its start position's (none for a dealt game) and every payment's discards.
 * Empty when the decisions are not every action of the game (then a pile is not known). */
const paidOfReview = new WeakMap();

function reviewPaid(res) {
  if (!res || !S.cards) return new Map();
  const known = paidOfReview.get(res);
  if (known && known.cards === S.cards) return known.ctxs;
  const dcs = res.decisions;
  const entries = dcs.map((dc) => ({index: dc.index, seat: dc.seat, action: dc.played}));
  const every = (n) => dcs.length === n && dcs.every((dc, k) => dc.index === k);
  let piles = null;
  if (S.upload && S.upload.result === res) {
    if (every(S.upload.nActions)) piles = uploadedPiles(S.upload, entries);
  } else if (S.review && S.review.result === res && S.data && S.data.over &&
             every(S.data.actions_applied)) {
    piles = pilesOfView(S.data.view);
  }
  if (!piles) return new Map();
  const ctxs = paymentsAsPaid(entries, piles, new Set(piles.keys())).ctxs;
  paidOfReview.set(res, {cards: S.cards, ctxs});
  return ctxs;
}

/* The discard piles after an uploaded record's ``entries`` (as Materials). */
function uploadedPiles(up, entries) {
  let start = null;
  try { start = JSON.parse(up.text).start || null; } catch (e) { start = null; }
  const piles = Array.from({length: up.players}, (_, i) =>
    (start && start.seats && start.seats[i] && start.seats[i].discard || []).map(matOf));
  for (const e of entries) {
    const w = e.action.trim().split(/\s+/);
    const pay = w.indexOf("pay");
    if (w[0] === "build" && pay >= 0) piles[e.seat].push(...cardsUsed(w.slice(pay + 1)).map(matOf));
  }
  return piles;
}

/* A reviewed decision's move played (or ``action``, one of the search's) in words; a deck
 * take played names the card it drew (the review's ``drawn``). */
function decisionWords(dc, action, paid = null) {
  paid = paid || (action ? null : reviewPaid(shownReview() && shownReview().result).get(dc.index));
  return actionWords(action || dc.played, {cards: S.cards, seatName, ...paid,
    drawn: action ? null : dc.drawn}, seatName(dc.seat));
}

/* The better move in words with the Materials its payments take from discard piles, read
 * from the decision's position ``st`` (a full state): a later build of the move recycles
 * what an earlier one discarded (discardTopAfter). Without the position the words name
 * no Material ("recycle the top of their discard pile"): the turning points wait for it
 * (betterOfTurning). */
function betterWordsAt(dc, st) {
  const topId = (x) => (x.discard.length ? x.discard[x.discard.length - 1] : null);
  const tops = st.seats.map((x) => matOf(topId(x)));
  let top = topId(st.seats[dc.seat]);
  return dc.best.map((a) => {
    const w = a.trim().split(/\s+/), pay = w.indexOf("pay");
    const words = decisionWords(dc, a, {discardTopMaterial: matOf(top), discardTops: tops});
    if (w[0] === "build" && pay >= 0) top = discardTopAfter(w.slice(pay + 1), top);
    return words.slice(seatName(dc.seat).length).trim();
  }).join(", then ");
}

/* The position before a reviewed decision (a full state): an upload's replayed from its
 * text, a game's from the server. */
function positionOf(rv, index) {
  return rv === S.upload ? replayRecordText(rv.text, index)
    : api("GET", `/v1/games/${encodeURIComponent(S.game.id)}/positions/${index}`,
      undefined, activeToken(null));
}

/* The better moves of a review's labelled turning points in the decision box's words
 * (betterWordsAt on each decision's position, fetched once): result -> index -> words
 * (null: the position could not be had; the words then name no Material). */
const betterOfReview = new WeakMap();

function betterOfTurning(rv, tp) {
  const res = rv.result;
  if (!betterOfReview.has(res)) betterOfReview.set(res, new Map());
  const known = betterOfReview.get(res);
  const wanted = tp.filter((x) => x.labelled && !known.has(x.index));
  if (!wanted.length) return;
  for (const x of wanted) known.set(x.index, null);
  Promise.all(wanted.map(async (x) => {
    const dc = res.decisions.find((d) => d.index === x.index);
    try { known.set(x.index, betterWordsAt(dc, await positionOf(rv, x.index))); } catch (e) { /* as said */ }
  })).then(() => { // said again with them, where this review is shown
    if (rv === S.review && rv.result === res) renderFinalReview();
    if (shownReview() === rv && rv.result === res && S.view === "review") renderTurning(rv);
  });
}

/* Turning points in words (words.js) of the review ``rv``: the biggest swings of the
 * reviewed seat's own estimates, the costliest decisions (their better moves in the
 * decision box's words once their positions are in: betterOfTurning), and the scoring
 * category that decided the game. */
function turningPoints(rv) {
  const res = rv.result;
  const me = perspective();
  const better = betterOfReview.get(res);
  const out = reviewTurningPoints(res, {me, seatName, cards: S.cards, paid: reviewPaid(res),
    better: (dc) => (better && better.get(dc.index)) || null});
  betterOfTurning(rv, out);
  const fin = S.reviewSource === "game" && S.data && S.data.result;
  const decided = fin ? decidingCategory(fin, seatName) : null;
  if (decided) out.unshift({index: null, text: decided});
  return out;
}

function renderReview() {
  const rv = shownReview() || {};
  const res = rv.result;
  const upload = S.reviewSource === "upload";
  const gameOver = !!(S.data && S.data.over);
  $("review-run").textContent = res || (upload && rv.lost) ? "Analyse again" : "Analyse";
  $("review-run").hidden = !upload && !gameOver;
  $("review-back-game").hidden = !(upload && gameOver);
  $("review-show-upload").hidden = upload || !S.upload;
  renderJobs(); // (the bar, the line and those buttons say the jobs of the review shown)
  const lost = $("review-lost");
  lost.hidden = !(upload && rv.lost);
  lost.textContent = upload && rv.lost
    ? rv.lost + " The record is kept here: press Analyse again to review it again." : "";
  $("review-source").textContent = upload ? `Reviewing ${rv.name === PASTED ? PASTED : "the uploaded record " + rv.name}` +
    (rv.start ? " (from a start position)" : "") : gameOver ? "Reviewing your game" : "";
  if (!res) {
    $("review-summary").innerHTML = rv.running || rv.progress
      ? "<p>The analysis is running\u2026</p>"
      : upload || gameOver ? "<p>Press <b>Analyse</b> to review every decision of the game.</p>"
        : "<p>Upload a record (a <code>bigsur-record/1</code> file, such as <b>Download the record</b> " +
          "saves) to review it here. Your game's review opens here once it is over.</p>";
    $("review-graph").innerHTML = "";
    $("review-list").innerHTML = "";
    $("review-turning").innerHTML = "";
    showDetailOf(shownReview());
    return;
  }
  const budget = res.budget && (res.budget.iterations ? res.budget.iterations + " iterations" : res.budget.ms ? res.budget.ms + " ms" : "");
  // each figure's cell also holds its heading, shown where the table is stacked a player
  // a block (a phone: the seven columns do not fit, and a box scrolling sideways hid them)
  const cols = [["Accuracy", (p) => accuracyWords(p.accuracy)], ["Inaccuracies", (p) => p.inaccuracies],
    ["Mistakes", (p) => p.mistakes], ["Blunders", (p) => p.blunders],
    ["Mean loss", (p) => (p.mean_loss_win_pct === null ? "\u2014" : lossWords(p.mean_loss_win_pct, p.mean_loss_points))],
    ["Score", (p) => (res.final_scores ? res.final_scores[p.seat] : "\u2014")]];
  $("review-summary").innerHTML = `<table class="scores players"><thead><tr><th scope="col">Player</th>` +
    cols.map(([h]) => `<th scope="col">${h}</th>`).join("") + `</tr></thead><tbody>` +
    res.players.map((p) => `<tr><th scope="row" style="color:${SEAT_COLOR[p.seat % 4]}">${esc(seatName(p.seat))}</th>` +
      cols.map(([h, f]) => `<td class="${h === "Mean loss" ? "wide" : ""}"><span class="cl" aria-hidden="true">${h}</span> ${f(p)}</td>`).join("") +
      `</tr>`).join("") +
    `</tbody></table><p class="muted small">` +
    (res.final_scores ? "" : "The record ends before the end of the game: no final scores. ") +
    `${res.decisions.length} decisions, search ${esc(budget)} each. ` +
    `A loss (\u201cwin-% / pts\u201d) is what a move lost against the best move the search found: ` +
    `points of winning chance, and points of expected final margin (the player's score minus the ` +
    `best other's); the mean loss is over the player's rated decisions. Accuracy is a score out of ` +
    `100, not a share of the moves: lichess's formula on each rated decision's win-% lost, averaged ` +
    `(100: none lost any win-%). Both judge decisions against the search; points can still be lost ` +
    `to luck and to abilities.</p>`;
  renderTurning(rv);
  renderGraph();
  renderReviewList();
  showDetailOf(rv);
  restoreFocus();
}

function renderTurning(rv) {
  const tp = turningPoints(rv);
  $("review-turning").innerHTML = tp.length ? `<h3 class="small">Turning points</h3><ul class="turning">` +
    tp.map((x) => `<li>${x.index === null ? esc(x.text)
      : `<a href="#move-${x.index + 1}" class="tplink" data-decision="${x.index}">${esc(x.text)}</a>`}</li>`).join("") + `</ul>` : "";
}

/* The decision box shows a decision of the review shown (its own choice again), or asks
 * for one: never a decision of the other review (a game's and an upload's are both kept),
 * nor of an analysis replaced. */
const CHOOSE_DECISION = `<p class="muted">Choose a decision to see the position and the better move.</p>`;
let detailOf = null;

function showDetailOf(rv) {
  if (detailOf === rv) return;
  detailOf = rv;
  if (rv && rv.result && rv.selected !== null && rv.selected !== undefined) selectDecision(rv.selected, false);
  else $("review-detail").innerHTML = CHOOSE_DECISION;
}

/* The graph is drawn at its box's width, 1 px a px (style.css: never wider than its box):
 * at GRAPH_W or more the laptop's layout, up to GRAPH_MAX (a 1366 px screen drew 860 and
 * scaled it to 980, leaving a quarter of the row empty; wider than GRAPH_MAX its 264 px
 * would only flatten the lines); in a narrower box (a phone: about 360 px) the narrow
 * layout: scaled down there the laptop's text was under 5 px and its marks a few px.
 * Redrawn when the box's width changes. */
const GRAPH_W = 860, GRAPH_MAX = 1400;
let graphWidth = GRAPH_W;
const graphWidthIn = (box) => !box.clientWidth ? GRAPH_W
  : box.clientWidth >= GRAPH_W ? Math.min(GRAPH_MAX, box.clientWidth) : Math.max(280, box.clientWidth);

function renderGraph() {
  const rv = shownReview();
  if (!rv || !rv.result) return;
  const nActions = S.reviewSource === "upload" ? rv.nActions : S.data ? S.data.actions_applied : 0;
  const box = $("review-graph");
  graphWidth = graphWidthIn(box);
  box.innerHTML = graphSVG(rv.result, nActions, rv.selected, graphWidth);
}

/* ``text`` cut (with an ellipsis) to about ``px`` wide in the graph's narrow text (12 px). */
function fitText(text, px) {
  const n = Math.floor(px / 7);
  return text.length <= n ? text : text.slice(0, Math.max(1, n - 1)) + "\u2026";
}

/* The win-chance graph, ``W`` wide (GRAPH_W or more: the laptop's layout; narrower: a narrow
 * layout, its legends on rows of their own, fewer round numbers, its text larger and its
 * marks larger, each with a finger-wide area to tap): one line a player (advantage). A
 * labelled move's mark, on the line of the player who decided, is a dot of its label's
 * colour inside a thin ring of the player's colour, a white gap between (a magenta ring
 * drawn on an orange mistake read as a red blunder); the legend explains both: the
 * labels' dots, and the rings (on each player's line). */
function graphSVG(res, nActions, cursor, W = GRAPH_W) {
  const narrow = W < GRAPH_W;
  const lines = advantage(res);
  // the legends' rows: the laptop's the seats' row then the labels'; narrow: the seats
  // two a row, then the labels' row
  const seatRows = narrow ? Math.ceil(lines.length / 2) : 1;
  const rowY = (k) => 4 + 16 * k;
  const L = 44, R = 12, B = 34;
  const T = narrow ? rowY(seatRows + 1) + 10 : 44;
  const H = narrow ? T + 186 + B : 264;
  const n = Math.max(1, nActions || (res.decisions.length ? res.decisions[res.decisions.length - 1].index + 1 : 1));
  const x = (i) => L + (W - L - R) * (i / n);
  const y = (p) => T + (H - T - B) * (1 - p);
  // a group, not an image (its marks are buttons): named by each line in words; its
  // drawing hidden from a screen reader (axis numbers, keys), its marks not
  const lineWords = lines.filter((l) => l.points.length).map((l) => `${seatName(l.seat)} from ` +
    `${pct(l.points[0][1])} to ${pct(l.points[l.points.length - 1][1])}`);
  const marks = res.decisions.filter((dc) => dc.label && dc.value_before).length;
  let s = `<svg class="graphsvg${narrow ? " narrow" : ""}" viewBox="0 0 ${W} ${H}" width="${W}" height="${H}" role="group" ` +
    `aria-label="${esc(`Win probability of each player over the game, as each player's own search saw it: ` +
      `${joinWords(lineWords)}; ${plural(marks, "labelled move")} marked (buttons)`)}"><g aria-hidden="true">`;
  s += `<rect x="${L}" y="${T}" width="${W - L - R}" height="${H - T - B}" fill="#fff" stroke="#bbb"/>`;
  const grid = [0, 0.25, 0.5, 0.75, 1];
  for (const p of grid) {
    s += `<line x1="${L}" x2="${W - R}" y1="${y(p)}" y2="${y(p)}" stroke="#ddd"/>` +
      `<text x="${L - 6}" y="${y(p) + 4}" class="axis" text-anchor="end">${p * 100}%</text>`;
  }
  // an even chance is 1 in the number of players: 50%, 33%, 25% (labelled off the grid)
  const even = 1 / res.players.length;
  s += `<line class="even" x1="${L}" x2="${W - R}" y1="${y(even)}" y2="${y(even)}" stroke="#999" ` +
    `stroke-dasharray="4 3"><title>an even chance: 1 in ${res.players.length}</title></line>` +
    (grid.includes(even) ? "" : `<text x="${L - 6}" y="${y(even) + 4}" class="axis" text-anchor="end">${Math.round(even * 100)}%</text>`);
  // a round's number (the table's: roundOf) at its first move, every ``every`` rounds
  // (1, 3, 5, ... where every other one fits), at least 30 px apart
  const roundAt = (dc) => roundOf(dc.turn, res.players.length);
  const rounds = res.decisions.length ? roundAt(res.decisions[res.decisions.length - 1]) : 1;
  let every = 1;
  while ((W - L - R) / rounds * every < 30) every += 1;
  let lastRound = null;
  for (const dcs of res.decisions) {
    const round = roundAt(dcs);
    if (round !== lastRound && (round - 1) % every === 0) {
      s += `<line x1="${x(dcs.index)}" x2="${x(dcs.index)}" y1="${H - B}" y2="${H - B + 4}" stroke="#888"/>` +
        `<text x="${x(dcs.index)}" y="${H - B + 16}" class="axis tick" text-anchor="middle">${round}</text>`;
    }
    lastRound = round;
  }
  s += `<text x="${(L + W - R) / 2}" y="${H - 4}" class="axis" text-anchor="middle">round</text>`;
  for (const line of lines) {
    if (!line.points.length) continue;
    s += `<polyline class="seatline" data-seat="${line.seat}" fill="none" stroke="${SEAT_COLOR[line.seat % 4]}" stroke-width="2.2" ` +
      `points="${line.points.map(([i, p]) => x(i).toFixed(1) + "," + y(p).toFixed(1)).join(" ")}"/>`;
  }
  if (cursor !== null && cursor !== undefined) {
    s += `<line class="cursor" x1="${x(cursor).toFixed(1)}" x2="${x(cursor).toFixed(1)}" y1="${T}" y2="${H - B}" stroke="#7b1fa2" stroke-width="2"/>`;
  }
  s += `</g>`;
  const radius = {inaccuracy: 5, mistake: 6, blunder: 7};
  for (const dc of res.decisions) {
    if (!dc.label || !dc.value_before) continue;
    const px = x(dc.index).toFixed(1), py = y(dc.value_before.win_probability).toFixed(1);
    s += `<g class="mark" tabindex="0" role="button" data-decision="${dc.index}" ` +
      `data-label="${dc.label}" data-seat="${dc.seat}" ` +
      `aria-label="${esc(`${dc.label}: ${decisionWords(dc)} (move ${dc.index + 1}; ${markLoss(dc)})`)}">` +
      `<title>${esc(`${cap(dc.label)}, move ${dc.index + 1}: ${decisionWords(dc)} (${markLoss(dc)})`)}</title>` +
      (narrow ? `<circle class="tap" cx="${px}" cy="${py}" r="14" fill="transparent"/>` : "") +
      markSVG(px, py, radius[dc.label] + (narrow ? 2 : 0), LABEL_COLOR[dc.label], SEAT_COLOR[dc.seat % 4]) +
      `</g>`;
  }
  s += `<g aria-hidden="true">`; // (the keys: the figure's caption says them)
  // a seat's key: its line with its ring on it
  const key = (color, tx, ty, text, seat) =>
    `<g class="key" data-seat="${seat}" transform="translate(${tx} ${ty})"><title>${esc(seatName(seat))}</title>` +
    `<rect width="14" height="4" y="4" fill="${color}"/>` +
    `<circle class="ring" cx="7" cy="6" r="4.5" fill="#fff" stroke="${color}" stroke-width="1.5"/>` +
    `<text x="20" y="11" class="axis">${esc(text)}</text></g>`;
  // a name too long for its place cut (with an ellipsis; its key's title says it whole)
  const col = narrow ? Math.min(240, (W - 8) / 2) : (W - L - R) / lines.length;
  lines.forEach((line, k) => {
    s += narrow ? key(SEAT_COLOR[line.seat % 4], 4 + (k % 2) * col, rowY(Math.floor(k / 2)),
      fitText(seatName(line.seat), col - 24), line.seat)
      : key(SEAT_COLOR[line.seat % 4], L + k * col, 4, fitText(seatName(line.seat), col - 24), line.seat);
  });
  Object.entries(LABEL_COLOR).forEach(([label, color], k) => {
    const [lx, ly] = narrow ? [4 + k * 100, rowY(seatRows)] : [W - R - 300 + k * 100, 20];
    s += `<g class="key" data-label="${label}" transform="translate(${lx} ${ly})">` +
      `${markSVG(6, 6, 5, color, null)}<text x="15" y="11" class="axis">${label}</text></g>`;
  });
  s += `</g></svg>`;
  return s;
}

/* A mark of the graph at (x, y): a dot of ``fill`` (its label's colour), ``r`` in radius,
 * and around it (``ring``: the player's colour) a thin ring, a white gap between. */
function markSVG(x, y, r, fill, ring) {
  return (ring ? `<circle class="ring" cx="${x}" cy="${y}" r="${r + 2.5}" fill="#fff" stroke="${ring}" stroke-width="1.5"/>` : "") +
    `<circle class="dot" cx="${x}" cy="${y}" r="${r}" fill="${fill}"/>`;
}

/* The review graph's mark whose dot is nearest to the pointer at (x, y) (client
 * coordinates), focused (``hit``, the mark under the pointer, when none is nearer): a
 * narrow graph's marks are 28 px to tap and close decisions a few px apart, so the mark
 * drawn on top of a tap is often a neighbour of the one tapped. */
function nearestMark(x, y, hit) {
  let nearest = hit, best = Infinity;
  for (const mark of document.querySelectorAll("#review-graph .mark")) {
    const r = mark.querySelector(".dot").getBoundingClientRect();
    const d = Math.hypot(r.x + r.width / 2 - x, r.y + r.height / 2 - y);
    if (d < best) { nearest = mark; best = d; }
  }
  if (nearest !== hit) nearest.focus({preventScroll: true});
  return nearest;
}

/* A labelled decision's loss in words, for its mark on the graph. */
const markLoss = (dc) => dc.loss_win_pct === null ? "not rated"
  : `lost ${lossWords(dc.loss_win_pct, dc.loss_points)} against the best move found`;

/* The decisions the review's list shows: every one, or ("labelled only") the labelled
 * ones and the decision chosen. */
function listedDecisions(rv) {
  const all = $("review-filter").value === "all";
  return rv.result.decisions.filter((dc) => all || dc.label || dc.index === rv.selected);
}

function renderReviewList() {
  const rv = shownReview();
  const sel = rv.selected;
  const items = listedDecisions(rv);
  $("review-list").innerHTML = items.map((dc) => {
    const loss = dc.loss_win_pct === null || dc.loss_win_pct === undefined ||
      (dc.loss_win_pct < 0.05 && dc.loss_points < 0.05) ? "" :
      ` lost ${lossWords(dc.loss_win_pct, dc.loss_points)}`;
    return `<li><button type="button" class="decision${sel === dc.index ? " selected" : ""}" data-decision="${dc.index}">` +
      `<span class="num">${dc.index + 1}.</span> <span class="dtext">${esc(decisionWords(dc))}</span> ` +
      (dc.label ? `<span class="lab ${dc.label}">${dc.label}</span>` : "") +
      `<span class="muted small">${loss}</span></button></li>`;
  }).join("") || `<li class="muted">No labelled decisions: choose "all".</li>`;
  const cur = $("review-list").querySelector(".decision.selected");
  if (cur) cur.scrollIntoView({block: "nearest"});
}

/* ← / →: the previous / next decision the list shows, with the table and the graph
 * cursor. */
function stepDecision(delta) {
  const rv = shownReview();
  const res = rv && rv.result;
  if (!res || !res.decisions.length) return;
  const idx = listedDecisions(rv).map((dc) => dc.index);
  if (!idx.length) return;
  const cur = rv.selected;
  let k = cur === null || cur === undefined ? (delta > 0 ? 0 : idx.length - 1)
    : idx.indexOf(cur) + delta;
  k = Math.max(0, Math.min(idx.length - 1, k));
  selectDecision(idx[k]);
}

let decisionSeq = 0;

/* Why a decision has no loss, in words (the analysis's ``how``). */
const HOW_UNRATED = {forced: "the only legal move",
  unrated: "the search found no value for the move played"};

/* Show the decision ``index`` of the review shown; ``say``: announce it in a line (not
 * when the review is drawn again with its decision). */
async function selectDecision(index, say = true) {
  const rv = shownReview();
  const res = rv && rv.result;
  if (!res) return;
  const dc = res.decisions.find((x) => x.index === index);
  if (!dc) return;
  const seq = ++decisionSeq;
  rv.selected = index;
  if (rv === S.upload) keepUpload();
  else if (rv === S.review && rv.result && S.game) keepGameReview(rv);
  detailOf = rv;
  renderReviewList();
  renderGraph();
  restoreFocus();
  // the decision box is not a live region (some 1,300 characters, written twice a step):
  // a short line, unless the focus is on the decision chosen (its name says it)
  if (say && !(document.activeElement && document.activeElement.dataset &&
        document.activeElement.dataset.decision === String(index))) {
    announce(`Move ${dc.index + 1}: ${decisionWords(dc)}` +
      (dc.label ? `, ${aOrAn(dc.label)}` : "") + ".");
  }
  const box = $("review-detail");
  // the values are the mover's own estimates (from its own hand): said whose
  const v = (val, capital = false) => val ? `${esc(possessive(seatName(dc.seat), capital))} chances: ` +
    `win ${pct(val.win_probability)}, ${signed(val.expected_margin)} pts` : "\u2014";
  const bestPlayed = playedWasBest(dc);
  // the search's first choice valued no higher than the move played (valued by another
  // search: the position after it, or the move alone) is no "better" move: said as such
  const notBetter = !bestPlayed && dc.value_best && dc.value_played &&
    dc.value_best.win_probability <= dc.value_played.win_probability &&
    dc.value_best.expected_margin <= dc.value_played.expected_margin;
  const pick = notBetter ? "Search's pick" : "Better";
  const best = dc.best ? dc.best.map((a) => decisionWords(dc, a).slice(seatName(dc.seat).length).trim()).join(", then ") : "\u2014";
  // a forced decision (one legal action) has no values to compare: said so, no empty rows
  const forced = dc.how === "forced";
  const playedWords = esc(decisionWords(dc).slice(seatName(dc.seat).length).trim());
  let html = `<h2 class="small">Move ${dc.index + 1}: ${esc(seatName(dc.seat))}, round ${roundOf(dc.turn, res.players.length)}, ${esc(dc.phase)} step ` +
    `<span class="muted small keyhint">(\u2190 / \u2192 to step)</span></h2>`;
  if (forced) {
    html += `<dl class="cmp"><dt>Played</dt><dd>${playedWords} \u2014 the only legal move (not rated)</dd></dl>`;
    if (/^(take|build|claim) /.test(dc.played)) {
      html += `<p class="small muted">In the position below: <span class="key played">the move played</span> ` +
        `(Depot, deck, Landmark or hand card).</p>`;
    }
  } else html += `<dl class="cmp"><dt>Played</dt><dd>${playedWords} \u2014 ${v(dc.value_played)}` +
    (dc.label ? ` <span class="lab ${dc.label}">${dc.label}</span>` : "") + `</dd>` +
    (bestPlayed ? `<dt>Best</dt><dd>the move played was the search's best</dd>`
      : `<dt>${pick}</dt><dd><span data-part="better">${esc(best)}</span> \u2014 ${v(dc.value_best)}` +
        (notBetter ? ` <span class="muted small">(no better than the move played by these numbers)</span>` : "") +
        `</dd>`) +
    `<dt>Before</dt><dd>${v(dc.value_before, true)}</dd>` +
    `<dt>Lost</dt><dd>${dc.loss_win_pct === null ? "not rated (" + esc(HOW_UNRATED[dc.how] || dc.how) + ")"
      : lossWords(dc.loss_win_pct, dc.loss_points) + " against the best move found"}` +
    (measuredAgain(dc) ? ` <span class="muted small">(Played and ${bestPlayed ? "Best" : pick} measured ` +
      `again with a longer search; Before is the first search's, or Played's where that is higher)</span>` : "") + `</dd></dl>` +
    `<p class="small muted">In the position below: <span class="key played">the move played</span> ` +
    (bestPlayed ? "" : `<span class="key better">${notBetter ? "the search's pick" : "the better move"}</span> `) +
    `(Depot, deck, Landmark or hand card).</p>`;
  html += `<div class="review-table" data-part="wrap"><p class="muted">Loading the position\u2026</p></div>`;
  box.innerHTML = html;
  const wrapEl = box.querySelector("[data-part=wrap]");
  try {
    const st = await positionOf(rv, dc.index);
    let scores = [];
    try { scores = (await api("POST", "/v1/score", {position: st})).scores; } catch (e) { scores = []; }
    if (seq !== decisionSeq) return; // a later decision was chosen meanwhile
    const better = box.querySelector("[data-part=better]");
    if (better && dc.best) better.textContent = betterWordsAt(dc, st);
    const t = tableFromState(st, dc.seat);
    wrapEl.innerHTML = `<div class="minitable"><div class="market"><div class="market-part"><h3 class="small">Depot</h3><div class="cardrow" data-part="depot"></div></div>` +
      `<div class="market-part deck-part"><h3 class="small">Deck</h3><div data-part="deck"></div></div>` +
      `</div><h3 class="small">Landmarks</h3><div data-part="landmarks"></div>` +
      `<div data-part="seats"></div><h3 class="small">${esc(possessive(seatName(dc.seat), true))} hand</h3><div class="cardrow" data-part="hand"></div></div>`;
    renderTable(t, {static: true, target: wrapEl, scores, highlight: null, staticTitle: "Position"});
    // the human seat's view (the seat that decided, when it is one of ours)
    const human = rv === S.upload || (S.game && S.game.tokens[dc.seat] !== undefined) ? dc.seat : myseat();
    rv.position = {st, seat: human};
    // (the editor loads a set by its name: the newest version of it)
    const earlier = rv !== S.upload && S.cards && S.cards.inline;
    wrapEl.insertAdjacentHTML("afterbegin", rv === S.upload && !uploadEditable(rv)
      ? `<p class="muted small" id="review-no-editor">The position editor works with this server's card sets, ` +
        `and this record's cards (\u201c${esc(rv.cardsName)}\u201d, held in the record) are not one of them: ` +
        `add them under Card sets to open its positions there.</p>`
      : earlier ? `<p class="muted small" id="review-no-editor">The position editor opens the newest version ` +
        `of a card set, and this game was played with an earlier one (${esc(S.cards.label)}): its positions ` +
        `cannot be opened there.</p>`
      : `<p><button type="button" id="review-open-editor" data-open-editor="">` +
      `Open in the position editor</button> <span class="muted small">(the position as ${esc(seatName(human) === "You" ? "you" : seatName(human))} saw it, to try other moves)</span></p>`);
    const mark = (actions, cls) => {
      for (const a of actions) {
        const words = a.split(/\s+/);
        const verb = words[0];
        const ids = verb === "take" || verb === "build" || verb === "claim" ? [words[1]] : [];
        for (const id of ids) {
          wrapEl.querySelectorAll(`[data-card="${CSS.escape(id)}"]`).forEach((el) => el.classList.add(cls));
        }
      }
    };
    mark([dc.played], "played");
    if (!bestPlayed && !forced) mark(dc.best || [], "better");
  } catch (e) {
    if (seq !== decisionSeq) return;
    wrapEl.innerHTML = `<p class="muted">The position could not be loaded: ${esc(e.message)}</p>`;
  }
}

/* Whether the position editor can open an uploaded record's positions: it loads a set by
 * its name from this server, so a set the record holds inline must be the one stored
 * under that name (the same fingerprint), else the editor would fail or draw another. */
function uploadEditable(up) {
  if (!up.inlineCards) return true; // a set named: the server's, as reviewed
  return !!up.fingerprint && S.cardSets.some((c) => c.name === up.cardsName && c.fingerprint === up.fingerprint);
}

/* The decision box brought into view when a decision is chosen far from it (a mark of the
 * graph, a turning point): below the fold, its change went unseen. */
function revealDetail() {
  const box = $("review-detail");
  const top = box.getBoundingClientRect().top;
  if (top < 0 || top > innerHeight - 160) box.scrollIntoView({block: "start"});
}

/* ``blob`` saved by the browser as the file ``name`` (a download): the page's one way,
 * the record's and the editors' files (editorCtx.saveFile). */
function saveFile(blob, name) {
  const a = document.createElement("a");
  a.href = URL.createObjectURL(blob);
  a.download = name;
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(a.href), 60_000);
}

async function downloadRecord() {
  try {
    // the server's own text: a JSON.parse / stringify round trip would round the seed
    const text = await recordText(S.game.id, activeToken(null));
    saveFile(new Blob([text], {type: "application/json"}), `bigsur-${S.game.id}.json`);
  } catch (e) { showError(e); }
}

// ------------------------------------------------------------------ keyboard focus
/* Each change draws parts of the page anew (innerHTML), which takes the keyboard focus off
 * the control that had it (to <body>: a keyboard player started again from the top after
 * each take, end of turn or claim). The control focused is remembered (focusin) with the
 * places to put the focus back (focusTries), tried in turn after each redraw
 * (restoreFocus): the same control drawn again, else an equivalent one (the card now in
 * the same Depot place, the deck, the next hand card, the decision chosen), else the
 * heading of the view (the status line of the table). At the start of a new turn the
 * status line comes first: it says what to do; while the AI's moves are shown, the status
 * line too (it says each move; the table's controls are drawn anew at each). Nothing moves
 * when the focus is still on a control, or when the player clicked elsewhere (pointerdown
 * forgets the control). */
let focusMemo = null; // {el, tries, turn}
let focusWanted = null; // tried first by the next restore (an undo: the card back in hand)
let pointerLast = false; // the last input was a pointer: the focus put back scrolls nothing

const HEADING = {game: "#status-line", review: "#review-title", setup: "#setup-title"};
const turnKey = () => (S.game && S.data ? `${S.game.id}:${S.data.view.turn}` : null);

/* Where the focus goes back to when ``el`` is drawn anew or goes away: selectors, or
 * [selector, k] for the k-th match (the last when fewer). */
function focusTries(el) {
  const ds = el.dataset || {}, q = CSS.escape;
  const index = (sel) => [...document.querySelectorAll(sel)].indexOf(el);
  const tries = el.id ? ["#" + q(el.id)] : [];
  const hand = ["#hand .cardbtn", ".endbtn"];
  if (el.closest("#depot")) {
    tries.push(`#depot [data-act="${q(ds.act || "")}"]`, ["#depot > *", index("#depot > *"), ".takeable"],
      "#depot .takeable", "#deck .takeable");
  } else if (el.closest("#deck")) tries.push("#deck .takeable", "#depot .takeable");
  else if (el.closest("#hand")) {
    tries.push(`#hand [data-select="${q(ds.select)}"]`, ["#hand .cardbtn", index("#hand .cardbtn")], ".endbtn");
  } else if (ds.paybuild) tries.push(`#paybox [data-paybuild="${q(ds.paybuild)}"]`, ...hand); // (refused)
  else if (ds.build || ds.undo) tries.push(...hand);
  else if (el.closest("#paybox")) tries.push(...hand);
  else if (ds.act) tries.push(`#actionbar [data-act="${q(ds.act)}"]`, "#actionbar .claimbtn");
  else if (ds.claim) tries.push(`#landmarks [data-claim="${q(ds.claim)}"]`);
  else if (ds.showhint !== undefined) tries.push(`#hint [data-hint="${q(ds.showhint)}"]`);
  else if (el.closest("#review-list")) {
    tries.push("#review-list .decision.selected", `#review-list [data-decision="${q(ds.decision)}"]`,
      "#review-list .decision");
  } else if (el.closest("#review-graph")) {
    tries.push(`#review-graph .mark[data-decision="${q(ds.decision)}"]`, "#review-list .decision.selected");
  } else if (ds.decision !== undefined) tries.push(`[data-decision="${q(ds.decision)}"]`);
  else if (el.closest(".seat")) {
    tries.push(`.seat[data-seat="${q(el.closest(".seat").dataset.seat)}"] ${el.tagName.toLowerCase()}`);
  }
  return tries;
}

function canFocus(el) {
  return !!el && el.isConnected && !el.disabled && el.getClientRects().length > 0;
}

/* The place a try names, when it can take the focus. */
function tryFocus(t) {
  if (typeof t === "string") {
    const el = document.querySelector(t);
    return canFocus(el) ? el : null;
  }
  const [sel, k, cls] = t;
  const all = [...document.querySelectorAll(sel)];
  const el = k < 0 ? null : all[Math.min(k, all.length - 1)];
  return canFocus(el) && (!cls || el.matches(cls)) ? el : null;
}

function rememberFocus(el) {
  focusMemo = el === document.body ? null : {el, tries: focusTries(el), turn: turnKey()};
}

/* A selector the next restore tries first. */
function wantFocus(sel) { focusWanted = sel; }

/* After a redraw: the focus back where the player had it (see above). */
function restoreFocus() {
  const m = focusMemo;
  const a = document.activeElement;
  if (S.animating) { // the AI's moves are being shown: none of the table's controls acts
    if (!m || (a && a !== document.body && a.isConnected)) return;
    const el = tryFocus(HEADING.game); // (no scrolling: the moves bring their Highway into view)
    if (el) el.focus({preventScroll: true});
    return;
  }
  const wanted = focusWanted;
  focusWanted = null;
  if (!m || (a && a !== document.body && a.isConnected)) return;
  if (m.el.isConnected && canFocus(m.el)) { m.el.focus({preventScroll: pointerLast}); return; }
  const heading = HEADING[S.view];
  const newTurn = S.view === "game" && m.turn && m.turn !== turnKey();
  const tries = [wanted, ...(newTurn ? [heading] : m.tries), heading].filter(Boolean);
  for (const t of tries) {
    const el = tryFocus(t);
    if (el) { el.focus({preventScroll: pointerLast}); return; }
  }
}

function setupFocus() {
  document.addEventListener("focusin", (e) => rememberFocus(e.target));
  document.addEventListener("keydown", () => { pointerLast = false; }, true);
  document.addEventListener("pointerdown", () => { pointerLast = true; focusMemo = null; }, true);
}

// ------------------------------------------------------------------ events
function onClick(ev) {
  let el = ev.target.closest("button, [data-decision]");
  if (!el) return;
  if (el.matches("#review-graph .mark") && ev.detail > 0) el = nearestMark(ev.clientX, ev.clientY, el);
  if (el.getAttribute("aria-disabled") === "true") {
    if (el.dataset.build || el.dataset.paybuild) {
      showError(S.selected ? `You cannot pay for ${S.selected} now: select another card of your hand.`
        : "Select a card of your hand first.");
    }
    else if (el.dataset.paystep === "rec") showError("Recycling is used once per turn and you have used it.");
    else if (/^b[hd]:/.test(el.dataset.paystep || "")) {
      showError(borrowRefusal(el.dataset.paystep.startsWith("bh:") ? "borrow_highway" : "borrow_discard"));
    }
    else if (el.dataset.paysub) showError("3-for-1 needs 3 other cards in your hand.");
    else if (S.payment && S.payment.sub && el.dataset.paystep) showError(usedInPayment(el.dataset.paystep));
    return;
  }
  if (S.view === "cards" && cardsetEditor.onClick(el)) return;
  if (S.view === "editor" && positionEditor.onClick(el)) return;
  const ds = el.dataset;
  if (ds.openEditor !== undefined && shownReview() && shownReview().position) {
    const {st, seat} = shownReview().position;
    openEditor(positionEditor.viewOfState(st, seat, matOf));
    return;
  }
  if (document.body.classList.contains("busy") && (ds.act || ds.build || ds.paybuild ||
      ds.hint !== undefined || ds.select)) return; // stale: an action is on its way
  if (payClick(ds)) return;
  if (ds.openGame) { openSavedGame(ds.openGame, ds.mode); return; }
  if (ds.reviewGame !== undefined) { openReview("game"); return; }
  if (ds.showhint !== undefined) { S.hintShow = Number(ds.showhint); renderGame(); return; }
  if (ds.act) { act(ds.act); return; }
  if (ds.undo) { undo(); return; }
  if (ds.select) {
    S.selected = S.selected === ds.select ? null : ds.select;
    renderGame(); // (the focus stays on the card: restoreFocus)
    return;
  }
  if (ds.build) { build(ds.build); return; }
  if (ds.claim) {
    const claims = (S.data && S.data.legal_actions || []).filter((a) => a.startsWith("claim " + ds.claim + " "));
    if (claims.length === 1) { act(claims[0]); return; }
    if (claims.length > 1) {
      const first = document.querySelector(`.claimbtn[data-act^="claim ${CSS.escape(ds.claim)} "]`);
      if (first) first.focus();
      setStatus(`<b>Choose the Highway card</b> to place ${esc(ds.claim)} above (buttons under your hand).`);
      return;
    }
    // not claimable now: said here (a claim above a guessed card could only be refused,
    // in words about a card the player never chose)
    showError(unclaimableWhy(ds.claim));
    return;
  }
  if (ds.hint !== undefined && el.classList.contains("playhint")) { playHint(Number(ds.hint)); return; }
  if (ds.decision !== undefined) {
    ev.preventDefault();
    selectDecision(Number(ds.decision));
    if (!el.closest("#review-list")) revealDetail(); // a mark of the graph, a turning point
    return;
  }
  if (ds.view) {
    openView(ds.view).catch(showError);
    if (ds.view === "setup") $("setup-players").focus();
  }
}

function onKey(ev) {
  const tag = (ev.target.tagName || "").toLowerCase();
  if (ev.key === "Escape") {
    if (hideZoom()) return; // (the enlarged card first: the focus stays)
    if (S.animating) { S.skip = true; return; }
    if (S.payment && S.payment.sub) { S.payment.sub = null; renderPay(); return; }
    if (!$("keys").hidden) { toggleKeys(); return; }
    clearError();
    return;
  }
  if (["input", "select", "textarea"].includes(tag) || ev.target.isContentEditable
      || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  // a control with keys of its own (data-own-keys: the card-set editor's lists of cards,
  // moved in with the arrow keys, Home and End): the page's shortcuts wait ("n" left the
  // editor for New game)
  if (ev.target.closest && ev.target.closest("[data-own-keys]")) return;
  if ((ev.key === "Enter" || ev.key === " ") && ev.target.dataset && ev.target.dataset.decision !== undefined
      && ev.target.tagName.toLowerCase() === "g") {
    ev.preventDefault();
    selectDecision(Number(ev.target.dataset.decision));
    revealDetail();
    return;
  }
  const k = ev.key;
  if (/^[1-5dehlrpcnuv?[\]]$/i.test(k)) ev.preventDefault(); // a shortcut: not typed too
  if (k === "?") { toggleKeys(); return; }
  if (S.view === "review" && (k === "ArrowLeft" || k === "ArrowRight")) {
    ev.preventDefault();
    stepDecision(k === "ArrowLeft" ? -1 : 1);
    return;
  }
  if (k === "n" || k === "N") { show("setup"); $("setup-players").focus(); return; }
  if ((S.view === "review" || S.view === "game") && (k === "v" || k === "V")) {
    if (S.data && S.data.over) openReview("game");
    else showError(S.data ? "The review opens when the game is over." : "No game to review: upload a record here.");
    return;
  }
  if (S.view !== "game" || !S.data) return;
  const d = S.data;
  if (/^[1-5]$/.test(k)) {
    const refused = keyRefusal(k);
    if (refused) { showError(refused); return; }
    const id = d.view.depot[Number(k) - 1];
    if (id) act("take " + id); else showError(`The Depot has no card ${k}.`);
    return;
  }
  const lower = k.toLowerCase();
  const refused = keyRefusal(lower);
  if (refused) { showError(refused); return; }
  if (lower === "d") { act("take deck"); return; }
  if (lower === "e") { act("end"); return; }
  if (lower === "u") { undo(); return; }
  if (lower === "h") { askHint(); return; }
  if (lower === "l") { build("L"); return; }
  if (lower === "r") { build("R"); return; }
  if (lower === "p") {
    const b = document.querySelector("#paybox .paysrc .srcbtn") || document.querySelector("#paybox button");
    if (b) { clearError(); b.focus(); } else showError("Select a card of your hand to pay for it (build step).");
    return;
  }
  if (lower === "c") {
    const b = document.querySelector(".claimbtn") || document.querySelector(".cardbtn.lm");
    if (b) { clearError(); b.focus(); }
    return;
  }
  if (k === "[" || k === "]") {
    const hand = d.view.seats[d.view.view_of].hand;
    if (!hand.length) { showError("Your hand is empty."); return; }
    clearError();
    let i = hand.indexOf(S.selected);
    i = i < 0 ? (k === "]" ? 0 : hand.length - 1) : (i + (k === "]" ? 1 : hand.length - 1)) % hand.length;
    S.selected = hand[i];
    renderGame().then(() => {
      const b = document.querySelector(`button[data-select="${CSS.escape(S.selected)}"]`);
      if (b) b.focus();
    });
  }
}

/* Why a game key (a Depot card 1-5, D, E, L, R, P, C) cannot act in this step, in the
 * page's words, with no request to the server (its refusal names the engine's turn
 * count and notation); null when it can. */
function keyRefusal(k) {
  const d = S.data, t = d.view;
  if (!/^[1-5delrpc]$/.test(k)) return null;
  if (d.over) return "The game is over.";
  if (S.animating) return WAIT_AI;
  if (S.busy) return waitSent();
  if (!d.your_turn) return `Wait: it is ${possessive(seatName(t.current))} turn.`;
  const legal = d.legal_actions || [];
  if (t.phase === "take") {
    return /^[1-5d]$/.test(k) ? null
      : `Take ${t.picks === 0 ? "2 cards" : "1 more card"} first: a Depot card (1\u20135) or the deck (D).`;
  }
  if (/^[1-5d]$/.test(k)) return "You have taken your 2 cards: build, claim a Landmark or end the turn.";
  const claims = legal.some((a) => a.startsWith("claim "));
  if (k === "c" && !claims) return "No Landmark can be claimed now.";
  if (k === "l" || k === "r") {
    // (as the hand's line says it, when no card can be paid for)
    if (!legal.some((a) => a.startsWith("build "))) {
      return `You cannot pay for any card now: ${claims ? "claim a Landmark or end" : "end"} your turn.`;
    }
    if (S.selected && !legal.some((a) => a.startsWith(`build ${S.selected} `))) {
      return `You cannot pay for ${S.selected} now: select another card of your hand.`;
    }
  }
  return null;
}

/* Where the enlarged card of size w x h goes for a pointer at (x, y): beside the pointer,
 * unless that covers the action bar or the payment box (a hand card clicked opened it
 * over "Still need" and the Build buttons), then above them, beside them or below them;
 * null when none of these fits on the screen. ``alsoFree``: more boxes kept free the
 * same way when a place can (a card focused from the keyboard: zoomKeptFree). */
function zoomPlace(x, y, w, h, gap = 24, alsoFree = []) {
  const payment = ["actionbar", "paybox"].map((id) => $(id)).filter((el) => el && !el.hidden)
    .map((el) => el.getBoundingClientRect()).filter((r) => r.width && r.height);
  const clampX = (l) => Math.max(4, Math.min(l, innerWidth - w - 4));
  const clampY = (t) => Math.max(4, Math.min(t, innerHeight - h - 4));
  const left = clampX(x + gap + w < innerWidth ? x + gap : x - gap - w);
  const placeClear = (keep) => {
    const fits = ([l, t]) => l >= 4 && t >= 4 && l + w <= innerWidth - 4 && t + h <= innerHeight - 4 &&
      !keep.some((r) => l < r.right && r.left < l + w && t < r.bottom && r.top < t + h);
    const places = [[left, clampY(y - h / 2)]];
    if (keep.length) {
      const top = Math.min(...keep.map((r) => r.top)), bottom = Math.max(...keep.map((r) => r.bottom));
      const right = Math.max(...keep.map((r) => r.right)), leftmost = Math.min(...keep.map((r) => r.left));
      places.push([left, top - h - 8], [right + 8, clampY(y - h / 2)], [leftmost - w - 8, clampY(y - h / 2)],
        [left, bottom + 8]);
    }
    return places.find(fits) || null;
  };
  const onScreen = (r) => r.width && r.height && r.bottom > 0 && r.top < innerHeight;
  const more = alsoFree.filter(onScreen);
  return (more.length && placeClear(payment.concat(more))) || placeClear(payment);
}

/* The boxes an enlarged card shown for keyboard focus leaves free besides the payment
 * controls, where the screen has room (at 1280x800 and 1366x768: beside the table, over
 * the side column): the focused card, the seats' headers (names, points, hand and discard
 * counts) and the two ends of the player's own Highway, where a build goes (placed beside
 * the card, it covered the Highway's right end, and after an undo the AI's counts). */
function zoomKeptFree(focused) {
  const road = [...document.querySelectorAll("#seats .seat.me svg.highway > svg.card")];
  return [focused, ...document.querySelectorAll("#seats .seat-head"), road[0], road[road.length - 1]]
    .filter(Boolean).map((el) => el.getBoundingClientRect());
}

/* Hover (or press and hold on a touch screen) a card to see it large; or focus it from
 * the keyboard (shown clear of the seats' headers and the own Highway's ends where the
 * screen has room, else beside it: zoomKeptFree; the focus left where it is; Esc or
 * moving on hides it). */
let hideZoom = () => false; // hides the enlarged card: whether it was shown
function setupZoom() {
  const z = document.createElement("div");
  z.id = "zoom";
  z.hidden = true;
  z.setAttribute("aria-hidden", "true");
  document.body.appendChild(z);
  let timer = null;
  let held = false;
  let byFocus = false; // shown for the card focused (not hovered)
  const hide = () => { clearTimeout(timer); const was = !z.hidden; z.hidden = true; return was; };
  hideZoom = hide;
  const showFor = (el, x, y, gap, alsoFree) => {
    const id = el.dataset.zoom;
    if (!S.cards || !S.cards.highway[id]) return;
    z.innerHTML = cardSVG(id) + `<p>${esc(cardWords(id))}</p>`;
    z.hidden = false;
    const place = zoomPlace(x, y, z.offsetWidth, z.offsetHeight, gap, alsoFree);
    if (!place) { z.hidden = true; return; }
    z.style.left = place[0] + "px";
    z.style.top = place[1] + "px";
  };
  document.addEventListener("mouseover", (e) => {
    if (document.body.classList.contains("touch")) return;
    const el = e.target.closest && e.target.closest("[data-zoom]");
    clearTimeout(timer);
    if (!el) { if (!byFocus) z.hidden = true; return; } // (a focused card's stays)
    const {clientX, clientY} = e;
    timer = setTimeout(() => { byFocus = false; showFor(el, clientX, clientY); }, 400);
  });
  document.addEventListener("pointerdown", (e) => {
    if (held) { held = false; hide(); }
    if (e.pointerType === "mouse") return;
    const el = e.target.closest && e.target.closest("[data-zoom]");
    if (!el) return;
    const {clientX, clientY} = e;
    timer = setTimeout(() => { held = true; byFocus = false; showFor(el, clientX, clientY); }, 500);
  });
  // the keyboard: a card focused (a mouse click focuses it too, not :focus-visible)
  document.addEventListener("focusin", (e) => {
    const card = e.target.querySelector && e.target.matches(":focus-visible") &&
      e.target.querySelector("[data-zoom]");
    if (!card) { if (byFocus) hide(); return; } // (a card drawn anew had the focus)
    clearTimeout(timer);
    const r = e.target.getBoundingClientRect();
    showFor(card, r.left + r.width / 2, r.top + r.height / 2, r.width / 2 + 12, zoomKeptFree(e.target));
    byFocus = true;
  });
  document.addEventListener("focusout", (e) => {
    if (e.target.querySelector && e.target.querySelector("[data-zoom]")) hide();
  });
  for (const type of ["pointerup", "pointercancel", "scroll"]) {
    document.addEventListener(type, () => clearTimeout(timer), true);
  }
  document.addEventListener("click", (e) => { if (held) { e.stopPropagation(); e.preventDefault(); } }, true);
  document.addEventListener("contextmenu", (e) => {
    if (e.target.closest && e.target.closest("[data-zoom]") && e.pointerType !== "mouse") e.preventDefault();
  });
}

/* The menu ``sel`` set to the option whose value or label is ``value`` ("120" or
 * "fast", any case); any other value leaves it as it is (it showed blank). */
function chooseOption(sel, value) {
  const v = String(value).trim().toLowerCase();
  const o = [...sel.options].find((x) => x.value === v || x.textContent.trim().toLowerCase() === v);
  if (o) sel.value = o.value;
  return !!o;
}

function toggleKeys() {
  const k = $("keys");
  k.hidden = !k.hidden;
  $("nav-keys").setAttribute("aria-expanded", String(!k.hidden));
}

// ------------------------------------------------------------------ editors (js/views/)
const editorCtx = {
  api, ApiError, showError, clearError, announce, saveFile, continueFromView,
  cardSets: () => S.cardSets,
  loadCards: (name) => loadCards(name),
  refreshCardSets,
};

async function refreshCardSets() {
  S.cardSets = await api("GET", "/v1/cards");
  const chosen = $("setup-cards").value;
  $("setup-cards").innerHTML = S.cardSets.map((c) =>
    `<option value="${esc(c.name)}">${esc(c.label)}</option>`).join("");
  if (S.cardSets.some((c) => c.name === chosen)) $("setup-cards").value = chosen;
}

async function openCardSets() {
  show("cards");
  try { await cardsetEditor.open(editorCtx, $("cards-root")); } catch (e) { showError(e); }
}

async function openEditor(initial) {
  show("editor");
  try { await positionEditor.open(editorCtx, $("editor-root"), initial); } catch (e) { showError(e); }
}

/* The position of the address's #position= link opened in the editor. */
async function openLinked() {
  let initial = null;
  try { initial = positionEditor.decode(location.hash.slice("#position=".length)); } catch (e) {
    showError("The link's position cannot be read: " + e.message);
  }
  await openEditor(initial);
}

async function init() {
  setupFocus();
  document.addEventListener("click", onClick);
  document.addEventListener("keydown", onKey);
  $("alert-close").addEventListener("click", clearError);
  $("nav-keys").addEventListener("click", toggleKeys);
  $("setup-players").addEventListener("change", renderSeatChoices);
  $("setup-form").addEventListener("submit", startGame);
  $("setup-resume-btn").addEventListener("click", resumeGameInProgress);
  $("hint-btn").addEventListener("click", askHint);
  $("skip-btn").addEventListener("click", () => { S.skip = true; });
  $("final-review").addEventListener("click", () => openReview("game"));
  $("final-record").addEventListener("click", downloadRecord);
  $("final-new").addEventListener("click", () => { show("setup"); $("setup-players").focus(); });
  $("review-run").addEventListener("click", (ev) => {
    if (ev.currentTarget.getAttribute("aria-disabled") === "true") return; // (one running)
    if (S.reviewSource === "upload") runUpload(S.upload.text, S.upload.name); else runReview(true);
  });
  $("review-filter").addEventListener("change", () => shownReview() && shownReview().result && renderReviewList());
  $("review-file").addEventListener("change", async (ev) => {
    const file = ev.target.files[0];
    if (!file) return;
    let text;
    try { text = await file.text(); } catch (e) { text = ""; }
    ev.target.value = ""; // the same file may be chosen again
    await runUpload(text, file.name);
  });
  $("review-paste-go").addEventListener("click", reviewPasted);
  $("review-back-game").addEventListener("click", () => openReview("game"));
  $("review-show-upload").addEventListener("click", () => openReview("upload"));
  addEventListener("resize", () => { // (the graph's box narrower or wider: drawn again)
    if (S.view === "review" && graphWidthIn($("review-graph")) !== graphWidth) renderGraph();
  });
  // ?speed= in the menu's words ("fast") or milliseconds ("120"); else the one kept; else,
  // for a player who asks for less motion, "instant" (the AI's moves shown at once)
  const wanted = new URLSearchParams(location.search).get("speed");
  const kept = localStorage.getItem("bigsur.speed");
  if (!(wanted && chooseOption($("ai-speed"), wanted)) && !(kept && chooseOption($("ai-speed"), kept)) &&
      matchMedia("(prefers-reduced-motion: reduce)").matches) $("ai-speed").value = "0";
  $("ai-speed").addEventListener("change", () => localStorage.setItem("bigsur.speed", $("ai-speed").value));
  renderSeatChoices();
  $("primer-mats").innerHTML = MATERIALS.map((m) => matIcon(m)).join(" ");
  $("primer-scenery").innerHTML = SCENERY.map((x) => `<span class="scn"><svg viewBox="-13 -13 26 26" class="mi" aria-hidden="true">` +
    `<circle r="13" fill="${SC_COLOR[x]}"/>${sceneryIcon(x, 0, 0, 10)}</svg>${x}</span>`).join(" ");
  addressBudget();
  setupZoom();
  if (matchMedia("(hover: none), (pointer: coarse)").matches) document.body.classList.add("touch");
  try {
    S.cardSets = await api("GET", "/v1/cards");
    $("setup-cards").innerHTML = S.cardSets.map((c) =>
      `<option value="${esc(c.name)}">${esc(c.label)}</option>`).join("");
    await loadCards("default");
  } catch (e) { showError(e); }
  // Back, Forward, a link followed in this tab: the view of its address (a shared
  // position: the editor; the editor's own replaceState of the hash fires neither)
  addEventListener("popstate", followAddress);
  addEventListener("hashchange", followAddress);
  // a reload: the view of the address, else the game left (or its review); a #position=
  // link: its position in the editor, the game left loaded too (the Table button)
  const named = viewOfAddress();
  restoreUpload();
  const resumed = await resume(named);
  const view = named ? named.view : null;
  if (view === "editor" && location.hash.startsWith("#position=")) await openLinked();
  else if (["setup", "cards", "editor"].includes(view)) await openView(view);
  else if (view === "review" && (named.id === "upload" || !resumed)) await openReview(S.upload ? "upload" : undefined);
  else if (!resumed && S.upload && S.upload.shown) await openReview("upload"); // left on its review
  else if (!resumed) show("setup");
  addressLive = true;
  document.body.dataset.ready = "1";
}

window.bigsur = {state: S}; // for debugging in the console
init();

