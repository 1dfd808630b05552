"""GameService: every use case of both games behind one object, transport-free — a terminal or a
web front end could call the same methods. Each is a function of its family's module (lobby,
play, clock, lifecycle, chats, queries, messages) taking the :class:`Core`; this class only lists
them, in one visible place, and retries each once on a transient database fault."""

from __future__ import annotations

from shithead_bot.service import (
    archive,
    away,
    chats,
    clock,
    lifecycle,
    lobby,
    messages,
    queries,
    standings,
    verification,
)
from shithead_bot.service import play as playing
from shithead_bot.service.unit import Core, retrying


@retrying
class GameService(Core):
    """Every use case, by family. Each takes plain ids and returns a Result or frozen snapshots."""

    # the lobby
    open_lobby = lobby.open_lobby
    open_private_game = lobby.open_private_game
    join = lobby.join
    leave = lobby.leave
    add_computer = lobby.add_computer
    remove_computer = lobby.remove_computer
    start = lobby.start
    rematch = lobby.rematch

    # playing
    play = playing.play
    play_on = playing.play_on
    forfeit = playing.forfeit

    # idle players: the timers
    due = clock.due
    next_due_at = clock.next_due_at
    fire_due = clock.fire_due
    nudge = clock.nudge
    set_turn_time = clock.set_turn_time
    set_quiet_hours = clock.set_quiet_hours
    quiet_hours = clock.quiet_hours

    # away: a stand-in plays for an absent player
    go_away = away.go_away
    come_back = away.come_back
    away_until = away.away_until

    # the rest of a game's life
    pause = lifecycle.pause_game
    vote_pause = lifecycle.vote_pause
    resume = lifecycle.resume
    abort = lifecycle.abort

    # players, chats, updates
    take_update = chats.take_update
    forget_old_updates = chats.forget_old_updates
    see_user = chats.see_user
    set_can_message = chats.set_can_message
    set_autoplay = chats.set_autoplay
    autoplay_of = chats.autoplay_of
    ensure_chat = chats.ensure_chat
    update_chat = chats.update_chat
    add_house_rule = chats.add_house_rule
    chat_rules = chats.chat_rules
    bot_removed = chats.bot_removed
    bot_added = chats.bot_added
    migrate_chat = chats.migrate_chat

    # reading
    game_view = queries.game_view
    game_and_moves = queries.game_and_moves
    open_game = queries.open_game
    games_of = queries.games_of
    recent_moves = queries.recent_moves
    moves = queries.moves
    record = queries.record
    rebuild = queries.rebuild
    player_record = queries.player_record
    games_per_preset = queries.games_per_preset
    chat_ratings = standings.chat_ratings
    player_ratings = standings.player_ratings
    rebuild_ratings = standings.rebuild_ratings
    export_game = archive.export_game
    verify_game = verification.verify_game
    vitals = queries.vitals
    ping = queries.ping

    # messages the front end keeps, and the fleet's send rate
    record_game_messages = messages.record_game_messages
    record_private_message = messages.record_private_message
    record_reminder_message = messages.record_reminder_message
    known_private_messages = messages.known_private_messages
    reserve_send = messages.reserve_send
    hold_sends = messages.hold_sends
