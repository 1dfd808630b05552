"""The fake's HTML parse mode against cases from TDLib's own tests (test/message_entities.cpp)."""

import pytest

from testkit.fakebot.markup import MarkupError, command_entities, parse_html, trim, utf16_len

SURROGATES = (
    "Text contains invalid Unicode characters after decoding HTML entities, check for unmatched surrogate code units"
)


@pytest.mark.parametrize(
    ("source", "error"),
    [
        ("&#57311;", SURROGATES),
        ("&#xDFDF", SURROGATES),
        ("🏟 🏟&lt;<abacaba", "Unclosed start tag at byte offset 13"),
        ("🏟 🏟&lt;<abac aba>", 'Unsupported start tag "abac" at byte offset 13'),
        ("🏟 🏟&lt;<i   =aba>", 'Empty attribute name in the tag "i" at byte offset 13'),
        ("🏟 🏟&lt;<i    aba>", 'Can\'t find end tag corresponding to start tag "i"'),
        ("🏟 🏟&lt;<i    aba  =  ", 'Unclosed start tag "i" at byte offset 13'),
        ("🏟 🏟&lt;<i    aba  =  190azAz-.,", "Unexpected end of name token at byte offset 27"),
        ('🏟 🏟&lt;<i    aba  =  "&lt;&gt;&quot;>', "Unclosed start tag at byte offset 13"),
        ("🏟 🏟&lt;</", "Unexpected end tag at byte offset 13"),
        ("🏟 🏟&lt;<b></b></", "Unexpected end tag at byte offset 20"),
        ("🏟 🏟&lt;<i>a</i   ", "Unclosed end tag at byte offset 17"),
        ("🏟 🏟&lt;<i>a</em   >", 'Unmatched end tag at byte offset 17, expected "</i>", found "</em>"'),
        ("<span>x</span>", 'Tag "span" must have class "tg-spoiler" at byte offset 0'),
    ],
)
def test_tdlib_errors(source: str, error: str) -> None:
    with pytest.raises(MarkupError) as caught:
        parse_html(source)
    assert str(caught.value) == error


@pytest.mark.parametrize(
    ("source", "text", "entities"),
    [
        ("", "", []),
        ("&ge;&lt;&gt;&amp;&quot;&laquo;&raquo;&#12345678;", '&ge;<>&"&laquo;&raquo;&#12345678;', []),
        ("➡️ ➡️<i>➡️ ➡️</i>", "➡️ ➡️➡️ ➡️", [{"type": "italic", "offset": 5, "length": 5}]),
        ("➡️ ➡️<strong>➡️ ➡️</strong>", "➡️ ➡️➡️ ➡️", [{"type": "bold", "offset": 5, "length": 5}]),
        ("➡️ ➡️<ins>➡️ ➡️</ins>", "➡️ ➡️➡️ ➡️", [{"type": "underline", "offset": 5, "length": 5}]),
        ("➡️ ➡️<del>➡️ ➡️</del>", "➡️ ➡️➡️ ➡️", [{"type": "strikethrough", "offset": 5, "length": 5}]),
        ("➡️ ➡️<blockquote>➡️ ➡️</blockquote>", "➡️ ➡️➡️ ➡️", [{"type": "blockquote", "offset": 5, "length": 5}]),
        (
            "🏟 🏟<i>🏟 &gt;<b aba   =   caba>&lt🏟</b></i>",
            "🏟 🏟🏟 ><🏟",
            [{"type": "italic", "offset": 5, "length": 7}, {"type": "bold", "offset": 9, "length": 3}],
        ),
        ("🏟 🏟&lt;<i    aba  =  '&lt;&gt;&quot;'>a</>", "🏟 🏟<a", [{"type": "italic", "offset": 6, "length": 1}]),
        ("🏟 🏟&lt;<b></b>", "🏟 🏟<", []),
        ('🏟 🏟<span class="tg-spoiler">🏟 &lt🏟</span>', "🏟 🏟🏟 <🏟", [{"type": "spoiler", "offset": 5, "length": 6}]),
        (
            "<a href=telegram.org>\n</a>",
            "\n",
            [{"type": "text_link", "offset": 0, "length": 1, "url": "http://telegram.org/"}],
        ),
        (
            "<a   href=  'telegram.org?&lt;'   > </a>",
            " ",
            [{"type": "text_link", "offset": 0, "length": 1, "url": "http://telegram.org/?<"}],
        ),
        (
            "<a>telegram.org</a>",
            "telegram.org",
            [{"type": "text_link", "offset": 0, "length": 12, "url": "http://telegram.org/"}],
        ),
        ("<a> </a>", " ", []),
        (
            '🏟 🏟&lt;<pre><code class="language-fift">🏟 🏟&lt;</></>',
            "🏟 🏟<🏟 🏟<",
            [{"type": "pre", "offset": 6, "length": 6, "language": "fift"}],
        ),
        (
            '🏟 🏟&lt;<pre><code class="language-fift">🏟 🏟&lt;</> </>',
            "🏟 🏟<🏟 🏟< ",
            [{"type": "pre", "offset": 6, "length": 7}, {"type": "code", "offset": 6, "length": 6}],
        ),
        (
            "<blockquote   expandable>a&lt;<pre  >b;</></>",
            "a<b;",
            [{"type": "expandable_blockquote", "offset": 0, "length": 4}, {"type": "pre", "offset": 2, "length": 2}],
        ),
        (
            '🏟 🏟<b aba   =   caba><tg-emoji emoji-id="1">🏟</tg-emoji>1</b>',
            "🏟 🏟🏟1",
            [
                {"type": "bold", "offset": 5, "length": 3},
                {"type": "custom_emoji", "offset": 5, "length": 2, "custom_emoji_id": "1"},
            ],
        ),
    ],
)
def test_tdlib_successes(source: str, text: str, entities: list[dict[str, object]]) -> None:
    assert parse_html(source) == (text, entities)


def test_trim_clips_entities() -> None:
    text, entities = parse_html("\n <b> Q♠ </b><i>\n</i>")
    assert trim(text, entities) == ("Q♠", [{"type": "bold", "offset": 0, "length": 2}])


def test_command_entities_use_utf16_offsets() -> None:
    text = "🂡 /play@shithead_test_bot and /help"
    assert command_entities(text) == [
        {"type": "bot_command", "offset": 3, "length": 23},
        {"type": "bot_command", "offset": 31, "length": 5},
    ]
    assert utf16_len("🂡") == 2
    assert command_entities("a/b") == []


# ------------------------------------------------------------------------- <tg-time>: date_time entities


@pytest.mark.parametrize(
    ("source", "text", "entities"),
    [
        (
            '⏳ <tg-time unix="1767225600" format="r">in 1 h</tg-time>',
            "⏳ in 1 h",
            [{"type": "date_time", "offset": 2, "length": 6, "unix_time": 1767225600, "date_time_format": "r"}],
        ),
        (
            "<b><tg-time  format = 'wDT'  unix = '1767225600'>Thu 00:00 UTC</tg-time></b>",
            "Thu 00:00 UTC",
            [
                {"type": "date_time", "offset": 0, "length": 13, "unix_time": 1767225600, "date_time_format": "wDT"},
                {"type": "bold", "offset": 0, "length": 13},
            ],
        ),
        (
            "<tg-time unix=1767225600>1 Jan</tg-time>",
            "1 Jan",
            [
                {"type": "date_time", "offset": 0, "length": 5, "unix_time": 1767225600},
            ],
        ),
        (
            '<tg-time unix="1767225600" format="">x</tg-time>',
            "x",
            [
                {"type": "date_time", "offset": 0, "length": 1, "unix_time": 1767225600},
            ],
        ),
        ('<tg-time unix="1767225600" format="r"></tg-time>', "", []),
    ],
)
def test_a_time_tag_is_a_date_time_entity(source: str, text: str, entities: list[dict[str, object]]) -> None:
    assert parse_html(source) == (text, entities)


@pytest.mark.parametrize(
    "time_format", ["r", "w", "d", "D", "t", "T", "wd", "wD", "wt", "wT", "wdt", "wDT", "dt", "Dt"]
)
def test_every_documented_time_format_is_accepted(time_format: str) -> None:
    _, entities = parse_html(f'<tg-time unix="1" format="{time_format}">x</tg-time>')
    assert entities[0]["date_time_format"] == time_format


@pytest.mark.parametrize(
    ("source", "error"),
    [
        ("<tg-time>x</tg-time>", "Invalid Unix time specified"),
        ('<tg-time unix="">x</tg-time>', "Invalid Unix time specified"),
        ('<tg-time unix="soon">x</tg-time>', "Invalid Unix time specified"),
        ('<tg-time unix="-5">x</tg-time>', "Invalid Unix time specified"),
        ('<tg-time unix="99999999999">x</tg-time>', "Invalid Unix time specified"),
        ('<tg-time unix="1" format="rt">x</tg-time>', "Invalid date and time format specified"),
        ('<tg-time unix="1" format="x">x</tg-time>', "Invalid date and time format specified"),
        ('<tg-time unix="1" format="tw">x</tg-time>', "Invalid date and time format specified"),
        (
            '<tg-time unix="1" format="r">x</b>',
            'Unmatched end tag at byte offset 30, expected "</tg-time>", found "</b>"',
        ),
    ],
)
def test_a_malformed_time_tag_is_refused(source: str, error: str) -> None:
    with pytest.raises(MarkupError) as caught:
        parse_html(source)
    assert str(caught.value) == error
