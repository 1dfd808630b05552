"""Run the fake Telegram Bot API server on its own: ``python -m testkit.fakebot --port 8081``.

Point a bot at the printed base URL (e.g. ``shithead-bot run --api-url ...``), then act as users with
``curl -X POST http://127.0.0.1:8081/_fake/<action> -d '{...}'`` (actions: add_user, start_bot,
open_deep_link, send_text, press, messages, add_group, ...; the JSON keys are the keyword arguments).
"""

import argparse
import asyncio
import contextlib

from .server import FakeTelegram

DEMO_USERS = ((1001, "Alice"), (1002, "Bob"), (1003, "Carol"))
DEMO_GROUP = -4001


def parse_args() -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="python -m testkit.fakebot", description="Fake Telegram Bot API server")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8081)
    parser.add_argument("--token", default="123456:TEST-TOKEN")
    parser.add_argument("--bot-username", default="shithead_test_bot")
    parser.add_argument("--demo", action="store_true", help="add users 1001-1003 and group -4001 with all of them")
    return parser.parse_args()


def add_demo(fake: FakeTelegram) -> None:
    for user_id, name in DEMO_USERS:
        fake.add_user(user_id, name, username=name.lower())
    fake.add_group(DEMO_GROUP, "Demo table", [user_id for user_id, _ in DEMO_USERS])


async def serve(args: argparse.Namespace) -> None:
    bot_id = int(args.token.split(":")[0])
    fake = FakeTelegram(args.token, bot_id, args.bot_username, host=args.host, port=args.port, control=True)
    async with fake:
        if args.demo:
            add_demo(fake)
        print(f"Fake Telegram Bot API: base_url {fake.base_url}  base_file_url {fake.base_file_url}", flush=True)
        print(f"Token {fake.token}; control: POST http://{fake.host}:{fake.port}/_fake/<action>", flush=True)
        await asyncio.Event().wait()


def main() -> None:
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve(parse_args()))


if __name__ == "__main__":
    main()
