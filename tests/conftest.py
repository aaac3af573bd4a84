"""Fixtures shared by the rules tests; the helpers live in ``rules_testkit``."""

from __future__ import annotations

import pytest
from rules_testkit import card_set, small_specs

from solver.rules.cards import CardSet


@pytest.fixture(scope="session")
def small() -> CardSet:
    """The small playable set of :func:`small_specs`."""
    highway, landmarks = small_specs()
    return card_set(highway, landmarks, name="small")


@pytest.fixture(scope="session")
def custom() -> CardSet:
    """The default cards under another name: a full set that positions and records
    write inline (and read back: it passes the checks of a ``--cards`` file)."""
    from solver.rules.cards import load_card_set, parse_card_set

    raw = load_card_set().to_json() | {"name": "custom"}
    return parse_card_set(raw, "custom")



@pytest.fixture(scope="session", autouse=True)
def temporary_folder_of_the_run(tmp_path_factory):
    """Points the temporary folder of this process and of every process it starts
    (servers, workers, Chromium, PostgreSQL) into one folder removed when the run ends:
    a server the tests kill leaves multiprocessing's ``pymp-*`` folders behind, which
    would pile up in /tmp. Others may pass through it (mode 0711), as PostgreSQL's own
    user must to reach its data folder."""
    import os
    import shutil
    import tempfile
    from multiprocessing.util import Finalize

    tmp_path_factory.getbasetemp()  # (pytest's own stays where it was: kept after the run)
    folder = tempfile.mkdtemp(prefix="bigsur-tests-")
    os.chmod(folder, 0o711)
    saved = os.environ.get("TMPDIR"), tempfile.tempdir
    os.environ["TMPDIR"], tempfile.tempdir = folder, folder
    yield folder
    if saved[0] is None:
        os.environ.pop("TMPDIR", None)
    else:
        os.environ["TMPDIR"] = saved[0]
    tempfile.tempdir = saved[1]
    # at exit, after multiprocessing has removed this process's own folder in it (its
    # exit priority is -100: removed before, it printed a FileNotFoundError at exit)
    Finalize(None, shutil.rmtree, args=(folder,), kwargs={"ignore_errors": True},
             exitpriority=-200)
