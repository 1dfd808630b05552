"""Names for computer players, shared by the bot and the terminal game."""

COMPUTER_NAMES: tuple[str, ...] = ("Ann", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jo")


def computer_name(n: int) -> str:
    """The ``n``-th computer player's name (0-based), never running out."""
    return COMPUTER_NAMES[n] if n < len(COMPUTER_NAMES) else f"Bot {n + 1}"
