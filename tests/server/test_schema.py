"""schemathesis against /openapi.json: generated requests to every operation, zero 5xx,
every status code one the operation documents (a generated client reads nothing from
an undocumented one) and every response conforming to the documented schema (for its
status code). Both
generation modes run: inputs valid by the schema and inputs that break it.

CI: up to 16 generated requests per operation (a few hundred in all, at least 100);
``BIGSUR_FULL=1``: up to 160 (at least 2,000 in all). The app runs with the real
search in a thread pool and small budget caps (a generated position that happens to be
valid is searched for real). One test per operation, each with its own id
(``schema.parametrize()`` gave every operation the same one, which pytest-xdist, the
suite's two processes, cannot tell apart: it ran one of them).
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

import pytest
import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    response_schema_conformance,
    status_code_conformance,
)

from server.app import create_app
from server.settings import Settings

FULL = os.environ.get("BIGSUR_FULL") == "1"
EXAMPLES = 160 if FULL else 16  # per operation, at most
COUNT = {"requests": 0, "5xx": 0}
BY_STATUS: dict[int, int] = {}

# budgets and job caps out of reach: a 503 (saturation, by design) would hide nothing here
_DB_DIR = tempfile.mkdtemp(prefix="bigsur-schema-")
# removed when the process ends: every process that collects this file makes one, and
# under pytest-xdist only one of them runs its tests (a module fixture left the others)
atexit.register(shutil.rmtree, _DB_DIR, ignore_errors=True)
_app = create_app(Settings(db=os.path.join(_DB_DIR, "s.db"),
                           workers=2, pool="thread", warm=False, max_budget_ms=50,
                           max_iterations=50, default_budget_ms=20, analysis_budget_ms=5,
                           analysis_max_decisions=10, ai_wait_seconds=5, max_jobs=100_000,
                           max_jobs_per_client=100_000, max_games_per_client=100_000,
                           queue_wait_seconds=600, deadline_grace_ms=600_000))
schema = schemathesis.openapi.from_asgi("/openapi.json", _app)
OPERATIONS = [result.ok() for result in schema.get_all_operations()]


@pytest.mark.parametrize("operation", OPERATIONS, ids=lambda operation: operation.label)
def test_generated_requests(operation):
    """Inputs valid by the schema and inputs that break it (where anything can: an
    operation with no parameter or body has no invalid input, and a strategy of only
    those would be unsatisfiable, so the two modes are drawn from together)."""

    @given(case=operation.as_strategy(GenerationMode.POSITIVE)
           | operation.as_strategy(GenerationMode.NEGATIVE))
    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    def check(case):
        response = case.call()
        COUNT["requests"] += 1
        BY_STATUS[response.status_code] = BY_STATUS.get(response.status_code, 0) + 1
        COUNT["5xx"] += response.status_code >= 500
        case.validate_response(response, checks=[not_a_server_error,
                                                 status_code_conformance,
                                                 response_schema_conformance])

    check()


def test_enough_requests_were_generated():
    """Runs after the generated tests (file order): the total is the budget asked."""
    if COUNT["requests"] == 0:
        return  # the generated tests were deselected
    assert COUNT["5xx"] == 0
    assert COUNT["requests"] >= (2000 if FULL else 100), (COUNT, BY_STATUS)
    assert BY_STATUS.get(422, 0) > 0 and any(200 <= s < 300 for s in BY_STATUS), BY_STATUS
