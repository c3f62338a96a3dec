/* SPDX-License-Identifier: MIT */
/* The sealed guest's idler (idler.h). */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "run/awake.h"
#include "vm/idler.h"

/*
 * Register additions only, 64 to a turn: TCG translates the turn as one block and runs it
 * at about 1.6e9 guest instructions per host second here, where a one-instruction loop
 * would spend most of its time entering and leaving blocks.
 */
static __attribute__((noreturn)) void spin(void)
{
	unsigned long a = 0, b = 1;

	for (;;) {
#if defined(__x86_64__)
#define TS_ADD	"add %1, %0\n\t"
#define TS_ADD8 TS_ADD TS_ADD TS_ADD TS_ADD TS_ADD TS_ADD TS_ADD TS_ADD
		__asm__ volatile(TS_ADD8 TS_ADD8 TS_ADD8 TS_ADD8 TS_ADD8 TS_ADD8 TS_ADD8 TS_ADD8
				 : "+r"(a)
				 : "r"(b));
#undef TS_ADD8
#undef TS_ADD
#else
		__asm__ volatile("" : "+r"(a) : "r"(b));
		a += b;
#endif
	}
}

/* In the child: the lowest claim on the CPU there is, then spin. */
static __attribute__((noreturn)) void idler_main(void)
{
	struct sched_param sp = {.sched_priority = 0};
	sigset_t all;

	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	if (setpriority(PRIO_PROCESS, 0, 19) < 0 || sched_setscheduler(0, SCHED_IDLE, &sp) < 0)
		_exit(1);
	prctl(PR_SET_NAME, "tasshape-idle", 0, 0, 0);
	spin();
}

pid_t ts_vm_idler_start(void)
{
	char buf[32];
	pid_t pid;
	int fd, n, ret = 0;

	/* Not io/proc.c: no program runs; the child is this process's loop that keeps a CPU busy. */
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0)
		idler_main();
	fd = open(TS_AWAKE_VCLOCK_IDLER, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		  0644);
	if (fd < 0)
		return -errno;
	n = snprintf(buf, sizeof(buf), "%d\n", (int)pid);
	if (write(fd, buf, (size_t)n) != n)
		ret = -EIO;
	close(fd);
	return ret < 0 ? ret : pid;
}
