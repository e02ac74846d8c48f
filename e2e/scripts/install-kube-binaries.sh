#!/usr/bin/env bash
# Builds every Go binary the cluster test tiers need, from source through the Go module proxy (no
# binary download site is reachable from CI machines), into a cache directory outside the clone:
#
#   ${CRUCIBLE_CACHE:-$HOME/.cache/crucible}/
#     k8s/<K8S>-linux-amd64/   kube-apiserver kube-controller-manager kube-scheduler kubectl etcd
#                              kwok VERSION
#     node/<K8S>-containerd<C>-cni<N>/
#                              kubelet kube-proxy containerd containerd-shim-runc-v2 ctr VERSION
#                              cni/{bridge,host-local,loopback,portmap}
#     bin/                     links to all of the above except the CNI plugins
#
# k8s/ is the layout Fabric8 kube-api-test expects under its test dir
# (<testDir>/k8s/<version>-linux-amd64/{etcd,kube-apiserver,kubectl}, version without "v"), so tests
# use withTestDir("$CRUCIBLE_CACHE") + withApiServerVersion("<K8S>") + withOfflineMode(true).
# node/ is what the real-node tier runs (kubelet + containerd + runc from apt + CNI plugins;
# kube-proxy so that pods reach Service IPs, the API server's included; kube-controller-manager
# for Deployments, DaemonSets, EndpointSlices and owner-reference garbage collection).
#
# ONE wrapper module, ONE `go build`: Kubernetes, etcd, containerd and the CNI plugins share most of
# their dependencies (client-go, apimachinery, grpc, otel, protobuf, x/sys, ...). Built as separate
# modules, each resolves them at its own versions and compiles them again; in one module Go's
# minimal version selection picks one version of each and compiles it once.
#   kwok is the exception, a second `go install` in its own module: v0.7.0 (built against k8s.io
#   v0.33) uses metav1.InitialEventsListBlueprintAnnotationKey, which apimachinery v0.34 removed
#   ("undefined: metav1.InitialEventsListBlueprintAnnotationKey" in pkg/utils/informer), and
#   v0.8.0 wants k8s.io v0.36. A kwok release built against k8s.io v0.34 would join the module.
#   - k8s.io/kubernetes has `replace k8s.io/<staging> => ./staging/...` directives, which a
#     dependency's go.mod cannot pass on, so the wrapper replaces every staging module with its
#     published v0.X.Y tag (the kubernetes-sigs/scheduler-plugins pattern). That pins client-go &
#     co. for containerd too: pick a version of it built against the same k8s minor.
#   - etcd's main package lives in go.etcd.io/etcd/server/v3's parent module, which has replace
#     directives too; a tiny main in the wrapper calls etcdmain.Main instead.
#
# Idempotent: when both directories exist with a matching VERSION file and all binaries, it prints
# and exits at once. Prints the k8s directory (last line of stdout) on success, or the node
# directory with --node-dir.
[[ "${1:-}" == -h || "${1:-}" == --help ]] && { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0; }  # the header above
set -euo pipefail

K8S_VERSION="${CRUCIBLE_K8S_VERSION:-1.34.4}"   # k8s.io/kubernetes v$K8S_VERSION, staging v0.<minor>.<patch>
ETCD_VERSION="${CRUCIBLE_ETCD_VERSION:-3.6.4}"  # what k8s.io/kubernetes v1.34.4 pins (go.etcd.io/etcd/*/v3)
KWOK_VERSION="${CRUCIBLE_KWOK_VERSION:-0.7.0}"  # k8s.io v0.33: its own module (see above)
CONTAINERD_VERSION="${CRUCIBLE_CONTAINERD_VERSION:-2.2.9}"  # 2.2.x: k8s.io v0.34 (2.3+ needs v0.35+)
CNI_VERSION="${CRUCIBLE_CNI_VERSION:-1.9.1}"    # github.com/containernetworking/plugins

PRINT=k8s
[[ "${1:-}" == --node-dir ]] && PRINT=node

CACHE="${CRUCIBLE_CACHE:-$HOME/.cache/crucible}"
DEST="$CACHE/k8s/${K8S_VERSION}-linux-amd64"
NODE_DEST="$CACHE/node/${K8S_VERSION}-containerd${CONTAINERD_VERSION}-cni${CNI_VERSION}"
K8S_BINARIES=(kube-apiserver kube-controller-manager kube-scheduler kubectl etcd kwok)
NODE_BINARIES=(kubelet kube-proxy containerd containerd-shim-runc-v2 ctr)
CNI_PLUGINS=(bridge host-local loopback portmap)
VERSION_CONTENT="kubernetes=v${K8S_VERSION}
etcd=v${ETCD_VERSION}
kwok=v${KWOK_VERSION}
containerd=v${CONTAINERD_VERSION}
cni-plugins=v${CNI_VERSION}
build=one-module"

log() { echo "[install-kube-binaries] $*" >&2; }

link_bin() {
  mkdir -p "$CACHE/bin"
  local b
  for b in "${K8S_BINARIES[@]}"; do ln -sfn "$DEST/$b" "$CACHE/bin/$b"; done
  for b in "${NODE_BINARIES[@]}"; do ln -sfn "$NODE_DEST/$b" "$CACHE/bin/$b"; done
}

print_result() { if [[ "$PRINT" == node ]]; then echo "$NODE_DEST"; else echo "$DEST"; fi; }

is_complete() {
  local d b
  for d in "$DEST" "$NODE_DEST"; do
    [[ -f "$d/VERSION" && "$(cat "$d/VERSION")" == "$VERSION_CONTENT" ]] || return 1
  done
  for b in "${K8S_BINARIES[@]}"; do [[ -x "$DEST/$b" ]] || return 1; done
  for b in "${NODE_BINARIES[@]}"; do [[ -x "$NODE_DEST/$b" ]] || return 1; done
  for b in "${CNI_PLUGINS[@]}"; do [[ -x "$NODE_DEST/cni/$b" ]] || return 1; done
}

if is_complete; then
  link_bin
  print_result
  exit 0
fi

if [[ "$(uname -s)/$(uname -m)" != "Linux/x86_64" ]]; then
  log "only linux-amd64 is supported (this is $(uname -s)/$(uname -m))"
  exit 1
fi

export GOFLAGS=-mod=mod
export GOCACHE="${CRUCIBLE_GOCACHE:-$CACHE/go/build}"
export GOMODCACHE="$CACHE/go/mod"
export GOPATH="$CACHE/go/path"
export CGO_ENABLED=0   # static binaries; containerd then leaves out its cgo-only btrfs snapshotter
export GOOS=linux GOARCH=amd64
export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"
mkdir -p "$GOCACHE" "$GOMODCACHE" "$GOPATH" "$CACHE/k8s" "$CACHE/node"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/crucible-kube-build.XXXXXX")"
# Staging dirs next to their destinations (same file system, so the final mv is atomic). The k8s
# one's name must not end in -linux-amd64: kube-api-test lists that directory and parses the names.
STAGE="$(mktemp -d "$CACHE/k8s/.staging.XXXXXX")"
NODE_STAGE="$(mktemp -d "$CACHE/node/.staging.XXXXXX")"
trap 'rm -rf "$WORK" "$STAGE" "$NODE_STAGE"' EXIT

# shellcheck source=go-toolchain.sh
source "$(dirname "${BASH_SOURCE[0]}")/go-toolchain.sh"
log "using $("$GO" version) at $GO"

minor="${K8S_VERSION#*.}"; minor="${minor%%.*}"
major="${K8S_VERSION%%.*}"
staging_version="v0.${K8S_VERSION#*.}"
build_date="$(curl -fsS "$(go_proxy "$GO")/k8s.io/kubernetes/@v/v${K8S_VERSION}.info" 2>/dev/null \
  | sed -n 's/.*"Time": *"\([^"]*\)".*/\1/p' || true)"
build_date="${build_date:-1970-01-01T00:00:00Z}"

# ---------------------------------------------------------------- the wrapper module
mkdir -p "$WORK/mod/cmd/etcd"
cd "$WORK/mod"
cat > go.mod <<EOF
module crucible.dev/build/kube

go 1.25.0

godebug default=go1.24

require (
	k8s.io/kubernetes v${K8S_VERSION}
	go.etcd.io/etcd/server/v3 v${ETCD_VERSION}
	github.com/containerd/containerd/v2 v${CONTAINERD_VERSION}
	github.com/containernetworking/plugins v${CNI_VERSION}
)
EOF
cat > cmd/etcd/main.go <<'EOF'
// etcd, built from go.etcd.io/etcd/server/v3 (whose own module has replace directives).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
EOF
log "resolving k8s.io/kubernetes v${K8S_VERSION} (staging modules at ${staging_version})"
"$GO" mod download -json "k8s.io/kubernetes@v${K8S_VERSION}" > "$WORK/kmod.json"
kmod="$(sed -n 's/.*"GoMod": *"\([^"]*\)".*/\1/p' "$WORK/kmod.json")"
# Every k8s.io module that k8s.io/kubernetes requires at v0.0.0 is a staging module it replaces
# with ./staging/src/...; point each at its published tag instead.
staging_modules="$(awk '/^require \(/{r=1;next} r&&/^\)/{r=0} r&&$1 ~ /^k8s\.io\// && $2=="v0.0.0"{print $1}' "$kmod")"
if [[ -z "$staging_modules" ]]; then
  log "found no staging modules in $kmod"; exit 1
fi
{
  echo
  echo "replace ("
  for m in $staging_modules; do echo "	$m => $m ${staging_version}"; done
  echo ")"
} >> go.mod

# ---------------------------------------------------------------- one build
ldflags="-s -w"
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ldflags+=" -X $p.gitVersion=v${K8S_VERSION} -X $p.gitMajor=${major} -X $p.gitMinor=${minor}"
  ldflags+=" -X $p.gitTreeState=clean -X $p.buildDate=${build_date}"
done
ldflags+=" -X github.com/containerd/containerd/v2/version.Version=v${CONTAINERD_VERSION}"
ldflags+=" -X github.com/containerd/containerd/v2/version.Package=github.com/containerd/containerd/v2"
ldflags+=" -X github.com/containernetworking/plugins/pkg/utils/buildversion.BuildVersion=v${CNI_VERSION}"

CTRD=github.com/containerd/containerd/v2/cmd
CNI=github.com/containernetworking/plugins/plugins
PACKAGES=(
  k8s.io/kubernetes/cmd/kube-apiserver k8s.io/kubernetes/cmd/kube-controller-manager
  k8s.io/kubernetes/cmd/kube-scheduler k8s.io/kubernetes/cmd/kubectl
  k8s.io/kubernetes/cmd/kubelet k8s.io/kubernetes/cmd/kube-proxy
  ./cmd/etcd
  "$CTRD/containerd" "$CTRD/containerd-shim-runc-v2" "$CTRD/ctr"
  "$CNI/main/bridge" "$CNI/ipam/host-local" "$CNI/main/loopback" "$CNI/meta/portmap"
)
t0=$SECONDS
log "building ${#PACKAGES[@]} binaries in one go build (cold: tens of minutes on 2 cores)"
"$GO" build -trimpath -ldflags "$ldflags" -o "$STAGE/" "${PACKAGES[@]}"
log "built in $((SECONDS - t0)) s; shared dependencies resolved to:" \
  "$("$GO" list -m google.golang.org/grpc go.opentelemetry.io/otel google.golang.org/protobuf golang.org/x/sys | tr '\n' ' ')"

# ---------------------------------------------------------------- kwok (its own module, see above)
t0=$SECONDS
log "building kwok v${KWOK_VERSION} in its own module"
GOBIN="$STAGE" GOFLAGS='' "$GO" install -trimpath \
  -ldflags "-s -w -X sigs.k8s.io/kwok/pkg/consts.Version=${KWOK_VERSION} -X sigs.k8s.io/kwok/pkg/consts.KubeVersion=${K8S_VERSION}" \
  "sigs.k8s.io/kwok/cmd/kwok@v${KWOK_VERSION}"
log "kwok built in $((SECONDS - t0)) s"

# ---------------------------------------------------------------- check and publish
mkdir -p "$NODE_STAGE/cni"
for b in "${NODE_BINARIES[@]}"; do mv "$STAGE/$b" "$NODE_STAGE/$b"; done
for b in "${CNI_PLUGINS[@]}"; do mv "$STAGE/$b" "$NODE_STAGE/cni/$b"; done
"$STAGE/kube-apiserver" --version >&2
"$STAGE/etcd" --version | sed -n 1p >&2
"$STAGE/kwok" --version >&2
"$STAGE/kubectl" version --client | sed -n 1p >&2
"$NODE_STAGE/kubelet" --version >&2
"$NODE_STAGE/containerd" --version >&2
"$NODE_STAGE/ctr" --version >&2
"$NODE_STAGE/containerd-shim-runc-v2" -v >&2
for b in "${CNI_PLUGINS[@]}"; do env -u CNI_COMMAND "$NODE_STAGE/cni/$b" 2>&1 </dev/null | sed -n 1p >&2; done
for d in "$STAGE" "$NODE_STAGE"; do
  printf '%s\n' "$VERSION_CONTENT" > "$d/VERSION"
  chmod 755 "$d"; chmod -R a+rX "$d"; chmod 644 "$d/VERSION"
done
rm -rf "$DEST" "$NODE_DEST"
mv "$STAGE" "$DEST"
mv "$NODE_STAGE" "$NODE_DEST"
link_bin
log "installed into $DEST and $NODE_DEST"
print_result
