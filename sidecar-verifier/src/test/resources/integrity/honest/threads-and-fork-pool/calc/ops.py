import multiprocessing
from concurrent.futures import ThreadPoolExecutor


def _quotient(pair):
    a, b = pair
    return a / b


def add(a, b):
    return a + b


def divide(a, b):
    if b == 0:
        raise ValueError("division by zero")
    with ThreadPoolExecutor(max_workers=2) as pool:
        threaded = list(pool.map(_quotient, [(a, b)]))[0]
    with multiprocessing.get_context("fork").Pool(2) as procs:
        forked = procs.map(_quotient, [(a, b), (a, b)])[0]
    assert threaded == forked
    return forked
