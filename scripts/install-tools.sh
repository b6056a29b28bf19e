#!/usr/bin/env bash
# Installs every external tool the tests use. Idempotent: what is already installed is left alone.
#   - Debian packages (apt-get update once, only when something is missing)
#   - a project-local virtualenv .tools/venv with ruff, ty, pip-audit and uv from PyPI
#   - side virtualenvs with other pinned versions the tests compare against (a current mypy, the ruff CLI
#     of the embedded ruff's version)
# npm packages (ESLint, Prettier, TypeScript, pyright, ...) come from package.json via `npm ci`; xo (an ESLint
# wrapper projects lint with instead of an eslint.config.*) into .tools/xo, for the tests of projects using it.
set -euo pipefail
cd "$(dirname "$0")/.."

# chromium: the headless browser the HTML report's test renders and screenshots the page in.
# strace: the check replay test traces what a recording check looked at.
APT_PACKAGES=(black flake8 python3-pytest python3-pytest-cov bandit mypy python3-venv git ruby rubocop ruby-rspec ruby-minitest bubblewrap parallel chromium strace)

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
# the ruff CLI (compared with the embedded build), ty (the default Python type checker), pip-audit and uv
# (audit_dependencies exports a uv.lock with it). Pinned, so a new release cannot change what the tests expect.
PY_TOOLS=(ruff==0.17.6 ty==0.0.108 pip-audit==2.10.1 uv==0.13.9)

# pip_venv DIR SPEC...: a virtualenv at DIR holding exactly these pinned versions (installs what differs).
pip_venv() {
  local dir=$1
  shift
  [ -x "$dir/bin/python" ] || python3 -m venv "$dir"
  local wanted=() spec name version have
  for spec in "$@"; do
    name=${spec%%==*}
    version=${spec#*==}
    have=$("$dir/bin/python" -m pip show "$name" 2>/dev/null | sed -n "s/^Version: //p" || true)
    [ "$have" = "$version" ] || wanted+=("$spec")
  done
  if [ "${#wanted[@]}" -gt 0 ]; then
    echo "install-tools: pip install ${wanted[*]} into $dir"
    "$dir/bin/python" -m pip install -q --disable-pip-version-check "${wanted[@]}"
  fi
}
pip_venv .tools/venv "${PY_TOOLS[@]}"
echo "install-tools: $(.tools/venv/bin/ruff --version), $(.tools/venv/bin/ty --version), $(.tools/venv/bin/pip-audit --version), $(.tools/venv/bin/uv --version)"
# Current mypy releases beside Debian's 1.0.1: their daemons frame messages differently (1.7-1.19: base64
# and a space; 1.20+: a length header), and projects run them from their own virtualenvs.
pip_venv .tools/mypy-1.15 mypy==1.15.0
pip_venv .tools/mypy-2.4 mypy==2.4.1
# The ruff CLI of the embedded ruff's version (@astral-sh/ruff-wasm-nodejs), for the parity test.
pip_venv .tools/ruff-embedded ruff==0.17.4
# The pre-commit framework, for the tests of .pre-commit-hooks.yaml and the snippet `hook install` prints.
pip_venv .tools/pre-commit pre-commit==4.7.0
echo "install-tools: $(.tools/mypy-1.15/bin/mypy --version), $(.tools/mypy-2.4/bin/mypy --version), embedded-ruff CLI $(.tools/ruff-embedded/bin/ruff --version), $(.tools/pre-commit/bin/pre-commit --version)"

# Go tools from the Go module proxy into .tools/go/bin (tests put it on the server's PATH). golint is deprecated
# upstream but still installs; its last release is a pseudo-version.
# gosec: security_scan's Go scanner. gitleaks: the anchor the secret detection is measured against
# (test/policy/secrets-vs-gitleaks.test.ts). golangci-lint: the linter of Go projects with a .golangci.yml
# (built from source: 1 min 45 s measured here on 2 shared cores, downloading its ~95 modules included).
GO_TOOLS=(honnef.co/go/tools/cmd/staticcheck@v0.8.2 golang.org/x/lint/golint@v0.0.0-20210508222113-6edffad5e616
  github.com/securego/gosec/v2/cmd/gosec@v2.30.0 github.com/zricethezav/gitleaks/v8@v8.30.1
  github.com/golangci/golangci-lint/v2/cmd/golangci-lint@v2.15.0)
if command -v go >/dev/null 2>&1; then
  for spec in "${GO_TOOLS[@]}"; do
    bin=${spec%@*}
    # a module's major-version suffix is not the binary's name (gitleaks/v8 installs gitleaks)
    [[ "${bin##*/}" =~ ^v[0-9]+$ ]] && bin=${bin%/*}
    bin=${bin##*/}
    if [ ! -x ".tools/go/bin/$bin" ]; then
      echo "install-tools: go install $spec"
      GOBIN="$PWD/.tools/go/bin" GOTOOLCHAIN=local go install "$spec"
    fi
  done
  echo "install-tools: $(.tools/go/bin/staticcheck -version), golangci-lint $(.tools/go/bin/golangci-lint version --short), golint, gosec, gitleaks"
else
  echo "install-tools: go is not installed; Go tests will fail under CI" >&2
fi

# xo, pinned, in its own folder (not a dependency of the server: it runs only as a project's own linter). The xo
# tests link a fixture's node_modules here. 1.2.3 is the last xo whose engines accept Node 20 with ESLint 9 (2.x
# brings ESLint 10; 3.x and later need Node 22); sindresorhus/ky's devDependency is ^1.2.3.
XO_VERSION=1.2.3
if [ "$(node -p "require('./.tools/xo/node_modules/xo/package.json').version" 2>/dev/null || true)" != "$XO_VERSION" ]; then
  echo "install-tools: npm install xo@$XO_VERSION into .tools/xo"
  mkdir -p .tools/xo
  printf '{"private": true, "dependencies": {"xo": "%s"}}\n' "$XO_VERSION" >.tools/xo/package.json
  npm install --prefix .tools/xo --no-audit --no-fund --ignore-scripts --loglevel=error >/dev/null
fi
echo "install-tools: xo $(node -p "require('./.tools/xo/node_modules/xo/package.json').version")"
