"""calc: submodules load on first use, through a helper of the package's that gives the caller's module a
ModuleType subclass (yt-dlp's compat_utils.passthrough_module does this for yt_dlp.compat)."""
from calc._lazy import lazy_module

lazy_module(__name__, {"add": ".ops", "divide": ".ops"})
