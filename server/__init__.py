"""The Big Sur hint and analysis service: FastAPI over the same ``solver`` entry points
the CLI uses (no rule is re-implemented here). ``create_app()`` in :mod:`server.app`."""
