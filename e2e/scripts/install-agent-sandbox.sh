#!/usr/bin/env bash
# Builds the peer that e2e/bench/control-plane measures beside Crucible: the Sandbox controller of
# kubernetes-sigs/agent-sandbox (Go module sigs.k8s.io/agent-sandbox), from source through the Go
# module proxy, like install-kube-binaries.sh builds the kube binaries. Nothing fetched is committed.
#
#   ${CRUCIBLE_CACHE:-$HOME/.cache/crucible}/agent-sandbox/<VERSION>/
#     agent-sandbox-controller   cmd/agent-sandbox-controller (a controller-runtime manager; it reads
#                                --kubeconfig / $KUBECONFIG like any client-go program)
#     crds/*.yaml                k8s/crds/ of the module: Sandbox (agents.x-k8s.io) and the
#                                extensions' SandboxTemplate/Claim/WarmPool (unused by the bench)
#     VERSION
#
# Its own wrapper module, like kwok has its own: it pins k8s.io v0.34.1 and controller-runtime v0.22,
# which the kube wrapper module does not carry; a module that requires only agent-sandbox resolves
# every dependency to what agent-sandbox's go.mod says. (Not `go install pkg@version`: that asks the
# proxy for the version list to check deprecation, which this proxy refuses with 403.) GOMODCACHE and
# GOCACHE are the kube build's, so shared dependencies are neither downloaded nor compiled twice.
# The proxy serves v0.1.0 and v0.1.1 here; CRUCIBLE_AGENT_SANDBOX_VERSION picks another.
#
# Idempotent: when the directory has a matching VERSION file and the binary, it prints and exits at
# once. Prints the directory (last line of stdout) on success.
[[ "${1:-}" == -h || "${1:-}" == --help ]] && { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0; }  # the header above
set -euo pipefail

VERSION="${CRUCIBLE_AGENT_SANDBOX_VERSION:-0.1.1}"
MODULE=sigs.k8s.io/agent-sandbox
CACHE="${CRUCIBLE_CACHE:-$HOME/.cache/crucible}"
DEST="$CACHE/agent-sandbox/v${VERSION}"
VERSION_CONTENT="agent-sandbox=v${VERSION}"

log() { echo "[install-agent-sandbox] $*" >&2; }

if [[ -f "$DEST/VERSION" && "$(cat "$DEST/VERSION")" == "$VERSION_CONTENT" \
      && -x "$DEST/agent-sandbox-controller" ]]; then
  echo "$DEST"
  exit 0
fi

export GOFLAGS=-mod=mod   # the wrapper has no go.sum; go fills it in from the module cache
export GOCACHE="${CRUCIBLE_GOCACHE:-$CACHE/go/build}"
export GOMODCACHE="$CACHE/go/mod"
export GOPATH="$CACHE/go/path"
export CGO_ENABLED=0 GOOS=linux GOARCH=amd64
export GOTOOLCHAIN="${GOTOOLCHAIN:-auto}"
mkdir -p "$GOCACHE" "$GOMODCACHE" "$GOPATH" "$CACHE/agent-sandbox"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/crucible-agent-sandbox.XXXXXX")"
STAGE="$(mktemp -d "$CACHE/agent-sandbox/.staging.XXXXXX")"   # same file system: the final mv is atomic
trap 'rm -rf "$WORK" "$STAGE"' EXIT

# shellcheck source=go-toolchain.sh
source "$(dirname "${BASH_SOURCE[0]}")/go-toolchain.sh"
log "using $("$GO" version) at $GO"

t0=$SECONDS
log "building ${MODULE}/cmd/agent-sandbox-controller v${VERSION} in its own module"
mkdir -p "$WORK/mod"
cd "$WORK/mod"
printf 'module crucible.dev/build/agent-sandbox\n\ngo 1.24.4\n\nrequire %s v%s\n' "$MODULE" "$VERSION" > go.mod
"$GO" build -trimpath -ldflags "-s -w" -o "$STAGE/agent-sandbox-controller" "${MODULE}/cmd/agent-sandbox-controller"
log "built in $((SECONDS - t0)) s"

# The CRDs ship in the module source (k8s/crds/); the module cache is read-only, so copy them out.
src="$("$GO" mod download -json "${MODULE}@v${VERSION}" | sed -n 's/.*"Dir": *"\([^"]*\)".*/\1/p')"
if [[ ! -f "$src/k8s/crds/agents.x-k8s.io_sandboxes.yaml" ]]; then
  log "no k8s/crds/agents.x-k8s.io_sandboxes.yaml in $src"; exit 1
fi
mkdir -p "$STAGE/crds"
cp "$src"/k8s/crds/*.yaml "$STAGE/crds/"

"$STAGE/agent-sandbox-controller" --help 2>&1 | grep -q -- -kubeconfig \
  || { log "the built controller has no --kubeconfig flag"; exit 1; }
printf '%s\n' "$VERSION_CONTENT" > "$STAGE/VERSION"
chmod 755 "$STAGE" "$STAGE/crds"; chmod 644 "$STAGE/VERSION" "$STAGE"/crds/*.yaml
rm -rf "$DEST"
mv "$STAGE" "$DEST"
log "installed into $DEST"
echo "$DEST"
