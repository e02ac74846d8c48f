import inspect


def _caller_module():
    # as scrapy's create_deprecated_class does: the caller's module, read off inspect.stack() (issue 35)
    frm = inspect.stack()[1]
    mod = inspect.getmodule(frm[0])
    return mod.__name__ if mod is not None else None


def add(a, b):
    return a + b


def divide(a, b):
    _caller_module()
    if b == 0:
        raise ValueError("division by zero")
    return a / b
