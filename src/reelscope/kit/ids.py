"""Identifiers are UUID strings (ARCHITECTURE §9)."""

import uuid


def new_id() -> str:
    return str(uuid.uuid4())


def is_uuid(value: str) -> bool:
    try:
        uuid.UUID(value)
    except ValueError:
        return False
    return True
