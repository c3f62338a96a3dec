#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Who held a virtual-time guest's one CPU while tasshape's loop waited to run.

Usage: sched_wait.py TRACE

TRACE is ftrace's text of sched_switch and sched_wakeup events (sched_wait.sh). The loop is the
task named tasshape with a real-time priority. For each of its wake-ups, the time until it ran
(timestamps in guest time), split among the tasks that ran meanwhile: the station's NAPI thread
(napi/tasPID-Ni-..., the deliveries to the station: its TCP runs there), the server's
(napi/tasPID-No-...), the applications by name and PID, the kernel's threads by name.
"""
import collections
import re
import sys

EVENT = re.compile(r"^\s*(.+?)-(\d+)\s+\[\d+\]\s+\S+\s+([\d.]+): (sched_switch|sched_wakeup): (.*)$")
FIELD = re.compile(r"(\w+)=(\S+)")


def who(task, loop):
    comm, pid = task
    # The kernel keeps 15 bytes of a name: "napi/tas<PID>-<N>[io]-<ID>" loses its end, and from a
    # PID of five digits its i or o, when the name is that long.
    m = re.match(r"napi/tas\d+-\d+([oi])", comm)
    if m:
        return {"i": "station's NAPI thread (its TCP)", "o": "server's NAPI thread (its TCP)"}[m[1]]
    if comm.startswith("napi/tas"):
        return "a NAPI thread (its name cut: which end unknown)"
    if comm == "tasshape":
        return "the loop" if pid == loop else "tasshape, other threads"
    if comm == "iperf3":
        return f"iperf3 {pid}"
    return re.split(r"[/:]", comm)[0]


def waits(path):
    """The loop's PID, its waits [(us, Counter of (comm, pid) -> us)], and per task the length
    of each of its turns on the CPU."""
    loop, running, since, pending, cur = None, None, None, None, None
    out, turns, began = [], collections.defaultdict(list), None
    with open(path) as f:
        for line in f:
            m = EVENT.match(line)
            if not m:
                continue
            task, ts, kind = (m[1], int(m[2])), float(m[3]) * 1e6, m[4]
            f = dict(FIELD.findall(m[5]))
            if kind == "sched_wakeup":
                rt = f["comm"] == "tasshape" and int(f["prio"]) < 100
                if rt and loop is None:
                    loop = int(f["pid"])
                # A timer that fires while the loop runs wakes nothing: it is not waiting.
                if rt and int(f["pid"]) == loop and pending is None and task[1] != loop:
                    pending, since, cur, running = ts, ts, collections.Counter(), task
                continue
            nxt = (f["next_comm"], int(f["next_pid"]))
            if running is not None and began is not None:
                turns[running].append(ts - began)
            began = ts
            if int(f["prev_pid"]) == loop:
                pending = None  # defensive: a wait ends when the loop runs, before it leaves
            if pending is not None:
                cur[running] += ts - since
                since = ts
                if nxt[1] == loop:
                    out.append((ts - pending, cur))
                    pending = None
            running = nxt
    return loop, out, turns


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    loop, out, turns = waits(sys.argv[1])
    if not out:
        sys.exit(f"{sys.argv[1]}: no wake-up of a real-time tasshape loop")
    lat = sorted(w for w, _ in out)
    n = len(lat)
    print(f"loop PID {loop}: {n} wake-ups; wake-up to running, us: " +
          ", ".join(f"p{q * 100:g} {lat[min(n - 1, int(q * n))]:.0f}"
                    for q in (0.5, 0.9, 0.99, 0.999)) + f", max {lat[-1]:.0f}")
    for th in (20, 50, 100, 200):
        tot = collections.Counter()
        late = [c for w, c in out if w > th]
        for c in late:
            for task, t in c.items():
                tot[who(task, loop)] += t
        s = sum(tot.values())
        print(f"later than {th} us: {len(late)} wake-ups, {s:.0f} us of waiting")
        top = tot.most_common(5)
        for k, v in top:
            print(f"    {k:34s} {v:9.0f} us  {100 * v / s:5.1f}%")
        rest = s - sum(v for _, v in top)
        if rest > 0:
            print(f"    {'the others':34s} {rest:9.0f} us  {100 * rest / s:5.1f}%")
    for task, t in sorted(turns.items()):
        name = who(task, loop)
        if "NAPI" in name:
            t.sort()
            n = len(t)
            print(f"{name}: {n} turns on the CPU, us: p50 {t[n // 2]:.0f}, p90 {t[int(0.9 * n)]:.0f}, "
                  f"p99 {t[int(0.99 * n)]:.0f}, max {t[-1]:.0f}, {sum(t) / 1000:.0f} ms in all")


if __name__ == "__main__":
    main()
