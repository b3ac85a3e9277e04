"""Other projects' data, which the tests read from ``../shared/`` beside the
checkout and never from the repository (issue 41): the Python side of
``tests/shared.rs``, with the same rules.

- The folder is ``<repo>/../shared``, or ``$ARGMEND_SHARED`` (absolute, or
  relative to the repository's root).
- A test that needs a missing sub-folder is skipped with a reason that
  starts with ``MISSING`` and names the folder and what the test needs from
  it; ``tests/python.rs`` passes those skips on to ``scripts/test``, which
  adds them up in its summary.
- With ``ARGMEND_REQUIRE_SHARED=1`` (``.ci/run`` sets it) a missing folder
  fails the test instead.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# python/tests/ is <repo>/python/tests.
REPO = Path(__file__).resolve().parents[2]

# What every skip reason for want of shared data starts with (the same
# words as tests/shared.rs, so the drivers find them).
MISSING = "shared data missing:"


def root() -> Path:
    """The shared folder: ``$ARGMEND_SHARED``, or ``../shared`` beside the repository."""
    override = os.environ.get("ARGMEND_SHARED")
    # Normalised by name (as tests/shared.rs and js/test/shared.js do), so
    # the three languages name a missing folder alike.
    return Path(os.path.normpath(REPO / override if override else REPO.parent / "shared"))


def required() -> bool:
    """Whether a missing folder fails the test (``ARGMEND_REQUIRE_SHARED=1``)."""
    return os.environ.get("ARGMEND_REQUIRE_SHARED") == "1"


def reason(sub: str, what: str) -> str:
    """The skip reason for the missing folder ``sub``."""
    return f"{MISSING} {root() / sub} ({what})"


def find(sub: str) -> Path | None:
    """The folder ``sub`` of the shared folder, or ``None``, quietly: for
    collecting parameters; the test itself then calls ``need``."""
    path = root() / sub
    return path if path.is_dir() else None


def need(sub: str, what: str) -> Path:
    """The folder ``sub``; skips the calling test when it is missing (fails
    it under ``ARGMEND_REQUIRE_SHARED=1``). ``what`` says what the test needs
    from it."""
    path = find(sub)
    if path is not None:
        return path
    if required():
        pytest.fail(f"{reason(sub, what)}: ARGMEND_REQUIRE_SHARED=1 makes it a failure", pytrace=False)
    pytest.skip(reason(sub, what))
