"""The game's chat, for a run of the sender: the lobby, the announcements, the table (a picture or
text, edited in place under its throttle) and the call for a player the bot cannot reach — with the
group's own faults: a migration followed, a forum topic gone (the game goes on in General), a group
that removed or muted the bot (reported: its game pauses), a chat that refuses pictures. What it
decides for every worker (a player called this turn, a chat that refuses pictures, the table's last
edit) is read from the plan's snapshot and reported, never kept here."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from datetime import datetime, timedelta
from typing import Protocol, TypeVar

from telegram import Message
from telegram.error import BadRequest, ChatMigrated, Forbidden

from shithead_bot.service import GameSnapshot, GameStatus, SeatSnapshot, Tidy
from shithead_bot.service.report import Report
from shithead_bot.telegram.botapi import BotApi, TopicGoneError
from shithead_bot.telegram.delivery import steps as s
from shithead_bot.telegram.render import Page, Rendered, announce, private, table
from shithead_bot.telegram.render import photo as photos

log = logging.getLogger(__name__)
T = TypeVar("T")

NO_PHOTOS = "not enough rights to send photos"
PHOTOS_REFUSED = timedelta(days=1)  # a chat that refused a picture gets the text table this long
MUTED = ("not enough rights to send text messages", "chat_write_forbidden", "chat_restricted")


class Sender(Protocol):
    """What the game's chat needs of the sender that serves every game."""

    def page_for(self, game: GameSnapshot, seat: SeatSnapshot | None = None) -> Page: ...

    def table_wait(self, game: GameSnapshot, now: datetime) -> float: ...


class Run(Protocol):
    """What the game's chat needs of the run it belongs to."""

    game: GameSnapshot
    report: Report
    api: BotApi

    @property
    def delivery(self) -> Sender: ...

    def now(self) -> datetime: ...

    async def tidy(self, what: Tidy, chat_id: int, message_id: int) -> None: ...


class GroupChat:
    def __init__(self, run: Run) -> None:
        self.run = run
        self.delivery = run.delivery
        self.api = run.api

    @property
    def chat_id(self) -> int:
        return self.run.game.chat.id

    def page(self) -> Page:
        return self.delivery.page_for(self.run.game)

    # ------------------------------------------------------------------- steps

    async def lobby(self, step: s.EditLobby) -> None:
        game = self.run.game.game
        if game.lobby_message_id:
            lobby_id = game.lobby_message_id
            edited = await self.in_chat(lambda chat: self.api.edit(chat, lobby_id, step.rendered))
            if edited is not None or game.status != GameStatus.LOBBY or not step.post_if_gone:
                return
        message = await self.send(step.rendered)
        if message is not None:
            self.run.game = self.run.game.with_game(lobby_message_id=message.message_id)
            self.run.report.lobby_message_id = message.message_id

    async def post(self, step: s.PostGroup) -> None:
        await self.send(step.rendered, silent=not step.loud)

    async def table(self, step: s.EditTable) -> None:
        """The table, edited once; put off (reported deferred) while its throttle says so, so that it
        does not hold back the private messages that follow. The game over, it is unpinned."""
        wait = self.delivery.table_wait(self.run.game, self.run.now())
        if wait > 0:
            self.run.report.deferred.update({i: timedelta(seconds=wait) for i in step.notices})
            return
        await (self._table_anew() if step.repost else self._table())
        table_id = self.run.game.game.table_message_id
        if step.unpin and table_id:
            await self.run.tidy(Tidy.UNPIN, self.chat_id, table_id)  # the game is done

    async def contact(self, number: int) -> None:
        """The group is asked to get a player the bot cannot write to, by a mention that notifies
        them — once a turn (a keyboard version), however many notices fail for them, whichever worker
        sends them: the turn called for is stored (reported once the call went out)."""
        game = self.run.game
        seat = game.seat(number)
        if not game.may_act(number) or seat.called_version >= seat.keyboard_version:
            return
        await self.send(private.contact(self.page(), seat))
        self.run.game = self.run.game.with_seat(number, called_version=seat.keyboard_version)
        self.run.report.called[number] = seat.keyboard_version

    # ------------------------------------------------------------------- the table

    async def _table_anew(self) -> None:
        """The table as a new message at the bottom of the chat (the bot is back after a removal):
        the old one, far up, is deleted."""
        old = self.run.game.game.table_message_id
        self.run.game = self.run.game.with_game(table_message_id=None)
        await self._table()
        if old and self.run.game.game.table_message_id != old:
            await self.run.tidy(Tidy.DELETE, self.chat_id, old)

    async def _table(self) -> None:
        """The group's table, edited in place: a photo with a caption where the chat wants a picture
        (a picture that cannot be drawn or uploaded gives the text table for that edit), else text."""
        game = self.run.game = self.run.game.with_game(table_edited_at=self.run.now())
        self.run.report.table_edited_at = game.game.table_edited_at
        page = self.page()
        if game.chat.table_is_picture and not self._photos_refused():
            photo = await self._draw(page)
            if photo is not None and await self._table_photo(photo):
                return
        await self._table_text(table.table(page))

    def _photos_refused(self) -> bool:
        until = self.run.game.chat.photos_refused_until
        return until is not None and self.run.now() < until

    @staticmethod
    async def _draw(page: Page) -> photos.Photo | None:
        try:
            return await asyncio.to_thread(photos.table_photo, page)  # a few ms of CPU, off the loop
        except Exception:
            log.exception("game %s: the table picture could not be drawn; the text table instead", page.game_id)
            return None

    async def _table_photo(self, photo: photos.Photo) -> bool:
        """Edit the table photo, or post one (replacing a text table); False if Telegram refused it."""
        game = self.run.game.game
        png = photo.picture.png
        try:
            editable = game.table_message_id is not None and game.table_is_picture
            table_id = game.table_message_id or 0
            if editable and await self.in_chat(lambda chat: self.api.edit_photo(chat, table_id, png, photo.caption)):
                return True
            message = await self.send(photo.caption, png=png, silent=True)
        except BadRequest as exc:
            log.warning("game %s: the table picture was refused (%s); the text table instead", game.id, exc)
            if NO_PHOTOS in str(exc).lower():  # not this once: until the bot's rights change, or a day
                until = self.run.now() + PHOTOS_REFUSED
                self.run.game = self.run.game.with_chat(photos_refused_until=until)
                self.run.report.photos_refused[self.chat_id] = until
            return False
        if message is not None:
            await self._table_posted(message.message_id, picture=True)
        return True

    async def _table_text(self, rendered: Rendered) -> None:
        game, chat = self.run.game.game, self.run.game.chat
        message_id = game.table_message_id or 0
        if game.table_message_id and game.table_is_picture and chat.table_is_picture:
            # the picture failed: the photo keeps its picture and shows the text as caption
            edited = await self.in_chat(lambda chat_id: self.api.edit_caption(chat_id, message_id, rendered))
        elif game.table_message_id and not game.table_is_picture:
            edited = await self.in_chat(lambda chat_id: self.api.edit(chat_id, message_id, rendered))
        else:
            edited = None
        if edited:
            return
        message = await self.send(rendered, silent=True)
        if message is not None:
            await self._table_posted(message.message_id, picture=False)

    async def _table_posted(self, message_id: int, *, picture: bool) -> None:
        """A new table message: remembered first (a failure after this must not post it again); the
        one it replaces (of the other kind) is deleted; pinned, quietly, where the bot may pin."""
        run = self.run
        old = run.game.game.table_message_id
        run.report.table_message_id, run.report.table_is_picture = message_id, picture
        run.game = run.game.with_game(table_message_id=message_id, table_is_picture=picture)
        if old and old != message_id:
            await run.tidy(Tidy.DELETE, self.chat_id, old)
        if run.game.chat.kind != "private" and run.game.is_active:
            await run.tidy(Tidy.PIN, self.chat_id, message_id)  # a nicety: later, alone, if it cannot go now

    # ------------------------------------------------------------------- posting

    async def in_chat(self, call: Callable[[int], Awaitable[T]]) -> T:
        """A call into the game's chat; a group that became a supergroup (the service message was
        missed) is followed there, and the call made again (a message of the old group is not in
        the new one: an edit then finds nothing, and the message is posted anew)."""
        try:
            return await call(self.chat_id)
        except ChatMigrated as exc:
            self._migrated(exc.new_chat_id)
            return await call(exc.new_chat_id)

    def _migrated(self, new_id: int) -> None:
        run = self.run
        log.info("game %s: its group became supergroup %s", run.game.game.id, new_id)
        run.report.migrated.append((run.game.chat.id, new_id))
        run.game = run.game.with_chat(id=new_id)

    async def send(self, rendered: Rendered, *, png: bytes | None = None, silent: bool = False) -> Message | None:
        """A new message in the game's chat (in its forum topic; a photo with ``rendered`` as its
        caption when ``png`` is given); follows a migration; a topic closed or deleted mid-game
        moves the game to General, once, saying so; None if the bot was removed."""
        run = self.run
        try:
            return await self._post(rendered, run.game.game.message_thread_id, png, silent)
        except TopicGoneError as exc:
            log.warning("game %s: its topic is gone (%s); it goes on in General", run.game.game.id, exc)
            run.report.topic_closed = True
            run.game = run.game.with_game(message_thread_id=None)
            await self.api.send(self.chat_id, announce.topic_gone(self.page()), silent=True)
            return await self._post(rendered, None, png, silent)
        except ChatMigrated as exc:
            self._migrated(exc.new_chat_id)
            return await self._post(rendered, run.game.game.message_thread_id, png, silent)
        except Forbidden as exc:
            log.warning("chat %s: bot cannot post (%s); pausing its game", self.chat_id, exc)
            run.report.silenced.add(self.chat_id)
            return None
        except BadRequest as exc:
            if png is not None or not any(reason in str(exc).lower() for reason in MUTED):
                raise
            log.warning("chat %s: the bot may not send there (%s); pausing its game", self.chat_id, exc)
            run.report.silenced.add(self.chat_id)  # muted is as good as removed
            return None

    async def _post(self, rendered: Rendered, thread_id: int | None, png: bytes | None, silent: bool) -> Message:
        if png is None:
            return await self.api.send(self.chat_id, rendered, thread_id=thread_id, silent=silent)
        return await self.api.send_photo(self.chat_id, png, rendered, thread_id=thread_id, silent=silent)
