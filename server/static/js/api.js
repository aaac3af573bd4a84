/* The /v1 API of the same server: one function per call the page makes, one ApiError.
 *
 * Seeds are never read into JavaScript numbers (they round above 2^53): the page sends a
 * seed as a decimal string, reviews a game by its id (the server builds the record), and
 * downloads the record as the server's own text.
 */

export class ApiError extends Error {
  constructor(status, field, message, body) {
    super(message);
    this.status = status;
    this.field = field;
    this.body = body;
  }
}

/** A request body already written as JSON text (sent as it is: a record's seed digits
 * must not go through a JavaScript number). */
export class JsonText {
  constructor(text) { this.text = text; }
}

async function request(method, path, body, token, asText = false) {
  const headers = {Accept: "application/json"};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = "Bearer " + token;
  let r;
  try {
    r = await fetch(path, {method, headers,
      body: body === undefined ? undefined
        : body instanceof JsonText ? body.text : JSON.stringify(body)});
  } catch (e) {
    throw new ApiError(0, null, "cannot reach the server (" + e.message + ")", null);
  }
  const text = await r.text();
  let data = null;
  try { data = text ? JSON.parse(text) : null; } catch (e) { data = null; }
  if (!r.ok) {
    let msg = (data && (data.message || data.reason)) || (r.status + " " + r.statusText);
    if (r.status === 503) {
      const retry = r.headers.get("Retry-After");
      msg += retry ? ` (try again in ${retry} s)` : "";
    }
    throw new ApiError(r.status, data && data.field, msg, data);
  }
  return asText ? text : data;
}

export const api = (method, path, body, token) => request(method, path, body, token);

const g = (id) => "/v1/games/" + encodeURIComponent(id);

export const listCardSets = () => api("GET", "/v1/cards");
export const cardSet = (name) => api("GET", "/v1/cards/" + encodeURIComponent(name));
export const createGame = (body) => api("POST", "/v1/games", body);
export const getGame = (id, token) => api("GET", g(id), undefined, token);
export const postAction = (id, action, actionId, token) =>
  api("POST", g(id) + "/actions", {action, action_id: actionId}, token);
export const gameHint = (id, budget, seed, token) =>
  api("POST", g(id) + "/hint", {budget, seed}, token);
export const position = (id, n, token) => api("GET", `${g(id)}/positions/${n}`, undefined, token);
export const score = (pos) => api("POST", "/v1/score", {position: pos});
/** The record exactly as the server wrote it (its seed digits untouched). */
export const recordText = (id, token) => request("GET", g(id) + "/record", undefined, token, true);
/** Start (or get the running) review of a finished game, by its id. */
export const startReview = (id, budget, token) =>
  api("POST", g(id) + "/analysis", {budget, seed: 0}, token);
export const latestReview = (id, token) => api("GET", g(id) + "/analysis", undefined, token);
export const job = (jobId) => api("GET", "/v1/analyze/" + encodeURIComponent(jobId));
/** Review a record from its own text (an uploaded file): its seed digits untouched. */
export const analyseRecordText = (text, budget) => api("POST", "/v1/analyze",
  new JsonText(`{"record": ${text}, "budget": ${JSON.stringify(budget)}, "seed": 0}`));
/** The position after a record's first ``n`` actions, from the record's own text (no job
 * needed: a kept review opens its decisions after the server dropped its job). */
export const replayRecordText = (text, n) => api("POST", "/v1/replay",
  new JsonText(`{"record": ${text}, "n": ${JSON.stringify(n)}}`));
/** Continue a position (the editor's view) as a game: the view's seat is the human. */
export const continueGame = (view, seats) => api("POST", "/v1/games", {position: view, seats});

/** The seed of a record's text, as a decimal string (never through a Number). */
export function seedOfRecordText(text) {
  const m = /"seed"\s*:\s*"?(\d+)"?/.exec(text || "");
  return m ? m[1] : null;
}
