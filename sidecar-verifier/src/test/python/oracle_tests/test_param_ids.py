# An Enum member of the tree as a test's parameter is named as pytest names it in-process (oracle_wire.enum_id, the
# plugin's pytest_make_parametrize_id; found on pallets/click, whose tests parametrize Sentinel.UNSET): a reference was
# named by position ("default3"), so a test that needed in-process grading was looked for under another id there and
# failed. Only Enum's own __str__ names it: a __str__ of the tree's never runs while an answer is encoded.
import oracle_plugin

TREE = {"sentinels.py": """
    import enum


    class Sentinel(enum.Enum):
        UNSET = object()

        def __repr__(self):
            return "Sentinel.UNSET!"


    class Loud(enum.Enum):
        A = object()

        def __str__(self):
            raise RuntimeError("never while encoding")


    UNSET = Sentinel.UNSET
    A = Loud.A
    PLAIN = object()
    """}


def name(v):
    return oracle_plugin.Oracle.pytest_make_parametrize_id(None, None, v, "default")


def test_an_enum_member_of_the_tree_is_named_as_pytest_names_it_in_process(oracle_tree):
    w = oracle_tree(TREE, "sentinels")
    assert name(w.mod.UNSET) == "Sentinel.UNSET"
    assert name(w.mod.A) is None and name(w.mod.PLAIN) is None  # pytest's own naming (by position)
    assert name("x") is None and name(3) is None


def test_the_workers_word_names_only_a_member_of_the_references_own_class(oracle_tree):
    w = oracle_tree(TREE, "sentinels")
    ref = w.mod.UNSET
    for forged in ("Other.UNSET", "Sentinel.UNSET-True-None", "x", "Sentinel.a.b", 7):
        ref._o_info["en"] = forged
        assert name(ref) is None
