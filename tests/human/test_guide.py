"""What `dune-play` tells a newcomer (issue 25): one explanation per decision kind with its rule
IDs, dice fixed one at a time (ROLL-2..4), and what the engine did for the player and why."""

from __future__ import annotations

import re
from pathlib import Path

from dune_env.engine import Game, GameConfig
from dune_env.engine.decisions import DecisionKind, spec_of
from dune_env.engine.events import EventKind
from dune_env.engine.rng import DiceRng
from dune_env.human import guide

ROOT = Path(__file__).resolve().parents[2]
ALL_DICE = 0b1111111
SPICE = 1 << 5


def test_every_decision_kind_is_explained_with_rule_ids_of_docs_rules() -> None:
    rules_doc = (ROOT / guide.RULES_DOC).read_text()
    assert set(guide.EXPLANATIONS) == set(DecisionKind) == set(guide.TITLES)
    for kind in DecisionKind:
        line = guide.explain(kind)
        assert spec_of(kind).rules in line and guide.RULES_DOC in line
        for rule in re.findall(r"[A-Z]+-\d+", spec_of(kind).rules):
            assert f"**{rule}**" in rules_doc, f"{kind.name}: {rule} is not in docs/rules.md"
    assert guide.decision_title(DecisionKind.HARKONNEN_START) == "Harkonnen start"


def test_decision_titles_spell_names_as_the_rules_do() -> None:
    """HAR-1, BG-0: proper names keep their capitals ("Piter De Vries", not "Piter de vries"
    as a capitalised enum name gave), and no title is an enum name in disguise."""
    rules_doc = (ROOT / guide.RULES_DOC).read_text()
    assert guide.decision_title(DecisionKind.PITER_DE_VRIES) == "Piter De Vries"
    assert "*Piter De Vries.*" in rules_doc
    assert guide.decision_title(DecisionKind.BG_PREDICTION) == "Bene Gesserit prediction"
    for kind in DecisionKind:
        title = guide.decision_title(kind)
        assert title[0].isupper() and "_" not in title and title != kind.name
        for word in title.replace(":", "").split():
            if word.lower() in _PROPER:
                assert word[0].isupper(), f"{title!r}: {word!r} is a name"


_PROPER = {"atreides", "harkonnen", "piter", "de", "vries", "bene", "gesserit", "shai-hulud"}


def test_help_explains_every_token_and_term_a_newcomer_meets() -> None:
    """COMP-2, DEF-8, COR-1, COR-2, KANLY-3, ROLL-4: the help names and explains the tokens
    and terms of the board and the log, with the Sardaukar's strength 2 and the storage cap."""
    terms = dict(guide.GLOSSARY)
    for term in (
        "Fortress (F)",
        "Harvester (H)",
        "Ornithopter (O)",
        "Snooper",
        "Shield",
        "Thumper",
        "CHOAM",
        "Sardaukar",
        "Storage",
        "Shai-Hulud",
        "Desert (x)",
    ):
        assert term in terms, term
        assert re.search(r"\([A-Z]+-\d+", terms[term]), f"{term} cites no rule"
    assert "strength 2" in terms["Sardaukar"]
    assert "at most 5" in terms["CHOAM"] and "at most 5" in terms["Storage"]
    assert "Sietch Tabr" in terms["Desert (x)"] and "Arrakeen" not in terms["Desert (x)"]
    for term in terms:
        assert f"{term}: " in guide.HOW_TO_PLAY


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
        "to finish, also pick spice die 6: a Shai-Hulud must be fixed (ROLL-3)"
    )
    assert guide.can_fix(legal, 1 | SPICE) and guide.missing_text(legal, 1 | SPICE) == ""
    text = guide.fix_text(1 | SPICE, rolled, guide.die_labels([0, 1, 2, 3, 3, 5, 0]), False)
    assert text.endswith("roll the other 1 again")


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
