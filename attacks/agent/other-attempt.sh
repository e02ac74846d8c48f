# Attack: read another attempt's live workspace (--parallel 2, --out outside /tmp), e.g. to copy its solution.
# Must hold: the other attempt's secret file is unreadable (it exists while both run).
. "$(dirname "$0")/lib.sh"
attack other-attempt "another attempt's workspace is invisible"
me=${CRUCIBLE_ATTEMPT:-0}; other=$((1 - me))
echo "secret of attempt $me" > "$(dirname "$0")/secret-$me"
i=0
while [ $i -lt 6 ]; do
  for f in "$ATTACK_OUT/attempt-$other"/sandbox/*/.attacks/secret-$other; do
    c=$(cat "$f" 2>/dev/null) && [ -n "$c" ] && broken "read $f: $c"
  done
  sleep 0.5; i=$((i + 1))
done
held
