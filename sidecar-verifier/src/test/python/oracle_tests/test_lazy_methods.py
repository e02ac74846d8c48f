# Method calls in one round trip (oracle_lazy): a real worker (oracle_worker, unboxed) and the trusted side's session.
# Once a read of a method answered a bound method, `obj.meth(x)` is one request, and everything else done with the
# method (repr, ==, its attributes, passing it to the tree) still reads as in-process.

import pytest

import oracle_lazy

TREE = '''
class Counter:
    def __init__(self, shadow=False, other=None):
        self.count = 0
        if shadow:
            self.add = lambda n=1: "instance attribute"
        if other is not None:
            self.cb = other.add  # a bound method stored in the object: the same object on every read

    def add(self, n=1):
        """Adds n."""
        self.count += n
        return self.count


def apply(f, *args):
    return f(*args)
'''


@pytest.fixture
def tree(oracle_tree):
    return oracle_tree({"calc.py": TREE}, "calc")  # conftest: a real worker, unboxed


def _requests(conn, f):
    before = conn.calls
    out = f()
    return out, conn.calls - before


def test_a_method_read_before_is_called_in_one_request(tree):
    c = tree.mod.Counter()
    assert _requests(tree.conn, lambda: c.add(2)) == (2, 3)  # the first read asks twice (made afresh?), then the call
    assert _requests(tree.conn, lambda: c.add(3)) == (5, 2 - 1)
    d = tree.mod.Counter()  # the same class, another object: one request too
    assert type(d.add) is oracle_lazy.LazyMethod
    assert _requests(tree.conn, lambda: d.add(n=4)) == (4, 1)
    assert c.count == 5 and d.count == 4  # each call ran on its own object, in the worker


def test_a_data_attribute_is_always_asked(tree):
    c = tree.mod.Counter()
    c.add()
    for _ in range(3):
        assert _requests(tree.conn, lambda: c.count)[1] == 1
    assert type(c.count) is int


def test_an_instance_attribute_over_the_method_is_what_is_called(tree):
    tree.mod.Counter().add()  # (Counter, add) is remembered as a method
    s = tree.mod.Counter(True)
    assert s.add() == "instance attribute"  # the worker looks the name up on the object, as in-process
    assert s.count == 0


def test_anything_but_a_call_reads_the_real_bound_method(tree):
    c = tree.mod.Counter()
    c.add()
    m = c.add
    assert type(m) is oracle_lazy.LazyMethod
    assert "bound method Counter.add" in repr(m)
    assert m.__name__ == "add" and m.__doc__ == "Adds n."
    assert m == c.add and hash(m) == hash(c.add)
    assert tree.mod.apply(m, 10) == 11  # passed to the tree: the real method, called there
    assert m(1) == 12  # and once fetched, calls go through it
    assert c.count == 12


def test_a_bound_method_stored_in_the_object_keeps_its_identity(tree):
    c = tree.mod.Counter(other=tree.mod.Counter())
    for _ in range(3):
        assert c.cb is c.cb  # as in-process: the object holds one bound method
    assert type(c.cb) is not oracle_lazy.LazyMethod
    assert c.cb(2) == 2


def test_the_class_attribute_is_the_same_function_each_time(tree):
    tree.mod.Counter().add()
    tree.mod.Counter().add()  # (Counter instances, add) is lazy now; the class's own attribute is not
    assert tree.mod.Counter.add is tree.mod.Counter.add
    assert type(tree.mod.Counter.add) is not oracle_lazy.LazyMethod
