#!/usr/bin/env bash
# Builds the Kubernetes control-plane binaries the API-server and kwok test tiers need, from
# source through the Go module proxy (no binary download site is reachable from CI machines),
# into a cache directory outside the clone:
#
#   ${CRUCIBLE_CACHE:-$HOME/.cache/crucible}/k8s/<K8S_VERSION>-linux-amd64/
#       kube-apiserver kube-scheduler kubectl etcd kwok VERSION
#
# That is the layout Fabric8 kube-api-test expects under its test dir
# (<testDir>/k8s/<version>-linux-amd64/{etcd,kube-apiserver,kubectl}, version without "v"),
# so tests use withTestDir("$CRUCIBLE_CACHE") + withApiServerVersion("<K8S_VERSION>") +
# withOfflineMode(true).
#
# kube-apiserver, kube-scheduler and kubectl come from the k8s.io/kubernetes module, which has
# `replace k8s.io/<staging> => ./staging/...` directives, so `go install pkg@version` refuses it.
# We build it from a small wrapper module that requires k8s.io/kubernetes and replaces every
# staging module with its published v0.X.Y version (the kubernetes-sigs/scheduler-plugins pattern).
# etcd is built the same way from go.etcd.io/etcd/server/v3 (the version k8s pins in its go.mod).
#
# Idempotent: when the directory exists with a matching VERSION file and all binaries, it prints
# the directory and exits at once. Prints the directory (last line of stdout) on success.
set -euo pipefail

K8S_VERSION="${CRUCIBLE_K8S_VERSION:-1.34.4}"   # k8s.io/kubernetes v$K8S_VERSION, staging v0.<minor>.<patch>
ETCD_VERSION="${CRUCIBLE_ETCD_VERSION:-3.6.4}"  # what k8s.io/kubernetes v1.34.4 pins (go.etcd.io/etcd/*/v3)
KWOK_VERSION="${CRUCIBLE_KWOK_VERSION:-0.7.0}"  # sigs.k8s.io/kwok, no replace directives

CACHE="${CRUCIBLE_CACHE:-$HOME/.cache/crucible}"
DEST="$CACHE/k8s/${K8S_VERSION}-linux-amd64"
BINARIES=(kube-apiserver kube-scheduler kubectl etcd kwok)
VERSION_CONTENT="kubernetes=v${K8S_VERSION}
etcd=v${ETCD_VERSION}
kwok=v${KWOK_VERSION}"

log() { echo "[install-kube-binaries] $*" >&2; }

link_bin() {
  mkdir -p "$CACHE/bin"
  local b
  for b in "${BINARIES[@]}"; do
    ln -sfn "$DEST/$b" "$CACHE/bin/$b"
  done
}

is_complete() {
  [[ -f "$DEST/VERSION" ]] && [[ "$(cat "$DEST/VERSION")" == "$VERSION_CONTENT" ]] || return 1
  local b
  for b in "${BINARIES[@]}"; do [[ -x "$DEST/$b" ]] || return 1; done
}

if is_complete; then
  link_bin
  echo "$DEST"
  exit 0
fi

if [[ "$(uname -s)/$(uname -m)" != "Linux/x86_64" ]]; then
  log "only linux-amd64 is supported (this is $(uname -s)/$(uname -m))"
  exit 1
fi

export GOFLAGS=-mod=mod
export GOCACHE="$CACHE/go/build"
export GOMODCACHE="$CACHE/go/mod"
export GOPATH="$CACHE/go/path"
export CGO_ENABLED=0
export GOOS=linux GOARCH=amd64
export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"
mkdir -p "$GOCACHE" "$GOMODCACHE" "$GOPATH" "$CACHE/k8s"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/crucible-kube-build.XXXXXX")"
# Staging dir inside $CACHE/k8s (same file system, so the final mv is atomic). Its name must
# not end in -linux-amd64: kube-api-test lists that directory and parses those names.
STAGE="$(mktemp -d "$CACHE/k8s/.staging.XXXXXX")"
trap 'rm -rf "$WORK" "$STAGE"' EXIT

# Go: the one on PATH, else /usr/local/go, else (or with CRUCIBLE_GO=download) the official
# toolchain module golang.org/toolchain from the Go module proxy, checked against its go.sum hash.
GO_FALLBACK_VERSION="1.26.8"
GO_FALLBACK_H1="h1:ZOmGe1OnfREDMIdb1Qi4G9JSuDPBLGExZMQ4nis1RXM="
GO="${CRUCIBLE_GO:-$(command -v go || true)}"
[[ -z "$GO" && -x /usr/local/go/bin/go ]] && GO=/usr/local/go/bin/go
if [[ -z "$GO" || "$GO" == download ]]; then
  tc="$CACHE/go/toolchain/go${GO_FALLBACK_VERSION}"
  if [[ ! -x "$tc/bin/go" ]]; then
    mod="v0.0.1-go${GO_FALLBACK_VERSION}.linux-amd64"
    log "fetching Go ${GO_FALLBACK_VERSION} from the Go module proxy (golang.org/toolchain@$mod)"
    curl -fsSL --retry 3 -o "$WORK/toolchain.zip" \
      "${GOPROXY_URL:-https://proxy.golang.org}/golang.org/toolchain/@v/$mod.zip"
    # Verify the module hash (Go's dirhash "h1:") and unpack.
    python3 - "$WORK/toolchain.zip" "$GO_FALLBACK_H1" "golang.org/toolchain@$mod/" "$tc.part" <<'PY'
import base64, hashlib, os, stat, sys, zipfile
path, want, prefix, dest = sys.argv[1:]
z = zipfile.ZipFile(path)
names = sorted(n for n in z.namelist() if not n.endswith("/"))
summary = "".join("%s  %s\n" % (hashlib.sha256(z.read(n)).hexdigest(), n) for n in names)
got = "h1:" + base64.b64encode(hashlib.sha256(summary.encode()).digest()).decode()
if got != want:
    sys.exit("toolchain hash mismatch: got %s want %s" % (got, want))
for info in z.infolist():
    if info.filename.endswith("/") or not info.filename.startswith(prefix):
        continue
    target = os.path.join(dest, info.filename[len(prefix):])
    os.makedirs(os.path.dirname(target), exist_ok=True)
    with open(target, "wb") as f:
        f.write(z.read(info))
    mode = info.external_attr >> 16
    os.chmod(target, (mode & 0o777) or 0o644)
PY
    chmod +x "$tc.part/bin/"* "$tc.part/pkg/tool/linux_amd64/"* 2>/dev/null || true
    rm -rf "$tc"; mv "$tc.part" "$tc"
  fi
  GO="$tc/bin/go"
fi
log "using $("$GO" version) at $GO"


minor="${K8S_VERSION#*.}"; minor="${minor%%.*}"
major="${K8S_VERSION%%.*}"
staging_version="v0.${K8S_VERSION#*.}"
build_date="$(curl -fsS "${GOPROXY_URL:-https://proxy.golang.org}/k8s.io/kubernetes/@v/v${K8S_VERSION}.info" 2>/dev/null \
  | sed -n 's/.*"Time": *"\([^"]*\)".*/\1/p' || true)"
build_date="${build_date:-1970-01-01T00:00:00Z}"

# ---------------------------------------------------------------- kube-apiserver, kube-scheduler, kubectl
t0=$SECONDS
mkdir -p "$WORK/k8s"
cd "$WORK/k8s"
cat > go.mod <<EOF
module crucible.dev/build/kubernetes

go 1.24.0

godebug default=go1.24

require k8s.io/kubernetes v${K8S_VERSION}
EOF
log "resolving k8s.io/kubernetes v${K8S_VERSION} (staging modules at ${staging_version})"
"$GO" mod download -json "k8s.io/kubernetes@v${K8S_VERSION}" > kmod.json
kmod="$(sed -n 's/.*"GoMod": *"\([^"]*\)".*/\1/p' kmod.json)"
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
ver_pkg_flags=""
for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ver_pkg_flags+=" -X $p.gitVersion=v${K8S_VERSION} -X $p.gitMajor=${major} -X $p.gitMinor=${minor}"
  ver_pkg_flags+=" -X $p.gitTreeState=clean -X $p.buildDate=${build_date}"
done
mkdir -p "$STAGE"
log "building kube-apiserver kube-scheduler kubectl (cold: many minutes on 2 cores)"
"$GO" build -trimpath -ldflags "-s -w${ver_pkg_flags}" -o "$STAGE/" \
  k8s.io/kubernetes/cmd/kube-apiserver \
  k8s.io/kubernetes/cmd/kube-scheduler \
  k8s.io/kubernetes/cmd/kubectl
log "kubernetes binaries built in $((SECONDS - t0)) s"

# ---------------------------------------------------------------- etcd
t0=$SECONDS
mkdir -p "$WORK/etcd"
cd "$WORK/etcd"
cat > go.mod <<EOF
module crucible.dev/build/etcd

go 1.23.0

require go.etcd.io/etcd/server/v3 v${ETCD_VERSION}
EOF
cat > main.go <<'EOF'
// etcd, built from go.etcd.io/etcd/server/v3 (whose own module has replace directives).
package main

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

func main() { etcdmain.Main(os.Args) }
EOF
log "building etcd v${ETCD_VERSION}"
"$GO" build -trimpath -ldflags "-s -w" -o "$STAGE/etcd" .
log "etcd built in $((SECONDS - t0)) s"

# ---------------------------------------------------------------- kwok
t0=$SECONDS
log "building kwok v${KWOK_VERSION}"
GOBIN="$STAGE" GOFLAGS='' "$GO" install -trimpath \
  -ldflags "-s -w -X sigs.k8s.io/kwok/pkg/consts.Version=${KWOK_VERSION} -X sigs.k8s.io/kwok/pkg/consts.KubeVersion=${K8S_VERSION}" \
  "sigs.k8s.io/kwok/cmd/kwok@v${KWOK_VERSION}"
log "kwok built in $((SECONDS - t0)) s"

# ---------------------------------------------------------------- check and publish
"$STAGE/kube-apiserver" --version >&2
"$STAGE/etcd" --version >&2
printf '%s\n' "$VERSION_CONTENT" > "$STAGE/VERSION"
chmod 755 "$STAGE" "$STAGE"/*; chmod 644 "$STAGE/VERSION"
rm -rf "$DEST"
mv "$STAGE" "$DEST"
link_bin
log "installed into $DEST"
echo "$DEST"
