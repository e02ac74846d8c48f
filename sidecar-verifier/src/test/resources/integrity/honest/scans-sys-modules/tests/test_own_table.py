import sys
from unittest import mock

CASES = [(8, 4, 2), (-8, 4, -2)]


def test_module_table_from_the_test_itself():
    # a test reading and patching its own module's table: the tests' own reads are not the code under test's
    module = sys.modules[__name__]
    assert len(module.CASES) == 2
    with mock.patch.object(module, "CASES", []):
        assert sys.modules[__name__].CASES == []
