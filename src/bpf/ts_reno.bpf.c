// SPDX-License-Identifier: GPL-2.0
/*
 * ts_reno: TCP Reno (RFC 5681) as a BPF struct_ops congestion control,
 * the example `tasshape exp` ships for its `cca = bpf:FILE.bpf.o` axis
 * value and the fixture of its tests.
 *
 * A BPF congestion control fills in the kernel's struct
 * tcp_congestion_ops (include/net/tcp.h) from a map of type struct_ops;
 * tasshape registers it through a BPF link, so the kernel removes it when
 * the link's last file descriptor closes, that is when tasshape exits,
 * however it exits. The kernel requires ssthresh, undo_cwnd and
 * cong_avoid (or cong_control); everything else keeps the kernel's
 * defaults. No maps besides the struct_ops one: all state is the
 * socket's own (snd_cwnd, snd_ssthresh, snd_cwnd_cnt).
 *
 * Reno in three rules:
 *  - slow start: below ssthresh, cwnd grows by one segment per segment
 *    acknowledged (doubling per round trip), up to ssthresh;
 *  - congestion avoidance: above it, by one segment per cwnd segments
 *    acknowledged (one per round trip);
 *  - on loss: ssthresh = max(cwnd / 2, 2), and undo restores
 *    max(cwnd, prior_cwnd) when the loss proves spurious.
 * Growth only while the flow is limited by cwnd (RFC 7661): an
 * application-limited flow does not inflate a window it does not use.
 *
 * Built with clang's BPF target against this kernel's BTF (vmlinux.h
 * from /sys/kernel/btf/vmlinux); CO-RE relocations let it load on other
 * kernels with struct_ops congestion controls.
 */
#include "vmlinux.h"

#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char _license[] SEC("license") = "GPL";

static __always_inline struct tcp_sock *tcp_sk(const struct sock *sk)
{
	return (struct tcp_sock *)sk;
}

static __always_inline bool cwnd_limited(const struct tcp_sock *tp)
{
	/* In slow start, grow while cwnd is below twice what was in flight. */
	if (tp->snd_cwnd < tp->snd_ssthresh)
		return tp->snd_cwnd < 2 * tp->max_packets_out;
	return BPF_CORE_READ_BITFIELD(tp, is_cwnd_limited);
}

SEC("struct_ops/ts_reno_ssthresh")
__u32 BPF_PROG(ts_reno_ssthresh, struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);
	__u32 half = tp->snd_cwnd >> 1;

	return half > 2 ? half : 2;
}

SEC("struct_ops/ts_reno_cong_avoid")
void BPF_PROG(ts_reno_cong_avoid, struct sock *sk, __u32 ack, __u32 acked)
{
	struct tcp_sock *tp = tcp_sk(sk);

	if (!cwnd_limited(tp))
		return;
	if (tp->snd_cwnd < tp->snd_ssthresh) {
		__u32 cwnd = tp->snd_cwnd + acked;

		if (cwnd > tp->snd_ssthresh)
			cwnd = tp->snd_ssthresh;
		acked -= cwnd - tp->snd_cwnd;
		tp->snd_cwnd = cwnd < tp->snd_cwnd_clamp ? cwnd : tp->snd_cwnd_clamp;
		if (!acked)
			return;
	}
	/* Congestion avoidance: one segment per window acknowledged. */
	tp->snd_cwnd_cnt += acked;
	if (tp->snd_cwnd_cnt >= tp->snd_cwnd) {
		__u32 inc = tp->snd_cwnd_cnt / tp->snd_cwnd;

		tp->snd_cwnd_cnt -= inc * tp->snd_cwnd;
		tp->snd_cwnd += inc;
		if (tp->snd_cwnd > tp->snd_cwnd_clamp)
			tp->snd_cwnd = tp->snd_cwnd_clamp;
	}
}

SEC("struct_ops/ts_reno_undo_cwnd")
__u32 BPF_PROG(ts_reno_undo_cwnd, struct sock *sk)
{
	const struct tcp_sock *tp = tcp_sk(sk);

	return tp->snd_cwnd > tp->prior_cwnd ? tp->snd_cwnd : tp->prior_cwnd;
}

SEC(".struct_ops")
struct tcp_congestion_ops ts_reno = {
	.ssthresh = (void *)ts_reno_ssthresh,
	.cong_avoid = (void *)ts_reno_cong_avoid,
	.undo_cwnd = (void *)ts_reno_undo_cwnd,
	.name = "ts_reno",
};
