"""What `dune-play` says about the position at a decision (issue 33, items 5 and 6): the
storm's forecast (STORM-1, STORM-2) on the screens where units go, who can reach a movement
target (MOVE-2), the bid's running total (BATTLE-6), the ally's movement target (MOVE-3), the
reorganising swaps that change nothing left out (PROP-1), the spice there is to spend."""

from __future__ import annotations

from dune_env.engine import Game, Phase, Region, Scenario, Token
from dune_env.engine.constants import Faction as F
from dune_env.engine.decisions import (
    BID_DONE,
    KEEP_PROPERTY,
    RECRUIT_ELITE,
    DecisionKind,
    bid_leader_option,
    land_option,
    unit_option,
)
from dune_env.human.situation import decision_context, option_label, shown_options, storm_forecast

THREE = [F.ATREIDES, F.HARKONNEN, F.FREMEN]
FIVE = [F.ATREIDES, F.HARKONNEN, F.FREMEN, F.CORRINO, F.GUILD]


def _move_target(region_die: int, spice: int | str, fortress: bool = False) -> Game:
    scenario = (
        Scenario(THREE)
        .units(F.ATREIDES, Region.CIELAGO_PLAIN, 2)
        .units(F.ATREIDES, Region.HABBANYA_SIETCH, 1)
        .units(F.FREMEN, Region.GREAT_FLAT, 1)
        .storm(3)
        .dice(region=region_die, spice=spice)
        .active(F.ATREIDES)
    )
    if fortress:
        scenario = scenario.token(Region.HABBANYA_SIETCH, Token.FORTRESS)
    return scenario.at(Phase.MOVE_TARGET)


def test_storm_1_2_forecast_says_where_which_way_and_who_dies() -> None:
    """STORM-1: a spice die of 3-5 moves the storm one sector, the way the region die shows
    (faces 1 and 4 W, CL-1); STORM-2: in the desert regions it enters without a fortress every
    faction but the Fremen loses a unit.  The forecast says all of it, and where you are."""
    game = _move_target(region_die=2, spice=4)  # face 2 shows E: sector 3 -> 2
    text = storm_forecast(game.state, F.ATREIDES)
    assert text.startswith("Storm warning: at the end of this turn the storm moves east, from "
                           "sector 3 to sector 2 (STORM-1)")  # fmt: skip
    assert "in Great Flat, Habbanya Sietch every faction but the Fremen loses one unit" in text
    assert text.endswith("you have units in Habbanya Sietch.")
    shielded = storm_forecast(_move_target(2, 4, fortress=True).state, F.ATREIDES)
    assert "in Great Flat every faction" in shielded and "you have units" not in shielded
    west = storm_forecast(_move_target(region_die=1, spice=5).state)  # face 1 shows W: -> 4
    assert "moves west, from sector 3 to sector 4" in west and "in Broken Land" in west
    assert "stays over sector 3" in storm_forecast(_move_target(2, 2).state)  # spice 2: no storm
    assert decision_context(game)[0] == text  # on the movement target screen


def test_move_2_targets_say_who_can_move_in_and_where_the_storm_kills() -> None:
    """MOVE-2 / MOVE-4: each target names your units that can move in (from adjacent regions,
    never out of the storm); a target none can reach says so; a target in the storm's path
    says the storm kills there at the end of the turn (STORM-2)."""
    game = _move_target(region_die=2, spice=4)
    labels = {option: option_label(game, option) for option in game.legal_options()}
    assert labels[Region.GREAT_FLAT] == (
        "Great Flat - your units that can move in: 2 from Cielago Plain, 1 from Habbanya Sietch; "
        "the storm kills a unit there at the end of this turn"
    )
    assert labels[Region.HABBANYA_SIETCH].startswith(
        "Habbanya Sietch - your units that can move in: 2 from Cielago Plain"
    )
    assert "(you have 1 there already)" in labels[Region.HABBANYA_SIETCH]
    calm = _move_target(region_die=2, spice=2)
    assert "storm" not in option_label(calm, Region.GREAT_FLAT)
    stranded = (
        Scenario(THREE)
        .units(F.ATREIDES, Region.TUEKS_SIETCH, 1)
        .dice(region=4)
        .active(F.ATREIDES)
        .at(Phase.MOVE_TARGET)
    )
    assert option_label(stranded, Region.CARTHAG) == ("Carthag - none of your units can move in")


def test_land_options_in_the_storms_path_say_so() -> None:
    """LAND-2 / STORM-2: a landing into a desert region the storm enters this turn is marked."""
    game = (
        Scenario(THREE)
        .units(F.ATREIDES, Region.GREAT_FLAT, 1)
        .units(F.ATREIDES, 10, 2)  # on the card
        .storm(3)
        .dice(region=2, spice=4)
        .active(F.ATREIDES)
        .at(Phase.LAND_START)
    )
    assert game.pending is not None and game.pending.kind == DecisionKind.LAND
    assert option_label(game, land_option(Region.GREAT_FLAT, 0)).endswith(
        "(the storm kills a unit there at the end of this turn)"
    )
    assert "storm" not in option_label(game, land_option(Region.POLAR_CAP, 0))
    context = decision_context(game)
    assert context[0].startswith("Storm warning") and "Spice to spend: 4 (pool 4)." in context


def test_battle_6_bid_shows_its_running_total_and_each_pieces_strength() -> None:
    """BATTLE-6 / DEF-8 / COR-1: the bid so far and its strength (a Sardaukar counts 2, a leader
    its strength), the most this side can reach and the most the other side can bid."""
    game = (
        Scenario(THREE[:2] + [F.CORRINO])
        .units(F.CORRINO, Region.CARTHAG, 1)
        .units(F.CORRINO, Region.CARTHAG, 1, unit_type=1)
        .units(F.HARKONNEN, Region.CARTHAG, 2)
        .leaders(F.CORRINO, 1)
        .leaders(F.HARKONNEN, 1)
        .active(F.CORRINO)
        .at(Phase.BATTLE_SELECT)
    )
    assert game.pending is not None and game.pending.kind == DecisionKind.BID
    assert option_label(game, unit_option(F.CORRINO, 1)) == "commit Corrino Sardaukar (+2)"
    assert option_label(game, bid_leader_option(F.CORRINO)) == "commit leader of Corrino (+3)"
    game.apply(unit_option(F.CORRINO, 1))
    own_bid = [[0] * 16, [0] * 8]
    own_bid[0][F.CORRINO * 2 + 1] = 1
    line = decision_context(game, own_bid)[-1]
    assert line.startswith("Your bid so far: 1 Corrino Sardaukar = strength 2 (you can reach 6).")
    assert "The other side can bid at most 6" in line  # 2 units + Baron Vladimir 4
    assert "Battle in Carthag: Corrino attacks, Harkonnen defends." in decision_context(game)
    assert BID_DONE in game.legal_options()


def test_move_3_the_allys_move_names_the_target_the_active_player_chose() -> None:
    """MOVE-3: your ally moves into your target; on the ally's move screen the target is
    named, and who chose it."""
    game = (
        Scenario(FIVE)
        .ally(F.CORRINO)
        .units(F.CORRINO, Region.ARRAKEEN, 2)
        .target(Region.CARTHAG)
        .active(F.ATREIDES)
        .at(Phase.MOVE_ALLY)
    )
    assert game.pending is not None
    assert (game.pending.kind, game.pending.faction) == (DecisionKind.MOVE, F.CORRINO)
    assert "Movement target: Carthag (chosen by the active player, Atreides)." in (
        decision_context(game)
    )


def test_prop_1_reorganising_never_offers_a_swap_that_changes_nothing() -> None:
    """PROP-1: the engine lets you place a token of the type already there (it goes back to
    the supply and returns); the player is offered "keep" instead, and every real swap."""
    game = (
        Scenario(THREE)
        .units(F.ATREIDES, Region.CARTHAG, 1)
        .token(Region.CARTHAG, Token.FORTRESS)
        .target(Region.CARTHAG)
        .active(F.ATREIDES)
        .at(Phase.PROPERTY)
    )
    assert game.pending is not None and game.pending.kind == DecisionKind.REORGANIZE
    place = {t: KEEP_PROPERTY + 1 + t for t in Token}
    assert place[Token.FORTRESS] in game.legal_options()  # the engine's no-op
    assert shown_options(game) == [KEEP_PROPERTY, place[Token.HARVESTER], place[Token.ORNITHOPTER]]
    assert option_label(game, KEEP_PROPERTY) == "keep property (the Fortress stays)"
    assert option_label(game, place[Token.HARVESTER]) == (
        "place Harvester (the Fortress goes back to the supply)"
    )
    assert "holds the Fortress" in decision_context(game)[-1]


def test_cor_2_corrino_landing_names_storage_and_its_cap() -> None:
    """SPICE-4 / COR-2: the Corrino's spice to spend counts the storage, at most 5, and the
    CHOAM conversion is said where spice is spent."""
    game = (
        Scenario(THREE[:2] + [F.CORRINO])
        .units(F.CORRINO, 10, 1)
        .storage(F.CORRINO, 3)
        .dice(spice=2)
        .active(F.CORRINO)
        .at(Phase.LAND_START)
    )
    context = decision_context(game)
    assert "Spice to spend: 5 (pool 2, storage 3 of at most 5)." in context
    assert any(line.startswith("CHOAM:") and "up to 5 (COR-2)" in line for line in context)


def test_recruit_1_cor_1_dice_left_and_what_a_sardaukar_costs() -> None:
    """RECRUIT-1 / COR-1: the recruit screen counts the faction dice left, by their numbers,
    and says a Sardaukar takes two of them."""
    game = (
        Scenario(THREE[:2] + [F.CORRINO])
        .dice(factions=[F.CORRINO, F.ATREIDES, F.CORRINO, F.CORRINO])
        .active(F.CORRINO)
        .at(Phase.RECRUIT_ACTIVE)
    )
    assert game.pending is not None and game.pending.kind == DecisionKind.RECRUIT
    assert "Faction dice left to recruit with: 3 (dice 1, 3, 4)." in decision_context(game)
    assert option_label(game, RECRUIT_ELITE) == (
        "recruit a Sardaukar (uses 2 dice; strength 2, COR-1)"
    )
