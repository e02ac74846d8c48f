#!/usr/bin/env bash
# Installs the Debian (bookworm) packages a fresh machine needs for Crucible's tests and for the
# other install scripts in this folder. Idempotent: when every package is already installed it
# returns at once without touching apt; otherwise it runs `apt-get update` once and installs only
# the missing ones. Extra package names may be given as arguments.
[[ "${1:-}" == -h || "${1:-}" == --help ]] && { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0; }  # the header above
set -euo pipefail

PACKAGES=(
  # component tests: verifier runs pytest in real workspaces, sandboxed with bubblewrap
  python3 python3-pytest bubblewrap git
  # crucible run's per-attempt disk volume (mkfs.ext4; fstrim and fallocate come with util-linux); without root,
  # a limit too large for a tmpfs is an ext4 image mounted with fuse2fs in the run's own namespace
  e2fsprogs fuse2fs
  # workspace patches on restored branches (snapshot agent)
  patch
  # downloads (install-kube-binaries.sh, install-criu.sh)
  ca-certificates curl xz-utils
  # process tooling the snapshot tests use (unshare/setsid from util-linux, ip for CRIU)
  util-linux procps iproute2
  # CRIU build (install-criu.sh): compiler, protobuf(-c) code generators and the -dev libraries
  build-essential pkg-config
  protobuf-c-compiler libprotobuf-c-dev protobuf-compiler libprotobuf-dev python3-protobuf
  libnl-3-dev libnl-route-3-dev libnet1-dev libcap-dev libbsd-dev libgnutls28-dev
  libnftables-dev uuid-dev libaio-dev
  # real-node tier (containerd + kubelet, built by install-kube-binaries.sh): the OCI runtime, and
  # the iptables/conntrack tools the bridge and portmap CNI plugins and kubelet call (~11 MB)
  runc iptables conntrack
  # runc >= 1.2 for user-namespaced pods, built from its Go module by install-runc.sh (cgo, seccomp)
  libseccomp-dev
  # Crucible's images (images/build-base.sh: base images from Debian packages) and up's certificates
  debootstrap openssl
  # the console's browser test (cli ConsoleBrowserTest): headless chromium driven by Selenium through its chromedriver
  chromium chromium-driver
)
PACKAGES+=("$@")

log() { echo "[install-apt-packages] $*" >&2; }

# One dpkg-query for all of them (fast); names it does not know are simply absent from its output.
installed=" $(dpkg-query -W -f='${Package}=${db:Status-Status} ' "${PACKAGES[@]}" 2>/dev/null || true) "
missing=()
for p in "${PACKAGES[@]}"; do
  [[ "$installed" == *" $p=installed "* ]] || missing+=("$p")
done

if [[ ${#missing[@]} -eq 0 ]]; then
  log "all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=()
if [[ "$(id -u)" -ne 0 ]]; then
  if command -v sudo >/dev/null; then SUDO=(sudo -n); else
    log "need root (or sudo) to install: ${missing[*]}"; exit 1
  fi
fi

export DEBIAN_FRONTEND=noninteractive
APT_OPTS=(-o DPkg::Lock::Timeout=600 -o Acquire::Retries=3)
log "missing: ${missing[*]}"
log "apt-get update"
"${SUDO[@]}" apt-get "${APT_OPTS[@]}" update -qq
log "apt-get install ${#missing[@]} packages"
"${SUDO[@]}" apt-get "${APT_OPTS[@]}" install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
log "installed: ${missing[*]}"
