import pytest

from durations import parse_duration


def test_single_units():
    assert parse_duration("90s") == 90
    assert parse_duration("2h") == 7200
    assert parse_duration("3d") == 259200


def test_blanks_and_case():
    assert parse_duration("  15M ") == 900


@pytest.mark.parametrize("bad", ["", "   ", "h", "10", "5x", "1h 30m", "-3s"])
def test_rejects_malformed(bad):
    with pytest.raises(ValueError):
        parse_duration(bad)
