/* SPDX-License-Identifier: MIT */
/*
 * The host's end of a guest's output (relay.h): CMD's stdout and stderr from
 * their virtio serial ports to tasshape's own, the console kept for a
 * failure's message, until QEMU ends, its time is up or a signal stops it.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io/clock.h"
#include "vm/relay.h"

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return; /* stdout closed: the guest's output is dropped, the run goes on */
		p += w;
		n -= (size_t)w;
	}
}

static void console_keep(struct ts_vm_relay *r, const char *p, size_t n)
{
	if (n >= TS_VM_CONSOLE_TAIL) {
		memcpy(r->tail, p + n - TS_VM_CONSOLE_TAIL, TS_VM_CONSOLE_TAIL);
		r->tail_len = TS_VM_CONSOLE_TAIL;
		return;
	}
	if (r->tail_len + n > TS_VM_CONSOLE_TAIL) {
		size_t drop = r->tail_len + n - TS_VM_CONSOLE_TAIL;

		memmove(r->tail, r->tail + drop, r->tail_len - drop);
		r->tail_len -= drop;
	}
	memcpy(r->tail + r->tail_len, p, n);
	r->tail_len += n;
}

/* One poll turn's work on relay slot @i. */
static void relay_io(struct ts_vm_relay *r, int i, short revents)
{
	char buf[65536];
	ssize_t n;

	if (r->cfd[i] < 0) {
		int fd = accept4(r->lfd[i], NULL, NULL, SOCK_CLOEXEC);

		if (fd >= 0) {
			r->cfd[i] = fd;
			close(r->lfd[i]);
			r->lfd[i] = -1;
		}
		return;
	}
	if (!(revents & (POLLIN | POLLHUP | POLLERR)))
		return;
	n = read(r->cfd[i], buf, sizeof(buf));
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n <= 0) {
		close(r->cfd[i]);
		r->cfd[i] = -2; /* done */
		return;
	}
	if (i < 2) {
		write_all(i + 1, buf, (size_t)n);
	} else {
		console_keep(r, buf, (size_t)n);
		if (r->verbose)
			write_all(2, buf, (size_t)n);
	}
}

/* What QEMU wrote to the console file since the last turn; at most 1 MiB a turn. */
static void console_file_read(struct ts_vm_relay *r)
{
	char buf[65536];
	int turn;

	for (turn = 0; turn < 16; turn++) {
		ssize_t n = read(r->cfd[2], buf, sizeof(buf));

		if (n <= 0)
			return;
		console_keep(r, buf, (size_t)n);
		if (r->verbose)
			write_all(2, buf, (size_t)n);
	}
}

/* QEMU killed and reaped. */
static void end_qemu(pid_t qemu, int *wstatus)
{
	kill(qemu, SIGKILL);
	while (waitpid(qemu, wstatus, 0) < 0 && errno == EINTR)
		;
}

/* The streams still to poll into @pf (their slots, 0-2, into @slot); their count. */
static int stream_fds(struct ts_vm_relay *r, bool exited, struct pollfd *pf, int *slot)
{
	int i, np = 0, fd;

	for (i = 0; i < 3; i++) {
		if (i == 2 && r->con_file)
			continue; /* read by turns: a file is always readable */
		/* QEMU is gone: a stream it never connected will not connect now. */
		if (exited && r->cfd[i] == -1) {
			close(r->lfd[i]);
			r->lfd[i] = -1;
			r->cfd[i] = -2;
		}
		fd = r->cfd[i] >= 0 ? r->cfd[i] : r->cfd[i] == -1 ? r->lfd[i] : -1;
		if (fd >= 0) {
			pf[np] = (struct pollfd){.fd = fd, .events = POLLIN};
			slot[np++] = i;
		}
	}
	return np;
}

int ts_vm_relay_run(struct ts_vm_relay *r, pid_t qemu, int sfd, ts_ns_t deadline, int *wstatus,
		    bool *timed_out, int *signo)
{
	int pidfd = (int)syscall(SYS_pidfd_open, qemu, 0), ret;
	bool exited = false;

	if (pidfd < 0) {
		ret = -errno;
		end_qemu(qemu, wstatus);
		return ret;
	}
	for (;;) {
		struct pollfd pf[5];
		int slot[5], np = stream_fds(r, exited, pf, slot), i, timeout = exited ? 2000 : -1;

		if (r->con_file)
			console_file_read(r);
		if (exited && !np)
			break;
		if (!exited) {
			pf[np] = (struct pollfd){.fd = pidfd, .events = POLLIN};
			slot[np++] = 3;
			pf[np] = (struct pollfd){.fd = sfd, .events = POLLIN};
			slot[np++] = 4;
			if (deadline) {
				ts_ns_t left = deadline - ts_clock_now();

				timeout = left <= 0 ? 0 : (int)((left + 999999) / 1000000);
			}
			if (r->con_file && (timeout < 0 || timeout > 250))
				timeout = 250;
		}
		i = poll(pf, (nfds_t)np, timeout);
		if (i < 0 && errno == EINTR)
			continue;
		if (i < 0)
			break;
		if (i == 0 && exited)
			break; /* a stream still open 2 s after QEMU ended: a stray writer */
		if (i == 0 && r->con_file && !(deadline && ts_clock_now() >= deadline))
			continue; /* the console file's turn */
		if (i == 0 && deadline && ts_clock_now() >= deadline) {
			*timed_out = true;
			kill(qemu, SIGKILL);
			deadline = 0;
			continue;
		}
		for (i = 0; i < np; i++) {
			if (!pf[i].revents)
				continue;
			if (slot[i] < 3) {
				relay_io(r, slot[i], pf[i].revents);
			} else if (slot[i] == 3) {
				while (waitpid(qemu, wstatus, 0) < 0 && errno == EINTR)
					;
				exited = true;
			} else {
				struct signalfd_siginfo si;

				if (read(sfd, &si, sizeof(si)) == sizeof(si)) {
					*signo = (int)si.ssi_signo;
					kill(qemu, SIGKILL);
				}
			}
		}
	}
	if (!exited)
		end_qemu(qemu, wstatus);
	if (r->con_file)
		console_file_read(r);
	close(pidfd);
	return 0;
}

void ts_vm_relay_print_tail(const struct ts_vm_relay *r)
{
	const char *p = r->tail, *end = r->tail + r->tail_len;
	int lines = 0;

	for (p = end; p > r->tail; p--)
		if (p[-1] == '\n' && ++lines > 25)
			break;
	fprintf(stderr, "tasshape vm: the guest console's last lines:\n");
	write_all(2, p, (size_t)(end - p));
	if (r->tail_len && end[-1] != '\n')
		fputc('\n', stderr);
}
