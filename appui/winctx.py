"""Which win-context options the tiles make impossible, and why (pure; the pages disable them).

The scorer would ignore such flags with a warning (contracts.md); the app goes one step
earlier and greys them out, with the reason shown on hover.  The rules are the scorer's
(`scoring.winflags`); this module turns them into the app's label keys.
"""

from __future__ import annotations

from dataclasses import dataclass

from scoring.winflags import TileFacts, ruled_out

HandFacts = TileFacts  # what the pages build from the tiles they show


@dataclass(frozen=True)
class Reason:
    """Why an option is impossible: an i18n label key and its fields."""

    key: str
    values: tuple[tuple[str, str], ...] = ()

    def params(self) -> dict[str, str]:
        return dict(self.values)


def impossible_flags(facts: HandFacts, *, self_drawn: bool) -> dict[str, Reason]:
    """Flag name -> why the tiles and the way of winning rule it out (absent = allowed)."""
    return {
        name: Reason(f"why_{r.why.value}", (("tile", r.tile),) if r.tile else ())
        for name, r in ruled_out(facts, self_drawn).items()
    }
