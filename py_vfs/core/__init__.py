"""The ground every layer stands on: errors, paths, nodes, cancellation, blocking calls,
and the pattern automata."""
