"""The Telegram bot around the engine: use cases (service), timers, Telegram adapter, CLI."""

__version__ = "0.1.0"
