# Two of the tree's objects compared in the trusted process are equal where their fields are (Session.equal, the tree's
# own __eq__ is not asked: a lenient one would answer yes). A functools.cached_property's entry filled on one object only
# is no difference (blind round 20, h09: a Template whose parse was cached by render() and a fresh one with the same
# source, which its own __eq__ calls equal); any other field one object has and the other lacks still is.
TREE = {"tpl.py": """
    from functools import cached_property


    class Template:
        def __init__(self, source):
            self.source = source

        @cached_property
        def nodes(self):
            return self.source.split()

        def render(self):
            return " ".join(self.nodes)

        def __eq__(self, other):
            return isinstance(other, Template) and self.source == other.source

        def __hash__(self):
            return hash(self.source)


    class Lenient:
        def __init__(self, value):
            self.value = value

        def mark(self):
            self.extra = 1

        def __eq__(self, other):
            return True

        __hash__ = object.__hash__


    def rendered(source):
        t = Template(source)
        t.render()
        return t


    def marked(value):
        x = Lenient(value)
        x.mark()
        return x
    """}


def test_a_cache_filled_on_one_object_only_is_no_difference(oracle_tree):
    w = oracle_tree(TREE, "tpl")
    assert w.mod.rendered("a b") == w.mod.Template("a b")
    assert not (w.mod.rendered("a b") == w.mod.Template("a c"))


def test_another_field_one_object_lacks_still_is(oracle_tree):
    w = oracle_tree(TREE, "tpl")
    assert not (w.mod.marked(1) == w.mod.Lenient(1))  # its __eq__ says yes; the fields differ
    assert not (w.mod.Lenient(1) == w.mod.Lenient(2))
    assert w.mod.Lenient(3) == w.mod.Lenient(3)
