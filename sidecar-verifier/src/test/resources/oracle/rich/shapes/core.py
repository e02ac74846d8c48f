import collections
import dataclasses
import datetime
import decimal
import enum
import fractions


class Colour(enum.IntEnum):
    RED = 1
    GREEN = 2


class Span(collections.namedtuple("Span", "lo hi")):
    def width(self):
        return self.hi - self.lo


@dataclasses.dataclass
class Point:
    x: int
    y: int

    def moved(self, dx, dy):
        return Point(self.x + dx, self.y + dy)


class ShapeError(Exception):
    pass


class NotFound(ShapeError, KeyError):
    pass


class Counter:
    def __init__(self):
        self.n = 0

    def __enter__(self):
        self.n += 1
        return self

    def __exit__(self, *exc):
        self.n += 10
        return False

    def __len__(self):
        return self.n


def numbers(n):
    for i in range(n):
        yield i * i


def parse_when(s):
    if not s:
        raise NotFound("empty")
    return datetime.datetime.fromisoformat(s)


def read_total(path):
    with open(path) as f:
        return sum(int(x) for x in f.read().split())


def sort_in_place(xs):
    xs.sort()


def money(a, b):
    return decimal.Decimal(a) + decimal.Decimal(b), fractions.Fraction(1, 3)
