def add(a, b):
    return a + b


def divide(a, b):
    return abs(a) / abs(b)
