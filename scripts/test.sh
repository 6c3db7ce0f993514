#!/usr/bin/env bash
# The whole default test suite (slow benchmarks excluded: run them with scripts/test.sh -m slow).
EXTRAS="[test]" source "$(dirname "${BASH_SOURCE[0]}")/_venv.sh"
exec "$VENV/bin/python" -m pytest --durations=15 "$@"
