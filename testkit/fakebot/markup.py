"""Telegram's text handling: the HTML parse mode, whitespace trimming, bot_command entities.

``<tg-time unix="…" format="…">`` makes a ``date_time`` entity (``unix_time``, and
``date_time_format`` when one is given: ``r``, or ``w?[dD]?[tT]?``); a missing or impossible Unix
time or an unknown format is refused as a 400 "can't parse entities" would be.

The HTML parser follows the algorithm of ``parse_html`` in TDLib (``td/telegram/MessageEntity.cpp``),
which the Bot API server uses, including its error texts and byte offsets. Entity offsets and
lengths are counted in UTF-16 code units, as in the Bot API.
"""

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

JSON = dict[str, Any]

SUPPORTED_TAGS = frozenset(
    {
        "a",
        "b",
        "strong",
        "i",
        "em",
        "s",
        "strike",
        "del",
        "u",
        "ins",
        "tg-spoiler",
        "tg-emoji",
        "tg-time",
        "span",
        "pre",
        "code",
        "blockquote",
    }
)
SIMPLE_TAGS = {
    "b": "bold",
    "strong": "bold",
    "i": "italic",
    "em": "italic",
    "u": "underline",
    "ins": "underline",
    "s": "strikethrough",
    "strike": "strikethrough",
    "del": "strikethrough",
    "tg-spoiler": "spoiler",
    "span": "spoiler",
}
NAMED_REFERENCES = {"lt": "<", "gt": ">", "amp": "&", "quot": '"'}
SPACES = (" ", "\t", "\r", "\n", "\v", "")  # "" stands for the end of the text (TDLib's NUL)
NAME_TOKEN = re.compile(r"[A-Za-z0-9.\-]*")
BOT_COMMAND = re.compile(r"(?<!\S)/[A-Za-z0-9_]{1,64}(?:@[A-Za-z0-9_]{1,64})?")
TIME_FORMAT = re.compile(r"r|w?[dD]?[tT]?")  # the Bot API's date-time entity formatting
MAX_UNIX_TIME = 2**31 - 1
SURROGATE_ERROR = (
    "Text contains invalid Unicode characters after decoding HTML entities, check for unmatched surrogate code units"
)


class MarkupError(ValueError):
    """The text cannot be parsed; the message is TDLib's, without the "can't parse entities: " prefix."""


def utf16_len(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def parse_html(source: str) -> tuple[str, list[JSON]]:
    """Return the visible text and its entities, or raise MarkupError as Telegram would."""
    return _HtmlParser(source).parse()


def trim(text: str, entities: list[JSON]) -> tuple[str, list[JSON]]:
    """Strip leading and trailing whitespace as Telegram does, clipping the entities to what is left."""
    stripped = text.strip()
    start = utf16_len(text[: len(text) - len(text.lstrip())])
    end = start + utf16_len(stripped)
    kept = []
    for entity in entities:
        first = max(entity["offset"], start)
        last = min(entity["offset"] + entity["length"], end)
        if last > first:
            kept.append({**entity, "offset": first - start, "length": last - first})
    return stripped, kept


def command_entities(text: str) -> list[JSON]:
    """The bot_command entities Telegram marks in a user's text (``/cmd`` and ``/cmd@botname``)."""
    return [
        {"type": "bot_command", "offset": utf16_len(text[: found.start()]), "length": utf16_len(found.group())}
        for found in BOT_COMMAND.finditer(text)
    ]


def check_url(url: str) -> str | None:
    """A simplified TDLib ``check_url``: the normalised link, or None when Telegram would drop it."""
    url = url.strip()
    if not url or any(char.isspace() for char in url):
        return None
    if "://" not in url and not url.startswith("tg:"):
        url = "http://" + url
    parts = urlsplit(url)
    if parts.scheme.lower() in ("tg", "ton"):
        return url
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        return None
    return url if parts.path else url.replace(parts.netloc, parts.netloc + "/", 1)


@dataclass
class _OpenTag:
    name: str
    argument: str
    offset: int  # in UTF-16 code units of the output
    start: int  # index in the output character list
    attributes: dict[str, str] = field(default_factory=dict)  # tg-time's unix and format


@dataclass
class _Found:
    entity: JSON
    language: str = ""


@dataclass
class _HtmlParser:
    source: str
    pos: int = 0
    out: list[str] = field(default_factory=list)
    offset: int = 0
    open_tags: list[_OpenTag] = field(default_factory=list)
    found: list[_Found] = field(default_factory=list)
    surrogate: bool = False

    def parse(self) -> tuple[str, list[JSON]]:
        while self.pos < len(self.source):
            char = self.source[self.pos]
            if char == "&" and self._reference():
                continue
            if char != "<":
                self._emit(char)
                self.pos += 1
            elif self._at(1) == "/":
                self._end_tag()
            else:
                self._start_tag()
        if self.open_tags:
            raise MarkupError(f'Can\'t find end tag corresponding to start tag "{self.open_tags[-1].name}"')
        if self.surrogate:
            raise MarkupError(SURROGATE_ERROR)
        entities = [item.entity for item in self.found]
        entities.sort(key=lambda entity: (entity["offset"], -entity["length"]))
        return "".join(self.out), entities

    # --- low-level reading -------------------------------------------------------------------------

    def _at(self, ahead: int = 0) -> str:
        index = self.pos + ahead
        return self.source[index] if index < len(self.source) else ""

    def _byte_offset(self, index: int) -> int:
        return len(self.source[:index].encode("utf-8", "surrogatepass"))

    def _skip_spaces(self) -> None:
        while self._at() != "" and self._at() in SPACES:
            self.pos += 1

    def _skip_until(self, stops: tuple[str, ...]) -> str:
        begin = self.pos
        while self._at() not in stops:
            self.pos += 1
        return self.source[begin : self.pos]

    def _emit(self, char: str) -> None:
        self.out.append(char)
        self.offset += 2 if ord(char) > 0xFFFF else 1

    def _reference(self) -> bool:
        decoded = _decode_reference(self.source, self.pos)
        if decoded is None:
            return False
        char, self.pos = decoded
        self.surrogate = self.surrogate or 0xD800 <= ord(char) <= 0xDFFF
        self._emit(char)
        return True

    def _error(self, message: str, index: int) -> MarkupError:
        return MarkupError(f"{message} at byte offset {self._byte_offset(index)}")

    # --- tags --------------------------------------------------------------------------------------

    def _start_tag(self) -> None:
        begin = self.pos
        self.pos += 1
        name = self._skip_until((*SPACES, ">")).lower()
        if self._at() == "":
            raise self._error("Unclosed start tag", begin)
        if name not in SUPPORTED_TAGS:
            raise self._error(f'Unsupported start tag "{name}"', begin)
        argument = ""
        attributes: dict[str, str] = {}
        while self._at() != ">":
            argument = self._attribute(name, begin, argument, attributes)
        if name == "span" and argument != "spoiler":
            raise self._error('Tag "span" must have class "tg-spoiler"', begin)
        self.open_tags.append(_OpenTag(name, argument, self.offset, len(self.out), attributes))
        self.pos += 1

    def _attribute(self, tag: str, begin: int, argument: str, attributes: dict[str, str]) -> str:
        self._skip_spaces()
        if self._at() == ">":
            return argument
        attribute = self._skip_until((*SPACES, "=", ">", "/", '"', "'"))
        if not attribute:
            raise self._error(f'Empty attribute name in the tag "{tag}"', begin)
        self._skip_spaces()
        if self._at() != "=":
            if self._at() == "":
                raise self._error(f'Unclosed start tag "{tag}"', begin)
            return "1" if tag == "blockquote" and attribute == "expandable" else argument
        self.pos += 1
        self._skip_spaces()
        if self._at() == "":
            raise self._error(f'Unclosed start tag "{tag}"', begin)
        value = self._quoted_value() if self._at() in ("'", '"') else self._name_token()
        if self._at() == "":
            raise self._error("Unclosed start tag", begin)
        if tag == "tg-time":
            attributes[attribute.lower()] = value
        return _tag_argument(tag, attribute, value, argument)

    def _name_token(self) -> str:
        begin = self.pos
        match = NAME_TOKEN.match(self.source, self.pos)
        self.pos = match.end() if match else self.pos
        if self._at() not in (*SPACES, ">"):
            raise self._error("Unexpected end of name token", begin)
        return self.source[begin : self.pos].lower()

    def _quoted_value(self) -> str:
        quote = self._at()
        self.pos += 1
        value: list[str] = []
        while self._at() not in (quote, ""):
            decoded = _decode_reference(self.source, self.pos) if self._at() == "&" else None
            if decoded is None:
                value.append(self._at())
                self.pos += 1
            else:
                value.append(decoded[0])
                self.pos = decoded[1]
        if self._at() == quote:
            self.pos += 1
        return "".join(value)

    def _end_tag(self) -> None:
        begin = self.pos
        if not self.open_tags:
            raise self._error("Unexpected end tag", begin)
        self.pos += 2
        name = self._skip_until((*SPACES, ">")).lower()
        self._skip_spaces()
        if self._at() != ">":
            raise self._error("Unclosed end tag", begin)
        top = self.open_tags[-1]
        if name and name != top.name:
            raise MarkupError(
                f"Unmatched end tag at byte offset {self._byte_offset(begin)}, "
                f'expected "</{top.name}>", found "</{name}>"'
            )
        if self.offset > top.offset:
            self._close(top, self.offset - top.offset)
        self.open_tags.pop()
        self.pos += 1

    def _close(self, tag: _OpenTag, length: int) -> None:
        span = {"offset": tag.offset, "length": length}
        if tag.name in SIMPLE_TAGS:
            self.found.append(_Found({"type": SIMPLE_TAGS[tag.name], **span}))
        elif tag.name == "blockquote":
            self.found.append(_Found({"type": "expandable_blockquote" if tag.argument else "blockquote", **span}))
        elif tag.name == "tg-emoji":
            if not tag.argument.isdigit():
                raise MarkupError("Invalid custom emoji identifier specified")
            self.found.append(_Found({"type": "custom_emoji", **span, "custom_emoji_id": tag.argument}))
        elif tag.name == "tg-time":
            self.found.append(_Found({"type": "date_time", **span, **_date_time(tag.attributes)}))
        elif tag.name == "a":
            url = check_url(tag.argument or "".join(self.out[tag.start :]))
            if url is not None:
                self.found.append(_Found({"type": "text_link", **span, "url": url}))
        else:
            self._close_code(tag, span)

    def _close_code(self, tag: _OpenTag, span: JSON) -> None:
        """``pre`` and ``code``: ``<pre><code class="language-x">`` makes one pre entity with a language."""
        previous = self.found[-1] if self.found else None
        same_span = previous is not None and all(previous.entity[key] == span[key] for key in span)
        if tag.name == "pre":
            if same_span and previous and previous.entity["type"] == "code" and previous.language:
                previous.entity = {"type": "pre", **span, "language": previous.language}
            else:
                self.found.append(_Found({"type": "pre", **span}))
            return
        pre_without_language = previous and previous.entity["type"] == "pre" and "language" not in previous.entity
        if same_span and previous and pre_without_language and tag.argument:
            previous.entity = {"type": "pre", **span, "language": tag.argument}
        else:
            self.found.append(_Found({"type": "code", **span}, tag.argument))


def _date_time(attributes: dict[str, str]) -> JSON:
    """A date_time entity's own fields from ``unix`` and ``format``; an empty format is left out."""
    unix = attributes.get("unix", "")
    if not unix.isdigit() or not 0 < int(unix) <= MAX_UNIX_TIME:
        raise MarkupError("Invalid Unix time specified")
    time_format = attributes.get("format", "")
    if not TIME_FORMAT.fullmatch(time_format):
        raise MarkupError("Invalid date and time format specified")
    return {"unix_time": int(unix), **({"date_time_format": time_format} if time_format else {})}


def _tag_argument(tag: str, attribute: str, value: str, current: str) -> str:
    if tag == "a" and attribute == "href":
        return value
    if tag == "code" and attribute == "class" and value.startswith("language-"):
        return value.removeprefix("language-")
    if tag == "span" and attribute == "class" and value.startswith("tg-"):
        return value.removeprefix("tg-")
    if tag == "tg-emoji" and attribute == "emoji-id":
        return value
    if tag == "blockquote" and attribute == "expandable":
        return "1"
    return current


def _decode_reference(source: str, start: int) -> tuple[str, int] | None:
    """TDLib's ``decode_html_entity``: ``&lt; &gt; &amp; &quot;`` and numeric references, ``;`` optional.

    Returns the character and the index after the reference, or None when the ``&`` stays literal.
    """
    if source.startswith("&#", start):
        is_hex = source.startswith("&#x", start)
        digits = re.match(r"[0-9A-Fa-f]*" if is_hex else r"[0-9]*", source[start + (3 if is_hex else 2) :])
        text = digits.group() if digits else ""
        end = start + (3 if is_hex else 2) + len(text)
        code = int(text, 16 if is_hex else 10) if text else 0
        if code == 0 or code >= 0x10FFFF or end - start >= 10:
            return None
        char = chr(code)
    else:
        letters = re.match(r"[A-Za-z]*", source[start + 1 :])
        name = letters.group() if letters else ""
        if name not in NAMED_REFERENCES:
            return None
        end = start + 1 + len(name)
        char = NAMED_REFERENCES[name]
    return char, end + 1 if source.startswith(";", end) else end
