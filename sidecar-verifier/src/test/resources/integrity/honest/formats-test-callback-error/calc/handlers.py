# What flask's handle_exception/log_exception and its CLI's `except Exception: click.secho(traceback.format_exc())` do
# with an error raised by a callable a test hands them: log it with its traceback, or format it for the user. The
# traceback's lines come from linecache, so the test's own file is read (its bytes are the agent's to see anyway).
import logging
import traceback

MODE = "default"
log = logging.getLogger("calc.handlers")


def run(view):
    try:
        return view()
    except Exception:
        log.exception("Exception on view %s", view.__name__)
        return "500"


def describe(view):
    try:
        view()
    except Exception:
        return traceback.format_exc()
    return ""
