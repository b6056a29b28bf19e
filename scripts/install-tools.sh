#!/usr/bin/env bash
# Installs every external tool the tests use. Idempotent: what is already installed is left alone.
#   - Debian packages (apt-get update once, only when something is missing)
#   - a project-local virtualenv .tools/venv with the ruff CLI from the machine's local wheel mirror
# npm packages (ESLint, Prettier, TypeScript, pyright, ...) come from package.json via `npm ci`.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(black flake8 python3-pytest python3-pytest-cov bandit mypy python3-venv git)

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  echo "install-tools: apt-get install ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
  echo "install-tools: Debian packages present"
fi

# The ruff CLI (tests compare it with the embedded build). Only the machine's local mirror is reachable,
# so the index is pointed there to avoid retries against PyPI.
if [ ! -x .tools/venv/bin/ruff ]; then
  python3 -m venv .tools/venv
  if [ -d /opt/pypi/simple ]; then
    .tools/venv/bin/pip install -q --disable-pip-version-check --index-url file:///opt/pypi/simple ruff
  else
    .tools/venv/bin/pip install -q --disable-pip-version-check ruff
  fi
fi
echo "install-tools: ruff $(.tools/venv/bin/ruff --version)"
