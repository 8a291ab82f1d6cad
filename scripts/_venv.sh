# Sourced by scripts/demo, scripts/test and scripts/tablectl: create .venv and install the project
# once, and again only when pyproject.toml changes (a stamp holds its hash); then build the compiled
# engine that `tablectl simulate` runs, again only when controller/ or simulators/ change.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
VENV="${TABLECTL_VENV:-$ROOT/.venv}"
PY="${PYTHON:-python3}"
if [ ! -x "$VENV/bin/python" ]; then
    "$PY" -m venv "$VENV"
fi
stamp="$VENV/.tablectl-installed"
want="$(sha256sum "$ROOT/pyproject.toml" | cut -d' ' -f1)"
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
    "$VENV/bin/python" -m pip install --quiet --upgrade pip
    "$VENV/bin/python" -m pip install --quiet -e "$ROOT[test]"
    echo "$want" > "$stamp"
fi
# The compiled engine (tablectl/compiled_engine.py): built into $VENV/tablectl-compiled where a C
# compiler and mypyc are present, when its stamp is not the sources' (first use, or an edit of
# controller/ or simulators/: never old compiled code). Nothing to do: silent; else one line, the
# build's time or why there is none (then the pure engine runs). -P: the sources the venv imports,
# not a `controller` in the directory this was started from. TABLECTL_ENGINE=pure: no build.
"$VENV/bin/python" -P -m tablectl.compiled_engine ensure --by scripts/_venv.sh ||
    echo "compiled engine: the build step failed (above); tablectl simulate runs the pure-Python engine"
export PATH="$VENV/bin:$PATH"
