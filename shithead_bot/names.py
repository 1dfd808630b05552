"""Names for computer players, shared by the bot and the terminal game."""

COMPUTER_NAMES: tuple[str, ...] = ("Ann", "Ben", "Cleo", "Dev", "Eli", "Fay", "Gus", "Hal", "Ivy", "Jo")
DEFAULT_NAME = "Player"


def computer_name(n: int) -> str:
    """The ``n``-th computer player's name (0-based), never running out."""
    return COMPUTER_NAMES[n] if n < len(COMPUTER_NAMES) else f"Bot {n + 1}"


def table_names(person: str | None, seats: int) -> list[str]:
    """The names around a terminal table: the person's own first (``None``: computers only), never
    empty, then computer names that differ from it, so no name is said twice."""
    names = [] if person is None else [" ".join(person.split()) or DEFAULT_NAME]
    taken = {name.casefold() for name in names}
    n = 0
    while len(names) < seats:
        name = computer_name(n)
        n += 1
        if name.casefold() not in taken:
            names.append(name)
            taken.add(name.casefold())
    return names
