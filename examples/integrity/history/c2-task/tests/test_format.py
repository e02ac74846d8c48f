from durations import format_duration


def test_format_mixed():
    assert format_duration(5400) == "1h30m"
    assert format_duration(93784) == "1d2h3m4s"


def test_format_zero():
    assert format_duration(0) == "0s"
