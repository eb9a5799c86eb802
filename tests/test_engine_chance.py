"""Counter-based chance (docs/engine.md, Chance): an outcome depends on the deal's seed and on
where it happens, not on the choices made before it, so duplicate deals share their dice."""

from __future__ import annotations

import random

from dune_env.engine import Game, GameConfig
from dune_env.engine.events import EventKind
from dune_env.engine.rng import ChanceRng


def play(seed: int, choice_seed: int, factions: tuple[int, ...] = (0, 1, 2, 5)) -> Game:
    chooser = random.Random(choice_seed)
    config = GameConfig(num_players=4, faction_mode="assigned", factions=factions)
    game = Game(config, seed=seed)
    while not game.terminal:
        game.apply(chooser.choice(game.legal_options()))
    return game


def turn_rolls(game: Game) -> dict[tuple[int, int], list[tuple[tuple[int, ...], int]]]:
    """{(round, seat): [(faces, mask of the dice rolled), ...]} from the event log."""
    rolls: dict[tuple[int, int], list[tuple[tuple[int, ...], int]]] = {}
    turn = (0, 0)
    for event in game.state.events:
        if event[0] == EventKind.TURN_START:
            turn = (event[1], event[2])
            rolls[turn] = []
        elif event[0] == EventKind.ROLL:
            rolls[turn].append((tuple(event[1:8]), event[8]))
    return rolls


def test_same_deal_different_choices_share_each_turns_dice() -> None:
    """ROLL-1: the opening roll of a turn is the same in two games of one deal whatever was
    chosen before, and so is every die rerolled at the same roll index of that turn."""
    for seed in (3, 17, 40):
        a, b = play(seed, 1), play(seed, 2)
        assert a.chosen_options() != b.chosen_options()  # the choices really differ
        rolls_a, rolls_b = turn_rolls(a), turn_rolls(b)
        common = set(rolls_a) & set(rolls_b)
        assert len(common) >= 4
        rerolls_compared = 0
        for turn in common:
            (first_a, mask_a), (first_b, mask_b) = rolls_a[turn][0], rolls_b[turn][0]
            assert mask_a == mask_b == 0b1111111
            assert first_a == first_b, f"seed {seed}, turn {turn}"
            for (faces_a, m_a), (faces_b, m_b) in zip(
                rolls_a[turn][1:], rolls_b[turn][1:], strict=False
            ):
                for die in range(7):
                    if m_a & m_b & (1 << die):
                        assert faces_a[die] == faces_b[die]
                        rerolls_compared += 1
        # the set-up (SETUP-1, -2, -4) is the same too
        setup_end = [e[0] for e in a.state.events].index(EventKind.FIRST_PLAYER) + 1
        assert setup_end >= 3
        assert a.state.events[:setup_end] == b.state.events[:setup_end]
    assert rerolls_compared > 0


def test_the_same_deal_shares_chance_across_seat_rotations() -> None:
    """A duplicate deal (same seed and factions per seat) played by other players keeps its
    dice: the chance outcome does not depend on who sits where."""
    a, b = play(9, 5), play(9, 6)
    assert turn_rolls(a)[(1, a.state.first_seat)][0] == turn_rolls(b)[(1, b.state.first_seat)][0]


def test_different_seeds_give_different_dice() -> None:
    games = [play(seed, 1) for seed in range(6)]
    firsts = {turn_rolls(g)[(1, g.state.first_seat)][0] for g in games}
    assert len(firsts) == 6


def test_chance_outcomes_are_uniform_and_keyed() -> None:
    rng = ChanceRng(123)
    event = rng.prefix(5, 1, 2, 0)
    assert event == ChanceRng(123).prefix(5, 1, 2, 0)
    assert event != rng.prefix(5, 1, 3, 0) and event != ChanceRng(124).prefix(5, 1, 2, 0)
    counts = [0] * 6
    for i in range(6000):
        counts[rng.below(6, rng.prefix(7, i))] += 1
    assert all(900 < c < 1100 for c in counts)


def test_forced_outcomes_come_first() -> None:
    rng = ChanceRng(1, forced=[4, 2])
    event = rng.prefix(1)
    assert [rng.below(6, event, i) for i in range(2)] == [4, 2]
    assert rng.below(6, event, 2) == ChanceRng(1).below(6, event, 2)


def test_snapshot_keeps_the_turn_roll_counter() -> None:
    game = play(5, 3)
    mid = Game(game.config, seed=5)
    chooser = random.Random(3)
    for _ in range(30):
        mid.apply(chooser.choice(mid.legal_options()))
    restored = Game.from_json(mid.to_json())
    assert restored.state.rng.turn_roll == mid.state.rng.turn_roll
    while not mid.terminal:
        option = chooser.choice(mid.legal_options())
        mid.apply(option)
        restored.apply(option)
    assert restored.to_json() == mid.to_json() == game.to_json()


# --- the generator's arithmetic: SplitMix64 by the plain formulas, written out here ---------------

_MASK64 = (1 << 64) - 1
_GOLDEN = 0x9E3779B97F4A7C15


def _splitmix_finaliser(z: int) -> int:
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK64
    return z ^ (z >> 31)


def _reference_prefix(seed: int, *where: int) -> int:
    z = _splitmix_finaliser((seed + _GOLDEN) & _MASK64)
    for k in where:
        z = _splitmix_finaliser(((z ^ k) + _GOLDEN) & _MASK64)
    return z


def _reference_below(n: int, prefix: int, index: int) -> int:
    return (_splitmix_finaliser(((prefix ^ index) + _GOLDEN) & _MASK64) * n) >> 64


def test_the_32_bit_halves_compute_splitmix64_bit_for_bit() -> None:
    """The dice of ROLL-1 (and every other draw) come from SplitMix64: the halves' route that
    the compiled build takes (`_mix2`, `_add_golden`, `_below`, `_pack`) equals the plain
    64-bit formulas on edge values and random ones (on both builds: `make test` runs this file
    on pure Python too)."""
    from dune_env.engine import rng

    chooser = random.Random(11)
    values = [0, 1, _MASK64, 1 << 63, (1 << 63) - 1, (1 << 32) - 1, 1 << 32]
    values += [chooser.getrandbits(64) for _ in range(3000)]
    for z in values:
        h, lo = rng._mix2(z >> 32, z & 0xFFFFFFFF)
        assert h * (1 << 32) + lo == _splitmix_finaliser(z), z
        h, lo = rng._add_golden(z >> 32, z & 0xFFFFFFFF)
        assert h * (1 << 32) + lo == (z + _GOLDEN) & _MASK64, z
        packed = rng._pack(z >> 32, z & 0xFFFFFFFF)
        assert -(1 << 63) <= packed < (1 << 63) and packed & _MASK64 == z, z
        for n in (1, 2, 6, 8, 1000, (1 << 31) - 1, 1 << 31, 1 << 40):
            assert rng._below(n, z >> 32, z & 0xFFFFFFFF) == (z * n) >> 64, (z, n)
        assert rng._mix(z) == _splitmix_finaliser(z)


def test_chance_outcomes_equal_the_reference_formulas() -> None:
    """ChanceRng's events and outcomes, by whichever route this build takes, are the reference
    SplitMix64 hash of (seed, coordinates, index): `prefix` gives the 64-bit hash as a signed
    64-bit value, `below` the multiply-shift of the outcome's hash."""
    chooser = random.Random(12)
    for seed in [0, 1, _MASK64, 1 << 63] + [chooser.getrandbits(64) for _ in range(100)]:
        chance = ChanceRng(seed)
        for _ in range(10):
            where = [chooser.randrange(60) for _ in range(chooser.randrange(5))]
            event = chance.prefix(*where)
            expected = _reference_prefix(seed, *where)
            assert -(1 << 63) <= event < (1 << 63) and event & _MASK64 == expected
            for index in range(8):
                for n in (1, 3, 6, 8, 1 << 33):
                    assert chance.below(n, event, index) == _reference_below(n, expected, index)


def test_the_sequential_generator_is_splitmix64() -> None:
    """DiceRng (policies' tie-breaks, determinisation) is the SplitMix64 stream of its seed."""
    from dune_env.engine.rng import DiceRng

    for seed in (0, 7, _MASK64, 1 << 63):
        dice, state = DiceRng(seed), seed
        for n in (6, 1, 8, 1_000_000, 1 << 40, 6):
            state = (state + _GOLDEN) & _MASK64
            assert dice.below(n) == (_splitmix_finaliser(state) * n) >> 64
            assert dice.state == state
        state = (state + _GOLDEN) & _MASK64
        assert dice.next_u64() == _splitmix_finaliser(state)
