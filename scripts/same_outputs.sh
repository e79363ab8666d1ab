#!/bin/sh
# scripts/same_outputs.sh -- record what a binary of mdae prints for every
# model of the tree and of ../shared/msl, or compare two binaries' records.
#
#   scripts/same_outputs.sh record MDAE DIR   write DIR/<case>.out
#   scripts/same_outputs.sh compare DIR1 DIR2 list the cases that differ
#
# Cases: check --json, structure, analyze --json, convert --to mel and
# --to modelica, on tests/models, tests/corpus/{mel,mo}_parse and the 120
# MSL exports (analyze only where it finishes within 120 s; the exit
# status is part of the record). Used to show that a refactoring of the
# front-ends changes no output (issue 38).
set -u
here=$(cd "$(dirname "$0")/.." && pwd)
msl=${MSL:-$here/../shared/msl}
msl=$(cd "$msl" && pwd) || exit 2

inputs() {
    for f in "$here"/tests/models/*.mel "$here"/tests/models/*.mo "$here"/tests/models/*.bmo \
             "$here"/tests/corpus/mel_parse/* "$here"/tests/corpus/mo_parse/* "$msl"/*.bmo; do
        [ -f "$f" ] && echo "$f"
    done
}

record() {
    mdae=$1 out=$2
    mkdir -p "$out"
    inputs | while read -r f; do
        key=$(echo "$f" | sed "s|$here/||; s|$msl/|msl/|; s|/|_|g")
        for cmd in "check --json" "structure" "analyze --json" "convert --to mel" \
                   "convert --to modelica"; do
            tag=$(echo "$cmd" | tr ' ' '_' | tr -d '-')
            timeout 120 $mdae $cmd "$f" >"$out/$key.$tag.out" 2>&1 </dev/null
            echo "exit $?" >>"$out/$key.$tag.out"
        done
    done
}

case "${1:-}" in
record) record "$2" "$3" ;;
compare)
    n=0 d=0
    for f in "$2"/*.out; do
        n=$((n + 1))
        if ! cmp -s "$f" "$3/$(basename "$f")"; then
            d=$((d + 1))
            echo "differs: $(basename "$f")"
        fi
    done
    echo "$n cases, $d differ"
    ;;
*) echo "usage: $0 record MDAE DIR | compare DIR1 DIR2" >&2; exit 2 ;;
esac
