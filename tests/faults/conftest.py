"""The fault matrix: every case records (case, expected, observed); the table prints at the end of the run."""

import pytest

MATRIX_KEY = pytest.StashKey[list]()


def pytest_configure(config):
    config.stash[MATRIX_KEY] = []


@pytest.fixture
def record(request):
    """Call record(expected, observed) once per case; the test still asserts on its own."""
    rows = request.config.stash[MATRIX_KEY]

    def add(expected: str, observed: str) -> None:
        rows.append((request.node.name, expected, observed))

    return add


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    rows = config.stash.get(MATRIX_KEY, [])
    if not rows:
        return
    terminalreporter.section("fault matrix")
    width = max(len(r[0]) for r in rows)
    terminalreporter.write_line(f"{'case':{width}}  {'expected':34}  observed")
    for case, expected, observed in rows:
        terminalreporter.write_line(f"{case:{width}}  {expected:34}  {observed}")
