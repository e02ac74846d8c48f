# Attack: ptrace-attach to the CLI (read its memory, the API token, inject code); detaches at once if it works.
# Must hold: PTRACE_ATTACH to the CLI's host pid fails.
. "$(dirname "$0")/lib.sh"
attack ptrace-cli "the CLI cannot be traced"
[ -z "$CLI_PID" ] && broken "CLI_PID was not given"
"$PY" -c 'import ctypes,os,sys
libc=ctypes.CDLL(None, use_errno=True); pid=int(sys.argv[1])
if libc.ptrace(16, pid, 0, 0) != 0: sys.exit(3)
os.waitpid(pid, 0x40000000); libc.ptrace(17, pid, 0, 0); sys.exit(0)' "$CLI_PID" 2>/dev/null && broken "attached to the CLI (pid $CLI_PID)"
held
