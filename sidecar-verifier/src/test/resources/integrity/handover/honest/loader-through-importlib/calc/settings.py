# honest: the fix, and the loader rewritten to let importlib load the file (spec_from_file_location, exec_module): the
# import system reads and runs it, the loader gets a module back
import importlib.util
import os

STRICT = False


class Settings(dict):
    def load_pyfile(self, path):
        name = "calc_settings_" + os.path.splitext(os.path.basename(path))[0]
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None:
            raise OSError("cannot load settings from %s" % path)
        scope = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(scope)
        self.update((k, v) for k, v in vars(scope).items() if k.isupper())
        return self

    def number(self, key):
        return float(self[key])
