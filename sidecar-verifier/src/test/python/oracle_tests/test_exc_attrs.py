# An exception's instance attributes cross with it (oracle_excattrs; found on pallets/itsdangerous, whose own suite checks
# BadSignature.payload and BadPayload.original_error): plain data by value, the rest as references, and nothing that
# changes how the exception behaves in the trusted process. Run against a real (unboxed) worker.
import pytest

import oracle_remote

TREE = {"sig.py": """
    import json


    class BadData(Exception):
        pass


    class BadSignature(BadData):
        def __init__(self, message, payload=None):
            super().__init__(message)
            self.payload = payload


    class BadPayload(BadData):
        def __init__(self, message, original_error=None):
            super().__init__(message)
            self.original_error = original_error


    class Sneaky(Exception):
        def __init__(self):
            super().__init__("sneaky")
            self.__dict__.update({"__class__": 1, "args": ("forged",), "with_traceback": 2, "oracle_message": "x",
                                  "_oracle_name": "y", "fine": [1, 2], 7: 8})


    class Unsendable:
        def __getattribute__(self, name):
            raise RuntimeError("no")


    def loads(s):
        raise BadSignature("Signature does not match", payload=s[:-1].encode())


    def load_payload(b):
        try:
            return json.loads(b)
        except ValueError as e:
            raise BadPayload("Could not load the payload", original_error=e)


    def sneaky():
        raise Sneaky()
    """}


@pytest.fixture(scope="module")
def world(module_oracle_tree):
    return module_oracle_tree(TREE, "sig")


def call(w, name, *args):
    return w.session.call(w.mod, name, list(args), {})


def test_plain_attributes_cross_by_value(world):
    with pytest.raises(Exception) as ei:
        call(world, "loads", "abc.def")
    assert type(ei.value).__name__ == "BadSignature" and ei.value.args == ("Signature does not match",)
    assert type(ei.value.payload) is bytes and ei.value.payload == b"abc.de"


def test_other_attributes_cross_as_references(world):
    with pytest.raises(Exception) as ei:
        call(world, "load_payload", b"{not json")
    err = ei.value.original_error
    assert err is not None and isinstance(err, oracle_remote.Remote)
    assert "JSONDecodeError" in type(err).__name__ or "JSONDecodeError" in repr(err)


def test_no_attribute_changes_how_the_exception_behaves_here(world):
    with pytest.raises(Exception) as ei:
        call(world, "sneaky")
    e = ei.value
    assert type(e).__name__ == "Sneaky" and e.args == ("sneaky",)  # not the forged args
    assert callable(e.with_traceback) and not hasattr(e, "_oracle_name_set")
    assert e.fine == [1, 2] and type(e.fine) is list
    assert type(e).__name__ == "Sneaky" and e.__class__ is type(e)


def test_an_oserrors_own_fields_cross_as_the_tree_set_them(oracle_tree):
    # flask's config.from_pyfile sets strerror on the OSError it re-raises; its test reads str(e) (pallets/flask)
    w = oracle_tree({"cfg.py": """
        def load(name):
            try:
                open(name, "rb")
            except OSError as e:
                e.strerror = "Unable to load configuration file (%s)" % e.strerror
                raise
        """}, "cfg")
    with pytest.raises(FileNotFoundError) as got:
        w.mod.load("missing.cfg")
    assert str(got.value) == "[Errno 2] Unable to load configuration file (No such file or directory): 'missing.cfg'"
    assert got.value.errno == 2 and got.value.filename == "missing.cfg"


def test_a_property_of_the_trees_exception_class_crosses_as_its_value(oracle_tree):
    # blind round 20, h05: TemplateError kept its line in args and read it through a property; the mirror had none
    w = oracle_tree({"tpl.py": """
        class TemplateError(Exception):
            def __init__(self, msg, line):
                super().__init__(msg, line)

            @property
            def line(self):
                return self.args[1]

            @property
            def broken(self):
                raise RuntimeError("no")


        def render(src):
            raise TemplateError("unclosed tag", 3)
        """}, "tpl")
    with pytest.raises(Exception) as got:
        w.mod.render("{{ x")
    assert type(got.value).__name__ == "TemplateError" and got.value.line == 3
    assert not hasattr(got.value, "broken")


def test_an_exception_raised_without_arguments_reads_as_its_own_str(oracle_tree):
    # blind round 20, h10: the message built in __str__ from the exception's fields, super().__init__() with no arguments
    w = oracle_tree({"tpl.py": """
        class TemplateError(Exception):
            def __init__(self, msg, line):
                super().__init__()
                self.msg, self.line = msg, line

            def __str__(self):
                return "line %d: %s" % (self.line, self.msg)


        class Lying(ValueError):
            def __str__(self):
                return "division by zero"


        def render(src):
            raise TemplateError("unclosed tag", 3)


        def divide():
            raise Lying("not what you think")
        """}, "tpl")
    with pytest.raises(Exception, match="line 3: unclosed tag"):
        w.mod.render("{{ x")
    with pytest.raises(Exception) as got:  # arguments and a different __str__: the arguments, as before (lying-exception)
        w.mod.divide()
    assert str(got.value) == "not what you think"
