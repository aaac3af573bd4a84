"""Play sessions: games against the AI (or hot-seat humans) held by the server.

A game lives in the store as its setup plus its applied actions; in memory as the
replayed state (rebuilt on demand after a restart). Each seat is ``human`` (it gets a
secret token) or a bot spec. After a human action the AI seats play, one action at a
time in the search pool, each committed before the next, until a human must act; the
AI runs as a task per game so that a restart (or a client that stops waiting) resumes
it. AI seeds come from :func:`solver.search.tournament.bot_seed` of the game seed and
the position (see :func:`server.pool.bot_turn_task`), so an iteration-budget AI replays
the same.

What a seat is sent is built only from ``view_of(state, seat)``, the legal actions of
its own turn and a log of public actions: other seats' builds are shown without their
payment (a payment names discarded cards, whose fronts are hidden).
"""

from __future__ import annotations

import asyncio
import dataclasses
import hashlib
import logging
import secrets
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NamedTuple

from solver.rules.actions import Build, Take, parse_action, spent_cards
from solver.rules.cards import CardSet
from solver.rules.constants import MAX_PLAYERS, MIN_PLAYERS
from solver.rules.determinize import InconsistentViewError, determinize
from solver.rules.engine import apply_inplace, legal_actions, new_game, play
from solver.rules.payment import affordable_cards, cheapest_payment
from solver.rules.position import (
    PositionError,
    cards_to_json,
    resolve_cards,
    state_from_json,
    state_to_json,
)
from solver.rules.record import GameRecord
from solver.rules.scoring import final_scores
from solver.rules.state import GameState, Phase
from solver.rules.views import PlayerView, view_of, view_to_json
from solver.rules.wording import got_type
from solver.search.specs import SpecError, check_caps, parse_bot_spec

from .cluster import ClusterUnavailable
from .errors import ApiError, in_position
from .pool import read_position
from .scheduler import cancel_and_wait
from .settings import SERVER_BOTS
from .store import (
    Conflict,
    GameRow,
    LimitReached,
    Store,
    StoreUnavailable,
    token_hash,
    token_matches,
)

if TYPE_CHECKING:
    from .cardsets import CardRegistry
    from .pool import SearchService
    from .settings import Settings

log = logging.getLogger("bigsur.server")
HUMAN = "human"
# a stored game's status: whose move it waits for, or over (/metrics counts each)
GAME_STATUSES = (HUMAN, "ai", "over")
TOKEN_BYTES = 24  # 192 bits
FAIRNESS_SCHEME = 'sha256("SEED:SALT") hex, SEED in decimal, SALT 32 hex digits'
# A seed the server draws is below 2**53, so that it survives JSON in JavaScript (whose
# numbers are doubles: JSON.parse rounds a larger integer, and a page's check of the
# commitment, or a record posted back, would fail). The deal's fairness rests on the
# secret 128-bit salt and the published commitment, not on the seed's size; a seed a
# client chooses keeps its full range (its own number).
DRAWN_SEED_BITS = 53
COMMIT_ATTEMPTS = 5  # an action that loses this many races to other processes gets 409
# what stops an AI turn without a bug: the database or the Dask scheduler away
OUTAGES = (StoreUnavailable, ClusterUnavailable)
# how often a long-poll (GET ?wait=) reads the game again from a database shared with
# other server processes: an action one of them applies wakes no waiter here
POLL_SECONDS = 0.5


@dataclass
class LiveGame:
    """A game in memory: its setup and the state after its ``n`` applied actions."""

    row: GameRow
    cards: CardSet
    state: GameState
    actions: list[tuple[int, str]] = field(default_factory=list)  # (seat, applied action)
    # the card each deck take drew, by action index: its seat's log names it (public_log)
    drawn: dict[int, int] = field(default_factory=dict)
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)  # a move (a human's, the AI's)
    # held while ``state`` is brought in step with the store or an action is stored and
    # applied: the store's calls run in threads, so two requests' awaits could interleave
    synced: asyncio.Lock = field(default_factory=asyncio.Lock)

    @property
    def id(self) -> str:
        return self.row.id

    @property
    def n(self) -> int:
        return len(self.actions)

    @property
    def over(self) -> bool:
        return self.state.phase == Phase.OVER

    def played(self, seat: int, text: str, after: GameState | None = None) -> None:
        """Note ``seat``'s action ``text`` as applied: ``after`` is the state it led to
        (None: apply it to ``state`` in place), and a deck take's card is kept for
        :func:`public_log` (the state after it no longer says which card came off)."""
        action = parse_action(text)
        if isinstance(action, Take) and action.card is None and self.state.deck:
            self.drawn[len(self.actions)] = self.state.deck[-1]
        if after is None:
            apply_inplace(self.state, action)
        else:
            self.state = after
        self.actions.append((seat, text))

    def is_human(self, seat: int) -> bool:
        return self.row.seats[seat] == HUMAN

    def status(self) -> str:
        if self.over:
            return "over"
        return "human" if self.is_human(self.state.current) else "ai"


def explicit(state: GameState, action) -> Any:
    """The action with a Build's payment made explicit (as the engine pays it), so that
    the stored game replays the same whatever later versions choose as cheapest."""
    if isinstance(action, Build) and action.payment is None:
        payment = cheapest_payment(state, state.cards.card(action.card))
        if payment is not None:
            return Build(action.card, action.side, payment)
    return action


def drawn_seed() -> int:
    """A seed the server draws for a game (see :data:`DRAWN_SEED_BITS`)."""
    return secrets.randbits(DRAWN_SEED_BITS)


def commitment(seed: int, salt: str) -> str:
    """The published commitment to a game's deal: ``sha256("SEED:SALT")`` in hex."""
    return hashlib.sha256(f"{seed}:{salt}".encode("ascii")).hexdigest()


class Commitment(NamedTuple):
    """A dealt game's fairness commitment: the salt, ``sha256("SEED:SALT")``, and whether
    the creator chose the seed."""

    salt: str | None
    commitment: str | None
    chosen: bool


def initial_state(row: GameRow, cards: CardSet) -> GameState:
    """A stored game's state before its first action: its start position, else the deal
    of its seed."""
    if row.start is not None:
        return state_from_json(row.start, cards)
    return new_game(row.players, row.seed, cards)


def game_record(live: LiveGame, n: int | None = None) -> GameRecord:
    """The game (its first ``n`` actions) as a record: from its seed, or from its start
    position for a game continued from a position."""
    row = live.row
    return GameRecord(live.cards, row.players,
                      seed=row.seed if row.start is None else None,
                      start_position=row.start,
                      actions=[a for _s, a in live.actions[:n]], names=list(row.seats))


def position_after(record: GameRecord, n: int) -> dict[str, Any]:
    """The full position after the record's first ``n`` actions (422 naming ``n`` when
    out of range): the review's past positions."""
    if not 0 <= n <= len(record.actions):
        raise ApiError(422, "n", f"must be 0 to {len(record.actions)} (actions in the game), "
                       f"got {n}", "out_of_range")
    return state_to_json(dataclasses.replace(record, actions=record.actions[:n]).replay())


def plausible_id(value: object) -> bool:
    """Whether a game or job id from a path is worth a database lookup: ids are short
    and never hold NUL (PostgreSQL refuses NUL in text: a lookup would fail with a 500
    instead of the 404 it deserves)."""
    return isinstance(value, str) and len(value) < 100 and "\x00" not in value


def public_log(live: LiveGame, seat: int) -> list[dict[str, Any]]:
    """The game's actions as ``seat`` sees them: its own in full (a deck take with the
    card it drew, ``drawn``), another seat's Build without its payment. Every Build also
    says what of its payment all seats saw: ``cards_spent``, the hand cards it discarded
    (the pile's backs count them), and ``known_spent``, those of them everybody knew
    (taken face up; a known card spent stays known in the pile), so a page can follow
    the hand and discard counts step by step."""
    ids = [c.id for c in live.cards.highway]
    log = []
    for i, (s, text) in enumerate(live.actions):
        entry: dict[str, Any] = {"index": i, "seat": s, "action": text}
        if s == seat and i in live.drawn:
            entry["drawn"] = ids[live.drawn[i]]
        action = parse_action(text)
        if isinstance(action, Build):
            if s != seat:
                entry["action"] = Build(action.card, action.side).notation()
            if action.payment is not None:  # (a stored Build has it: see explicit)
                spent = spent_cards(action.payment)
                known = {ids[c] for c in live.state.players[s].known_discard}
                entry["cards_spent"] = len(spent)
                entry["known_spent"] = [c for c in spent if c in known]
        log.append(entry)
    return log


class GameService:
    """Creates, loads, plays and resumes games; one asyncio lock per game."""

    def __init__(self, store: Store, settings: Settings, cards: CardRegistry):
        self.store = store
        self.settings = settings
        self.cards = cards
        self.live: OrderedDict[str, LiveGame] = OrderedDict()  # most recently used last
        self.ai_tasks: dict[str, asyncio.Task] = {}
        self.ai_errors = 0
        self.stopping = False  # see stop_asked
        # one event per game someone waits on (see wait_change): set and dropped when
        # this process changes the game, so an entry lives only until the next change
        self._changed: dict[str, asyncio.Event] = {}

    # setup --------------------------------------------------------------------
    def check_seat_spec(self, i: int, spec: str) -> None:
        """A seat is "human" or a bot of :data:`SERVER_BOTS` within the server's caps
        (the grammar of :mod:`solver.search.specs`, caps applied to the parsed numbers)."""
        if spec == HUMAN:
            return
        try:
            parsed = parse_bot_spec(spec, f"seats[{i}]", known=SERVER_BOTS)
            check_caps(parsed, self.settings.max_budget_ms / 1000,
                       self.settings.max_iterations, f"seats[{i}]")
        except SpecError as err:
            limit = " (BIGSUR_MAX_BUDGET_MS / BIGSUR_MAX_ITERATIONS)" \
                if err.kind == "limit" else ""
            raise ApiError(422, err.field, err.reason + limit, err.kind) from None

    def safe_spec(self, spec: str) -> str:
        """The spec an AI seat is run with: a stored spec that no longer passes the checks
        (an older server accepted it, or the caps were lowered) plays as ``greedy``."""
        try:
            self.check_seat_spec(0, spec)
            return spec
        except ApiError:
            return "greedy"

    def _seat_list(self, seats: list[str] | None, players: int, human: int) -> list[str]:
        """The checked seat specs; by default seat ``human`` is the human, the others
        BIGSUR_DEFAULT_AI."""
        if seats is None:
            seats = [HUMAN if i == human else self.settings.default_ai for i in range(players)]
        if len(seats) != players:
            raise ApiError(422, "seats", f"must list one entry per player ({players}), "
                           f"got {len(seats)}", "setup")
        for i, spec in enumerate(seats):
            self.check_seat_spec(i, spec)
        if HUMAN not in seats:
            raise ApiError(422, "seats", 'at least one seat must be "human"', "setup")
        return seats

    def _one_human_knows(self, seats: list[str], field: str) -> None:
        """Refuse a deal its creator knows (a chosen seed, a full position) in a game with
        several human seats, unless BIGSUR_CHOSEN_SEEDS=any."""
        humans = seats.count(HUMAN)
        if humans <= 1 or self.settings.chosen_seeds == "any":
            return
        if field == "seed":
            raise ApiError(422, "seed", f"a game with {humans} human seats draws its own seed "
                           "(whoever chose it would know every card); the game publishes a "
                           "commitment to it and reveals it at the end", "setup")
        raise ApiError(422, field, f"a game with {humans} human seats cannot start from a "
                       "full position (whoever wrote it knows every card): start it from "
                       "one seat's view instead", "setup")

    async def create(self, players: int, seats: list[str] | None, seed: int | None,
                     cards_name: str, creator: str | None = None
                     ) -> tuple[LiveGame, dict[int, str]]:
        """A new game dealt by ``new_game(players, seed)``, with a fairness commitment."""
        if not MIN_PLAYERS <= players <= MAX_PLAYERS:
            raise ApiError(422, "players", f"must be {MIN_PLAYERS} to {MAX_PLAYERS}, "
                           f"got {players}", "setup")
        seats = self._seat_list(seats, players, 0)
        if seed is not None:
            self._one_human_knows(seats, "seed")
        cards = await self.cards.find(cards_name)
        if cards is None:
            raise ApiError(422, "cards", f"no card set named {cards_name!r} (known: "
                           f"{', '.join(sorted(self.cards.sets))})", "cards")
        chosen = seed is not None
        if seed is None:
            seed = drawn_seed()
        salt = secrets.token_hex(16)
        return await self._open(new_game(players, seed, cards), cards, seats, seed, creator,
                                Commitment(salt, commitment(seed, salt), chosen), None)

    async def continue_from(self, raw: Any, seats: list[str] | None, seed: int | None,
                            players: int | None, creator: str | None = None
                            ) -> tuple[LiveGame, dict[int, str]]:
        """A game from a position: a view (bigsur-view/1) of the seat to act, whose hidden
        cards are drawn with ``seed`` by the public determinizer (the human plays the
        view's seat, the AI the others), or a full position (bigsur-position/1). The
        full starting state is stored with the game; there is no seeded deal, so no
        fairness commitment. Refusals name the field (``position.*`` inside it)."""
        position, cards = await self._read_position(raw)
        n = position.num_players if isinstance(position, PlayerView) else len(position.players)
        if players is not None and players != n:
            raise ApiError(422, "players", f"the position has {n} players, the request says "
                           f"{players}", "setup")
        if position.phase == Phase.OVER:
            raise ApiError(422, "position.phase", "the game in this position is over: "
                           "there is nothing left to play", "game_over")
        if seed is None:
            seed = drawn_seed()
        if isinstance(position, PlayerView):
            me = position.seat
            if position.current != me:
                raise ApiError(422, "position.view_of", f"the view is of seat {me}, but "
                               f"seat {position.current} is to act: a game continues from "
                               "the view of the seat to act", "not_to_act")
            seats = self._seat_list(seats, n, me)
            for i, spec in enumerate(seats):
                if (spec == HUMAN) != (i == me):
                    raise ApiError(422, f"seats[{i}]", f"a game from a view has one human "
                                   f"seat, the view's (seat {me}): the other seats' cards "
                                   "are drawn by the server and played by the AI", "setup")
            try:
                state = determinize(position, seed)
            except InconsistentViewError as err:
                raise in_position(err) from None
        else:
            seats = self._seat_list(seats, n, position.current)
            self._one_human_knows(seats, "seats")
            state = position
        start = state_to_json(state)
        try:  # the stored form must load again, or the game could not be replayed
            state = state_from_json(start, cards)
        except PositionError as err:
            raise in_position(err) from None
        if not legal_actions(state):
            raise ApiError(422, "position", "no legal action in this position", "position")
        return await self._open(state, cards, seats, seed, creator, None, start)

    async def _read_position(self, raw: Any) -> tuple[GameState | PlayerView, CardSet]:
        """The position (checked by the engine) and the registered card set it uses."""
        if not isinstance(raw, dict):
            raise ApiError(422, "position", f"must be an object (bigsur-view/1 or "
                           f"bigsur-position/1){got_type(raw)}", "position")
        position = await read_position(raw, self.cards)  # refusals name position.*
        cards = next((c for c in self.cards.sets.values()
                      if c.fingerprint == position.cards.fingerprint), None)
        if cards is None:
            raise ApiError(422, "position.cards", "a game is played with a card set the "
                           f"server knows (known: {', '.join(sorted(self.cards.sets))}); "
                           "upload it (POST /v1/cardsets) and name it", "cards")
        return position, cards

    async def _open(self, state: GameState, cards: CardSet, seats: list[str], seed: int,
                    creator: str | None, fair: Commitment | None,
                    start: dict[str, Any] | None) -> tuple[LiveGame, dict[int, str]]:
        """Store a new game (its setup; ``start`` for a game from a position) and hold it
        in memory; one secret token per human seat."""
        players = len(seats)
        tokens = {i: secrets.token_urlsafe(TOKEN_BYTES) for i, s in enumerate(seats)
                  if s == HUMAN}
        hashes = [token_hash(tokens[i]) if i in tokens else None for i in range(players)]
        game_id = secrets.token_urlsafe(12)
        status = HUMAN if seats[state.current] == HUMAN else "ai"
        fair = fair or Commitment(None, None, False)
        try:
            await self.store.in_thread(
                self.store.create_game, game_id, players, seed, cards_to_json(cards), seats,
                hashes, status, creator, fair.salt, fair.commitment, fair.chosen,
                self.settings.max_games, self.settings.max_games_per_client, start=start)
        except LimitReached as err:
            after = {"Retry-After": str(max(self.settings.retry_after, 60))}  # games last
            if err.what == "client":
                raise ApiError(429, None, f"this client already has {err.limit} games in "
                               "progress (BIGSUR_MAX_GAMES_PER_CLIENT); finish or delete one",
                               "too_many", after) from None
            raise ApiError(503, None, f"the server holds {err.limit} games in progress "
                           "(BIGSUR_MAX_GAMES); retry later", "busy", after) from None
        row = await self.store.in_thread(self.store.game, game_id)
        live = LiveGame(row, cards, state)
        self.live[game_id] = live
        self._evict()
        return live, tokens

    def fairness(self, live: LiveGame) -> dict[str, Any] | None:
        """The commitment to the deal; seed and salt once the game is over."""
        row = live.row
        if row.commitment is None:
            return None  # a game from before commitments
        over = live.over
        return {"scheme": FAIRNESS_SCHEME, "commitment": row.commitment,
                "seed_chosen_by_creator": row.seed_chosen,
                "seed": row.seed if over else None, "salt": row.salt if over else None}

    async def delete(self, live: LiveGame, seat: int) -> None:
        """Delete a game (its creator: the token of its first human seat): the AI task and
        its search are stopped, the game and its actions removed."""
        creator_seat = live.row.seats.index(HUMAN)
        if seat != creator_seat:
            raise ApiError(403, "authorization", f"only the creator's seat ({creator_seat}) "
                           "may delete the game", "auth")
        await self._forget(live.id)

    async def _forget(self, game_id: str) -> None:
        await cancel_and_wait(self.ai_tasks.pop(game_id, None))
        self.live.pop(game_id, None)
        await self.store.in_thread(self.store.delete_game, game_id)
        self._wake(game_id)  # (a waiting GET then answers 404)

    async def expire(self) -> int:
        """Delete games in progress untouched for BIGSUR_GAME_IDLE_SECONDS (abandoned)."""
        before = time.time() - self.settings.game_idle_seconds
        n = 0
        for game_id in await self.store.in_thread(self.store.idle_games, before):
            task = self.ai_tasks.get(game_id)
            if task is not None and not task.done():
                continue  # the AI is playing it
            await self._forget(game_id)
            n += 1
        return n

    async def delete_finished(self) -> int:
        """Delete finished games whose last move is older than BIGSUR_KEEP_FINISHED_DAYS
        (none without it: kept for ever)."""
        days = self.settings.keep_finished_days
        if days is None:
            return 0
        before = time.time() - days * 86400
        game_ids = await self.store.in_thread(self.store.finished_games, before)
        for game_id in game_ids:
            await self._forget(game_id)
        return len(game_ids)

    # loading ------------------------------------------------------------------
    async def get(self, game_id: str) -> LiveGame:
        """The game, in step with the database (another server process, or an undo, may
        have changed it): replayed from the store when it is not in memory; 404 if none."""
        live = self.live.get(game_id)
        if live is None:
            row = await self.store.in_thread(self.store.game, game_id) \
                if plausible_id(game_id) else None
            if row is None:
                raise ApiError(404, "game_id", f"no game {game_id!r}", "not_found")
            live = self.live.get(game_id)  # another request may have replayed it meanwhile
            if live is None:
                # checked as any input (a few ms, once per replay after a restart or eviction)
                cards = resolve_cards(row.cards)
                cards = next((c for c in self.cards.sets.values()
                              if c.fingerprint == cards.fingerprint), cards)
                live = LiveGame(row, cards, initial_state(row, cards))
                self.live[game_id] = live
                self._evict()
        elif game_id in self.live:
            self.live.move_to_end(game_id)
        if not await self._sync(live):
            self.live.pop(game_id, None)
            raise ApiError(404, "game_id", f"no game {game_id!r}", "not_found")
        return live

    async def _sync(self, live: LiveGame) -> bool:
        """Bring ``live`` to the stored game: apply the actions it lacks (checked when
        they were first applied), or replay from the start when the game was changed
        otherwise (an undo). False when the game is no longer stored (deleted)."""
        async with live.synced:
            row = await self.store.in_thread(self.store.game, live.id)
            if row is None:
                return False
            if (row.n_actions, row.updated) == (live.n, live.row.updated):
                return True
            rows = await self.store.in_thread(self.store.actions, live.id, max(live.n - 1, 0))
            if live.n and (not rows or (rows[0].seat, rows[0].action) != live.actions[-1]):
                live.state = initial_state(row, live.cards)  # an undo: replay all
                live.actions = []
                live.drawn = {}
                rows = await self.store.in_thread(self.store.actions, live.id)
            elif live.n:
                rows = rows[1:]  # the last action we have, still there
            for a in rows:
                live.played(a.seat, a.action)
            live.row = row
            self._wake(live.id)
            return True

    def _evict(self) -> None:
        """Keep at most BIGSUR_MAX_LIVE_GAMES replayed games in memory (least recently
        used first; never one that is busy). An evicted game is replayed when next used."""
        excess = len(self.live) - self.settings.max_live_games
        for game_id in list(self.live):
            if excess <= 0:
                break
            live = self.live[game_id]
            task = self.ai_tasks.get(game_id)
            if live.lock.locked() or live.synced.locked() or \
                    (task is not None and not task.done()):
                continue
            del self.live[game_id]
            self.ai_tasks.pop(game_id, None)
            excess -= 1

    def seat_of(self, live: LiveGame, token: str | None) -> int:
        """The seat a token belongs to: 401 without a token, 403 for a wrong one."""
        if not token:
            raise ApiError(401, "authorization", "a seat token is required "
                           "('Authorization: Bearer TOKEN')", "auth",
                           {"WWW-Authenticate": "Bearer"})
        seat = token_matches(token, live.row.token_hashes)
        if seat is None:
            raise ApiError(403, "authorization", "the token is not the token of any seat "
                           "of this game", "auth")
        return seat

    # what a seat sees ---------------------------------------------------------
    def seat_response(self, live: LiveGame, seat: int) -> dict[str, Any]:
        state = live.state
        your_turn = not live.over and state.current == seat
        out: dict[str, Any] = {
            "game_id": live.id,
            "seat": seat,
            "players": state.num_players,
            "seats": [{"seat": i, "kind": HUMAN if s == HUMAN else "ai",
                       "spec": None if s == HUMAN else s} for i, s in enumerate(live.row.seats)],
            "card_set": live.cards.label,
            "over": live.over,
            "to_act": None if live.over else state.current,
            "your_turn": your_turn,
            "ai_thinking": live.status() == "ai",
            "actions_applied": live.n,
            "view": self._view_json(live, seat),
            "legal_actions": [a.notation() for a in legal_actions(state)] if your_turn else [],
            "log": public_log(live, seat),
            "result": final_scores(state).to_json() if live.over else None,
            "payments": self._payments(state) if your_turn and state.phase == Phase.BUILD
            else None,
            "fairness": self.fairness(live),
        }
        return out

    @staticmethod
    def _payments(state) -> dict[str, Any]:
        """The cheapest payment of each buildable hand card, so a player sees the cost
        before building (reads only the seat's own hand and public facts)."""
        out = {}
        for c in affordable_cards(state):
            steps = cheapest_payment(state, c)
            if steps is not None:
                out[state.cards.highway[c].id] = {
                    "steps": [step.notation() for step in steps],
                    "cards_spent": len(spent_cards(steps))}
        return out

    def position(self, live: LiveGame, n: int) -> dict[str, Any]:
        """The position after the first ``n`` actions of a finished game (for review;
        once the game is over every card is public)."""
        if not live.over:
            raise ApiError(409, "game_id", "past positions are available once the game is "
                           "over", "not_over")
        return position_after(game_record(live), n)

    def _view_json(self, live: LiveGame, seat: int) -> dict[str, Any]:
        """The seat's view; a registered card set is named rather than sent inline."""
        out = view_to_json(view_of(live.state, seat))
        if not isinstance(out["cards"], str) and \
                self.cards.sets.get(live.cards.name) is live.cards:
            out["cards"] = live.cards.name
        return out

    def record(self, live: LiveGame) -> dict[str, Any]:
        if not live.over:
            raise ApiError(409, "game_id", "the record is available once the game is over",
                           "not_over")
        rec = game_record(live)
        rec.meta["result"] = final_scores(live.state).to_json()
        fairness = self.fairness(live)
        if fairness is not None:
            rec.meta["fairness"] = fairness
        return rec.to_json()

    # playing ------------------------------------------------------------------
    async def _commit(self, live: LiveGame, seat: int, action, submitted: str,
                      client_id: str | None) -> str:
        """Check, store (committed) and apply one action of ``seat``; returns it as
        applied. :class:`~server.store.Conflict` when the game changed first (another
        server process, or this one's own replay of it while the caller waited): ``live``
        is then brought in step with the store, and the caller looks again."""
        async with live.synced:
            if live.state.current != seat or live.over:
                raised = Conflict(f"game {live.id}: seat {live.state.current} is to act now")
            else:
                new_state = play(live.state, action)  # named errors -> 422
                applied = explicit(live.state, action).notation()
                status = "over" if new_state.phase == Phase.OVER else (
                    HUMAN if live.is_human(new_state.current) else "ai")
                try:
                    updated = await self.store.in_thread(
                        self.store.append_action, live.id, live.n, seat, applied, submitted,
                        client_id, status)
                except Conflict as err:
                    raised = err
                else:
                    live.played(seat, applied, new_state)
                    live.row.n_actions, live.row.status, live.row.updated = \
                        live.n, status, updated
                    self._wake(live.id)
                    return applied
        await self._sync(live)
        raise raised

    async def _answered(self, live: LiveGame, seat: int, text: str,
                        client_id: str | None) -> dict[str, Any] | None:
        """The answer to an action id this seat has used (ids are per seat): its action
        as stored (``duplicate``), or 409 when the id was used for another action; None
        for an id not used yet (or none). The same action is the same move, whatever its
        spacing or case, or the applied form the server answered (a Build's payment made
        explicit); text that is no action is refused as such (422). The id of an undone
        action stays used: its late retry is a 409, never applied again."""
        if client_id is None:
            return None
        prior = await self.store.in_thread(self.store.client_action, live.id, seat, client_id)
        if prior is None:
            undone = await self.store.in_thread(self.store.undone_action, live.id, seat,
                                                client_id)
            if undone is not None:
                raise ApiError(409, "action_id", f"{client_id!r} was used by your seat for "
                               f"{undone!r}, which was undone: it is not applied again "
                               "(send a new action_id to play it again)", "conflict")
            return None
        if parse_action(text) not in (parse_action(prior.submitted), parse_action(prior.action)):
            raise ApiError(409, "action_id", f"{client_id!r} was already used by your seat "
                           f"for {prior.submitted!r}", "conflict")
        return {"index": prior.idx, "action": prior.action, "duplicate": True}

    async def act(self, live: LiveGame, seat: int, text: str,
                  client_id: str | None) -> dict[str, Any]:
        """Apply a human seat's action (idempotent by ``client_id``). A retry of an action
        applied already, or a request out of turn, is answered at once from the store,
        without waiting for the AI to finish a move (it holds the game's lock)."""
        known = await self._answered(live, seat, text, client_id)
        if known is not None:
            return known
        if not live.over and live.state.current != seat:
            raise ApiError(409, "action", f"it is seat {live.state.current}'s turn, "
                           f"not yours (seat {seat})", "not_your_turn")
        async with live.lock:
            for _attempt in range(COMMIT_ATTEMPTS):
                await self._sync(live)
                known = await self._answered(live, seat, text, client_id)
                if known is not None:  # the same request, applied while this one waited
                    return known
                if live.over:
                    raise ApiError(409, "action", "the game is over", "game_over")
                if live.state.current != seat:
                    raise ApiError(409, "action", f"it is seat {live.state.current}'s turn, "
                                   f"not yours (seat {seat})", "not_your_turn")
                action = parse_action(text)
                try:
                    applied = await self._commit(live, seat, action, text, client_id)
                except Conflict:
                    continue  # the game changed first: look again (a duplicate? a turn?)
                return {"index": live.n - 1, "action": applied, "duplicate": False}
            raise ApiError(409, "action_id", "concurrent requests kept changing the game; "
                           "fetch it and retry", "conflict")

    def ai_turn_seconds(self) -> float:
        """The longest an AI turn takes once it has a worker: its deadline (the budget
        cap plus the grace), plus a queue wait."""
        s = self.settings
        return (s.max_budget_ms + s.deadline_grace_ms) / 1000 + s.queue_wait_seconds

    def start_ai(self, live: LiveGame, search: SearchService,
                 now: bool = False) -> asyncio.Task | None:
        """Start (or return) the task playing this game's AI seats, if one must act.
        Unless ``now`` (this process just made it the AI's turn, or just started), on a
        database shared with other processes only once the game has not changed for
        :meth:`ai_turn_seconds` (the process that saw the AI's turn plays it; one that
        died is replaced) or this process's own AI of the game failed: clients polling
        through every process do not make each of them search the same turn."""
        task = self.ai_tasks.get(live.id)
        if task is not None and not task.done():
            return task
        if live.status() != "ai":
            return None
        failed = task is not None and not task.cancelled() and task.exception() is not None
        if not now and not self.store.exclusive and not failed and \
                time.time() - live.row.updated < self.ai_turn_seconds():
            return None  # another process is playing this turn
        task = asyncio.get_running_loop().create_task(self._run_ai(live, search))
        # its failure is logged by _run_ai: taken here, so that a failed task dropped
        # unawaited (its game deleted or evicted) is not asyncio's "Task exception was
        # never retrieved" and a traceback
        task.add_done_callback(lambda t: t.cancelled() or t.exception())
        # a long-poll waiting for the AI learns that it stopped (see wait_change)
        task.add_done_callback(lambda _t: self._wake(live.id))
        self.ai_tasks[live.id] = task
        return task

    async def wait_ai(self, live: LiveGame, search: SearchService, timeout: float) -> None:
        """Start the game's AI seats if one is to play and wait up to ``timeout`` seconds
        for them to finish (0: not at all; the client sees ``ai_thinking``)."""
        task = self.start_ai(live, search, now=True)
        if task is None or timeout <= 0:
            return
        try:
            await asyncio.wait_for(asyncio.shield(task), timeout)
        except TimeoutError:
            pass
        except Exception:  # noqa: BLE001 - logged by the task; the client sees ai_thinking
            pass

    def _wake(self, game_id: str) -> None:
        """The game changed here (an action applied, its AI task ended, deleted): wake
        whoever waits on it."""
        event = self._changed.pop(game_id, None)
        if event is not None:
            event.set()

    def _ai_stopped(self, live: LiveGame) -> bool:
        """An AI seat is to play but its task here ended without playing (an outage, a
        stop): nothing changes until a request starts it again."""
        task = self.ai_tasks.get(live.id)
        return live.status() == "ai" and task is not None and task.done() and \
            (task.cancelled() or task.exception() is not None)

    async def wait_change(self, live: LiveGame, since: int | None,
                          seconds: float) -> LiveGame:
        """Long-poll: wait up to ``seconds`` until the game is not what the client saw:
        its action count is not ``since`` (or it is over); without ``since``, until no AI
        seat is to play. Returns the game as it is then (unchanged when the time ran out,
        or at once when its AI stopped here without playing). Holds no lock, worker or
        database connection while it waits: it is woken by this process's changes to the
        game (:meth:`_wake`). An action applied by another server process sharing the
        database wakes nobody here, so on such a store the game is also read again every
        :data:`POLL_SECONDS` (a fallback: a change made here answers at once)."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        poll = None if self.store.exclusive else POLL_SECONDS

        def settled(live: LiveGame) -> bool:
            if live.over or self._ai_stopped(live):
                return True
            return live.status() != "ai" if since is None else live.n != since

        while not settled(live):
            left = deadline - loop.time()
            if left <= 0:
                break
            event = self._changed.setdefault(live.id, asyncio.Event())
            try:
                await asyncio.wait_for(event.wait(), left if poll is None else min(left, poll))
            except TimeoutError:
                pass
            live = await self.get(live.id)  # (another process's change; 404 once deleted)
        return live

    @staticmethod
    def _ai_client(live: LiveGame) -> str:
        """Whom an AI turn is charged to: the game's creator (one AI turn at a time per
        creator), or the game itself for games from before creators were stored."""
        return f"creator:{live.row.creator}" if live.row.creator else f"game:{live.id}"

    async def _run_ai(self, live: LiveGame, search: SearchService) -> None:
        """Play AI turns until a human must act: each turn is one pool task (the bot
        keeps its plan within the turn); its actions are then committed one by one."""
        try:
            while True:
                async with live.lock:
                    if live.status() != "ai":
                        return
                    state = live.state
                    seat = state.current
                    before = (live.n, live.row.updated)
                    spec = self.safe_spec(live.row.seats[seat])
                    if spec != live.row.seats[seat]:
                        log.warning("game %s seat %d: stored spec %r refused, plays %s",
                                    live.id, seat, live.row.seats[seat], spec)
                    try:
                        turn = await search.bot_turn(spec, state_to_json(state),
                                                     live.row.seed, live.n, self._ai_client(live))
                    except ApiError as err:
                        if err.kind != "deadline" or spec == "greedy":
                            raise
                        # the turn overran its deadline: this turn is played by greedy
                        log.error("game %s seat %d: %s overran its deadline; greedy plays "
                                  "this turn", live.id, seat, spec)
                        turn = await search.bot_turn("greedy", state_to_json(state),
                                                     live.row.seed, live.n, self._ai_client(live))
                        turn["errors"].append(f"{spec}: deadline; greedy played the turn")
                    for error in turn["errors"]:
                        self.ai_errors += 1
                        log.error("game %s seat %d: %s", live.id, seat, error)
                    await self._sync(live)
                    if (live.n, live.row.updated) != before:
                        continue  # another server process played meanwhile: look again
                    try:
                        for text in turn["actions"]:
                            await self._commit(live, seat, parse_action(text), text, None)
                    except Conflict:
                        continue  # another process committed first (it ran this AI too)
        except asyncio.CancelledError:
            if self.stopping:
                self._stops_with_server(live)
            raise
        except Exception as err:
            if self.stopping:  # (a search worker killed by the server's stop signal too)
                self._stops_with_server(live)
            elif isinstance(err, OUTAGES):  # expected, said by its reason: one line, as a 503
                self.ai_errors += 1
                log.warning("game %s: the AI stopped (%s); it resumes on the next request",
                            live.id, err)
            else:
                self.ai_errors += 1
                log.exception("game %s: the AI stopped; it resumes on the next request",
                              live.id)
            raise

    @staticmethod
    def _stops_with_server(live: LiveGame) -> None:
        log.info("the AI of game %s stops with the server; it resumes at the next start",
                 live.id)

    def stop_asked(self) -> None:
        """The server is stopping (asked by a signal, or its shutdown begun): an AI turn
        ended from now on, cancelled or failed (its search workers get a service's stop
        signal with the server), is one INFO line, not an error and a traceback."""
        self.stopping = True

    async def resume(self, search: SearchService) -> int:
        """After a start: restart the AI of every game waiting for one."""
        started = 0
        for game_id in await self.store.in_thread(self.store.games_with_status, "ai"):
            try:
                live = await self.get(game_id)
            except Exception:  # noqa: BLE001 - one bad game must not stop the server
                log.exception("game %s cannot be replayed", game_id)
                continue
            if self.start_ai(live, search, now=True) is not None:
                started += 1
        return started

    async def close(self) -> None:
        self.stop_asked()
        for task in self.ai_tasks.values():
            task.cancel()
        for task in self.ai_tasks.values():
            try:
                await task
            except BaseException:  # noqa: BLE001
                pass
        self.ai_tasks.clear()
