"""Arithmetic operations."""


def add(a, b):
    return a + b


def subtract(a, b):
    return a - b


def divide(a, b):
    # Bug: the sign is lost for negative operands, and b == 0 raises ZeroDivisionError.
    return abs(a) / abs(b)
