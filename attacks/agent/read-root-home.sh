# Attack: read root's home folder (keys, tokens, the CLI's caches) through the read-only bind of /.
# Must hold: /root shows nothing but the folders that lead to a toolchain the box binds (a pyenv
# interpreter's prefix is on PATH), and no file of root's own (.bashrc, .cache, .m2, .ssh) is readable.
. "$(dirname "$0")/lib.sh"
attack read-root-home "/root holds only the way to a bound toolchain on PATH"
for e in $(ls -A /root 2>/dev/null); do
  case ":$PATH:" in
    *":/root/$e/"*) ;;                       # leads to a toolchain prefix the box binds read-only
    *) broken "/root/$e is visible" ;;
  esac
done
for f in /root/.bashrc /root/.profile /root/.cache /root/.m2 /root/.ssh /root/.config; do
  [ -e "$f" ] && broken "$f is visible"
done
held
