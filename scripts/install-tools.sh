#!/usr/bin/env bash
# Installs every external tool the tests use. Idempotent: what is already installed is left alone.
#   - Debian packages (apt-get update once, only when something is missing)
#   - a project-local virtualenv .tools/venv with ruff, ty and pip-audit from PyPI
# npm packages (ESLint, Prettier, TypeScript, pyright, ...) come from package.json via `npm ci`.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(black flake8 python3-pytest python3-pytest-cov bandit mypy python3-venv git ruby rubocop)

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

# Python tools from PyPI in a project-local virtualenv (tests put .tools/venv/bin on the server's PATH):
# the ruff CLI (compared with the embedded build), ty (the default Python type checker) and pip-audit.
# Pinned, so a new release cannot change what the tests expect.
PY_TOOLS=(ruff==0.17.6 ty==0.0.108 pip-audit==2.10.1)
[ -x .tools/venv/bin/python ] || python3 -m venv .tools/venv
wanted=()
for spec in "${PY_TOOLS[@]}"; do
  name=${spec%%==*}
  version=${spec#*==}
  have=$(.tools/venv/bin/python -m pip show "$name" 2>/dev/null | sed -n "s/^Version: //p" || true)
  [ "$have" = "$version" ] || wanted+=("$spec")
done
if [ "${#wanted[@]}" -gt 0 ]; then
  echo "install-tools: pip install ${wanted[*]}"
  .tools/venv/bin/python -m pip install -q --disable-pip-version-check "${wanted[@]}"
fi
echo "install-tools: $(.tools/venv/bin/ruff --version), $(.tools/venv/bin/ty --version), $(.tools/venv/bin/pip-audit --version)"

# Go tools from the Go module proxy into .tools/go/bin (tests put it on the server's PATH). golint is deprecated
# upstream but still installs; its last release is a pseudo-version.
GO_TOOLS=(honnef.co/go/tools/cmd/staticcheck@v0.8.2 golang.org/x/lint/golint@v0.0.0-20210508222113-6edffad5e616)
if command -v go >/dev/null 2>&1; then
  for spec in "${GO_TOOLS[@]}"; do
    bin=${spec%@*}
    bin=${bin##*/}
    if [ ! -x ".tools/go/bin/$bin" ]; then
      echo "install-tools: go install $spec"
      GOBIN="$PWD/.tools/go/bin" GOTOOLCHAIN=local go install "$spec"
    fi
  done
  echo "install-tools: $(.tools/go/bin/staticcheck -version), golint"
else
  echo "install-tools: go is not installed; Go tests will fail under CI" >&2
fi
