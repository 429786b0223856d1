#!/usr/bin/env bash
# Installs what the build needs on a fresh machine: Debian packages listed in
# scripts/debian-packages.txt, and a Python virtual environment (.venv) with
# the project and its PyPI dependencies (pyproject.toml).  Idempotent and
# quick when nothing changed.
set -euo pipefail
cd "$(dirname "$0")/.."

missing=()
while read -r pkg; do
    case "$pkg" in ''|'#'*) continue ;; esac
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done < scripts/debian-packages.txt

if [ ${#missing[@]} -gt 0 ]; then
    echo "setup: installing Debian packages: ${missing[*]}"
    sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends "${missing[@]}" >/dev/null
fi

py=${PYTHON:-python3}
stamp=.venv/.steadyfs-setup
want=$(cat pyproject.toml setup.py | sha256sum | cut -c1-16)
if [ ! -x .venv/bin/python ] || [ "$(cat "$stamp" 2>/dev/null)" != "$want" ]; then
    echo "setup: creating the Python environment in .venv"
    [ -x .venv/bin/python ] || "$py" -m venv .venv
    .venv/bin/python -m pip install -q --upgrade pip
    .venv/bin/python -m pip install -q -e '.[test]'
    echo "$want" > "$stamp"
fi
