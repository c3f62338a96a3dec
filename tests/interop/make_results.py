#!/usr/bin/env python3
# Made-up per-run results (result.json, schema of docs/experiments.md "Per-run result") for the
# result tools' tests: an experiment directory OUT/<config-id>/rep-<k>/result.json for a small
# matrix, deterministic (no randomness: every number follows from the run's position), so the
# tests can recompute the expected figures by hand. Like exp run, it writes OUT/experiment.json
# (the whole matrix, and "shard" for a slice) and each run's done record (every file with its
# SHA-256). Usage: make_results.py [--shard i/N] OUT [TEST...]
import hashlib
import json
import math
import os
import sys

LENGTH, DELAY, STEP = 8.0, 2.0, 0.5
T0 = 1796100000.25

def flows_for(test):
    if test == "tcp_upload":
        return [("TCP upload", "up", "BE")]
    if test == "tcp_download":
        return [("TCP download", "down", "BE")]
    if test == "tcp_nup":
        return [("TCP upload::%d" % i, "up", "BE") for i in range(1, 5)]
    if test == "rrul":
        return [("TCP %s %s" % (d, m), "up" if d == "upload" else "down", m)
                for d in ("upload", "download") for m in ("BE", "BK", "CS5", "EF")]
    if test == "rrul_be":  # named as the executor names them (BE1..BE4), not as Flent does
        return [("TCP %s BE%d" % (d, i), "up" if d == "upload" else "down", "BE")
                for d in ("upload", "download") for i in range(1, 5)]
    if test == "rtt_fair":  # one upload per server, server index in the name
        return [("TCP upload::%d" % i, "up", "BE") for i in range(1, 5)]
    raise SystemExit("make_results.py: no fixture for test %s" % test)

def pings_for(test):
    if test == "rrul_be":
        return [("Ping (ms) ICMP", "icmp", "BE")] + [("Ping (ms) UDP BE%d" % i, "udp", "BE")
                                                     for i in range(1, 4)]
    if test == "rtt_fair":
        return [("Ping (ms)::%d" % i, "icmp", "BE") for i in range(1, 5)]
    if test == "rrul":
        return [("Ping (ms) ICMP", "icmp", "BE"), ("Ping (ms) UDP EF", "udp", "EF"),
                ("Ping (ms) UDP BK", "udp", "BK"), ("Ping (ms) UDP BE", "udp", "BE")]
    return [("Ping (ms) ICMP", "icmp", "BE")]

def run(test, cca, rep, index):
    fl = flows_for(test)
    base = (18.0 if cca == "cubic" else 17.0) / len([f for f in fl if f[1] == "up"] or [1])
    rtt_base = 40.0 + (60.0 if cca == "cubic" else 15.0)
    flows = []
    for i, (name, d, dscp) in enumerate(fl):
        ts = [DELAY + STEP * (k + 1) for k in range(int(LENGTH / STEP))]
        # Throughput of each interval: a ramp for the first second, then the flow's rate
        # with a small deterministic wobble that depends on rep and flow.
        rate = base * (1.0 + 0.02 * rep + 0.01 * i)
        mbps = [rate * min(1.0, (t - DELAY) / 1.0) * (1 + 0.03 * math.sin(t * (i + 1)))
                for t in ts]
        mean = sum(mbps) / len(mbps)
        server = i if test == "rtt_fair" else 0
        flows.append({"name": name, "dir": d, "dscp": dscp, "server": server, "cca_used": cca,
                      "bytes": int(mean * 1e6 / 8 * LENGTH), "seconds": LENGTH,
                      "throughput_mbps": mean, "retransmits": 3 * rep + i,
                      "series": {"t": ts, "mbps": mbps}})
    latency = []
    for j, (name, kind, dscp) in enumerate(pings_for(test)):
        n = int((LENGTH + 2 * DELAY) / 0.2)
        ts = [0.2 * k + 0.01 * j for k in range(n)]
        rtt = [40.0 + ((rtt_base - 40.0) * (1 + 0.1 * math.sin(k)) if DELAY <= t <= DELAY + LENGTH
                       else 0.5 * (k % 3)) + rep for k, t in enumerate(ts)]
        latency.append({"name": name, "kind": kind, "dscp": dscp,
                        "server": j if test == "rtt_fair" else 0,
                        "samples": {"t": ts, "seq": list(range(1, n + 1)), "rtt_ms": rtt},
                        "loaded": {"from_s": DELAY, "to_s": DELAY + LENGTH}})
    sock = []
    for f in flows:
        if f["dir"] != "up":
            continue
        ts = [DELAY + 0.1 * k for k in range(int(LENGTH / 0.1))]
        sock.append({"flow": f["name"], "t": ts, "cwnd": [10 + (k % 40) for k in range(len(ts))],
                     "rtt_ms": [rtt_base + (k % 7) for k in range(len(ts))],
                     "pacing_rate_bps": [f["throughput_mbps"] * 1.2e6] * len(ts),
                     "delivery_rate_bps": [f["throughput_mbps"] * 1e6] * len(ts)})
    cid = "cca=%s,link=const20,test=%s" % (cca, test)
    return cid, {
        "version": 1, "id": cid, "rep": rep, "index": index, "seed": 1 + rep,
        "axes": {"cca": cca, "link": "const20", "test": test}, "test": test,
        "length_s": LENGTH, "delay_s": DELAY, "t0": T0 + 100 * index, "ok": True, "error": None,
        "flags": [], "cca": {"requested": cca, "name": cca, "version": None, "params": {},
                             "bpf_sha256": None},
        "flows": flows, "latency": latency, "sockstats": sock,
        "fidelity": {"up": {"release_err_p50_us": 10, "release_err_p99_us": 60,
                            "release_err_max_us": 300, "unexplained_drops": 0,
                            "kernel_drops": 0, "no_descriptor": 0, "utilisation": 0.97}},
        "files": []}

def done_record(d, cid, rep):
    files = []
    for root, _, names in os.walk(d):
        for n in names:
            p = os.path.join(root, n)
            rel = os.path.relpath(p, d)
            if rel in ("done", "done.tmp"):
                continue
            with open(p, "rb") as f:
                data = f.read()
            files.append({"path": rel, "bytes": len(data),
                          "sha256": hashlib.sha256(data).hexdigest()})
    files.sort(key=lambda f: f["path"])
    with open(os.path.join(d, "done"), "w") as f:
        json.dump({"version": 1, "id": cid, "rep": rep, "files": files}, f, indent=1)

def main():
    args = sys.argv[1:]
    shard = (1, 1)
    skip = None  # --skip CCA: as exp run on a host without it (no runs, listed as skipped)
    while args and args[0] in ("--shard", "--skip"):
        if args[0] == "--shard":
            i, n = args[1].split("/")
            shard = (int(i), int(n))
        else:
            skip = args[1]
        args = args[2:]
    out = args[0]
    tests = args[1:] or ["tcp_upload", "rrul"]
    index = 0
    configs, runs = [], []
    for rep in (1, 2):
        for test in tests:
            for cca in ("cubic", "bbr"):
                index += 1
                cid, r = run(test, cca, rep, index)
                if rep == 1:
                    configs.append({"id": cid, "axes": r["axes"]})
                runs.append({"index": index, "rep": rep, "seed": r["seed"], "id": cid})
                if (index - 1) % shard[1] != shard[0] - 1 or cca == skip:
                    continue
                d = os.path.join(out, cid, "rep-%d" % rep)
                os.makedirs(d, exist_ok=True)
                with open(os.path.join(d, "result.json"), "w") as f:
                    json.dump(r, f, indent=1)
                with open(os.path.join(d, "stats.csv"), "w") as f:
                    # tasshape's per-interval link record (the columns exp report reads).
                    f.write("time_s,dir,interval_s,capacity_bps,throughput_bps,qdelay_p50_ms,"
                            "qdelay_max_ms\n")
                    for k in range(1, int((LENGTH + 2 * DELAY) * 10)):
                        busy = DELAY <= k / 10 <= DELAY + LENGTH
                        for dr in ("uplink", "downlink"):
                            f.write("%.3f,%s,0.100,20000000,%d,%s,%s\n" % (
                                k / 10, dr, 19000000 if busy else 0, "12.5" if busy else "",
                                "25.0" if busy else ""))
                done_record(d, cid, rep)
    exp = {"version": 1, "name": "fixture", "spec": "fixture.ini", "spec_sha256": "f" * 64,
           "seed": 1, "order": "interleave", "repetitions": 2,
           "skipped": [{"cca": skip, "why": "%s: not available on this host" % skip}] if skip else [],
           "configs": configs, "runs": runs}
    if shard[1] > 1:
        exp["shard"] = "%d/%d" % shard
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "experiment.json"), "w") as f:
        json.dump(exp, f, indent=1)

main()
