"""Database tables, engine and session factories, repositories and migrations."""
