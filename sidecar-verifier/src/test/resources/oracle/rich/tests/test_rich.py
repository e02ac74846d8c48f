import datetime
import decimal
import fractions

import pytest

import shapes
from shapes import Colour, Point, Span, ShapeError, NotFound, Counter


def test_int_enum_compares_by_value():
    assert Colour.RED == 1
    assert Colour(2) is Colour.GREEN


def test_namedtuple_against_tuple():
    assert Span(1, 4) == (1, 4)
    assert Span(1, 4).width() == 3


def test_dataclass_structural():
    assert Point(1, 2).moved(1, 1) == Point(2, 3)
    assert Point(1, 2) != Point(2, 1)
    assert Point(1, 2).x == 1


def test_exception_hierarchy():
    with pytest.raises(NotFound):
        shapes.parse_when("")
    with pytest.raises(ShapeError):
        shapes.parse_when("")
    with pytest.raises(KeyError):
        shapes.parse_when("")


def test_value_types():
    assert shapes.parse_when("2024-01-02T03:04:05+00:00") == datetime.datetime(2024, 1, 2, 3, 4, 5, tzinfo=datetime.timezone.utc)
    assert shapes.money("0.1", "0.2") == (decimal.Decimal("0.3"), fractions.Fraction(1, 3))


def test_generator_and_len():
    assert list(shapes.numbers(4)) == [0, 1, 4, 9]
    with Counter() as c:
        assert len(c) == 1
    assert len(c) == 11


def test_in_place_mutation():
    xs = [3, 1, 2]
    shapes.sort_in_place(xs)
    assert xs == [1, 2, 3]


def test_file_from_tmp_path(tmp_path):
    p = tmp_path / "n.txt"
    p.write_text("1 2 3")
    assert shapes.read_total(p) == 6


def test_isinstance():
    assert isinstance(Point(0, 0), Point)
    assert not isinstance(3, Point)


def test_monkeypatch_falls_back(monkeypatch):
    monkeypatch.setattr(shapes, "numbers", lambda n: [1])
    assert shapes.numbers(3) == [1]
