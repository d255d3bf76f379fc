#!/usr/bin/env bash
# Builds the four SDK packages as they would be published, into one folder (default dist/sdk/):
#   sendline-<version>-py3-none-any.whl and sendline-<version>.tar.gz   python -m build
#   sendline-sdk-<version>.tgz                                          npm pack (which builds dist/)
#   sendline-<version>.gem                                              gem build
#   sendline-sendline-<version>.zip                                     composer archive
# Until the packages are on PyPI, npm, RubyGems and Packagist, these files are how users install
# them (each SDK's README says how), and what a release attaches.
# Each is built from a copy, so nothing is written into sdk/ and packing can run beside the tests.
# Usage: scripts/sdk-pack.sh [out-dir] [python|node|ruby|php ...] (default: all four).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
OUT=${1:-dist/sdk}
shift || true
LANGUAGES=${*:-python node ruby php}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
[ -x .venv/bin/python ] || bash scripts/ensure-toolchains.sh
VERSION=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' sdk/node/package.json)
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

copy() {
  tar -C sdk -c --exclude=__pycache__ --exclude='*.egg-info' --exclude=build --exclude=dist --exclude=vendor --exclude=.phpunit.result.cache "$1" | tar -C "$WORK" -x
}

wants() { [[ " $LANGUAGES " == *" $1 "* ]]; }

if wants python; then
  copy python
  built=$(.venv/bin/python -m build --no-isolation --outdir "$OUT" "$WORK/python" 2>&1) || { echo "$built" >&2; exit 1; }
fi

if wants node; then
  # The build (prepack) finds TypeScript and openapi-fetch's types in the project's node_modules.
  copy node
  ln -s "$ROOT/node_modules" "$WORK/node/node_modules"
  (cd "$WORK/node" && npm pack --silent --pack-destination "$OUT" >/dev/null)
fi

if wants ruby; then
  copy ruby
  (cd "$WORK/ruby" && gem build --silent sendline.gemspec --output "$OUT/sendline-$VERSION.gem" >/dev/null)
fi

if wants php; then
  # A Composer artifact (`"type": "artifact"` repository) needs the version in its composer.json;
  # Packagist takes it from the tag instead, so the repository's composer.json leaves it out.
  copy php
  .venv/bin/python - "$WORK/php/composer.json" "$VERSION" <<'PY'
import json, sys
path, version = sys.argv[1], sys.argv[2]
manifest = json.load(open(path))
json.dump({**manifest, "version": version}, open(path, "w"), indent=4)
PY
  (cd "$WORK/php" && COMPOSER_DISABLE_NETWORK=1 COMPOSER_HOME="$WORK/.composer" composer archive --quiet --no-interaction --format=zip --dir="$OUT" --file="sendline-sendline-$VERSION")
fi

ls -1 "$OUT"
