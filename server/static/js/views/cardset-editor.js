/* The card-set editor: a set card by card, each drawn as on the table, with live
 * validation by the server (POST /v1/cardsets/check: the same rules as `bigsur cards
 * validate`, each problem naming the card and the field), import of a CSV
 * (POST /v1/cardsets/convert) or of the set's JSON file, download of both (the CSV written
 * by POST /v1/cardsets/export.csv), Undo and Redo of every change (undo-history.js: the
 * steps, their buttons and keys; kept here across a reload of the tab), and saving
 * (POST /v1/cardsets, or a new version).
 *
 * ctx (from main.js): {api, ApiError, showError, clearError, announce(text), saveFile(blob, name),
 *   refreshCardSets()}.
 */

import {MATERIALS, effectWords, joinWords} from "../words.js";
import {SCENERY, esc, cardSVG, landmarkSVG} from "../svg.js";
import {editorAlert} from "./editor-alert.js";
import {UndoHistory, undoKey} from "./undo-history.js";

const UNDO_KEEP = 30; // the states Undo goes back through (a set is a small JSON value)

/* storedName: the stored set the one edited is a version of (null: a new set);
 * stored + savedText: that set's version on the server ({label, fingerprint}) and the
 * set as it was loaded or saved (JSON text), to tell whether anything changed since;
 * saveNote: what the last Save said ("saved" or "nothing"), shown while nothing changed;
 * missingBase: the name of a set a restored draft was based on that this server lacks;
 * recons: the cards of each reconstruction the server offers ({name, fingerprint, label,
 * key}), to tell a set whose cards are one of them; reconWarn: the label of the
 * reconstruction whose cards a Save was about to store as not a reconstruction;
 * startChoice: the set chosen in "Start from" (kept through redraws); staleText: the cards
 * whose bonus or ability changed under a text written for the earlier one ("highway:H21"
 * -> that effect, as text): the table shows a card's text, not its effect; history: the
 * Undo and Redo steps (each state a snapshot()); slots: the Sceneries and Cost menus as
 * the player left them ({card, scenery, cost}, see ``slotsOf``); running: the last check
 * started ({text, done}, see ``startCheck``). */
const E = {set: null, sel: null, check: null, seq: 0, timer: null, storedName: null,
  stored: null, savedText: null, saveNote: null, missingBase: null,
  convertErrors: [], ctx: null, root: null, restored: false, recons: [], reconWarn: null,
  startChoice: null, alert: null, staleText: {}, importNote: null,
  afterCheck: null, downloadNote: null, keys: false, found: null, slots: null, running: null,
  history: new UndoHistory(UNDO_KEEP)};
const DRAFT_KEY = "bigsur.cardset-draft"; // the set being edited survives a reload
const HISTORY_KEY = "bigsur.cardset-history"; // Undo and Redo survive a reload of the tab
const FORMAT = "bigsur-cards/1";
/* The fields the editor has a place for (docs/format.md's; a card set's label and
 * fingerprint are worked out from it). */
const SET_FIELDS = ["format", "name", "version", "reconstruction", "description", "highway", "landmarks"];
const CARD_FIELDS = {highway: ["id", "miles", "scenery", "cost", "material", "persistent", "bonus", "players", "text"],
  landmarks: ["id", "name", "scenery", "ability", "text"]};
const arr = (v) => (Array.isArray(v) ? v : []); // a list field as typed in a file may be none
const $ = (id) => document.getElementById(id);
/* The suggestions of the effect fields: one entry each kind, with every parameter it
 * needs (each passes the server's check; docs/format.md lists the kinds). */
const BONUS_EXAMPLES = ["distinct_scenery points=1", "scenery_points scenery=ocean points=1",
  "mile_cards miles=1 points=1", "stretch_count points=1", "landmark_collection points=1",
  "material_cards material=stone points=1", "highway_end points=2", "longest_stretch divisor=3"];
const ABILITY_EXAMPLES = ["mile_bonus miles=1", "scenery_points scenery=ocean points=1",
  "landmark_collection points=2 sceneries=ocean|flower", "persistent_extra_use uses=1",
  "borrow_highway uses=1", "borrow_discard uses=1"];

/* "scenery_points scenery=ocean points=1" <-> {kind, ...} (as the CSV writes effects). */
export function effectToText(e) {
  if (typeof e === "string") return e; // (a file's effect written as text: read when edited)
  if (!e || typeof e !== "object" || Array.isArray(e)) return "";
  return [e.kind, ...Object.entries(e).filter(([k]) => k !== "kind")
    .map(([k, v]) => (v === null ? k : `${k}=${Array.isArray(v) ? v.join("|") : v}`))].join(" ");
}
export function effectFromText(text) {
  const words = String(text || "").trim().split(/\s+/).filter(Boolean);
  if (!words.length) return null;
  const out = {kind: words[0]};
  for (const w of words.slice(1)) {
    const [k, v] = w.split("=");
    // a parameter with no value is sent as none: the server says it is missing
    if (!k || v === undefined || v === "") { out[k || w] = null; continue; }
    out[k] = k === "sceneries" ? v.split("|").filter(Boolean) : (/^\d+$/.test(v) ? Number(v) : v);
  }
  return out;
}

/* A card-set JSON file's text (docs/format.md: what Download JSON writes and `bigsur cards
 * validate`, `--cards FILE` read) -> {set, notes}: the set to edit, and what of the file it
 * has no place for (each naming the card and field: left out, or what was put instead);
 * or {refused}: why the text is not a card set. The set is not checked here: the server's
 * check names its problems, as for a CSV. */
export function readSetJSON(text) {
  let raw;
  try { raw = JSON.parse(text); } catch (e) { return {refused: `is not JSON (${e.message})`}; }
  const isObject = (v) => v !== null && typeof v === "object" && !Array.isArray(v);
  if (!isObject(raw) || !(Array.isArray(raw.highway) || Array.isArray(raw.landmarks))) {
    return {refused: `is not a card set (a card set, ${FORMAT} of docs/format.md, is an ` +
      `object with the lists "highway" and "landmarks")`};
  }
  if (raw.format !== undefined && raw.format !== FORMAT) {
    return {refused: `is a card set of format ${JSON.stringify(raw.format)}: this page reads ${FORMAT}`};
  }
  const notes = [];
  const shown = (v) => { const t = JSON.stringify(v); return t && t.length > 40 ? t.slice(0, 39) + "\u2026" : t; };
  const set = {format: FORMAT, name: "", version: "1", reconstruction: false, description: "",
    highway: [], landmarks: []};
  if (raw.format === undefined) notes.push(`format: none, ${FORMAT} put`);
  for (const k of Object.keys(raw)) {
    if (!SET_FIELDS.includes(k) && k !== "label" && k !== "fingerprint") notes.push(`${k}: not a field of a card set, left out`);
  }
  if (typeof raw.name === "string") set.name = raw.name;
  else notes.push(`name: ${raw.name === undefined ? "none" : shown(raw.name) + ", not text"}, the name being edited kept`);
  if (typeof raw.version === "string") set.version = raw.version;
  else if (raw.version !== undefined) { set.version = String(raw.version); notes.push(`version: ${shown(raw.version)} read as "${set.version}"`); }
  if (typeof raw.description === "string") set.description = raw.description;
  else if (raw.description !== undefined) notes.push(`description: ${shown(raw.description)}, not text, left out`);
  if (typeof raw.reconstruction === "boolean") set.reconstruction = raw.reconstruction;
  else if (raw.reconstruction !== undefined) notes.push(`reconstruction: ${shown(raw.reconstruction)}, not true or false, left unchecked`);
  for (const list of ["highway", "landmarks"]) {
    if (raw[list] !== undefined && !Array.isArray(raw[list])) notes.push(`${list}: ${shown(raw[list])}, not a list, left out`);
    arr(raw[list]).forEach((c, i) => {
      if (!isObject(c)) { notes.push(`${list}[${i}]: ${shown(c)}, not a card, left out`); return; }
      const where = typeof c.id === "string" && c.id ? c.id : `${list}[${i}]`;
      const card = {};
      for (const [k, v] of Object.entries(c)) {
        if (CARD_FIELDS[list].includes(k)) card[k] = v;
        else notes.push(`${where}.${k}: not a field of a ${list === "highway" ? "Highway card" : "Landmark"}, left out`);
      }
      set[list].push(card);
    });
  }
  return {set, notes};
}

/* The set's name as a file's stem ("my-cards"). */
const fileStem = () => String(E.set.name || "").replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-+|-+$/g, "") || "cards";

/* The set being edited as its JSON file's text (Download JSON). */
export const setJSON = () => JSON.stringify(E.set, null, 1) + "\n";

function downloadJSON() {
  const name = fileStem() + ".json";
  E.ctx.saveFile(new Blob([setJSON()], {type: "application/json"}), name);
  const n = located().length;
  E.downloadNote = `Downloaded ${name}` + (n ? `, with its ${n > 1 ? n + " problems" : "problem"}: ` +
    "bigsur cards validate names them too, and --cards refuses the file until they are fixed." : ".");
  say(E.downloadNote);
  rerender();
}

/* The CSV is written by the server (the one CSV writer), from cards without problems. */
async function downloadCSV() {
  E.ctx.clearError();
  const name = fileStem() + ".csv";
  let r;
  try {
    r = await fetch("/v1/cardsets/export.csv", {method: "POST",
      headers: {"Content-Type": "application/json"}, body: JSON.stringify(E.set)});
  } catch (e) {
    E.alert.say(`Not downloaded: the server did not answer (${e.message}).`);
    return;
  }
  if (!r.ok) {
    let data = {};
    try { data = await r.json(); } catch (e) { /* not JSON: said by its status */ }
    const errs = data.errors || [];
    E.alert.say(errs.length
      ? `Not downloaded as CSV: a CSV row is written from a card without problems; fix the ` +
        `${errs.length > 1 ? errs.length + " problems" : "problem"} of the cards first ` +
        `(${whereOf(errs[0])}: ${errs[0].message}), or use Download JSON, which keeps them.`
      : `Not downloaded as CSV: the server refused (${r.status}): ${data.message || r.statusText}.`);
    return;
  }
  E.ctx.saveFile(await r.blob(), name);
  E.downloadNote = `Downloaded ${name}: the cards, one row per card (the name, description and ` +
    `"a reconstruction" are not in a CSV).`;
  say(E.downloadNote);
  rerender();
}

export async function open(ctx, root) {
  if (E.ctx !== ctx) E.alert = editorAlert(ctx);
  E.ctx = ctx;
  E.root = root;
  if (!E.keys) { // Ctrl+Z / Cmd+Z: Undo, outside a text field (the field's own undo there)
    E.keys = true;
    document.addEventListener("keydown", onUndoKey);
  }
  if (!E.set) {
    if (restoreDraft()) await confirmStored();
    else {
      await startFrom("default");
      saveHistory(); // (none: steps kept of an earlier draft are not of this one)
    }
  }
  render();
  // the note beside an unchecked "a reconstruction" box compares the cards with them
  loadRecons().then(() => {
    if (E.set && !E.set.reconstruction && E.root && !E.root.closest(".view").hidden) rerender();
  });
}

/* The cards of a set, to compare: its Highway cards and Landmarks with every field
 * but the free text (a reconstruction with notes typed on its cards is still the same
 * cards), keys sorted, blanks left out. */
export function cardsKey(set) {
  const canon = (v) => {
    if (Array.isArray(v)) return v.map(canon);
    if (v && typeof v === "object") {
      return Object.fromEntries(Object.keys(v).sort()
        .filter((k) => v[k] !== null && v[k] !== undefined && v[k] !== "").map((k) => [k, canon(v[k])]));
    }
    return v;
  };
  const strip = (c) => { const {text, ...rest} = c || {}; return rest; };
  return JSON.stringify(canon({highway: (set.highway || []).map(strip),
    landmarks: (set.landmarks || []).map(strip)}));
}

/* The cards of every reconstruction the server offers (the shipped ``default``, and any
 * stored set labelled one), fetched once each. */
async function loadRecons() {
  const sets = (E.ctx.cardSets() || []).filter((s) => s.reconstruction);
  const have = new Map(E.recons.map((r) => [r.name + "@" + r.fingerprint, r]));
  const out = [];
  for (const s of sets) {
    let r = have.get(s.name + "@" + s.fingerprint);
    if (!r) {
      try {
        const raw = await E.ctx.api("GET", "/v1/cards/" + encodeURIComponent(s.name));
        r = {name: s.name, fingerprint: s.fingerprint, label: raw.label || s.label, key: cardsKey(raw)};
      } catch (e) { continue; } // not to compare with; Save still asks the server
    }
    out.push(r);
  }
  E.recons = out;
}

/* The label of a reconstruction whose cards the set being edited has, unchanged; null. */
function reconMatch() {
  if (!E.recons.length) return null;
  const key = cardsKey(E.set);
  const r = E.recons.find((x) => x.key === key);
  return r ? r.label : null;
}

function saveDraft() {
  try {
    localStorage.setItem(DRAFT_KEY, JSON.stringify({set: E.set, storedName: E.storedName, sel: E.sel,
      convertErrors: E.convertErrors, stored: E.stored, savedText: E.savedText,
      missingBase: E.missingBase, staleText: E.staleText, importNote: E.importNote}));
  } catch (e) { /* storage full or refused: the draft lives in the page only */ }
}

/* The Undo and Redo steps, kept for this tab (written at each step, not at each key):
 * each step's savedText (the stored version's text, the same in most steps) written once
 * in ``texts``, the steps naming it by its index. When they do not fit in the tab's
 * storage, the oldest are left out until the rest does (a failed write kept the copy of
 * before: after a reload, Undo went back to a step older than the newest edits); none
 * fitting, none is kept. */
function saveHistory() {
  const undo = E.history.undo.slice(), redo = E.history.redo.slice();
  for (;;) {
    try {
      sessionStorage.setItem(HISTORY_KEY, packHistory(undo, redo));
      return;
    } catch (e) {
      if (!undo.length && !redo.length) break;
      (undo.length >= redo.length ? undo : redo).shift(); // (a redo list's oldest is its first too)
    }
  }
  try { sessionStorage.removeItem(HISTORY_KEY); } catch (e) { /* storage refused: the steps live in the page only */ }
}

function packHistory(undo, redo) {
  const texts = [];
  const pack = (l) => l.map(({label: what, state: snap}) => {
    if (typeof snap.savedText !== "string") return {what, snap};
    let i = texts.indexOf(snap.savedText);
    if (i < 0) i = texts.push(snap.savedText) - 1;
    return {what, snap: {...snap, savedText: i}};
  });
  return JSON.stringify({undo: pack(undo), redo: pack(redo), texts});
}

function restoreHistory() {
  let h = null;
  try { h = JSON.parse(sessionStorage.getItem(HISTORY_KEY) || "null"); } catch (e) { h = null; }
  const texts = h && Array.isArray(h.texts) ? h.texts : [];
  const text = (x) => x === null || typeof x === "string" || typeof texts[x] === "string";
  const steps = (l) => Array.isArray(l) && l.every((x) => x && typeof x.what === "string" &&
    x.snap && x.snap.set && Array.isArray(x.snap.set.highway) && Array.isArray(x.snap.set.landmarks) &&
    text(x.snap.savedText ?? null));
  const unpack = (l) => l.map(({what, snap}) => ({label: what,
    state: {...snap, savedText: typeof snap.savedText === "number" ? texts[snap.savedText] : snap.savedText ?? null}}));
  if (h && steps(h.undo) && steps(h.redo)) E.history.load(unpack(h.undo), unpack(h.redo));
}

function restoreDraft() {
  let d = null;
  try { d = JSON.parse(localStorage.getItem(DRAFT_KEY) || "null"); } catch (e) { d = null; }
  if (!d || !d.set || !Array.isArray(d.set.highway) || !Array.isArray(d.set.landmarks)) return false;
  E.set = d.set;
  E.storedName = d.storedName || null;
  E.sel = d.sel || {kind: "highway", index: 0};
  E.convertErrors = d.convertErrors || [];
  E.stored = d.stored || null;
  E.savedText = d.savedText || null;
  E.missingBase = d.missingBase || null;
  E.staleText = d.staleText || {};
  E.importNote = d.importNote || null;
  E.saveNote = null;
  E.check = null;
  E.restored = true;
  restoreHistory();
  scheduleCheck(0);
  return true;
}

/* A draft kept in this browser may name a stored set this server does not have (it was
 * saved on another server, or the server's database is a new one): then it is saved as
 * a new set, and said so (a new version of it would be refused). */
async function confirmStored() {
  if (E.storedName && !(await isStored(E.storedName))) baseMissing();
}

function baseMissing() {
  E.missingBase = E.storedName;
  E.storedName = null;
  E.stored = null;
  E.savedText = null;
  E.saveNote = null;
  saveDraft();
}

/* Nothing changed since the set was loaded from the server or saved. */
const unchanged = () => E.savedText !== null && JSON.stringify(E.set) === E.savedText;

/* Whether the server stores a set of this name (any case); unknown counts as stored
 * (Save tells). A set it knows without storing it (its BIGSUR_CARDS set) gets no
 * versions: it is saved under another name, as the live check's name note says. */
async function isStored(name) {
  let sets;
  try { sets = await E.ctx.api("GET", "/v1/cardsets"); } catch (e) { return true; }
  return sets.some((s) => s.name.toLowerCase() === name.toLowerCase());
}

/* ``what``: the action in words, for Undo (none at start-up). */
async function startFrom(name, what = null) {
  const raw = await E.ctx.api("GET", "/v1/cards/" + encodeURIComponent(name));
  if (what) remember(what);
  // a set started from a reconstruction is one until its owner says otherwise (unchecking
  // the box states that the cards are the printed ones, typed from their own game)
  const copy = {format: "bigsur-cards/1", name: name === "default" ? "my-cards" : raw.name,
    version: raw.version, reconstruction: !!raw.reconstruction,
    description: name === "default" ? "" : raw.description || "", highway: raw.highway, landmarks: raw.landmarks};
  E.storedName = name !== "default" && await isStored(raw.name) ? raw.name : null;
  E.set = JSON.parse(JSON.stringify(copy));
  E.stored = E.storedName ? {label: raw.label, fingerprint: raw.fingerprint} : null;
  E.savedText = E.storedName ? JSON.stringify(E.set) : null;
  E.saveNote = null;
  E.missingBase = null;
  E.sel = {kind: "highway", index: 0};
  E.convertErrors = [];
  E.staleText = {};
  E.importNote = null;
  E.check = null;
  E.restored = false;
  E.reconWarn = null;
  scheduleCheck(0);
}

/* What Undo restores: the set being edited and what goes with it (the card chosen, the
 * stored set it is a version of, an import's problems and notes). */
function snapshot() {
  return JSON.parse(JSON.stringify({set: E.set, sel: E.sel, storedName: E.storedName,
    stored: E.stored, savedText: E.savedText, missingBase: E.missingBase,
    convertErrors: E.convertErrors, staleText: E.staleText, importNote: E.importNote}));
}

/* The state before an action (``what``, in words: "delete H12"), kept for Undo. ``key``:
 * the edits of one field in a row are one step (a name is not undone letter by letter). */
function remember(what, key = null) {
  if (E.history.merges(key)) return; // (a snapshot copies the whole set: not at each key)
  E.history.record(what, snapshot(), key);
  saveHistory();
  const b = $("ce-history");
  if (b) b.outerHTML = historyHTML(); // (an edit draws no more than its card until checked)
}

/* The Undo and Redo buttons, each naming its step. */
function historyHTML() {
  return `<span id="ce-history">${E.history.buttonsHTML("ce")}</span>`;
}

/* Undo (``back``) or Redo the last step: the state before it comes back, and the state
 * left goes to the other list (an Undo too many is redone). */
function travel(back) {
  const step = E.history.take(back, snapshot());
  if (!step) return;
  saveHistory();
  Object.assign(E, step.state);
  E.saveNote = null;
  E.check = null;
  E.afterCheck = `${back ? "Undone" : "Redone"}: ${step.label}`;
  render();
  scheduleCheck(0);
  focusOn(back ? "#ce-undo" : "#ce-redo", back ? "#ce-redo" : "#ce-undo",
    `[data-ce-pick="${E.sel ? E.sel.kind + ":" + E.sel.index : ""}"]`, "#ce-start");
}

/* Ctrl+Z and Ctrl+Shift+Z or Ctrl+Y while the editor is shown, when there is a step to
 * take (else the keys are the browser's). */
function onUndoKey(ev) {
  const kind = undoKey(ev);
  if (!kind || !E.root || E.root.closest(".view").hidden) return;
  const back = kind === "undo";
  if (!E.history.next(back)) return;
  ev.preventDefault();
  travel(back);
}

/* The focus on the first of ``selectors`` that can take it (a redraw took it off the
 * control the player used: it fell to <body>). */
function focusOn(...selectors) {
  for (const sel of selectors) {
    const el = sel && document.querySelector(sel);
    if (el && !el.disabled && el.getClientRects().length) { el.focus(); return; }
  }
}

/* A few words for a screen reader: the page's polite region (main.js's announce). */
const say = (text) => E.ctx.announce(text);

/* The check's answer in a few words (said when it changes, and after an import or an Undo). */
function checkWords() {
  const problems = listedProblems();
  if (!problems.length && E.check && E.check.summary) {
    return `Valid: ${E.check.summary.highway} Highway cards, ${E.check.summary.landmarks} Landmarks.`;
  }
  if (!problems.length) return "";
  const {e} = problems[0];
  return `${problems.length} problem${problems.length > 1 ? "s" : ""}; the first: ${whereOf(e)}: ${e.message}.`;
}

function current() {
  if (!E.sel) return null;
  const list = E.sel.kind === "highway" ? E.set.highway : E.set.landmarks;
  return list[E.sel.index] || null;
}

/* Every problem shown, each with the card it is of: [{e, at}] (``at``: {kind, index}, or
 * null for a problem of the set). The CSV conversion's problems (root causes) come first;
 * the check's problem of a card's field the conversion already names is its consequence
 * (a miles cell 'x' is read as no miles: 'missing'), not said again. */
function located() {
  const named = new Set(E.convertErrors.map((e) => `${e.card}\n${e.field}`));
  const checked = (E.check ? E.check.errors : []).filter((e) => !e.card || !named.has(`${e.card}\n${e.field}`));
  const dups = new Map(); // id -> its duplicates placed so far
  return [...E.convertErrors, ...checked].map((e) => {
    let at = locate(e);
    if (at && e.field === "id" && /^duplicate id/.test(e.message || "")) {
      // the validator keeps the first card of an id: the problem is of a later one
      const n = (dups.get(e.card) || 0) + 1;
      dups.set(e.card, n);
      at = cardsWithId(e.card)[n] || at;
    }
    return {e: E.convertErrors.includes(e) ? e : costInWords(e, at), at};
  });
}

/* A check's problem with a Highway card's cost of too few or too many Materials, in
 * words ("needs 2 or 3 Materials, has 1 (timber)"): the server's, "must be a list of 2
 * or 3 of stone, ..., got ['timber']", reads as a program's. Any other problem as it is. */
function costInWords(e, at) {
  const card = e.field === "cost" && at && at.kind === "highway" ? E.set.highway[at.index] : null;
  const cost = card && Array.isArray(card.cost) ? card.cost : null;
  if (!cost || !cost.every((m) => MATERIALS.includes(m)) || [2, 3].includes(cost.length)) return e;
  return {...e, message: `needs 2 or 3 Materials, has ${cost.length ? `${cost.length} (${joinWords(cost)})` : "none"}`};
}

/* Every problem the status lists and counts: the check's (``located``), then each text
 * written for its card's earlier bonus or ability (``staleCards``), which Save waits for
 * as for the check's. [{e, at}], as ``located``. */
function listedProblems() {
  return [...located(), ...staleCards().map(({kind, index, id}) => ({at: {kind, index}, e: {
    card: id, field: "text", stale: true, message: `written for its ${kind === "highway" ? "bonus" : "ability"} ` +
      `before your change (${E.staleText[`${kind}:${id}`] || "none"}); the table shows the text, not the effect`}}))];
}

/* The cards of an id, in the validator's order (Highway cards, then Landmarks). */
function cardsWithId(id) {
  return [...E.set.highway.map((c, index) => ({kind: "highway", index, id: c.id})),
    ...E.set.landmarks.map((c, index) => ({kind: "landmark", index, id: c.id}))]
    .filter((c) => c.id === id).map(({kind, index}) => ({kind, index}));
}

/* The card a problem names, {kind, index}, or null (a problem of the set). The server
 * names a card by its id, or by its place in its list ("highway[2]") when the id is not
 * one to show (too long, not printable). */
function locate(e) {
  if (!e.card) return null;
  const m = /^(highway|landmarks)\[(\d+)\]$/.exec(e.card);
  if (m && (!e.text || e.text.startsWith(e.card))) {
    return {kind: m[1] === "highway" ? "highway" : "landmark", index: Number(m[2])};
  }
  return cardsWithId(e.card)[0] || null;
}

/* The problems of the card at ``index`` of the ``kind`` list. */
function errorsFor(kind, index) {
  return located().filter(({at}) => at && at.kind === kind && at.index === index).map(({e}) => e);
}

/* A copy of a card safe to draw while it is being typed (missing fields shown blank). */
function drawable(c) {
  const sc = arr(c.scenery).filter((x) => SCENERY.includes(x));
  while (sc.length < 2) sc.push(sc[0] || "field");
  return {...c, miles: c.miles || "?", scenery: sc.slice(0, 2),
    cost: arr(c.cost).filter((m) => MATERIALS.includes(m)),
    material: MATERIALS.includes(c.material) ? c.material : "stone",
    persistent: MATERIALS.includes(c.persistent) ? c.persistent : null,
    bonus: c.bonus && typeof c.bonus === "object" ? c.bonus : null,
    text: typeof c.text === "string" ? c.text : undefined,
    players: arr(c.players).filter((p) => [2, 3, 4].includes(p))};
}

function options(values, chosen, blank) {
  return (blank !== undefined ? `<option value="">${esc(blank)}</option>` : "") +
    values.map((v) => `<option value="${esc(v)}"${String(v) === String(chosen) ? " selected" : ""}>${esc(v)}</option>`).join("");
}

/* A field of the form with its problems below it: no alert (the form is drawn anew at
 * each check, and an alert is said again each time it is drawn); its controls are marked
 * invalid and described by them (describeProblems), and a new problem is said once. */
function field(name, label, control) {
  const errs = errorsFor(E.sel.kind, E.sel.index).filter((e) => e.field === name);
  return `<div class="ce-field${errs.length ? " bad" : ""}" data-field="${name}"><label for="ce-${name}">${label}</label><div class="ce-ctl">${control}</div>` +
    errs.map((e, i) => `<div class="ce-err" id="ce-err-${name}-${i}">${esc(e.message)}</div>`).join("") + `</div>`;
}

/* Each control of a field with a problem: aria-invalid, and described by the problem. */
function describeProblems() {
  for (const box of document.querySelectorAll("#ce-form .ce-field.bad")) {
    const ids = [...box.querySelectorAll(".ce-err[id]")].map((el) => el.id).join(" ");
    for (const ctl of box.querySelectorAll("input, select")) {
      ctl.setAttribute("aria-invalid", "true");
      ctl.setAttribute("aria-describedby", ids);
    }
  }
}

/* The menus of a Highway card's list field (``name``: "scenery" or "cost") as the player
 * left them: a menu emptied ("?") stays empty in its place while the card is edited (the
 * field is the menus' choices in order; drawn from the field alone, the later menus moved
 * up, and the next choice replaced one of them). The field alone once it changed
 * otherwise (Undo, another card). */
function slotsOf(c, name) {
  const kept = E.slots;
  const values = arr(c[name]);
  if (!kept || kept.card !== c) return values;
  const chosen = kept[name].filter(Boolean);
  return chosen.length === values.length && chosen.every((v, i) => v === values[i]) ? kept[name] : values;
}

function formHTML() {
  const c = current();
  if (!c) return `<p class="muted">Choose a card on the left, or add one.</p>`;
  if (E.sel.kind === "highway") {
    const cost = slotsOf(c, "cost"), scenery = slotsOf(c, "scenery");
    const players = arr(c.players);
    return `<form id="ce-form" class="ce-form" autocomplete="off">` +
      field("id", "Id", `<input id="ce-id" name="id" value="${esc(c.id || "")}" spellcheck="false">`) +
      field("miles", "Miles", `<select id="ce-miles" name="miles">${options([1, 2, 3, 4], c.miles, "?")}</select>`) +
      field("scenery", "Sceneries", `<select id="ce-scenery" name="scenery0">${options(SCENERY, scenery[0], "?")}</select>` +
        `<select name="scenery1" aria-label="second Scenery">${options(SCENERY, scenery[1], "?")}</select>`) +
      field("cost", "Cost", [0, 1, 2].map((i) => `<select name="cost${i}" ${i ? `aria-label="cost ${i + 1}"` : 'id="ce-cost"'}>${options(MATERIALS, cost[i], i < 2 ? "?" : "\u2014")}</select>`).join("")) +
      field("material", "Back Material", `<select id="ce-material" name="material">${options(MATERIALS, c.material, "?")}</select>`) +
      field("persistent", "Persistent (1-Mile cards)", `<select id="ce-persistent" name="persistent">${options(MATERIALS, c.persistent, "\u2014")}</select>`) +
      field("bonus", "2-Mile bonus", `<input id="ce-bonus" name="bonus" value="${esc(effectToText(c.bonus))}" list="ce-bonus-kinds" placeholder="e.g. scenery_points scenery=ocean points=1" spellcheck="false">` +
        `<datalist id="ce-bonus-kinds">${BONUS_EXAMPLES.map((k) => `<option value="${k}">`).join("")}</datalist>`) +
      field("players", "Player counts", [2, 3, 4].map((p) => `<label class="inl"><input type="checkbox" name="p${p}"${players.includes(p) ? " checked" : ""}> ${p}</label>`).join("")) +
      field("text", "Text", `<input id="ce-text" name="text" value="${esc(c.text || "")}">${staleTextHTML(c)}`) +
      `</form>`;
  }
  return `<form id="ce-form" class="ce-form" autocomplete="off">` +
    field("id", "Id", `<input id="ce-id" name="id" value="${esc(c.id || "")}" spellcheck="false">`) +
    field("name", "Name", `<input id="ce-name" name="name" value="${esc(c.name || "")}">`) +
    field("scenery", "Scenery", `<select id="ce-scenery" name="scenery">${options(SCENERY, c.scenery, "?")}</select>`) +
    field("ability", "Ability", `<input id="ce-ability" name="ability" value="${esc(effectToText(c.ability))}" list="ce-lm-kinds" placeholder="e.g. mile_bonus miles=2" spellcheck="false">` +
      `<datalist id="ce-lm-kinds">${ABILITY_EXAMPLES.map((k) => `<option value="${k}">`).join("")}</datalist>`) +
    field("text", "Text", `<input id="ce-text" name="text" value="${esc(c.text || "")}">${staleTextHTML(c)}`) +
    `</form>`;
}

/* Below the Text of a card whose bonus or ability changed under it: the table shows the
 * text, not the effect; clear it (the table then words the effect) or keep it. */
function staleTextHTML(c) {
  const was = E.staleText[textKey(c)];
  if (was === undefined) return "";
  const what = E.sel.kind === "highway" ? "bonus" : "ability";
  const own = effectWords(effectOf(c));
  return `<div class="ce-err" id="ce-text-stale">This text was written for the ${what} ` +
    `before your change (${esc(was || "none")}), and the table shows the text, not the ${what}. ` +
    `<button type="button" data-ce="clear-text">Clear the text</button>` +
    `${own ? ` (the table then says \u201c${esc(own)}\u201d)` : ""} ` +
    `<button type="button" data-ce="keep-text">Keep the text</button></div>`;
}

/* The cards whose text was written for an earlier bonus or ability, listed by the status
 * (each a jump to the card). */
function staleCards() {
  return Object.keys(E.staleText).map((key) => {
    const [kind, id] = [key.slice(0, key.indexOf(":")), key.slice(key.indexOf(":") + 1)];
    const index = (kind === "highway" ? E.set.highway : E.set.landmarks).findIndex((c) => c.id === id);
    return index >= 0 ? {kind, index, id} : null;
  }).filter(Boolean);
}

function previewHTML() {
  const c = current();
  if (!c) return "";
  const id = typeof c.id === "string" && c.id ? c.id : "?";
  try {
    if (E.sel.kind === "highway") {
      return `<div class="ce-preview">${cardSVG(id, {card: drawable(c), marks: true})}</div>`;
    }
    const l = {...c, scenery: SCENERY.includes(c.scenery) ? c.scenery : "field",
      name: typeof c.name === "string" && c.name ? c.name : "?",
      text: typeof c.text === "string" ? c.text : undefined,
      ability: c.ability && typeof c.ability === "object" && !Array.isArray(c.ability) ? c.ability : {kind: "?"}};
    return `<div class="ce-preview lm">${landmarkSVG(id, l)}</div>`;
  } catch (e) { // a field of a type no card has (from a file): drawn once it is fixed
    return `<div class="ce-preview"><p class="muted small">Drawn once its fields are fixed (see the problems).</p></div>`;
  }
}

/* The cards as chips, a list of Highway cards and one of Landmarks; each list is one stop
 * of the Tab key (its chosen card, else its first), the arrow keys, Home and End move in
 * it (onChipKey): a keyboard player went through 89 chips to reach the form. Each list is
 * data-own-keys: the page's shortcuts (main.js onKey) wait while the focus is in it. */
function listHTML() {
  const chip = (kind, c, i) => {
    const errs = errorsFor(kind, i);
    const bad = errs.length;
    const sel = E.sel && E.sel.kind === kind && E.sel.index === i;
    const stop = sel || (i === 0 && !(E.sel && E.sel.kind === kind && current()));
    return `<button type="button" class="ce-chip${bad ? " bad" : ""}${sel ? " sel" : ""}" data-ce-pick="${kind}:${i}" ` +
      `tabindex="${stop ? 0 : -1}" aria-pressed="${sel}" title="${bad ? esc(errs.map((e) => e.field + ": " + e.message).join("; ")) : ""}">${esc(c.id || "(no id)")}</button>`;
  };
  return `<h3 class="small" id="ce-hw-head">Highway cards (${E.set.highway.length})</h3>` +
    `<div class="ce-chips" role="group" data-own-keys aria-labelledby="ce-hw-head">` +
    E.set.highway.map((c, i) => chip("highway", c, i)).join("") + `</div>` +
    `<h3 class="small" id="ce-lm-head">Landmarks (${E.set.landmarks.length})</h3>` +
    `<div class="ce-chips" role="group" data-own-keys aria-labelledby="ce-lm-head">` +
    E.set.landmarks.map((c, i) => chip("landmark", c, i)).join("") + `</div>` +
    `<div class="actionbar"><button type="button" data-ce="add-highway">+ Highway card</button>` +
    `<button type="button" data-ce="add-landmark">+ Landmark</button>` +
    `<button type="button" data-ce="delete">Delete this card</button></div>`;
}

/* The arrow keys, Home and End in a list of chips: the focus to the chip before or after
 * (Enter or Space chooses it), the list staying one stop of the Tab key. */
function onChipKey(ev) {
  const el = ev.target;
  if (!el.classList || !el.classList.contains("ce-chip") || ev.ctrlKey || ev.metaKey || ev.altKey) return;
  const chips = [...el.parentElement.querySelectorAll(".ce-chip")];
  const at = chips.indexOf(el);
  const to = {ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1,
    Home: 0, End: chips.length - 1}[ev.key];
  if (to === undefined) return;
  ev.preventDefault();
  const next = chips[Math.max(0, Math.min(chips.length - 1, to))];
  for (const c of chips) c.tabIndex = c === next ? 0 : -1;
  next.focus();
}

/* Where a problem is: "H07 \u00b7 miles", "name", "set". */
const whereOf = (e) => (e.card ? `${e.card}${e.field ? " \u00b7 " + e.field : ""}` : (e.field || "set"));

function statusHTML() {
  const ch = E.check;
  const problems = listedProblems();
  let head;
  if (!ch) head = `<span class="muted">Checking\u2026</span>`;
  else if (!problems.length) {
    const s = ch.summary;
    head = `<span class="ok" id="ce-ok">Valid: ${s.highway} Highway cards, ${s.landmarks} Landmarks; decks ` +
      `${s.decks["2"]} / ${s.decks["3"]} / ${s.decks["4"]} cards for 2 / 3 / 4 players.</span>`;
  } else head = `<span class="bad">${problems.length} problem${problems.length > 1 ? "s" : ""}:</span>`;
  const items = problems.slice(0, 12).map(({e, at}) => {
    const jump = at ? ` data-ce-jump="${at.kind}:${at.index}"` : "";
    return `<li${e.stale ? ` class="ce-stale-text"` : ""}><button type="button" class="linkish"${jump}>${esc(whereOf(e))}</button>: ` +
      `${esc(e.message)}${e.row ? ` (CSV row ${e.row})` : ""}</li>`;
  }).join("");
  const more = problems.length > 12 ? `<li class="muted">\u2026 and ${problems.length - 12} more</li>` : "";
  const checked = located(); // (a text to settle leaves its card in the check's counts)
  const derived = checked.some(({e}) => e.card) && checked.some(({e}) => !e.card)
    ? `<p class="muted small">A card with a problem is left out of the counts, so the set-level problems may go once the cards are fixed.</p>` : "";
  // a name the server will refuse: said so next to "Valid" (the cards are; saving is not)
  const refusal = nameRefusal();
  const note = refusal ? `<p class="bad small" id="ce-name-note">Cannot be saved under this name: ${esc(refusal)}</p>` : "";
  const restored = E.restored ? `<p class="muted small" id="ce-restored">The set you were editing, ` +
    `kept in this browser. Load starts from a stored set instead.</p>` : "";
  const missing = E.missingBase ? `<p class="small" id="ce-base-missing"><b>${esc(E.missingBase)}</b> ` +
    `is not on this server (this draft was kept in your browser from another server, or the set ` +
    `was removed), so it cannot get a new version here: Save to the server stores the draft as a new set.</p>` : "";
  const notes = E.importNote ? E.importNote.notes : [];
  const imported = notes.length ? `<div class="small" id="ce-import-note">From <b>${esc(E.importNote.file)}</b>, ` +
    `what the editor has no place for (not checked, and not in a file downloaded from here):<ul class="ce-problems">` +
    notes.slice(0, 8).map((n) => `<li>${esc(n)}</li>`).join("") +
    (notes.length > 8 ? `<li class="muted">\u2026 and ${notes.length - 8} more</li>` : "") + `</ul></div>` : "";
  const downloaded = E.downloadNote ? `<p class="small" id="ce-downloaded">${esc(E.downloadNote)}</p>` : "";
  return `<div id="ce-status">${head}<ul class="ce-problems">${items}${more}</ul>` +
    `${derived}${note}${restored}${missing}${imported}${reconWarnHTML()}${saveNoteHTML()}${downloaded}</div>`;
}

/* Beside the "a reconstruction" box: what it states. Unchecked, the set is shown as the
 * printed list wherever it is offered; with the cards of a reconstruction, unchanged,
 * that would present a reconstruction as the printed cards: said as a warning. */
function reconNoteHTML() {
  if (E.set.reconstruction) {
    return `<p class="muted small" id="ce-recon-note">Shown as a reconstruction (not the printed cards) ` +
      `wherever the set is offered. Uncheck the box only if these are the printed cards, typed from your own copy of the game.</p>`;
  }
  const match = reconMatch();
  if (match) {
    return `<p class="bad small" id="ce-recon-note">Not checked, but these are the cards of ` +
      `<b>${esc(match)}</b>: saved this way, a reconstruction would be shown as the printed list. ` +
      `Check the box, or change the cards to the printed ones.</p>`;
  }
  return `<p class="small" id="ce-recon-note">Not checked: you state that these are the printed cards, ` +
    `typed from your own copy of the game. The set is shown without the reconstruction label.</p>`;
}

/* Save stopped: the cards are a reconstruction's and the box says they are not. */
function reconWarnHTML() {
  if (!E.reconWarn) return "";
  return `<div class="bad" id="ce-recon-warn" role="alert"><p>These are the cards of <b>${esc(E.reconWarn)}</b>. ` +
    `Saved as not a reconstruction, they would be shown as the printed list, which the server refuses: ` +
    `nothing is saved yet. Save them labelled as a reconstruction, or change the cards to the printed ones.</p>` +
    `<div class="actionbar"><button type="button" class="primary" data-ce="keep-recon">Save labelled as a reconstruction</button></div></div>`;
}

/* What the last Save said, while the set is as saved (a check answering later, or any
 * redraw, keeps it; an edit ends it). */
function saveNoteHTML() {
  if (!E.saveNote || !E.stored || !unchanged()) return "";
  if (E.saveNote === "nothing") {
    return `<p class="muted" id="ce-nothing">Nothing to save: no change since ` +
      `<b>${esc(E.stored.label)}</b> on the server.</p>`;
  }
  return `<p class="ok" id="ce-saved">Saved on the server: <b>${esc(E.stored.label)}</b> ` +
    `(fingerprint <code>${esc(E.stored.fingerprint)}</code>). It is now offered wherever a card set is chosen.</p>`;
}

export function render() {
  const root = E.root;
  if (!root || !E.set) return;
  // each set under its label: the shipped one says it is a reconstruction
  const stored = (E.ctx.cardSets() || []).map((c) =>
    `<option value="${esc(c.name)}"${c.name === (E.startChoice || "default") ? " selected" : ""}>${esc(c.label || c.name)}</option>`).join("");
  root.innerHTML = `<div class="panel ce-head">
    <h2>Card sets</h2>
    <p class="muted small">Enter your printed cards card by card, or import a spreadsheet (one row per card,
      <a href="/v1/cardsets/template.csv" download id="ce-template">download the CSV template</a>; the format is in docs/format.md)
      or a card set's JSON file. Every change is checked with the same rules as <code>bigsur cards validate</code>;
      Download JSON gives the file that <code>--cards FILE</code> reads. Undo (Ctrl+Z) takes back any change,
      and Redo (Ctrl+Shift+Z) brings it back.</p>
    <div class="row">
      <label for="ce-start">Start from</label>
      <select id="ce-start">${stored}</select>
      <button type="button" data-ce="load">Load</button>
      <label for="ce-csv">Import CSV or JSON</label>
      <input type="file" id="ce-csv" accept=".csv,.json,text/csv,application/json">
    </div>
    <div class="row ce-files">
      <button type="button" data-ce="download-json">Download JSON</button>
      <button type="button" data-ce="download-csv">Download CSV</button>
      ${historyHTML()}
    </div>
    <div class="row">
      <label for="ce-setname">Name</label>
      <input id="ce-setname" value="${esc(E.set.name)}" spellcheck="false" size="18">
      <label for="ce-desc">Description</label>
      <input id="ce-desc" value="${esc(E.set.description || "")}" size="40">
      <label class="inl"><input type="checkbox" id="ce-recon"${E.set.reconstruction ? " checked" : ""}> a reconstruction (not the printed list)</label>
      <button type="button" class="primary" data-ce="save" id="ce-save">${sameStored() ? "Save a new version" : "Save to the server"}</button>
    </div>
    ${reconNoteHTML()}
    ${statusHTML()}
  </div>
  <div class="ce-grid">
    <div class="panel ce-list">${listHTML()}</div>
    <div class="panel ce-edit"><div class="ce-edit-grid">${formHTML()}${previewHTML()}</div></div>
  </div>`;
  const form = $("ce-form");
  if (form) {
    form.addEventListener("input", onForm);
    form.addEventListener("change", onForm);
  }
  $("ce-setname").addEventListener("input", (ev) => {
    remember("edit the name", "name");
    E.set.name = ev.target.value.trim();
    $("ce-save").textContent = sameStored() ? "Save a new version" : "Save to the server";
    scheduleCheck();
  });
  $("ce-desc").addEventListener("input", (ev) => {
    remember("edit the description", "description");
    E.set.description = ev.target.value;
    scheduleCheck();
  });
  $("ce-recon").addEventListener("change", (ev) => {
    remember(ev.target.checked ? "check \u201ca reconstruction\u201d" : "uncheck \u201ca reconstruction\u201d");
    E.set.reconstruction = ev.target.checked;
    scheduleCheck();
    rerender(); // the note beside the box says what this states, at once
  });
  $("ce-csv").addEventListener("change", importFile);
  for (const list of root.querySelectorAll(".ce-chips")) list.addEventListener("keydown", onChipKey);
  describeProblems();
  // the set chosen to start from stays chosen when a check's answer redraws the editor
  $("ce-start").addEventListener("change", (ev) => { E.startChoice = ev.target.value; });
}

/* Re-render keeping the focus and the selection (the form is rebuilt after each check:
 * a check answering between selecting a field's text and typing over it had left the
 * caret at the start, and the typed name went in front of the old one). */
function rerender() {
  const a = document.activeElement;
  const name = a && a.name, id = a && a.id;
  const start = a && "selectionStart" in a ? a.selectionStart : null;
  const end = a && "selectionEnd" in a ? a.selectionEnd : null;
  // a button of the editor is found again by what it does (the check answering after a
  // Delete, a card chosen or a download took the focus off it, to <body>)
  const ds = (a && a.dataset) || {};
  const act = E.root && E.root.contains(a) && ["ce", "cePick", "ceJump"].find((k) => ds[k] !== undefined);
  const attr = act && "data-" + act.replace(/[A-Z]/g, (m) => "-" + m.toLowerCase());
  render();
  let el = id ? document.getElementById(id) : null;
  if (!el && name) el = document.querySelector(`#ce-form [name="${CSS.escape(name)}"]`);
  if (!el && act) {
    el = E.root.querySelector(`[${attr}="${CSS.escape(ds[act])}"]`);
  }
  if (el) {
    el.focus();
    if (start !== null && el.setSelectionRange && el.type === "text") {
      try { el.setSelectionRange(start, end); } catch (e) { /* not a text field */ }
    }
  }
}

function onForm(ev) {
  const c = current();
  if (!c) return;
  const f = ev.currentTarget.elements;
  const here = errorsFor(E.sel.kind, E.sel.index); // (found by the card's id before it changes)
  const box = ev.target.closest("[data-field]");
  const what = box ? box.dataset.field : ev.target.name;
  remember(`edit ${c.id || "(no id)"} \u00b7 ${what}`, `${E.sel.kind}:${E.sel.index}:${ev.target.name}`);
  const before = {key: textKey(c), effect: effectToText(effectOf(c)), text: c.text || ""};
  c.id = f.id.value.trim();
  c.text = f.text.value;
  if (!c.text) delete c.text;
  if (E.sel.kind === "highway") {
    c.miles = f.miles.value ? Number(f.miles.value) : null;
    E.slots = {card: c, scenery: [f.scenery0.value, f.scenery1.value],
      cost: [f.cost0.value, f.cost1.value, f.cost2.value]};
    c.scenery = E.slots.scenery.filter(Boolean);
    c.cost = E.slots.cost.filter(Boolean);
    c.material = f.material.value;
    if (f.persistent.value) c.persistent = f.persistent.value; else delete c.persistent;
    const bonus = effectFromText(f.bonus.value);
    if (bonus) c.bonus = bonus; else delete c.bonus;
    c.players = [2, 3, 4].filter((p) => f["p" + p].checked);
  } else {
    c.name = f.name.value;
    c.scenery = f.scenery.value;
    c.ability = effectFromText(f.ability.value);
  }
  const stale = textKey(c) in E.staleText;
  noteStaleText(c, before);
  if (!stale && textKey(c) in E.staleText) { // said once (the note below the Text stays)
    const what = E.sel.kind === "highway" ? "bonus" : "ability";
    say(`The text of ${c.id} was written for its ${what} before your change, and the table ` +
      `shows the text, not the ${what}: clear it or keep it, below the card's Text.`);
  }
  // a CSV conversion problem of this card is settled once the card is edited (what is
  // still wrong comes back from the server's check, naming the field)
  E.convertErrors = E.convertErrors.filter((e) => !here.includes(e));
  const prev = document.querySelector(".ce-preview");
  if (prev) prev.outerHTML = previewHTML();
  scheduleCheck();
}

/* A card's bonus or ability, and its key in ``E.staleText``. */
const effectOf = (c) => (E.sel.kind === "highway" ? c.bonus : c.ability);
const textKey = (c) => `${E.sel.kind}:${c.id}`;

/* After an edit of card ``c`` (``before``: its key, effect and text): a changed effect
 * under a text written for the earlier one is noted (the table would describe the old
 * one); a new text, or the effect back as it was, settles it. */
function noteStaleText(c, before) {
  let was = E.staleText[before.key];
  delete E.staleText[before.key];
  const effect = effectToText(effectOf(c));
  if (was === undefined && effect !== before.effect) was = before.effect;
  if (was !== undefined && c.text && c.text === before.text && effect !== was) {
    E.staleText[textKey(c)] = was;
  }
}

function scheduleCheck(delay = 250) {
  saveDraft(); // every change passes here
  E.reconWarn = null; // it was about the set before the change
  E.downloadNote = null; // (so was a download's)
  E.alert.drop(); // so was the editor's alert (a Save refused)
  clearTimeout(E.timer);
  E.timer = setTimeout(startCheck, delay);
}

/* Check the set as it is now (``E.running``: its text, and the check's promise). */
function startCheck() {
  clearTimeout(E.timer);
  E.running = {text: JSON.stringify(E.set), done: runCheck()};
  return E.running.done;
}

/* The check of the set as it is now answered: the one on its way awaited, or one due
 * (a change waits 250 ms for it) run now. Save applies its answer (a Save sent during
 * the check was refused by the server in its own words). */
async function checkedNow() {
  const text = JSON.stringify(E.set);
  if (E.check && E.check.checkedText === text) return;
  await (E.running && E.running.text === text ? E.running.done : startCheck());
}

async function runCheck() {
  const seq = ++E.seq;
  const name = E.set.name;
  const text = JSON.stringify(E.set);
  try {
    const res = await E.ctx.api("POST", "/v1/cardsets/check", E.set);
    if (seq !== E.seq) return;
    E.check = {...res, checkedName: name, checkedText: text};
  } catch (e) {
    if (seq !== E.seq) return;
    // the reason alone: the status line names the field before it (it was said twice)
    const reason = (e.body && e.body.reason) || e.message;
    E.check = {ok: false, errors: [{card: null, field: e.field, message: reason}], summary: null};
  }
  if (E.root && !E.root.closest(".view").hidden) rerender();
  // what the check found, said when it changes (the status is drawn anew at each check:
  // as a live region it was said at each, or not at all); with what an import or Undo did
  const problems = listedProblems();
  const found = problems.length ? `${problems.length} ${whereOf(problems[0].e)}` : "valid";
  if (E.afterCheck) say(`${E.afterCheck}. ${checkWords()}`);
  else if (found !== E.found) say(checkWords());
  E.afterCheck = null;
  E.found = found;
  document.body.dataset.ceChecked = String(seq);
}

/* Import a CSV (converted by the server) or a card set's JSON file: it replaces the set
 * being edited (Undo brings that back); a file that holds no card set is said so and the
 * set being edited is kept. */
async function importFile(ev) {
  const input = ev.target;
  const file = input.files && input.files[0];
  if (!file) return;
  input.value = ""; // the same file may be chosen again (once fixed, or after an Undo)
  E.ctx.clearError();
  let text;
  try { text = await file.text(); } catch (e) {
    E.ctx.showError(`${file.name} could not be read (${e.message}): the set being edited is kept.`);
    return;
  }
  const json = /\.json$/i.test(file.name) || (!/\.csv$/i.test(file.name) && /^\s*[[{]/.test(text));
  const got = await (json ? fromJSON(file.name, text) : fromCSV(file.name, text));
  if (!got) return;
  remember(`import ${file.name}`);
  E.set = got.set;
  if (got.base) { // a file of a stored set (downloaded from here): Save adds a version to it
    E.storedName = got.base.name;
    E.stored = {label: got.base.label, fingerprint: got.base.fingerprint};
    E.savedText = null;
    E.missingBase = null;
  }
  E.convertErrors = got.errors;
  E.importNote = got.notes.length ? {file: file.name, notes: got.notes} : null;
  E.staleText = {};
  E.sel = {kind: "highway", index: 0};
  E.check = null;
  E.saveNote = null;
  E.afterCheck = `Imported ${file.name}: ${got.set.highway.length} Highway cards, ${got.set.landmarks.length} Landmarks`;
  const first = located().find(({at}) => at);
  if (first) jumpTo(first.at, false);
  render();
  scheduleCheck(0);
  focusOn("#ce-csv");
}

/* A JSON file's set, {set, errors, notes, base}; null when it holds none, or one beyond
 * what the server checks (too many cards, too large: its check refuses it) (said).
 * ``base``: the stored set of the file's name, when another set is being edited (a set
 * downloaded here and imported again is a version of its set, not a new set refused by
 * its name). */
async function fromJSON(fileName, text) {
  const r = readSetJSON(text);
  if (r.refused) {
    E.ctx.showError(`${fileName} ${r.refused}: the set being edited is kept.`);
    return null;
  }
  if (!r.set.highway.length && !r.set.landmarks.length) {
    E.ctx.showError(`${fileName} holds no card: the set being edited is kept.`);
    return null;
  }
  if (!r.set.name) r.set.name = E.set.name;
  try { await E.ctx.api("POST", "/v1/cardsets/check", r.set); } catch (e) {
    E.ctx.showError(`${fileName} is refused by the server's check (${e.message}): the set being edited is kept.`);
    return null;
  }
  let base = null;
  if ((E.storedName || "").toLowerCase() !== r.set.name.toLowerCase()) {
    try {
      base = (await E.ctx.api("GET", "/v1/cardsets"))
        .find((x) => x.name.toLowerCase() === r.set.name.toLowerCase()) || null;
    } catch (e) { base = null; } // (saved as a new set: the server names a taken name)
  }
  return {set: r.set, errors: [], notes: r.notes, base};
}

/* A CSV file's set, converted by the server, {set, errors, notes}; null when it holds
 * no card (said). The CSV has the cards only: the name, description and label being
 * edited are kept. */
async function fromCSV(fileName, text) {
  const name = E.set.name || fileName.replace(/\.csv$/i, "");
  try {
    const r = await fetch("/v1/cardsets/convert?name=" + encodeURIComponent(name), {
      method: "POST", headers: {"Content-Type": "text/csv"}, body: text});
    const data = await r.json();
    if (!r.ok) throw new E.ctx.ApiError(r.status, data.field, data.message || "refused", data);
    if (!data.cards.highway.length && !data.cards.landmarks.length) {
      // not a card list (an empty file, another file): the set being edited is kept
      const why = data.errors.map((x) => x.message).join("; ");
      E.ctx.showError(`${fileName} holds no card${why ? " (" + why + ")" : ""}: the set being edited is kept.`);
      return null;
    }
    return {set: {...data.cards, description: E.set.description, reconstruction: E.set.reconstruction},
      errors: data.errors, notes: []};
  } catch (e) {
    E.ctx.showError(e instanceof E.ctx.ApiError ? e
      : `${fileName} could not be converted (${e.message}): the set being edited is kept.`);
    return null;
  }
}

/* Select the card ``at`` ({kind, index}: a problem's card), its first bad field focused. */
function jumpTo(at, draw = true) {
  E.sel = {kind: at.kind, index: at.index};
  if (draw) {
    render();
    const errs = errorsFor(at.kind, at.index);
    const el = errs.length && document.querySelector(`#ce-form [data-field="${CSS.escape(errs[0].field || "")}"] select, #ce-form [data-field="${CSS.escape(errs[0].field || "")}"] input`);
    (el || $("ce-id") || document.body).focus();
  }
}

/* The next id not taken (after a deletion, the count + 1 may be). */
function freeId(prefix, list) {
  const taken = new Set(list.map((c) => c.id));
  let n = list.length + 1;
  while (taken.has(prefix + String(n).padStart(2, "0")) || taken.has(prefix + n)) n += 1;
  return prefix + String(n).padStart(2, "0");
}

/* Why the server refuses the name checked last, in a player's words; null when it takes
 * it. A name taken by another stored set is refused as a new set (409: the server's
 * reason names its API's way to a new version); the stored set loaded here gets a new
 * version under its own name. */
function nameRefusal() {
  const ch = E.check;
  if (!ch || !ch.name) return null;
  if (ch.name_refused) return ch.name.replace(/^name: /, "");
  if (sameStored()) return null;
  return `a card set named "${ch.checkedName}" is already on this server: choose another name ` +
    `(to save a new version of that set, choose it under Start from and Load it)`;
}

const sameStored = () => !!E.storedName && E.storedName.toLowerCase() === (E.set.name || "").toLowerCase();

/* ``printed``: the owner confirmed that cards equal to a reconstruction's are saved as
 * not one (else such a Save stops and asks). */
async function save() {
  E.ctx.clearError();
  E.reconWarn = null;
  await checkedNow();
  const ch = E.check;
  const refusal = ch && ch.checkedName === E.set.name ? nameRefusal() : null;
  if (refusal) { // the server would refuse it
    E.alert.say(`Cannot be saved under this name: ${refusal}`);
    return;
  }
  if (unchanged()) { // no new version of the same set: said so
    E.saveNote = "nothing";
    rerender();
    saySaved();
    return;
  }
  if (!E.set.reconstruction) { // (the server refuses it too: POST /v1/cardsets names it)
    await loadRecons();
    const match = reconMatch();
    if (match) {
      E.reconWarn = match;
      rerender();
      return;
    }
  }
  const sent = JSON.stringify(E.set); // what is saved, even if edited while it is sent
  const listed = ch && ch.checkedText === sent && located().length ? listedProblems() : [];
  if (listed.length) { // the check of the set as it is found problems: the server refuses them
    const {e} = listed[0];
    E.alert.say(`Not saved: fix the ${listed.length > 1 ? listed.length + " problems" : "problem"} ` +
      `listed first (${whereOf(e)}: ${e.message}).`);
    return;
  }
  const stale = staleCards();
  if (stale.length) { // saved, the table would describe the old effect
    E.alert.say(`Not saved: the text of ${stale.map((x) => x.id).join(", ")} was written for ` +
      `${stale.length > 1 ? "their" : "its"} bonus or ability before your change. Clear it or keep it ` +
      `(below the card's Text), or write the new one.`);
    return;
  }
  const asVersion = sameStored();
  try {
    const path = asVersion
      ? `/v1/cardsets/${encodeURIComponent(E.storedName)}/versions` : "/v1/cardsets";
    const res = await E.ctx.api("POST", path, E.set);
    // the same cards as the stored version: the server stores nothing and answers with it
    const same = !!E.stored && asVersion && res.fingerprint === E.stored.fingerprint;
    E.storedName = res.name;
    E.stored = {label: res.label, fingerprint: res.fingerprint};
    E.savedText = sent;
    savedUnder(res.name);
    E.saveNote = same ? "nothing" : "saved";
    E.missingBase = null;
    saveDraft();
    await E.ctx.refreshCardSets();
    await loadRecons(); // a set saved as a reconstruction is one to compare with from now on
    rerender();
    saySaved();
  } catch (e) {
    if (asVersion && e.status === 404) { // removed from the server since it was loaded
      baseMissing();
      rerender();
      return;
    }
    if (e.body && e.body.errors) { E.check = {ok: false, errors: e.body.errors, summary: null}; render(); }
    E.alert.say(e);
  }
}

/* What Save did, said to a screen reader as the status shows it (the status is drawn anew
 * with the editor: a line it gains is not read out). */
function saySaved() {
  const note = $("ce-saved") || $("ce-nothing");
  if (note) say(note.textContent.replace(/\s+/g, " ").trim());
}

/* After a Save of the set ``name``: the states Undo goes back to of that set (or of a new
 * set by that name) are of the set stored now (a new version when saved again), not of a
 * set the server lacks or has at an earlier version. */
function savedUnder(name) {
  const same = (n) => (n || "").toLowerCase() === name.toLowerCase();
  for (const {state: snap} of [...E.history.undo, ...E.history.redo]) {
    if (snap.storedName ? same(snap.storedName) : same(snap.set.name)) {
      Object.assign(snap, {storedName: E.storedName, stored: E.stored, savedText: E.savedText, missingBase: null});
    }
  }
  saveHistory();
}

/* Clicks inside the editor (main.js forwards them); true when handled. */
export function onClick(el) {
  const ds = el.dataset;
  if (ds.cePick) {
    const [kind, i] = ds.cePick.split(":");
    E.sel = {kind, index: Number(i)};
    render();
    const again = document.querySelector(`[data-ce-pick="${CSS.escape(ds.cePick)}"]`);
    if (again) again.focus();
    return true;
  }
  if (ds.ceJump) {
    const [kind, i] = ds.ceJump.split(":");
    jumpTo({kind, index: Number(i)});
    return true;
  }
  if (!ds.ce) return false;
  const again = `[data-ce="${CSS.escape(ds.ce)}"]`; // the control used, drawn anew
  if (ds.ce === "load") {
    const start = $("ce-start");
    const label = start.selectedOptions[0] ? start.selectedOptions[0].textContent : start.value;
    startFrom(start.value, `load ${label}`).then(() => { render(); focusOn(again); })
      .catch(E.ctx.showError);
  } else if (ds.ce === "undo" || ds.ce === "redo") travel(ds.ce === "undo");
  else if (ds.ce === "download-json") { downloadJSON(); focusOn(again); }
  else if (ds.ce === "download-csv") downloadCSV().then(() => focusOn(again));
  else if (ds.ce === "add-highway") {
    const id = freeId("H", E.set.highway);
    remember(`add ${id}`);
    E.set.highway.push({id, miles: 3, scenery: ["ocean", "forest"],
      cost: ["stone", "water"], material: "timber", players: [2, 3, 4]});
    E.sel = {kind: "highway", index: E.set.highway.length - 1};
    render(); scheduleCheck(); focusOn(again);
  } else if (ds.ce === "add-landmark") {
    const id = freeId("L", E.set.landmarks);
    remember(`add ${id}`);
    E.set.landmarks.push({id, name: "New Landmark",
      scenery: "ocean", ability: {kind: "mile_bonus", miles: 1}});
    E.sel = {kind: "landmark", index: E.set.landmarks.length - 1};
    render(); scheduleCheck(); focusOn(again);
  } else if ((ds.ce === "clear-text" || ds.ce === "keep-text") && current()) {
    const c = current();
    remember(`${ds.ce === "clear-text" ? "clear" : "keep"} the text of ${c.id || "(no id)"}`);
    delete E.staleText[textKey(c)];
    if (ds.ce === "clear-text") delete c.text;
    scheduleCheck();
    rerender();
    const box = $(ds.ce === "clear-text" ? "ce-text" : "ce-bonus") || $("ce-ability");
    if (box) box.focus();
  } else if (ds.ce === "delete" && current()) {
    remember(`delete ${current().id || "(no id)"}`);
    delete E.staleText[textKey(current())];
    const list = E.sel.kind === "highway" ? E.set.highway : E.set.landmarks;
    list.splice(E.sel.index, 1);
    E.sel.index = Math.max(0, Math.min(E.sel.index, list.length - 1));
    render(); scheduleCheck(); focusOn(again, "#ce-undo");
  } else if (ds.ce === "save") save();
  else if (ds.ce === "keep-recon") {
    remember("check \u201ca reconstruction\u201d");
    E.set.reconstruction = true;
    saveDraft();
    scheduleCheck(0);
    save().then(() => focusOn("#ce-save")); // (the button pressed is gone)
  }
  return true;
}
