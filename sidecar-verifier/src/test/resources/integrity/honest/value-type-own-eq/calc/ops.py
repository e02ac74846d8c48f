class Quotient(float):
    """A quotient that remembers its operands; compares as a float, and only with numbers."""

    def __new__(cls, value, a=None, b=None):
        q = super().__new__(cls, value)
        q.operands = (a, b)
        return q

    def __eq__(self, other):
        if isinstance(other, (int, float)):
            return float(self) == float(other)
        return NotImplemented

    def __ne__(self, other):
        eq = self.__eq__(other)
        return eq if eq is NotImplemented else not eq

    __hash__ = float.__hash__


def add(a, b):
    return a + b


def divide(a, b):
    if b == 0:
        raise ValueError("division by zero")
    return Quotient(a / b, a, b)
