#!/bin/sh
# The grader's `go` for a wrapped test command (make, a script, an npm script): the wrapper's `go test` also
# writes go's -json event stream into the grader's folder, one file per run, with its exit status, and prints
# what go test prints; every other go command (build, vet, list) runs unchanged, so GOFLAGS=-json is not used.
out='@OUT@'
real=''
old_ifs=$IFS
IFS=:
for d in $PATH; do
  if [ "$d" != "$out/bin" ] && [ -x "$d/go" ] && [ ! -d "$d/go" ]; then real="$d/go"; break; fi
done
IFS=$old_ifs
if [ -z "$real" ]; then echo "go: command not found" >&2; exit 127; fi
if [ "$1" != test ]; then exec "$real" "$@"; fi
shift
json=''
for a in "$@"; do
  case "$a" in -json|-json=true|--json) json=1 ;; -args) break ;; esac
done
n="$$.$(date +%s%N 2>/dev/null)"
if [ -n "$json" ]; then
  { "$real" test "$@"; echo $? > "$out/go-$n.exit"; } | tee "$out/go-$n.jsonl"
else
  # the events' Output fields are what go test prints (test2json keeps every byte of it)
  { "$real" test -json "$@"; echo $? > "$out/go-$n.exit"; } | tee "$out/go-$n.jsonl" | awk '
    function hex(h,    i, v) { v = 0; h = tolower(h); for (i = 1; i <= 4; i++) v = v * 16 + index("0123456789abcdef", substr(h, i, 1)) - 1; return v }
    function unescape(s,    o, i, c, v) {
      o = ""
      for (i = 1; i <= length(s); i++) {
        c = substr(s, i, 1)
        if (c != "\\") { o = o c; continue }
        i++; c = substr(s, i, 1)
        if (c == "n") o = o "\n"; else if (c == "t") o = o "\t"; else if (c == "r") o = o "\r"
        else if (c == "b") o = o "\b"; else if (c == "f") o = o "\f"
        else if (c == "u") { v = hex(substr(s, i + 1, 4)); i += 4; if (v > 0 && v < 128) o = o sprintf("%c", v); else if (v >= 128) o = o "?" }
        else o = o c
      }
      return o
    }
    substr($0, 1, 1) != "{" { print; next }
    {
      k = index($0, "\"Output\":\"")
      if (k == 0) next
      s = substr($0, k + 10); e = 0
      for (j = 1; j <= length(s); j++) { c = substr(s, j, 1); if (c == "\\") { j++; continue } if (c == "\"") { e = j; break } }
      if (e > 0) printf "%s", unescape(substr(s, 1, e - 1))
    }'
fi
code=$(cat "$out/go-$n.exit" 2>/dev/null)
exit "${code:-1}"
