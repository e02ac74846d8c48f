# The request loop: one JSON request on stdin, or with --serve one request per line and one answer per line.
import base64
import json
import sys

from .analyzer import analyse
from .config_sections import config_sections


def answer(req):
    return {"files": [analyse(base64.b64decode(f["b64"]), f["rel"]) for f in req.get("files", [])],
            "configs": [config_sections(base64.b64decode(f["b64"]), f["rel"]) for f in req.get("configs", [])]}


def main():
    sys.setrecursionlimit(4000)
    if sys.argv[1:] == ["--serve"]:
        # Kept running by the monitor: one request per line, one answer per line, until stdin closes.
        for line in sys.stdin:
            sys.stdout.write(json.dumps(answer(json.loads(line))) + "\n")
            sys.stdout.flush()
        return
    sys.stdout.write(json.dumps(answer(json.load(sys.stdin))))
