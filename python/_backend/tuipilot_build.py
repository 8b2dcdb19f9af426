"""The package's build backend: maturin's, with one difference. ``pip install ./python``
builds in the checkout, and the crate's own target folder (``python/target``, 234 MB of
compiled dependencies) was left behind there. A wheel built through this backend compiles
in a temporary folder, removed when the build ends. ``CARGO_TARGET_DIR``, when set, is
used as given; ``maturin develop`` and ``maturin build`` do not come through here and keep
their usual folder.
"""

from __future__ import annotations

import os
import tempfile
from typing import Any, Mapping, Optional

import maturin

# The rest of the interface, as maturin has it (the optional hooks only where it does).
for _hook in (
    "build_sdist",
    "build_editable",
    "get_requires_for_build_wheel",
    "get_requires_for_build_sdist",
    "get_requires_for_build_editable",
    "prepare_metadata_for_build_wheel",
    "prepare_metadata_for_build_editable",
):
    if hasattr(maturin, _hook):
        globals()[_hook] = getattr(maturin, _hook)


def build_wheel(
    wheel_directory: str,
    config_settings: Optional[Mapping[str, Any]] = None,
    metadata_directory: Optional[str] = None,
) -> str:
    if os.environ.get("CARGO_TARGET_DIR"):
        return maturin.build_wheel(wheel_directory, config_settings, metadata_directory)
    with tempfile.TemporaryDirectory(prefix="tuipilot-build-") as target:
        os.environ["CARGO_TARGET_DIR"] = target
        try:
            return maturin.build_wheel(wheel_directory, config_settings, metadata_directory)
        finally:
            del os.environ["CARGO_TARGET_DIR"]
