"""Adapters to agent frameworks; each imports its framework only when used (install the matching extra)."""
