"""Every text the bot shows, rendered from snapshots — from views, never from raw states — so a
message built for one reader holds only what that reader may know. One module per message:
``lobby``, ``table``, ``private``, ``announce``, ``rules``, and ``photo`` for the table as a picture;
``replies`` for refusals and the short answers of commands and presses, ``keyboards`` for every
inline keyboard's labels; what they share is in ``common``. HTML parse mode; every name is escaped."""

from shithead_bot.telegram.render.common import MAX_TEXT, Page, Rendered, esc, fit_lines, relative, rows, visible_length

__all__ = ["MAX_TEXT", "Page", "Rendered", "esc", "fit_lines", "relative", "rows", "visible_length"]
