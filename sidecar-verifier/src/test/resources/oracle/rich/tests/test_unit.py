import unittest

import shapes
from shapes import Point, NotFound


class ShapesTest(unittest.TestCase):
    def test_equal(self):
        self.assertEqual(Point(1, 2).moved(1, 1), Point(2, 3))
        self.assertEqual(list(shapes.numbers(3)), [0, 1, 4])

    def test_raises(self):
        with self.assertRaises(NotFound):
            shapes.parse_when("")
        self.assertRaises(KeyError, shapes.parse_when, "")

    def test_almost(self):
        self.assertAlmostEqual(shapes.money("0.1", "0.2")[0], __import__("decimal").Decimal("0.3"))
        self.assertIsInstance(Point(0, 0), Point)
        self.assertIn(4, list(shapes.numbers(3)))
