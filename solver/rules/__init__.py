"""The rules of Big Sur, and nothing but the rules (see docs/api.md)."""

from . import position as _position  # noqa: F401 - registers the JSON form of states
