"""Telegram handlers by feature — ``lobby``, ``play``, ``control`` (pause, nudge, abort),
``chat_settings``, ``info``, ``chats`` — each thin: answer, parse, call one use case, deliver.
``presses`` turns every inline-button press into a call of its feature's handler."""
