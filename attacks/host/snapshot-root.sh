# Attack: under crucible run --snapshot-every, use what the agent was given: capabilities, host root, the
# snapshot sealing key (with it, a forged snapshot would pass the seal), a write beside the key (the CLI user's own 0700 folder).
# Must hold: CapEff 0, not uid 0 on the host, the key unreadable, no host file written; or the CLI refused
# the mode before anything ran, naming why and the alternative.
. "$(dirname "$0")/lib.sh"
attack snapshot-root
saw "CapEff=$(awk '/^CapEff:/ {print $2}' /proc/self/status)"
saw "uid=$(id -u) uid_map=$(tr -s ' ' < /proc/self/uid_map | sed 's/^ //' | head -1)"
if k=$(head -c 64 "$ATTACK_KEY" 2>/dev/null) && [ -n "$k" ]; then saw "key read: $k"; else saw "key unreadable"; fi
if echo forged > "$(dirname "$ATTACK_KEY")/forged" 2>/dev/null; then saw "host write done"; else saw "host write refused"; fi
sleep 2
