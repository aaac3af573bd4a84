/* Reviewing an uploaded record (a bigsur-record/1 file, docs/format.md): read and check
 * the file's envelope here (a message naming the field), then the server checks every
 * action and reviews it as an analysis job (POST /v1/analyze; the record's own text is
 * sent, so a seed above 2^53 keeps its digits). main.js draws the review as for a game.
 */

const FORMAT = "bigsur-record/1";

export class RecordFileError extends Error {
  constructor(field, message) {
    super(field ? `${field}: ${message}` : message);
    this.field = field;
  }
}

/* The parts of a record the page needs (never its seed: a JavaScript number would round
 * it): {cardsName, inlineCards (the set when the record holds it inline, else null),
 * fingerprint (its card set's, when the record names it), names, players, nActions,
 * start}. Throws RecordFileError naming the field. */
export function readRecord(text) {
  if (typeof text !== "string" || !text.trim()) throw new RecordFileError(null, "the file is empty");
  let raw;
  try { raw = JSON.parse(text); } catch (e) {
    throw new RecordFileError(null, `not JSON (${e.message})`);
  }
  if (!raw || typeof raw !== "object" || Array.isArray(raw)) {
    throw new RecordFileError("record", `must be a JSON object (a ${FORMAT} record), got ${Array.isArray(raw) ? "a list" : typeof raw}`);
  }
  if (raw.format !== FORMAT) {
    throw new RecordFileError("format", `must be "${FORMAT}", got ${JSON.stringify(raw.format === undefined ? null : raw.format)}`);
  }
  if (![2, 3, 4].includes(raw.players)) {
    throw new RecordFileError("players", `must be 2, 3 or 4, got ${JSON.stringify(raw.players === undefined ? null : raw.players)}`);
  }
  const actions = raw.actions === undefined ? [] : raw.actions;
  if (!Array.isArray(actions) || !actions.every((a) => typeof a === "string")) {
    throw new RecordFileError("actions", "must be a list of action strings");
  }
  const cards = raw.cards === undefined ? "default" : raw.cards;
  const cardsName = typeof cards === "string" ? cards : cards && typeof cards === "object" ? cards.name : null;
  if (typeof cardsName !== "string" || !cardsName) {
    throw new RecordFileError("cards", 'must be "default", a set name or a card set with a name');
  }
  const names = Array.isArray(raw.names) && raw.names.length === raw.players &&
    raw.names.every((x) => typeof x === "string") ? raw.names : null;
  const inline = typeof cards === "object" && Array.isArray(cards.highway) &&
    Array.isArray(cards.landmarks) ? cards : null;
  const fingerprint = raw.card_set && typeof raw.card_set.fingerprint === "string"
    ? raw.card_set.fingerprint : null;
  return {cardsName, inlineCards: inline, fingerprint, names, players: raw.players,
    nActions: actions.length, start: raw.start !== undefined};
}

/* Submit the record's text for review and follow the job: onStarted(job) once the server
 * has given it an id (the page keeps it, to pick the job up after a reload),
 * onProgress(done, total). Resolves with the finished job; a failed job throws its error
 * message. */
export async function analyseUploaded(api, text, budget, onProgress, onStarted = () => {}) {
  const job = await api.analyseRecordText(text, budget);
  onStarted(job);
  return followJob(api, job, onProgress);
}

/* Follow ``job`` (as the server last gave it) until it ends: onProgress(done, total) while
 * it is queued or running. Resolves with the finished job; a failed or cancelled job
 * throws its error message. */
export async function followJob(api, job, onProgress) {
  while (job.status === "queued" || job.status === "running") {
    onProgress(job.progress.done, job.progress.total);
    await new Promise((r) => setTimeout(r, 400));
    job = await api.job(job.job_id);
  }
  if (job.status !== "done") {
    throw new RecordFileError(job.error && job.error.field, "the review failed: " +
      (job.error ? job.error.reason || job.error.message : job.status));
  }
  return job;
}
