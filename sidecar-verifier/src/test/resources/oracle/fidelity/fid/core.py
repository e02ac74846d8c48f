"""Helpers with doctests, and the value kinds the oracle must carry faithfully (each seen in a real suite)."""
import random
import warnings

__all__ = ["inc", "Cache", "RRCache", "HashedTuple", "hashkey", "typedkey", "Wrapped", "wrapped_inc", "old_api", "apply"]


def inc(x):
    """Add one.

    >>> inc(1)
    2
    """
    return x + 1


def apply(f, *args):
    """f(*args): a test may pass a builtin or a pure library function."""
    return f(*args)


class Cache:
    def __init__(self, maxsize):
        self.maxsize = maxsize
        self.data = {}

    def __repr__(self):
        return "%s(%r, maxsize=%r)" % (type(self).__name__, self.data, self.maxsize)

    def popitem(self):
        try:
            key = next(iter(self.data))
        except StopIteration:
            raise KeyError("%s is empty" % type(self).__name__) from None
        return key, self.data.pop(key)


class RRCache(Cache):
    def __init__(self, maxsize, choice=random.choice):
        Cache.__init__(self, maxsize)
        self.choice = choice


class HashedTuple(tuple):
    """A tuple that caches its hash in its __dict__ (cachetools' keys)."""
    __hashvalue = None

    def __hash__(self, hash=tuple.__hash__):
        hashvalue = self.__hashvalue
        if hashvalue is None:
            self.__hashvalue = hashvalue = hash(self)
        return hashvalue

    def __add__(self, other):
        return HashedTuple(tuple.__add__(self, other))


def hashkey(*args):
    return HashedTuple(args)


def typedkey(*args):
    return HashedTuple(args + tuple(type(a) for a in args))


class Wrapped:
    """A callable whose __doc__ and __module__ are its own per instance (toolz's curry)."""

    def __init__(self, func, module):
        self.func = func
        self.__doc__ = func.__doc__
        self.__module__ = module

    def __call__(self, *args):
        return self.func(*args)


wrapped_inc = Wrapped(inc, "fid.elsewhere")


def old_api():
    warnings.warn("old_api is deprecated", DeprecationWarning, stacklevel=2)
    return 1
