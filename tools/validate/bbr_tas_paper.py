#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Put the BBR-TAS paper's headline numbers beside an experiment's.

Usage: tools/validate/bbr_tas_paper.py [--tas-shift STARTUP/STEADY] DIR...
       tools/validate/bbr_tas_paper.py --pairs TEST DIR...

DIR is the output of `tasshape exp run docs/examples/bbr-tas-paper.ini` (or
of a reduced run of it). Every repetition's result.json is read; nothing is
taken from the summaries, so the numbers below can be checked run by run.
Prints a markdown table per claim to stdout; docs/validation/bbr-tas-paper.md
holds its output for the reduced run. A configuration missing from DIR shows
"-"; with several DIRs the configurations of all are read (a matrix run in
parts). --pairs TEST prints instead one row per BBR-TAS shift pair found for
TEST: throughput (upload, and download for a test that has one) and latency
per link, and latency against BBRv3. Needs python3 only.

Per repetition:
- throughput: the sum of the test's flows in a direction (Mbit/s, iperf3's
  receiver count over the test's length);
- latency: the mean ICMP RTT of the samples taken while the flows ran
  (t in [delay, delay + length]), every ping series of the run pooled.

Per configuration: the mean over repetitions with Student's t 95% interval.
A comparison "tas against X" is the difference of the two means with
Welch's 95% interval, and as a percentage of X's mean (the interval
divided by X's mean, X's own uncertainty left out). A claim is
- reproduced: the interval lies wholly on the side the paper found;
- contradicted: it lies wholly on the other side;
- not shown: it holds 0 (the repetitions cannot tell the two apart).
A configuration any of whose runs fell behind (docs/experiments.md,
"Fidelity") is marked, and so is a verdict that reads it: those numbers
describe the virtual CPU, not the link alone.
"""
import json
import math
import os
import sys

CCAS = ("cubic", "bbr3", "tas")
NAMES = {"cubic": "CUBIC", "bbr3": "BBRv3", "tas": "BBR-TAS"}


def t_pdf(x, nu):
    c = math.lgamma((nu + 1) / 2) - math.lgamma(nu / 2) - 0.5 * math.log(nu * math.pi)
    return math.exp(c - (nu + 1) / 2 * math.log1p(x * x / nu))


def t_cdf_pos(x, nu, steps=2000):
    """P(0 <= T <= x) by Simpson's rule (x >= 0)."""
    h = x / steps
    s = t_pdf(0, nu) + t_pdf(x, nu)
    for i in range(1, steps):
        s += (4 if i % 2 else 2) * t_pdf(i * h, nu)
    return s * h / 3


def t_quantile_975(nu):
    lo, hi = 0.0, 200.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if 0.5 + t_cdf_pos(mid, nu) < 0.975:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


def mean_ci(xs):
    n = len(xs)
    m = sum(xs) / n
    if n < 2:
        return m, None, None, 0.0
    v = sum((x - m) ** 2 for x in xs) / (n - 1)
    h = t_quantile_975(n - 1) * math.sqrt(v / n)
    return m, m - h, m + h, v


def welch(a, b):
    """Difference of means a - b with Welch's 95% interval."""
    ma, _, _, va = mean_ci(a)
    mb, _, _, vb = mean_ci(b)
    na, nb = len(a), len(b)
    if na < 2 or nb < 2:
        return ma - mb, None, None
    se2 = va / na + vb / nb
    if se2 == 0:
        return ma - mb, ma - mb, ma - mb
    nu = se2 ** 2 / ((va / na) ** 2 / (na - 1) + (vb / nb) ** 2 / (nb - 1))
    h = t_quantile_975(nu) * math.sqrt(se2)
    return ma - mb, ma - mb - h, ma - mb + h


def rep_numbers(path):
    with open(path) as f:
        r = json.load(f)
    lo, hi = r["delay_s"], r["delay_s"] + r["length_s"]
    up = sum(fl["throughput_mbps"] for fl in r["flows"] if fl["dir"] == "up")
    down = sum(fl["throughput_mbps"] for fl in r["flows"] if fl["dir"] == "down")
    rtts = []
    for lat in r["latency"]:
        if lat.get("kind") != "icmp":
            continue
        s = lat["samples"]
        rtts += [v for t, v in zip(s["t"], s["rtt_ms"]) if lo <= t <= hi and v is not None]
    ping = sum(rtts) / len(rtts) if rtts else float("nan")
    flagged = any(f.startswith("fell_behind") for f in r.get("flags", []))
    fid = r.get("fidelity") or {}
    p99 = max([d.get("release_err_p99_us", 0) for d in fid.values() if isinstance(d, dict)]
              or [0])
    return {"up": up, "down": down, "sum": up + down, "ping": ping, "flagged": flagged,
            "p99": p99, "ok": r.get("ok", True)}


def load(roots, tas_shift):
    runs = {}
    for root in roots:
        runs.update(load_one(root, tas_shift))
    return runs


def load_one(root, tas_shift):
    runs = {}
    for d in sorted(os.listdir(root)):
        full = os.path.join(root, d)
        if not os.path.isdir(full) or "=" not in d:
            continue
        axes = dict(kv.split("=", 1) for kv in d.split(","))
        cca = axes["cca"]
        if cca == "tas":
            if tas_shift and axes.get("tas_shift") != tas_shift.replace("/", "-"):
                continue
            if not tas_shift:
                cca = "tas " + axes.get("tas_shift", "").replace("-", "/")
        reps = []
        for rep in sorted(os.listdir(full)):
            res = os.path.join(full, rep, "result.json")
            if rep.startswith("rep-") and os.path.exists(os.path.join(full, rep, "done")) \
                    and os.path.exists(res):
                n = rep_numbers(res)
                if n["ok"]:
                    reps.append(n)
        runs[(cca, axes["test"], axes["link"])] = reps
    return runs


def fmt(m, lo, hi, digits=1):
    if lo is None:
        return f"{m:.{digits}f}"
    return f"{m:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def cell(reps, metric):
    xs = [r[metric] for r in reps]
    if not xs:
        return "-"
    m, lo, hi, _ = mean_ci(xs)
    s = fmt(m, lo, hi)
    nf = sum(r["flagged"] for r in reps)
    if nf:
        s += f" (fell behind {nf}/{len(reps)}, p99 up to {max(r['p99'] for r in reps):.0f} us)"
    return s


def verdict(a, b, metric, lower_is_claim):
    xa = [r[metric] for r in a]
    xb = [r[metric] for r in b]
    if len(xa) < 2 or len(xb) < 2:
        return "-", "too few runs"
    d, lo, hi = welch(xa, xb)
    mb = sum(xb) / len(xb)
    pct = f"{100 * d / mb:+.1f}% [{100 * lo / mb:+.1f}, {100 * hi / mb:+.1f}]"
    if (hi < 0 and lower_is_claim) or (lo > 0 and not lower_is_claim):
        v = "reproduced"
    elif (lo > 0 and lower_is_claim) or (hi < 0 and not lower_is_claim):
        v = "contradicted"
    else:
        v = "not shown (interval holds 0)"
    # One late run is enough: its number is in the interval the verdict reads.
    if any(r["flagged"] for r in a) or any(r["flagged"] for r in b):
        v += "; runs fell behind"
    return pct, v


# The paper's headline claims: (test, metric, link kinds, paper's numbers per
# control, the claim's comparisons: (other control, paper's relative
# difference, True when the paper found tas lower)).
CLAIMS = [
    ("Single upload: latency", "tcp_upload", "ping", ("station7", "stationk"),
     {}, [("cubic", "-11.1%", True), ("bbr3", "-9%", True)]),
    ("Single upload: throughput (Mbit/s)", "tcp_upload", "up", ("station7", "stationk"),
     {"cubic": "about 260"}, []),
    ("Eight uploads: throughput (Mbit/s)", "tcp_8up", "up", ("station7", "stationk"),
     {"tas": "267.14", "bbr3": "259.81", "cubic": "259.97"},
     [("cubic", "+2.8%", False), ("bbr3", "+2.8%", False)]),
    ("Eight uploads: latency", "tcp_8up", "ping", ("station7", "stationk"),
     {}, [("cubic", "-17.4%", True), ("bbr3", "-10.7%", True)]),
    ("RRUL: upload (Mbit/s)", "rrul", "up", ("station7", "stationk"),
     {"tas": "234", "bbr3": "220", "cubic": "165"},
     [("cubic", "+41.8%", False), ("bbr3", "+6.4%", False)]),
    ("RRUL: upload + download (Mbit/s)", "rrul", "sum", ("station7", "stationk"),
     {"tas": "315", "bbr3": "280"}, [("bbr3", "+12.5%", False)]),
    ("RRUL: latency (ms)", "rrul", "ping", ("station7", "stationk"),
     {"tas": "110", "bbr3": "126"}, [("cubic", "about -59%", True), ("bbr3", "-12.7%", True)]),
    ("RTT-fair: latency (ms)", "rtt_fair", "ping", ("access7", "accessk"),
     {"tas": "153.75", "cubic": "180", "bbr3": "261.5"},
     [("cubic", "-14.6%", True), ("bbr3", "-41.2%", True)]),
    ("RTT-fair: throughput, the four flows (Mbit/s)", "rtt_fair", "up", ("access7", "accessk"),
     {"tas": "21.8", "bbr3": "18", "cubic": "24"},
     [("cubic", "-9.2%", True), ("bbr3", "+21.1%", False)]),
]


def pairs(runs, test):
    """One row per BBR-TAS shift pair of @test (runs loaded with every shift)."""
    links = sorted({k[2] for k in runs if k[1] == test})
    shifts = sorted({k[0] for k in runs if k[0].startswith("tas ") and k[1] == test},
                    key=lambda c: [int(x) for x in c[4:].split("/")])
    # A test with downloads (rrul) gets their throughput too: the paper's RRUL claims are
    # about the upload and the sum.
    down = any(r["down"] > 0 for k, reps in runs.items() if k[1] == test for r in reps)
    cols = ("up", "down") if down else ("up",)
    print(f"### {test}: the shift pairs\n")
    head = "| configuration |"
    for link in links:
        for c in cols:
            head += f" {link}: {c + ' ' if down else ''}Mbit/s |"
        head += f" {link}: latency (ms) | {link}: latency vs BBRv3 |"
    print(head)
    print("|---" * (1 + (2 + len(cols)) * len(links)) + "|")
    for cca in ("cubic", "bbr3") + tuple(shifts):
        row = [NAMES.get(cca, cca.replace("tas", "BBR-TAS"))]
        for link in links:
            reps = runs.get((cca, test, link), [])
            row += [cell(reps, c) for c in cols] + [cell(reps, "ping")]
            if cca == "bbr3":
                row.append("-")
            else:
                pct, _ = verdict(reps, runs.get(("bbr3", test, link), []), "ping", True)
                row.append(pct)
        print("| " + " | ".join(row) + " |")
    print()


def main():
    args = sys.argv[1:]
    if any(a in ("-h", "--help") for a in args):
        print(__doc__)
        return
    shift, test = "8/8", None
    if len(args) >= 2 and args[0] == "--tas-shift":
        shift, args = args[1], args[2:]
    elif len(args) >= 2 and args[0] == "--pairs":
        shift, test, args = None, args[1], args[2:]
    if not args:
        sys.exit(__doc__)
    for root in args:
        if not os.path.isdir(root):
            sys.exit(f"bbr_tas_paper.py: {root}: not a directory (want an exp run's --out)")
    runs = load(args, shift)
    if test:
        pairs(runs, test)
        return
    print(f"BBR-TAS at shifts {shift}. Mean over repetitions [Student's t 95% interval].\n")
    for title, test, metric, links, paper, comps in CLAIMS:
        print(f"### {title}\n")
        print("| link | " + " | ".join(NAMES[c] for c in CCAS)
              + "".join(f" | BBR-TAS vs {NAMES[o]} (paper {p}) | verdict" for o, p, _ in comps)
              + " |")
        print("|---" * (1 + len(CCAS) + 2 * len(comps)) + "|")
        if paper:
            cells = ["paper"] + [paper.get(c, "-") for c in CCAS]
            for _, pct, _ in comps:
                cells += [pct, ""]
            print("| " + " | ".join(cells) + " |")
        for link in links:
            row = [link] + [cell(runs.get((c, test, link), []), metric) for c in CCAS]
            for other, _, lower in comps:
                pct, v = verdict(runs.get(("tas", test, link), []),
                                 runs.get((other, test, link), []), metric, lower)
                row += [pct, v]
            print("| " + " | ".join(row) + " |")
        print()


if __name__ == "__main__":
    main()
