/* The table as the renderer takes it (pure): from a seat's view, from a full position,
 * and one public action applied to it (AI turns shown step by step). */

const S = {cards: null};
export function setModelCards(cards) { S.cards = cards; }

/* The table as the renderer takes it, from a seat's view (bigsur-view/1). */
export function tableFromView(v) {
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
export function tableFromState(st, seat) {
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

export function matOf(id) {
  const c = S.cards && S.cards.highway[id];
  return c ? c.material : null;
}

/* Apply one public action of a log to a table model (for showing AI turns step by
 * step). Cards the page cannot know (refills, deck draws) become unknown slots. */
export function applyPublic(t, entry) {
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
    // the payment's public part (the server's log says it; a log without it: only the
    // built card leaves the hand)
    const spent = entry.cards_spent || 0, knownSpent = entry.known_spent || [];
    seat.handCount = Math.max(0, seat.handCount - 1 - spent);
    seat.discardCount += spent;
    if (seat.known) seat.known = seat.known.filter((c) => c !== card && !knownSpent.includes(c));
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

