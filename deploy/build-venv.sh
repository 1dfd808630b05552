#!/bin/sh
# Installs the bot from the current folder into the new virtual environment $1 with the engine
# compiled by mypyc (setup.py; a C compiler must be there), then fails unless every engine module is
# compiled: setup.py falls back to plain Python silently, and the `hard` level needs the speed.
# deploy/Dockerfile's builder stage runs this; tests/test_image_build.py runs it the same way
# without docker. $PYTHON picks the interpreter (default python3).
set -eu
"${PYTHON:-python3}" -m venv "$1"
"$1/bin/pip" install --no-cache-dir --quiet .
cd /  # import the installed package, not the sources in this folder
"$1/bin/python" -c '
import sys
from engine.native import COMPILED, compiled_modules
found = compiled_modules()
print(f"engine: {len(found)} of {len(COMPILED)} modules compiled by mypyc")
sys.exit(0 if len(found) == len(COMPILED) else 1)
'
