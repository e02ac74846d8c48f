#!/usr/bin/env bash
# Writes the configuration of one real node (containerd + CNI + kubelet) into a run directory,
# from the templates next to this script, and prints the commands that start it. Starts nothing
# and changes nothing outside RUN_DIR.
#
#   e2e/real-node/render-config.sh RUN_DIR
#
# Settings (environment; defaults in brackets):
#   NODE_NAME      node and network name [real-0]
#   POD_CIDR       the node's pod subnet, a /24 [10.244.0.0/24]; its first address is the bridge's
#                  and the node's IP (the kubelet refuses a loopback node IP)
#   BRIDGE         Linux bridge name, at most 15 characters [crc-$NODE_NAME]
#   KUBELET_PORT, HEALTHZ_PORT   [10250, 10248]: pick free ones when several nodes share a machine
#   CGROUP_ROOT    the kubelet's cgroup root [/crucible-$NODE_NAME]
#   SANDBOX_IMAGE  the pause image, already imported into containerd (required; images/ builds it)
#   CLIENT_CA_FILE CA of the client certificates the kubelet accepts (required; the API server's)
#   RUNC           [runc on PATH]   CNI_BIN_DIR [$CRUCIBLE_NODE_DIR/cni]   MAX_PODS [110]
[[ "${1:-}" == -h || "${1:-}" == --help ]] && { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0; }  # the header above
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
die() { echo "render-config: $*" >&2; exit 1; }

[[ $# -eq 1 ]] || die "usage: render-config.sh RUN_DIR"
mkdir -p "$1"
RUN_DIR="$(cd "$1" && pwd)"

NODE_NAME="${NODE_NAME:-real-0}"
POD_CIDR="${POD_CIDR:-10.244.0.0/24}"
BRIDGE="${BRIDGE:-crc-$NODE_NAME}"
KUBELET_PORT="${KUBELET_PORT:-10250}"
HEALTHZ_PORT="${HEALTHZ_PORT:-10248}"
CGROUP_ROOT="${CGROUP_ROOT:-/crucible-$NODE_NAME}"
MAX_PODS="${MAX_PODS:-110}"
RUNC="${RUNC:-$(command -v runc || true)}"
CNI_BIN_DIR="${CNI_BIN_DIR:-${CRUCIBLE_NODE_DIR:+$CRUCIBLE_NODE_DIR/cni}}"
: "${SANDBOX_IMAGE:?SANDBOX_IMAGE: the pause image name is required (images/build-base.sh pause)}"
: "${CLIENT_CA_FILE:?CLIENT_CA_FILE: CA file of the client certificates the kubelet accepts is required}"

[[ "$NODE_NAME" =~ ^[a-z0-9]([-a-z0-9]*[a-z0-9])?$ ]] || die "NODE_NAME: not a DNS label: $NODE_NAME"
[[ ${#BRIDGE} -le 15 ]] || die "BRIDGE: '$BRIDGE' is longer than 15 characters (Linux IFNAMSIZ)"
[[ "$POD_CIDR" =~ ^([0-9]+)\.([0-9]+)\.([0-9]+)\.0/24$ ]] || die "POD_CIDR: expected a.b.c.0/24, got $POD_CIDR"
NODE_IP="${BASH_REMATCH[1]}.${BASH_REMATCH[2]}.${BASH_REMATCH[3]}.1"
for v in KUBELET_PORT HEALTHZ_PORT MAX_PODS; do
  [[ "${!v}" =~ ^[0-9]+$ ]] || die "$v: not a number: ${!v}"
done
[[ "$CGROUP_ROOT" == /* ]] || die "CGROUP_ROOT: must be absolute: $CGROUP_ROOT"
[[ -n "$RUNC" && -x "$RUNC" ]] || die "RUNC: runc not found (apt package runc; e2e/scripts/install-apt-packages.sh)"
[[ -n "$CNI_BIN_DIR" && -x "$CNI_BIN_DIR/bridge" ]] \
  || die "CNI_BIN_DIR: no bridge plugin in '${CNI_BIN_DIR}' (e2e/scripts/install-kube-binaries.sh --node-dir)"
sock="$RUN_DIR/containerd.sock.ttrpc"
[[ ${#sock} -le 107 ]] || die "RUN_DIR: too long for a unix socket path ($sock: ${#sock} > 107 bytes)"
[[ -f "$CLIENT_CA_FILE" ]] || die "CLIENT_CA_FILE: no such file: $CLIENT_CA_FILE"

mkdir -p "$RUN_DIR/cni/net.d" "$RUN_DIR/cni/ipam" "$RUN_DIR/kubelet"
# No cluster DNS in the tier: pods get an empty resolv.conf, not the host's.
: > "$RUN_DIR/resolv.conf"
RESOLV_CONF="$RUN_DIR/resolv.conf"

shopt -u patsub_replacement 2>/dev/null || true   # "&" in a value stays literal (bash 5.2)
# render TEMPLATE OUT: replaces each @NAME@ by $NAME; a placeholder left over is an error.
render() {
  local text name
  text="$(cat "$1")"
  for name in RUN_DIR NODE_NAME NODE_IP POD_CIDR BRIDGE KUBELET_PORT HEALTHZ_PORT CGROUP_ROOT \
              MAX_PODS RUNC CNI_BIN_DIR SANDBOX_IMAGE CLIENT_CA_FILE RESOLV_CONF; do
    text="${text//@${name}@/${!name}}"
  done
  if [[ "$text" =~ @[A-Z_]+@ ]]; then die "$1: unknown placeholder ${BASH_REMATCH[0]}"; fi
  printf '%s\n' "$text" > "$2"
}
render "$HERE/templates/containerd.toml" "$RUN_DIR/containerd.toml"
render "$HERE/templates/cni.conflist" "$RUN_DIR/cni/net.d/10-crucible.conflist"
render "$HERE/templates/kubelet-config.yaml" "$RUN_DIR/kubelet-config.yaml"

cat <<EOF
# host preparation (root): the bridge with the node IP, which the CNI bridge plugin then reuses,
# and the kubelet's cgroup root in every cgroup v1 hierarchy (or once, on cgroup v2)
ip link add $BRIDGE type bridge && ip addr add $NODE_IP/24 dev $BRIDGE && ip link set $BRIDGE up
for h in /sys/fs/cgroup/*/; do [ -e "\$h/cgroup.procs" ] && mkdir -p "\${h}${CGROUP_ROOT#/}"; done
# containerd, then the images (pause included) into its k8s.io namespace
containerd --config $RUN_DIR/containerd.toml
ctr --address $RUN_DIR/containerd.sock --namespace k8s.io images import IMAGE.tar
# kubelet (KUBECONFIG: a client certificate for system:node:$NODE_NAME, group system:nodes)
kubelet --config $RUN_DIR/kubelet-config.yaml --kubeconfig KUBECONFIG --root-dir $RUN_DIR/kubelet \\
  --cert-dir $RUN_DIR/kubelet/pki --hostname-override $NODE_NAME --node-ip $NODE_IP \\
  --node-labels crucible.dev/node=real
EOF
