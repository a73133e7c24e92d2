# Source this file to put Node <major> (default 24) first on PATH in this shell:
#   source scripts/use-node.sh        # Node 24 for every command that follows (npm, npx, node)
#   source scripts/use-node.sh 22
# The machine's own node may be older than Baton supports; this keeps anyone from testing on it.
_baton_node_bin="$(bash "$(dirname "${BASH_SOURCE[0]:-$0}")/node-bin.sh" "${1:-24}")" &&
  export PATH="$_baton_node_bin:$PATH" &&
  echo "Using Node $(node --version) from $_baton_node_bin"
unset _baton_node_bin
