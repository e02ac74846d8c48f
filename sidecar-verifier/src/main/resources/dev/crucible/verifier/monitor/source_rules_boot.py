# Runs the source_rules package (the folder beside this file) from sources handed on the command line, so that
# the verifier's helper opens no file, as when it was one file run with -c:
#   python -I -S -B -c <this file> PATH SOURCE [PATH SOURCE ...] -- [--serve]
# PATH is the file's place in the package ("source_rules/fold.py"); the modules import each other as usual,
# through a finder that serves only these sources (with -I -S nothing else of the machine's is on the path).
import sys


class _Sources:
    def __init__(self, pairs):
        self.modules = {}
        for path, text in zip(pairs[0::2], pairs[1::2]):
            name = path[:-len(".py")].replace("/", ".")
            package = name.endswith(".__init__")
            self.modules[name[:-len(".__init__")] if package else name] = (path, text, package)

    def find_spec(self, name, path=None, target=None):
        if name not in self.modules:
            return None
        import importlib.machinery
        return importlib.machinery.ModuleSpec(name, self, is_package=self.modules[name][2])

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        path, text, _ = self.modules[module.__spec__.name]
        exec(compile(text, path, "exec"), module.__dict__)


_end = sys.argv.index("--")
sys.meta_path.insert(0, _Sources(sys.argv[1:_end]))
sys.argv[1:] = sys.argv[_end + 1:]
from source_rules.serve import main  # noqa: E402 (served by the finder above)

main()
