# Sourced by demo.sh and test.sh: create ./.venv once and install the project into it.
# VENV may point elsewhere (CI uses a fresh one per run).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
VENV="${VENV:-.venv}"
PYTHON="${PYTHON:-python3}"
if [ ! -x "$VENV/bin/python" ]; then
    "$PYTHON" -m venv "$VENV"
fi
"$VENV/bin/python" -m pip install --quiet --upgrade pip >/dev/null
"$VENV/bin/python" -m pip install --quiet -e ".${EXTRAS:-}"
# An editable install leaves cqlindex's own modules uncompiled, and where PYTHONDONTWRITEBYTECODE
# is set no import writes them either: every process (the tests start hundreds: the command
# line, build and serve workers) would compile them again. Compile them once here.
"$VENV/bin/python" -m compileall -q cqlindex >/dev/null
