# Sourced by the Go install scripts (not run on its own): sets GO to a usable go binary.
# Needs CACHE, WORK and a log function from the caller.
#
# Go: the one on PATH, else /usr/local/go, else (or with CRUCIBLE_GO=download) the official
# toolchain module golang.org/toolchain from the Go module proxy, checked against its go.sum hash.
# The Go module proxy as this machine configures it: GOPROXY_URL, else the first http(s) entry of
# GOPROXY, else what an installed go reports. No host is written here (users behind a mirror).
go_proxy() {
  local list="${GOPROXY_URL:-${GOPROXY:-}}"
  if [[ -z "$list" ]] && command -v "${1:-go}" >/dev/null 2>&1; then list="$("${1:-go}" env GOPROXY 2>/dev/null || true)"; fi
  local entry
  IFS=',|' read -ra entries <<< "$list"
  for entry in "${entries[@]}"; do
    case "$entry" in http://*|https://*) echo "${entry%/}"; return 0 ;; esac
  done
  echo "no Go module proxy is configured: set GOPROXY (or GOPROXY_URL) to your Go module proxy" >&2
  return 1
}
GO_FALLBACK_VERSION="1.26.8"
GO_FALLBACK_H1="h1:ZOmGe1OnfREDMIdb1Qi4G9JSuDPBLGExZMQ4nis1RXM="
GO="${CRUCIBLE_GO:-$(command -v go || true)}"
[[ -z "$GO" && -x /usr/local/go/bin/go ]] && GO=/usr/local/go/bin/go
if [[ -z "$GO" || "$GO" == download ]]; then
  tc="$CACHE/go/toolchain/go${GO_FALLBACK_VERSION}"
  if [[ ! -x "$tc/bin/go" ]]; then
    mod="v0.0.1-go${GO_FALLBACK_VERSION}.linux-amd64"
    log "fetching Go ${GO_FALLBACK_VERSION} from the Go module proxy (golang.org/toolchain@$mod)"
    proxy="$(go_proxy)" || exit 1
    curl -fsSL --retry 3 -o "$WORK/toolchain.zip" "$proxy/golang.org/toolchain/@v/$mod.zip"
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
