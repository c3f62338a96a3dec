/* SPDX-License-Identifier: MIT */
/* Loading a run's tools before it starts, in a guest (exec_warm.h). */
#include <fcntl.h>
#include <spawn.h>
#include <stddef.h>
#include <sys/wait.h>

#include "exp/exec_warm.h"

extern char **environ;

void ts_exp_exec_warm(void)
{
	static const char *const tools[][2] = {{"iptables", "-V"},	{"ip6tables", "-V"},
					       {"iptables-save", "-V"}, {"ip6tables-save", "-V"},
					       {"iperf3", "-v"},	{"irtt", "version"},
					       {"ping", "-V"},		{"flent", "--version"}};
	size_t i;

	for (i = 0; i < sizeof(tools) / sizeof(tools[0]); i++) {
		char *argv[] = {(char *)tools[i][0], (char *)tools[i][1], NULL};
		posix_spawn_file_actions_t fa;
		int st;
		pid_t pid;

		posix_spawn_file_actions_init(&fa);
		posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
		posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
		posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
		if (posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ) == 0)
			waitpid(pid, &st, 0);
		posix_spawn_file_actions_destroy(&fa);
	}
}
