#!/usr/bin/env bash
# run-gpu-check.sh — the GPU snapshot path of the snapshot agent, end to end, on a real NVIDIA GPU.
#
#   sudo snapshot-agent/gpu/run-gpu-check.sh [DEVICE_MIB]      (default 1024)
#
# Starts a small CUDA program holding DEVICE_MIB of device memory with a known checksum and a
# counter (built with nvcc when present, else Python + ctypes on libcuda), as PID 1 of its own PID
# namespace, then runs the agent's sequence:
#   cuda-checkpoint lock + checkpoint   (device memory -> host, GPU released; must run while the
#                                        process is NOT frozen: the driver works inside the process)
#   freeze (cgroup v2)  ->  criu dump --leave-running --freeze-cgroup  ->  thaw
#   cuda-checkpoint restore + unlock    (the original continues)
#   criu restore -d (fresh PID namespace) -> cuda-checkpoint restore + unlock on the copy
# and checks that the copy continues from the dumped count with its device buffer intact.
# Prints one line of figures. Needs root, cuda-checkpoint (driver >= 570 for --action; 550 uses
# --toggle), and CRIU >= 4.1 ($CRUCIBLE_CRIU, ~/.cache/crucible/bin/criu, or PATH).
[[ "${1:-}" == -h || "${1:-}" == --help ]] && { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0; }  # the header above
set -euo pipefail

MIB="${1:-1024}"
die() { echo "run-gpu-check: $*" >&2; exit 1; }
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }

[ "$(id -u)" = 0 ] || die "needs root"
command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1 || die "no NVIDIA GPU (nvidia-smi -L failed)"
CKPT="${CRUCIBLE_CUDA_CHECKPOINT:-$(command -v cuda-checkpoint || true)}"
[ -x "$CKPT" ] || die "cuda-checkpoint not found (set CRUCIBLE_CUDA_CHECKPOINT or put it on PATH)"
CRIU="${CRUCIBLE_CRIU:-}"
[ -n "$CRIU" ] || { [ -x "$HOME/.cache/crucible/bin/criu" ] && CRIU="$HOME/.cache/crucible/bin/criu"; } || true
[ -n "$CRIU" ] || CRIU="$(command -v criu || true)"
[ -x "$CRIU" ] || die "CRIU >= 4.1 not found: run e2e/scripts/install-criu.sh"

WORK="$(mktemp -d /var/tmp/crucible-gpu-check.XXXXXX)"
CG_ROOT="$(awk '$9=="cgroup2"{print $5; exit}' /proc/self/mountinfo)"
[ -n "$CG_ROOT" ] || die "no cgroup v2 mount"
CG="$CG_ROOT/crucible-gpu-check-$$"
PIDS_TO_KILL=()
cleanup() {
  [ -e "$CG/cgroup.freeze" ] && echo 0 > "$CG/cgroup.freeze" || true   # never leave anything frozen
  for p in "${PIDS_TO_KILL[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  sleep 0.5; rmdir "$CG" 2>/dev/null || true
  [ -n "${KEEP:-}" ] || rm -rf "$WORK"
}
trap cleanup EXIT

if "$CKPT" --help 2>&1 | grep -q -- '--action'; then ACTIONS=1; else ACTIONS=0; fi
resume() {  # restore + unlock, or toggle on drivers without --action
  if [ "$ACTIONS" = 1 ]; then "$CKPT" --action restore --pid "$1"; "$CKPT" --action unlock --pid "$1"
  else "$CKPT" --toggle --pid "$1"; fi
}

# ---- the GPU workload: publishes "g<count> ok|BAD" as its task name (no files held open) ----
if command -v nvcc >/dev/null; then
  cat > "$WORK/gpuhold.cu" <<'CU'
#include <cstdio>
#include <cstdlib>
#include <cstdint>
#include <unistd.h>
#include <sys/prctl.h>
__global__ void fill(uint64_t *b, size_t n) { size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x;
  if (i < n) { uint64_t x = i * 0x9E3779B97F4A7C15ULL + 1; x ^= x >> 31; b[i] = x * 0xBF58476D1CE4E5B9ULL; } }
__global__ void sum(const uint64_t *b, size_t n, unsigned long long *out) { size_t i = blockIdx.x * (size_t) blockDim.x + threadIdx.x;
  if (i < n) atomicAdd(out, (unsigned long long) (b[i] ^ i)); }
__global__ void bump(unsigned long long *c) { (*c)++; }
int main(int argc, char **argv) {
  size_t n = (size_t) atol(argv[1]) * 1048576 / 8; uint64_t *b; unsigned long long *c, *s, host = 0, expect = 0, cnt = 0;
  cudaMalloc(&b, n * 8); cudaMalloc(&c, 8); cudaMalloc(&s, 8); cudaMemset(c, 0, 8);
  fill<<<(n + 255) / 256, 256>>>(b, n); cudaMemset(s, 0, 8); sum<<<(n + 255) / 256, 256>>>(b, n, s);
  cudaMemcpy(&expect, s, 8, cudaMemcpyDeviceToHost);
  int ok = 1; char name[16];
  for (;;) { usleep(100000); bump<<<1, 1>>>(c); cudaMemcpy(&cnt, c, 8, cudaMemcpyDeviceToHost);
    if (cnt % 10 == 0) { cudaMemset(s, 0, 8); sum<<<(n + 255) / 256, 256>>>(b, n, s); cudaMemcpy(&host, s, 8, cudaMemcpyDeviceToHost); if (host != expect) ok = 0; }
    snprintf(name, sizeof name, "g%llu %s", cnt, ok ? "ok" : "BAD"); prctl(PR_SET_NAME, name, 0, 0, 0); }
}
CU
  nvcc -O2 -o "$WORK/gpuhold" "$WORK/gpuhold.cu"
  PROG=("$WORK/gpuhold" "$MIB"); BUILT=nvcc
else
  command -v python3 >/dev/null || die "neither nvcc nor python3 to build the CUDA workload"
  cat > "$WORK/gpuhold.py" <<'PY'
import ctypes, hashlib, os, sys, time
mib = int(sys.argv[1]); size = mib << 20
cu = ctypes.CDLL("libcuda.so.1"); libc = ctypes.CDLL(None)
def chk(r, what):
    if r != 0: sys.exit(f"{what} failed: CUresult {r}")
chk(cu.cuInit(0), "cuInit")
dev = ctypes.c_int(); chk(cu.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
ctx = ctypes.c_void_p(); chk(cu.cuCtxCreate_v2(ctypes.byref(ctx), 0, dev), "cuCtxCreate")
buf = ctypes.c_uint64(); chk(cu.cuMemAlloc_v2(ctypes.byref(buf), ctypes.c_size_t(size)), "cuMemAlloc(buffer)")
ctr = ctypes.c_uint64(); chk(cu.cuMemAlloc_v2(ctypes.byref(ctr), ctypes.c_size_t(8)), "cuMemAlloc(counter)")
data = os.urandom(size); expect = hashlib.sha256(data).digest()
chk(cu.cuMemcpyHtoD_v2(buf, data, ctypes.c_size_t(size)), "upload"); del data
host = (ctypes.c_char * size)(); c = ctypes.c_uint64(0)
chk(cu.cuMemcpyHtoD_v2(ctr, ctypes.byref(c), ctypes.c_size_t(8)), "counter init")
ok = True
while True:
    time.sleep(0.1)
    chk(cu.cuMemcpyDtoH_v2(ctypes.byref(c), ctr, ctypes.c_size_t(8)), "counter read"); c.value += 1
    chk(cu.cuMemcpyHtoD_v2(ctr, ctypes.byref(c), ctypes.c_size_t(8)), "counter write")
    if c.value % 20 == 0:
        chk(cu.cuMemcpyDtoH_v2(host, buf, ctypes.c_size_t(size)), "verify read")
        ok = ok and hashlib.sha256(bytes(host)).digest() == expect
    libc.prctl(15, f"g{c.value} {'ok' if ok else 'BAD'}".encode()[:15], 0, 0, 0)
PY
  PROG=(python3 "$WORK/gpuhold.py" "$MIB"); BUILT=python-ctypes
fi

status() { cat "/proc/$1/comm" 2>/dev/null || true; }
count() { status "$1" | sed -n 's/^g\([0-9]*\) .*/\1/p'; }
wait_count() { for _ in $(seq 1 600); do c="$(count "$1")"; [ -n "$c" ] && [ "$c" -ge "$2" ] && return 0; sleep 0.1; done; die "pid $1 did not reach count $2 (comm: $(status "$1"))"; }

unshare --pid --fork setsid "${PROG[@]}" </dev/null >"$WORK/workload.out" 2>&1 &
LAUNCHER=$!; PIDS_TO_KILL+=("$LAUNCHER")
for _ in $(seq 1 100); do PID="$(cat /proc/$LAUNCHER/task/*/children 2>/dev/null | awk '{print $1}')"; [ -n "$PID" ] && break; sleep 0.05; done
[ -n "${PID:-}" ] || die "workload did not start"
PIDS_TO_KILL+=("$PID")
wait_count "$PID" 3

mkdir -p "$CG" "$WORK/images"; echo "$PID" > "$CG/cgroup.procs"
t0=$(now_ms); if [ "$ACTIONS" = 1 ]; then "$CKPT" --action lock --pid "$PID" --timeout 10000; fi; t1=$(now_ms)
if [ "$ACTIONS" = 1 ]; then "$CKPT" --action checkpoint --pid "$PID"; else "$CKPT" --toggle --pid "$PID"; fi; t2=$(now_ms)
echo 1 > "$CG/cgroup.freeze"; until grep -q 'frozen 1' "$CG/cgroup.events"; do sleep 0.001; done
DUMPED="$(count "$PID")"; t3=$(now_ms)
"$CRIU" dump --tree "$PID" --images-dir "$WORK/images" --leave-running --freeze-cgroup "$CG" \
  --work-dir "$WORK" --log-file dump.log -v4 || { tail -20 "$WORK/dump.log" >&2; die "criu dump failed"; }
t4=$(now_ms); echo 0 > "$CG/cgroup.freeze"; t5=$(now_ms)
if [ "$ACTIONS" = 1 ]; then "$CKPT" --action restore --pid "$PID"; "$CKPT" --action unlock --pid "$PID"; else "$CKPT" --toggle --pid "$PID"; fi
t6=$(now_ms)
wait_count "$PID" $((DUMPED + 5))
IMG_MIB=$(( $(du -sk "$WORK/images" | cut -f1) / 1024 ))

t7=$(now_ms)
"$CRIU" restore --images-dir "$WORK/images" --restore-detached --pidfile "$WORK/restored.pid" --manage-cgroups=ignore \
  --work-dir "$WORK" --log-file restore.log -v4 || { tail -20 "$WORK/restore.log" >&2; die "criu restore failed"; }
t8=$(now_ms); RPID="$(cat "$WORK/restored.pid")"; PIDS_TO_KILL+=("$RPID")
resume "$RPID"; t9=$(now_ms)
FIRST="$(count "$RPID")"
wait_count "$RPID" $((DUMPED + 25))
RSTATUS="$(status "$RPID")"; OSTATUS="$(status "$PID")"

echo "gpu_check built=$BUILT device_mib=$MIB image_mib=$IMG_MIB lock_ms=$((t1-t0)) checkpoint_ms=$((t2-t1))" \
     "freeze_ms=$((t5-t3+0)) dump_ms=$((t4-t3)) dump_mib_s=$(( IMG_MIB * 1000 / ( t4 - t3 > 0 ? t4 - t3 : 1 ) ))" \
     "gpu_resume_ms=$((t6-t5)) restore_ms=$((t8-t7)) restore_mib_s=$(( IMG_MIB * 1000 / ( t8 - t7 > 0 ? t8 - t7 : 1 ) ))" \
     "cuda_restore_ms=$((t9-t8)) dumped_count=$DUMPED restored_first=$FIRST restored='$RSTATUS' original='$OSTATUS'"
case "$RSTATUS" in *" ok") ;; *) die "restored copy reports a bad device buffer: $RSTATUS" ;; esac
[ -n "$FIRST" ] && [ "$FIRST" -ge "$DUMPED" ] && [ "$FIRST" -le $((DUMPED + 3)) ] || die "restored copy started at $FIRST, dumped at $DUMPED"
echo "gpu_check OK"
