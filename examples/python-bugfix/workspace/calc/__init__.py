"""A tiny calculator package used by the bug-fix example environment."""
