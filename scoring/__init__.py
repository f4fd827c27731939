"""Chinese Official (MCR) mahjong: the hand model, its notation and the fan scorer (standard library only)."""

from .fans import FAN, FANS, Fan
from .hand import Hand, HandError, Meld, MeldKind, WinContext
from .notation import format_hand, parse_hand
from .scorer import ExcludedFan, FanCount, NotWinningHand, ScoreResult, score
from .tiles import Tile

__all__ = [
    "FAN", "FANS", "ExcludedFan", "Fan", "FanCount", "Hand", "HandError", "Meld", "MeldKind",
    "NotWinningHand", "ScoreResult", "Tile", "WinContext", "format_hand", "parse_hand", "score",
]
