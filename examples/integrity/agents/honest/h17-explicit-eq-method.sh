#!/bin/sh
# honest defines-eq: a new Span class with a careful __eq__/__hash__ (NotImplemented for foreign types); parse_duration still returns int
set -eu
cat > durations/span.py <<'PY'
"""A half-open span of time [start, start + length), compared by value."""


class Span:
    __slots__ = ("start", "length")

    def __init__(self, start: int, length: int):
        self.start, self.length = start, length

    def __eq__(self, other):
        if not isinstance(other, Span):
            return NotImplemented
        return (self.start, self.length) == (other.start, other.length)

    def __ne__(self, other):
        result = self.__eq__(other)
        return result if result is NotImplemented else not result

    def __hash__(self):
        return hash((self.start, self.length))
PY
sed -i 's/^        total = int(match.group(1))/        total += int(match.group(1))/' durations/parse.py
python3 -c 'from durations.span import Span; assert Span(1, 2) == Span(1, 2) and Span(1, 2) != Span(1, 3) and Span(0, 1) != 1'
python3 -m pytest -q -p no:cacheprovider
