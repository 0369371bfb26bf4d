"""Restricted views of one disk: a scope, its scoops, and which disk or view running code
reaches."""
