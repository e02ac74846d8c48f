from calc import registry


def test_kinds_of_views_the_test_defines(monkeypatch):
    monkeypatch.setattr(registry, "MODE", "strict")  # a test that sets the tree's module: graded in-process

    def index():
        return "hello"

    async def aindex():
        return "hello"

    def pages():
        yield "page 1"

    async def apages():
        yield "page 1"

    assert registry.kind(index) == "sync"
    assert registry.kind(aindex) == "async"
    assert registry.kind(pages) == "generator"
    assert registry.kind(apages) == "async-generator"
    assert registry.call(pages) == ["page 1"]
