# Constant folding of the string expressions code builds to dodge text rules, and dotted names of expressions.
import ast
import base64
import binascii
import codecs

from .rule_tables import MAX_FOLD


class Fold:
    """Best-effort constant folding of string expressions built to dodge text rules ("__e" + "q__")."""

    def __init__(self, consts, aliases=None):
        self.consts = consts  # module-level NAME = "constant"
        self.aliases = aliases or {}  # import aliases: "import base64 as _b" decodes as base64 does

    def _canon(self, name):
        head, dot, rest = (name or "").partition(".")
        return self.aliases.get(head, head) + dot + rest if name else name

    def value(self, e, depth=0):
        if depth > 40:
            return None
        v = self._value(e, depth + 1)
        if isinstance(v, (str, bytes)) and len(v) > MAX_FOLD:
            return None
        return v

    def _value(self, e, d):
        if isinstance(e, ast.Constant) and isinstance(e.value, (str, bytes, int)):
            return e.value
        if isinstance(e, ast.Name):
            return self.consts.get(e.id)
        if isinstance(e, ast.UnaryOp) and isinstance(e.op, ast.USub):
            v = self.value(e.operand, d)
            return -v if isinstance(v, int) else None
        if isinstance(e, ast.JoinedStr):
            parts = []
            for p in e.values:
                if isinstance(p, ast.Constant):
                    parts.append(str(p.value))
                elif isinstance(p, ast.FormattedValue) and p.format_spec is None:
                    v = self.value(p.value, d)
                    if v is None:
                        return None
                    parts.append(str(v))
                else:
                    return None
            return "".join(parts)
        if isinstance(e, ast.BinOp):
            a, b = self.value(e.left, d), self.value(e.right, d)
            if a is None or b is None:
                return None
            try:
                if isinstance(e.op, ast.Add) and type(a) is type(b):
                    return a + b
                if isinstance(e.op, ast.Mult) and isinstance(b, int) and b < 64:
                    return a * b
                if isinstance(e.op, ast.Mod) and isinstance(a, str):
                    return a % b
            except Exception:
                return None
            return None
        if isinstance(e, ast.Tuple):
            vals = [self.value(x, d) for x in e.elts]
            return None if any(v is None for v in vals) else tuple(vals)
        if isinstance(e, ast.List):
            vals = [self.value(x, d) for x in e.elts]
            return None if any(v is None for v in vals) else vals
        if isinstance(e, ast.Subscript):
            base = self.value(e.value, d)
            if not isinstance(base, (str, bytes)):
                return None
            s = e.slice
            try:
                if isinstance(s, ast.Slice):
                    parts = [None if x is None else self.value(x, d) for x in (s.lower, s.upper, s.step)]
                    if any(x is not None and not isinstance(x, int) for x in parts):
                        return None
                    return base[slice(*parts)]
                i = self.value(s, d)
                return base[i] if isinstance(i, int) else None
            except Exception:
                return None
        if isinstance(e, ast.Call):
            return self._call(e, d)
        return None

    def _call(self, e, d):
        f = e.func
        args = [self.value(a, d) for a in e.args]
        if e.keywords or any(a is None for a in args):
            return None
        try:
            if isinstance(f, ast.Name):
                if f.id == "chr" and len(args) == 1 and isinstance(args[0], int):
                    return chr(args[0])
                if f.id == "str" and len(args) == 1 and isinstance(args[0], (str, int)):
                    return str(args[0])
                if f.id == "bytes" and len(args) == 1 and isinstance(args[0], (list, tuple)):
                    return bytes(args[0])
                return None
            if not isinstance(f, ast.Attribute):
                return None
            name = self._canon(dotted(f))
            if name in ("base64.b64decode", "base64.b32decode", "base64.b16decode", "base64.urlsafe_b64decode") and len(args) == 1:
                return getattr(base64, name.split(".")[1])(args[0])
            if name == "binascii.unhexlify" and len(args) == 1:
                return binascii.unhexlify(args[0])
            if name == "bytes.fromhex" and len(args) == 1:
                return bytes.fromhex(args[0])
            if name == "codecs.decode" and len(args) == 2 and args[1] in ("rot13", "rot_13", "hex", "base64"):
                return codecs.decode(args[0], args[1])
            base = self.value(f.value, d)
            if isinstance(base, (str, bytes)) and f.attr in ("join", "format", "replace", "lower", "upper", "strip", "lstrip", "rstrip",
                                                             "decode", "encode", "title", "capitalize", "swapcase", "removeprefix",
                                                             "removesuffix", "zfill", "center", "ljust", "rjust"):
                if f.attr == "join" and len(args) == 1 and isinstance(args[0], (list, tuple)):
                    return base.join(args[0])
                if f.attr == "format":
                    return base.format(*args)
                if f.attr != "join":
                    return getattr(base, f.attr)(*args)
        except Exception:
            return None
        return None

    def text(self, e):
        v = self.value(e)
        if isinstance(v, bytes):
            try:
                v = v.decode()
            except UnicodeDecodeError:
                return None
        return v if isinstance(v, str) else None

    def prefix(self, e):
        """The known leading part of a string expression ("pytest_" + name -> "pytest_")."""
        t = self.text(e)
        if t is not None:
            return t
        if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Add):
            return self.prefix(e.left)
        if isinstance(e, ast.JoinedStr):
            out = ""
            for p in e.values:
                if isinstance(p, ast.Constant):
                    out += str(p.value)
                else:
                    v = self.text(p.value) if isinstance(p, ast.FormattedValue) else None
                    if v is None:
                        return out
                    out += v
            return out
        if isinstance(e, ast.BinOp) and isinstance(e.op, ast.Mod):
            fmt = self.text(e.left)
            if fmt is not None:
                return fmt.split("%", 1)[0]
        if isinstance(e, ast.Call) and isinstance(e.func, ast.Attribute) and e.func.attr == "format":
            fmt = self.text(e.func.value)
            if fmt is not None:
                return fmt.split("{", 1)[0]
        return ""


def dotted(e):
    parts = []
    while isinstance(e, ast.Attribute):
        parts.append(e.attr)
        e = e.value
    if isinstance(e, ast.Name):
        parts.append(e.id)
        return ".".join(reversed(parts))
    return None
