/* SPDX-License-Identifier: MIT */
/* What comes out of a running guest: CMD's stdout and stderr, and its console. */
#ifndef TS_VM_RELAY_H
#define TS_VM_RELAY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "tasshape/time.h"

#define TS_VM_CONSOLE_TAIL 8192

struct ts_vm_relay {
	int lfd[3], cfd[3]; /* listening and connected: stdout, stderr, console; -1: none */
	bool verbose;	    /* the console to stderr as it comes */
	/*
	 * cfd[2] is a file QEMU writes the console to, read by turns (a few times a second)
	 * rather than polled: in virtual time, where a socket the host reads late would make the
	 * guest's serial port wait for it, a wait whose length no two runs share (vm.c).
	 */
	bool con_file;
	char tail[TS_VM_CONSOLE_TAIL];
	size_t tail_len;
};

/*
 * ts_vm_relay_run - copy the guest's output until QEMU (@qemu) has exited and
 * every stream is at its end; kill QEMU at @deadline (0: none; *@timed_out
 * set) or when @sfd (a signalfd) reads a signal (*@signo). QEMU's wait
 * status in *@wstatus. Returns 0, or -errno when QEMU cannot be watched
 * (pidfd_open; it is then killed). QEMU is reaped either way.
 */
int ts_vm_relay_run(struct ts_vm_relay *r, pid_t qemu, int sfd, ts_ns_t deadline, int *wstatus,
		    bool *timed_out, int *signo);

/* ts_vm_relay_print_tail - the console's last 25 lines to stderr, after a failed boot. */
void ts_vm_relay_print_tail(const struct ts_vm_relay *r);

#endif
