#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
#
# tools/validate/bbr_tas_paper.py on a made-up experiment whose numbers are worked out by hand:
# three controls, one test, three repetitions each. Checks the latency window (a sample before
# the flows start is left out), the means with Student's t intervals, Welch's interval of a
# difference, the verdicts and the fell-behind mark. The binary argument is not used.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tool=$here/../../tools/validate/bbr_tas_paper.py
command -v python3 >/dev/null || { echo "t_paper_table: no python3: skipped"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 - "$tmp" <<'PY'
import json, os, sys
out = sys.argv[1]
# Per control: each repetition's ping RTT (ms) during the flows, and whether it fell behind.
pings = {"cubic": [20, 21, 22], "bbr3": [10, 11, 12], "tas": [10, 11, 12]}
for cca, rtts in pings.items():
    cid = f"cca={cca}," + ("tas_shift=8-8," if cca == "tas" else "") \
        + "test=tcp_upload,link=station7,kernel=bbr3"
    for k, rtt in enumerate(rtts, 1):
        d = os.path.join(out, cid, f"rep-{k}")
        os.makedirs(d)
        late = cca == "tas" and k == 1
        r = {"delay_s": 2, "length_s": 20, "ok": True,
             "flows": [{"dir": "up", "throughput_mbps": 250.0 + k}],
             # t = 1 s is before the flows: its 1000 ms must not count.
             "latency": [{"kind": "icmp", "samples": {"t": [1, 3, 4, 5],
                                                      "rtt_ms": [1000, rtt, rtt, rtt]}}],
             "flags": ["fell_behind:down"] if late else [],
             "fidelity": {"up": {"release_err_p99_us": 40},
                          "down": {"release_err_p99_us": 250 if late else 60}}}
        with open(os.path.join(d, "result.json"), "w") as f:
            json.dump(r, f)
        open(os.path.join(d, "done"), "w").close()
PY

python3 "$tool" "$tmp" > "$tmp/out.md"
fail=0
expect() {
	if ! grep -qF -- "$1" "$tmp/out.md"; then
		echo "t_paper_table: expected: $1"
		fail=1
	fi
}
# Means 21 and 11, sd 1, n 3: t(2) = 4.3027, half-width 4.3027 / sqrt(3) = 2.484.
# Throughput 251, 252, 253: 252 [249.5, 254.5]. Welch, tas - cubic: -10, se sqrt(2/3),
# 4 degrees of freedom, t(4) = 2.7764, half-width 2.267: -47.6% [-58.4, -36.8] of 21.
expect "| station7 | 21.0 [18.5, 23.5] | 11.0 [8.5, 13.5] | 11.0 [8.5, 13.5] (fell behind 1/3, p99 up to 250 us) | -47.6% [-58.4, -36.8] | reproduced; runs fell behind | +0.0% [-20.6, +20.6] | not shown (interval holds 0); runs fell behind |"
expect "| station7 | 252.0 [249.5, 254.5] | 252.0 [249.5, 254.5] | 252.0 [249.5, 254.5] (fell behind 1/3, p99 up to 250 us) |"
# A configuration with no runs shows "-" and no verdict.
expect "| stationk | - | - | - | - | too few runs | - | too few runs |"
if [ $fail -ne 0 ]; then
	cat "$tmp/out.md"
	exit 1
fi
echo "t_paper_table: ok"
