"""Typed keys for the session state the plugin keeps on ``config.stash``."""

from __future__ import annotations

import pytest

from .call import ManagedServer
from .settings import Settings

SETTINGS_KEY = pytest.StashKey[Settings]()
SERVERS_KEY = pytest.StashKey[list[ManagedServer]]()
