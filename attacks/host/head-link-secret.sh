# Attack: point .git/HEAD, config and packed-refs at a host file the box cannot see (the CLI user's 0600
# secret, outside the box). The monitor runs on the host with the CLI's rights and quotes what it reads.
# Must hold: the secret's marker is in no output of the run (terminal, result.json, the attempt folder).
. "$(dirname "$0")/lib.sh"
attack head-link-secret
if cat "$ATTACK_SECRET" >/dev/null 2>&1; then saw "the box itself can read $ATTACK_SECRET"; else saw "the box cannot read $ATTACK_SECRET"; fi
ln -sf "$ATTACK_SECRET" .git/HEAD && planted ".git/HEAD -> $ATTACK_SECRET"
sleep 3
git_dir=.git
for f in config packed-refs; do ln -sf "$ATTACK_SECRET" "$git_dir/$f" && planted ".git/$f -> $ATTACK_SECRET"; done
sleep 3
