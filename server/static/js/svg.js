/* Cards, Landmarks and Highways as SVG, from the card-set data (no outside assets).
 * ``setCards`` gives the module the card set in use ({highway: {id: card}, landmarks}). */

import {MAT_COLOR, MAT_INK, matGlyph, effectWords, aOrAn, orWords, plural} from "./words.js";

export const SCENERY = ["ocean", "forest", "mountain", "flower", "field"];
export const SC_COLOR = {ocean: "#1f6fb2", forest: "#2e7d32", mountain: "#795548",
  flower: "#c2185b", field: "#b58900"};
/* The class of text drawn on a Scenery's colour: white on each, but dark on field's gold
 * (white on it is 3.2:1; WCAG asks 4.5:1 of text). */
const onScenery = (s) => (s === "field" ? " dark" : "");
export const esc = (s) => String(s).replace(/[&<>"']/g, (c) => ({
  "&": "&amp;", "<": "&lt;", ">": "&gt;", "\"": "&quot;", "'": "&#39;"}[c]));
export const cap = (s) => s ? s[0].toUpperCase() + s.slice(1) : s;

const S = {cards: null};
export function setCards(cards) { S.cards = cards; }

// scenery icons, drawn around (0, 0) in a box of about 24
export function sceneryIcon(s, x, y, r) {
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

/** ``text`` cut to ``most`` characters, the cut shown: "Pfeiffer Be\u2026". */
export function clip(text, most) {
  return text.length > most ? text.slice(0, most - 1) + "\u2026" : text;
}

export function wrap(text, width) {
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

export function cardWords(id, card) {
  const c = card || (S.cards && S.cards.highway[id]);
  if (!c) return id;
  let t = `${id}: ${c.miles} mile${c.miles > 1 ? "s" : ""}, ${c.scenery.join(" and ")}; ` +
    `cost ${c.cost.join(", ")}; back ${c.material}`;
  if (c.persistent) t += `; persistent ${c.persistent}`;
  if (c.text) t += `; ${c.text}`;
  return t;
}

/* One Highway card as SVG (viewBox 100 x 140). compact: no bonus text (Highway rows). */
export function cardSVG(id, opts = {}) {
  const c = opts.card || (S.cards && S.cards.highway[id]); // opts.card: a card being edited
  if (!c) return unknownCardSVG(opts.label || "?");
  const [a, b] = c.scenery;
  let s = `<svg class="card" viewBox="0 0 100 140" role="img" data-zoom="${esc(id)}" aria-label="${esc(cardWords(id, c))}">`;
  s += `<title>${esc(cardWords(id, c))}</title>`;
  s += `<rect x="1" y="1" width="98" height="138" rx="8" fill="#fdfaf2" stroke="#3b3b3b" stroke-width="1.5"/>`;
  s += `<path d="M1 9 a8 8 0 0 1 8 -8 H50 V44 H1 Z" fill="${SC_COLOR[a]}"/>`;
  s += `<path d="M50 1 H91 a8 8 0 0 1 8 8 V44 H50 Z" fill="${SC_COLOR[b]}"/>`;
  s += sceneryIcon(a, 25, 22, 13) + sceneryIcon(b, 75, 22, 13);
  s += `<text x="8" y="68" class="miles">${c.miles}</text><text x="${c.miles >= 10 ? 34 : 24}" y="68" class="mi">mi</text>`;
  // back Material reminder
  s += `<rect x="70" y="48" width="24" height="21" rx="4" fill="#fff" stroke="${MAT_COLOR[c.material]}" stroke-width="1.5"/>` +
    matGlyph(c.material, 82, 58.5, 17) +
    `<text x="82" y="78" class="tiny" text-anchor="middle">back</text>`;
  if (c.persistent) {
    s += `<g transform="translate(6 70)"><rect width="58" height="13" rx="6.5" fill="none" stroke="${MAT_COLOR[c.persistent]}" stroke-width="1.5"/>` +
      `<text x="29" y="9.8" class="tiny" text-anchor="middle" style="fill:${MAT_INK[c.persistent]}">\u221e ${esc(c.persistent)}</text></g>`;
  }
  if (c.bonus) {
    if (opts.compact) {
      s += `<text x="5" y="95" class="bonusc">\u2605 ${esc(wrap(c.text || effectWords(c.bonus), 17)[0] || "")}</text>`;
    } else {
      wrap(c.text || effectWords(c.bonus), 21).slice(0, 3).forEach((ln, i) => {
        s += `<text x="5" y="${87 + i * 8}" class="bonus">${esc(ln)}</text>`;
      });
    }
  }
  // cost
  s += `<text x="5" y="118" class="tiny">cost</text>`;
  c.cost.forEach((m, i) => {
    const x = 34 + i * 21;
    s += matGlyph(m, x, 115, 19);
  });
  // the id, squeezed into the room left of the player marks or the key badge when it is
  // too long for it (a 32-character id ran over the marks, and off the card)
  const marks = opts.marks && c.players ? c.players.map((p) => p + "P").join(" ") : "";
  const room = (marks ? 94 - 4.4 * marks.length : opts.badge ? 86 : 94) - 4 - 8;
  const fit = 6.1 * String(id).length > room ? ` textLength="${room.toFixed(1)}" lengthAdjust="spacingAndGlyphs"` : "";
  s += `<text x="8" y="133" class="cid"${fit}>${esc(id)}</text>`;
  if (marks) s += `<text x="94" y="133" class="tiny pmarks" text-anchor="end">${esc(marks)}</text>`;
  if (opts.badge) s += `<text x="92" y="133" class="tiny keybadge" text-anchor="end">${esc(opts.badge)}</text>`;
  s += `</svg>`;
  return s;
}

export function unknownCardSVG(label) {
  return `<svg class="card back" viewBox="0 0 100 140" role="img" aria-label="${esc(label)}">` +
    `<rect x="1" y="1" width="98" height="138" rx="8" fill="#33506b" stroke="#1e3040" stroke-width="1.5"/>` +
    `<path d="M10 110 Q50 40 90 110" fill="none" stroke="#9fc2de" stroke-width="3"/>` +
    `<text x="50" y="70" class="backtext">${esc(label)}</text></svg>`;
}

export function landmarkWords(id, lm) {
  const l = lm || (S.cards && S.cards.landmarks[id]);
  if (!l) return id;
  return `${id} ${l.name}: needs ${aOrAn(l.scenery)} Stretch. ${l.text || effectWords(l.ability)}`;
}

/* One Landmark as SVG (viewBox 300 x 60): Scenery band, name, ability. */
export function landmarkSVG(id, lm) {
  const l = lm || (S.cards && S.cards.landmarks[id]); // lm: a Landmark being edited
  if (!l) return `<svg class="lmcard" viewBox="0 0 300 60" role="img" aria-label="refilled">` +
    `<rect x="1" y="1" width="298" height="58" rx="7" fill="#33506b"/>` +
    `<text x="150" y="35" class="backtext">refilled</text></svg>`;
  let s = `<svg class="lmcard" viewBox="0 0 300 60" role="img" aria-label="${esc(landmarkWords(id, l))}">`;
  s += `<title>${esc(landmarkWords(id, l))}</title>`;
  s += `<rect x="1" y="1" width="298" height="58" rx="7" fill="#fffdf6" stroke="#3b3b3b" stroke-width="1.3"/>`;
  s += `<path d="M1 8 a7 7 0 0 1 7 -7 H40 V59 H8 a7 7 0 0 1 -7 -7 Z" fill="${SC_COLOR[l.scenery]}"/>`;
  s += sceneryIcon(l.scenery, 20.5, 24, 11);
  s += `<text x="20.5" y="52" class="lmsc${onScenery(l.scenery)}" text-anchor="middle">${esc(l.scenery)}</text>`;
  const name = clip(l.name, 30);
  s += `<text x="48" y="17" class="lmname">${esc(name)}</text>`;
  s += `<text x="292" y="17" class="cid" text-anchor="end">${esc(id)}</text>`;
  wrap(l.text || effectWords(l.ability), 46).slice(0, 3).forEach((ln, i) => {
    s += `<text x="48" y="${31 + i * 11}" class="lmtext">${esc(ln)}</text>`;
  });
  s += `</svg>`;
  return s;
}

/* A Highway: cards left to right, Landmarks above, qualifying Stretches as bars below.
 * A hint's move is marked: ``ghosts`` ({card, side}) the cards it builds, ``claims``
 * ({landmark, card, places}) the card its Landmark is claimed above, with the Landmark's
 * place (one a card when it may go above any of ``places``). */
export function highwaySVG(highway, landmarks, stretches, scale, highlight, ghosts = [], claims = []) {
  const W = 100, G = 6, LM = 24, LANE = 17;
  const left = ghosts.filter((g) => g.side === "L" || !highway.length).map((g) => g.card).reverse();
  const right = ghosts.filter((g) => g.side !== "L" && highway.length).map((g) => g.card);
  if (ghosts.length) highway = [...left, ...highway, ...right];
  const ghostSet = new Set(ghosts.map((g) => g.card));
  const n = highway.length;
  if (!n) return `<p class="muted empty">No Highway yet.</p>`;
  const built = highway.filter((id) => !ghostSet.has(id));
  const lanes = stretches.length;
  const width = n * (W + G) - G + 4;
  const height = LM + 140 + (lanes ? 6 + lanes * LANE : 4);
  const pos = {};
  highway.forEach((id, i) => { pos[id] = 2 + i * (W + G); });
  let s = `<svg class="highway" viewBox="0 0 ${width} ${height}" width="${(width * scale).toFixed(0)}" ` +
    `height="${(height * scale).toFixed(0)}" role="img" aria-label="${esc(`Highway: ${built.join(", ") || "none built"}` +
      (ghosts.length || claims.length ? ` (${hintWords(ghosts, claims, built.length)})` : ""))}">`;
  for (const lmk of landmarks) {
    const x = pos[lmk.card];
    if (x === undefined) continue;
    const l = S.cards.landmarks[lmk.landmark];
    const col = l ? SC_COLOR[l.scenery] : "#555";
    s += `<g><title>${esc(landmarkWords(lmk.landmark))}</title>` +
      `<rect x="${x}" y="1" width="${W}" height="${LM - 4}" rx="5" fill="${col}"/>` +
      `<text x="${x + W / 2}" y="${LM - 8}" class="lmtag${onScenery(l && l.scenery)}">${esc(lmk.landmark)} ${esc(l ? clip(l.name, 12) : "")}</text></g>`;
  }
  highway.forEach((id) => {
    const inner = cardSVG(id, {compact: true}).replace("<svg class=\"card\"",
      `<svg x="${pos[id]}" y="${LM}" width="${W}" height="140" class="card${highlight === id ? " hl" : ""}"`);
    s += inner;
    if (highlight === id) {
      s += `<rect x="${pos[id] - 1}" y="${LM - 1}" width="${W + 2}" height="142" rx="9" fill="none" stroke="#ff9800" stroke-width="4"/>`;
    }
    if (ghostSet.has(id)) {
      s += `<rect x="${pos[id]}" y="${LM}" width="${W}" height="140" rx="8" fill="#fff" opacity="0.55"/>` +
        `<rect x="${pos[id] - 1}" y="${LM - 1}" width="${W + 2}" height="142" rx="9" fill="none" stroke="#7b1fa2" stroke-width="4" stroke-dasharray="8 5"/>` +
        `<text x="${pos[id] + W / 2}" y="${LM + 80}" class="ghost" text-anchor="middle">hint: here</text>`;
    }
  });
  for (const cl of claims) {
    const x = pos[cl.card];
    if (x === undefined) continue;
    const l = S.cards.landmarks[cl.landmark];
    const what = `hint: claim ${l ? l.name + " (" + cl.landmark + ")" : cl.landmark} above ` +
      (cl.places && cl.places.length > 1 ? `${orWords(cl.places)} (${cl.places.length} places)` : cl.card);
    s += `<g class="hintclaim" data-card="${esc(cl.card)}"><title>${esc(what)}</title>` +
      `<rect x="${x}" y="1" width="${W}" height="${LM - 4}" rx="5" fill="#fff" stroke="#7b1fa2" stroke-width="2" stroke-dasharray="6 4"/>` +
      `<text x="${x + W / 2}" y="${LM - 8}" class="lmtag ghosttag">hint: ${esc(cl.landmark)}</text>` +
      (ghostSet.has(cl.card) ? "" : `<rect x="${x - 1}" y="${LM - 1}" width="${W + 2}" height="142" rx="9" fill="none" stroke="#7b1fa2" stroke-width="4" stroke-dasharray="8 5"/>`) +
      `</g>`;
  }
  stretches.forEach((st, k) => {
    const xs = st.cards.map((c) => pos[c]).filter((x) => x !== undefined);
    if (!xs.length) return;
    const x0 = Math.min(...xs), x1 = Math.max(...xs) + W;
    const y = LM + 146 + k * LANE;
    s += `<g><title>${esc(cap(st.scenery))} Stretch: ${st.points} points (${esc(st.cards.join(" "))})</title>` +
      `<rect x="${x0}" y="${y}" width="${x1 - x0}" height="${LANE - 4}" rx="6" fill="${SC_COLOR[st.scenery] || "#555"}"/>` +
      `<text x="${x0 + 8}" y="${y + 10}" class="lane${onScenery(st.scenery)}">${esc(st.scenery)} Stretch \u00b7 ${st.points} pts</text></g>`;
  });
  s += `</svg>`;
  return s;
}


/* A card of a Highway in words: what counts there (its Scenery, miles, Persistent
 * Material and 2-Mile bonus), not its cost nor its back. */
function roadCardWords(id) {
  const c = S.cards && S.cards.highway[id];
  if (!c) return id;
  const [a, b] = c.scenery;
  return `${id}: ${plural(c.miles, "mile")}, ${a === b ? `two ${a} icons` : `${a} and ${b}`}` +
    (c.persistent ? `; persistent ${c.persistent}` : "") +
    (c.bonus ? `; \u2605 ${(c.text || effectWords(c.bonus)).replace(/\.$/, "")}` : "");
}

/* A hint's move on a Highway (highwaySVG's ``ghosts`` and ``claims``) in words, as
 * suggestions: "hint, not built: build H12 at the right end; claim Pfeiffer Beach (L03)
 * above H04 or H41". */
function hintWords(ghosts, claims, builtCount) {
  const builds = ghosts.map((g) => `build ${g.card} ` +
    (!builtCount ? "to start the road" : g.side === "L" ? "at the left end" : "at the right end"));
  const seen = new Set();
  const claimed = claims.filter((c) => !seen.has(c.landmark) && seen.add(c.landmark)).map((c) => {
    const l = S.cards && S.cards.landmarks[c.landmark];
    return `claim ${l ? `${l.name} (${c.landmark})` : c.landmark} above ` +
      orWords(c.places && c.places.length ? c.places : [c.card]);
  });
  return `hint, not built: ${builds.concat(claimed).join("; ")}`;
}

/* A Highway in words for a screen reader (highwaySVG draws it; its picture names only
 * the cards): ``who``'s cards left to right, each with its Scenery and miles and the
 * Landmark claimed above it, the Stretches with their points, and a hint's move said
 * as a suggestion (never as cards built). A visually hidden block (class sr). */
export function highwayWords(who, highway, landmarks, stretches, ghosts = [], claims = []) {
  const above = {};
  for (const l of landmarks) (above[l.card] = above[l.card] || []).push(l.landmark);
  let h = `<div class="sr hwwords"><p>${esc(who)}, left to right: ` +
    `${highway.length ? plural(highway.length, "card") : "no card yet"}.</p>`;
  if (highway.length) {
    h += `<ol>` + highway.map((id) => `<li>${esc(roadCardWords(id))}` +
      (above[id] ? `. Landmark above: ${esc(above[id].map((l) => landmarkWords(l)).join("; "))}` : "") +
      `</li>`).join("") + `</ol>`;
    h += `<p>${stretches.length ? "Stretches: " + stretches.map((st) =>
      `${esc(cap(st.scenery))} Stretch, ${plural(st.points, "point")} (${esc(st.cards.join(" "))})`).join("; ")
      : "No Stretch yet"}.</p>`;
  }
  if (ghosts.length || claims.length) h += `<p>${esc(cap(hintWords(ghosts, claims, highway.length)))}.</p>`;
  return h + `</div>`;
}
