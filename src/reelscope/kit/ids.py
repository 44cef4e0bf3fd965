"""Identifiers are UUID strings (ARCHITECTURE §9).

``new_id`` is a random UUID (version 4) for anything a client may see or guess at. ``new_ordered_id``
is a time-ordered UUID (version 7) for rows only ever appended, such as the credit ledger: its index
then grows at its end, so a commit of many rows touches a few pages rather than one random page per
row (ADR 0015). Both come from uuid-utils, several times faster than the standard library's uuid4.
"""

import uuid_utils


def new_id() -> str:
    return str(uuid_utils.uuid4())


def new_ordered_id() -> str:
    return str(uuid_utils.uuid7())
