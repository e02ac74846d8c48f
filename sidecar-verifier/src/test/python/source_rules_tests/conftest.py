# The suite imports the helper package from the module's resources, as files (at run time the verifier hands the
# same files to the interpreter on its command line: test_serve.py runs it that way too).
import os
import sys

MONITOR = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", "..", "main", "resources", "dev", "crucible",
                                       "verifier", "monitor"))
sys.path.insert(0, MONITOR)
