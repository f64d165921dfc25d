#!/usr/bin/env bash
# Install kubernetes-validate (PyPI), which checks the manifests under
# deploy/kubernetes offline against the Kubernetes 1.25 to 1.37 schemas it
# bundles (tests/deploy.rs), into its own venv:
#
#   ${XDG_DATA_HOME:-$HOME/.local/share}/rumbench/kubernetes-validate/bin/kubernetes-validate
#
# Idempotent: does nothing when that version is already there. Installs
# python3-venv with apt first when Python's venv module is missing (run as
# root, or with sudo available). Prints nothing on stdout; progress goes to
# stderr. Run from anywhere.
set -euo pipefail

VERSION=1.37.0
VENV="${XDG_DATA_HOME:-$HOME/.local/share}/rumbench/kubernetes-validate"

# Debian's python3 is the one python3-venv provides venv for; another python3
# on PATH (pyenv, a venv) is used only when there is no /usr/bin/python3.
if [ -x /usr/bin/python3 ]; then
  PYTHON=/usr/bin/python3
else
  PYTHON="$(command -v python3 || true)"
fi
if [ -z "$PYTHON" ]; then
  echo "install-kubernetes-validate: python3 not found (apt-get install python3 python3-venv)" >&2
  exit 1
fi

installed_version() {
  [ -x "$VENV/bin/python" ] || return 0
  "$VENV/bin/python" -c 'import importlib.metadata as m; print(m.version("kubernetes-validate"))' 2>/dev/null || true
}

if [ "$(installed_version)" = "$VERSION" ] && [ -x "$VENV/bin/kubernetes-validate" ]; then
  exit 0
fi

# `venv` and `ensurepip` both: Debian splits ensurepip out into python3-venv.
if ! "$PYTHON" -c 'import venv, ensurepip' >/dev/null 2>&1; then
  SUDO=""
  if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
  echo "install-kubernetes-validate: installing python3-venv" >&2
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq python3-venv >/dev/null
fi

# A venv that is broken (no python) or from another python is made anew.
if [ ! -x "$VENV/bin/python" ] || ! "$VENV/bin/python" -c 'import pip' >/dev/null 2>&1; then
  rm -rf "$VENV"
  mkdir -p "$(dirname "$VENV")"
  "$PYTHON" -m venv "$VENV" >&2
fi
echo "install-kubernetes-validate: installing kubernetes-validate==$VERSION into $VENV" >&2
"$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "kubernetes-validate==$VERSION" >&2

if [ "$(installed_version)" != "$VERSION" ] || [ ! -x "$VENV/bin/kubernetes-validate" ]; then
  echo "install-kubernetes-validate: $VENV/bin/kubernetes-validate $VERSION is not there after the install" >&2
  exit 1
fi
echo "install-kubernetes-validate: ok ($VENV/bin/kubernetes-validate)" >&2
