"""The groups a tile of a laid-out hand belongs to, as the reader, the scenes and the app name them.

`docs/spec/photo-layout.md`: the standing hand, the winning tile set apart at its right end,
up to four melds (left to right, `meld0`..`meld3`) and the flowers; `unplaced` is a tile the app
leaves out of the hand.  Label files and the `python -m vision read` JSON carry these names.
"""

from __future__ import annotations

HAND = "hand"
WIN = "win"
FLOWERS = "flowers"
UNPLACED = "unplaced"
MAX_MELDS = 4


def meld_group(index: int) -> str:
    """The group of the meld `index` (0 = leftmost)."""
    return f"meld{index}"


MELD_GROUPS: tuple[str, ...] = tuple(meld_group(k) for k in range(MAX_MELDS))
GROUPS: tuple[str, ...] = (HAND, WIN, *MELD_GROUPS, FLOWERS, UNPLACED)
