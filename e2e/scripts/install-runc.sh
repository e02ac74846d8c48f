#!/usr/bin/env bash
# Builds runc from its Go module (the Go module proxy; no download site needed) into
#
#   ${CRUCIBLE_CACHE:-$HOME/.cache/crucible}/runc/<version>/runc
#
# Why not Debian's runc: bookworm ships 1.1.5, which has no idmapped mounts, so containerd reports
# that its runc cannot run pods in user namespaces and the kubelet refuses `hostUsers: false`. Rollout
# pods run in user namespaces (the operator's default), and on machines whose bounding set lacks
# CAP_SYS_RESOURCE (these VMs) that is also what lets CRIU checkpoint a non-root container: the
# agent's user namespace is owned by root, so the runtime's CRIU holds every capability inside it.
# Built with cgo and the seccomp tag (libseccomp-dev), as the pods' RuntimeDefault profile needs.
# Idempotent: with the binary present it only prints its path (last line of stdout).
[[ "${1:-}" == -h || "${1:-}" == --help ]] && { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0; }  # the header above
set -euo pipefail

RUNC_VERSION="1.3.5"   # the 1.3 line containerd 2.2 is tested with; no replace directive, so `go install` builds it

CACHE="${CRUCIBLE_CACHE:-$HOME/.cache/crucible}"
DEST="$CACHE/runc/$RUNC_VERSION"
log() { echo "[install-runc] $*" >&2; }

if [[ -x "$DEST/runc" ]]; then
  log "present: $("$DEST/runc" --version | head -1)"
  echo "$DEST/runc"
  exit 0
fi
pkg-config --exists libseccomp || { log "libseccomp-dev missing (e2e/scripts/install-apt-packages.sh)"; exit 1; }

t0=$SECONDS
WORK="$(mktemp -d "${TMPDIR:-/tmp}/crucible-runc-build.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
# shellcheck source=go-toolchain.sh
source "$(dirname "${BASH_SOURCE[0]}")/go-toolchain.sh"
export GOFLAGS=-mod=mod
export GOCACHE="${CRUCIBLE_GOCACHE:-$CACHE/go/build}"
export GOMODCACHE="$CACHE/go/mod"
export GOPATH="$WORK/gopath"
export CGO_ENABLED=1 GOOS=linux GOARCH=amd64
export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"
log "building runc v$RUNC_VERSION with $("$GO" version)"
"$GO" install -trimpath -tags seccomp -ldflags "-X main.version=$RUNC_VERSION" "github.com/opencontainers/runc@v$RUNC_VERSION" >&2
mkdir -p "$DEST"
install -m 0755 "$GOPATH/bin/runc" "$DEST/runc.part"
mv "$DEST/runc.part" "$DEST/runc"
"$DEST/runc" --version >&2
"$DEST/runc" features | grep -q '"idmap"' || log "warning: this runc reports no idmap mount support"
log "installed into $DEST in $((SECONDS - t0)) s"
echo "$DEST/runc"
