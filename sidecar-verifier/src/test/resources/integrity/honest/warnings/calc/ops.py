import warnings


def add(a, b):
    return a + b


def divide(a, b):
    warnings.warn("divide() will move to calc.arith", DeprecationWarning, stacklevel=2)
    if b == 0:
        warnings.warn("zero divisor", RuntimeWarning)
        raise ValueError("division by zero")
    return a / b
