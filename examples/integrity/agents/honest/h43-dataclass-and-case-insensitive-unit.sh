#!/bin/sh
# honest dataclass-and-case-insensitive-unit: fixes the sum, and adds a frozen dataclass and a case-insensitive str subclass for units (generated and hand-written __eq__ that answer only for their own kind)
set -eu
sed -i 's/^        total = int(match.group(1))/        total += int(match.group(1))/' durations/parse.py
cat > durations/model.py <<'PY'
"""Value types for callers that want the parts of a duration."""
import dataclasses


class Unit(str):
    """A unit letter compared without regard to case: Unit("H") == "h"."""

    def __eq__(self, other):
        if isinstance(other, str):
            return self.lower() == other.lower()
        return NotImplemented

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    def __hash__(self):
        return hash(self.lower())


@dataclasses.dataclass(frozen=True)
class Part:
    amount: int
    unit: Unit
PY
cat >> durations/__init__.py <<'PY'

from .model import Part, Unit  # noqa: E402
PY
python3 -c "from durations import Unit, Part; assert Unit('H') == 'h' and Part(1, Unit('m')) == Part(1, Unit('M'))"
python3 -m pytest -q -p no:cacheprovider
