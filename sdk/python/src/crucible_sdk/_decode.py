"""Builds the generated dataclasses (``_models``) from parsed JSON. Strict mode refuses a key the types do not
know, which is how the test suite sees the Java records and the Python types drift; the default ignores such
keys, so a newer server still works with an older package."""

from __future__ import annotations

import dataclasses
import enum
import os
import types
import typing
from typing import Any, TypeVar, Union

from . import _models
from ._errors import DecodeError

T = TypeVar("T")

_HINTS: dict[type, dict[str, Any]] = {}


def strict_default() -> bool:
    return os.environ.get("CRUCIBLE_SDK_STRICT", "") == "1"


def decode(cls: type[T], data: object, strict: bool | None = None) -> T:
    """``data`` (parsed JSON) as an instance of the generated dataclass ``cls``; DecodeError names the field."""
    return typing.cast(T, _value(cls, data, cls.__name__, strict_default() if strict is None else strict))


def _hints(cls: type) -> dict[str, Any]:
    h = _HINTS.get(cls)
    if h is None:
        h = typing.get_type_hints(cls, vars(_models))
        _HINTS[cls] = h
    return h


def _value(tp: Any, v: object, where: str, strict: bool) -> object:
    origin = typing.get_origin(tp)
    if origin in (Union, types.UnionType):
        if v is None and type(None) in typing.get_args(tp):
            return None
        inner = [a for a in typing.get_args(tp) if a is not type(None)]
        return _value(inner[0], v, where, strict)
    if tp is Any:
        return v
    if origin is list:
        if not isinstance(v, list):
            raise DecodeError(f"{where}: expected a list, got {type(v).__name__}")
        (item,) = typing.get_args(tp)
        return [_value(item, x, f"{where}[{i}]", strict) for i, x in enumerate(v)]
    if origin is dict:
        if not isinstance(v, dict):
            raise DecodeError(f"{where}: expected an object, got {type(v).__name__}")
        _, val = typing.get_args(tp)
        return {k: _value(val, x, f"{where}.{k}", strict) for k, x in v.items()}
    if isinstance(tp, type) and dataclasses.is_dataclass(tp):
        if not isinstance(v, dict):
            raise DecodeError(f"{where}: expected an object, got {type(v).__name__}")
        hints = _hints(tp)
        unknown = [k for k in v if k not in hints]
        if strict and unknown:
            raise DecodeError(f"{where}: unknown field(s) {unknown}: the server and crucible_sdk's types drifted")
        kwargs = {k: _value(hints[k], x, f"{where}.{k}", strict) for k, x in v.items() if k in hints}
        missing = [f.name for f in dataclasses.fields(tp) if f.name not in kwargs
                   and f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING]
        if missing:
            raise DecodeError(f"{where}: required field(s) missing: {missing}")
        return tp(**kwargs)
    if isinstance(tp, type) and issubclass(tp, enum.Enum):
        try:
            return tp(v)
        except ValueError:
            raise DecodeError(f"{where}: {v!r} is not one of {[e.value for e in tp]}") from None
    if tp is float and isinstance(v, (int, float)) and not isinstance(v, bool):
        return float(v)
    if tp in (int, str, bool) and type(v) is tp:
        return v
    raise DecodeError(f"{where}: expected {getattr(tp, '__name__', tp)}, got {type(v).__name__} {v!r:.80}")
