import inspect
import sys


def _trace():
    frame = inspect.currentframe()
    info = inspect.getframeinfo(frame)
    name = sys._getframe(0).f_code.co_name
    return name, info.lineno, str(inspect.signature(divide)), inspect.getsource(_trace).splitlines()[0]


def add(a, b):
    return a + b


def divide(a, b):
    assert _trace()[0] == "_trace"
    if b == 0:
        raise ValueError("division by zero")
    return a / b
