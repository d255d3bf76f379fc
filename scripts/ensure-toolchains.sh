#!/usr/bin/env bash
# Installs what the SDKs and the fuzzing step need when it is missing, and says nothing when
# everything is there: PHP and Ruby with their HTTP and test libraries (Debian packages), a Python
# virtualenv with the Python SDK's dependencies, schemathesis, and the DNS server and DKIM verifier
# the sending-domain tests use (PyPI), wheels of the SDK's
# pinned dependencies, and the pinned openapi-generator jar (Maven Central).
set -euo pipefail
cd "$(dirname "$0")/.."

GENERATOR_VERSION=7.17.0
JAR_DIR=.cache/openapi-generator
JAR="$JAR_DIR/openapi-generator-cli-$GENERATOR_VERSION.jar"
VENV=.venv
PYTHON_REQUIREMENTS=(sdk/python/requirements.txt sdk/python/requirements-dev.txt test/fuzz/requirements.txt test/dns/requirements.txt)
PYTHON_WHEELS=.cache/python-wheels

# chromium: the browser the dashboard's tests (test/browser) drive through playwright-core.
# php-zip: Composer reads the PHP SDK's zip (npm run sdk:pack) from an artifact repository with it.
# prometheus: scrapes a live server (test/api/metrics.test.ts); its promtool checks deploy/'s configuration and alerts.
# systemd: its systemd-analyze verifies deploy/sendline.service; Debian's container images lack it.
apt_packages=(php-cli php-curl php-mbstring php-xml php-zip php-guzzlehttp-guzzle php-guzzlehttp-psr7 phpunit composer ruby ruby-typhoeus ruby-rspec chromium prometheus systemd)
missing=()
for pkg in "${apt_packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "ensure-toolchains: installing ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ ! -x "$VENV/bin/python" ] || ! cat "${PYTHON_REQUIREMENTS[@]}" | cmp -s - "$VENV/.requirements"; then
  echo "ensure-toolchains: preparing the Python virtualenv" >&2
  python3 -m venv "$VENV"
  # Through the interpreter: pip's script names the path the virtualenv was made at, which a copy of it does not have.
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check "${PYTHON_REQUIREMENTS[@]/#/-r}"
  cat "${PYTHON_REQUIREMENTS[@]}" > "$VENV/.requirements"
fi
# The wheels of the Python SDK's pinned dependencies: its install test puts the built SDK into a
# fresh virtualenv from these, with no index.
if ! cmp -s sdk/python/requirements.txt "$PYTHON_WHEELS/.requirements"; then
  echo "ensure-toolchains: fetching the Python SDK's dependency wheels" >&2
  rm -rf "$PYTHON_WHEELS" && mkdir -p "$PYTHON_WHEELS"
  "$VENV/bin/python" -m pip download -q --disable-pip-version-check --only-binary=:all: -d "$PYTHON_WHEELS" -r sdk/python/requirements.txt
  cp sdk/python/requirements.txt "$PYTHON_WHEELS/.requirements"
fi

bash scripts/ensure-pg-tools.sh
# Citus, built into a PostgreSQL of its own outside the checkout, for test/citus.
bash scripts/ensure-citus.sh >/dev/null

if [ ! -f "$JAR" ]; then
  echo "ensure-toolchains: fetching openapi-generator $GENERATOR_VERSION" >&2
  mkdir -p "$JAR_DIR"
  mvn -q dependency:copy -Dartifact="org.openapitools:openapi-generator-cli:$GENERATOR_VERSION" -DoutputDirectory="$JAR_DIR" >&2
fi
