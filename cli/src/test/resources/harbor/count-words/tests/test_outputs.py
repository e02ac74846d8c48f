"""Checks /app/count.txt; copied to /tests/test_outputs.py and run by /tests/test.sh from the working directory."""

from pathlib import Path


def test_count_file_exists():
    assert Path("/app/count.txt").is_file()


def test_count_is_the_number_of_words():
    assert Path("/app/count.txt").read_text().strip() == "9"
