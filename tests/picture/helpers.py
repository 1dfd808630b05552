"""Positions and checks shared by the picture tests."""

from __future__ import annotations

import random
from collections.abc import Iterator
from io import BytesIO

from PIL import Image

from engine.common import GameState
from shithead_bot.picture import Box, Picture

NAMES = ["Alice", "Жанна", "محمد", "李小龙", "Bob 🎸", "さくら", "김민준", "Zoë-Hélène", "Σοφία", "Oscar"]


def names(seats: int) -> list[str]:
    return [NAMES[s % len(NAMES)] for s in range(seats)]


def play(state: GameState, steps: int, seed: int = 0) -> GameState:
    """Random legal moves, at most ``steps`` of them."""
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_over:
            break
        seat = rng.choice(state.seats_to_act())
        state.apply(seat, rng.choice(state.legal_moves(seat)))
    return state


def walk(state: GameState, seed: int, every: int = 5, limit: int = 400) -> Iterator[GameState]:
    """The state every ``every`` random moves until the game ends (the end included)."""
    rng = random.Random(seed)
    for step in range(limit):
        if step % every == 0 or state.is_over:
            yield state
        if state.is_over:
            return
        seat = rng.choice(state.seats_to_act())
        state.apply(seat, rng.choice(state.legal_moves(seat)))


def inside(inner: Box, outer: Box) -> bool:
    return outer[0] <= inner[0] and outer[1] <= inner[1] and inner[2] <= outer[2] and inner[3] <= outer[3]


def overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def decoded(picture: Picture) -> Image.Image:
    """The PNG opened again: it must be a PNG of the size the picture says."""
    image = Image.open(BytesIO(picture.png))
    image.load()
    assert image.format == "PNG"
    assert image.size == picture.size
    return image
