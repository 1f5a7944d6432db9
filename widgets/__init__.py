"""Pure views: each reads names from a Trace plus the selection, and draws; never computes."""
