#!/bin/bash
# A cold `snapdiff HEAD~1 HEAD` on a blobless partial clone of a generated 1,500-page catalogue,
# served from a local file:// remote: wall time and how many `git fetch` processes ran.
#
#   bench/blobless.sh [RUNS]        (run from the repository's top; needs snapdiff installed)
#
# Each run clones afresh (`--filter=blob:none --no-checkout`) and reads with `--no-cache`, so
# every blob the diff reads is missing from the clone when it starts.
set -euo pipefail
runs=${1:-3}
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 "$here/gencat.py" --packages 1500 --specs-total 15000 --seed 1 --churn 0.05 \
    --git --out "$work/origin" --truth "$work/truth.json" >/dev/null
git -C "$work/origin" config uploadpack.allowFilter true
for run in $(seq "$runs"); do
    rm -rf "$work/clone" "$work/trace.json"
    git clone -q --filter=blob:none --no-checkout "file://$work/origin" "$work/clone"
    load=$(cut -d' ' -f1 /proc/loadavg)
    start=$(date +%s.%N)
    GIT_TRACE2_EVENT="$work/trace.json" snapdiff HEAD~1 HEAD --repo "$work/clone" --no-cache \
        -o "$work/report.md"
    end=$(date +%s.%N)
    fetches=$(grep '"event":"cmd_name"' "$work/trace.json" | grep -c '"name":"fetch"' || true)
    echo "run $run: $(echo "$end - $start" | bc) s, $fetches fetches, load $load"
done
