"""The build stamp: what a built tablectl was made from, fixed when it is built, for `tablectl --version`.

A setuptools `build_py` step (pyproject.toml, [tool.setuptools.cmdclass]) that writes tablectl/build_stamp.txt
into every build (a wheel, `pip install .`, deploy/install.sh's release): the commit, its date, whether the tree
had changes to tracked files, and when it was built. So an installed copy, with no .git beside it, still says
which source it is. The commit is taken, first found:
1. from TABLECTL_BUILD_STAMP (``commit=... date=... modified=yes|no``): deploy/install.sh builds a copy of the
   checkout without its .git, and reads the checkout's commit itself;
2. from git, in the tree being built (`pip install .` from a checkout);
3. from tablectl/build_stamp.txt as `git archive` wrote it (export-subst, .gitattributes): a release tarball.
Where none is found the stamp says so (``commit=unknown``). Not shipped: used by the build only.
"""

from __future__ import annotations

import os
import re
import subprocess
from datetime import datetime, timezone
from pathlib import Path

from setuptools.command.build_py import build_py

STAMP = Path("tablectl") / "build_stamp.txt"
_ARCHIVED = re.compile(r"^([0-9a-f]{7,40}) (\d{4}-\d\d-\d\d)$")  # what `git archive` makes of "$Format:%h %cs$"


def _git(root: Path, *args: str) -> str | None:
    try:
        out = subprocess.run(["git", "-c", f"safe.directory={root}", "-C", str(root), *args], capture_output=True,
                             text=True, timeout=30, check=True)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip()


def source_stamp(root: Path) -> dict[str, str]:
    """commit, date and modified of the source at ``root`` (see the module's docstring for where from)."""
    given = os.environ.get("TABLECTL_BUILD_STAMP", "").split()
    fields = dict(item.split("=", 1) for item in given if "=" in item)
    if fields.get("commit"):
        return {"commit": fields["commit"], "date": fields.get("date", "unknown"),
                "modified": fields.get("modified", "unknown")}
    if _git(root, "rev-parse", "--is-inside-work-tree") == "true" and (root / ".git").exists():
        commit = _git(root, "rev-parse", "--short=12", "HEAD")
        if commit:
            changes = _git(root, "status", "--porcelain", "--untracked-files=no")
            return {"commit": commit, "date": _git(root, "log", "-1", "--format=%cs") or "unknown",
                    "modified": "unknown" if changes is None else ("yes" if changes else "no")}
    archived = (root / STAMP).read_text(encoding="utf-8").strip() if (root / STAMP).exists() else ""
    if found := _ARCHIVED.match(archived):
        return {"commit": found[1], "date": found[2], "modified": "no"}
    return {"commit": "unknown", "date": "unknown", "modified": "unknown"}


class BuildPy(build_py):
    """build_py, then the stamp written over the placeholder in the build."""

    def run(self) -> None:
        super().run()
        stamp = source_stamp(Path.cwd())
        stamp["built"] = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        target = Path(self.build_lib) / STAMP
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text("".join(f"{key}={value}\n" for key, value in stamp.items()), encoding="utf-8")
