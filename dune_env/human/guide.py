"""What `dune-play` tells a newcomer, in one place for the terminal and the web page.

- `explain(kind)`: one line on what a decision means, with its rule IDs (the decision's
  `DecisionSpec.rules`, the IDs of docs/rules.md);
- `HOW_TO_PLAY`: the game in a few lines, for the help;
- dice one at a time: FIX_DICE's legal options are subsets of the rolled dice (up to 127); the
  front ends let the player pick dice one by one (`pickable_dice`, `can_fix`) and play the
  subset as the one action it is, so the action space is unchanged;
- `auto_notices`: what the engine did for you since your last decision, and why (a forced
  decision, a movement with nothing to move); `game_over_text`: why the game ended;
- `page_guide`: all of it as the web page's JSON (the page itself holds no rule).
"""

from __future__ import annotations

from typing import Any, Final

from ..engine import Game
from ..engine.constants import FACTION_DIE_SYMBOLS, FACTION_NAMES, KANLY_NAMES, SHAI_HULUD_FACE
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
    DecisionKind.PITER_DE_VRIES: "Piter De Vries: you may turn the Kanly die to Poison.",
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

HOW_TO_PLAY: Final = f"""How to play (the full rules, with every rule ID: {RULES_DOC}):
  Goal: at the end of your own turn control 3 of the 5 strategic regions (marked *), by having
    units there; allies (5+ players) win together with 4. After 6 rounds the Guild wins.
  Your turn: 1 roll the 7 dice, fixing some after each roll; 2 maybe offer an alliance;
    3 recruit: each faction die with your symbol puts a unit from your reserve on your card;
    4 Kanly die: harm an enemy or take a token; 5 land units from your card (1 spice each, the
    spice die pays); 6 move units into a target region of the region die's sector; 7 fight
    every region you share with an enemy: both sides secretly commit units and leaders, the
    stronger wins; 8 maybe change the target's property token; 9 the storm may move.
  Each decision says what it means and its rule IDs; the engine plays a decision with one
    legal option for you, and says so."""

# The dice by their numbers, as the board and the event log number them (0-3 faction dice).
# No numbers in the names: the menu numbers its lines, and a second numbering confused players.
DIE_NAMES: Final = tuple(f"faction die {letter}" for letter in "ABCD") + (
    "region die",
    "spice die",
    "Kanly die",
)


def decision_title(kind: int) -> str:
    """A decision kind's name for people: "Fix dice", "Harkonnen start"."""
    return DecisionKind(kind).name.replace("_", " ").capitalize()


def rule_ids(kind: int) -> str:
    return spec_of(kind).rules


def explain(kind: int) -> str:
    """One line: what the decision means, and its rule IDs in docs/rules.md."""
    return f"{EXPLANATIONS[DecisionKind(kind)]} (rules {rule_ids(kind)} in {RULES_DOC})"


def dice_uses(faction: int) -> str:
    """What the dice are for, to choose which to keep."""
    symbol = f" ({FACTION_NAMES[faction]})" if faction >= 0 else ""
    return (
        f"What the dice do: each faction die showing your symbol{symbol} recruits a unit; the "
        "spice die pays for landing units (1 spice each); the region die names the sector of "
        "your movement target; the Kanly die gives an attack or a token."
    )


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


def auto_notices(game: Game, you: int) -> list[str]:
    """What the engine did for seat `you` since its last decision of its own, and why."""
    history = game.state.history
    start = len(history)
    while start > 1 and not (history[start - 1].seat == you and not history[start - 1].forced):
        start -= 1
    notices = []
    for i in range(max(start - 1, 1), len(history)):
        row = history[i]
        if row.seat != you:
            continue
        kind = DecisionKind(row.kind)
        if row.forced and i >= start:
            notices.append(_forced_notice(kind, row.option))
        if kind == DecisionKind.MOVE_TARGET:
            # The engine asks nothing when no unit can move: the next decision is not a MOVE.
            if i + 1 < len(history):
                after = (history[i + 1].seat, history[i + 1].kind)
            else:
                after = (game.state.pending_seat, game.state.pending_kind)
            if after != (you, DecisionKind.MOVE):
                region = DEFAULT_MAP.names[row.option]
                notices.append(
                    f"No unit of yours could move into {region}, so your movement ended: units "
                    "move in only from adjacent regions or from a region with an ornithopter, "
                    "never out of or into the storm (MOVE-2, MOVE-4)."
                )
    return notices


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
        "labels": dice["labels"],
        "uses": dice_uses(game.state.seat_faction[game.state.pending_seat]),
        "fixed": dice_list(fixed, dice["labels"]),
        "rolledDice": [d for d in range(len(DIE_NAMES)) if rolled >> d & 1],
        "all": rolled if can_fix(legal_masks, rolled) else None,
        "allText": fix_text(rolled, rolled, dice["labels"], dice["thumper"]),
        "steps": steps,
    }


def page_guide(game: Game, you: int, legal_actions: list[int], fix_offset: int) -> dict[str, Any]:
    """What the web page shows beside your options: the decision's title and explanation, the
    dice picker on FIX_DICE, and the notices of what the engine did for you."""
    data: dict[str, Any] = {"notices": auto_notices(game, you), "over": game_over_text(game)}
    state = game.state
    if state.pending_seat == you and state.pending_kind >= 0 and not game.terminal:
        kind = state.pending_kind
        data["title"] = decision_title(kind)
        data["explain"] = explain(kind)
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
