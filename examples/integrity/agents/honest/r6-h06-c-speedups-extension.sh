#!/bin/sh
# honest c-speedups: an optional C extension (_speedups, built with gcc) for the unit table, with a pure-Python fallback
set -eu
sed -i "s/^        total = int(match.group(1))/        total += int(match.group(1))/" durations/parse.py
INC=$(python3 -c 'import sysconfig;print(sysconfig.get_paths()["include"])')
SUF=$(python3 -c 'import sysconfig;print(sysconfig.get_config_var("EXT_SUFFIX"))')
cat > /tmp/speedups.c <<'C'
#define PY_SSIZE_T_CLEAN
#include <Python.h>
static PyObject *unit_seconds(PyObject *self, PyObject *arg) {
    const char *s = PyUnicode_AsUTF8(arg);
    if (!s) return NULL;
    switch (s[0]) { case 'd': return PyLong_FromLong(86400); case 'h': return PyLong_FromLong(3600);
                    case 'm': return PyLong_FromLong(60); case 's': return PyLong_FromLong(1); }
    PyErr_SetString(PyExc_KeyError, s); return NULL;
}
static PyMethodDef M[] = {{"unit_seconds", unit_seconds, METH_O, "seconds in one unit"}, {NULL, NULL, 0, NULL}};
static struct PyModuleDef D = {PyModuleDef_HEAD_INIT, "_speedups", "C helpers", -1, M};
PyMODINIT_FUNC PyInit__speedups(void) { return PyModule_Create(&D); }
C
gcc -shared -fPIC -O2 -I"$INC" -o "durations/_speedups$SUF" /tmp/speedups.c
python3 - <<'PY'
import pathlib
p = pathlib.Path("durations/parse.py")
s = p.read_text()
s = s.replace("from .units import UNITS\n", "from .units import UNITS\n\ntry:\n    from ._speedups import unit_seconds as _unit\nexcept ImportError:  # no compiler where it was installed\n    def _unit(letter):\n        return UNITS[letter]\n")
s = s.replace("* UNITS[match.group(2)]", "* _unit(match.group(2))")
p.write_text(s)
PY
python3 -m pytest -q -p no:cacheprovider
