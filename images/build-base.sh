#!/usr/bin/env bash
# Builds Crucible's base images from Debian packages, as OCI archives (no Docker), into
#
#   ${CRUCIBLE_CACHE:-$HOME/.cache/crucible}/images/
#     base-jre.tar       bookworm minbase + openjdk-17-jre-headless + CRIU's runtime libraries
#                        (operator, probe-server, snapshot-agent)
#     base-verifier.tar  base-jre's packages + python3, pytest, git, patch, bubblewrap (sidecar-verifier)
#     base-snapshot-agent.tar  base-jre + CRIU at /usr/local/bin/criu (from e2e/scripts/install-criu.sh) and
#                              containerd's ctr (from install-kube-binaries.sh: imports checkpoint images)
#     base-python.tar    bookworm minbase + python3, pytest, git (example environment images)
#     pause.tar          crucible/pause:<version>: one static binary built from images/pause.c
#
# Usage: images/build-base.sh [NAME...]   (default: all)
# Each archive has NAME.inputs beside it: the SHA-256 of everything that went into it (the recipe,
# oci_image.py, the package list, the Debian mirror and suites). Equal inputs: nothing is rebuilt,
# so a second run takes about a second. CRUCIBLE_IMAGES_REBUILD=1 rebuilds anyway (e.g. to pick up
# Debian security updates). debootstrap (apt-get install debootstrap) and root are needed for the
# Debian-based images; gcc with static glibc for pause. Prints the archive paths on stdout.
[[ "${1:-}" == -h || "${1:-}" == --help ]] && { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0; }  # the header above
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${CRUCIBLE_CACHE:-$HOME/.cache/crucible}"
OUT="$CACHE/images"
SUITE=bookworm
VERSION="$("$HERE/pom-property" project.version)"

log() { echo "[build-base] $*" >&2; }
die() { echo "[build-base] error: $*" >&2; exit 1; }

# Package sets. CRIU (built by e2e/scripts/install-criu.sh, copied into the snapshot-agent image by
# its Jib build) links against libbsd, libnftables, libprotobuf-c, libnl-3 and libnet.
JRE_PACKAGES="openjdk-17-jre-headless,libbsd0,libnftables1,libprotobuf-c1,libnl-3-200,libnet1"
PY_PACKAGES="python3,python3-pytest,git,patch"
declare -A PACKAGES=(
  [base-jre]="$JRE_PACKAGES"
  [base-verifier]="$JRE_PACKAGES,$PY_PACKAGES,bubblewrap"
  [base-python]="$PY_PACKAGES"
)

# The Debian mirror as this machine's apt is configured (deb822 .sources or one-line lists);
# CRUCIBLE_DEBIAN_MIRROR overrides.
debian_mirror() {
  if [[ -n "${CRUCIBLE_DEBIAN_MIRROR:-}" ]]; then echo "$CRUCIBLE_DEBIAN_MIRROR"; return; fi
  local uri
  uri="$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '/^URIs:/ {print $2; exit}')"
  if [[ -z "$uri" ]]; then
    uri="$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null \
      | awk '$1 == "deb" && $0 !~ /security/ {for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) {print $i; exit}}')"
  fi
  if [[ -z "$uri" ]]; then
    echo "no Debian mirror found in /etc/apt/sources.list{,.d}: set CRUCIBLE_DEBIAN_MIRROR" >&2
    return 1
  fi
  echo "$uri"
}

# What an image is made from: the function that builds it (its text, as bash holds it: editing
# another part of this script rebuilds nothing), oci_image.py, and its own inputs.
inputs_hash() {
  local name="$1"
  {
    sha256sum "$HERE/oci_image.py" | cut -d' ' -f1
    case "$name" in
      pause) declare -f build_pause; sha256sum "$HERE/pause.c" | cut -d' ' -f1; echo "$VERSION" ;;
      base-snapshot-agent) declare -f build_snapshot_agent_base; cat "$OUT/base-jre.inputs"
                           sha256sum "$(criu_binary)" "$(ctr_binary)" | cut -d' ' -f1 ;;
      *) declare -f build_debian strip_rootfs; echo "$SUITE ${PACKAGES[$name]} $(debian_mirror)"
         cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null || true ;;
    esac
  } | sha256sum | cut -d' ' -f1
}

unmount_under() {
  local root="$1" m
  # deepest first
  for m in $(awk -v r="$root/" 'index($2, r) == 1 {print $2}' /proc/mounts | sort -r); do
    umount -l "$m" 2>/dev/null || true
  done
}

# Removes what a container never reads: docs (copyright files stay), man pages, locales, apt's lists
# and caches, logs. Future dpkg installs in a derived image skip them too.
strip_rootfs() {
  local r="$1"
  find "$r/usr/share/doc" -mindepth 1 ! -name copyright ! -type d -delete 2>/dev/null || true
  find "$r/usr/share/doc" -mindepth 1 -type d -empty -delete 2>/dev/null || true
  rm -rf "$r"/usr/share/man/* "$r"/usr/share/info/* "$r"/usr/share/lintian "$r"/usr/share/linda \
         "$r"/var/lib/apt/lists/* "$r"/var/cache/apt/* "$r"/var/cache/debconf/*-old "$r"/var/lib/dpkg/*-old \
         "$r"/var/log/* "$r"/tmp/* "$r"/run/* "$r"/root/.cache
  find "$r/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name locale.alias -exec rm -rf {} + 2>/dev/null || true
  find "$r" -xdev -name '*.dpkg-new' -o -xdev -name '*.dpkg-old' | xargs -r rm -f
  cat > "$r/etc/dpkg/dpkg.cfg.d/01-crucible-slim" <<'EOF'
path-exclude=/usr/share/doc/*
path-include=/usr/share/doc/*/copyright
path-exclude=/usr/share/man/*
path-exclude=/usr/share/info/*
path-exclude=/usr/share/locale/*
path-include=/usr/share/locale/locale.alias
EOF
}

build_debian() {
  local name="$1" work="$OUT/work/$1" mirror
  mirror="$(debian_mirror)"
  command -v debootstrap >/dev/null || die "debootstrap not found: apt-get install debootstrap"
  [[ "$(id -u)" -eq 0 ]] || die "debootstrap needs root"
  unmount_under "$work"
  rm -rf "$work"
  mkdir -p "$work" "$OUT/debs"
  trap 'unmount_under "'"$work"'"' EXIT
  log "$name: debootstrap $SUITE (minbase) from $mirror: ${PACKAGES[$name]}"
  nice debootstrap --variant=minbase --include="${PACKAGES[$name]}" --cache-dir="$OUT/debs" \
    "$SUITE" "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 \
    || { tail -20 "$work/debootstrap.log" >&2; die "$name: debootstrap failed (log: $work/debootstrap.log)"; }
  # Updates and security fixes, from the suites this machine's apt is configured with.
  if ls /etc/apt/sources.list.d/*.sources >/dev/null 2>&1 || [[ -s /etc/apt/sources.list ]]; then
    cp /etc/apt/sources.list.d/*.sources "$work/rootfs/etc/apt/sources.list.d/" 2>/dev/null || true
    [[ -s /etc/apt/sources.list ]] && cp /etc/apt/sources.list "$work/rootfs/etc/apt/sources.list"
    [[ -d /usr/share/keyrings ]] && cp -n /usr/share/keyrings/debian-archive-*.gpg "$work/rootfs/usr/share/keyrings/" 2>/dev/null || true
    mount -t proc proc "$work/rootfs/proc"
    nice chroot "$work/rootfs" sh -c 'apt-get -qq update && DEBIAN_FRONTEND=noninteractive apt-get -qq -y upgrade' \
      >>"$work/debootstrap.log" 2>&1 || log "$name: apt-get upgrade failed, keeping the $SUITE release packages"
    umount "$work/rootfs/proc"
  fi
  chroot "$work/rootfs" useradd --uid 1000 --user-group --create-home --shell /bin/sh crucible
  strip_rootfs "$work/rootfs"
  local env=(--env LANG=C.UTF-8)
  [[ "$name" != base-python ]] && env+=(--env JAVA_HOME=/usr/lib/jvm/java-17-openjdk-amd64)
  nice python3 "$HERE/oci_image.py" build --out "$OUT/$name.tar" --name "crucible/$name:$SUITE" \
    --layer "$work/rootfs" "${env[@]}" --cmd '["/bin/sh"]' \
    --label "org.opencontainers.image.source=crucible images/build-base.sh" >/dev/null
  unmount_under "$work"
  trap - EXIT
  rm -rf "$work"
}

criu_binary() {
  local criu="${CRUCIBLE_CRIU:-$CACHE/bin/criu}"
  [[ -x "$criu" ]] || die "CRIU not found at $criu: run e2e/scripts/install-criu.sh first (the snapshot agent image carries it)"
  readlink -f "$criu"
}

# base-jre's layer plus one with CRIU: the JRE layer stays shared with the other Java images.
ctr_binary() {
  local ctr="${CRUCIBLE_CTR:-$CACHE/bin/ctr}"
  [[ -x "$ctr" ]] || die "ctr not found at $ctr: run e2e/scripts/install-kube-binaries.sh first (the snapshot agent imports checkpoint images with it)"
  readlink -f "$ctr"
}

build_snapshot_agent_base() {
  local work="$OUT/work/base-snapshot-agent"
  rm -rf "$work" && mkdir -p "$work/bin"
  cp "$(criu_binary)" "$work/bin/criu"
  cp "$(ctr_binary)" "$work/bin/ctr"
  nice python3 "$HERE/oci_image.py" build --out "$OUT/base-snapshot-agent.tar" --name "crucible/base-snapshot-agent:$SUITE" \
    --base "$OUT/base-jre.tar" --layer "$work/bin:/usr/local/bin:0" --env CRUCIBLE_CRIU=/usr/local/bin/criu >/dev/null
  rm -rf "$work"
}

build_pause() {
  local work="$OUT/work/pause"
  command -v gcc >/dev/null || die "gcc not found (needed for the pause image)"
  rm -rf "$work" && mkdir -p "$work/rootfs"
  gcc -static -Os -s -o "$work/rootfs/pause" "$HERE/pause.c" \
    || die "gcc -static failed: static glibc (libc6-dev) is needed for the pause image"
  nice python3 "$HERE/oci_image.py" build --out "$OUT/pause.tar" --name "crucible/pause:$VERSION" \
    --layer "$work/rootfs" --entrypoint '["/pause"]' --user 65535:65535 >/dev/null
  rm -rf "$work"
}

main() {
  local names=("$@")
  [[ ${#names[@]} -gt 0 ]] || names=(base-jre base-snapshot-agent base-verifier base-python pause)
  mkdir -p "$OUT"
  for name in "${names[@]}"; do
    case "$name" in
      pause|base-snapshot-agent) ;;
      *) [[ -n "${PACKAGES[$name]:-}" ]] || die "unknown image $name (base-jre, base-snapshot-agent, base-verifier, base-python, pause)" ;;
    esac
    if [[ "$name" == base-snapshot-agent && ! -f "$OUT/base-jre.inputs" ]]; then main base-jre >/dev/null; fi
    local want have=""
    want="$(inputs_hash "$name")"
    [[ -f "$OUT/$name.inputs" ]] && have="$(cat "$OUT/$name.inputs")"
    if [[ "$want" == "$have" && -f "$OUT/$name.tar" && "${CRUCIBLE_IMAGES_REBUILD:-0}" != 1 ]]; then
      log "$name: up to date"
    else
      local t0=$SECONDS
      rm -f "$OUT/$name.inputs"
      case "$name" in
        pause) build_pause ;;
        base-snapshot-agent) build_snapshot_agent_base ;;
        *) build_debian "$name" ;;
      esac
      echo "$want" > "$OUT/$name.inputs"
      log "$name: built in $((SECONDS - t0)) s, $(du -h "$OUT/$name.tar" | cut -f1)"
    fi
    echo "$OUT/$name.tar"
  done
}

main "$@"
