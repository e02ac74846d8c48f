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
RUN_DIR="$STATE/node"

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
K8S_DIR="$(k8s_dir)"
NODE_BIN="$(node_dir)"

kc() { "$K8S_DIR/kubectl" --kubeconfig "$KUBECONFIG_FILE" "$@"; }
ctr_() { "$NODE_BIN/ctr" --address "$RUN_DIR/containerd.sock" --namespace k8s.io "$@"; }

pid_alive() { [[ -f "$STATE/pids/$1" ]] && kill -0 "$(cat "$STATE/pids/$1")" 2>/dev/null; }
