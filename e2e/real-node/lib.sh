# Shared by up, down and run-example: where the one-node cluster lives and how its parts are found.
# Sourced, not run.
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
CACHE="${CRUCIBLE_CACHE:-$HOME/.cache/crucible}"
STATE="${CRUCIBLE_REAL_NODE_DIR:-$CACHE/real-node}"
NODE_NAME="${NODE_NAME:-real-0}"
POD_CIDR="${POD_CIDR:-10.244.0.0/24}"
SERVICE_CIDR="${SERVICE_CIDR:-10.96.0.0/24}"
SERVICE_IP="${SERVICE_CIDR%.0/24}.1"          # the `kubernetes` Service
NODE_IP="${POD_CIDR%.0/24}.1"                 # the bridge's address (render-config.sh)
BRIDGE="${BRIDGE:-crc-$NODE_NAME}"
CGROUP_ROOT="${CGROUP_ROOT:-/crucible-$NODE_NAME}"
API_PORT="${API_PORT:-16443}"
ETCD_PORT="${ETCD_PORT:-12379}"
NAMESPACE="${CRUCIBLE_NAMESPACE:-crucible-system}"
KUBECONFIG_FILE="$STATE/admin.kubeconfig"
# The node's own files (containerd's root and state, the kubelet's root). A pod in its own user namespace
# (hostUsers: false) runs as an unprivileged host uid, and runc, inside that namespace, walks down to the
# pod's root file system: every directory above them must let others through. A home directory is often
# 0700, so up may put them in /var/lib/crucible/real-node/ and link $STATE/node there (node_run_dir).
RUN_DIR="$STATE/node"
[[ -L "$RUN_DIR" ]] && RUN_DIR="$(readlink -f "$RUN_DIR")"

die() { echo "${0##*/}: $*" >&2; exit 1; }
log() { echo "[${0##*/}] $*" >&2; }

k8s_dir() {
  if [[ -n "${CRUCIBLE_K8S_DIR:-}" ]]; then echo "$CRUCIBLE_K8S_DIR"; return; fi
  ls -d "$CACHE"/k8s/*-linux-amd64 2>/dev/null | sort -V | tail -n1
}
node_dir() {
  if [[ -n "${CRUCIBLE_NODE_DIR:-}" ]]; then echo "$CRUCIBLE_NODE_DIR"; return; fi
  ls -d "$CACHE"/node/*/ 2>/dev/null | sort -V | tail -n1 | sed 's:/$::'
}
# runc: CRUCIBLE_RUNC, else the newest one install-runc.sh built (>= 1.2: user-namespaced pods), else
# the one on PATH (Debian's 1.1.5 runs pods, but the kubelet then refuses hostUsers: false).
runc_path() {
  if [[ -n "${CRUCIBLE_RUNC:-}" ]]; then echo "$CRUCIBLE_RUNC"; return; fi
  local built; built="$(ls -d "$CACHE"/runc/*/runc 2>/dev/null | sort -V | tail -n1)"
  if [[ -n "$built" ]]; then echo "$built"; else command -v runc || true; fi
}
K8S_DIR="$(k8s_dir)"
NODE_BIN="$(node_dir)"

kc() { "$K8S_DIR/kubectl" --kubeconfig "$KUBECONFIG_FILE" "$@"; }
ctr_() { "$NODE_BIN/ctr" --address "$RUN_DIR/containerd.sock" --namespace k8s.io "$@"; }

# traversable DIR: whether every existing directory from DIR up to / lets others through (mode o+x)
traversable() {
  local d="$1" m
  while [[ "$d" != / && -n "$d" ]]; do
    if [[ -d "$d" ]]; then m="$(stat -L -c %a "$d")"; (( ${m: -1} & 1 )) || return 1; fi
    d="$(dirname "$d")"
  done
}

pid_alive() { [[ -f "$STATE/pids/$1" ]] && kill -0 "$(cat "$STATE/pids/$1")" 2>/dev/null; }
