# Method calls in one round trip. `obj.meth(x)` in a test is two requests when the attribute is fetched first: a
# `get` that answers a new bound method, then its `call`. Once reads of `meth` on a reference of a class answered a
# bound method made afresh (get_attr), later reads of that name on that class's references give a LazyMethod and no request: calling it
# sends one `call` with the name, and the worker does getattr then the call, exactly what `obj.meth(x)` does
# in-process (only the moment of the look-up moves after the arguments are evaluated, as for any call's arguments
# that do not touch `obj`). Anything else done with it (repr, ==, hash, an attribute, passing it to the tree)
# fetches the real bound method first and forwards. What decides it is the worker's own earlier answer, so a
# worker that lies gains nothing: the call is still getattr-and-call in the worker, whose answer it controls anyway,
# and a LazyMethod is, for `is`, `is None` and type checks, what any bound method the tree could return is.
_BOUND = "builtins.method"  # a Python function bound to the instance (methods of C types are not remembered)


def get_attr(r, name):
    """r.name, as Remote.__getattr__ answers it, remembering (kind, class, name) that answered a bound method made
    afresh on each read: a second read answers another object. One stored in the object or a module (`self.cb =
    other.meth`, `choice = _inst.choice`) is the same object each time, and `x.cb is x.cb` must hold: never lazy.
    Instances and their class are apart (`Cls.meth` is a function, the same each time)."""
    s = r._o_s
    info = r._o_info
    key = (info.get("k"), info.get("n"), name)
    if key in s.methods:
        return LazyMethod(r, name)
    v = s.request({"op": "get", "o": s.tag(r), "name": name})
    if _bound(v) and key[0] in ("obj", "cls") and type(key[1]) is str and key not in s.not_lazy and len(s.methods) < 4096:
        again = s.request({"op": "get", "o": s.tag(r), "name": name})  # once per key: made afresh, or stored?
        (s.methods if _bound(again) and again is not v else s.not_lazy).add(key)
    return v


def _bound(v):
    info = getattr(v, "_o_info", None) if type(v).__name__ != "LazyMethod" else None
    return type(info) is dict and info.get("n") == _BOUND and info.get("cl") is True


def real(v):
    """The real reference behind a LazyMethod (fetched once); anything else as it is."""
    return v._o_get() if type(v) is LazyMethod else v


class LazyMethod:
    __slots__ = ("_o_owner", "_o_name", "_o_real")

    def __init__(self, owner, name):
        object.__setattr__(self, "_o_owner", owner)
        object.__setattr__(self, "_o_name", name)
        object.__setattr__(self, "_o_real", None)

    def _o_get(self):
        got = self._o_real
        if got is None:
            o = self._o_owner
            got = o._o_s.request({"op": "get", "o": o._o_s.tag(o), "name": self._o_name})
            object.__setattr__(self, "_o_real", got)
        return got

    def __call__(self, *args, **kw):
        if self._o_real is not None:
            return self._o_real(*args, **kw)
        return self._o_owner._o_s.call(self._o_owner, self._o_name, args, kw)

    def __getattr__(self, name):
        if name.startswith("_o_"):
            raise AttributeError(name)
        return getattr(self._o_get(), name)

    def __setattr__(self, name, value):
        setattr(self._o_get(), name, value)

    def __delattr__(self, name):
        delattr(self._o_get(), name)

    @property
    def __doc__(self):
        return self._o_get().__doc__

    def __repr__(self):
        return repr(self._o_get())

    def __str__(self):
        return str(self._o_get())

    def __format__(self, spec):
        return format(self._o_get(), spec)

    def __dir__(self):
        return dir(self._o_get())

    def __bool__(self):
        return bool(self._o_get())

    def __eq__(self, other):
        return self._o_get() == real(other)

    def __ne__(self, other):
        return self._o_get() != real(other)

    def __hash__(self):
        return hash(self._o_get())

    def __reduce_ex__(self, proto):
        return self._o_get().__reduce_ex__(proto)

    def __copy__(self):
        return self._o_get().__copy__()

    def __deepcopy__(self, memo):
        return self._o_get().__deepcopy__(memo)
