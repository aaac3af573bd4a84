"""How an error message says what was given instead of what it asks for.

``f"miles: must be an integer 1 to 4{got(value)}"`` reads "..., got 7" for a wrong value
and "... (missing)" for none at all (a field left out, null, or left blank), never
Python's ``got None`` or ``got ''``, which a player reads as noise.
"""

from __future__ import annotations

from typing import Any


def missing(value: Any) -> bool:
    """No value at all: None, or an empty string or list (a field left blank)."""
    return value is None or (isinstance(value, (str, list)) and not value)


def got(value: Any) -> str:
    """The end of a message: ``", got 7"``, or ``" (missing)"`` when there is no value."""
    return " (missing)" if missing(value) else f", got {value!r}"


def got_type(value: Any) -> str:
    """The end of a message about the type: ``", got list"``, or ``" (missing)"``."""
    return " (missing)" if value is None else f", got {type(value).__name__}"


def plural(count: int, word: str, many: str | None = None) -> str:
    """``count`` and the word in the right number: ``1 mistake``, ``2 inaccuracies``."""
    return f"{count} {word if count == 1 else many or word + 's'}"
