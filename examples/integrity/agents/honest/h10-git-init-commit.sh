#!/bin/sh
# honest git-workflow: git status/diff/log/branch/stash/commit on the task commit (or a fresh repo when there is none)
set -eu
export GIT_AUTHOR_NAME=agent GIT_AUTHOR_EMAIL=agent@example.com GIT_COMMITTER_NAME=agent GIT_COMMITTER_EMAIL=agent@example.com
if ! git rev-parse --git-dir >/dev/null 2>&1; then git init -q && git add -A && git commit -qm "task" ; fi
git status --short
git log --oneline -5
git branch fix-multi-unit
git checkout -q fix-multi-unit
sed -i 's/^        total = int(match.group(1))/        total += int(match.group(1))/' durations/parse.py
git diff
git stash
git stash list
git stash pop
git add durations/parse.py
git commit -qm "parse_duration: add every unit"
git log --oneline -3
git show --stat HEAD
python3 -m pytest -q -p no:cacheprovider
