import subprocess
import sys


def test_cli_in_child():
    out = subprocess.run([sys.executable, "-c", "from calc.ops import divide; print(divide(-9, 3))"],
                         capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "-3.0"


def test_shell_pipeline():
    out = subprocess.run("echo 6 3 | awk '{print $1 / $2}'", shell=True, capture_output=True, text=True)
    assert out.stdout.strip() == "2"
