"""Shared test fixtures: the tiny real checkpoints (built once per session) and an isolated workspace."""

import os
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).parent
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [str(TESTS), os.environ.get("PYTHONPATH")]))
sys.path.insert(0, str(TESTS))


@pytest.fixture(scope="session")
def fixture_dir(tmp_path_factory) -> Path:
    from modelcompat.fixtures import FIXTURES, build_all

    directory = tmp_path_factory.mktemp("fixtures")
    build_all(directory, tuple(FIXTURES) + ("broken-config",))
    return directory


@pytest.fixture(scope="session")
def smollm2() -> Path:
    from modelcompat.fixtures import smollm2_path

    return smollm2_path()


@pytest.fixture(scope="session")
def session_cache(tmp_path_factory) -> Path:
    """CPU references are shared across the session's tests, as a sweep shares them."""
    return tmp_path_factory.mktemp("cache")


@pytest.fixture
def ws(tmp_path, session_cache):
    from modelcompat.harness import Workspace

    return Workspace(staging=tmp_path / "staging", cache=session_cache)
