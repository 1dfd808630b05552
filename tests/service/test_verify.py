"""A deal anyone can verify: the commitment published at the deal, the seed and salt revealed by the
game's last message (finished, forfeited to the end, aborted), and ``verify_game`` — which refuses
before the end and catches a changed move, seed or salt. On SQLite and PostgreSQL."""

from __future__ import annotations

import copy
from typing import Any

import pytest

import engine
from engine import rules_from_dict
from shithead_bot.service import (
    Announcement,
    GameNotFoundError,
    GameService,
    NoticeKind,
    NotOverYetError,
    Result,
    Verdict,
)
from shithead_bot.service.commitment import fingerprint
from shithead_bot.service.verification import EndCheck, FingerprintCheck, MovesCheck, check_export
from shithead_bot.telegram.callback_data import Codec
from shithead_bot.telegram.render import Page
from shithead_bot.telegram.render.announce import announce
from shithead_bot.verify import verdict_lines
from tests.service.helpers import GROUP, lobby_with, play_humans_to_end, user


async def announced(service: GameService, result: Result, what: Announcement) -> str:
    """The group message of one of the result's announcements, rendered as it is delivered."""
    notice = next(n for n in result.notices if n.kind == NoticeKind.ANNOUNCE and n.announcement is what)
    page = Page(await service.game_and_moves(notice.game_id), Codec(b"k"), "en", "bot")
    rendered = announce(page, notice)
    assert rendered is not None
    return rendered.text


async def secrets_of(service: GameService, game_id: int) -> tuple[str, str, str]:
    """The game's seed and salt (as shown) and its commitment, read from the database."""
    record = await service.record(game_id)  # export's and verification's: the deal's secrets with it
    assert record.salt is not None
    assert record.commitment is not None
    return str(record.seed), record.salt, record.commitment


async def finished_game(service: GameService) -> int:
    game_id = await lobby_with(service, humans=2, computers=1)
    await service.start(game_id, user(0).id)
    await play_humans_to_end(service, game_id)
    return game_id


async def test_the_deal_is_committed_at_the_start_and_revealed_at_the_end(service: GameService) -> None:
    game_id = await lobby_with(service, humans=2, computers=1)
    started = await service.start(game_id, user(0).id)
    seed, salt, commitment = await secrets_of(service, game_id)
    assert commitment == fingerprint(game_id, int(seed), salt)
    assert len(commitment) == 16
    assert len(salt) == 32
    text = await announced(service, started, Announcement.STARTED)
    assert f"🔐 Deal fingerprint: <code>{commitment}</code>" in text
    assert seed not in text
    assert salt not in text
    with pytest.raises(NotOverYetError) as refused:
        await service.verify_game(GROUP)
    assert (refused.value.game_id, refused.value.commitment) == (game_id, commitment)
    live = await service.export_game(game_id)
    assert live["commitment"] == commitment
    assert live["seed"] is None
    assert live["salt"] is None
    assert all("events" not in m for m in live["moves"])

    await play_humans_to_end(service, game_id)
    last = (await service.moves(game_id))[-1]
    ending = await service.game_view(game_id)
    assert ending.is_over
    assert last.seq == ending.game.move_count
    verdict = await service.verify_game(GROUP)
    assert verdict.ok
    assert verdict.game == game_id
    assert [type(c).__name__ for c in verdict.checks] == ["FingerprintCheck", "DealCheck", "MovesCheck", "EndCheck"]
    lines = verdict_lines(verdict)
    assert all(line.startswith("✅") for line in lines), lines
    assert f"seed {seed} and salt {salt} begins {commitment}" in lines[0]
    over = await service.export_game(game_id)
    assert (over["seed"], over["salt"], over["commitment"]) == (int(seed), salt, commitment)
    assert all(m["events"] for m in over["moves"])


async def test_the_last_message_reveals_seed_and_salt(service: GameService, game_id: int) -> None:
    seed, salt, commitment = await secrets_of(service, game_id)
    forfeited = await service.forfeit(game_id, user(1).id)  # the last forfeit ends the game
    assert forfeited.status == "finished"
    text = await announced(service, forfeited, Announcement.OVER)
    assert f"seed <code>{seed}</code>, salt <code>{salt}</code> (fingerprint <code>{commitment}</code>)" in text
    # "User1 left the game", sent with it, is not the last message: it reveals nothing.
    assert seed not in await announced(service, forfeited, Announcement.FORFEITED)
    verdict = await service.verify_game(GROUP, game_id)
    assert verdict.ok
    end = verdict.checks[-1]
    assert isinstance(end, EndCheck)
    assert end.recorded_places == (1, 2)
    assert end.recorded_loser is None


async def test_an_aborted_game_reveals_at_its_end_and_verifies(service: GameService) -> None:
    game_id = await lobby_with(service, humans=3)
    await service.start(game_id, user(0).id)
    await service.forfeit(game_id, user(2).id)
    seed, salt, _ = await secrets_of(service, game_id)
    aborted = await service.abort(game_id, user(0).id)
    text = await announced(service, aborted, Announcement.ABORTED)
    assert text.startswith(f"🛑 Game #{game_id} was aborted.")
    assert f"seed <code>{seed}</code>, salt <code>{salt}</code>" in text
    verdict = await service.verify_game(GROUP)
    assert verdict.ok
    assert verdict_lines(verdict)[-2] == "✅ End: aborted after move 1, as recorded; nobody won."


async def test_verify_finds_the_chat_s_game_and_no_other(service: GameService) -> None:
    with pytest.raises(GameNotFoundError):
        await service.verify_game(GROUP)  # nothing dealt here yet
    done = await finished_game(service)
    lobby = await service.open_lobby(GROUP, user(0), chat_title="Friends")
    assert (await service.verify_game(GROUP)).game == done  # the latest *dealt* game
    with pytest.raises(GameNotFoundError):
        await service.verify_game(-999, done)  # another chat's game
    with pytest.raises(GameNotFoundError):
        await service.verify_game(GROUP, lobby.game_id)  # never dealt


def tampered(data: dict[str, Any], **changes: Any) -> Verdict:
    changed = copy.deepcopy(data)
    changed.update(changes)
    return check_export(changed)


def other_move(data: dict[str, Any], index: int) -> str:
    """A legal move at ``index`` other than the one recorded there."""
    rules = rules_from_dict(data["kind"], data["rules"])
    played = [(m["seat"], m["move"]) for m in data["moves"][:index]]
    state = engine.replay(data["kind"], rules, len(data["players"]), data["seed"], played, data["dealer"])
    recorded = data["moves"][index]
    return next(str(m) for m in state.legal_moves(recorded["seat"]) if str(m) != recorded["move"])


async def test_a_tampered_export_fails_loudly(service: GameService) -> None:
    game_id = await finished_game(service)
    data = await service.export_game(game_id)
    assert check_export(data).ok

    index = next(i for i, m in enumerate(data["moves"]) if i > 8 and len(m["events"]) >= 1)
    moves = copy.deepcopy(data["moves"])
    moves[index]["move"] = other_move(data, index)
    verdict = tampered(data, moves=moves)
    assert not verdict.ok
    assert verdict.checks[0].ok  # the commitment still holds: the deal is not what changed
    check = verdict.checks[2]
    assert isinstance(check, MovesCheck)
    assert check.bad_seq == index + 1
    assert any(line.startswith(f"❌ Move {index + 1} (") for line in verdict_lines(verdict))
    assert verdict_lines(verdict)[-1] == "❌ Something does not match: see the lines marked ❌."

    verdict = tampered(data, seed=data["seed"] + 1)
    fp = verdict.checks[0]
    assert isinstance(fp, FingerprintCheck)
    assert not fp.ok
    assert fp.committed == data["commitment"]
    assert not verdict.checks[2].ok  # dealt from another seed, the recorded moves do not fit
    assert "but the fingerprint published at the start was" in verdict_lines(verdict)[0]

    assert not verdict.checks[1].ok  # the deal dealt again is not the one committed to
    assert verdict_lines(verdict)[1].startswith("❌ Deal:")

    verdict = tampered(data, salt="0" * 32)  # seed or salt, which one changed cannot be told: the deal is unproven
    assert [c.ok for c in verdict.checks] == [False, False, True, True]
    assert verdict_lines(verdict)[0].startswith("❌ Commitment: SHA-256 of game")
