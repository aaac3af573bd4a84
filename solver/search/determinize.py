"""The determinizer moved to :mod:`solver.rules.determinize` (the rules' public sampler;
``rules/`` imports nothing from ``search/``). Re-exported here for existing imports."""

from ..rules.determinize import (  # noqa: F401 - re-exports
    Determinizer,
    InconsistentViewError,
    determinize,
    sample_states,
)

__all__ = ["Determinizer", "InconsistentViewError", "determinize", "sample_states"]
