# What flask's Config.from_pyfile and its CLI's locate_app do with what a test names: compile and run a Python file as
# configuration (the test hands its own module's __file__), and import a module by name (an app the tests keep beside
# them). Both compile a grader file under its own name, exactly as it is on disk.
import sys
import types

MODE = "default"


def from_pyfile(filename):
    d = types.ModuleType("config")
    d.__file__ = filename
    with open(filename, mode="rb") as f:
        exec(compile(f.read(), filename, "exec"), d.__dict__)
    return {k: v for k, v in d.__dict__.items() if k.isupper()}


def locate(module_name):
    __import__(module_name)
    return sys.modules[module_name]


def from_object(obj):
    # flask's Config.from_object: an import name or an object; its upper-case attributes are the configuration
    if isinstance(obj, str):
        __import__(obj)
        obj = sys.modules[obj]
    return {key: getattr(obj, key) for key in dir(obj) if key.isupper()}
