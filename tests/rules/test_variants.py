"""Configurable clarifications ([variant] items of RULES.md) and the CL-n defaults: CL-1
`region_die_west_faces`, CL-3 `strict_control`, CL-4 rewards, CL-5 spending order, CL-6
`desert_landing`, TLX-4 `face_dancers`, CL-7..CL-12, and the rev. 2 variants GLD-1
`guild_income_per_lander`, END-2 `strict_alliance_victory`, SMG-1 `smugglers_land_anywhere`,
BATTLE-3 `battle_survives_fortress`."""

from __future__ import annotations

import pytest

from dune_env.engine import (
    CARD,
    RESERVE,
    ConfigError,
    DecisionKind,
    Game,
    GameConfig,
    KanlyFace,
    Phase,
    Region,
    Scenario,
    Token,
)
from dune_env.engine.decisions import (
    BID_DONE,
    LAND_SMUGGLERS_LEADER,
    LAND_STOP,
    RECRUIT_STOP,
    RECRUIT_UNIT,
    bid_leader_option,
    land_option,
    unit_option,
    victim_option,
)
from dune_env.engine.events import EventKind
from dune_env.engine.map_data import DEFAULT_MAP
from dune_env.engine.state import uidx

from .common import ATR, COR, ELITE, FRE, GLD, HAR, POLAR, REG, SMG, TLX

FIVE = [ATR, HAR, FRE, COR, GLD]
SIX = [TLX, HAR, FRE, COR, GLD, SMG]


def expect(game: Game, kind: DecisionKind, faction: int | None = None) -> tuple[int, ...]:
    d = game.pending
    assert d is not None, "no decision pending"
    assert d.kind == kind, f"expected {kind.name}, pending {d.kind.name} of faction {d.faction}"
    if faction is not None:
        assert d.faction == faction, f"{kind.name} asked of {d.faction}, not {faction}"
    return d.options


def n(game: Game, faction: int, location: int, unit_type: int | None = None) -> int:
    if unit_type is None:
        return game.state.count(faction, location)
    return game.state.units[faction][uidx(location, unit_type)]


# --- CL-1 region die W/E faces ---------------------------------------------------------------


def _storm_after(region_face: int, **config: object) -> int:
    game = (
        Scenario([ATR, HAR, FRE], **config)
        .storm(3)
        .dice(region=region_face, spice=3)  # 3 shows the storm symbol (STORM-1)
        .active(ATR)
        .at(Phase.STORM)
    )
    return game.state.storm_sector


@pytest.mark.parametrize(("face", "sector"), [(1, 4), (2, 2), (3, 2), (4, 4), (5, 2), (6, 2)])
def test_cl_1_default_faces_1_and_4_show_w(face: int, sector: int) -> None:
    """CL-1: faces 1 and 4 show W (storm to sector + 1), 2, 3, 5, 6 show E (sector - 1)."""
    assert GameConfig().region_die_west_faces == (1, 4)
    assert _storm_after(face) == sector


@pytest.mark.parametrize(("face", "sector"), [(1, 2), (2, 4), (4, 2), (5, 4)])
def test_cl_1_variant_region_die_west_faces(face: int, sector: int) -> None:
    """CL-1 [variant]: `region_die_west_faces` chooses the W faces."""
    assert _storm_after(face, region_die_west_faces=(2, 5)) == sector


def test_cl_1_west_wraps_from_6_to_1_and_east_from_1_to_6() -> None:
    """CL-1 / MAP-3: the storm track is a ring."""
    west = Scenario([ATR, HAR, FRE]).storm(6).dice(region=1, spice=4).active(ATR).at(Phase.STORM)
    assert west.state.storm_sector == 1
    east = Scenario([ATR, HAR, FRE]).storm(1).dice(region=2, spice=5).active(ATR).at(Phase.STORM)
    assert east.state.storm_sector == 6


# --- CL-3 strict control ---------------------------------------------------------------------


@pytest.mark.parametrize(("strict", "wins"), [(False, True), (True, False)])
def test_cl_3_strict_control_shared_region(strict: bool, wins: bool) -> None:
    """CL-3: by default presence is control, so a region shared with an enemy still counts;
    with `strict_control` it does not."""
    game = (
        Scenario([ATR, HAR, FRE], strict_control=strict)
        .units(ATR, Region.ARRAKEEN, 1)
        .units(ATR, Region.CARTHAG, 1)
        .units(ATR, Region.TUEKS_SIETCH, 1)
        .units(HAR, Region.TUEKS_SIETCH, 2)
        .active(ATR)
        .at(Phase.END_TURN)
    )
    assert game.terminal == wins
    assert game.winners == ([0] if wins else [])


@pytest.mark.parametrize(("strict", "winners"), [(False, [0]), (True, [0, 1])])
def test_cl_3_strict_control_ally_breaks_solo_control_but_not_alliance(
    strict: bool, winners: list[int]
) -> None:
    """CL-3 [variant]: under strict control the ally's presence spoils a solo region, while an
    alliance victory (END-2) counts regions shared by the two allies."""
    game = (
        Scenario(FIVE, strict_control=strict)
        .units(ATR, Region.ARRAKEEN, 1)
        .units(ATR, Region.CARTHAG, 1)
        .units(ATR, Region.TUEKS_SIETCH, 1)
        .units(HAR, Region.TUEKS_SIETCH, 1)
        .units(HAR, Region.SIETCH_TABR, 1)
        .active(ATR)
        .ally(HAR)
        .at(Phase.END_TURN)
    )
    assert game.terminal
    assert game.winners == winners


# --- CL-4 rewards ----------------------------------------------------------------------------


def _solo_win(**config: object) -> Game:
    return (
        Scenario([ATR, HAR, FRE], **config)
        .units(ATR, Region.ARRAKEEN, 1)
        .units(ATR, Region.CARTHAG, 1)
        .units(ATR, Region.TUEKS_SIETCH, 1)
        .active(ATR)
        .at(Phase.END_TURN)
    )


def test_cl_4_default_rewards_plus_one_minus_one() -> None:
    """CL-4 / END-7: +1 to each winner, -1 to every other player."""
    assert _solo_win().rewards == [1.0, -1.0, -1.0]


def test_cl_4_configurable_win_and_loss_rewards() -> None:
    """CL-4: win_reward / loss_reward are configurable."""
    game = _solo_win(win_reward=2.5, loss_reward=-0.5)
    assert game.winners == [0]
    assert game.rewards == [2.5, -0.5, -0.5]


def test_cl_4_rewards_for_a_time_out_nobody_wins() -> None:
    """CL-4 with END-5: no Guild in the game, every player gets the loss reward."""
    game = (
        Scenario([ATR, HAR, FRE], win_reward=3.0, loss_reward=-2.0)
        .round(6)
        .first(ATR)
        .active(FRE)
        .at(Phase.END_TURN)
    )
    assert game.terminal
    assert game.winners == []
    assert game.rewards == [-2.0, -2.0, -2.0]


# --- CL-5 spending order ---------------------------------------------------------------------


def test_cl_5_corrino_spends_storage_before_pool() -> None:
    """CL-5: Corrino spends storage first, so the unspent pool converts at 2 (COR-2)."""
    game = (
        Scenario([ATR, HAR, COR], skip_forced_decisions=False)
        .units(COR, CARD, 2)
        .storage(COR, 2)
        .dice(spice=2)
        .active(COR)
        .at(Phase.LAND_START)
    )
    game.apply(land_option(POLAR, REG))
    game.apply(land_option(POLAR, REG))
    assert game.state.storage[COR] == 0
    assert game.state.pool == 2
    while game.state.active_faction == COR and game.pending is not None:
        game.apply(game.pending.options[0])
    assert game.state.storage[COR] == 4  # 2 unspent pool spice x 2


def test_cl_5_guild_spends_pool_before_storage() -> None:
    """CL-5: the Guild spends pool first (pool is lost at the end of the turn)."""
    game = (
        Scenario(FIVE)
        .units(GLD, CARD, 3)
        .storage(GLD, 2)
        .dice(spice=3)
        .active(GLD)
        .at(Phase.LAND_START)
    )
    game.apply(land_option(POLAR, REG))
    game.apply(land_option(POLAR, REG))
    assert game.state.pool == 1
    assert game.state.storage[GLD] == 2


# --- CL-6 desert landing ---------------------------------------------------------------------


@pytest.mark.parametrize("desert_landing", [False, True])
def test_cl_6_desert_landing_variant(desert_landing: bool) -> None:
    """CL-6 (rev. 2): landing into a desert region (red X) is allowed by default;
    `desert_landing=False` forbids it.  Never into the storm either way (LAND-3)."""
    game = (
        Scenario([ATR, HAR, FRE], desert_landing=desert_landing)
        .units(ATR, Region.SIETCH_TABR, 1)  # desert
        .units(ATR, Region.CIELAGO_PLAIN, 1)  # desert, in the storm
        .units(ATR, Region.ARRAKEEN, 1)  # not desert
        .units(ATR, CARD, 2)
        .storm(1)
        .dice(spice=2)
        .active(ATR)
        .at(Phase.LAND_START)
    )
    options = expect(game, DecisionKind.LAND, ATR)
    assert land_option(Region.ARRAKEEN, REG) in options
    assert land_option(POLAR, REG) in options
    assert (land_option(Region.SIETCH_TABR, REG) in options) == desert_landing
    assert land_option(Region.CIELAGO_PLAIN, REG) not in options


def test_cl_6_default_allows_desert_landing() -> None:
    """CL-6 / LAND-3 (rev. 2): the default configuration lands into desert regions."""
    assert GameConfig().desert_landing is True
    game = (
        Scenario([ATR, HAR, FRE])
        .units(ATR, Region.SIETCH_TABR, 1)
        .units(ATR, CARD, 1)
        .storm(5)
        .active(ATR)
        .at(Phase.LAND_START)
    )
    assert land_option(Region.SIETCH_TABR, REG) in expect(game, DecisionKind.LAND, ATR)


# --- TLX-4 face dancers: dice or spice -------------------------------------------------------


def _face_dancer_game(mode: str | None, pool: int) -> Game:
    config = {} if mode is None else {"face_dancers": mode}
    return (
        Scenario(SIX, **config)
        .units(TLX, Region.CARTHAG, 1)
        .leaders(TLX, 1)
        .units(HAR, Region.CARTHAG, 3)
        .dice(factions=[COR, COR, GLD, FRE])  # no Harkonnen symbol
        .pool(pool)
        .axolotl(FRE)
        .active(TLX)
        .at(Phase.BATTLE_SELECT)
    )


def test_tlx_4_face_dancers_default_is_dice() -> None:
    """TLX-4: default "dice": with no die showing the enemy's symbol, no face dancer."""
    assert GameConfig().face_dancers == "dice"
    game = _face_dancer_game(None, pool=3)
    expect(game, DecisionKind.BID, TLX)
    assert n(game, HAR, Region.CARTHAG) == 3
    assert game.state.pool == 3


def test_tlx_4_face_dancers_spice_variant_pays_one_spice_each() -> None:
    """TLX-4 [variant] face_dancers="spice": 1 spice per replacement, no dice involved."""
    game = _face_dancer_game("spice", pool=2)
    assert expect(game, DecisionKind.FACE_DANCER, TLX) == (0, unit_option(HAR, REG))
    game.apply(unit_option(HAR, REG))
    assert game.state.pool == 1
    game.apply(unit_option(HAR, REG))
    # The pool is empty: no third replacement, the bids follow.
    expect(game, DecisionKind.BID, TLX)
    assert game.state.pool == 0
    assert n(game, HAR, Region.CARTHAG) == 1
    assert n(game, HAR, RESERVE) == 11
    assert n(game, TLX, Region.CARTHAG) == 3


def test_tlx_4_face_dancers_spice_variant_needs_spice() -> None:
    game = _face_dancer_game("spice", pool=0)
    expect(game, DecisionKind.BID, TLX)
    assert n(game, HAR, Region.CARTHAG) == 3


def test_tlx_4_face_dancers_never_replace_the_allys_units() -> None:
    """TLX-4: only units of an enemy faction are replaced."""
    game = (
        Scenario(SIX, face_dancers="spice")
        .units(TLX, Region.CARTHAG, 1)
        .leaders(TLX, 1)
        .units(HAR, Region.CARTHAG, 1)
        .units(COR, Region.CARTHAG, 1)
        .pool(3)
        .axolotl(FRE)
        .active(TLX)
        .ally(HAR)
        .at(Phase.BATTLE_SELECT)
    )
    assert expect(game, DecisionKind.FACE_DANCER, TLX) == (0, unit_option(COR, REG))


# --- CL-7 landing grant to the ally ----------------------------------------------------------


def _grant_game() -> Game:
    return (
        Scenario(FIVE)
        .units(HAR, CARD, 3)
        .units(ATR, Region.ARRAKEEN, 1)
        .pool(4)
        .active(ATR)
        .ally(HAR)
        .at(Phase.LAND_START)
    )


def test_cl_7_ally_lands_within_the_granted_spice() -> None:
    """CL-7: the active player grants an amount of its pool; the ally lands within it and the
    active player pays."""
    game = _grant_game()
    assert expect(game, DecisionKind.ALLY_GRANT, ATR) == (0, 1, 2, 3, 4)
    game.apply(2)
    options = expect(game, DecisionKind.LAND, HAR)
    assert land_option(Region.ARRAKEEN, REG) in options  # where the active player has units
    game.apply(land_option(POLAR, REG))
    game.apply(land_option(Region.ARRAKEEN, REG))
    # Grant spent: the ally's landing ends although it has a unit left and the pool has 2.
    assert game.pending is None or game.pending.kind != DecisionKind.LAND
    assert n(game, HAR, CARD) == 1
    assert game.state.pool == 2


def test_cl_7_unused_grant_returns_to_the_active_player() -> None:
    game = _grant_game()
    game.apply(3)
    game.apply(land_option(POLAR, REG))
    game.apply(LAND_STOP)
    assert game.state.grant == 0
    assert game.state.pool == 3


# --- CL-8 storm: weaker unit first -----------------------------------------------------------


@pytest.mark.parametrize(("regular", "lost_type"), [(1, REG), (0, ELITE)])
def test_cl_8_storm_kills_the_weaker_unit_type_first(regular: int, lost_type: int) -> None:
    """CL-8: a faction with two unit types loses its weaker unit (not a Sardaukar) first."""
    scenario = Scenario([ATR, HAR, COR]).units(COR, Region.GREAT_FLAT, 1, ELITE)
    if regular:
        scenario.units(COR, Region.GREAT_FLAT, regular, REG)
    game = scenario.storm(3).dice(region=2, spice=3).active(ATR).at(Phase.STORM)
    assert game.state.storm_sector == 2
    assert n(game, COR, Region.GREAT_FLAT) == regular  # exactly one unit lost
    assert n(game, COR, RESERVE, lost_type) == (8 if lost_type == REG else 4)


# --- CL-9 ghola timing -----------------------------------------------------------------------


def test_cl_9_ghola_offered_after_the_recruit_step() -> None:
    """CL-9: the ghola is offered once the recruit step is over (not before recruiting)."""
    game = (
        Scenario(SIX, skip_forced_decisions=False)
        .dice(factions=[HAR, HAR, COR, COR], spice=3)
        .axolotl(HAR)
        .active(TLX)
        .at(Phase.RECRUIT_ACTIVE)
    )
    expect(game, DecisionKind.RECRUIT, TLX)
    game.apply(RECRUIT_UNIT)
    expect(game, DecisionKind.RECRUIT, TLX)
    game.apply(RECRUIT_STOP)
    expect(game, DecisionKind.GHOLA, TLX)


def test_cl_9_ghola_offered_before_a_battle() -> None:
    game = (
        Scenario(SIX, skip_forced_decisions=False)
        .units(TLX, Region.CARTHAG, 1)
        .units(HAR, Region.CARTHAG, 1)
        .pool(1)
        .axolotl(FRE)
        .active(TLX)
        .at(Phase.BATTLE_SELECT)
    )
    game.apply(Region.CARTHAG)
    expect(game, DecisionKind.GHOLA, TLX)
    game.apply(0)
    assert game.state.leaders[TLX] == [0, 1]
    expect(game, DecisionKind.BID, TLX)


def test_cl_9_no_ghola_in_another_players_turn() -> None:
    game = (
        Scenario(SIX, skip_forced_decisions=False)
        .units(HAR, Region.CARTHAG, 1)
        .units(TLX, Region.CARTHAG, 1)
        .pool(3)
        .active(HAR)
        .at(Phase.BATTLE_SELECT)
    )
    game.apply(Region.CARTHAG)
    expect(game, DecisionKind.BID, HAR)


# --- CL-10 Corrino gift timing ---------------------------------------------------------------


def test_cl_10_corrino_gift_asked_at_the_start_of_the_allys_landing_step() -> None:
    """CL-10: after the harvester income (LAND-1) and before any landing."""
    game = (
        Scenario(FIVE)
        .units(ATR, Region.ARRAKEEN, 1)
        .units(ATR, CARD, 2)
        .token(Region.ARRAKEEN, Token.HARVESTER)
        .storage(COR, 2)
        .shield(ATR)
        .dice(spice=1, kanly=KanlyFace.SHIELD)  # nothing to do in Kanly
        .active(ATR)
        .ally(COR)
        .at(Phase.KANLY)
    )
    expect(game, DecisionKind.SPICE_GIFT, COR)
    assert game.state.pool == 3  # 1 from the die + 2 from the harvester already
    assert n(game, ATR, CARD) == 2  # nothing landed yet
    game.apply(2)
    assert game.state.pool == 5
    expect(game, DecisionKind.LAND, ATR)


# --- CL-11 Smugglers' leader -----------------------------------------------------------------


def test_cl_11_smugglers_leader_bought_in_their_landing_step_only() -> None:
    """CL-11: the Smugglers' leader goes to the card for 2 spice in their own landing step,
    not when they land as someone's ally."""
    own = Scenario(SIX).units(SMG, Region.ARRAKEEN, 1).pool(2).active(SMG).at(Phase.LAND_START)
    assert LAND_SMUGGLERS_LEADER in expect(own, DecisionKind.LAND, SMG)
    as_ally = (
        Scenario(SIX)
        .units(HAR, Region.ARRAKEEN, 1)
        .pool(3)
        .active(HAR)
        .ally(SMG)
        .at(Phase.LAND_START)
    )
    expect(as_ally, DecisionKind.ALLY_GRANT, HAR)
    as_ally.apply(3)
    options = expect(as_ally, DecisionKind.LAND, SMG)
    assert LAND_SMUGGLERS_LEADER not in options
    assert land_option(POLAR, REG) in options  # from the reserve, 2 spice (SMG-1)
    as_ally.apply(land_option(POLAR, REG))
    assert as_ally.state.pool == 1


# --- CL-12 running rat -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ally", "running_rat"),
    [(SMG, True), (COR, False), (None, False)],
)
def test_cl_12_running_rat_for_an_active_player_allied_with_the_smugglers(
    ally: int | None, running_rat: bool
) -> None:
    scenario = (
        Scenario(SIX)
        .units(HAR, Region.ARRAKEEN, 1)
        .units(SMG, POLAR, 1)
        .storm(1)
        .dice(region=4)
        .active(HAR)
    )
    if ally is not None:
        scenario.ally(ally)
    game = scenario.at(Phase.MOVE_TARGET)
    options = expect(game, DecisionKind.MOVE_TARGET, HAR)
    assert (Region.MINOR_ERG in options) == running_rat
    assert Region.ARRAKEEN not in options  # occupied
    assert Region.CIELAGO_PLAIN not in options  # in the storm


# --- END-2 strict_alliance_victory (rev. 2) ---------------------------------------------------


def _alliance_with_a_shared_fifth_region(shared: int, **config: object) -> Game:
    """Atreides + Harkonnen hold 4 strategic regions alone; Harkonnen also shares `shared`
    with the Fremen.  End of the Atreides' turn."""
    return (
        Scenario(FIVE, **config)
        .units(ATR, Region.CARTHAG, 1)
        .units(ATR, Region.ARRAKEEN, 1)
        .units(HAR, Region.TUEKS_SIETCH, 1)
        .units(HAR, Region.SIETCH_TABR, 1)
        .units(HAR, shared, 1)
        .units(FRE, shared, 1)
        .ally(HAR)
        .active(ATR)
        .at(Phase.END_TURN)
    )


@pytest.mark.parametrize("strict", [False, True])
def test_end_2_strict_alliance_victory_variant(strict: bool) -> None:
    """END-2 [variant] `strict_alliance_victory` (rev. 2): with it, no alliance victory while
    either ally shares a strategic region with a third faction; by default the shared region
    is just not counted and the 4 clean regions win."""
    game = _alliance_with_a_shared_fifth_region(
        Region.HABBANYA_SIETCH, strict_alliance_victory=strict
    )
    assert GameConfig().strict_alliance_victory is False
    assert game.terminal is not strict
    assert game.winners == ([] if strict else [0, 1])


def test_end_2_strict_alliance_victory_ignores_shared_non_strategic_regions() -> None:
    """END-2 [variant] `strict_alliance_victory`: only strategic regions matter."""
    game = _alliance_with_a_shared_fifth_region(Region.BROKEN_LAND, strict_alliance_victory=True)
    assert game.winners == [0, 1]


def test_end_2_strict_alliance_victory_does_not_touch_solo_victory() -> None:
    """END-1 before END-2 (END-3): the strict variant does not stop a solo victory."""
    game = (
        Scenario(FIVE, strict_alliance_victory=True)
        .units(ATR, Region.CARTHAG, 1)
        .units(ATR, Region.ARRAKEEN, 1)
        .units(ATR, Region.SIETCH_TABR, 1)
        .units(FRE, Region.SIETCH_TABR, 1)
        .units(HAR, Region.TUEKS_SIETCH, 1)
        .ally(HAR)
        .active(ATR)
        .at(Phase.END_TURN)
    )
    assert game.winners == [0]


# --- SMG-1 smugglers_land_anywhere (rev. 2) ---------------------------------------------------


def _smugglers_landing(**config: object) -> Game:
    """Smugglers hold only Arrakeen; Harkonnen hold Carthag; storm on sector 2."""
    return (
        Scenario(SIX, **config)
        .units(SMG, Region.ARRAKEEN, 1)
        .units(HAR, Region.CARTHAG, 1)
        .storm(2)
        .pool(5)
        .active(SMG)
        .at(Phase.LAND_START)
    )


def test_smg_1_default_lands_only_where_the_smugglers_are() -> None:
    """SMG-1 default: 1 spice per unit "anywhere else allowed" (LAND-2..4), i.e. where the
    Smugglers already have units; 2 onto the Polar Cap."""
    options = set(expect(_smugglers_landing(), DecisionKind.LAND, SMG))
    regions = {o for o in options if o >= 2}
    assert regions == {land_option(Region.ARRAKEEN, REG), land_option(POLAR, REG)}
    assert GameConfig().smugglers_land_anywhere is False


@pytest.mark.parametrize("desert_landing", [True, False])
def test_smg_1_variant_smugglers_land_anywhere(desert_landing: bool) -> None:
    """SMG-1 [variant] `smugglers_land_anywhere`: any region not under the storm, whoever is
    there (an enemy's, an empty one), 1 spice a unit; desert regions per CL-6; the Polar Cap
    still costs 2; never the storm (LAND-3)."""
    game = _smugglers_landing(smugglers_land_anywhere=True, desert_landing=desert_landing)
    options = set(expect(game, DecisionKind.LAND, SMG))
    storm = {Region.GREAT_FLAT, Region.HABBANYA_SIETCH}  # sector 2
    expected = {
        land_option(r, REG)
        for r in range(10)
        if r not in storm and (desert_landing or not DEFAULT_MAP.desert[r])
    }
    assert {o for o in options if o >= 2} == expected
    s = game.state
    game.apply(land_option(Region.CARTHAG, REG))  # the Harkonnen's region
    assert s.pool == 4 and s.count(SMG, Region.CARTHAG) == 1
    game.apply(land_option(Region.MINOR_ERG, REG))  # an empty region
    assert s.pool == 3 and s.count(SMG, Region.MINOR_ERG) == 1
    game.apply(land_option(POLAR, REG))
    assert s.pool == 1 and s.count(SMG, POLAR) == 1


def test_smg_1_variant_needs_no_landing_consent_from_the_ally() -> None:
    """SMG-1 [variant] with LAND-4: the Smugglers can land in their ally's region anyway, so
    the ally's consent is not asked."""
    game = (
        Scenario(SIX, smugglers_land_anywhere=True)
        .units(SMG, Region.ARRAKEEN, 1)
        .units(HAR, Region.CARTHAG, 1)
        .pool(3)
        .active(SMG)
        .ally(HAR)
        .at(Phase.LAND_START)
    )
    assert land_option(Region.CARTHAG, REG) in expect(game, DecisionKind.LAND, SMG)
    assert DecisionKind.LAND_CONSENT not in [row[1] for row in game.state.history[1:]]


# --- BATTLE-3 the fortress and the attacker's last own unit -------------------------------------


def _fortress_takes_the_last_atreides_unit(survives: bool, ally_units: int) -> Game:
    """Atreides (active, its leader on the card) attacks Carthag's fortress with 1 unit and its
    Corrino ally's `ally_units` (the Corrino leader on its card), against 2 Harkonnen units;
    the fortress takes the Atreides unit."""
    game = (
        Scenario(FIVE, battle_survives_fortress=survives)
        .ally(COR)
        .token(Region.CARTHAG, Token.FORTRESS)
        .units(ATR, Region.CARTHAG, 1)
        .units(COR, Region.CARTHAG, ally_units)
        .units(HAR, Region.CARTHAG, 2)
        .leaders(ATR, 1)
        .leaders(COR, 1)
        .leaders(HAR, 0)
        .active(ATR)
        .at(Phase.BATTLE_SELECT)
    )
    if ally_units:
        assert victim_option(ATR, REG) in expect(game, DecisionKind.FORTRESS_VICTIM, ATR)
        game.apply(victim_option(ATR, REG))
    # (with no ally unit there, the Atreides unit is the only victim: the engine removes it)
    fortress = [e[1:] for e in game.state.events if e[0] == EventKind.FORTRESS]
    assert fortress == [(Region.CARTHAG, ATR, REG)]
    assert n(game, ATR, Region.CARTHAG) == 0
    assert game.state.region_token[Region.CARTHAG] == -1  # the fortress went to the supply
    return game


def _battles(game: Game) -> list[tuple[int, ...]]:
    return [e[1:] for e in game.state.events if e[0] == EventKind.BATTLE_RESULT]


def test_battle_3_default_the_fortress_taking_the_last_own_unit_ends_the_battle() -> None:
    """BATTLE-3, default reading: once the fortress has removed the active player's last own
    unit, no battle is left in the region, though the ally's units and its leader remain."""
    game = _fortress_takes_the_last_atreides_unit(survives=False, ally_units=2)
    assert _battles(game) == []
    assert game.state.battle_region == -1
    assert n(game, COR, Region.CARTHAG) == 2 and n(game, HAR, Region.CARTHAG) == 2
    assert game.pending is None or game.pending.kind not in (
        DecisionKind.LEND_LEADER,
        DecisionKind.BID,
    )


def test_battle_3_variant_the_battle_survives_the_fortress_with_the_allys_units() -> None:
    """BATTLE-3, `battle_survives_fortress=True` (the Czech p. 6: the battle is decided before
    the fortress acts, and nothing cancels it): the ally's units fight on, with the attacker's
    own leader and the leader the ally lends (BATTLE-4)."""
    game = _fortress_takes_the_last_atreides_unit(survives=True, ally_units=2)
    expect(game, DecisionKind.LEND_LEADER, COR)
    game.apply(1)  # the Corrino lend their leader
    options = expect(game, DecisionKind.BID, ATR)
    assert set(options) == {
        BID_DONE,
        unit_option(COR, REG),
        bid_leader_option(ATR),
        bid_leader_option(COR),
    }
    for option in (unit_option(COR, REG), unit_option(COR, REG), bid_leader_option(ATR)):
        game.apply(option)
    game.apply(BID_DONE)
    expect(game, DecisionKind.BID, HAR)
    game.apply(unit_option(HAR, REG))
    game.apply(unit_option(HAR, REG))
    if game.pending is not None and game.pending.kind == DecisionKind.BID:
        game.apply(BID_DONE)
    # 2 Corrino units + Atreides leader 3 = 5 against 2: the attacker wins, Harkonnen is out.
    assert _battles(game) == [(Region.CARTHAG, 5, 2, 0)]
    assert n(game, HAR, Region.CARTHAG) == 0


def test_battle_3_variant_a_lent_leader_alone_fights_on() -> None:
    """BATTLE-3, `battle_survives_fortress=True`: with no attacking unit left at all, the
    battle still takes place; a lent leader (BATTLE-4) may win it. By default it would not."""
    assert _battles(_fortress_takes_the_last_atreides_unit(survives=False, ally_units=0)) == []
    game = _fortress_takes_the_last_atreides_unit(survives=True, ally_units=0)
    expect(game, DecisionKind.LEND_LEADER, COR)
    game.apply(1)
    assert set(expect(game, DecisionKind.BID, ATR)) == {
        BID_DONE,
        bid_leader_option(ATR),
        bid_leader_option(COR),
    }
    game.apply(bid_leader_option(COR))  # Corrino's Shaddam IV, strength 3
    game.apply(BID_DONE)
    game.apply(unit_option(HAR, REG))
    if game.pending is not None and game.pending.kind == DecisionKind.BID:
        game.apply(BID_DONE)
    assert _battles(game) == [(Region.CARTHAG, 3, 1, 0)]
    assert n(game, HAR, Region.CARTHAG) == 0  # the loser's uncommitted unit is lost too


def test_battle_3_variant_survives_a_snapshot_and_is_off_in_old_snapshots() -> None:
    """BATTLE-3: the flag is part of the configuration in snapshots; a snapshot written before
    it existed (no such key) plays by the default reading."""
    config = GameConfig(num_players=5, battle_survives_fortress=True)
    game = Game(config, seed=3)
    assert Game.from_json(game.to_json()).config == config
    old = game.snapshot()
    del old["config"]["battle_survives_fortress"]
    assert Game.restore(old).config.battle_survives_fortress is False


# --- configuration of the rev. 2 variants ------------------------------------------------------

REV2_FLAGS = ("guild_income_per_lander", "strict_alliance_victory", "smugglers_land_anywhere")


@pytest.mark.parametrize("name", ("desert_landing", "battle_survives_fortress", *REV2_FLAGS))
@pytest.mark.parametrize("bad", ["yes", 1, None])
def test_variant_flags_must_be_booleans(name: str, bad: object) -> None:
    """GLD-1 / END-2 / SMG-1 / CL-6 variants: a non-bool value is a ConfigError naming it."""
    with pytest.raises(ConfigError, match=f"{name} must be True or False"):
        GameConfig(**{name: bad})


def test_rev2_variants_survive_a_snapshot_round_trip() -> None:
    """GLD-1 / END-2 / SMG-1 / CL-6: the flags are part of the configuration in snapshots."""
    config = GameConfig(
        num_players=6,
        desert_landing=False,
        guild_income_per_lander=True,
        strict_alliance_victory=True,
        smugglers_land_anywhere=True,
    )
    game = Game(config, seed=3)
    assert Game.from_json(game.to_json()).config == config
