/* SPDX-License-Identifier: MIT */
/*
 * One side of an experiment run, inside its namespace: `tasshape
 * exp-agent JOB.json`, started by the executor (exec.c). JOB says:
 *
 *   {"role": "client" | "server",
 *    "sysctl": [["net.ipv4.tcp_congestion_control", "bbr"], ...],   this namespace's
 *    "procs": [{"at": 5.0, "argv": ["iperf3", ...], "out": PATH, "err": PATH}, ...],
 *    "listen_tcp": [5201, ...], "listen_udp": [2112],   server: ready when bound
 *    "deadline": 47.0,                                    seconds; then everything ends
 *    "report": PATH,
 *    "reports": [PATH, ...]}    with real Wi-Fi stations: station k's report
 *
 * A client agent (the wrapper's CMD, behind the emulated link) sets the
 * sysctls, takes t0 (Unix time), starts each process at t0 + at, waits
 * for all of them (killing what is left at the deadline) and writes the
 * report: {"t0", "base", "procs": [{"started", "ended", "status"}]}.
 * A word "{BASE}" in an argv is replaced by $TASSHAPE_BASE, the far
 * side's address as the wrapper gives it. With "reports" (a link with
 * real Wi-Fi stations) the wrapper runs the agent once per station and
 * tells each which by $TASSHAPE_STATION: station k starts only the procs
 * marked "station": k (unmarked: 0) and writes "reports"[k], listing the
 * others' procs as {"station": s} only.
 *
 * A server agent (in a far-side namespace) sets the sysctls, starts its
 * servers, waits until every port in listen_tcp/listen_udp is bound in
 * its namespace, then writes the report {"addr": its first IPv4 address,
 * "ready": true} and waits for SIGTERM (or the deadline), when it ends
 * its servers. So the executor knows when to start the client, and no
 * server outlives its run.
 *
 * Every process the agent starts is its own child, ended by pid.
 */
#ifndef TS_EXEC_EXEC_AGENT_H
#define TS_EXEC_EXEC_AGENT_H

/* The exp-agent command on the job file @job_path (its arguments are cli's). Returns the exit status. */
int ts_exp_agent_main(const char *job_path);

#endif
