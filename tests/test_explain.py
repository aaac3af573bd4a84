"""What a move does (solver.rules.explain): every fact checked against the engine on
states consistent with the view, no hidden card named, and a hint's moves carry them."""

from __future__ import annotations

import random
import re

import pytest
from rules_testkit import noisy_build_steps, random_mid_game

from solver.rules.actions import Build, Claim, End, Take, spent_cards
from solver.rules.constants import MATERIALS, SCENERIES
from solver.rules.determinize import sample_states
from solver.rules.engine import claimable, legal_actions, new_game, play
from solver.rules.explain import MAX_REASONS, explain_move, move_facts
from solver.rules.scoring import effective_miles, score_player
from solver.rules.state import GameState, Phase, PlayerState
from solver.rules.stretches import runs, stretches
from solver.rules.views import view_of
from solver.search.buildsteps import all_build_steps
from solver.search.ismcts import concrete_move


def _take_positions():
    for seed in range(12):
        state = random_mid_game(players=2 + seed % 3, seed=seed, actions=20 + 4 * seed)
        yield state
        rng = random.Random(seed)
        yield play(state, rng.choice(legal_actions(state)))  # the second pick


def _build_positions():
    yield from noisy_build_steps(range(6), False)
    for seed in range(6):
        state = random_mid_game(players=3, seed=50 + seed, actions=30)
        while state.phase != Phase.BUILD:
            state = play(state, "take deck")
        yield state
    yield from _unclaimed_positions(range(8))


def _unclaimed_positions(seeds):
    """Build steps whose seat could claim a Landmark before building (random players
    who never claim): a build's new claims must leave those out."""
    for seed in seeds:
        rng = random.Random(seed)
        state = new_game(2, seed=seed)
        while not state.is_over:
            if state.phase == Phase.BUILD and state.turn > 6 and claimable(state) and any(
                    type(a) is Build for a in legal_actions(state)):
                yield state
                break
            state = play(state, rng.choice([a for a in legal_actions(state)
                                            if type(a) is not Claim]))


def _moves(state: GameState, rng: random.Random, n: int = 12):
    """Moves as a hint gives them: a take, or a build step with explicit payments."""
    if state.phase == Phase.TAKE:
        return [(a,) for a in legal_actions(state)]
    steps = all_build_steps(state, limit=300)
    rng.shuffle(steps)
    return [tuple(concrete_move(state, m)) for m in steps[:n]]


def _builds_of(state: GameState, move) -> GameState:
    for a in move:
        if type(a) is Build:
            state = play(state, a)
    return state


def _stretch_points(cards, highway, landmarks=()) -> int:
    return score_player(cards, PlayerState(highway=list(highway),
                                           landmarks=list(landmarks)), False).stretches


def _placed(highway, card, side):
    return [card, *highway] if side == "L" else [*highway, card]


def _claims(cards, highway, landmarks, row) -> set[int]:
    """The Landmarks a Highway could claim, by the engine."""
    state = GameState(cards, [PlayerState(highway=list(highway), landmarks=list(landmarks))],
                      [], [], [], list(row))
    return {lm for lm, _c in claimable(state, 0)}


def _end_run(cards, highway, side, scenery):
    """The run of ``scenery`` touching the ``side`` end, by the engine (None if none)."""
    end = highway[0] if side == "L" else highway[-1]
    return next((r for r in runs(cards, highway, scenery=scenery) if end in r.cards), None)


def _check_fact(state: GameState, move, fact) -> None:
    """``fact`` of ``move`` holds on the full state ``state`` (of the seat to act)."""
    cards = state.cards
    seat = state.current
    me = state.players[seat]
    text = fact.text
    if fact.kind in ("stretch", "claim", "claimable", "near", "persistent", "keeps",
                     "spends", "bonus"):
        built = _builds_of(state, move)
        after = built.players[seat]
    if fact.kind == "stretch":
        found = stretches(cards, after.highway, effective_miles(cards, after))
        assert any(s.scenery == fact.scenery and s.cards == fact.cards for s in found), text
        st = next(s for s in found if s.cards == fact.cards and s.scenery == fact.scenery)
        assert st.miles == fact.miles
        assert f"{len(fact.cards)} card" in text and f"{fact.miles} mile" in text
        assert _points_in(fact.gain, text) and SCENERIES[fact.scenery] in text
        old = [s for s in stretches(cards, me.highway) if s.scenery == fact.scenery
               and set(s.cards) <= set(fact.cards)]
        assert fact.extra["new"] == (not old), text
        assert text.startswith("makes a new" if not old else "extends your")
    elif fact.kind == "claim":
        claim = move[-1]
        assert type(claim) is Claim and cards.landmark(claim.landmark) == fact.landmark
        done = play(built, claim)
        gain = (score_player(cards, done.players[seat], False).total
                - score_player(cards, after, False).total)
        assert gain == fact.gain
        assert (f"(+{gain} point{'' if gain == 1 else 's'} now)" if gain
                else "(no points now)") in text
        assert cards.landmarks[fact.landmark].name in text
    elif fact.kind == "claimable":
        assert type(move[-1]) is End
        for lm in fact.landmarks:
            cards_lm = cards.landmarks[lm]
            assert cards_lm.id in text and cards_lm.name in text
            card = next(c for c in after.highway
                        if (lm, c) in claimable(built))
            play(built, Claim(cards_lm.id, cards.highway[card].id))  # legal now
            assert lm not in {x for x, _c in claimable(state)}, text  # and not before
            assert cards.landmark_scenery[lm] == fact.scenery
    elif fact.kind == "near":
        _check_near(cards, after.highway, after.landmarks, after.hand, fact, state.landmark_row)
        assert set(fact.cards) & {cards.card(a.card) for a in move if type(a) is Build}
    elif fact.kind == "persistent":
        assert fact.card in {cards.card(a.card) for a in move if type(a) is Build} \
            or move == (Take(cards.highway[fact.card].id),)
        assert cards.persistent[fact.card] == fact.material >= 0
        assert f"Persistent {MATERIALS[fact.material]}" in text
    elif fact.kind == "keeps":
        each = fact.extra["each"]
        assert fact.card == each[0]["card"] and fact.gain == max(e["gain"] for e in each)
        for e in each:  # each card kept, by the engine
            assert e["card"] in after.hand and cards.highway[e["card"]].id in text
            grown = _placed(after.highway, e["card"], e["side"])
            gain = (_stretch_points(cards, grown, after.landmarks)
                    - _stretch_points(cards, after.highway, after.landmarks))
            assert gain == e["gain"] and (gain > 0 or len(stretches(cards, grown))
                                          > len(stretches(cards, after.highway)))
            _check_serves(built, after, e["card"], e["side"], gain, e["stretches"], (),
                          text)
            assert f"at the {'left' if e['side'] == 'L' else 'right'} end" in text
            # the same words for each: the same Sceneries, new or not, at the same end
            assert [(x[0], x[3]) for x in e["stretches"]] == \
                [(x[0], x[3]) for x in each[0]["stretches"]] and e["side"] == each[0]["side"]
        assert len({e["card"] for e in each}) == len(each)
        if len(each) > 1:
            assert f"{'either' if len(each) == 2 else 'any'} of which " in text
        assert SCENERIES[fact.scenery] in text
    elif fact.kind == "bonus":  # the card's bonus line of Final Scoring, before and after
        def bonus(player):
            return sum(line["points"] for line in score_player(cards, player).details
                       if line["what"].startswith(cards.highway[fact.card].id + ":"))
        assert bonus(after) - bonus(me) == fact.gain != 0, text
        assert fact.extra["new"] == (fact.card not in me.highway)
        assert f"{cards.highway[fact.card].id}'s 2-Mile bonus: " in text
        assert (f"+{fact.gain} point" if fact.gain > 0 else f"-{-fact.gain} point") in text
    elif fact.kind == "fits":
        take = move[0]
        assert type(take) is Take and cards.card(take.card) == fact.card in state.depot
        _check_serves(state, me, fact.card, fact.side, fact.gain, fact.extra["stretches"],
                      fact.landmarks, text)
        assert _points_in(fact.gain, text), text
        rival = fact.extra["rival"]
        if rival is not None:  # a hand card that does as much at that end without it
            grown = _placed(me.highway, rival, fact.side)
            assert rival in me.hand and cards.highway[rival].id in text
            assert (_stretch_points(cards, grown, me.landmarks)
                    - _stretch_points(cards, me.highway, me.landmarks)) >= fact.gain
    elif fact.kind == "denies":
        take = move[0]
        assert type(take) is Take and cards.card(take.card) == fact.card in state.depot
        each = fact.extra["each"]
        assert fact.seat == each[0]["seat"] and fact.gain == max(e["gain"] for e in each)
        assert set(fact.landmarks) == {lm for e in each for lm in e["landmarks"]}
        for e in each:  # each seat served, by the engine
            assert e["seat"] != seat and f"Player {e['seat'] + 1} " in text
            _check_serves(state, state.players[e["seat"]], fact.card, e["side"], e["gain"],
                          e["stretches"], e["landmarks"], text, len(each) == 1)
        assert len({e["seat"] for e in each}) == len(each)
        gains = [e["gain"] for e in each]
        changes = [x for e in each for x in e["stretches"]]
        if len(each) == 1:
            assert _points_in(gains[0], text), text
        else:  # words true for every seat: the same points or each in seat order
            if len(set(gains)) == 1:
                assert f"(+{gains[0]} point{'' if gains[0] == 1 else 's'} each)" in text
            else:
                assert re.search(r"\(" + r"(, | and )".join(f"\\+{g}" for g in gains)
                                 + r" points\)", text), text
            for name in SCENERIES:  # a Scenery named is every Stretch's
                if f" {name} Stretch" in text:
                    assert all(SCENERIES[x[0]] == name for x in changes), text
            news = {x[3] for x in changes}
            assert ("make a new " in text) == (news == {True})
            assert ("which would extend " in text) == (news == {False})
            if "let each claim" in text:
                assert all(e["landmarks"] == each[0]["landmarks"] != () for e in each)
    elif fact.kind == "take_claimable":
        grown = _placed(me.highway, fact.card, fact.side)
        new = (_claims(cards, grown, me.landmarks, state.landmark_row)
               - _claims(cards, me.highway, me.landmarks, state.landmark_row))
        assert fact.landmarks and set(fact.landmarks) <= new, text
    elif fact.kind == "payable":
        done = play(state, move[0])
        assert done.phase == Phase.BUILD
        assert any(type(a) is Build and cards.card(a.card) == fact.card
                   for a in legal_actions(done))
    elif fact.kind == "unpayable":
        done = play(state, move[0])
        assert view_of(state, seat).picks == 1 and done.phase == Phase.BUILD
        assert not any(type(a) is Build and cards.card(a.card) == fact.card
                       for a in legal_actions(done))
        assert text == "you cannot pay for it this turn"
    elif fact.kind == "spends":
        builds = [a for a in move if type(a) is Build]
        spent = len(me.hand) - len(after.hand) - len(builds)
        assert spent == fact.extra["spent"] >= 1 and fact.extra["hand"] == len(me.hand)
        assert len(after.discard) - len(me.discard) == spent  # discarded, not built
        if all(b.payment is not None for b in builds):  # 3 for a substitution
            assert sum(len(spent_cards(b.payment)) for b in builds) == spent
        assert text == f"spends {spent} of your {len(me.hand)} hand cards"
    elif fact.kind == "no_fit":
        assert move == (Take(None),)
        for c in state.depot:
            for side in "LR":
                grown = _placed(me.highway, c, side)
                assert len(stretches(cards, grown)) == len(stretches(cards, me.highway))
                assert (_stretch_points(cards, grown, me.landmarks)
                        == _stretch_points(cards, me.highway, me.landmarks))
    else:
        raise AssertionError(f"unchecked kind {fact.kind}")


def _check_serves(state, owner, card, side, gain, named, landmarks, text,
                  words=True) -> None:
    """``card`` built at ``side`` of ``owner``'s Highway adds ``gain`` Stretch points,
    makes the ``named`` Stretches (Scenery, cards, miles, new) and ``landmarks``
    claimable, named in ``text`` (``words``: the Stretches' own words, one seat's)."""
    cards = state.cards
    grown = _placed(owner.highway, card, side)
    assert gain == (_stretch_points(cards, grown, owner.landmarks)
                    - _stretch_points(cards, owner.highway, owner.landmarks)), text
    after_stretches = stretches(cards, grown, None)
    for scenery, run, _miles, new in named:  # each named Stretch
        assert any(s.cards == run and s.scenery == scenery for s in after_stretches)
        assert new == (not any(s.scenery == scenery and set(s.cards) <= set(run)
                               for s in stretches(cards, owner.highway)))
        if words:
            assert SCENERIES[scenery] in text
            assert ("a new " + SCENERIES[scenery] in text) == new or \
                len({x[0] for x in named}) < len(named)
    new = (_claims(cards, grown, owner.landmarks, state.landmark_row)
           - _claims(cards, owner.highway, owner.landmarks, state.landmark_row))
    assert set(landmarks) <= new
    assert all(cards.landmarks[lm].id in text for lm in landmarks)


def _check_near(cards, highway, landmarks, hand, fact, row) -> None:
    run = _end_run(cards, highway, fact.side, fact.scenery)
    assert run is not None and run.icons == 2 and run.cards == fact.cards, fact.text
    assert fact.landmarks and all(cards.landmark_scenery[lm] == fact.scenery
                                  and lm in row for lm in fact.landmarks)
    assert not set(fact.landmarks) & _claims(cards, highway, landmarks, row)
    if fact.card is not None:  # the hand card named makes the Stretch, which can claim
        assert fact.card in hand and cards.highway[fact.card].id in fact.text
        grown = _placed(highway, fact.card, fact.side)
        assert set(fact.landmarks) <= _claims(cards, grown, landmarks, row)


def _check_take_near(state, move, fact):
    cards = state.cards
    me = state.player
    grown = _placed(me.highway, cards.card(move[0].card), fact.side)
    _check_near(cards, grown, me.landmarks, me.hand, fact, state.landmark_row)


def _points_in(gain: int, text: str) -> bool:
    return f"(+{gain} point{'' if gain == 1 else 's'})" in text


def _named(text: str) -> tuple[list[str], list[str]]:
    return re.findall(r"\bH\d+\b", text), re.findall(r"\bL\d+\b", text)


def _check_move(state: GameState, move, kinds: set[str]) -> None:
    view = view_of(state, state.current)
    facts = move_facts(view, move)
    reasons = explain_move(view, move)
    assert reasons == [f.text for f in facts][:MAX_REASONS]
    # one fact once: a run that is the whole Highway touches both ends (it was said twice)
    texts = [f.text.replace("left end", "END").replace("right end", "END") for f in facts]
    assert len(texts) == len(set(texts)), texts
    cards = state.cards
    visible = {cards.highway[c].id for c in [*view.me.hand, *view.depot, *view.me.highway]}
    visible_lm = {cards.landmarks[lm].id for lm in view.landmark_row}
    for f in facts:
        kinds.add(f.kind)
        assert f.text and not f.text.endswith(".") and "\n" not in f.text
        if f.kind == "near" and type(move[0]) is Take:
            _check_take_near(state, move, f)
            if f.card is not None:
                kinds.add("near naming a hand card")
        else:
            _check_fact(state, move, f)
        # Landmarks offered are choices: one Stretch claims one Landmark, one a turn
        assert not re.search(r"\(L\d+\),? and (?!Player)", f.text), f.text
        for lms in ([e["landmarks"] for e in f.extra["each"]] if f.kind == "denies"
                    else [f.landmarks]):
            names = [f"{cards.landmarks[lm].name} ({cards.landmarks[lm].id})" for lm in lms]
            if len(names) == 2:
                assert f"either {names[0]} or {names[1]}" in f.text, f.text
            elif len(names) > 2:
                assert ", ".join(names[:-1]) + " or " + names[-1] in f.text, f.text
        hs, ls = _named(f.text)
        assert set(hs) <= visible, (f.text, visible)  # no hidden card, no card elsewhere
        assert set(ls) <= visible_lm, f.text
    # a hand card named as the one that makes a Stretch is not said again as kept for it
    near = {(f.card, f.scenery) for f in facts if f.kind == "near" and f.card is not None}
    assert not [f.text for f in facts if f.kind == "keeps" for e in f.extra["each"]
                if {(e["card"], x[0]) for x in e["stretches"]} & near], [f.text for f in facts]
    # a cost of 2 hand cards or more is never cut: second, after the main gain
    spends = next((i for i, f in enumerate(facts) if f.kind == "spends"), None)
    if spends is not None and facts[spends].extra["spent"] >= 2:
        assert spends <= 1 and facts[spends].text in reasons
    # the view alone decides: another full state consistent with it gives the same
    other = sample_states(view, 1, seed=len(facts))[0]
    assert move_facts(view_of(other, other.current), move) == facts


def test_every_fact_of_a_take_holds_and_names_only_seen_cards():
    kinds: set[str] = set()
    moves = 0
    for state in _take_positions():
        for move in _moves(state, random.Random(0)):
            _check_move(state, move, kinds)
            moves += 1
    assert moves > 100
    # each kind is met, so each check above ran
    assert {"fits", "denies", "payable", "unpayable", "persistent", "no_fit",
            "take_claimable", "near", "near naming a hand card"} <= kinds, kinds


def test_every_fact_of_a_build_step_holds_and_names_only_seen_cards():
    kinds: set[str] = set()
    moves = 0
    for i, state in enumerate(_build_positions()):
        for move in _moves(state, random.Random(i)):
            _check_move(state, move, kinds)
            moves += 1
    assert moves > 100
    assert {"stretch", "claim", "claimable", "near", "persistent", "keeps",
            "spends", "bonus"} <= kinds, kinds


def test_stretch_facts_add_up_to_the_stretch_points_the_builds_add():
    """The "stretch" facts of a build step are all of its Stretch points, none twice."""
    checked = 0
    for i, state in enumerate(_build_positions()):
        seat = state.current
        view = view_of(state, seat)
        for move in _moves(state, random.Random(i)):
            after = _builds_of(state, move).players[seat]
            added = (score_player(state.cards, after, False).stretches
                     - score_player(state.cards, state.players[seat], False).stretches)
            facts = [f for f in move_facts(view, move) if f.kind == "stretch"]
            assert sum(f.gain for f in facts) == added, [f.text for f in facts]
            checked += bool(facts)
    assert checked > 20


def test_an_illegal_move_is_the_engines_error():
    state = next(iter(_build_positions()))
    view = view_of(state, state.current)
    missing = next(c.id for i, c in enumerate(state.cards.highway)
                   if i not in state.player.hand)
    with pytest.raises(Exception, match=missing):
        move_facts(view, (Build(missing, "L"), End()))
    with pytest.raises(TypeError, match="PlayerView"):
        move_facts(state, (End(),))


def _made_set():
    from rules_testkit import card_set, fillers, hw, lm

    return card_set(
        [hw("O1", 3, "ocean ocean"), hw("O2", 2, "ocean forest"), hw("O4", 2, "ocean forest"),
         hw("M1", 3, "mountain flower"), hw("D1", 3, "ocean ocean"),
         hw("F1", 1, "forest forest", per="water"), hw("F2", 3, "forest field"),
         hw("O5", 2, "ocean forest"), hw("W1", 3, "field field", cost="water stone"),
         hw("B1", 2, "field field", bonus={"kind": "highway_end", "points": 4}),
         *fillers(18)],  # 2 players get 4 turns
        [lm("L1", "ocean", name="Cove"), lm("L2", "forest", name="Woods"),
         lm("L3", "field", name="Meadow"), lm("L4", "forest", name="Grove"),
         lm("L5", "forest", name="Glen")])


def test_the_sentences_on_a_position_made_for_them():
    """Each kind's words on a position built for it: an unused ocean Stretch (Cove is
    claimable before any build, so a new ocean run two icons long is not "one card
    from" it), a forest/forest 1-Mile card to build next to an ocean/forest card, a
    forest/field card kept; Player 2's forest run one icon long at its right end."""
    from rules_testkit import make_state

    from solver.rules.actions import Discard

    cards = _made_set()
    state = make_state(cards, [{"hand": "F1 F2 D1 X0 X1", "highway": "M1 O1 O2"},
                               {"highway": "X5 O4"}],
                       depot="X2 X3", landmark_row="L1 L2 L3", deck="X4")
    view = view_of(state, 0)
    paid = (Discard("X0"), Discard("X1"))
    assert explain_move(view, (Build("F1", "R", paid), End()), limit=9) == [
        "makes a new forest Stretch: 2 cards, 3 miles (+3 points)",
        "spends 2 of your 5 hand cards",
        "makes Woods (L2) claimable with your forest Stretch",
        "F1 gives you a Persistent water every turn",
        "keeps F2 to extend your forest Stretch to 3 cards at the right end"]
    assert explain_move(view, (Build("F1", "R", paid), End())) == explain_move(
        view, (Build("F1", "R", paid), End()), limit=9)[:3]
    # D1 alone at the left end is an ocean run of two icons, but Cove is claimable
    # already (the ocean Stretch O1 O2): nothing is "one card" away
    facts = move_facts(view, (Build("D1", "L", paid), End()))
    assert facts and not [f for f in facts if f.kind == "near"], [f.text for f in facts]
    take = make_state(cards, [{"hand": "X0", "highway": "M1 O1 O2"}, {"highway": "X5 O4"}],
                      depot="D1 F2 F1 X1 X2", landmark_row="L1 L2 L3", deck="X3 X4",
                      phase=Phase.TAKE)
    view = view_of(take, 0)
    assert explain_move(view, (Take("F2"),), limit=9) == [
        "built at your right end, it puts you one forest card from a Stretch for Woods (L2)"]
    assert explain_move(view, (Take("F1"),), limit=9) == [
        "would make a new forest Stretch of 2 cards, 3 miles at your right end (+3 points)",
        "built at your right end, it makes Woods (L2) claimable",
        "denies Player 2 F1, which would make a new forest Stretch (+3 points) and let "
        "them claim Woods (L2)",
        "once built, it gives you a Persistent water every turn"]
    assert explain_move(view, (Take(None),)) == []  # F1 and F2 fit


def test_a_build_steps_cost_in_hand_cards_is_said_and_a_take_it_cannot_pay_for():
    """A move paid with hand cards says so (it ranked below one that spends none, and
    nothing said why): second when 2 cards or more, a 3-for-1 substitution's three
    counted, the built card not; one card after the gains. A Depot take at the turn's
    second pick that cannot be paid for this turn says so, as one that can."""
    from rules_testkit import make_state

    from solver.rules.actions import Discard, Recycle, Substitute

    cards = _made_set()
    state = make_state(cards, [{"hand": "F1 F2 D1 X0 X1", "highway": "M1 O1 O2"},
                               {"highway": "X5 O4"}],
                       depot="X2 X3", landmark_row="L1 L2 L3", deck="X4")
    view = view_of(state, 0)
    sub = (Substitute(("X0", "X1", "D1"), "stone"), Discard("F2"))
    assert explain_move(view, (Build("F1", "R", sub), End())) == [
        "makes a new forest Stretch: 2 cards, 3 miles (+3 points)",
        "spends 4 of your 5 hand cards",
        "makes Woods (L2) claimable with your forest Stretch"]
    one = make_state(cards, [{"hand": "F1 F2 X0", "highway": "M1 O1 O2",
                              "discard": "X1"}, {"highway": "X5 O4"}],
                     depot="X2 X3", landmark_row="L1 L2 L3", deck="X4")
    assert explain_move(view_of(one, 0), (Build("F1", "R", (Discard("X0"), Recycle())),
                                          End()),
                        limit=9)[-2:] == [
        "spends 1 of your 3 hand cards",
        "keeps F2 to extend your forest Stretch to 3 cards at the right end"]
    take = make_state(cards, [{"highway": "M1 O1 O2"}, {"highway": "X5 O4"}],
                      depot="D1 F2 F1 X1 X2", landmark_row="L1 L2 L3", deck="X3 X4",
                      phase=Phase.TAKE, recycle_used=True)
    second = play(take, "take X1")  # F1 costs 2 stone: X1 is one, Recycling is used
    reasons = explain_move(view_of(second, 0), (Take("F1"),), limit=9)
    assert "you cannot pay for it this turn" in reasons, reasons


def test_landmarks_offered_as_choices_are_joined_with_or():
    """One Stretch claims one Landmark, one a turn: a list of Landmarks it could claim
    is a choice ("either A or B", "A, B or C"), not several claims ("A and B")."""
    from rules_testkit import make_state

    from solver.rules.actions import Discard

    cards = _made_set()
    take = make_state(cards, [{"hand": "X0", "highway": "M1 O1 O2"}, {"highway": "X5 O4"}],
                      depot="D1 F2 F1 X1 X2", landmark_row="L1 L2 L3 L4", deck="X3 X4",
                      phase=Phase.TAKE)
    assert explain_move(view_of(take, 0), (Take("F1"),), limit=9)[1:3] == [
        "built at your right end, it makes either Woods (L2) or Grove (L4) claimable",
        "denies Player 2 F1, which would make a new forest Stretch (+3 points) and let "
        "them claim either Woods (L2) or Grove (L4)"]
    assert explain_move(view_of(take, 0), (Take("F2"),), limit=9) == [
        "built at your right end, it puts you one forest card from a Stretch for either "
        "Woods (L2) or Grove (L4)"]
    build = make_state(cards, [{"hand": "F1 X0 X1", "highway": "M1 O1 O2"},
                               {"highway": "X5 O4"}],
                       depot="X2 X3", landmark_row="L1 L2 L3 L4 L5", deck="X4")
    paid = (Discard("X0"), Discard("X1"))
    assert "makes Woods (L2), Grove (L4) or Glen (L5) claimable with your forest " \
        "Stretch" in explain_move(view_of(build, 0), (Build("F1", "R", paid), End()))


def test_a_cards_denials_are_one_sentence_and_a_small_one_comes_last():
    """A card that would serve two other players is one denial in words true for both
    (it filled the reasons' limit in a 3-player game, one line per player); a denial
    of at most 1 point and no Landmark is said after a Persistent Material gained."""
    from rules_testkit import make_state

    cards = _made_set()
    three = make_state(cards, [{"hand": "X0", "highway": "M1 O1 O2"}, {"highway": "X5 O4"},
                               {"highway": "X4 O5"}],
                       depot="D1 F2 F1 X1 X2", landmark_row="L1 L2 L3", deck="X3",
                       phase=Phase.TAKE)
    assert explain_move(view_of(three, 0), (Take("F1"),), limit=9)[2:] == [
        "denies Player 2 and Player 3 F1, which would make a new forest Stretch for each "
        "(+3 points each) and let each claim Woods (L2)",
        "once built, it gives you a Persistent water every turn"]
    small = make_state(cards, [{"hand": "X0", "highway": "M1 O1 O2"},
                               {"highway": "X5 O4 O5 F2"}],
                       depot="D1 F2 F1 X1 X2", landmark_row="L1 L2 L3", deck="X3 X4",
                       phase=Phase.TAKE)
    assert explain_move(view_of(small, 0), (Take("F1"),), limit=9)[-2:] == [
        "once built, it gives you a Persistent water every turn",
        "denies Player 2 F1, which would extend their forest Stretch to 4 cards (+1 point)"]


def test_a_takes_one_card_from_a_stretch_names_the_hand_card_that_completes_it():
    """As a build step's does ("(H04 in your hand is one)"): a take's "one forest card
    from a Stretch" named no hand card though one was there."""
    from rules_testkit import make_state

    cards = _made_set()
    take = make_state(cards, [{"hand": "O5 X0", "highway": "M1 O1 O2"},
                              {"highway": "X5 O4"}],
                      depot="D1 F2 F1 X1 X2", landmark_row="L1 L2 L3", deck="X3 X4",
                      phase=Phase.TAKE)
    assert explain_move(view_of(take, 0), (Take("F2"),)) == [
        "built at your right end, it puts you one forest card from a Stretch for "
        "Woods (L2) (O5 in your hand is one)"]


def test_hand_cards_kept_for_the_same_thing_are_said_once():
    """Two kept cards that would do the same are one line ("keeps F2 and O5, either of
    which ..."), and a card named as the one that completes a Stretch is not said again
    as kept to make it (it was said twice, in two lines)."""
    from rules_testkit import make_state

    from solver.rules.actions import Discard

    cards = _made_set()
    paid = (Discard("X0"), Discard("X1"))
    state = make_state(cards, [{"hand": "F1 F2 O5 X0 X1", "highway": "M1 O1 O2"},
                               {"highway": "X5 O4"}],
                       depot="X2 X3", landmark_row="L1 L2 L3", deck="X4")
    assert explain_move(view_of(state, 0), (Build("F1", "R", paid), End()), limit=9)[-1] == (
        "keeps F2 and O5, either of which extends your forest Stretch to 3 cards at the "
        "right end")
    state = make_state(cards, [{"hand": "O5 F2 X0 X1", "highway": "M1 O1 O2"},
                               {"highway": "X5 O4"}],
                       depot="X2 X3", landmark_row="L1 L2 L3", deck="X4")
    reasons = explain_move(view_of(state, 0), (Build("O5", "R", paid), End()), limit=9)
    assert reasons[-1] == ("puts you one forest card from a Stretch for Woods (L2) at your "
                           "right end (F2 in your hand is one)"), reasons
    assert not [r for r in reasons if r.startswith("keeps")], reasons


def test_the_last_turn_promises_nothing_for_later_turns():
    """At a seat's last build step nothing can be built, claimed or paid later: no card
    kept, Landmark made claimable, one card away or hand card spent is said, and a
    Persistent Material only for a later build of the move that costs it; at the last
    turn's second pick a card that cannot be paid for is worth only what it denies, and a
    seat whose game is over is denied nothing. (They promised "every turn" and "keeps
    H51 to extend your field Stretch" at the end of the game.)"""
    from rules_testkit import make_state

    from solver.rules.actions import Discard, Persistent, Substitute
    from solver.search.buildsteps import is_last_build_step

    cards = _made_set()
    seats = [{"hand": "F1 F2 W1 X0 X1 X2 X3 X4", "highway": "M1 O1 O2", "turns": 3},
             {"highway": "X5 O4", "turns": 3}]
    state = make_state(cards, seats, depot="X6 X7", landmark_row="L1 L2 L3", deck="X8")
    assert is_last_build_step(state)  # the engine's count of turns agrees with search's
    view = view_of(state, 0)
    paid = (Discard("X0"), Discard("X1"))
    assert explain_move(view, (Build("F1", "R", paid), End()), limit=9) == [
        "makes a new forest Stretch: 2 cards, 3 miles (+3 points)"]
    assert explain_move(view, (End(),)) == []
    water = (Persistent("F1"), Discard("X2"))
    assert "F1 gives you a Persistent water for your later builds this turn" in explain_move(
        view, (Build("F1", "R", paid), Build("W1", "L", water), End()), limit=9)
    water_first = (Build("W1", "L", (Discard("X0"), Substitute(("X1", "X2", "X3"), "water"))),
                   Build("F1", "R", (Discard("X4"), Discard("F2"))), End())
    assert not [r for r in explain_move(view, water_first, limit=9) if "Persistent" in r]
    earlier = make_state(cards, [dict(seats[0], turns=2), seats[1]], depot="X6 X7",
                         landmark_row="L1 L2 L3", deck="X8")
    assert not is_last_build_step(earlier)
    assert "F1 gives you a Persistent water every turn" in explain_move(
        view_of(earlier, 0), (Build("F1", "R", paid), End()), limit=9)
    take = make_state(cards, [{"highway": "M1 O1 O2", "turns": 3},
                              {"highway": "X5 O4", "turns": 3}],
                      depot="D1 F2 F1 X1 X2", landmark_row="L1 L2 L3", deck="X3 X4",
                      phase=Phase.TAKE, recycle_used=True)
    first = explain_move(view_of(take, 0), (Take("F1"),), limit=9)
    assert first[:2] == [
        "would make a new forest Stretch of 2 cards, 3 miles at your right end (+3 points)",
        "built at your right end, it makes Woods (L2) claimable"]
    assert not [r for r in first if "Persistent" in r], first
    second = play(take, "take X1")  # F1 costs 2 stone: X1 is one, Recycling is used
    assert explain_move(view_of(second, 0), (Take("F1"),), limit=9) == [
        "you cannot pay for it this turn",
        "denies Player 2 F1, which would make a new forest Stretch (+3 points) and let "
        "them claim Woods (L2)"]
    # one card from a Stretch: at the first pick the second may bring that card, at the
    # second only a hand card could be it
    near = make_state(cards, [{"hand": "X0 X1", "highway": "M1 O1 O2", "turns": 3},
                              {"highway": "X5 O4", "turns": 3}],
                      depot="D1 F2 F1 X2 X3", landmark_row="L1 L2 L3", deck="X4 X6",
                      phase=Phase.TAKE)
    assert explain_move(view_of(near, 0), (Take("F2"),)) == [
        "built at your right end, it puts you one forest card from a Stretch for Woods (L2)"]
    second = play(near, "take X2")
    assert not [r for r in explain_move(view_of(second, 0), (Take("F2"),), limit=9)
                if "one forest card" in r]
    over = make_state(cards, [{"highway": "M1 O1 O2", "turns": 3},
                              {"highway": "X5 O4", "turns": 4}],
                      depot="D1 F2 F1 X1 X2", landmark_row="L1 L2 L3", deck="X3 X4",
                      phase=Phase.TAKE, first_player=1)
    assert not [r for r in explain_move(view_of(over, 0), (Take("F1"),), limit=9)
                if r.startswith("denies")]


def test_a_card_fits_the_end_where_it_adds_most_to_the_score_not_only_stretches():
    """A card that extends a Stretch as much at either end is said to fit the end that
    keeps a 2-Mile bonus for ending the Highway (it named the left end, which buries the
    bonus: 4 points less)."""
    from rules_testkit import make_state

    cards = _made_set()
    build = make_state(cards, [{"hand": "F2 X0", "highway": "B1 W1"}, {"highway": "X5 O4"}],
                       depot="X2 X3", landmark_row="L1 L2 L3", deck="X4")
    assert explain_move(view_of(build, 0), (End(),)) == [
        "keeps F2 to extend your field Stretch to 3 cards at the right end"]
    take = make_state(cards, [{"hand": "X0", "highway": "B1 W1"}, {"highway": "X5 O4"}],
                      depot="F2 X1 X2 X3 X6", landmark_row="L1 L2 L3", deck="X4 X7",
                      phase=Phase.TAKE)
    assert explain_move(view_of(take, 0), (Take("F2"),))[0] == (
        "would extend your field Stretch to 3 cards, 8 miles at your right end (+3 points)")


def test_a_build_step_says_the_2_mile_bonuses_it_changes():
    """Two builds with the same Stretches and words differed by 4 points, a bonus for
    ending the Highway buried by one of them (posI: "2-Mile bonuses -4" in the score
    change line and nothing in the reasons): a bonus lost or built is said, with its
    points, after the Stretches."""
    from rules_testkit import make_state

    from solver.rules.actions import Discard

    cards = _made_set()
    state = make_state(cards, [{"hand": "F2 X0 X1 X2", "highway": "B1 W1"},
                               {"highway": "X5 O4"}],
                       depot="X6 X7", landmark_row="L1 L2 L3", deck="X4")
    view = view_of(state, 0)
    paid = (Discard("X0"), Discard("X1"))
    left = explain_move(view, (Build("F2", "L", paid), End()), limit=9)
    right = explain_move(view, (Build("F2", "R", paid), End()), limit=9)
    stretch = "extends your field Stretch to 3 cards, 8 miles (+3 points)"
    assert left[:3] == [stretch, "spends 2 of your 4 hand cards",
                        "lowers B1's 2-Mile bonus: -4 points"], left
    assert right[0] == stretch and not [r for r in right if "bonus" in r], right
    built = make_state(cards, [{"hand": "B1 X0 X1", "highway": "W1 M1"},
                               {"highway": "X5 O4"}],
                       depot="X6 X7", landmark_row="L1 L2 L3", deck="X4")
    assert explain_move(view_of(built, 0), (Build("B1", "L", paid), End()), limit=9)[:3] == [
        "makes a new field Stretch: 2 cards, 5 miles (+5 points)",
        "spends 2 of your 3 hand cards", "builds B1's 2-Mile bonus: +4 points"]


def test_a_take_is_not_credited_with_what_the_hand_already_does_at_that_end():
    """A taken card's Stretch or Landmark that a hand card already gives at that end
    is not the take's (posH: "would make a new ocean Stretch ... (+8 points)" where H50
    in the hand made it for +9; pos11_40: "one flower card from a Stretch ... (H14 in
    your hand is one)" where the hand's flower cards made that Stretch already)."""
    from rules_testkit import make_state

    cards = _made_set()
    take = make_state(cards, [{"hand": "D1 X0", "highway": "M1 O1 O2"},
                              {"highway": "X5 O4"}],
                      depot="O5 F2 F1 X1 X2", landmark_row="L1 L2 L3", deck="X3 X4",
                      phase=Phase.TAKE)
    assert explain_move(view_of(take, 0), (Take("O5"),))[0] == (
        "would extend your ocean Stretch to 3 cards, 7 miles at your right end (+2 points), "
        "no more than D1 in your hand would there (+3 points)")
    made = make_state(cards, [{"hand": "F1 X0", "highway": "M1 O1 O2"},
                              {"highway": "X5 O4"}],
                      depot="D1 F2 O5 X1 X2", landmark_row="L1 L2 L3", deck="X3 X4",
                      phase=Phase.TAKE)  # F1 at the right end makes the forest Stretch
    assert not [r for r in explain_move(view_of(made, 0), (Take("F2"),), limit=9)
                if "Woods" in r]
    assert not [r for r in explain_move(view_of(made, 0), (Take("O5"),), limit=9)
                if "Woods" in r]
    both = make_state(cards, [{"hand": "F2 O5 X0", "highway": "X5 O2"},
                              {"highway": "X6 O4"}],
                      depot="F1 D1 X1 X2 X3", landmark_row="L1 L2 L3", deck="X4 X7",
                      phase=Phase.TAKE)  # F2 and O5 at the right end make Woods claimable
    reasons = explain_move(view_of(both, 0), (Take("F1"),), limit=9)
    assert reasons[0].startswith("would make a new forest Stretch") and not [
        r for r in reasons if r.endswith("Woods (L2) claimable")], reasons


def test_a_take_one_card_from_two_stretches_names_the_one_a_hand_card_completes():
    """Of the Stretches a taken card brings within one card, the one a hand card
    completes is said (posM: the forest one for Julia Pfeiffer Burns was said, first in
    Scenery order, and not the mountain one H44 in the hand completes)."""
    from rules_testkit import make_state

    cards = _made_set()
    take = make_state(cards, [{"hand": "F2 X0", "highway": "M1 O4"}, {"highway": "X5 X6"}],
                      depot="O5 D1 F1 X1 X2", landmark_row="L1 L2 L3", deck="X3 X4",
                      phase=Phase.TAKE)  # O5 at the right end: two ocean, two forest icons
    assert explain_move(view_of(take, 0), (Take("O5"),)) == [
        "built at your right end, it puts you one forest card from a Stretch for "
        "Woods (L2) (F2 in your hand is one)"]


def test_a_deck_take_says_no_depot_card_fits_by_itself():
    """"No Depot card would start or extend a Stretch of yours" read as false beside a
    Depot take said to bring a Landmark's Stretch within one card: it says "by itself"."""
    from rules_testkit import make_state

    cards = _made_set()
    take = make_state(cards, [{"hand": "X0", "highway": "M1 O1 O2"}, {"highway": "X5 O4"}],
                      depot="F2 X1 X2 X3 X6", landmark_row="L1 L2 L3", deck="X4 X7",
                      phase=Phase.TAKE)
    view = view_of(take, 0)
    assert "one forest card from a Stretch" in explain_move(view, (Take("F2"),))[0]
    assert explain_move(view, (Take(None),)) == [
        "no Depot card would start or extend a Stretch of yours by itself"]
