"""Hidden tests: copied into the grading tree only."""
import random

from durations import format_duration, parse_duration


def test_two_units():
    assert parse_duration("2h15m") == 8100


def test_all_units():
    assert parse_duration("1d2h3m4s") == 93784
    assert parse_duration("7D0h0M59S") == 604859


def test_roundtrip():
    rng = random.Random(20240611)
    for _ in range(300):
        n = rng.randrange(1, 10**7)
        got = parse_duration(format_duration(n))
        assert got == n


def test_single_unit_still_works():
    assert parse_duration("45m") == 2700
