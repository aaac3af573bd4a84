/* Big Sur in the browser: play against the AI, hints, end-of-game scores and review.
 *
 * No build step and no outside assets: plain JavaScript talking to the /v1 API of the
 * same server, cards drawn as SVG from the card-set data (GET /v1/cards/{name}).
 * The game lives on the server; the page keeps only the game id and the seat tokens
 * (localStorage), so a reload resumes the game. Every action is sent to the server,
 * which checks it: a refused action shows the server's 4xx message.
 */
"use strict";

(() => {
  // ------------------------------------------------------------------ vocabulary
  const SCENERY = ["ocean", "forest", "mountain", "flower", "field"];
  const SC_COLOR = {ocean: "#1f6fb2", forest: "#2e7d32", mountain: "#795548",
    flower: "#c2185b", field: "#b58900"};
  const MATERIALS = ["stone", "water", "timber", "engineering", "steel"];
  const MAT_COLOR = {stone: "#7d7d7d", water: "#2a86d1", timber: "#8b5a2b",
    engineering: "#e07b00", steel: "#455a70"};
  const MAT_ABBR = {stone: "St", water: "Wa", timber: "Ti", engineering: "En", steel: "Sl"};
  const SEAT_COLOR = ["#1f6fb2", "#c2185b", "#2e7d32", "#e07b00"];
  const LABEL_COLOR = {inaccuracy: "#d4a000", mistake: "#e06000", blunder: "#c62828"};
  const AI_CHOICES = [
    ["human", "human"], ["random", "AI: random"], ["greedy", "AI: greedy"],
    ["mcts:200i", "AI: MCTS 200 iterations"], ["mcts:0.5s", "AI: MCTS 0.5 s"],
    ["mcts:1s", "AI: MCTS 1 s"], ["mcts:3s", "AI: MCTS 3 s"]];
  const STORE_KEY = "bigsur.game";

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
    skip: false,
    busy: false,
    review: null, // {record, job, result, selected}
  };

  const $ = (id) => document.getElementById(id);
  const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({
    "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;"}[c]));
  const cap = (s) => s ? s[0].toUpperCase() + s.slice(1) : s;
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  const pct = (p) => (100 * p).toFixed(1) + "%";
  const signed = (x) => (x >= 0 ? "+" : "\u2212") + Math.abs(x).toFixed(1);

  // ------------------------------------------------------------------ API
  class ApiError extends Error {
    constructor(status, field, message, body) {
      super(message);
      this.status = status;
      this.field = field;
      this.body = body;
    }
  }

  async function api(method, path, body, token) {
    const headers = {Accept: "application/json"};
    if (body !== undefined) headers["Content-Type"] = "application/json";
    if (token) headers.Authorization = "Bearer " + token;
    let r;
    try {
      r = await fetch(path, {method, headers,
        body: body === undefined ? undefined : JSON.stringify(body)});
    } catch (e) {
      throw new ApiError(0, null, "cannot reach the server (" + e.message + ")", null);
    }
    let data = null;
    try { data = await r.json(); } catch (e) { data = null; }
    if (!r.ok) {
      let msg = (data && (data.message || data.reason)) || (r.status + " " + r.statusText);
      if (r.status === 503) {
        const retry = r.headers.get("Retry-After");
        msg += retry ? ` (try again in ${retry} s)` : "";
      }
      throw new ApiError(r.status, data && data.field, msg, data);
    }
    return data;
  }

  function showError(err) {
    const text = err instanceof ApiError
      ? (err.status ? `The server refused (${err.status}): ${err.message}` : err.message)
      : String(err && err.message || err);
    $("alert-text").textContent = text;
    $("alert").hidden = false;
    if (!(err instanceof ApiError)) console.error(err);
  }

  function clearError() { $("alert").hidden = true; $("alert-text").textContent = ""; }

  // ------------------------------------------------------------------ cards
  async function loadCards(name) {
    if (S.cards && S.cards.name === name) return S.cards;
    const raw = await api("GET", "/v1/cards/" + encodeURIComponent(name));
    const highway = {}, landmarks = {};
    for (const c of raw.highway) highway[c.id] = c;
    for (const l of raw.landmarks) landmarks[l.id] = l;
    S.cards = {name, label: raw.label, reconstruction: raw.reconstruction, highway, landmarks,
      raw};
    $("cardset-label").textContent = raw.reconstruction
      ? "Cards: " + raw.label : "Cards: " + raw.label;
    $("cardset-label").classList.toggle("recon", !!raw.reconstruction);
    return S.cards;
  }

  function turnsPerPlayer(players) {
    if (!S.cards) return null;
    const n = S.cards.raw.highway.filter((c) => c.players.includes(players)).length;
    return (n - 2 * players - 5) / (2 * players);
  }

  // scenery icons, drawn around (0, 0) in a box of about 24
  function sceneryIcon(s, x, y, r) {
    const k = r / 12;
    const t = `transform="translate(${x} ${y}) scale(${k})"`;
    const w = "fill=\"none\" stroke=\"#fff\" stroke-width=\"2.2\" stroke-linecap=\"round\"";
    switch (s) {
      case "ocean":
        return `<g ${t} ${w}><path d="M-9 -2 q3 -4 6 0 t6 0 t6 0"/>` +
          `<path d="M-9 5 q3 -4 6 0 t6 0 t6 0"/></g>`;
      case "forest":
        return `<g ${t}><path d="M0 -10 L8 4 L-8 4 Z" fill="#fff"/>` +
          `<rect x="-1.6" y="4" width="3.2" height="6" fill="#fff"/></g>`;
      case "mountain":
        return `<g ${t}><path d="M-11 8 L-3 -6 L2 1 L5 -3 L11 8 Z" fill="#fff"/>` +
          `<path d="M-3 -6 L-5.5 -1.5 L-0.5 -1.5 Z" fill="${SC_COLOR.mountain}"/></g>`;
      case "flower": {
        let p = "";
        for (let i = 0; i < 5; i++) {
          const a = (i * 72 - 90) * Math.PI / 180;
          p += `<circle cx="${(5.5 * Math.cos(a)).toFixed(2)}" cy="${(5.5 * Math.sin(a)).toFixed(2)}" r="3.6" fill="#fff"/>`;
        }
        return `<g ${t}>${p}<circle r="2.6" fill="${SC_COLOR.flower}"/></g>`;
      }
      case "field":
        return `<g ${t} ${w}><path d="M-6 9 V-4 M0 9 V-7 M6 9 V-4"/>` +
          `<path d="M-6 -4 l-2.5 -3 M-6 -4 l2.5 -3 M0 -7 l-2.5 -3 M0 -7 l2.5 -3 ` +
          `M6 -4 l-2.5 -3 M6 -4 l2.5 -3"/></g>`;
      default:
        return "";
    }
  }

  function wrap(text, width) {
    const words = String(text || "").split(/\s+/).filter(Boolean);
    const lines = [];
    let line = "";
    for (const w of words) {
      if (line && (line + " " + w).length > width) { lines.push(line); line = w; }
      else line = line ? line + " " + w : w;
    }
    if (line) lines.push(line);
    return lines;
  }

  function cardWords(id) {
    const c = S.cards && S.cards.highway[id];
    if (!c) return id;
    let t = `${id}: ${c.miles} mile${c.miles > 1 ? "s" : ""}, ${c.scenery.join(" and ")}; ` +
      `cost ${c.cost.join(", ")}; back ${c.material}`;
    if (c.persistent) t += `; persistent ${c.persistent}`;
    if (c.text) t += `; ${c.text}`;
    return t;
  }

  /* One Highway card as SVG (viewBox 100 x 140). compact: no bonus text (Highway rows). */
  function cardSVG(id, opts = {}) {
    const c = S.cards && S.cards.highway[id];
    if (!c) return unknownCardSVG(opts.label || "?");
    const [a, b] = c.scenery;
    let s = `<svg class="card" viewBox="0 0 100 140" role="img" aria-label="${esc(cardWords(id))}">`;
    s += `<title>${esc(cardWords(id))}</title>`;
    s += `<rect x="1" y="1" width="98" height="138" rx="8" fill="#fdfaf2" stroke="#3b3b3b" stroke-width="1.5"/>`;
    s += `<path d="M1 9 a8 8 0 0 1 8 -8 H50 V44 H1 Z" fill="${SC_COLOR[a]}"/>`;
    s += `<path d="M50 1 H91 a8 8 0 0 1 8 8 V44 H50 Z" fill="${SC_COLOR[b]}"/>`;
    s += sceneryIcon(a, 25, 22, 13) + sceneryIcon(b, 75, 22, 13);
    s += `<text x="8" y="68" class="miles">${c.miles}</text><text x="${c.miles >= 10 ? 34 : 24}" y="68" class="mi">mi</text>`;
    // back Material reminder
    s += `<g transform="translate(70 48)"><rect width="24" height="20" rx="4" fill="${MAT_COLOR[c.material]}"/>` +
      `<text x="12" y="14" class="chip">${MAT_ABBR[c.material]}</text></g>` +
      `<text x="82" y="77" class="tiny" text-anchor="middle">back</text>`;
    if (c.persistent) {
      s += `<g transform="translate(6 70)"><rect width="58" height="13" rx="6.5" fill="none" stroke="${MAT_COLOR[c.persistent]}" stroke-width="1.5"/>` +
        `<text x="29" y="9.8" class="tiny" text-anchor="middle" fill="${MAT_COLOR[c.persistent]}">\u221e ${esc(c.persistent)}</text></g>`;
    }
    if (c.bonus) {
      if (opts.compact) {
        s += `<text x="7" y="94" class="bonusmark">\u2605 bonus</text>`;
      } else {
        wrap(c.text || c.bonus.kind, 23).slice(0, 3).forEach((ln, i) => {
          s += `<text x="5" y="${87 + i * 8}" class="bonus">${esc(ln)}</text>`;
        });
      }
    }
    // cost
    s += `<text x="5" y="118" class="tiny">cost</text>`;
    c.cost.forEach((m, i) => {
      const x = 34 + i * 21;
      s += `<circle cx="${x}" cy="115" r="9" fill="${MAT_COLOR[m]}"/>` +
        `<text x="${x}" y="118.5" class="chip">${MAT_ABBR[m]}</text>`;
    });
    s += `<text x="8" y="133" class="cid">${esc(id)}</text>`;
    if (opts.badge) s += `<text x="92" y="133" class="tiny" text-anchor="end">${esc(opts.badge)}</text>`;
    s += `</svg>`;
    return s;
  }

  function unknownCardSVG(label) {
    return `<svg class="card back" viewBox="0 0 100 140" role="img" aria-label="${esc(label)}">` +
      `<rect x="1" y="1" width="98" height="138" rx="8" fill="#33506b" stroke="#1e3040" stroke-width="1.5"/>` +
      `<path d="M10 110 Q50 40 90 110" fill="none" stroke="#9fc2de" stroke-width="3"/>` +
      `<text x="50" y="70" class="backtext">${esc(label)}</text></svg>`;
  }

  function landmarkWords(id) {
    const l = S.cards && S.cards.landmarks[id];
    if (!l) return id;
    return `${id} ${l.name}: needs a ${l.scenery} Stretch. ${l.text || l.ability.kind}`;
  }

  /* One Landmark as SVG (viewBox 300 x 60): Scenery band, name, ability. */
  function landmarkSVG(id) {
    const l = S.cards && S.cards.landmarks[id];
    if (!l) return `<svg class="lmcard" viewBox="0 0 300 60" role="img" aria-label="refilled">` +
      `<rect x="1" y="1" width="298" height="58" rx="7" fill="#33506b"/>` +
      `<text x="150" y="35" class="backtext">refilled</text></svg>`;
    let s = `<svg class="lmcard" viewBox="0 0 300 60" role="img" aria-label="${esc(landmarkWords(id))}">`;
    s += `<title>${esc(landmarkWords(id))}</title>`;
    s += `<rect x="1" y="1" width="298" height="58" rx="7" fill="#fffdf6" stroke="#3b3b3b" stroke-width="1.3"/>`;
    s += `<path d="M1 8 a7 7 0 0 1 7 -7 H40 V59 H8 a7 7 0 0 1 -7 -7 Z" fill="${SC_COLOR[l.scenery]}"/>`;
    s += sceneryIcon(l.scenery, 20.5, 24, 11);
    s += `<text x="20.5" y="52" class="lmsc" text-anchor="middle">${esc(l.scenery)}</text>`;
    const name = l.name.length > 30 ? l.name.slice(0, 29) + "\u2026" : l.name;
    s += `<text x="48" y="17" class="lmname">${esc(name)}</text>`;
    s += `<text x="292" y="17" class="cid" text-anchor="end">${esc(id)}</text>`;
    wrap(l.text || l.ability.kind, 46).slice(0, 3).forEach((ln, i) => {
      s += `<text x="48" y="${31 + i * 11}" class="lmtext">${esc(ln)}</text>`;
    });
    s += `</svg>`;
    return s;
  }

  /* A Highway: cards left to right, Landmarks above, qualifying Stretches as bars below. */
  function highwaySVG(highway, landmarks, stretches, scale, highlight) {
    const W = 100, G = 6, LM = 24, LANE = 17;
    const n = highway.length;
    if (!n) return `<p class="muted empty">No Highway yet.</p>`;
    const lanes = stretches.length;
    const width = n * (W + G) - G + 4;
    const height = LM + 140 + (lanes ? 6 + lanes * LANE : 4);
    const pos = {};
    highway.forEach((id, i) => { pos[id] = 2 + i * (W + G); });
    let s = `<svg class="highway" viewBox="0 0 ${width} ${height}" width="${(width * scale).toFixed(0)}" ` +
      `height="${(height * scale).toFixed(0)}" role="img" aria-label="Highway: ${esc(highway.join(", "))}">`;
    for (const lmk of landmarks) {
      const x = pos[lmk.card];
      if (x === undefined) continue;
      const l = S.cards.landmarks[lmk.landmark];
      const col = l ? SC_COLOR[l.scenery] : "#555";
      s += `<g><title>${esc(landmarkWords(lmk.landmark))}</title>` +
        `<rect x="${x}" y="1" width="${W}" height="${LM - 4}" rx="5" fill="${col}"/>` +
        `<text x="${x + W / 2}" y="${LM - 8}" class="lmtag">${esc(lmk.landmark)} ${esc(l ? l.name.slice(0, 12) : "")}</text></g>`;
    }
    highway.forEach((id) => {
      const inner = cardSVG(id, {compact: true}).replace("<svg class=\"card\"",
        `<svg x="${pos[id]}" y="${LM}" width="${W}" height="140" class="card${highlight === id ? " hl" : ""}"`);
      s += inner;
      if (highlight === id) {
        s += `<rect x="${pos[id] - 1}" y="${LM - 1}" width="${W + 2}" height="142" rx="9" fill="none" stroke="#ff9800" stroke-width="4"/>`;
      }
    });
    stretches.forEach((st, k) => {
      const xs = st.cards.map((c) => pos[c]).filter((x) => x !== undefined);
      if (!xs.length) return;
      const x0 = Math.min(...xs), x1 = Math.max(...xs) + W;
      const y = LM + 146 + k * LANE;
      s += `<g><title>${esc(cap(st.scenery))} Stretch: ${st.points} points (${esc(st.cards.join(" "))})</title>` +
        `<rect x="${x0}" y="${y}" width="${x1 - x0}" height="${LANE - 4}" rx="6" fill="${SC_COLOR[st.scenery] || "#555"}" opacity="0.9"/>` +
        `<text x="${x0 + 8}" y="${y + 10}" class="lane">${esc(st.scenery)} Stretch \u00b7 ${st.points} pts</text></g>`;
    });
    s += `</svg>`;
    return s;
  }

  // ------------------------------------------------------------------ table model
  /* The table as the renderer takes it, from a seat's view (bigsur-view/1). */
  function tableFromView(v) {
    return {
      depot: v.depot.slice(), deckCount: v.deck.count, landmarkRow: v.landmark_row.slice(),
      lmDeckCount: v.landmark_deck.count, current: v.current, phase: v.phase, turn: v.turn,
      picks: v.picks, perTurn: v.per_turn, me: v.view_of, firstPlayer: v.first_player,
      seats: v.seats.map((s, i) => i === v.view_of ? {
        hand: s.hand.slice(), handCount: s.hand.length, highway: s.highway.slice(),
        landmarks: s.landmarks.slice(), discardCount: s.discard.length,
        discardTop: s.discard.length ? s.discard[s.discard.length - 1] : null,
        discardTopMaterial: s.discard.length ? matOf(s.discard[s.discard.length - 1]) : null,
        turns: s.turns,
      } : {
        hand: null, handCount: s.hand.count, known: s.hand.known.slice(),
        highway: s.highway.slice(), landmarks: s.landmarks.slice(),
        discardCount: s.discard.materials.length, discardTop: null,
        discardTopMaterial: s.discard.materials.length
          ? s.discard.materials[s.discard.materials.length - 1] : null,
        turns: s.turns,
      }),
    };
  }

  /* The table from a full state (bigsur-position/1) as ``seat`` saw it (others' hands
   * as counts). */
  function tableFromState(st, seat) {
    const t = {
      depot: st.depot.slice(), deckCount: st.deck.length, landmarkRow: st.landmark_row.slice(),
      lmDeckCount: st.landmark_deck.length, current: st.current, phase: st.phase,
      turn: st.turn, picks: st.picks, perTurn: st.per_turn, me: seat,
      firstPlayer: st.first_player, seats: [],
    };
    st.seats.forEach((s, i) => {
      const top = s.discard.length ? s.discard[s.discard.length - 1] : null;
      t.seats.push({
        hand: i === seat ? s.hand.slice() : null, handCount: s.hand.length,
        known: s.known_hand.slice(), highway: s.highway.slice(), landmarks: s.landmarks.slice(),
        discardCount: s.discard.length, discardTop: i === seat ? top : null,
        discardTopMaterial: top ? matOf(top) : null, turns: s.turns,
      });
    });
    return t;
  }

  function matOf(id) {
    const c = S.cards && S.cards.highway[id];
    return c ? c.material : null;
  }

  /* Apply one public action of a log to a table model (for showing AI turns step by
   * step). Cards the page cannot know (refills, deck draws) become unknown slots. */
  function applyPublic(t, entry) {
    const words = entry.action.split(/\s+/);
    const seat = t.seats[entry.seat];
    const verb = words[0];
    if (verb === "take") {
      if (words[1] === "deck") {
        t.deckCount = Math.max(0, t.deckCount - 1);
      } else {
        let i = t.depot.indexOf(words[1]);
        if (i < 0) i = t.depot.indexOf(null);
        if (i >= 0) t.depot.splice(i, 1);
        if (seat.known) seat.known.push(words[1]);
      }
      seat.handCount += 1;
      if (t.picks === 1) { t.phase = "build"; t.picks = 0; } else t.picks = 1;
    } else if (verb === "build") {
      const card = words[1];
      if (words[2] === "L") seat.highway.unshift(card); else seat.highway.push(card);
      seat.handCount = Math.max(0, seat.handCount - 1);
      if (seat.known) seat.known = seat.known.filter((c) => c !== card);
    } else if (verb === "claim") {
      const i = t.landmarkRow.indexOf(words[1]);
      if (i >= 0) t.landmarkRow.splice(i, 1);
      if (t.lmDeckCount > 0) { t.landmarkRow.push(null); t.lmDeckCount -= 1; }
      seat.landmarks.push({landmark: words[1], card: words[2]});
    }
    if (verb === "claim" || verb === "end") {
      while (t.depot.length < 5 && t.deckCount > 0) { t.depot.push(null); t.deckCount -= 1; }
      t.turn += 1;
      t.phase = "take";
      t.picks = 0;
      t.current = (t.current + 1) % t.seats.length;
    }
  }

  // ------------------------------------------------------------------ seats and names
  function seatName(i) {
    const g = S.data || {};
    const info = g.seats ? g.seats[i] : null;
    if (!info) return `Seat ${i}`;
    if (info.kind === "human") {
      const mine = S.game && S.game.tokens[i] !== undefined;
      if (!mine) return `Seat ${i} (human)`;
      return Object.keys(S.game.tokens).length > 1 ? `Seat ${i} (you)` : "You";
    }
    return `Seat ${i} \u00b7 ${info.spec}`;
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

    // status line
    const tpp = turnsPerPlayer(t.seats.length);
    const round = Math.min(tpp || 99, Math.floor(t.turn / t.seats.length) + 1);
    let status;
    if (opts.caption) {
      status = `<b>${esc(opts.caption)}</b>`;
    } else if (d && d.over && !opts.static) {
      status = "<b>The game is over.</b>";
    } else if (opts.static) {
      status = `<b>${esc(opts.staticTitle || "Position")}</b>`;
    } else if (myTurn) {
      status = t.phase === "take"
        ? `<b>Your turn:</b> take ${t.picks === 0 ? "2 cards" : "1 more card"} from the Depot or the deck.`
        : "<b>Your turn:</b> build cards from your hand (select one, then Left or Right), " +
          "claim a Landmark, or end the turn.";
    } else {
      status = `<b>${esc(seatName(t.current))}</b> is playing\u2026`;
    }
    const deckInfo = `Round ${round}${tpp ? " of " + tpp : ""} \u00b7 deck ${t.deckCount}`;
    if (!opts.target) {
      $("status").innerHTML = `<span>${status}</span><span class="muted">${deckInfo}</span>`;
    }

    const root = opts.target || document;
    const q = (id) => opts.target ? opts.target.querySelector("[data-part=" + id + "]") : $(id);

    // Depot
    const takeLegal = new Set(legal.filter((a) => a.startsWith("take ")).map((a) => a.slice(5)));
    q("depot").innerHTML = t.depot.map((id, i) => id === null
      ? `<div class="cardslot">${unknownCardSVG("refilled")}</div>`
      : (opts.static ? `<div class="cardslot" data-card="${esc(id)}">${cardSVG(id)}</div>`
        : cardButton(id, takeLegal.has(id) ? "takeable" : "", `Take ${cardWords(id)} (key ${i + 1})`,
          {act: "take " + id, key: String(i + 1)},
          cardSVG(id, {badge: String(i + 1)})))).join("");
    // Deck
    const deckInner = unknownCardSVG(`${t.deckCount} cards`);
    q("deck").innerHTML = opts.static ? `<div class="cardslot" data-card="deck">${deckInner}</div>`
      : cardButton(null, takeLegal.has("deck") ? "takeable" : "",
        `Take the top card of the deck (${t.deckCount} cards left, key D)`, {act: "take deck"},
        deckInner);
    // Landmark row
    const claims = legal.filter((a) => a.startsWith("claim "));
    const claimable = new Set(claims.map((a) => a.split(" ")[1]));
    q("landmarks").innerHTML = t.landmarkRow.map((id) => id === null
      ? `<div class="lmslot">${landmarkSVG(null)}</div>`
      : (opts.static ? `<div class="lmslot" data-card="${esc(id)}">${landmarkSVG(id)}</div>`
        : `<button type="button" class="cardbtn lm ${claimable.has(id) ? "claimable" : ""}" ` +
          `data-claim="${esc(id)}" aria-label="${esc("Claim " + landmarkWords(id))}">` +
          `${landmarkSVG(id)}</button>`)).join("");
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
        ? `<span class="matchip" style="background:${MAT_COLOR[s.discardTopMaterial]}">${esc(s.discardTopMaterial)}</span>` +
          (s.discardTop ? ` <span class="muted">(${esc(s.discardTop)})</span>` : "")
        : "<span class=\"muted\">empty</span>";
      const known = s.known && s.known.length && i !== mine
        ? ` \u00b7 known: ${s.known.map(esc).join(" ")}` : "";
      const acting = i === t.current && !(d && d.over && !opts.static);
      return `<div class="seat panel${acting ? " acting" : ""}${i === mine ? " me" : ""}" ` +
        `style="--seat:${SEAT_COLOR[i % 4]}" aria-label="${esc(seatName(i))}">` +
        `<div class="seat-head"><h2 class="small"><span class="dot"></span>${esc(i === mine && !opts.static ? "Your Highway" : seatName(i) + (opts.static && i === mine ? " (to act)" : ""))}</h2>` +
        `<span class="score" title="${esc(br)}">${total} pts</span>` +
        `<span class="muted small">hand ${s.handCount}${known} \u00b7 discard ${s.discardCount}, top ${top}` +
        `${s.landmarks.length ? " \u00b7 " + s.landmarks.length + " Landmark(s)" : ""}</span></div>` +
        `<div class="hwwrap">${highwaySVG(s.highway, s.landmarks, stretchesFrom(sc), scale,
          opts.highlight && opts.highlight.seat === i ? opts.highlight.card : null)}</div></div>`;
    };
    // Highway cards as large as the width allows (a long road shrinks to fit)
    const avail = Math.max(400, (q("seats").clientWidth || 960) - 40);
    const fit = (i, most) => Math.min(most, avail / Math.max(1, t.seats[i].highway.length * 106));
    q("seats").innerHTML = seatHTML(mine, fit(mine, 0.75)) +
      order.map((i) => seatHTML(i, fit(i, t.seats.length > 2 ? 0.55 : 0.66))).join("");

    // Hand
    const me = t.seats[mine];
    const buildable = new Set(legal.filter((a) => a.startsWith("build ")).map((a) => a.split(" ")[1]));
    if (S.selected && me.hand && !me.hand.includes(S.selected)) S.selected = null;
    q("hand").innerHTML = (me.hand || []).map((id) => opts.static
      ? `<div class="cardslot" data-card="${esc(id)}">${cardSVG(id)}</div>`
      : cardButton(id, (buildable.has(id) ? "buildable" : "") + (S.selected === id ? " selected" : ""),
        `${S.selected === id ? "Selected: " : "Select "}${cardWords(id)}${buildable.has(id) ? " (you can build it)" : ""}`,
        {select: id})).join("") || "<p class=\"muted\">Empty.</p>";
    if (!opts.target) {
      const pay = d && d.payments;
      $("handinfo").textContent = myTurn && t.phase === "build"
        ? (buildable.size ? `You can pay for: ${[...buildable].join(", ")}` +
          (pay ? "" : "") : "You cannot pay for any card now.")
        : "";
      root.dispatchEvent(new Event("bigsur:rendered"));
    }
  }

  function renderActions() {
    const d = S.data;
    const bar = $("actionbar");
    if (!d || d.over) { bar.innerHTML = ""; $("paybox").hidden = true; return; }
    const t = d.view;
    const legal = d.legal_actions || [];
    const myTurn = d.your_turn && !S.animating;
    const parts = [];
    if (t.phase === "build" && myTurn) {
      const sel = S.selected;
      const pay = sel && d.payments && d.payments[sel];
      const payText = pay ? ` \u2014 pay ${pay.steps.join(" ") || "nothing"} (${pay.cards_spent} card${pay.cards_spent === 1 ? "" : "s"} from hand)` : "";
      const noRoad = t.seats[t.view_of].highway.length === 0;
      parts.push(`<span class="sel">${sel ? `Selected <b>${esc(sel)}</b>${esc(payText)}` : "Select a card of your hand to build it."}</span>`);
      const dis = sel ? "" : "aria-disabled=\"true\"";
      if (noRoad) {
        parts.push(`<button type="button" data-build="L" ${dis}>Build (starts your road) <kbd>L</kbd>/<kbd>R</kbd></button>`);
      } else {
        parts.push(`<button type="button" data-build="L" ${dis}>Build left <kbd>L</kbd></button>`);
        parts.push(`<button type="button" data-build="R" ${dis}>Build right <kbd>R</kbd></button>`);
      }
      parts.push(`<button type="button" data-custompay="1" ${sel ? "" : "aria-disabled=\"true\""}>Choose payment\u2026 <kbd>P</kbd></button>`);
      const claims = legal.filter((a) => a.startsWith("claim "));
      if (claims.length) {
        parts.push(`<span class="claims" role="group" aria-label="Landmark claims">Claim: ` + claims.map((a) => {
          const [, lm, card] = a.split(" ");
          const l = S.cards.landmarks[lm];
          return `<button type="button" class="claimbtn" data-act="${esc(a)}" ` +
            `title="${esc(landmarkWords(lm))}">${esc(lm)} ${esc(l ? l.name : "")} above ${esc(card)}</button>`;
        }).join("") + `</span>`);
      }
      parts.push(`<button type="button" data-act="end" class="endbtn">End turn <kbd>E</kbd></button>`);
    } else if (t.phase === "take" && myTurn) {
      parts.push(`<span class="sel">Click a Depot card <kbd>1</kbd>\u2013<kbd>5</kbd> or the deck <kbd>D</kbd>.</span>`);
      parts.push(`<button type="button" data-act="take deck">Take from deck <kbd>D</kbd></button>`);
    } else {
      parts.push(`<span class="sel muted">${S.animating ? "The AI is playing (Esc to skip)." : "Waiting for " + esc(seatName(t.current)) + "\u2026"}</span>`);
    }
    bar.innerHTML = parts.join("");
    if (S.paying && (!myTurn || t.phase !== "build")) closePayBox();
  }

  function renderLog() {
    const d = S.data;
    const log = $("log");
    if (!d) { log.innerHTML = ""; return; }
    let html = "";
    let lastTurnSeat = null;
    for (const e of d.log) {
      const newTurn = lastTurnSeat !== e.seat;
      lastTurnSeat = e.seat;
      html += `<li class="${newTurn ? "newturn" : ""}" style="--seat:${SEAT_COLOR[e.seat % 4]}" data-index="${e.index}">` +
        `<span class="who">${esc(seatName(e.seat))}</span> <code>${esc(e.action)}</code></li>`;
    }
    log.innerHTML = html;
    log.scrollTop = log.scrollHeight;
  }

  /* A hint's payment plan in words; tolerant of the two shapes the search has used
   * (per build: ``pay`` [{material, source, cards}] or ``steps`` in the notation). */
  function paymentText(plan) {
    if (!plan || !Array.isArray(plan.builds) || !plan.builds.length) return "";
    const parts = plan.builds.map((b) => {
      let how;
      if (Array.isArray(b.pay)) {
        how = b.pay.map((p) => `${p.material} by ${String(p.source || "").replace(/_/g, " ")}` +
          (p.cards && p.cards.length ? ` (${p.cards.join(" ")})` : "")).join(", ");
      } else if (Array.isArray(b.steps)) {
        how = b.steps.join(" ");
      } else {
        how = b.action || "";
      }
      return `${b.card}: ${how || "nothing to pay"}`;
    });
    const n = plan.cards_spent;
    return parts.join("; ") + (typeof n === "number" ? ` \u2014 ${n} card${n === 1 ? "" : "s"} from hand` : "");
  }

  function renderHint() {
    const box = $("hint");
    const h = S.hint;
    if (!S.data || S.data.over) { box.innerHTML = ""; return; }
    if (!h) { box.innerHTML = "<p class=\"muted\">Ask for the search's best moves here.</p>"; return; }
    if (h.pending) { box.innerHTML = "<p class=\"muted\">Searching\u2026</p>"; return; }
    if (h.n !== S.data.actions_applied) {
      box.innerHTML = "<p class=\"muted\">Ask for the search's best moves in this position.</p>";
      return;
    }
    const r = h.result;
    const moves = r.moves.slice(0, 5);
    let html = `<ol class="hintlist">`;
    moves.forEach((m, k) => {
      const pay = paymentText(m.payment);
      html += `<li><div class="hintrow"><b>${esc(m.label || m.actions.join(", "))}</b></div>` +
        `<div class="hintnums"><span title="estimated chance to win">win ${pct(m.win_probability)}</span>` +
        `<span title="expected score minus the best other score">${signed(m.expected_margin)} pts</span>` +
        `<span class="muted">${m.visits} visits</span></div>` +
        `<div class="muted small"><code>${esc(m.actions.join(" ; "))}</code></div>` +
        (pay ? `<div class="small">payment: ${esc(pay)}</div>` : "") +
        (m.line && m.line.length ? `<div class="small muted">then: ${esc(m.line.join(" ; "))}</div>` : "") +
        `<button type="button" class="playhint" data-hint="${k}">Play this</button></li>`;
    });
    html += `</ol><p class="muted small">${r.stats && r.stats.iterations ? r.stats.iterations + " iterations, " : ""}` +
      `${r.elapsed_ms ? (r.elapsed_ms / 1000).toFixed(1) + " s" : ""}</p>`;
    box.innerHTML = html;
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
      ["Landmarks (count)", "landmark_count"], ["Landmark abilities", "landmark_abilities"]];
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
        s.details.map((x) => `<li>${x.points} \u2014 ${esc(x.what)}${x.cards ? " (" + esc(x.cards.join(" ")) + ")" : ""}</li>`).join("") +
        `</ul></div>`).join("") + `</div></details>`;
    $("final-body").innerHTML = html;
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
    await refreshScores();
    const t = tableFromView(d.view);
    renderTable(t, {legal: d.legal_actions, scores: S.scores ? S.scores.scores : []});
    renderActions();
    renderLog();
    renderHint();
    renderFinal();
    $("hint-btn").disabled = !d.your_turn || d.over;
    $("nav-game").hidden = false;
    $("nav-review").hidden = !d.over;
  }

  // ------------------------------------------------------------------ playing
  async function fetchGame() {
    const token = activeToken(S.data ? S.data.to_act : null);
    let d = await api("GET", `/v1/games/${encodeURIComponent(S.game.id)}`, undefined, token);
    // hot-seat: look from the seat to act when it is one of ours
    if (!d.over && d.to_act !== d.seat && tokenFor(d.to_act) !== undefined) {
      d = await api("GET", `/v1/games/${encodeURIComponent(S.game.id)}`, undefined, tokenFor(d.to_act));
    }
    return d;
  }

  async function waitForAI(d) {
    while (d && d.ai_thinking && !d.over) {
      await sleep(400);
      d = await fetchGame();
    }
    return d;
  }

  /* Show the moves between two seat responses, AI moves one by one, then the new table. */
  async function transition(prev, next) {
    const speed = Number($("ai-speed").value);
    const fresh = next.log.slice(prev ? prev.log.length : next.log.length);
    const others = fresh.filter((e) => S.game.tokens[e.seat] === undefined);
    S.data = next;
    if (!prev || speed === 0 || !others.length || prev.seat !== next.seat) {
      await renderGame();
      return;
    }
    S.animating = true;
    S.skip = false;
    $("skip-btn").hidden = false;
    renderActions();
    renderLog();
    const t = tableFromView(prev.view);
    // my own seat cannot change during others' moves: show it as it is now
    t.seats[next.seat] = tableFromView(next.view).seats[next.seat];
    try {
      for (const e of fresh) {
        applyPublic(t, e);
        if (e.seat === next.seat || S.skip) continue;
        const [verb, card, side] = e.action.split(" ");
        let what = e.action;
        if (verb === "take") what = card === "deck" ? "takes the top card of the deck" : `takes ${card} from the Depot`;
        if (verb === "build") what = `builds ${card} at the ${side === "L" ? "left" : "right"} end`;
        if (verb === "claim") what = `claims ${card} (${S.cards.landmarks[card] ? S.cards.landmarks[card].name : ""}) above ${side}`;
        if (verb === "end") what = "ends the turn";
        renderTable(t, {animating: true, caption: `${seatName(e.seat)} ${what}`,
          highlight: verb === "build" ? {seat: e.seat, card} : null,
          scores: S.scores ? S.scores.scores : []});
        highlightLog(e.index);
        await sleepSkippable(speed);
      }
    } finally {
      S.animating = false;
      $("skip-btn").hidden = true;
    }
    await renderGame();
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

  /* Send one action; the server checks it (its 4xx message is shown when refused). */
  async function act(text) {
    if (!S.data || !S.game) return false;
    if (S.animating) { showError("Wait for the AI's moves to finish (or press Esc to skip)."); return false; }
    if (S.busy) { showError("Wait: the previous action is still on its way to the server."); return false; }
    clearError();
    S.busy = true;
    setBusy(true);
    const prev = S.data;
    const token = activeToken(prev.to_act);
    try {
      const actionId = `${S.game.id}:${prev.actions_applied}:${Date.now()}:${++actionCounter}`;
      let d = await api("POST", `/v1/games/${encodeURIComponent(S.game.id)}/actions`,
        {action: text, action_id: actionId}, token);
      d = await waitForAI(d);
      if (!d.over && d.to_act !== d.seat && tokenFor(d.to_act) !== undefined) d = await fetchGame();
      if (d.view.phase !== "build" || d.actions_applied !== prev.actions_applied + 1) S.selected = null;
      closePayBox();
      await transition(prev, d);
      return true;
    } catch (e) {
      showError(e);
      return false;
    } finally {
      S.busy = false;
      setBusy(false);
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
    if (!h || !h.result || h.n !== S.data.actions_applied) return;
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

  async function askHint() {
    const d = S.data;
    if (!d || d.over) return;
    if (!d.your_turn) { showError("A hint is for your own turn."); return; }
    clearError();
    const [kind, val] = $("hint-budget").value.split(":");
    S.hint = {pending: true};
    renderHint();
    try {
      const result = await api("POST", `/v1/games/${encodeURIComponent(S.game.id)}/hint`,
        {budget: {[kind]: Number(val)}, seed: d.actions_applied}, activeToken(d.to_act));
      S.hint = {n: d.actions_applied, result};
    } catch (e) {
      S.hint = null;
      showError(e);
    }
    renderHint();
  }

  function build(side) {
    if (!S.selected) { showError("Select a card of your hand first ([ and ] or click it)."); return; }
    const v = S.data.view;
    if (!v.seats[v.view_of].highway.length) side = "L"; // the first card starts the road
    act(`build ${S.selected} ${side}`);
  }

  // -------------------------------------------------- custom payment
  function openPayBox() {
    const d = S.data;
    if (!d || !S.selected) { showError("Select a card of your hand first."); return; }
    if (d.view.phase !== "build" || !d.your_turn) {
      showError("Payments are made in your build step.");
      return;
    }
    S.paying = {card: S.selected};
    const v = d.view;
    const me = v.seats[v.view_of];
    const sugg = d.payments && d.payments[S.selected];
    const c = S.cards.highway[S.selected];
    const others = me.hand.filter((h) => h !== S.selected);
    const used = v.per_turn.persistent_used || {};
    const per = me.highway.filter((h) => S.cards.highway[h] && S.cards.highway[h].persistent);
    let html = `<h3 class="small">Pay for ${esc(S.selected)} (cost: ${c.cost.join(", ")})</h3>` +
      `<p class="muted small">Add payment steps in order (each supplies one Material); the ` +
      `last discarded card becomes the top of your discard pile. The server checks it.</p>` +
      `<div class="paychips" role="group" aria-label="Payment steps">`;
    html += others.map((h) => `<button type="button" class="chipbtn" data-step="${esc(h)}" title="${esc(cardWords(h))}">` +
      `discard ${esc(h)} <span class="matchip" style="background:${MAT_COLOR[S.cards.highway[h].material]}">${esc(S.cards.highway[h].material)}</span></button>`).join("");
    const top = me.discard.length ? me.discard[me.discard.length - 1] : null;
    if (top) {
      html += `<button type="button" class="chipbtn" data-step="rec" ${v.per_turn.recycle_used ? "aria-disabled=\"true\"" : ""}>recycle ` +
        `<span class="matchip" style="background:${MAT_COLOR[matOf(top)]}">${esc(matOf(top))}</span></button>`;
    }
    html += per.map((h) => `<button type="button" class="chipbtn" data-step="per:${esc(h)}">persistent ${esc(h)} ` +
      `<span class="matchip" style="background:${MAT_COLOR[S.cards.highway[h].persistent]}">${esc(S.cards.highway[h].persistent)}</span>` +
      `${used[h] ? " (used)" : ""}</button>`).join("");
    html += `</div>`;
    html += `<p class="small muted">Substitution: <code>sub:A+B+C=material</code>; Landmark borrowing: ` +
      `<code>bh:SEAT:CARD</code>, <code>bd:SEAT</code>.</p>`;
    html += `<label for="pay-steps">Steps</label> <input id="pay-steps" type="text" size="40" ` +
      `value="${esc(sugg ? sugg.steps.join(" ") : "")}" spellcheck="false">` +
      ` <button type="button" id="pay-clear">Clear</button>` +
      `<div class="actionbar"><button type="button" data-paybuild="L">Build left with this payment</button>` +
      `<button type="button" data-paybuild="R">Build right with this payment</button>` +
      `<button type="button" id="pay-cancel">Cancel <kbd>Esc</kbd></button></div>`;
    const box = $("paybox");
    box.innerHTML = html;
    box.hidden = false;
    $("pay-steps").focus();
  }

  function closePayBox() { S.paying = null; $("paybox").hidden = true; $("paybox").innerHTML = ""; }

  function payBuild(side) {
    const steps = $("pay-steps").value.trim();
    if (!steps) { showError("Add at least one payment step (or use Build left/right for the cheapest)."); return; }
    const v = S.data.view;
    if (!v.seats[v.view_of].highway.length) side = "L"; // the first card starts the road
    act(`build ${S.paying.card} ${side} pay ${steps}`);
  }

  // ------------------------------------------------------------------ setup
  function renderSeatChoices() {
    const n = Number($("setup-players").value);
    const box = $("setup-seats");
    const old = [...box.querySelectorAll("select")].map((s) => s.value);
    let html = "";
    for (let i = 0; i < n; i++) {
      const val = old[i] || (i === 0 ? "human" : "greedy");
      html += `<label for="seat-${i}">Seat ${i}</label><select id="seat-${i}" data-seat="${i}">` +
        AI_CHOICES.map(([v, l]) => `<option value="${v}"${v === val ? " selected" : ""}>${l}</option>`).join("") +
        `</select>`;
    }
    box.innerHTML = html;
  }

  async function startGame(ev) {
    ev.preventDefault();
    clearError();
    const players = Number($("setup-players").value);
    const seats = [...$("setup-seats").querySelectorAll("select")].map((s) => s.value);
    const seedText = $("setup-seed").value.trim();
    const body = {players, seats, cards: $("setup-cards").value || "default"};
    if (seedText !== "") body.seed = Number(seedText);
    $("setup-start").disabled = true;
    setBusy(true);
    try {
      const g = await api("POST", "/v1/games", body);
      const tokens = {};
      for (const t of g.tokens) tokens[t.seat] = t.token;
      S.game = {id: g.game_id, tokens, cards: body.cards};
      localStorage.setItem(STORE_KEY, JSON.stringify(S.game));
      S.data = null; S.hint = null; S.scores = null; S.selected = null; S.review = null;
      await loadCards(body.cards);
      let d = await fetchGame();
      d = await waitForAI(d);
      S.data = d;
      show("game");
      await renderGame();
    } catch (e) {
      showError(e);
    } finally {
      $("setup-start").disabled = false;
      setBusy(false);
    }
  }

  async function resume() {
    const raw = localStorage.getItem(STORE_KEY);
    if (!raw) return false;
    let saved;
    try { saved = JSON.parse(raw); } catch (e) { localStorage.removeItem(STORE_KEY); return false; }
    if (!saved || !saved.id || !saved.tokens) { localStorage.removeItem(STORE_KEY); return false; }
    S.game = saved;
    try {
      await loadCards(saved.cards || "default");
      let d = await fetchGame();
      S.data = d;
      show(saved.view === "review" && d.over ? "review" : "game");
      await renderGame();
      if (d.ai_thinking) {
        const prev = d;
        d = await waitForAI(d);
        await transition(prev, d);
      }
      if (S.view === "review") await openReview(false);
      return true;
    } catch (e) {
      if (e instanceof ApiError && [401, 403, 404].includes(e.status)) {
        localStorage.removeItem(STORE_KEY);
        S.game = null;
        showError(new ApiError(e.status, null, "The saved game is gone from the server: " + e.message));
        return false;
      }
      showError(e);
      return false;
    }
  }

  function show(view) {
    S.view = view;
    for (const v of ["setup", "game", "review"]) $(v).hidden = v !== view;
    for (const b of document.querySelectorAll(".nav[data-view]")) {
      b.setAttribute("aria-current", b.dataset.view === view ? "page" : "false");
    }
    if (S.game) {
      S.game.view = view;
      localStorage.setItem(STORE_KEY, JSON.stringify(S.game));
    }
    $("setup-resume").hidden = !(view === "setup" && S.game && S.data && !S.data.over);
  }

  // ------------------------------------------------------------------ review
  function reviewKey() { return S.game ? "bigsur.review." + S.game.id : null; }

  async function openReview(run) {
    if (!S.data || !S.data.over) { showError("The review opens once the game is over."); return; }
    show("review");
    if (!S.review) {
      const saved = localStorage.getItem(reviewKey());
      S.review = saved ? JSON.parse(saved) : {};
    }
    if (S.review.result) { renderReview(); return; }
    if (run) await runReview();
    else renderReview();
  }

  async function runReview() {
    clearError();
    const btn = $("review-run");
    btn.disabled = true;
    const prog = $("review-progress");
    try {
      const record = await api("GET", `/v1/games/${encodeURIComponent(S.game.id)}/record`,
        undefined, activeToken(null));
      const [kind, val] = $("review-budget").value.split(":");
      let job = await api("POST", "/v1/analyze", {record, budget: {[kind]: Number(val)}, seed: 0});
      prog.hidden = false;
      while (job.status === "queued" || job.status === "running") {
        prog.max = Math.max(1, job.progress.total);
        prog.value = job.progress.done;
        $("review-status").textContent = `Analysing: ${job.progress.done} of ${job.progress.total} decisions`;
        await sleep(500);
        job = await api("GET", "/v1/analyze/" + encodeURIComponent(job.job_id));
      }
      if (job.status !== "done") {
        throw new ApiError(422, null, "the analysis failed: " + (job.error ? job.error.message : "unknown error"));
      }
      S.review = {record, result: job.result, budget: job.budget, selected: null};
      try { localStorage.setItem(reviewKey(), JSON.stringify(S.review)); } catch (e) { /* full */ }
      $("review-status").textContent = "";
      renderReview();
    } catch (e) {
      $("review-status").textContent = "";
      showError(e);
    } finally {
      btn.disabled = false;
      prog.hidden = true;
    }
  }

  function renderReview() {
    const rv = S.review || {};
    const res = rv.result;
    $("review-run").textContent = res ? "Analyse again" : "Analyse";
    if (!res) {
      $("review-summary").innerHTML = "<p>Press <b>Analyse</b> to review every decision of the game.</p>";
      $("review-graph").innerHTML = "";
      $("review-list").innerHTML = "";
      return;
    }
    const budget = res.budget && (res.budget.iterations ? res.budget.iterations + " iterations" : res.budget.ms ? res.budget.ms + " ms" : "");
    $("review-summary").innerHTML = `<table class="scores"><thead><tr><th scope="col">Seat</th><th scope="col">Accuracy</th>` +
      `<th scope="col">Inaccuracies</th><th scope="col">Mistakes</th><th scope="col">Blunders</th><th scope="col">Mean loss</th><th scope="col">Score</th></tr></thead><tbody>` +
      res.players.map((p) => `<tr><th scope="row" style="color:${SEAT_COLOR[p.seat % 4]}">${esc(seatName(p.seat))}</th>` +
        `<td>${p.accuracy === null ? "\u2014" : p.accuracy.toFixed(1)}</td><td>${p.inaccuracies}</td><td>${p.mistakes}</td>` +
        `<td>${p.blunders}</td><td>${p.mean_loss_win_pct === null ? "\u2014" : p.mean_loss_win_pct.toFixed(1) + " win-%, " + p.mean_loss_points.toFixed(1) + " pts"}</td>` +
        `<td>${res.final_scores ? res.final_scores[p.seat] : ""}</td></tr>`).join("") +
      `</tbody></table><p class="muted small">${res.decisions.length} decisions, search ${esc(budget)} each.</p>`;
    $("review-graph").innerHTML = graphSVG(res, rv.record ? rv.record.actions.length : 0);
    renderReviewList();
  }

  function graphSVG(res, nActions) {
    const W = 860, H = 266, L = 44, R = 12, T = 30, B = 34;
    const n = Math.max(1, nActions || (res.decisions.length ? res.decisions[res.decisions.length - 1].index + 1 : 1));
    const x = (i) => L + (W - L - R) * (i / n);
    const y = (p) => T + (H - T - B) * (1 - p);
    let s = `<svg class="graphsvg" viewBox="0 0 ${W} ${H}" role="img" aria-label="Win probability over the game">`;
    s += `<rect x="${L}" y="${T}" width="${W - L - R}" height="${H - T - B}" fill="#fff" stroke="#bbb"/>`;
    for (const p of [0, 0.25, 0.5, 0.75, 1]) {
      s += `<line x1="${L}" x2="${W - R}" y1="${y(p)}" y2="${y(p)}" stroke="#ddd" ${p === 0.5 ? "stroke-dasharray=\"4 3\" stroke=\"#999\"" : ""}/>` +
        `<text x="${L - 6}" y="${y(p) + 4}" class="axis" text-anchor="end">${p * 100}%</text>`;
    }
    // turn ticks
    let lastTurn = -1;
    for (const dcs of res.decisions) {
      if (dcs.turn !== lastTurn && dcs.turn % 2 === 0) {
        s += `<line x1="${x(dcs.index)}" x2="${x(dcs.index)}" y1="${H - B}" y2="${H - B + 4}" stroke="#888"/>` +
          `<text x="${x(dcs.index)}" y="${H - B + 16}" class="axis" text-anchor="middle">${dcs.turn + 1}</text>`;
      }
      lastTurn = dcs.turn;
    }
    s += `<text x="${(L + W - R) / 2}" y="${H - 4}" class="axis" text-anchor="middle">turn</text>`;
    const seats = res.players.map((p) => p.seat);
    for (const seat of seats) {
      const pts = res.decisions.filter((dc) => dc.seat === seat && dc.value_before)
        .map((dc) => [x(dc.index), y(dc.value_before.win_probability)]);
      if (!pts.length) continue;
      s += `<polyline class="seatline" fill="none" stroke="${SEAT_COLOR[seat % 4]}" stroke-width="2.2" ` +
        `points="${pts.map((p) => p[0].toFixed(1) + "," + p[1].toFixed(1)).join(" ")}"/>`;
    }
    for (const dc of res.decisions) {
      if (!dc.label || !dc.value_before) continue;
      const px = x(dc.index), py = y(dc.value_before.win_probability);
      s += `<g class="mark" tabindex="0" role="button" data-decision="${dc.index}" ` +
        `aria-label="${esc(`${dc.label}: ${seatName(dc.seat)} played ${dc.played} (move ${dc.index + 1})`)}">` +
        `<title>${esc(`${cap(dc.label)}, move ${dc.index + 1}: ${dc.played}`)}</title>` +
        `<circle cx="${px.toFixed(1)}" cy="${py.toFixed(1)}" r="${dc.label === "blunder" ? 7 : dc.label === "mistake" ? 6 : 5}" ` +
        `fill="${LABEL_COLOR[dc.label]}" stroke="${SEAT_COLOR[dc.seat % 4]}" stroke-width="2"/></g>`;
    }
    // legend
    seats.forEach((seat, k) => {
      s += `<g transform="translate(${L + k * 170} 4)"><rect width="14" height="4" y="4" fill="${SEAT_COLOR[seat % 4]}"/>` +
        `<text x="20" y="11" class="axis">${esc(seatName(seat))}</text></g>`;
    });
    Object.entries(LABEL_COLOR).forEach(([label, color], k) => {
      s += `<g transform="translate(${W - R - 300 + k * 100} 4)"><circle cx="6" cy="6" r="5" fill="${color}"/>` +
        `<text x="15" y="11" class="axis">${label}</text></g>`;
    });
    s += `</svg>`;
    return s;
  }

  function renderReviewList() {
    const res = S.review.result;
    const filter = $("review-filter").value;
    const items = res.decisions.filter((dc) => filter === "all" || dc.label);
    const sel = S.review.selected;
    $("review-list").innerHTML = items.map((dc) => {
      const loss = dc.loss_win_pct === null || dc.loss_win_pct === undefined ? "" :
        ` \u2212${dc.loss_win_pct.toFixed(1)} win-%, \u2212${dc.loss_points.toFixed(1)} pts`;
      return `<li><button type="button" class="decision${sel === dc.index ? " selected" : ""}" data-decision="${dc.index}">` +
        `<span class="num">${dc.index + 1}.</span> <span class="who" style="color:${SEAT_COLOR[dc.seat % 4]}">${esc(seatName(dc.seat))}</span> ` +
        `<code>${esc(dc.played)}</code> ` +
        (dc.label ? `<span class="lab ${dc.label}">${dc.label}</span>` : `<span class="muted small">${dc.how}</span>`) +
        `<span class="muted small">${loss}</span></button></li>`;
    }).join("") || `<li class="muted">No labelled decisions: choose "all".</li>`;
  }

  async function selectDecision(index) {
    const res = S.review && S.review.result;
    if (!res) return;
    const dc = res.decisions.find((x) => x.index === index);
    if (!dc) return;
    S.review.selected = index;
    renderReviewList();
    const box = $("review-detail");
    const v = (val) => val ? `win ${pct(val.win_probability)}, ${signed(val.expected_margin)} pts` : "\u2014";
    let html = `<h2 class="small">Move ${dc.index + 1}: ${esc(seatName(dc.seat))}, turn ${dc.turn + 1}, ${esc(dc.phase)} step</h2>` +
      `<dl class="cmp"><dt>Played</dt><dd><code>${esc(dc.played)}</code> \u2014 ${v(dc.value_played)}` +
      (dc.label ? ` <span class="lab ${dc.label}">${dc.label}</span>` : "") + `</dd>` +
      `<dt>Better</dt><dd>${dc.best ? "<code>" + esc(dc.best.join(" ; ")) + "</code>" : "\u2014"} \u2014 ${v(dc.value_best)}</dd>` +
      `<dt>Before</dt><dd>${v(dc.value_before)}</dd>` +
      `<dt>Loss</dt><dd>${dc.loss_win_pct === null ? "not rated (" + esc(dc.how) + ")" : dc.loss_win_pct.toFixed(1) + " win-% points, " + dc.loss_points.toFixed(1) + " expected points"}</dd></dl>`;
    html += `<p class="small muted">In the position below: <span class="key played">the move played</span> ` +
      `<span class="key better">the better move</span> (Depot, deck, Landmark or hand card).</p>`;
    html += `<div class="review-table" data-part="wrap"><p class="muted">Loading the position\u2026</p></div>`;
    box.innerHTML = html;
    const wrapEl = box.querySelector("[data-part=wrap]");
    try {
      const st = await api("GET", `/v1/games/${encodeURIComponent(S.game.id)}/positions/${dc.index}`,
        undefined, activeToken(null));
      const t = tableFromState(st, dc.seat);
      let scores = [];
      try { scores = (await api("POST", "/v1/score", {position: st})).scores; } catch (e) { scores = []; }
      wrapEl.innerHTML = `<div class="minitable"><div class="market"><div class="market-part"><h3 class="small">Depot</h3><div class="cardrow" data-part="depot"></div></div>` +
        `<div class="market-part deck-part"><h3 class="small">Deck</h3><div data-part="deck"></div></div>` +
        `</div><h3 class="small">Landmarks</h3><div data-part="landmarks"></div>` +
        `<div data-part="seats"></div><h3 class="small">${esc(seatName(dc.seat) === "You" ? "Your" : seatName(dc.seat) + "'s")} hand</h3><div class="cardrow" data-part="hand"></div></div>`;
      renderTable(t, {static: true, target: wrapEl, scores,
        highlight: null, staticTitle: "Position"});
      // the cards of the move played and of the better move, outlined
      const mark = (actions, cls) => {
        for (const a of actions) {
          const words = a.split(/\s+/);
          const verb = words[0];
          const ids = verb === "take" ? [words[1]] : verb === "build" || verb === "claim"
            ? [words[1]] : [];
          for (const id of ids) {
            wrapEl.querySelectorAll(`[data-card="${CSS.escape(id)}"]`).forEach((el) => el.classList.add(cls));
          }
        }
      };
      mark([dc.played], "played");
      mark(dc.best || [], "better");
    } catch (e) {
      wrapEl.innerHTML = e instanceof ApiError && e.status === 404
        ? `<p class="muted">This server cannot show past positions (no GET /v1/games/{id}/positions/{n}).</p>`
        : `<p class="muted">The position could not be loaded: ${esc(e.message)}</p>`;
    }
  }

  async function downloadRecord() {
    try {
      const record = await api("GET", `/v1/games/${encodeURIComponent(S.game.id)}/record`,
        undefined, activeToken(null));
      const blob = new Blob([JSON.stringify(record, null, 1)], {type: "application/json"});
      const a = document.createElement("a");
      a.href = URL.createObjectURL(blob);
      a.download = `bigsur-${S.game.id}.json`;
      document.body.appendChild(a);
      a.click();
      a.remove();
    } catch (e) { showError(e); }
  }

  // ------------------------------------------------------------------ events
  function onClick(ev) {
    const el = ev.target.closest("button, [data-decision]");
    if (!el) return;
    if (el.getAttribute("aria-disabled") === "true") {
      if (el.dataset.build || el.dataset.custompay) showError("Select a card of your hand first.");
      else if (el.dataset.step === "rec") showError("Recycling is used once per turn and you have used it.");
      return;
    }
    const ds = el.dataset;
    if (el.id === "pay-clear") { $("pay-steps").value = ""; $("pay-steps").focus(); return; }
    if (el.id === "pay-cancel") { closePayBox(); return; }
    if (ds.act) { act(ds.act); return; }
    if (ds.select) {
      S.selected = S.selected === ds.select ? null : ds.select;
      renderGame().then(() => {
        const again = document.querySelector(`button[data-select="${CSS.escape(ds.select)}"]`);
        if (again) again.focus();
      });
      return;
    }
    if (ds.build) { build(ds.build); return; }
    if (ds.custompay) { openPayBox(); return; }
    if (ds.paybuild) { payBuild(ds.paybuild); return; }
    if (ds.step) {
      const inp = $("pay-steps");
      inp.value = (inp.value.trim() + " " + ds.step).trim();
      return;
    }
    if (ds.claim) {
      const claims = (S.data && S.data.legal_actions || []).filter((a) => a.startsWith("claim " + ds.claim + " "));
      if (claims.length === 1) { act(claims[0]); return; }
      if (claims.length > 1) {
        const first = document.querySelector(`.claimbtn[data-act^="claim ${CSS.escape(ds.claim)} "]`);
        if (first) first.focus();
        $("status").innerHTML = `<span><b>Choose the Highway card</b> to place ${esc(ds.claim)} above (buttons under your hand).</span>`;
        return;
      }
      // not claimable now: let the server explain why (it names the reason)
      const me = S.data.view.seats[S.data.view.view_of];
      const l = S.cards.landmarks[ds.claim];
      const card = me.highway.find((h) => S.cards.highway[h].scenery.includes(l.scenery)) || me.highway[0];
      if (!card) { showError(`To claim ${ds.claim} you need a ${l.scenery} Stretch in your Highway; your Highway is empty.`); return; }
      act(`claim ${ds.claim} ${card}`);
      return;
    }
    if (ds.hint !== undefined && el.classList.contains("playhint")) { playHint(Number(ds.hint)); return; }
    if (ds.decision !== undefined) { selectDecision(Number(ds.decision)); return; }
    if (ds.view) {
      if (ds.view === "setup") { show("setup"); $("setup-players").focus(); }
      else if (ds.view === "game") { show("game"); renderGame(); }
      else if (ds.view === "review") openReview(false);
    }
  }

  function onKey(ev) {
    const tag = (ev.target.tagName || "").toLowerCase();
    if (ev.key === "Escape") {
      if (S.animating) { S.skip = true; return; }
      if (S.paying) { closePayBox(); return; }
      if (!$("keys").hidden) { toggleKeys(); return; }
      clearError();
      return;
    }
    if (["input", "select", "textarea"].includes(tag) || ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if ((ev.key === "Enter" || ev.key === " ") && ev.target.dataset && ev.target.dataset.decision !== undefined
        && ev.target.tagName.toLowerCase() === "g") {
      ev.preventDefault();
      selectDecision(Number(ev.target.dataset.decision));
      return;
    }
    const k = ev.key;
    if (/^[1-5dehlrpcnv?[\]]$/i.test(k)) ev.preventDefault(); // a shortcut: not typed too
    if (k === "?") { toggleKeys(); return; }
    if (k === "n" || k === "N") { show("setup"); $("setup-players").focus(); return; }
    if (S.view === "review" || S.view === "game") {
      if ((k === "v" || k === "V") && S.data && S.data.over) { openReview(false); return; }
    }
    if (S.view !== "game" || !S.data) return;
    const d = S.data;
    if (/^[1-5]$/.test(k)) {
      const id = d.view.depot[Number(k) - 1];
      if (id) act("take " + id); else showError(`The Depot has no card ${k}.`);
      return;
    }
    const lower = k.toLowerCase();
    if (lower === "d") { act("take deck"); return; }
    if (lower === "e") { act("end"); return; }
    if (lower === "h") { askHint(); return; }
    if (lower === "l") { build("L"); return; }
    if (lower === "r") { build("R"); return; }
    if (lower === "p") { openPayBox(); return; }
    if (lower === "c") {
      const b = document.querySelector(".claimbtn") || document.querySelector(".cardbtn.lm");
      if (b) b.focus();
      return;
    }
    if (k === "[" || k === "]") {
      const hand = d.view.seats[d.view.view_of].hand;
      if (!hand.length) return;
      let i = hand.indexOf(S.selected);
      i = i < 0 ? (k === "]" ? 0 : hand.length - 1) : (i + (k === "]" ? 1 : hand.length - 1)) % hand.length;
      S.selected = hand[i];
      renderGame().then(() => {
        const b = document.querySelector(`button[data-select="${CSS.escape(S.selected)}"]`);
        if (b) b.focus();
      });
    }
  }

  function toggleKeys() {
    const k = $("keys");
    k.hidden = !k.hidden;
    $("nav-keys").setAttribute("aria-expanded", String(!k.hidden));
  }

  async function init() {
    document.addEventListener("click", onClick);
    document.addEventListener("keydown", onKey);
    $("alert-close").addEventListener("click", clearError);
    $("nav-keys").addEventListener("click", toggleKeys);
    $("setup-players").addEventListener("change", renderSeatChoices);
    $("setup-form").addEventListener("submit", startGame);
    $("setup-resume-btn").addEventListener("click", () => { show("game"); renderGame(); });
    $("hint-btn").addEventListener("click", askHint);
    $("skip-btn").addEventListener("click", () => { S.skip = true; });
    $("final-review").addEventListener("click", () => openReview(false));
    $("final-record").addEventListener("click", downloadRecord);
    $("final-new").addEventListener("click", () => { show("setup"); $("setup-players").focus(); });
    $("review-run").addEventListener("click", runReview);
    $("review-filter").addEventListener("change", () => S.review && S.review.result && renderReviewList());
    const speed = localStorage.getItem("bigsur.speed");
    const params = new URLSearchParams(location.search);
    if (params.get("speed")) $("ai-speed").value = params.get("speed");
    else if (speed) $("ai-speed").value = speed;
    $("ai-speed").addEventListener("change", () => localStorage.setItem("bigsur.speed", $("ai-speed").value));
    renderSeatChoices();
    try {
      S.cardSets = await api("GET", "/v1/cards");
      $("setup-cards").innerHTML = S.cardSets.map((c) =>
        `<option value="${esc(c.name)}">${esc(c.label)}</option>`).join("");
      await loadCards("default");
    } catch (e) { showError(e); }
    const resumed = await resume();
    if (!resumed) show("setup");
    document.body.dataset.ready = "1";
  }

  window.bigsur = {state: S}; // for debugging in the console
  init();
})();
