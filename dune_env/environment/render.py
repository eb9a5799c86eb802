"""Rendering of a game state: text ("ansi", "human") and a picture of the map ("rgb_array").

Both show public information only: never the Bene Gesserit prediction nor a bid in progress
(what is hidden from whom is defined in `dune_env.engine.information`; a test checks that a
rendering equals that of the position with every secret re-drawn by its `resample`).
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import TypeAlias

import numpy as np
from PIL import Image, ImageDraw, ImageFont

from ..engine.constants import (
    CARD,
    FACTION_DIE_SYMBOLS,
    FACTION_NAMES,
    MAX_ROUNDS,
    NO_ONE,
    NUM_UNIT_TYPES,
    RESERVE,
    TOKEN_NAMES,
)
from ..engine.decisions import DecisionKind
from ..engine.events import describe_dice
from ..engine.map_data import DEFAULT_MAP
from ..engine.state import GameState, Phase, uidx

MAP = DEFAULT_MAP
TOKEN_LETTERS = ("F", "H", "O")
SHORT_FACTION_NAMES = ("Atr", "Hark", "Frem", "Tlx", "Corr", "Guild", "BG", "Smug")
FACTION_COLOURS: tuple[tuple[int, int, int], ...] = (
    (46, 139, 87),  # Atreides: green
    (178, 34, 34),  # Harkonnen: red
    (210, 180, 40),  # Fremen: yellow
    (120, 120, 120),  # Tleilax: grey
    (200, 90, 20),  # Corrino: orange
    (70, 90, 200),  # Guild: blue
    (140, 60, 170),  # Bene Gesserit: purple
    (40, 40, 40),  # Smugglers: black
)


# --- text ------------------------------------------------------------------------------------


def _seat_text(state: GameState, seat: int) -> str:
    if seat < 0:
        return "-"
    faction = state.seat_faction[seat]
    return f"seat {seat} ({FACTION_NAMES[faction] if faction >= 0 else 'undrafted'})"


def _faction_text(state: GameState, faction: int) -> str:
    if faction == NO_ONE:
        return "common supply"
    return f"{FACTION_NAMES[faction]} (seat {state.faction_seat[faction]})"


def units_text(state: GameState, region: int) -> str:
    """The units in `region` by faction, e.g. "Atr 2+1S, Hark 3" (+nS: elite); "-" if none."""
    parts = []
    for faction in range(len(FACTION_NAMES)):
        u = state.units[faction]
        regular, elite = u[uidx(region, 0)], u[uidx(region, 1)]
        if regular or elite:
            parts.append(
                f"{SHORT_FACTION_NAMES[faction]} {regular}" + (f"+{elite}S" if elite else "")
            )
    return ", ".join(parts) or "-"


def render_ansi(state: GameState) -> str:
    """A plain-text picture of the public state."""
    s = state
    lines = []
    lines.append(
        f"Dune - round {s.round}/{MAX_ROUNDS}, storm over sector {s.storm_sector}, "
        f"phase {Phase(s.phase).name}"
    )
    lines.append(
        f"Active: {_seat_text(s, s.active_seat)}   first player: seat {s.first_seat}   "
        f"ally: {FACTION_NAMES[s.ally] if s.ally >= 0 else '-'}   pool: {s.pool}"
    )
    fixed = "".join("x" if f else "." for f in s.dice_fixed)
    lines.append(f"Dice: {describe_dice(s.dice_faces)}   fixed [{fixed}]")
    supply = ", ".join(f"{TOKEN_NAMES[t]} {n}" for t, n in enumerate(s.token_supply))
    lines.append(
        f"Supply: {supply}; Thumpers {s.thumper_supply}; Shield: "
        f"{_faction_text(s, s.shield_holder)}; Snooper: {_faction_text(s, s.snooper_holder)}"
    )
    lines.append("")
    lines.append(f"{'Region':<16}{'Sec':>4}  {'Token':<12}Units")
    for region in range(MAP.num_regions):
        sector = MAP.sectors[region]
        token = s.region_token[region]
        flags = ("*" if MAP.strategic[region] else " ") + ("~" if sector == s.storm_sector else " ")
        lines.append(
            f"{MAP.names[region]:<16}{sector if sector else '-':>4}{flags}"
            f"{TOKEN_NAMES[token] if token >= 0 else '-':<12}{units_text(s, region)}"
        )
    lines.append("(* strategic, ~ in the storm)")
    lines.append("")
    lines.append(f"{'Seat':<5}{'Faction':<15}{'Card':>5}{'Reserve':>8}{'Leaders':>9}  Extra")
    for seat, faction in enumerate(s.seat_faction):
        if faction < 0:
            lines.append(f"{seat:<5}{'(undrafted)':<15}")
            continue
        u = s.units[faction]
        card = u[uidx(CARD, 0)] + u[uidx(CARD, 1)]
        reserve = u[uidx(RESERVE, 0)] + u[uidx(RESERVE, 1)]
        leaders = f"{s.leaders[faction][0]}/{s.leaders[faction][1]}"
        extra = []
        if s.storage[faction]:
            extra.append(f"storage {s.storage[faction]}")
        if s.thumpers[faction]:
            extra.append("Thumper")
        lines.append(
            f"{seat:<5}{FACTION_NAMES[faction]:<15}{card:>5}{reserve:>8}{leaders:>9}  "
            + ", ".join(extra)
        )
    lines.append("(leaders: on card / in reserve)")
    lb = s.last_battle
    if lb is not None:
        lines.append(
            f"Last battle: {MAP.names[lb.region]}, {FACTION_NAMES[lb.attacker]} "
            f"{lb.attacker_strength} against {FACTION_NAMES[lb.defender]} "
            f"{lb.defender_strength}, the {('attacker', 'defender')[lb.winner_side]} won."
        )
    lines.append("")
    if s.phase == Phase.GAME_OVER:
        winners = ", ".join(_seat_text(s, seat) for seat in s.winners) or "nobody"
        lines.append(f"Game over. Winners: {winners}. Rewards: {list(s.rewards)}")
    elif s.pending_kind >= 0:
        lines.append(
            f"Pending: {_seat_text(s, s.pending_seat)} decides "
            f"{DecisionKind(s.pending_kind).name}"
            + (f" (battle in {MAP.names[s.battle_region]})" if s.battle_region >= 0 else "")
        )
    return "\n".join(lines)


# --- picture ------------------------------------------------------------------------------------

_MAP_SIZE = 560
_PANEL = 360
_HEIGHT = 660
_CENTRE = _MAP_SIZE / 2
R_POLAR = 72
_R_MID = 168
R_OUTER = 258
_DESERT = (222, 184, 120)
_ROCK = (176, 140, 100)
_POLAR = (235, 235, 245)
_BG = (250, 246, 236)
_FONT_SIZE = 15
_SMALL_FONT_SIZE = 13
_BOX_W, _BOX_H, _BOX_GAP = 30, 18, 2


def region_geometry(region: int) -> tuple[float, float, float, float]:
    """(start angle, end angle, inner radius, outer radius) of a region; PIL angles (degrees,
    clockwise from east).  Sector 1 is at the top, sectors follow clockwise."""
    sector = MAP.sectors[region]
    start = -120 + (sector - 1) * 60
    shared = [r for r in MAP.regions_in_sector(sector) if r != region]
    if not shared:
        return start, start + 60, R_POLAR, R_OUTER
    inner = MAP.polar_cap in MAP.adjacency[region]
    return (start, start + 60, R_POLAR, _R_MID) if inner else (start, start + 60, _R_MID, R_OUTER)


def anchor(region: int) -> tuple[float, float]:
    if region == MAP.polar_cap:
        return _CENTRE, _CENTRE - 28
    a0, a1, r0, r1 = region_geometry(region)
    angle = math.radians((a0 + a1) / 2)
    radius = r0 + (r1 - r0) * 0.5
    return _CENTRE + radius * math.cos(angle), _CENTRE + radius * math.sin(angle)


Font: TypeAlias = ImageFont.ImageFont | ImageFont.FreeTypeFont


@lru_cache(maxsize=4)
def _font(size: int = _FONT_SIZE) -> Font:
    """Pillow's bundled scalable font at a readable size (the bitmap fallback without FreeType)."""
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError, ImportError):  # pragma: no cover - Pillow built without FreeType
        return ImageFont.load_default()


def unit_box(region: int, index: int) -> tuple[float, float, float, float]:
    """The (x0, y0, x1, y1) box of the `index`-th faction present in `region` (faction order),
    three boxes a row under the region's name."""
    x, y = anchor(region)
    col, row = index % 3, index // 3
    bx = x - (3 * _BOX_W + 2 * _BOX_GAP) / 2 + col * (_BOX_W + _BOX_GAP)
    by = y - 2 + row * (_BOX_H + _BOX_GAP)
    return bx, by, bx + _BOX_W, by + _BOX_H


def _ring_segment(
    draw: ImageDraw.ImageDraw,
    a0: float,
    a1: float,
    r0: float,
    r1: float,
    fill: tuple[int, ...],
    outline: tuple[int, int, int],
    width: int = 1,
) -> None:
    steps = 24
    points = []
    for i in range(steps + 1):
        a = math.radians(a0 + (a1 - a0) * i / steps)
        points.append((_CENTRE + r1 * math.cos(a), _CENTRE + r1 * math.sin(a)))
    for i in range(steps, -1, -1):
        a = math.radians(a0 + (a1 - a0) * i / steps)
        points.append((_CENTRE + r0 * math.cos(a), _CENTRE + r0 * math.sin(a)))
    draw.polygon(points, fill=fill, outline=outline, width=width)


@lru_cache(maxsize=1)
def _background() -> Image.Image:
    image = Image.new("RGB", (_MAP_SIZE + _PANEL, _HEIGHT), _BG)
    draw = ImageDraw.Draw(image)
    font = _font()
    for region in range(MAP.num_regions):
        if region == MAP.polar_cap:
            continue
        a0, a1, r0, r1 = region_geometry(region)
        fill = _DESERT if MAP.desert[region] else _ROCK
        strategic = MAP.strategic[region]
        _ring_segment(
            draw,
            a0,
            a1,
            r0,
            r1,
            fill,
            (120, 80, 20) if strategic else (90, 70, 50),
            3 if strategic else 1,
        )
    c = _CENTRE
    draw.ellipse(
        (c - R_POLAR, c - R_POLAR, c + R_POLAR, c + R_POLAR), fill=_POLAR, outline=(90, 90, 110)
    )
    for sector in range(1, 7):
        angle = math.radians(-90 + (sector - 1) * 60)
        x = c + (R_OUTER + 12) * math.cos(angle)
        y = c + (R_OUTER + 12) * math.sin(angle)
        draw.text((x, y), str(sector), fill=(60, 60, 60), font=font, anchor="mm")
    for region in range(MAP.num_regions):
        x, y = anchor(region)
        name = MAP.names[region] + (" *" if MAP.strategic[region] else "")
        draw.text((x, y - 14), name, fill=(30, 30, 30), font=font, anchor="mm")
    _legend(draw, 8, _MAP_SIZE + 2)
    return image


def _legend(draw: ImageDraw.ImageDraw, x: float, y: float) -> None:
    """The key under the map: faction colours, token letters, strategic and storm marks."""
    font = _font(_SMALL_FONT_SIZE)
    for faction, name in enumerate(FACTION_NAMES):
        bx = x + (faction % 4) * 138
        by = y + (faction // 4) * 20
        draw.rectangle((bx, by, bx + 14, by + 14), fill=FACTION_COLOURS[faction], outline=(0, 0, 0))
        draw.text((bx + 20, by), name, fill=(0, 0, 0), font=font)
    y += 44
    draw.text(
        (x, y),
        "Tokens: F Fortress, H Harvester, O Ornithopter.  * strategic region (thick border).  "
        "Shaded sector: the storm.",
        fill=(0, 0, 0),
        font=font,
    )
    draw.text(
        (x, y + 18),
        "Unit boxes: units per faction (a+b: a units + b Sardaukar).  Thick die: fixed.",
        fill=(0, 0, 0),
        font=font,
    )
    draw.text(
        (x, y + 36),
        "Seats: st storage, T Thumper, Sh Shield, Sn Snooper; leaders on the card.",
        fill=(0, 0, 0),
        font=font,
    )


def render_rgb(state: GameState) -> np.ndarray:
    """An HxWx3 uint8 picture: the ten regions (strategic ones outlined thick, * after the
    name), the storm sector hatched, property tokens (F/H/O), unit counts per faction (colour
    squares; "+nS" Sardaukar), and a side panel with the round, dice, pool and each seat."""
    s = state
    image = _background().copy()
    draw = ImageDraw.Draw(image, "RGBA")
    font = _font()
    _draw_map(draw, s, font)
    # side panel
    px = _MAP_SIZE + 8
    y = _draw_dice_and_pool(draw, s, font, px, 8)
    y = _draw_seats(draw, s, font, px, y) + 6
    draw.text((px, y), _status_line(s), fill=(0, 0, 0), font=font)
    return np.asarray(image, dtype=np.uint8).copy()


def _draw_map(draw: ImageDraw.ImageDraw, s: GameState, font: Font) -> None:
    """The storm sector hatched, and in each region its property token and unit counts."""
    # storm
    start = -120 + (s.storm_sector - 1) * 60
    _ring_segment(draw, start, start + 60, R_POLAR, R_OUTER, (60, 60, 90, 90), (40, 40, 70))
    for region in range(MAP.num_regions):
        x, y = anchor(region)
        token = s.region_token[region]
        if token >= 0:
            draw.ellipse((x - 10, y - 46, x + 10, y - 26), fill=(255, 255, 255), outline=(0, 0, 0))
            draw.text((x, y - 36), TOKEN_LETTERS[token], fill=(0, 0, 0), font=font, anchor="mm")
        index = 0
        for faction in range(len(FACTION_NAMES)):
            u = s.units[faction]
            regular, elite = u[uidx(region, 0)], u[uidx(region, 1)]
            if not regular and not elite:
                continue
            bx0, by0, bx1, by1 = unit_box(region, index)
            draw.rectangle((bx0, by0, bx1, by1), fill=FACTION_COLOURS[faction], outline=(0, 0, 0))
            label = str(regular) if not elite else f"{regular}+{elite}"
            draw.text(
                ((bx0 + bx1) / 2, (by0 + by1) / 2),
                label,
                fill=(255, 255, 255),
                font=font,
                anchor="mm",
            )
            index += 1


def _draw_dice_and_pool(
    draw: ImageDraw.ImageDraw, s: GameState, font: Font, px: int, y: int
) -> int:
    """The panel's first lines from `y`: round and storm, dice, pool and target; the y after."""
    draw.text(
        (px, y),
        f"Round {s.round}/{MAX_ROUNDS}   storm: sector {s.storm_sector}",
        fill=(0, 0, 0),
        font=font,
    )
    y += 22
    faces = s.dice_faces
    draw.text((px, y), "Dice:", fill=(0, 0, 0), font=font)
    for die in range(4):
        faction = FACTION_DIE_SYMBOLS[faces[die]]
        bx = px + 48 + die * 36
        draw.rectangle(
            (bx, y - 1, bx + 32, y + 18),
            fill=FACTION_COLOURS[faction],
            outline=(0, 0, 0),
            width=3 if s.dice_fixed[die] else 1,
        )
        draw.text(
            (bx + 16, y + 9),
            SHORT_FACTION_NAMES[faction][:2],
            fill=(255, 255, 255),
            font=font,
            anchor="mm",
        )
    y += 24
    spice = "worm" if faces[5] == 5 else str(faces[5] + 1)
    kanly = ("Poison", "Crysknife", "Hunter", "Snooper", "Shield", "Thumper")[faces[6]]
    draw.text(
        (px, y), f"region {faces[4] + 1}  spice {spice}  Kanly {kanly}", fill=(0, 0, 0), font=font
    )
    y += 22
    draw.text(
        (px, y),
        f"pool {s.pool}   target {MAP.names[s.target] if s.target >= 0 else '-'}",
        fill=(0, 0, 0),
        font=font,
    )
    return y + 28


def _draw_seats(draw: ImageDraw.ImageDraw, s: GameState, font: Font, px: int, y: int) -> int:
    """Each seat's faction, marks and units from `y` down; the y after them."""
    small = _font(_SMALL_FONT_SIZE)
    for seat, faction in enumerate(s.seat_faction):
        colour = FACTION_COLOURS[faction] if faction >= 0 else (200, 200, 200)
        draw.rectangle((px, y + 1, px + 14, y + 15), fill=colour, outline=(0, 0, 0))
        name = FACTION_NAMES[faction] if faction >= 0 else "(undrafted)"
        marks = ""
        if seat == s.active_seat:
            marks += " <active"
        if s.ally >= 0 and faction == s.ally:
            marks += " (ally)"
        draw.text((px + 20, y), f"{seat} {name}{marks}", fill=(0, 0, 0), font=font)
        y += 18
        if faction >= 0:
            u = s.units[faction]
            card = sum(u[uidx(CARD, t)] for t in range(NUM_UNIT_TYPES))
            reserve = sum(u[uidx(RESERVE, t)] for t in range(NUM_UNIT_TYPES))
            extra = f" st{s.storage[faction]}" if s.storage[faction] else ""
            if s.thumpers[faction]:
                extra += " T"
            if s.shield_holder == faction:
                extra += " Sh"
            if s.snooper_holder == faction:
                extra += " Sn"
            draw.text(
                (px + 20, y),
                f"card {card}  reserve {reserve}  leaders {s.leaders[faction][0]}{extra}",
                fill=(60, 60, 60),
                font=small,
            )
            y += 19
    return y


def _status_line(s: GameState) -> str:
    """Who won, or whose decision is pending."""
    if s.phase == Phase.GAME_OVER:
        return (
            "Game over: "
            + (", ".join(f"seat {w}" for w in s.winners) if s.winners else "nobody")
            + " won"
        )
    elif s.pending_kind >= 0:
        return f"seat {s.pending_seat}: {DecisionKind(s.pending_kind).name}"
    else:
        return ""
