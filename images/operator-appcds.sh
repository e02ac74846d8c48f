#!/usr/bin/env bash
# Writes the operator image's AppCDS archive (a dynamic CDS archive of the classes start-up loads),
# made by the image's own JVM: an archive only maps into the JVM build that wrote it, and only with
# the same class path, jar sizes and mtimes. So this runs the fast-jar once inside base-jre's root
# filesystem (chroot), at /deployments as in the image, with the mtimes Jib gives every file (epoch
# + 1 s), then checks that the archive maps (-Xshare:on) before the build goes on.
#
# Usage: images/operator-appcds.sh QUARKUS_APP_DIR OUT.jsa   (root: chroot, mount /proc)
# The run needs no cluster: the operator is pointed at an API server that refuses connections, so it
# starts (CDI, config, Vert.x, HTTP, the four controllers) up to its informers' first list, which fails,
# and stops itself; the JVM writes the archive as it exits. (Quarkus 3.30's own quarkus.appcds.generate
# is not a runtime key any more and needs Docker to match the image's JVM.) JDK 17 has no
# -XX:+AutoCreateSharedArchive, hence -XX:ArchiveClassesAtExit.
[[ "${1:-}" == -h || "${1:-}" == --help ]] && { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0; }  # the header above
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
CACHE="${CRUCIBLE_CACHE:-$HOME/.cache/crucible}"
APP="$(cd "$1" && pwd)"; OUT="$2"
BASE="$CACHE/images/base-jre.tar"
# The archive is made with the options the chart runs it with (GC and compressed oops must match).
JVM_OPTS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xshare:auto"
# HTTP on a free port (the chroot shares this machine's network); nothing listens on port 1.
APP_OPTS="-Dquarkus.http.port=0 -Dquarkus.kubernetes-client.api-server-url=https://127.0.0.1:1 -Djava.util.logging.manager=org.jboss.logmanager.LogManager"
log() { echo "[operator-appcds] $*" >&2; }
die() { echo "[operator-appcds] error: $*" >&2; exit 1; }
[[ "$(id -u)" -eq 0 ]] || die "needs root (chroot into base-jre's root filesystem)"
[[ -f "$BASE" ]] || die "$BASE missing: run images/build-base.sh base-jre"
[[ -f "$APP/quarkus-run.jar" ]] || die "$APP/quarkus-run.jar missing: build the operator first"

CHROOT="$(command -v chroot)" || die "chroot not found"
mkdir -p "$CACHE/images/work"
work="$(mktemp -d "$CACHE/images/work/operator-appcds.XXXXXX")"
root="$work/rootfs"
cleanup() { umount "$root/proc" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT
mkdir -p "$root" "$work/blobs"
# base-jre's layers, in order, as a runtime would unpack them (oci_image.py checks every digest)
for layer in $(python3 -c 'import sys; sys.path.insert(0, sys.argv[1]); import oci_image as o
_, m, _ = o.read_archive(sys.argv[2], into=sys.argv[3]); print(" ".join(l["digest"].split(":")[1] for l in m["layers"]))' \
    "$HERE" "$BASE" "$work/blobs"); do
  tar -xzf "$work/blobs/$layer" -C "$root" --numeric-owner
done
rm -rf "$work/blobs"
cp -a "$APP" "$root/deployments"
# Jib's default filesModificationTime (EPOCH_PLUS_SECOND): CDS refuses a jar whose mtime changed.
find "$root/deployments" -exec touch -h -d @1 {} +
mount -t proc proc "$root/proc"
in_image() { env -i PATH=/usr/bin:/bin HOME=/tmp "$CHROOT" "$root" /bin/sh -c "cd /deployments && $1"; }
in_image "java -version" 2>&1 | sed 's/^/[operator-appcds] image JVM: /' >&2
t0=$(date +%s.%N)
# exits non-zero (the operator stops when its informers cannot start): what counts is the archive
in_image "exec java $JVM_OPTS -XX:ArchiveClassesAtExit=/tmp/app-cds.jsa $APP_OPTS -jar quarkus-run.jar" >"$work/dump.log" 2>&1 || true
grep -q "Starting 'rollout' controller" "$work/dump.log" && [[ -s "$root/tmp/app-cds.jsa" ]] || {
  cp "$work/dump.log" "$CACHE/images/work/operator-appcds-dump.log"
  grep -v "Skipping\|Pre JDK 6" "$work/dump.log" | tail -30 >&2; die "the dump run did not start the operator or wrote no archive"; }
log "dumped in $(echo "$(date +%s.%N) - $t0" | bc | cut -c1-5) s"
# -Xshare:on: the JVM refuses to start if the archive cannot be mapped (other JVM build, class path,
# jar sizes or mtimes); so an operator that starts its controllers has mapped it.
in_image "exec java $JVM_OPTS -Xshare:on -XX:SharedArchiveFile=/tmp/app-cds.jsa $APP_OPTS -jar quarkus-run.jar" >"$work/check.log" 2>&1 || true
grep -q "Starting 'rollout' controller" "$work/check.log" \
  || { grep -v "Skipping\|Pre JDK 6" "$work/check.log" | tail -30 >&2; die "the archive does not map in the image's JVM"; }
mkdir -p "$(dirname "$OUT")"
cp "$root/tmp/app-cds.jsa" "$OUT"
log "$OUT: $(du -h "$OUT" | cut -f1), maps in the image's JVM"
echo "$OUT"
