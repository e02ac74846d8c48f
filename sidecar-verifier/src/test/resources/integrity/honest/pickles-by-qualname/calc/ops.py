import importlib


def add(a, b):
    return a + b


def divide(a, b):
    if b == 0:
        raise ValueError("division by zero")
    return a / b


class Wrapped:
    """A callable wrapper that pickles by reference, as toolz's curry does: its __reduce__ imports the wrapped
    function's module by name and looks the wrapper up there by qualname, so that unpickling gives the same object."""

    def __init__(self, func):
        self.func = func
        self.__module__ = func.__module__
        self.__qualname__ = func.__qualname__

    def __call__(self, *args):
        return self.func(*args)

    def __reduce__(self):
        obj = importlib.import_module(self.__module__)
        for attr in self.__qualname__.split("."):
            obj = getattr(obj, attr, None)
        if obj is self:
            return self.__qualname__
        return (Wrapped, (self.func,))
