import os
import subprocess
import sys


def add(a, b):
    return a + b


def divide(a, b):
    if b == 0:
        raise ValueError("division by zero")
    # Asks a child interpreter, the way a package shelling out to a tool would.
    out = subprocess.run([sys.executable, "-c", "import sys; print(float(sys.argv[1]) / float(sys.argv[2]))", str(a), str(b)],
                         capture_output=True, text=True, check=True)
    os.system("true")
    return float(out.stdout)
