#!/usr/bin/env bash
# Builds CRIU >= 4.1 (Debian bookworm's criu 3.17 fails on recent kernels with "Unexpected rt vDSO
# area bounds") from Debian trixie's source tarball against bookworm's -dev packages, into
#
#   ${CRUCIBLE_CACHE:-$HOME/.cache/crucible}/criu/<version>/criu
#   ${CRUCIBLE_CACHE:-$HOME/.cache/crucible}/bin/criu -> ../criu/<version>/criu   (stable path)
#
# The tarball is criu_<version>.orig.tar.xz, checked against the SHA-256 in trixie's signed
# Sources index (pinned below). It is fetched from the Debian pool; if that fails, by the recipe in
# The recipe: a trixie `deb-src` line in its own apt list file, then `apt-get source --download-only
# criu` (CRUCIBLE_CRIU_FETCH=apt-source forces this path). Idempotent: with the binary present
# it only prints `criu --version` and `criu check`.
# Prints the path of the binary (last line of stdout) on success. `criu check` failing is a
# warning (tests that need CRIU decide), unless CRUCIBLE_CRIU_STRICT=1.
[[ "${1:-}" == -h || "${1:-}" == --help ]] && { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0; }  # the header above
set -euo pipefail

CRIU_VERSION="4.1.1"
CRIU_ORIG_SHA256="f80a66cb3726bb2116266d4759ce3bcbfab7abdb6b6d430bf20dd41911717afe"
# The Debian archive this machine's apt already uses (a mirror, behind a company proxy too): the first main
# archive URI in its sources (deb822 .sources files or one-line .list files), not the security archive.
apt_mirror() {
  local f
  for f in /etc/apt/sources.list.d/*.sources /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [[ -f "$f" ]] || continue
    sed -n -e 's/^URIs:[[:space:]]*//p' -e 's/^deb\(-src\)\{0,1\}[[:space:]]\{1,\}\(\[[^]]*\][[:space:]]\{1,\}\)\{0,1\}\([^[:space:]]*\).*/\3/p' "$f"
  done | tr ' ' '\n' | grep -E '^https?://' | grep -v -- '-security' | head -n 1
}
DEBIAN_MIRROR="${CRUCIBLE_DEBIAN_MIRROR:-$(apt_mirror)}"
if [[ -z "$DEBIAN_MIRROR" ]]; then
  echo "[install-criu] no Debian archive found in apt's sources (/etc/apt/sources.list*); set CRUCIBLE_DEBIAN_MIRROR" >&2
  exit 1
fi

CACHE="${CRUCIBLE_CACHE:-$HOME/.cache/crucible}"
DEST="$CACHE/criu/$CRIU_VERSION"
TARBALL="$CACHE/criu/src/criu_${CRIU_VERSION}.orig.tar.xz"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

log() { echo "[install-criu] $*" >&2; }

SUDO=()
if [[ "$(id -u)" -ne 0 ]] && command -v sudo >/dev/null; then SUDO=(sudo -n); fi

sha_ok() { [[ -f "$1" ]] && echo "$CRIU_ORIG_SHA256  $1" | sha256sum -c --quiet - >/dev/null 2>&1; }

fetch_from_pool() {
  local url="$DEBIAN_MIRROR/pool/main/c/criu/criu_${CRIU_VERSION}.orig.tar.xz"
  log "fetching $url"
  curl -fsSL --retry 3 -o "$TARBALL.part" "$url" && mv "$TARBALL.part" "$TARBALL"
}

fetch_with_apt_source() {
  # The recipe: trixie's source index in a separate list file, then apt-get source.
  local list=/etc/apt/sources.list.d/crucible-trixie-src.list dir
  log "fetching with apt-get source (trixie deb-src in $list)"
  echo "deb-src $DEBIAN_MIRROR trixie main" | "${SUDO[@]}" tee "$list" >/dev/null
  # Update only that list, so the machine's other indexes are left as they are.
  "${SUDO[@]}" apt-get -o DPkg::Lock::Timeout=600 -o Acquire::Retries=3 \
    -o Dir::Etc::sourcelist="$list" -o Dir::Etc::sourceparts=- -o APT::Get::List-Cleanup=0 \
    update -qq
  dir="$(mktemp -d)"
  # The .dsc has been seen to answer 404 while the orig tarball downloads, so judge by the file.
  (cd "$dir" && apt-get source --download-only -qq "criu=${CRIU_VERSION}-1") || true
  [[ -f "$dir/criu_${CRIU_VERSION}.orig.tar.xz" ]] || \
    (cd "$dir" && apt-get source --download-only -qq criu) || true
  if [[ -f "$dir/criu_${CRIU_VERSION}.orig.tar.xz" ]]; then
    mv "$dir/criu_${CRIU_VERSION}.orig.tar.xz" "$TARBALL"
  else
    log "apt-get source gave: $(ls "$dir" | tr '\n' ' ') (expected criu_${CRIU_VERSION}.orig.tar.xz;" \
      "if trixie moved on, update CRIU_VERSION and CRIU_ORIG_SHA256 in $0)"
  fi
  rm -rf "$dir"
  # Leave the machine's apt sources as they were (the fetched index is only needed here).
  "${SUDO[@]}" rm -f "$list"
}

verify() {
  local criu="$1" out rc=0
  "$criu" --version >&2
  out="$("$criu" check 2>&1)" || rc=$?
  # criu prints a harmless "Can't setup RLIMIT_NOFILE" error on some machines; show it all.
  log "criu check (exit $rc):"
  printf '%s\n' "$out" | sed 's/^/    /' >&2
  if [[ $rc -ne 0 || "$out" != *"Looks good"* ]]; then
    if [[ "${CRUCIBLE_CRIU_STRICT:-0}" == 1 ]]; then log "criu check failed"; return 1; fi
    log "WARNING: criu check did not say 'Looks good' (needs root and a CRIU-capable kernel)"
  fi
}

link_bin() {
  mkdir -p "$CACHE/bin"
  ln -sfn "../criu/$CRIU_VERSION/criu" "$CACHE/bin/criu"
}

if [[ -x "$DEST/criu" ]] && "$DEST/criu" --version 2>/dev/null | grep -q "Version: ${CRIU_VERSION}\$"; then
  link_bin
  verify "$DEST/criu"
  echo "$DEST/criu"
  exit 0
fi

t0=$SECONDS
"$HERE/install-apt-packages.sh"

mkdir -p "$CACHE/criu/src"
if ! sha_ok "$TARBALL"; then
  rm -f "$TARBALL"
  # CRUCIBLE_CRIU_FETCH=apt-source skips the pool (to exercise the apt recipe).
  if [[ "${CRUCIBLE_CRIU_FETCH:-pool}" != apt-source ]]; then
    fetch_from_pool || log "pool download failed"
  fi
  sha_ok "$TARBALL" || { rm -f "$TARBALL"; fetch_with_apt_source; }
  if ! sha_ok "$TARBALL"; then
    log "could not get criu_${CRIU_VERSION}.orig.tar.xz with SHA-256 $CRIU_ORIG_SHA256"
    exit 1
  fi
fi
log "source ready after $((SECONDS - t0)) s"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/crucible-criu-build.XXXXXX")"
STAGE="$CACHE/criu/.staging.$$"
trap 'rm -rf "$WORK" "$STAGE"' EXIT
tar -xJf "$TARBALL" -C "$WORK"
src="$(find "$WORK" -mindepth 1 -maxdepth 1 -type d | head -n1)"
log "building criu $CRIU_VERSION in $src (make criu, no docs)"
t1=$SECONDS
make -C "$src" -j"$(nproc)" criu >"$WORK/build.log" 2>&1 || {
  tail -n 40 "$WORK/build.log" >&2; log "make criu failed (full log above was $WORK/build.log)"; exit 1; }
log "built in $((SECONDS - t1)) s"

rm -rf "$STAGE"; mkdir -p "$STAGE"
install -m 755 "$src/criu/criu" "$STAGE/criu"
rm -rf "$DEST"
mv "$STAGE" "$DEST"
link_bin
verify "$DEST/criu"
log "installed into $DEST in $((SECONDS - t0)) s"
echo "$DEST/criu"
