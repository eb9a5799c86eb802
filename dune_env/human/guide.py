"""What `dune-play` tells a newcomer, in one place for the terminal and the web page.

- `decision_title(kind)`, `explain(kind)`: a decision's name for people and one line on what it
  means, with its rule IDs (the decision's `DecisionSpec.rules`, the IDs of docs/rules.md);
- `HOW_TO_PLAY` and `GLOSSARY`: the game in a few lines and its tokens and terms (Fortress,
  Harvester, Snooper, Shield, CHOAM, Sardaukar...), for the help of both front ends;
- dice one at a time: FIX_DICE's legal options are subsets of the rolled dice (up to 127); the
  front ends let the player pick dice one by one (`pickable_dice`, `can_fix`) and play the
  subset as the one action it is, so the action space is unchanged.  Dice are numbered 1-7 for
  people everywhere (the event log too: `engine.events.dice_numbers`);
- `row_notices`: what the engine did for you in one history row, and why (a forced decision, a
  movement with nothing to move), placed in the story by `session.PlaySession`;
  `game_over_text`: why the game ended;
- `page_guide`: all of it as the web page's JSON (the page itself holds no rule).

What the position means for the decision at hand (the storm's forecast, who can reach a
movement target, the bid's running total) is in `situation.py`; the story of the game as told
to the player (the bots' rolls condensed, what hit you marked) in `story.py`.
"""

from __future__ import annotations

from typing import Any, Final

from ..engine import Game
from ..engine.constants import (
    FACTION_DIE_SYMBOLS,
    FACTION_NAMES,
    KANLY_NAMES,
    SHAI_HULUD_FACE,
    STORAGE_CAP,
    Faction,
)
from ..engine.decisions import DecisionKind, describe_option, spec_of
from ..engine.events import EventKind
from ..engine.map_data import DEFAULT_MAP

RULES_DOC: Final = "docs/rules.md"

# One plain-language line per decision kind; the rule IDs come from the decision's spec.
EXPLANATIONS: Final[dict[DecisionKind, str]] = {
    DecisionKind.CHOOSE_FACTION: (
        "Pick the faction you will play; each has its own abilities (docs/rules.md, Factions)."
    ),
    DecisionKind.ATREIDES_START: (
        "You are the Atreides: choose the non-strategic region for your 2 starting units."
    ),
    DecisionKind.HARKONNEN_START: (
        "You are the Harkonnen: choose the empty non-strategic region for your 2 starting "
        "units and the spare property token."
    ),
    DecisionKind.BG_PREDICTION: (
        "Secretly name the faction you think will win alone: if it does, you win instead."
    ),
    DecisionKind.FIX_DICE: (
        "Set aside (fix) at least one of the dice just rolled; the others are rolled again "
        "until all 7 are fixed. A Shai-Hulud on the spice die must be fixed."
    ),
    DecisionKind.PITER_DE_VRIES: "Harkonnen: you may turn the Kanly die to Poison.",
    DecisionKind.AXOLOTL_SYMBOL: "Axolotl tanks: choose the die symbol you recruit with.",
    DecisionKind.ALLY_OFFER: (
        "Offer an alliance for this turn to a faction whose symbol shows on a faction die, or "
        "to nobody: allies share abilities and win together with 4 strategic regions."
    ),
    DecisionKind.ALLY_ANSWER: (
        "The active player offers you an alliance for this turn: accept to fight on its side "
        "and share an alliance victory."
    ),
    DecisionKind.DICE_SPLIT: "Choose how many of the shared dice go to the other party.",
    DecisionKind.RECRUIT: (
        "Each faction die showing your symbol moves one unit (or your leader) from your "
        "reserve to your faction card, ready to land; or stop."
    ),
    DecisionKind.GHOLA: "Pay 1 spice to put your leader back on your faction card.",
    DecisionKind.KANLY: (
        "The Kanly die: remove one enemy unit (Poison, Crysknife, Hunter-seeker) or take the "
        "token it shows (Snooper, Shield, Thumper), or do nothing."
    ),
    DecisionKind.HARVESTER_DISCARD: (
        "Shai-Hulud was rolled: discard a harvester from a region where you have units."
    ),
    DecisionKind.SPICE_GIFT: "Give some of your stored spice to your ally, the active player.",
    DecisionKind.LAND_CONSENT: (
        "Your ally asks to land units in regions where only you have units: allow it or not."
    ),
    DecisionKind.LAND: (
        "Land units from your faction card one at a time, 1 spice each, onto the Polar Cap or "
        "where you already have units (never into the storm); or stop."
    ),
    DecisionKind.ALLY_GRANT: (
        "Grant your ally spice from your pool for its landing; what it does not use comes back."
    ),
    DecisionKind.MOVE_TARGET: (
        "Choose the target of your movement: a region of the sector on the region die, or the "
        "Polar Cap (not in the storm). Units then move in only from adjacent regions."
    ),
    DecisionKind.MOVE: (
        "Move units one at a time into the target, from adjacent regions or from a region "
        "with an ornithopter; or stop."
    ),
    DecisionKind.BATTLE_ORDER: (
        "You share these regions with enemies, so each is a battle: choose the next one."
    ),
    DecisionKind.INFILTRATION: (
        "Harkonnen infiltration: ignore the fortress here (no unit lost, it stays)."
    ),
    DecisionKind.FORTRESS_VICTIM: "The fortress removes one attacking unit first: choose which.",
    DecisionKind.FACE_DANCER: (
        "Face dancers: replace one more enemy unit in the battle region by one of yours, or stop."
    ),
    DecisionKind.LEND_LEADER: "Lend your leader(s) on your card to your side for this battle.",
    DecisionKind.BID: (
        "Secretly commit units and leaders one at a time, then stop: the higher strength wins "
        "(a tie goes to the defender); all committed are lost, and the loser's other units too."
    ),
    DecisionKind.REORGANIZE: (
        "You or your ally control the target region: you may swap its property token for one "
        "from the common supply (Fortress, Harvester, Ornithopter)."
    ),
}

# Each decision kind's name for people (proper names spelt as docs/rules.md spells them).
TITLES: Final[dict[DecisionKind, str]] = {
    DecisionKind.CHOOSE_FACTION: "Choose your faction",
    DecisionKind.ATREIDES_START: "Atreides start",
    DecisionKind.HARKONNEN_START: "Harkonnen start",
    DecisionKind.BG_PREDICTION: "Bene Gesserit prediction",
    DecisionKind.FIX_DICE: "Fix dice",
    DecisionKind.PITER_DE_VRIES: "Piter De Vries",
    DecisionKind.AXOLOTL_SYMBOL: "Axolotl tanks",
    DecisionKind.ALLY_OFFER: "Offer an alliance",
    DecisionKind.ALLY_ANSWER: "Answer an alliance offer",
    DecisionKind.DICE_SPLIT: "Share the dice",
    DecisionKind.RECRUIT: "Recruit",
    DecisionKind.GHOLA: "Ghola",
    DecisionKind.KANLY: "Kanly",
    DecisionKind.HARVESTER_DISCARD: "Shai-Hulud: discard a harvester",
    DecisionKind.SPICE_GIFT: "Spice gift",
    DecisionKind.LAND_CONSENT: "Landing consent",
    DecisionKind.LAND: "Land units",
    DecisionKind.ALLY_GRANT: "Spice grant to your ally",
    DecisionKind.MOVE_TARGET: "Movement target",
    DecisionKind.MOVE: "Move units",
    DecisionKind.BATTLE_ORDER: "Next battle",
    DecisionKind.INFILTRATION: "Harkonnen infiltration",
    DecisionKind.FORTRESS_VICTIM: "Fortress victim",
    DecisionKind.FACE_DANCER: "Face dancers",
    DecisionKind.LEND_LEADER: "Lend your leader",
    DecisionKind.BID: "Battle bid",
    DecisionKind.REORGANIZE: "Reorganise the target",
}

HOW_TO_PLAY_TITLE: Final = f"How to play (the full rules, with every rule ID: {RULES_DOC})"
# The game in a few paragraphs; the front ends wrap them (the terminal) or list them (the page).
HOW_TO_PLAY_ITEMS: Final[tuple[str, ...]] = (
    "Goal: at the end of your own turn control 3 of the 5 strategic regions (marked *), by "
    "having units there; allies (5+ players) win together with 4. After 6 rounds the Guild "
    "wins.",
    "Your turn: 1 roll the 7 dice, fixing some after each roll; 2 maybe offer an alliance; "
    "3 recruit: each faction die with your symbol puts a unit from your reserve on your card; "
    "4 Kanly die: harm an enemy or take a token; 5 land units from your card (1 spice each, the "
    "spice die pays); 6 move units into a target region of the region die's sector; 7 fight "
    "every region you share with an enemy: both sides secretly commit units and leaders, the "
    "stronger wins; 8 maybe change the target's property token; 9 the storm may move.",
    "Dice are numbered 1-7: faction dice 1-4, the region die 5, the spice die 6, the Kanly die 7.",
    "Each decision says what it means and its rule IDs; the engine plays a decision with one "
    "legal option for you, and says so.",
)

# How each front end draws what the glossary explains: the terminal's board is text, the web
# page's a map (board.js) beside a seats table.
_DRAWN: Final[dict[str, dict[str, str]]] = {
    "terminal": {
        "sardaukar": "Shown as +nS: Corr 1+1S is 1 unit and 1 Sardaukar.",
        "storm": "~ on the board",
        "desert": "Desert (x)",
    },
    "web": {
        "sardaukar": "Shown as 1+1 on the map (1 unit and 1 Sardaukar), 1+1S on the card.",
        "storm": "dark stripes on the map",
        "desert": "Desert (\u2716)",
    },
}
FRONT_ENDS: Final = tuple(_DRAWN)

# What the seats table's columns hold, under the table in both front ends.
SEATS_NOTE: Final = (
    "card: units ready to land, S = Sardaukar of strength 2; leaders: on the card / in the "
    f"reserve; storage holds at most {STORAGE_CAP} spice"
)


# The glossary's terms and texts; `{sardaukar}`, `{storm}` and `{desert}` are how a front end
# draws them (_DRAWN), filled in by glossary().
_GLOSSARY_TEMPLATE: Final[tuple[tuple[str, str], ...]] = (
    (
        "Card",
        "your faction card: recruited units and leaders wait there; units land from it (DEF-2).",
    ),
    (
        "Reserve",
        "your pieces neither on the map nor on the card; recruiting takes from it and "
        "lost pieces go back to it (DEF-1).",
    ),
    (
        "Strength",
        "in battle a unit counts 1, a Fremen unit 2, a Sardaukar 2; a leader adds its "
        "own strength (DEF-8, COMP-3).",
    ),
    (
        "Sardaukar",
        "the Corrino's elite unit: strength 2. Two Corrino faction dice recruit one "
        "instead of two units (COR-1). {sardaukar}",
    ),
    (
        "Leaders",
        "fight only in battles, from the faction card; a leader committed to a battle "
        "goes to the reserve after it (BATTLE-7).",
    ),
    (
        "Fortress (F)",
        "a property token: before a battle in its region it removes one attacking unit, then "
        "goes back to the supply (BATTLE-3); in a desert region it also keeps the storm from "
        "killing units there (STORM-2).",
    ),
    (
        "Harvester (H)",
        "a property token: +2 spice at the landing step for the active player "
        "with a unit in its region, unless the storm is there (LAND-1); a Shai-Hulud makes the "
        "active player discard one.",
    ),
    (
        "Ornithopter (O)",
        "a property token: every unit in its region may move to the movement "
        "target, adjacent or not (PROP-4); the storm destroys it in a desert region.",
    ),
    ("Snooper", "a Kanly token: Poison cannot kill the units of whoever holds it (KANLY-3)."),
    ("Shield", "a Kanly token: Crysknife cannot kill the units of whoever holds it (KANLY-3)."),
    (
        "Thumper",
        "discard it to leave a Shai-Hulud on the spice die unfixed (ROLL-4); nobody "
        "holds more than one (KANLY-5).",
    ),
    (
        "Shai-Hulud",
        "the worm on the spice die: no spice this turn, not even from harvesters "
        "(stored spice still counts), and the active player loses a harvester (LAND-1).",
    ),
    (
        "Pool",
        "the active player's spice this turn: the spice die plus 2 per harvester; what is "
        "not spent is lost at the end of the turn (SPICE-1..3).",
    ),
    (
        "Storage",
        "the stored spice of the Corrino and the Guild: at most 5, spent like pool "
        "spice in their own turns (SPICE-4).",
    ),
    (
        "CHOAM",
        "the Corrino's ability: at the end of their own turn each spice rolled on the spice "
        "die and left unspent adds 2 to their storage, which holds at most 5 - the rest is "
        "lost (COR-2).",
    ),
    (
        "Storm",
        "covers one sector ({storm}): nothing lands, moves into or out of, or "
        "fights there. When the spice die shows 3, 4 or 5 it moves one sector at the end of "
        "the turn, west or east as the region die shows, and in each desert region it "
        "enters without a fortress every faction but the Fremen loses one unit (STORM-1, "
        "STORM-2).",
    ),
    (
        "{desert}",
        "the regions the storm kills in: "
        + ", ".join(n for n, d in zip(DEFAULT_MAP.names, DEFAULT_MAP.desert, strict=True) if d)
        + " (MAP-1).",
    ),
)


def glossary(front: str = "terminal") -> tuple[tuple[str, str], ...]:
    """The tokens and terms a newcomer meets on the board and in the log, with their rule
    IDs, saying how the `front` end ("terminal" or "web") draws them."""
    drawn = _DRAWN[front]
    return tuple((term.format(**drawn), text.format(**drawn)) for term, text in _GLOSSARY_TEMPLATE)


GLOSSARY: Final = glossary("terminal")


def how_to_play_text(width: int = 98) -> str:
    """HOW_TO_PLAY_ITEMS and the terminal's GLOSSARY as wrapped text (the terminal's help)."""
    import textwrap

    lines = [f"{HOW_TO_PLAY_TITLE}:"]
    for item in HOW_TO_PLAY_ITEMS:
        lines.append(textwrap.fill(item, width, initial_indent="  ", subsequent_indent="    "))
    lines.append("Tokens and terms:")
    for term, text in GLOSSARY:
        lines.append(
            textwrap.fill(f"{term}: {text}", width, initial_indent="  ", subsequent_indent="    ")
        )
    return "\n".join(lines)


HOW_TO_PLAY: Final = how_to_play_text()

# The dice, numbered 1-7 for people as the event log numbers them (`engine.events.dice_numbers`;
# the engine's indices are 0-6): a menu line's number is its die's number.
DIE_KINDS: Final = ("faction die",) * 4 + ("region die", "spice die", "Kanly die")
DIE_NAMES: Final = tuple(f"{kind} {die + 1}" for die, kind in enumerate(DIE_KINDS))


def decision_title(kind: int) -> str:
    """A decision kind's name for people: "Fix dice", "Piter De Vries"."""
    return TITLES[DecisionKind(kind)]


def rule_ids(kind: int) -> str:
    return spec_of(kind).rules


def explain(kind: int) -> str:
    """One line: what the decision means, and its rule IDs in docs/rules.md."""
    return f"{EXPLANATIONS[DecisionKind(kind)]} (rules {rule_ids(kind)} in {RULES_DOC})"


def dice_uses(faction: int) -> str:
    """What the dice are for, to choose which to keep."""
    symbol = f" ({FACTION_NAMES[faction]})" if faction >= 0 else ""
    text = (
        f"What the dice do: each faction die (1-4) showing your symbol{symbol} recruits a unit; "
        "the region die (5) names the sector of your movement target; the spice die (6) pays "
        "for landing units, 1 spice each; the Kanly die (7) gives an attack or a token. A spice "
        "die of 3, 4 or 5 also moves the storm one sector at the end of your turn, the way the "
        "region die's face points (STORM-1)."
    )
    if faction == Faction.CORRINO:
        text += (
            " CHOAM: each spice of the spice die you leave unspent adds 2 to your storage at "
            "the end of your turn; the storage holds at most 5 (COR-2)."
        )
    return text


def die_labels(faces: list[int]) -> list[str]:
    """What each of the seven dice shows, e.g. "Atreides", "region 4 (Carthag/Broken Land)"."""
    labels = [FACTION_NAMES[FACTION_DIE_SYMBOLS[f]] for f in faces[:4]]
    sector = faces[4] + 1
    regions = "/".join(DEFAULT_MAP.names[r] for r in DEFAULT_MAP.regions_in_sector(sector))
    labels.append(f"region {sector} ({regions})")
    labels.append("Shai-Hulud" if faces[5] == SHAI_HULUD_FACE else f"spice {faces[5] + 1}")
    labels.append(f"Kanly {KANLY_NAMES[faces[6]]}")
    return labels


def dice_list(mask: int, labels: list[str]) -> str:
    """What the dice of `mask` show: "Atreides, spice 3"."""
    return ", ".join(labels[d] for d in range(len(labels)) if mask >> d & 1)


def pickable_dice(legal_masks: list[int], picked: int) -> list[int]:
    """The dice that may join `picked`: those in a legal subset containing `picked` too."""
    free = 0
    for mask in legal_masks:
        if mask & picked == picked:
            free |= mask
    free &= ~picked
    return [d for d in range(len(DIE_NAMES)) if free >> d & 1]


def can_fix(legal_masks: list[int], picked: int) -> bool:
    return picked in legal_masks


def missing_text(legal_masks: list[int], picked: int) -> str:
    """Why "done" is not offered yet: the dice every legal subset with `picked` still needs."""
    needed = (1 << len(DIE_NAMES)) - 1
    for mask in legal_masks:
        if mask & picked == picked:
            needed &= mask
    needed &= ~picked
    if not picked or picked in legal_masks or not needed:
        return ""
    names = ", ".join(DIE_NAMES[d] for d in range(len(DIE_NAMES)) if needed >> d & 1)
    why = ": a Shai-Hulud must be fixed (ROLL-3)" if needed >> 5 & 1 else ""
    return f"to finish, also pick {names}{why}"


def dice_state(game: Game, legal_masks: list[int]) -> dict[str, Any]:
    """FIX_DICE for a front end: what the dice show, which were just rolled, the legal subsets,
    and what leaving the worm unfixed means (ROLL-4)."""
    state = game.state
    rolled = sum(1 << d for d in range(len(DIE_NAMES)) if not state.dice_fixed[d])
    worm = state.dice_faces[5] == SHAI_HULUD_FACE and bool(rolled >> 5 & 1)
    return {
        "labels": die_labels(list(state.dice_faces)),
        "names": list(DIE_NAMES),
        "rolled": rolled,
        "legal": legal_masks,
        "thumper": worm and any(not m >> 5 & 1 for m in legal_masks),
    }


def fix_text(picked: int, rolled: int, labels: list[str], thumper: bool) -> str:
    """The confirming line of a dice pick: what is fixed, what is rolled again."""
    rest = rolled & ~picked
    text = f"fix {dice_list(picked, labels)}"
    if thumper and not picked >> 5 & 1:
        text += " and discard your Thumper to leave Shai-Hulud unfixed (ROLL-4)"
    if rest:
        return f"{text}; roll the other {bin(rest).count('1')} again"
    return f"{text}; the roll is over"


# --- what the engine did for you ---------------------------------------------------------------

_FORCED_WHY: Final[dict[DecisionKind, str]] = {
    DecisionKind.FIX_DICE: "it was the only die left to roll, and one must be fixed (ROLL-2)",
    DecisionKind.MOVE_TARGET: "it was the only target out of the storm (MOVE-1)",
    DecisionKind.RECRUIT: "no more faction die shows your symbol, or your reserve is empty",
    DecisionKind.LAND: "you had no unit on your card or no spice left (LAND-2)",
    DecisionKind.MOVE: "no more of your units can reach the target (MOVE-2, MOVE-4)",
    DecisionKind.BID: "you had nothing more to commit (BATTLE-5)",
}


def _forced_notice(kind: DecisionKind, option: int) -> str:
    if kind == DecisionKind.FIX_DICE:
        dice = ", ".join(DIE_NAMES[d] for d in range(len(DIE_NAMES)) if option >> d & 1)
        done = f"fixed your {dice}"
    else:
        done = f"{decision_title(kind).lower()}: {describe_option(kind, option)}"
    why = _FORCED_WHY.get(kind, f"it was your only legal option ({rule_ids(kind)})")
    return f"The engine played for you - {done} - because {why}."


def lone_notice(kind: DecisionKind, option: int) -> str:
    """What to say when the front end plays your only option worth offering (the engine had
    others that change nothing, `situation.shown_options`)."""
    done = f"{decision_title(kind).lower()}: {describe_option(kind, option)}"
    return (
        f"Played for you - {done} - because the other options change nothing (placing the "
        f"token that is there already, {rule_ids(kind)})."
    )


def row_notices(game: Game, you: int, row: int) -> tuple[list[str], list[str]]:
    """What to tell seat `you` about history row `row` of `game`: (notices to put where the
    row was decided, notices to put after the first event it caused).  A forced decision of
    yours is said where it happened (before a battle's reveal, not after it); a movement
    target no unit of yours could move into, right after the target is named."""
    history = game.state.history
    entry = history[row]
    if entry.seat != you:
        return [], []
    kind = DecisionKind(entry.kind)
    before = [_forced_notice(kind, entry.option)] if entry.forced else []
    after = []
    if kind == DecisionKind.MOVE_TARGET:
        # The engine asks nothing when no unit can move: the next decision is not a MOVE.
        if row + 1 < len(history):
            following = (history[row + 1].seat, history[row + 1].kind)
        else:
            following = (game.state.pending_seat, game.state.pending_kind)
        if following != (you, DecisionKind.MOVE):
            region = DEFAULT_MAP.names[entry.option]
            after.append(
                f"No unit of yours could move into {region}, so your movement ended: units "
                "move in only from adjacent regions or from a region with an ornithopter, "
                "never out of or into the storm (MOVE-2, MOVE-4)."
            )
    return before, after


# --- for the web page --------------------------------------------------------------------------


def dice_picker(game: Game, legal_masks: list[int]) -> dict[str, Any]:
    """FIX_DICE composed die by die, precomputed for a page: for every set of dice that can
    still grow into a legal subset, the dice that may join it, the "done" text if it is legal
    itself, and what is missing otherwise (so the page holds no rule logic)."""
    dice = dice_state(game, legal_masks)
    steps: dict[str, dict[str, Any]] = {}
    for picked in range(1 << len(DIE_NAMES)):
        if not any(mask & picked == picked for mask in legal_masks):
            continue
        legal = can_fix(legal_masks, picked) and picked != 0
        steps[str(picked)] = {
            "pick": pickable_dice(legal_masks, picked),
            "done": fix_text(picked, dice["rolled"], dice["labels"], dice["thumper"])
            if legal
            else None,
            "missing": missing_text(legal_masks, picked),
        }
    fixed = ((1 << len(DIE_NAMES)) - 1) & ~dice["rolled"]
    rolled = dice["rolled"]
    return {
        "names": dice["names"],
        "kinds": list(DIE_KINDS),
        "labels": dice["labels"],
        "uses": dice_uses(game.state.seat_faction[game.state.pending_seat]),
        "fixed": dice_list(fixed, dice["labels"]),
        "rolledDice": [d for d in range(len(DIE_NAMES)) if rolled >> d & 1],
        "all": rolled if can_fix(legal_masks, rolled) else None,
        "allText": fix_text(rolled, rolled, dice["labels"], dice["thumper"]),
        "steps": steps,
    }


def page_guide(
    game: Game,
    you: int,
    legal_actions: list[int],
    fix_offset: int,
    notices: list[str],
    context: list[str],
) -> dict[str, Any]:
    """What the web page shows beside your options: the decision's title, explanation and
    context (`situation.decision_context`), the dice picker on FIX_DICE, and the `notices` of
    what the engine did for you since your last decision."""
    data: dict[str, Any] = {"notices": notices, "over": game_over_text(game)}
    state = game.state
    if state.pending_seat == you and state.pending_kind >= 0 and not game.terminal:
        kind = state.pending_kind
        data["title"] = decision_title(kind)
        data["explain"] = explain(kind)
        data["context"] = context
        if kind == DecisionKind.FIX_DICE:
            data["dice"] = dice_picker(game, [a - fix_offset for a in legal_actions])
            data["dice"]["offset"] = fix_offset  # action id = offset + the mask of the dice
    return data


_ENDINGS: Final = (
    "{who} controlled 3 strategic regions at the end of its own turn (END-1)",
    "the allies controlled 4 strategic regions together at the end of a turn (END-2)",
    "nobody won by the end of round 6, so the Spacing Guild wins (END-5)",
    "nobody won by the end of round 6 and nobody plays the Guild: everybody loses (END-5)",
)


def game_over_text(game: Game) -> str:
    """Why the game ended, from its VICTORY event, and whose victory the Bene Gesserit took
    when they had predicted it (END-6)."""
    taken_from: int | None = None
    victory: tuple[int, list[int]] | None = None
    for event in game.state.events:
        if event[0] == EventKind.BG_TAKES:
            taken_from = int(event[1])
        elif event[0] == EventKind.VICTORY:
            victory = (int(event[1]), [int(seat) for seat in event[2:]])
    if victory is None:
        return ""
    kind, winners = victory
    if taken_from is not None:
        who = FACTION_NAMES[taken_from]
    else:
        who = FACTION_NAMES[game.state.seat_faction[winners[0]]] if winners else "its winner"
    why = _ENDINGS[kind].format(who=who)
    if taken_from is not None:
        why += (
            f"; the Bene Gesserit had secretly predicted that {who} would win, so the victory "
            "is theirs (END-6)"
        )
    return f"The game ended because {why}." if why else ""
