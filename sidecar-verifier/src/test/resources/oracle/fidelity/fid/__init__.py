"""fid: a package whose tests live inside it (fid/tests), as toolz's do."""
__version__ = "1.2.0"

from .core import *  # noqa: F401,F403
from . import _runtime

_runtime.install()
