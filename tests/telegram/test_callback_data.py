"""The callback-data codec and deep-link payloads."""

from __future__ import annotations

import pytest

from shithead_bot.telegram.callback_data import MAX_BYTES, Action, BadCallbackError, Button, Codec


def test_every_deep_link_reads_back() -> None:
    codec = Codec(b"some-bot-token-key")
    for game_id in range(2000):
        for action in ("join", "hand"):
            payload = codec.deep_link_payload(action, game_id)
            assert len(payload) <= 64
            assert payload.replace("_", "").isalnum()
            assert codec.read_deep_link(payload) == (action, game_id)


def test_buttons_round_trip_and_fit() -> None:
    codec = Codec(b"k")
    longest = Button(Action.MOVE, 10**12, 10**9, "p:h:10:8")
    data = codec.encode(longest)
    assert len(data.encode()) <= MAX_BYTES
    assert codec.decode(data) == longest


@pytest.mark.parametrize("data", ["", "m:1:2:r", "m:1:2:r:AAAAAAAA", "z" * 65, None])
def test_forged_or_garbled_data_is_refused(data: str | None) -> None:
    with pytest.raises(BadCallbackError):
        Codec(b"k").decode(data)


def test_another_bots_signature_is_refused() -> None:
    data = Codec(b"other").encode(Button(Action.JOIN, 5))
    with pytest.raises(BadCallbackError):
        Codec(b"k").decode(data)
    with pytest.raises(BadCallbackError):
        Codec(b"k").read_deep_link(Codec(b"other").deep_link_payload("join", 5))


@pytest.mark.parametrize(
    "data",
    ["x:é", "m:1:2:r:ÀÀÀÀÀÀÀÀ", "j:1:0::é", "\udcff", "m:1:2:r:\x00\x00", "💩:1:2:3:4", "m:1:2:r:AAAAAAA€"],
)
def test_non_ascii_data_is_refused_as_not_valid(data: str) -> None:
    """A modified client may send any bytes: refused as not ours, never a TypeError."""
    with pytest.raises(BadCallbackError):
        Codec(b"k").decode(data)


@pytest.mark.parametrize("payload", ["é_é", "join_1_é", "join_é_abc", "_", "join__", "hand_1_" + "€" * 12, "\udcff"])
def test_non_ascii_deep_links_are_refused(payload: str) -> None:
    with pytest.raises(BadCallbackError):
        Codec(b"k").read_deep_link(payload)


def test_random_bytes_never_escape_as_anything_but_bad_callback() -> None:
    import random

    rng = random.Random(5)
    codec = Codec(b"k")
    for _ in range(2000):
        data = bytes(rng.randrange(256) for _ in range(rng.randrange(1, 70))).decode("utf-8", "replace")
        with pytest.raises(BadCallbackError):
            codec.decode(data)
        with pytest.raises(BadCallbackError):
            codec.read_deep_link(data[:64])
