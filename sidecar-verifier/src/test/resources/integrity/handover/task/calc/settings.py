# The task's settings loader, the way flask's Config.from_pyfile reads a file: it runs as a module and its upper-case
# names become settings.
import types

STRICT = False


class Settings(dict):
    def load_pyfile(self, path):
        scope = types.ModuleType("settings")
        scope.__file__ = path
        with open(path, "rb") as fh:
            exec(compile(fh.read(), path, "exec"), scope.__dict__)
        self.update((k, v) for k, v in vars(scope).items() if k.isupper())
        return self

    def number(self, key):
        return float(self[key])
