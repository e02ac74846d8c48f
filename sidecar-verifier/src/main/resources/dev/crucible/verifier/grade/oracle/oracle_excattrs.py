# An exception's instance attributes across the wire (itsdangerous' BadSignature.payload, BadPayload.original_error; httpx's
# exc.request): the worker sends those of the exception the tree raised, each as any answer crosses (plain data by value,
# the rest by reference), and the trusted side sets them on the exception's local mirror. One definition for both sides:
# the worker's source has this file between oracle_audit_sandbox and oracle_worker (oracle_launch, OracleFiles), and
# oracle_conn imports it. Nothing of the tree runs in the trusted process: a value is data or a reference's proxy.
EXC_ATTRS_MAX = 64
_EXC_DICT = BaseException.__dict__["__dict__"]  # the instance's own dict: no property or __getattr__ of the tree's class
_OS_FIELDS = ("errno", "strerror", "filename", "filename2")  # OSError's own fields, read from OSError's descriptors


def exc_attr_name(k):
    """Whether an attribute of that name crosses: an identifier that is no dunder, none of the oracle's names and none of
    BaseException's own (args, with_traceback, add_note): an attribute adds a value, never changes how the exception acts."""
    return (type(k) is str and k.isidentifier() and not k.startswith(("__", "_o_", "_oracle")) and k != "oracle_message"
            and not hasattr(BaseException, k))


def exc_attrs(e, enc):
    """Worker side: {name: encoded value} of e's instance attributes (enc: the worker's encoder, references allowed). A
    value that cannot cross is left out, never the call's answer: the test then reads no such attribute."""
    try:
        d = _EXC_DICT.__get__(e)
    except Exception:  # noqa: BLE001 - no dict: nothing to send
        return None
    if type(d) is not dict:
        return None
    out = {}
    for k in list(d)[:EXC_ATTRS_MAX]:
        if exc_attr_name(k):
            try:
                out[k] = enc(d[k])
            except BaseException:  # noqa: B902 - the encoder's failure on the tree's value (a __class__ that raises...)
                continue
    for c in type(e).__mro__:  # the properties of the tree's own classes, read here (blind round 20, h05: TemplateError's
        if c.__module__ == "builtins" or len(out) >= EXC_ATTRS_MAX:  # `line` read its args; the mirror had no such
            break  # property): their values, as the instance's attributes cross; no getter runs on the trusted side
        for k, v in list(c.__dict__.items())[:EXC_ATTRS_MAX]:
            if type(v) is property and exc_attr_name(k) and k not in out and k not in d:
                try:
                    out[k] = enc(v.__get__(e))
                except BaseException:  # noqa: B902 - a getter that raises: the test reads no such attribute
                    continue
    if isinstance(e, OSError):  # its fields are no __dict__ entries, and the tree may set them past its args (flask's
        for k in _OS_FIELDS:  # config.from_pyfile sets strerror: str(e) reads "Unable to load configuration file (...)")
            v = OSError.__dict__[k].__get__(e)
            if type(v) in (int, str, bytes):  # never None: a filename2 set to None reads "-> None" in str(e)
                out[k] = enc(v)
    return out or None


def set_exc_attrs(e, at, dec, errors=Exception):
    """Trusted side: sets the worker's attributes (exc_attrs) on the mirror e; dec decodes a value (references become
    proxies); a value this side cannot decode or set (errors) is left out, as above. A reference of a worker that broke
    (OracleBroken, a BaseException) still fails the call."""
    if type(at) is not dict or len(at) > EXC_ATTRS_MAX + len(_OS_FIELDS):
        return
    for k, v in at.items():
        if exc_attr_name(k) or k in _OS_FIELDS and isinstance(e, OSError):
            try:
                setattr(e, k, dec(v))
            except errors:
                continue
