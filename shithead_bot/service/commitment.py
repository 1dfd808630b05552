"""The deal's commitment: at the deal the bot draws a random salt and publishes a short fingerprint
of the game's number, its seed and the salt; at the end it reveals seed and salt, and anyone can
recompute the fingerprint, deal again from the seed and replay the move log (:mod:`shithead_bot.verify`).

The seed alone could be guessed from a fingerprint by trying seeds; the salt (128 random bits)
makes that hopeless, and the game's number ties the fingerprint to this one game.

>>> fingerprint(12, 1234, "00" * 16)
'7876d4e5d9d738a1'
>>> len(new_salt())
32
"""

from __future__ import annotations

import hashlib
import secrets

from persistence.models import Game

SCHEME = "shithead-bot-deal:v1"
FINGERPRINT_CHARS = 16  # 64 bits of SHA-256: no second seed with the same fingerprint can be found


def preimage(game_id: int, seed: int, salt: str) -> str:
    """The canonical text that is hashed: ``shithead-bot-deal:v1:<game>:<seed>:<salt>``."""
    return f"{SCHEME}:{game_id}:{seed}:{salt}"


def fingerprint(game_id: int, seed: int, salt: str) -> str:
    """The first 16 hex characters of SHA-256 over :func:`preimage`."""
    return hashlib.sha256(preimage(game_id, seed, salt).encode()).hexdigest()[:FINGERPRINT_CHARS]


def new_salt() -> str:
    """128 random bits from :mod:`secrets`, as 32 hex characters."""
    return secrets.token_hex(16)


def seal(game: Game) -> None:
    """Commit to the deal just made: a fresh salt and the fingerprint the group will be shown."""
    game.deal_salt = new_salt()
    game.deal_commitment = fingerprint(game.id or 0, game.seed, game.deal_salt)
