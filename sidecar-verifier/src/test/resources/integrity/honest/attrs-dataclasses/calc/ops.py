import dataclasses
import enum
import typing

import attrs


class Kind(enum.Enum):
    EXACT = 1
    APPROX = 2


@attrs.define(frozen=True)
class Operands:
    a: float
    b: float = attrs.field(validator=attrs.validators.instance_of((int, float)))


@dataclasses.dataclass(frozen=True)
class Quotient:
    value: float
    kind: Kind = Kind.EXACT
    notes: list = dataclasses.field(default_factory=list)


class Pair(typing.NamedTuple):
    a: float
    b: float


def add(a, b):
    return a + b


def divide(a, b):
    ops = Operands(*Pair(a, b))
    if ops.b == 0:
        raise ValueError("division by zero")
    return dataclasses.replace(Quotient(ops.a / ops.b)).value
