"""Helpers the repository modules share: the dialect, and insert-if-missing as an upsert."""

from __future__ import annotations

from typing import Any

from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import SQLModel


def dialect_of(session: AsyncSession) -> str:
    return session.get_bind().dialect.name


def _insert(session: AsyncSession, model: type[SQLModel]) -> Any:
    """An INSERT that can say ON CONFLICT, for the session's database (SQLite or PostgreSQL)."""
    return (postgresql.insert if dialect_of(session) == "postgresql" else sqlite.insert)(model)


async def insert_if_missing(*, session: AsyncSession, model: type[SQLModel], key: str, values: dict[str, Any]) -> bool:
    """``INSERT … ON CONFLICT (key) DO NOTHING``: True if this call created the row. Two writers
    creating the same row at once both succeed; exactly one of them creates it."""
    query = _insert(session, model).values(**values).on_conflict_do_nothing(index_elements=[key])
    result: Any = await session.execute(query)
    return bool(result.rowcount)
