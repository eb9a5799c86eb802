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
    NO_ONE,
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
from dune_env.engine import options as opt

from .common import ATR, BG, COR, FRE, HAR

SEATS = [ATR, COR, FRE, BG, HAR]
ARRAKEEN = Region.ARRAKEEN
CARTHAG = Region.CARTHAG
SIETCH_TABR = Region.SIETCH_TABR
STORM_SECTOR = 1  # far from the action: sectors 3, 4 and 5 stay clear


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
    assert game.pool == 1  # SPICE-1: the spice die shows 1

    # Step 2: Jessica offers the alliance to Irulan (a Corrino die shows), Irulan accepts.
    act(game, DecisionKind.ALLY_OFFER, ATR, opt.offer(COR, COR))
    act(game, DecisionKind.ALLY_ANSWER, COR, 1)
    assert game.ally == COR

    # Step 3: two Atreides dice recruit 2 units (4 on her card), the Corrino die recruits one
    # unit for Irulan (RECRUIT-2).
    act(game, DecisionKind.RECRUIT, ATR, opt.RECRUIT_A_UNIT)
    act(game, DecisionKind.RECRUIT, ATR, opt.RECRUIT_A_UNIT)
    act(game, DecisionKind.RECRUIT, COR, opt.RECRUIT_A_UNIT)
    assert game.units(ATR, CARD) == 4
    assert game.units(COR, CARD) == 2

    # Step 4: the free Snooper.
    act(game, DecisionKind.KANLY, ATR, opt.TAKE_TOKEN)
    assert s.snooper_holder == ATR

    # Step 5.  CL-10: the Corrino gift is asked at the start of the landing step, so Irulan's
    # 4 stored spice arrives before Jessica's first landing (the book narrates it after; the
    # totals are the same).
    act(game, DecisionKind.SPICE_GIFT, COR, 4)
    assert game.pool == 5 and game.storage(COR) == 0
    # LAND-4: Jessica could ask to land on Irulan's Sietch Tabr; in the example she does not.
    act(game, DecisionKind.LAND_CONSENT, COR, 0)
    for _ in range(3):  # 1 paid with her own spice, 2 with Irulan's
        act(game, DecisionKind.LAND, ATR, opt.land(ARRAKEEN))
    assert opt.land(SIETCH_TABR) not in game.pending.options  # consent refused
    act(game, DecisionKind.LAND, ATR, opt.STOP_LANDING)
    assert game.units(ATR, ARRAKEEN) == 6 and game.units(ATR, CARD) == 1
    assert game.pool == 2
    # LAND-5: Jessica grants 2 spice and Irulan lands her 2 units on Sietch Tabr.
    act(game, DecisionKind.ALLY_GRANT, ATR, 2)
    act(game, DecisionKind.LAND, COR, opt.land(SIETCH_TABR))
    act(game, DecisionKind.LAND, COR, opt.land(SIETCH_TABR))
    # The grant is used up: Irulan's landing ends by itself.
    assert game.units(COR, SIETCH_TABR) == 4 and game.units(COR, CARD) == 0
    assert game.pool == 0

    # Step 6: region die 4, Jessica picks Carthag and moves 3 units in from adjacent Arrakeen.
    act(game, DecisionKind.MOVE_TARGET, ATR, CARTHAG)
    for _ in range(3):
        act(game, DecisionKind.MOVE, ATR, opt.move(ARRAKEEN))
    act(game, DecisionKind.MOVE, ATR, opt.STOP_MOVING)
    # MOVE-3: Irulan could move in from adjacent Sietch Tabr, but does not.
    assert opt.move(SIETCH_TABR) in game.pending.options
    act(game, DecisionKind.MOVE, COR, opt.STOP_MOVING)
    assert game.units(ATR, CARTHAG) == 3 and game.units(ATR, ARRAKEEN) == 3

    # Step 7: one battle (Carthag), chosen without asking.  Irulan keeps her leader.
    assert s.battle_region == CARTHAG and s.battle_defender == HAR
    act(game, DecisionKind.LEND_LEADER, COR, 0)
    # Jessica has no leader on her card and commits 2 of her 3 units.
    assert opt.bid_leader(ATR) not in game.pending.options
    act(game, DecisionKind.BID, ATR, opt.bid_unit(ATR))
    act(game, DecisionKind.BID, ATR, opt.bid_unit(ATR))
    act(game, DecisionKind.BID, ATR, opt.BID_COMPLETE)
    # Feyd commits only Baron Vladimir (4).
    act(game, DecisionKind.BID, HAR, opt.bid_leader(HAR))
    act(game, DecisionKind.BID, HAR, opt.BID_COMPLETE)

    # Feyd wins 4-2: the Baron and all of Jessica's units in Carthag go to the reserves; Feyd's
    # 2 units stay, and so does the ornithopter (PROP-2).
    battle = game.last_battle
    assert battle is not None and battle.region == CARTHAG
    assert (battle.attacker.faction, battle.defender.faction) == (ATR, HAR)
    assert (battle.attacker.strength, battle.defender.strength) == (2, 4)
    assert battle.winner == HAR
    assert battle.attacker.units == {ATR: (2, 0)} and battle.defender.leaders == {HAR: 1}
    assert game.units(ATR, CARTHAG) == 0
    assert game.units(HAR, CARTHAG) == 2
    assert game.leaders(HAR) == (0, 1)
    assert game.token(CARTHAG) == Token.ORNITHOPTER
    assert game.units(ATR, RESERVE) == 12 - 1 - 3  # 1 on her card, 3 in Arrakeen
    assert game.units(ATR, ARRAKEEN) == 3 and game.units(ATR, CARD) == 1

    # Steps 8-10: Carthag is Feyd's (no reorganising for Jessica); spice 1 shows no storm
    # symbol, so the storm stays; nobody wins; the dice pass to Irulan and the alliance ends.
    assert game.storm_sector == STORM_SECTOR
    assert game.winners == []
    assert game.active_faction == COR
    assert game.ally == NO_ONE
    assert game.phase == Phase.ROLL

    # Irulan's turn: she fixes everything, does not renew the alliance and attacks Carthag.
    act(game, DecisionKind.FIX_DICE, COR, opt.fix_dice(range(7)))
    assert opt.offer(ATR, ATR) not in game.pending.options  # no Atreides die: no renewal
    act(game, DecisionKind.ALLY_OFFER, COR, opt.NO_OFFER)
    act(game, DecisionKind.RECRUIT, COR, opt.RECRUIT_A_UNIT)
    act(game, DecisionKind.RECRUIT, COR, opt.RECRUIT_A_UNIT)
    act(game, DecisionKind.KANLY, COR, opt.NO_KANLY)  # Shield: she leaves it
    act(game, DecisionKind.LAND, COR, opt.STOP_LANDING)
    act(game, DecisionKind.MOVE_TARGET, COR, CARTHAG)
    for _ in range(4):
        act(game, DecisionKind.MOVE, COR, opt.move(SIETCH_TABR))
    # All 4 moved: nothing is left to move and the step ends by itself.
    for _ in range(3):
        act(game, DecisionKind.BID, COR, opt.bid_unit(COR))
    act(game, DecisionKind.BID, COR, opt.BID_COMPLETE)
    # Without the Baron (in his reserve) Feyd has only his 2 units.
    assert opt.bid_leader(HAR) not in game.pending.options
    act(game, DecisionKind.BID, HAR, opt.bid_unit(HAR))
    act(game, DecisionKind.BID, HAR, opt.bid_unit(HAR))
    # Both committed: "done" is his only option left and is taken without asking.
    battle = game.last_battle
    assert (battle.attacker.faction, battle.defender.faction) == (COR, HAR)
    assert (battle.attacker.strength, battle.defender.strength, battle.winner) == (3, 2, COR)
    assert game.units(COR, CARTHAG) == 1 and game.units(HAR, CARTHAG) == 0
    # She now holds Carthag alone and may reorganise it (PROP-1).
    assert (game.pending.kind, game.pending.faction) == (DecisionKind.REORGANIZE, COR)


def test_example_landing_on_sietch_tabr_is_not_offered_with_desert_landing_false() -> None:
    """CL-6 / LAND-3 variant `desert_landing=False`: the example's landing on desert Sietch
    Tabr is not offered."""
    game = example_position(desert_landing=False).at(Phase.ALLY_OFFER)
    act(game, DecisionKind.ALLY_OFFER, ATR, opt.offer(COR, COR))
    act(game, DecisionKind.ALLY_ANSWER, COR, 1)
    act(game, DecisionKind.RECRUIT, ATR, opt.RECRUIT_A_UNIT)
    act(game, DecisionKind.RECRUIT, ATR, opt.RECRUIT_A_UNIT)
    act(game, DecisionKind.RECRUIT, COR, opt.RECRUIT_A_UNIT)
    act(game, DecisionKind.KANLY, ATR, opt.TAKE_TOKEN)
    act(game, DecisionKind.SPICE_GIFT, COR, 4)
    # No consent is asked: Irulan's only region, Sietch Tabr, is desert.
    act(game, DecisionKind.LAND, ATR, opt.STOP_LANDING)
    act(game, DecisionKind.ALLY_GRANT, ATR, 2)
    pending = game.pending
    assert pending.kind == DecisionKind.LAND and pending.faction == COR
    assert opt.land(SIETCH_TABR) not in pending.options
    assert opt.land(Region.POLAR_CAP) in pending.options
