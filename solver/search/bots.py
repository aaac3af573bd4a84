"""Players behind one protocol: a bot sees only a :class:`PlayerView` and a seed.

    bot = make_bot("random")
    action = bot.act(view_of(state, state.current), seed=7)

Bot specs (used by the CLI, tournaments and the server): ``random``, ``greedy``,
``mcts:<seconds>s`` (time per turn) or ``mcts:<iterations>i`` (iterations per turn,
reproducible with a seed).
"""

from __future__ import annotations

import random
from typing import Protocol, runtime_checkable

from ..rules.actions import Action
from ..rules.state import GameState
from ..rules.views import PlayerView


class BotSpecError(ValueError):
    """A bot spec that names no known bot or has a bad budget."""


@runtime_checkable
class Bot(Protocol):
    name: str

    def act(self, view: PlayerView, seed: int) -> Action:
        """The action to play in ``view`` (the bot's own seat is to act)."""
        ...


def legal_from_view(view: PlayerView) -> list[Action]:
    """Legal actions of the viewer (its own hand is known, so no sampling is needed)."""
    from ..rules.engine import legal_actions

    return legal_actions(_own_state(view))


def _own_state(view: PlayerView) -> GameState:
    """A state holding only what the viewer knows: enough for its own legal actions.
    Hidden cards are absent, so never use it to look ahead."""
    from ..rules.state import PlayerState

    players = []
    for i in range(view.num_players):
        if i == view.seat:
            players.append(view.me.copy())
        else:
            o = view.others[i]
            discard = []  # materials only; legal actions of the viewer never read them
            players.append(PlayerState(hand=list(o.known_hand), highway=o.highway[:],
                                       discard=discard, landmarks=o.landmarks[:],
                                       turns=o.turns))
    return GameState(view.cards, players, [0] * view.deck_count, view.depot[:], [],
                     view.landmark_row[:], view.current, view.first_player, view.phase,
                     view.picks, view.turn, view.recycle_used, dict(view.persistent_uses),
                     dict(view.resource_uses))


class RandomBot:
    """Uniform over the legal actions: the floor every other bot must beat."""

    name = "random"

    def act(self, view: PlayerView, seed: int) -> Action:
        return random.Random(seed).choice(legal_from_view(view))


BOT_FACTORIES: dict[str, object] = {"random": lambda arg: RandomBot()}


def make_bot(spec: str) -> Bot:
    """Build a bot from its spec string (see the module doc)."""
    if not isinstance(spec, str) or not spec:
        raise BotSpecError(f"bot spec must be a non-empty string, got {spec!r}")
    kind, _, arg = spec.partition(":")
    factory = BOT_FACTORIES.get(kind)
    if factory is None:
        raise BotSpecError(f"unknown bot {kind!r} in spec {spec!r} "
                           f"(known: {', '.join(sorted(BOT_FACTORIES))})")
    return factory(arg)
