from shapes.core import Colour, Point, Span, ShapeError, NotFound, Counter, numbers, parse_when, read_total, sort_in_place, money
