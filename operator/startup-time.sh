#!/usr/bin/env bash
# Start-up time of the operator's fast-jar on this machine's JDK, with and without an AppCDS archive
# made by that JDK: launch -> the log line "Starting 'rollout' controller" (the next step is the
# informers' first list), against an API server that refuses (127.0.0.1:1), so no cluster is needed.
# Prints "LABEL WALL_ms cpu_ms=PROCESS_CPU_ms" per run. Usage: operator/startup-time.sh [ROUNDS]
# Build first: ./mvnw -B -o -pl operator -am install -DskipTests
[[ "${1:-}" == -h || "${1:-}" == --help ]] && { sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0; }  # the header above
set -euo pipefail
cd "$(dirname "$0")/target/quarkus-app"
APP_OPTS="-Dquarkus.http.port=0 -Dquarkus.kubernetes-client.api-server-url=https://127.0.0.1:1 -Djava.util.logging.manager=org.jboss.logmanager.LogManager"
TUNED="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
work="$(mktemp -d)"; trap 'rm -rf "$work"' EXIT
java $TUNED -XX:ArchiveClassesAtExit="$work/cds.jsa" $APP_OPTS -jar quarkus-run.jar >"$work/dump.log" 2>&1 || true
one() {
  local log="$work/$1.log" t0 t1 cpu p
  : >"$log"; t0=$(date +%s%N)
  java $2 $APP_OPTS -jar quarkus-run.jar >"$log" 2>&1 & p=$!
  until grep -q "Starting 'rollout' controller" "$log"; do sleep 0.05; kill -0 $p 2>/dev/null || break; done
  t1=$(date +%s%N)
  cpu=$(awk -v hz="$(getconf CLK_TCK)" '{s=$0; sub(/.*\) /,"",s); split(s,f," "); print (f[12]+f[13])*1000/hz}' /proc/$p/stat)
  kill $p; wait $p 2>/dev/null || true
  echo "$1 $(( (t1-t0)/1000000 )) ms cpu_ms=$cpu"
}
for _ in $(seq "${1:-4}"); do
  one default ""
  one tuned "$TUNED"
  one tuned+cds "$TUNED -Xshare:on -XX:SharedArchiveFile=$work/cds.jsa"
  one default+cds "-Xshare:on -XX:SharedArchiveFile=$work/cds.jsa"
done
