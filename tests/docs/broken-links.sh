#!/usr/bin/env bash
# The guide's check catches links that work among the Markdown sources but not in the built
# book. On a copy of the repository's tracked files: scripts/check-guide.sh passes on the guide
# as it is, then fails, naming the link, on each of these added to a chapter:
#   - a relative link to a repository file outside docs/src (it resolves next to the Markdown,
#     so only the built HTML shows it broken);
#   - an anchor in raw HTML that no heading of the target chapter has;
#   - a repository URL to a file the repository does not have.
# Uses the mdBook that scripts/check-guide.sh installed (CARGO_TARGET_DIR honoured).
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$PWD"
export CARGO_TARGET_DIR="$(realpath "${CARGO_TARGET_DIR:-target}")"

copy="$(mktemp -d)"
trap 'rm -rf "$copy"' EXIT
# The working tree's files that git tracks or would (a file deleted but not yet committed is left out).
git ls-files -z --cached --others --exclude-standard |
    tar --null --files-from=- --ignore-failed-read --warning=no-failed-read -cf - | tar -xf - -C "$copy"
cd "$copy"

check() { scripts/check-guide.sh --no-run >"$copy/out" 2>&1; }

if ! check; then
    cat "$copy/out"
    echo "FAIL: the guide as it is does not pass" >&2
    exit 1
fi
echo "ok: the guide as it is passes"

# Each case: the text added to docs/src/testing.md, and what the failure must name.
cases=(
    '[the test command](../../scripts/test.sh)|testing.html:|link to `../../scripts/test.sh`: not in the built book; it is outside the book'
    '<a href="computer.html#no-such-heading">levels</a>|(from docs/src/testing.md)|no id `no-such-heading` in computer.html'
    '[missing](https://github.com/qchess/qchess/blob/main/scripts/no-such-script.sh)|testing.html:|the repository has no scripts/no-such-script.sh'
)
for case in "${cases[@]}"; do
    IFS='|' read -r added where expected <<<"$case"
    cp "$root/docs/src/testing.md" docs/src/testing.md
    printf '\n%s\n' "$added" >>docs/src/testing.md
    if check; then
        echo "FAIL: the check passed with \`$added\` in the guide" >&2
        exit 1
    fi
    if ! grep -F -- "$where" "$copy/out" | grep -qF -- "$expected"; then
        cat "$copy/out"
        echo "FAIL: the check failed with \`$added\`, but did not say \"$where ... $expected\"" >&2
        exit 1
    fi
    echo "ok: caught $added"
done
