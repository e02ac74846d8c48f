from calc import handlers


def test_errors_of_a_view_the_test_defines_are_logged_and_formatted(monkeypatch, caplog):
    monkeypatch.setattr(handlers, "MODE", "strict")  # a test that sets the tree's module: graded in-process

    def broken():
        raise RuntimeError("boom")

    assert handlers.run(broken) == "500"
    assert "boom" in caplog.text
    text = handlers.describe(broken)
    assert "RuntimeError: boom" in text and "test_handlers.py" in text
