import sys

_lookup = getattr  # a dispatch helper of the module, unrelated to frames


def _where():
    # its own function's name and line, for a debug label, as libraries do
    frame = sys._getframe(1)
    return "%s:%d" % (frame.f_code.co_name, frame.f_lineno)


class _Ops:
    def op_add(self, a, b):
        return a + b

    def op_div(self, a, b):
        if b == 0:
            raise ValueError("division by zero")
        return a / b


def _dispatch(name, *args):
    return _lookup(_Ops(), "op_" + name)(*args)


def _steps(n):
    for i in range(n):
        yield i


def add(a, b):
    assert _where().startswith("add:")
    return _dispatch("add", a, b)


def divide(a, b):
    label = _where()
    assert label.startswith("divide:"), label
    assert list(_steps(2)) == [0, 1]
    return _dispatch("div", a, b)
