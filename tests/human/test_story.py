"""The story `dune-play` tells (issue 33, items 5 and 6): each notice of what the engine did
for you in its place among the events - not a round late, not after the battle it concerns,
not again on the next screens - and the bots' turns condensed, with what hits you marked."""

from __future__ import annotations

from dune_env.engine import Game, GameConfig, Phase, Region, Scenario, Token
from dune_env.engine.constants import Faction as F
from dune_env.engine.decisions import DecisionKind, unit_option
from dune_env.engine.events import EventKind
from dune_env.environment.action_table import action_of
from dune_env.human import PlaySession, guide
from dune_env.human.story import StoryLine, Teller, hits, other_turns, tell

THREE = [F.ATREIDES, F.HARKONNEN, F.FREMEN]


def _session(game: Game, you: int) -> PlaySession:
    session = PlaySession(game.config.num_players, you, ["random"], seed=1)
    session.load_data(game.snapshot())
    session.new_story()  # what came before is not this test's story
    return session


def _texts(lines: list[StoryLine]) -> list[str]:
    return [("NOTE " if line.event is None else "") + line.text for line in lines]


def test_move_2_unreachable_target_note_follows_the_target_at_once() -> None:
    """MOVE-2: when no unit of yours can move into the target chosen, the note says so right
    after the target is named, before the bots' turns that follow (it used to come after
    them, a round late), and it is not told again at the next decision."""
    game = (
        Scenario(THREE)
        .units(F.ATREIDES, Region.TUEKS_SIETCH, 1)
        .dice(region=4)
        .active(F.ATREIDES)
        .at(Phase.MOVE_TARGET)
    )
    session = _session(game, you=0)
    session.choose(action_of(DecisionKind.MOVE_TARGET, Region.CARTHAG))
    lines = _texts(session.new_story())
    target = lines.index("Movement target: Carthag.")
    assert lines[target + 1].startswith("NOTE No unit of yours could move into Carthag")
    assert "MOVE-2" in lines[target + 1]
    assert any(line.startswith("--- Round") for line in lines[target + 2 :])  # the bots played
    # The note belongs to the decision it was made at: the bots have played since, so it is
    # not shown with your next decision (the story keeps it in its place).
    assert session.notices() == []
    session.choose(session.options()[0][0])  # the next decision: nothing new to say
    assert not any(line.startswith("NOTE No unit") for line in _texts(session.new_story()))
    assert not any(n.startswith("No unit of yours") for n in session.notices())


def test_battle_5_forced_bid_done_is_said_before_the_reveal() -> None:
    """BATTLE-5: when you have nothing more to commit, the engine says "bid done" for you; the
    note comes where it happened, before both bids are revealed, not after the battle."""
    game = (
        Scenario(THREE)
        .units(F.ATREIDES, Region.CARTHAG, 2)
        .units(F.HARKONNEN, Region.CARTHAG, 1)
        .leaders(F.HARKONNEN, 0)
        .active(F.ATREIDES)
        .at(Phase.BATTLE_SELECT)
    )
    session = _session(game, you=1)  # the Harkonnen defend; the Atreides bot bids first
    assert session.decision_name() == "BID"
    session.choose(action_of(DecisionKind.BID, unit_option(F.HARKONNEN, 0)))
    lines = _texts(session.new_story())
    note = next(i for i, line in enumerate(lines) if "bid done" in line)
    assert lines[note].startswith("NOTE The engine played for you - battle bid: bid done")
    reveal = lines.index(next(line for line in lines if line.startswith("Attacker reveals")))
    result = lines.index(next(line for line in lines if line.startswith("Battle in Carthag:")))
    assert note < reveal < result


def test_roll_2_last_die_fixed_for_you_is_said_before_its_fix() -> None:
    """ROLL-2: the last die rolled is fixed without asking; the note comes right after that
    roll and before the fix, and names the die by its number 1-7."""
    for seed in range(40):
        session = PlaySession(3, 0, ["random"], seed=seed)
        session.play_bots()
        while not session.over:
            state = session.game.state
            if session.decision_name() == "FIX_DICE" and state.dice_fixed.count(False) == 2:
                break
            options = session.options()
            if session.decision_name() == "FIX_DICE":  # fix the lowest die: keep rolling
                rolled = [d for d in range(7) if not state.dice_fixed[d]]
                session.choose(action_of(DecisionKind.FIX_DICE, 1 << rolled[0]))
            else:
                session.choose(options[0][0])
        else:
            continue
        session.new_story()
        last = [d for d in range(7) if not session.game.state.dice_fixed[d]]
        session.choose(action_of(DecisionKind.FIX_DICE, 1 << last[0]))
        lines = session.new_story()
        texts = _texts(lines)
        note = next(i for i, t in enumerate(texts) if t.startswith("NOTE The engine played"))
        assert f"fixed your {guide.DIE_NAMES[last[1]]} " in texts[note]  # e.g. "spice die 6"
        assert lines[note - 1].event is not None and lines[note - 1].event[0] == EventKind.ROLL
        assert lines[note + 1].event is not None and lines[note + 1].event[0] == EventKind.FIX
        assert texts[note - 1].startswith(f"Roll of die {last[1] + 1}: ")
        return
    raise AssertionError("no seed reached a roll with two dice left")


def test_undo_takes_back_the_notes_of_the_decision_undone() -> None:
    """MOVE-2, BATTLE-1: the notes made on the way to your next decision of the same turn are
    shown with it (no other seat decided in between), and undo takes them back."""
    game = (
        Scenario(THREE)
        .units(F.ATREIDES, Region.CARTHAG, 1)
        .units(F.HARKONNEN, Region.CARTHAG, 1)
        .dice(region=4)
        .active(F.ATREIDES)
        .at(Phase.MOVE_TARGET)
    )
    session = _session(game, you=0)
    session.choose(action_of(DecisionKind.MOVE_TARGET, Region.CARTHAG))
    assert session.decision_name() == "BID"  # your bid in the battle of Carthag
    notices = session.notices()
    assert notices[0].startswith("No unit of yours could move into Carthag")
    assert notices[1].startswith("The engine played for you - next battle: Carthag")
    session.undo()
    assert session.notices() == []
    assert not any(line.event is None for line in session.story())


def test_others_rolls_condensed_yours_kept_and_hits_on_you_marked() -> None:
    """The story as told: another faction's rolling is one line (how often it rolled, what it
    kept); your own rolls stay and your own fixes go (your move says them); a Kanly kill of
    your unit is marked; CHOAM names the storage cap (COR-2)."""
    game = Game(GameConfig(num_players=4, faction_mode="assigned", factions=(4, 0, 1, 2)), 5)
    session = PlaySession(4, 0, ["aggressive"], seed=5)
    session.game = game
    while game.state.round == 1 and not game.terminal:
        game.apply(game.legal_options()[-1])
    lines = [StoryLine.of_event(e) for e in game.state.events]
    told = tell(lines, F.CORRINO)
    texts = [t.text for t in told]
    rolls = [e for e in game.state.events if e[0] == EventKind.ROLL]
    assert len([t for t in texts if t.startswith("Roll of")]) < len(rolls)
    assert any(t.startswith("Atreides rolls ") and " and keeps: factions " in t for t in texts)
    assert any(t.startswith("Roll of dice 1, 2, 3, 4, 5, 6, 7:") for t in texts)  # Corrino's own
    assert not any(t.startswith("Corrino fixes") for t in texts)
    raw = Teller(F.CORRINO).tell(lines, condense=False)
    assert len(raw) == len(lines)
    kill = (EventKind.KANLY_KILL, 0, Region.CARTHAG, F.CORRINO, 0)
    other = (EventKind.KANLY_KILL, 0, Region.CARTHAG, F.FREMEN, 0)
    choam = (EventKind.CHOAM, 2)
    marked = tell([StoryLine.of_event(e) for e in (kill, other, choam)], F.CORRINO)
    assert [t.mine for t in marked] == [True, False, False]
    assert hits(marked) == ["Kanly (Poison): a Corrino unit in Carthag dies."]
    assert marked[2].text.endswith("(the storage holds at most 5; the rest is lost).")
    land = StoryLine.of_event((EventKind.LAND, F.FREMEN, Region.POLAR_CAP, 0, 1))
    assert [t.text for t in tell([land] * 3, F.CORRINO)] == [
        "Fremen lands a unit in Polar Cap for 1 spice. (3 times)"
    ]


def test_other_turns_tell_when_the_bots_have_played() -> None:
    """The pause comes when another seat's turn is in the story, or the game ended."""
    start = StoryLine.of_event((EventKind.TURN_START, 1, 2, F.FREMEN))
    mine = StoryLine.of_event((EventKind.TURN_START, 1, 0, F.ATREIDES))
    assert other_turns([start], you_seat=0) and not other_turns([mine], you_seat=0)
    assert not other_turns([StoryLine("a note")], you_seat=0)


def test_battle_3_a_battle_the_fortress_ended_is_said_to_be_over() -> None:
    """BATTLE-3: the engine emits nothing when the fortress took the attacker's last unit and
    the battle is over; the story says so (a battle that goes on is not called over)."""
    start = (EventKind.BATTLE_START, Region.SIETCH_TABR, F.FREMEN, F.CORRINO)
    fortress = (EventKind.FORTRESS, Region.SIETCH_TABR, F.FREMEN, 0)
    storm = (EventKind.STORM_MOVE, 1, 2)
    bids = (EventKind.BATTLE_BIDS, 0, 0, *([0] * 16), *([0] * 8))
    ended = tell([StoryLine.of_event(e) for e in (start, fortress, storm)], F.CORRINO)
    assert ended[2].text == (
        "No battle is left in Sietch Tabr: the fortress took the attacker's last unit there "
        "(BATTLE-3)."
    )
    assert ended[2].mine and ended[3].text.startswith("The storm moves")
    going_on = tell([StoryLine.of_event(e) for e in (start, fortress, bids)], F.CORRINO)
    assert not any(line.text.startswith("No battle is left") for line in going_on)


def test_prop_1_a_reorganising_with_nothing_to_change_is_played_for_you() -> None:
    """PROP-1: when the only swap the engine offers places the token already there, the
    player is not asked to "keep": it is played for them, with a note saying why."""
    game = (
        Scenario(THREE)
        .units(F.ATREIDES, Region.CARTHAG, 1)
        .token(Region.CARTHAG, Token.ORNITHOPTER)
        .token(Region.SIETCH_TABR, Token.FORTRESS)
        .token(Region.TUEKS_SIETCH, Token.FORTRESS)
        .token(Region.HABBANYA_SIETCH, Token.HARVESTER)
        .token(Region.MINOR_ERG, Token.HARVESTER)
        .target(Region.CARTHAG)
        .active(F.ATREIDES)
        .at(Phase.PROPERTY)
    )
    assert game.pending is not None and game.pending.kind == DecisionKind.REORGANIZE
    assert len(game.legal_options()) == 2  # keep, or the supply's Ornithopter for Carthag's
    session = PlaySession(3, 0, ["random"], seed=1)
    session.load_data(game.snapshot())
    assert not (session.your_turn and session.decision_name() == "REORGANIZE")
    notes = [line.text for line in session.story() if line.event is None]
    assert notes and notes[0].startswith("Played for you - reorganise the target: keep property")


def test_lines_that_hit_you_say_whose_turn_it_was() -> None:
    """KANLY-1, STORM-2: repeated above your decision, away from their place in the story, the
    lines that hit you say when they happened and so who did it (a Kanly kill is the active
    player's); the story itself is unchanged."""
    fremen_turn = (EventKind.TURN_START, 2, 1, F.FREMEN)
    kill = (EventKind.KANLY_KILL, 0, Region.CARTHAG, F.CORRINO, 0)
    own_turn = (EventKind.TURN_START, 2, 0, F.CORRINO)
    storm = (EventKind.STORM_LOSS, Region.GREAT_FLAT, F.CORRINO, 0, 0)
    told = tell([StoryLine.of_event(e) for e in (fremen_turn, kill, own_turn, storm)], F.CORRINO)
    assert told[1].text == "Kanly (Poison): a Corrino unit in Carthag dies."
    assert hits(told) == [
        "Round 2, Fremen's turn: Kanly (Poison): a Corrino unit in Carthag dies.",
        "Round 2, your turn: The storm kills a Corrino unit in Great Flat (to its reserve).",
    ]
