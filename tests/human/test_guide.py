"""What `dune-play` tells a newcomer (issue 25): one explanation per decision kind with its rule
IDs, dice fixed one at a time (ROLL-2..4), and what the engine did for the player and why."""

from __future__ import annotations

import re
from pathlib import Path

from dune_env.engine import Game, GameConfig, Region, Scenario
from dune_env.engine.constants import Faction
from dune_env.engine.decisions import DecisionKind, spec_of
from dune_env.engine.events import EventKind
from dune_env.engine.rng import DiceRng
from dune_env.engine.state import Phase
from dune_env.human import guide

ROOT = Path(__file__).resolve().parents[2]
ALL_DICE = 0b1111111
SPICE = 1 << 5


def test_every_decision_kind_is_explained_with_rule_ids_of_docs_rules() -> None:
    rules_doc = (ROOT / guide.RULES_DOC).read_text()
    assert set(guide.EXPLANATIONS) == set(DecisionKind)
    for kind in DecisionKind:
        line = guide.explain(kind)
        assert spec_of(kind).rules in line and guide.RULES_DOC in line
        for rule in re.findall(r"[A-Z]+-\d+", spec_of(kind).rules):
            assert f"**{rule}**" in rules_doc, f"{kind.name}: {rule} is not in docs/rules.md"
    assert guide.decision_title(DecisionKind.HARKONNEN_START) == "Harkonnen start"


def test_dice_picked_one_at_a_time_compose_every_legal_subset() -> None:
    """ROLL-2: any non-empty subset of the rolled dice; picking die by die reaches each one and
    offers "done" exactly on the legal ones."""
    legal = list(range(1, ALL_DICE + 1))
    assert guide.pickable_dice(legal, 0) == list(range(7))
    assert not guide.can_fix(legal, 0)
    assert guide.pickable_dice(legal, 0b101) == [1, 3, 4, 5, 6]
    assert guide.can_fix(legal, 0b101)
    reached = set()

    def walk(picked: int) -> None:
        if guide.can_fix(legal, picked):
            reached.add(picked)
        for die in guide.pickable_dice(legal, picked):
            if die > max((d for d in range(7) if picked >> d & 1), default=-1):
                walk(picked | 1 << die)

    walk(0)
    assert reached == set(legal)


def test_a_rolled_shai_hulud_must_be_picked_before_done() -> None:
    """ROLL-3: with a Shai-Hulud rolled (no Thumper) the legal subsets all hold the spice die;
    "done" waits for it and the hint says why."""
    rolled = 0b0110001
    legal = [m for m in range(1, rolled + 1) if m & rolled == m and m & SPICE]
    assert guide.pickable_dice(legal, 0) == [0, 4, 5]
    assert not guide.can_fix(legal, 1)
    assert guide.missing_text(legal, 1) == (
        "to finish, also pick spice die: a Shai-Hulud must be fixed (ROLL-3)"
    )
    assert guide.can_fix(legal, 1 | SPICE) and guide.missing_text(legal, 1 | SPICE) == ""
    text = guide.fix_text(1 | SPICE, rolled, guide.die_labels([0, 1, 2, 3, 3, 5, 0]), False)
    assert text.endswith("roll the other 1 again")


def test_notice_when_no_unit_can_reach_the_chosen_target() -> None:
    """MOVE-2: the engine asks nothing when no unit can move into the target; the player is told
    so, and why."""
    game = (
        Scenario([Faction.ATREIDES, Faction.HARKONNEN, Faction.FREMEN])
        .units(Faction.ATREIDES, Region.CIELAGO_PLAIN, 2)
        .dice(region=4)
        .active(Faction.ATREIDES)
        .at(Phase.MOVE_TARGET)
    )
    assert game.state.pending_kind == DecisionKind.MOVE_TARGET
    game.apply(Region.CARTHAG)
    assert game.state.pending_kind != DecisionKind.MOVE or game.terminal
    notices = guide.auto_notices(game, 0)
    assert len(notices) == 1
    assert "No unit of yours could move into Carthag" in notices[0] and "MOVE-2" in notices[0]


def test_notice_when_the_engine_fixes_the_last_die() -> None:
    """ROLL-2: the last die rolled is fixed without asking (a forced decision): say so."""
    game = Game(GameConfig(num_players=3, faction_mode="random"), seed=4)
    seat = None
    while seat is None:
        state = game.state
        if state.pending_kind == DecisionKind.FIX_DICE and sum(state.dice_fixed) == 5:
            seat = state.pending_seat
            rolled = [d for d in range(7) if not state.dice_fixed[d]]
            game.apply(1 << rolled[0])  # fix one of the two: the engine fixes the other
        else:
            game.apply(game.legal_options()[0])
    notices = guide.auto_notices(game, seat)
    assert notices and notices[0].startswith("The engine played for you - fixed your ")
    assert "ROLL-2" in notices[0]


def test_leaving_shai_hulud_unfixed_says_the_thumper_goes() -> None:
    """ROLL-4: with a Thumper, a pick without the spice die is legal and its "done" line says
    the Thumper is discarded."""
    rolled = 0b0100001
    labels = guide.die_labels([0, 1, 2, 3, 3, 5, 0])
    assert "discard your Thumper" in guide.fix_text(0b1, rolled, labels, thumper=True)
    assert "Thumper" not in guide.fix_text(rolled, rolled, labels, thumper=True)


def test_game_over_names_the_predicted_winner_when_the_bene_gesserit_take_it_end_6() -> None:
    """END-6: when the Bene Gesserit's prediction comes true, the game-over line says whose
    victory it was and that the Bene Gesserit take it (the prediction event comes before the
    victory event, which must not erase it)."""
    game = Game(GameConfig(num_players=6), seed=7)
    chooser = DiceRng(7)
    while not game.terminal:
        options = game.legal_options()
        game.apply(options[chooser.below(len(options))])
    kinds = [event[0] for event in game.state.events]
    assert EventKind.BG_TAKES in kinds, "seed 7 no longer ends on a Bene Gesserit prediction"
    text = guide.game_over_text(game)
    assert text.startswith("The game ended because nobody won by the end of round 6")
    assert "predicted that Spacing Guild would win, so the victory is theirs (END-6)" in text
