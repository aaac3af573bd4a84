/* The editors' Undo and Redo (the card-set editor's and the position editor's): the two
 * bounded lists of steps, the Undo and Redo buttons and their keys. A step is the state
 * an edit left behind, named by the edit: {label: "delete H12", state}. What a state is,
 * what restoring it does and what is said of it are each editor's own.
 */

import {esc} from "../svg.js";

export class UndoHistory {
  /* ``limit``: the steps Undo goes back through. */
  constructor(limit) {
    this.limit = limit;
    this.undo = []; // the steps Undo takes, the last one first
    this.redo = []; // the steps Undo went back from, for Redo
    this.mergeKey = null; // the key of the last step recorded
  }

  /* The state before an edit (``label``: the edit in words), kept for Undo, the oldest
   * beyond the limit left out; what was undone can no longer be redone. ``key``: edits
   * of the same key in a row are one step, back to the state before the first (a name is
   * not undone letter by letter). Whether a step was recorded (false: merged). */
  record(label, state, key = null) {
    if (this.merges(key)) return false;
    this.mergeKey = key;
    this.undo.push({label, state});
    if (this.undo.length > this.limit) this.undo.shift();
    this.redo = [];
    return true;
  }

  /* Whether an edit of ``key`` would be merged into the last step (its state is not
   * needed: an editor whose state is costly to copy asks first). */
  merges(key) {
    return Boolean(key) && key === this.mergeKey && this.undo.length > 0;
  }

  /* The step Undo (``back``) or Redo would take; undefined when none. */
  next(back) {
    const steps = back ? this.undo : this.redo;
    return steps[steps.length - 1];
  }

  /* Undo (``back``) or Redo: the step taken (its state is the one to restore), or
   * undefined when none. ``now``, the state it leaves, goes on the other list under the
   * step's label (an Undo too many is redone); the next edit is a step of its own. */
  take(back, now) {
    const [from, to] = back ? [this.undo, this.redo] : [this.redo, this.undo];
    const step = from.pop();
    if (!step) return undefined;
    to.push({label: step.label, state: now});
    this.mergeKey = null;
    return step;
  }

  /* The lists as kept elsewhere (across a reload of the tab), each cut to the limit. */
  load(undo, redo) {
    this.undo = undo.slice(-this.limit);
    this.redo = redo.slice(-this.limit);
  }

  /* The Undo and Redo buttons, each naming its step, with its keys (``prefix``: the
   * editor's, "ce": #ce-undo, data-ce="undo"). A button with no step to take is
   * disabled; with ``focusable``, aria-disabled only: it keeps the focus, and its click
   * is the editor's to answer ("Nothing to undo."). */
  buttonsHTML(prefix, {focusable = false} = {}) {
    const button = (kind, keys, title) => {
      const step = this.next(kind === "undo");
      const verb = kind === "undo" ? "Undo" : "Redo";
      const off = focusable ? ` aria-disabled="true"` : " disabled";
      return `<button type="button" data-${prefix}="${kind}" id="${prefix}-${kind}" ` +
        `aria-keyshortcuts="${keys}" title="${title}, outside a text field"${step ? "" : off}>` +
        `${step ? esc(`${verb} ${step.label}`) : verb}</button>`;
    };
    return `${button("undo", "Control+Z Meta+Z", "Ctrl+Z")} ` +
      button("redo", "Control+Shift+Z Meta+Shift+Z Control+Y", "Ctrl+Shift+Z or Ctrl+Y");
  }
}

/* The input types typed in (the browser reads a missing or unknown type as "text"). */
const TYPED = new Set(["text", "search", "number", "url", "email", "tel", "password"]);

/* "undo" for Ctrl+Z (Cmd+Z), "redo" for Ctrl+Shift+Z or Ctrl+Y (Cmd+Shift+Z, Cmd+Y),
 * typed outside a text field; null for any other key event, and in a text field (where
 * the keys undo its own typing). */
export function undoKey(ev) {
  if (!(ev.ctrlKey || ev.metaKey) || ev.altKey) return null;
  const k = (ev.key || "").toLowerCase();
  const redo = (k === "z" && ev.shiftKey) || (k === "y" && !ev.shiftKey);
  if (k !== "z" && !redo) return null;
  const el = ev.target;
  const tag = (el && el.tagName) || "";
  const typing = tag === "TEXTAREA" || (el && el.isContentEditable) ||
    (tag === "INPUT" && TYPED.has(el.type));
  return typing ? null : redo ? "redo" : "undo";
}
