import pytest


def pytest_configure(config):
    config.addinivalue_line("markers", "arith: arithmetic tests")


def pytest_collection_modifyitems(config, items):
    for item in items:
        item.add_marker(pytest.mark.arith)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    outcome.get_result().user_properties.append(("phase", call.when))


@pytest.fixture
def divisor():
    return 4
