# A mapping of the code under test compared with a plain dict (oracle_eq.mapping_equal, found on psf/requests:
# `CaseInsensitiveDict({"Accept": ...}) == {"AccePT": ...}`): the tree's own __eq__, believed only when the object's
# own items (read before the dict is sent) hold the dict and its __eq__ says no to a decoy. A real (unboxed) worker.
import pytest

TREE = {"maps.py": """
    from collections.abc import Mapping, MutableMapping


    class CaseInsensitive(MutableMapping):  # requests.structures.CaseInsensitiveDict, in short
        def __init__(self, data=None):
            self._store = {}
            for k, v in (data or {}).items():
                self[k] = v

        def __setitem__(self, key, value):
            self._store[key.lower()] = (key, value)

        def __getitem__(self, key):
            return self._store[key.lower()][1]

        def __delitem__(self, key):
            del self._store[key.lower()]

        def __iter__(self):
            return (k for k, _ in self._store.values())

        def __len__(self):
            return len(self._store)

        def __eq__(self, other):
            if isinstance(other, Mapping):
                other = CaseInsensitive(other)
            else:
                return NotImplemented
            return dict((k, v[1]) for k, v in self._store.items()) == dict((k, v[1]) for k, v in other._store.items())


    class Always(CaseInsensitive):  # says equal to any mapping
        def __eq__(self, other):
            return True


    class Verifies(CaseInsensitive):  # holds wrong items, but says equal to the one dict it checks as right
        def __eq__(self, other):
            return isinstance(other, Mapping) and dict(other).get("Accept", "").lower() == "application/json" and len(other) == 1


    def headers():
        return CaseInsensitive({"Accept": "application/json"})


    def lenient():
        return Always({"Accept": "text/html"})


    def verifying():
        return Verifies({"Accept": "text/html"})
    """}


@pytest.fixture
def maps(oracle_tree):
    return oracle_tree(TREE, "maps")


def test_a_case_insensitive_mapping_equals_the_dict_it_holds(maps):
    h = maps.mod.headers()
    assert (h == {"AccePT": "application/json"}) is True
    assert (h == {"Accept": "text/html"}) is False
    assert (h == {}) is False
    assert (h == None) is False  # noqa: E711
    assert not maps.conn.attempts.items


def test_a_mapping_equal_to_everything_is_not_equal_and_an_attempt(maps):
    assert (maps.mod.lenient() == {"Accept": "application/json"}) is False
    assert [a["kind"] for a in maps.conn.attempts.items] == ["eq-lenient"]


def test_an_equality_that_verifies_the_dict_without_holding_it_is_not_equal(maps):
    assert (maps.mod.verifying() == {"Accept": "application/json"}) is False
    assert any("its own items are not those" in e["detail"] for e in maps.rec.events), maps.rec.events
