"""The worked example of RULES.md §8 (rulebook p. 12), played through decision by decision.

Jessica (Atreides) allies with Irulan (Corrino), recruits, takes the Snooper, lands with
Irulan's CHOAM spice, pays for Irulan's landing on Sietch Tabr, attacks Carthag from Arrakeen
and loses 2-4 to Feyd (Harkonnen), who commits only Baron Vladimir.  Then Irulan, no longer
allied, attacks the weakened Carthag.

The source's arithmetic is loose ("3 units in Arrakeen", later "next to the 2 units already
there"), so the position is built explicitly: Jessica starts with 2 units on her card and 3 in
Arrakeen, as RULES.md §8 states.  After 3 landings she has 6 there, moves 3 to Carthag and
leaves 3.

Sietch Tabr is a desert region (MAP-1), and the example has Irulan land 2 units there: this
is the rulebook's own evidence for CL-6 (rev. 2), which allows desert landing by default, so
the example runs with the default configuration.
`test_example_landing_on_sietch_tabr_is_not_offered_with_desert_landing_false` shows that the
translator's reading (`desert_landing=False`) would forbid the same landing.

Five players are needed for alliances (ALLY-1): Fremen and Bene Gesserit fill the two extra
seats (no Guild, so no GLD-1 income muddies the spice).  Seats, clockwise: Atreides, Corrino,
Fremen, Bene Gesserit, Harkonnen, so Irulan plays right after Jessica.
"""

from __future__ import annotations

from dune_env.engine import (
    CARD,
    RESERVE,
    DecisionKind,
    Game,
    GameConfig,
    KanlyFace,
    Phase,
    Region,
    Scenario,
    Token,
)
from dune_env.engine.constants import NO_ONE
from dune_env.engine.decisions import (
    BID_DONE,
    KANLY_TAKE,
    LAND_STOP,
    RECRUIT_UNIT,
    bid_leader_option,
    land_option,
    move_option,
    offer_option,
    unit_option,
)

from .common import ATR, BG, COR, FRE, HAR

SEATS = [ATR, COR, FRE, BG, HAR]
ARRAKEEN = Region.ARRAKEEN
CARTHAG = Region.CARTHAG
SIETCH_TABR = Region.SIETCH_TABR
STORM_SECTOR = 1  # far from the action: sectors 3, 4 and 5 stay clear


def unit_loc(game: Game, faction: int, location: int) -> int:
    return game.state.count(faction, location)


def act(game: Game, kind: DecisionKind, faction: int, option: int) -> None:
    """Apply `option` after checking who is asked what, and that the option is legal."""
    pending = game.pending
    assert pending is not None, "no decision pending"
    assert (pending.kind, pending.faction) == (kind, faction), pending
    assert option in pending.options, (option, pending.options)
    game.apply(option)


def example_position(**config: object) -> Scenario:
    """The p. 12 position; `config`: GameConfig options (none: the default rules)."""
    return (
        Scenario(SEATS, seed=0, **config)
        # Jessica: 2 units on her card, 3 in Arrakeen, no leader on her card (both in reserve).
        .units(ATR, CARD, 2)
        .units(ATR, ARRAKEEN, 3)
        .leaders(ATR, 0)
        # Irulan: holds Sietch Tabr, 1 unit left on her card from earlier, 4 spice stored.
        .units(COR, SIETCH_TABR, 2)
        .units(COR, CARD, 1)
        .leaders(COR, 1)
        .storage(COR, 4)
        # Feyd: 2 units and an ornithopter in Carthag; Baron Vladimir on his card.
        .units(HAR, CARTHAG, 2)
        .leaders(HAR, 1)
        .token(CARTHAG, Token.ORNITHOPTER)
        # Others, out of the way.
        .units(FRE, Region.MINOR_ERG, 1)
        .units(BG, Region.POLAR_CAP, 3)
        .storm(STORM_SECTOR)
        .dice(factions=[ATR, ATR, COR, HAR], region=4, spice=1, kanly=KanlyFace.SNOOPER)
        .active(ATR)
        .first(ATR)
    )


def test_worked_example_rulebook_page_12() -> None:
    """RULES.md §8 end to end (ALLY-2/3, RECRUIT-1/2, KANLY-4, LAND-2/5, COR-3, MOVE-1/2,
    BATTLE-5/6/7, PROP-2, STORM-1, TURN-2, ALLY-4), with the default configuration: the
    landing on desert Sietch Tabr is allowed (LAND-3, CL-6 rev. 2)."""
    # Irulan's next turn: she fixes all seven dice at once; these are its faces (0-5):
    # faction dice Corrino, Corrino, Guild, Fremen; region 4; spice 2; Kanly Shield.
    scenario = example_position()
    assert scenario.state.config == GameConfig(
        num_players=5, faction_mode="assigned", factions=tuple(SEATS)
    )  # the default rules
    game = scenario.force(1, 1, 3, 5, 3, 1, 4).at(Phase.ALLY_OFFER)
    s = game.state
    assert s.pool == 1  # SPICE-1: the spice die shows 1

    # Step 2: Jessica offers the alliance to Irulan (a Corrino die shows), Irulan accepts.
    act(game, DecisionKind.ALLY_OFFER, ATR, offer_option(COR, COR))
    act(game, DecisionKind.ALLY_ANSWER, COR, 1)
    assert s.ally == COR

    # Step 3: two Atreides dice recruit 2 units (4 on her card), the Corrino die recruits one
    # unit for Irulan (RECRUIT-2).
    act(game, DecisionKind.RECRUIT, ATR, RECRUIT_UNIT)
    act(game, DecisionKind.RECRUIT, ATR, RECRUIT_UNIT)
    act(game, DecisionKind.RECRUIT, COR, RECRUIT_UNIT)
    assert unit_loc(game, ATR, CARD) == 4
    assert unit_loc(game, COR, CARD) == 2

    # Step 4: the free Snooper.
    act(game, DecisionKind.KANLY, ATR, KANLY_TAKE)
    assert s.snooper_holder == ATR

    # Step 5.  CL-10: the Corrino gift is asked at the start of the landing step, so Irulan's
    # 4 stored spice arrives before Jessica's first landing (the book narrates it after; the
    # totals are the same).
    act(game, DecisionKind.SPICE_GIFT, COR, 4)
    assert s.pool == 5 and s.storage[COR] == 0
    # LAND-4: Jessica could ask to land on Irulan's Sietch Tabr; in the example she does not.
    act(game, DecisionKind.LAND_CONSENT, COR, 0)
    for _ in range(3):  # 1 paid with her own spice, 2 with Irulan's
        act(game, DecisionKind.LAND, ATR, land_option(ARRAKEEN, 0))
    assert land_option(SIETCH_TABR, 0) not in game.pending.options  # consent refused
    act(game, DecisionKind.LAND, ATR, LAND_STOP)
    assert unit_loc(game, ATR, ARRAKEEN) == 6 and unit_loc(game, ATR, CARD) == 1
    assert s.pool == 2
    # LAND-5: Jessica grants 2 spice and Irulan lands her 2 units on Sietch Tabr.
    act(game, DecisionKind.ALLY_GRANT, ATR, 2)
    act(game, DecisionKind.LAND, COR, land_option(SIETCH_TABR, 0))
    act(game, DecisionKind.LAND, COR, land_option(SIETCH_TABR, 0))
    # The grant is used up: Irulan's landing ends by itself.
    assert unit_loc(game, COR, SIETCH_TABR) == 4 and unit_loc(game, COR, CARD) == 0
    assert s.pool == 0

    # Step 6: region die 4, Jessica picks Carthag and moves 3 units in from adjacent Arrakeen.
    act(game, DecisionKind.MOVE_TARGET, ATR, CARTHAG)
    for _ in range(3):
        act(game, DecisionKind.MOVE, ATR, move_option(ARRAKEEN, 0))
    act(game, DecisionKind.MOVE, ATR, 0)
    # MOVE-3: Irulan could move in from adjacent Sietch Tabr, but does not.
    assert move_option(SIETCH_TABR, 0) in game.pending.options
    act(game, DecisionKind.MOVE, COR, 0)
    assert unit_loc(game, ATR, CARTHAG) == 3 and unit_loc(game, ATR, ARRAKEEN) == 3

    # Step 7: one battle (Carthag), chosen without asking.  Irulan keeps her leader.
    assert s.battle_region == CARTHAG and s.battle_defender == HAR
    act(game, DecisionKind.LEND_LEADER, COR, 0)
    # Jessica has no leader on her card and commits 2 of her 3 units.
    assert bid_leader_option(ATR) not in game.pending.options
    act(game, DecisionKind.BID, ATR, unit_option(ATR, 0))
    act(game, DecisionKind.BID, ATR, unit_option(ATR, 0))
    act(game, DecisionKind.BID, ATR, BID_DONE)
    # Feyd commits only Baron Vladimir (4).
    act(game, DecisionKind.BID, HAR, bid_leader_option(HAR))
    act(game, DecisionKind.BID, HAR, BID_DONE)

    # Feyd wins 4-2: the Baron and all of Jessica's units in Carthag go to the reserves; Feyd's
    # 2 units stay, and so does the ornithopter (PROP-2).
    region, attacker, defender, att, dfn, winner = s.last_battle[:6]
    assert (region, attacker, defender, att, dfn, winner) == (CARTHAG, ATR, HAR, 2, 4, 1)
    assert unit_loc(game, ATR, CARTHAG) == 0
    assert unit_loc(game, HAR, CARTHAG) == 2
    assert s.leaders[HAR] == [0, 1]
    assert s.region_token[CARTHAG] == Token.ORNITHOPTER
    assert unit_loc(game, ATR, RESERVE) == 12 - 1 - 3  # 1 on her card, 3 in Arrakeen
    assert unit_loc(game, ATR, ARRAKEEN) == 3 and unit_loc(game, ATR, CARD) == 1

    # Steps 8-10: Carthag is Feyd's (no reorganising for Jessica); spice 1 shows no storm
    # symbol, so the storm stays; nobody wins; the dice pass to Irulan and the alliance ends.
    assert s.storm_sector == STORM_SECTOR
    assert s.winners == []
    assert s.active_faction == COR
    assert s.ally == NO_ONE
    assert s.phase == Phase.ROLL

    # Irulan's turn: she fixes everything, does not renew the alliance and attacks Carthag.
    act(game, DecisionKind.FIX_DICE, COR, 0b1111111)
    assert offer_option(ATR, ATR) not in game.pending.options  # no Atreides die: no renewal
    act(game, DecisionKind.ALLY_OFFER, COR, 0)
    act(game, DecisionKind.RECRUIT, COR, RECRUIT_UNIT)
    act(game, DecisionKind.RECRUIT, COR, RECRUIT_UNIT)
    act(game, DecisionKind.KANLY, COR, 0)  # Shield: she leaves it
    act(game, DecisionKind.LAND, COR, LAND_STOP)
    act(game, DecisionKind.MOVE_TARGET, COR, CARTHAG)
    for _ in range(4):
        act(game, DecisionKind.MOVE, COR, move_option(SIETCH_TABR, 0))
    # All 4 moved: nothing is left to move and the step ends by itself.
    for _ in range(3):
        act(game, DecisionKind.BID, COR, unit_option(COR, 0))
    act(game, DecisionKind.BID, COR, BID_DONE)
    # Without the Baron (in his reserve) Feyd has only his 2 units.
    assert bid_leader_option(HAR) not in game.pending.options
    act(game, DecisionKind.BID, HAR, unit_option(HAR, 0))
    act(game, DecisionKind.BID, HAR, unit_option(HAR, 0))
    # Both committed: "done" is his only option left and is taken without asking.
    assert s.last_battle[:6] == [CARTHAG, COR, HAR, 3, 2, 0]
    assert unit_loc(game, COR, CARTHAG) == 1 and unit_loc(game, HAR, CARTHAG) == 0
    # She now holds Carthag alone and may reorganise it (PROP-1).
    assert (game.pending.kind, game.pending.faction) == (DecisionKind.REORGANIZE, COR)


def test_example_landing_on_sietch_tabr_is_not_offered_with_desert_landing_false() -> None:
    """CL-6 / LAND-3 variant `desert_landing=False`: the example's landing on desert Sietch
    Tabr is not offered."""
    game = example_position(desert_landing=False).at(Phase.ALLY_OFFER)
    act(game, DecisionKind.ALLY_OFFER, ATR, offer_option(COR, COR))
    act(game, DecisionKind.ALLY_ANSWER, COR, 1)
    act(game, DecisionKind.RECRUIT, ATR, RECRUIT_UNIT)
    act(game, DecisionKind.RECRUIT, ATR, RECRUIT_UNIT)
    act(game, DecisionKind.RECRUIT, COR, RECRUIT_UNIT)
    act(game, DecisionKind.KANLY, ATR, KANLY_TAKE)
    act(game, DecisionKind.SPICE_GIFT, COR, 4)
    # No consent is asked: Irulan's only region, Sietch Tabr, is desert.
    act(game, DecisionKind.LAND, ATR, LAND_STOP)
    act(game, DecisionKind.ALLY_GRANT, ATR, 2)
    pending = game.pending
    assert pending.kind == DecisionKind.LAND and pending.faction == COR
    assert land_option(SIETCH_TABR, 0) not in pending.options
    assert land_option(Region.POLAR_CAP, 0) in pending.options
