"""What the tests and the benches share, importable without ``tests/``: a clock moved by hand
(:mod:`testkit.clock`) and the fake Telegram Bot API server (:mod:`testkit.fakebot`)."""
