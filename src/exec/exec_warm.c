/* SPDX-License-Identifier: MIT */
/* Loading a run's tools before it starts, in a guest (exec_warm.h). */
#include <stddef.h>

#include "exec/exec_warm.h"
#include "io/proc.h"

/* Run @argv with every stream on /dev/null; whether it worked does not matter here. */
static void run_quiet(char *const argv[])
{
	struct ts_proc p;

	ts_proc_init(&p, argv);
	ts_proc_run(&p, -1, NULL);
	ts_proc_release(&p);
}

/*
 * The kernel modules a run loads on demand (listed from /proc/modules before and after a run
 * in Debian's 6.1 guest): the diag ones load at the first socket sample, in the middle of the
 * measurement, each a read of its .ko over 9p.
 */
const char *const ts_exp_warm_modules[] = {"veth",	    "nfnetlink_queue",
					   "xt_NFQUEUE",    "xt_comment",
					   "xt_MASQUERADE", "nft_compat",
					   "nft_chain_nat", "nf_nat",
					   "nf_conntrack",  "inet_diag",
					   "tcp_diag",	    "udp_diag",
					   "libcrc32c",	    NULL};

void ts_exp_exec_warm(const char *self)
{
	static const char *const *const modules = ts_exp_warm_modules;
	static const char *const tools[][2] = {{"iptables", "-V"},	{"ip6tables", "-V"},
					       {"iptables-save", "-V"}, {"ip6tables-save", "-V"},
					       {"iperf3", "-v"},	{"irtt", "version"},
					       {"ping", "-V"},		{"flent", "--version"}};
	size_t i;

	for (i = 0; modules[i]; i++) {
		char *argv[] = {"modprobe", "-q", (char *)modules[i], NULL};

		run_quiet(argv);
	}
	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		char *argv[] = {(char *)tools[i][0], (char *)tools[i][1], NULL};

		run_quiet(argv);
	}
	/*
	 * A version option does not load iptables' extensions (libxt_NFQUEUE.so and the others
	 * are opened when a rule names them): one empty emulated link does, through the path
	 * the run takes.
	 */
	if (self) {
		char *argv[] = {(char *)self, "--trace", "const:100mbit", "--quiet", "--",
				"true",	      NULL};

		run_quiet(argv);
	}
}
