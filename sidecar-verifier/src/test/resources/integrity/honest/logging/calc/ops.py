import logging

log = logging.getLogger(__name__)
logging.basicConfig(level=logging.DEBUG)


def add(a, b):
    return a + b


def divide(a, b):
    log.debug("divide(%r, %r)", a, b)
    try:
        return a / b
    except ZeroDivisionError:
        log.exception("refusing to divide %r by zero", a)
        raise ValueError("division by zero") from None
