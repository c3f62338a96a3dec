/* SPDX-License-Identifier: MIT */
/*
 * Packet captures of the emulated link (--pcap-up, --pcap-down,
 * --pcap-ingress, --pcap-drops), written with libpcap as classic pcap
 * files with nanosecond timestamps and link type DLT_RAW (the record
 * starts with the IP header; IPv4 and IPv6 both), which tcpdump and
 * Wireshark read.
 *
 * Only the bytes NFQUEUE copied to user space are there (the IP and
 * transport headers, TS_NFQ_COPY_RANGE bytes at most): each record's
 * captured length is min(snaplen, copied) and its original length is the
 * packet's real length, as a capture with a snap length would show.
 * Timestamps are the model's times (when the shaper released, received or
 * dropped the packet) on the wall clock: CLOCK_REALTIME = model time +
 * an offset measured once at the start of the run, so they never jump
 * with NTP during a run and line up with captures taken elsewhere.
 */
#ifndef TS_RECORD_PCAP_OUT_H
#define TS_RECORD_PCAP_OUT_H

#include <stdint.h>
#include <stdio.h>

#include "tasshape/err.h"
#include "tasshape/time.h"

struct ts_pcap_out {
	void *pcap;   /* pcap_t (a dead handle: link type and precision) */
	void *dumper; /* pcap_dumper_t */
	uint32_t snaplen;
	uint64_t records;
	char path[256];
};

/*
 * ts_pcap_out_open - create @path (truncated) as a nanosecond DLT_RAW
 * pcap with @snaplen. Returns 0 or a negative errno with @err set.
 */
int ts_pcap_out_open(struct ts_pcap_out *o, const char *path, uint32_t snaplen, struct ts_err *err);

/*
 * ts_pcap_out_write - one record at wall-clock time @wall_ns (ns since
 * the epoch): @caplen bytes of @hdr (cut to the snap length) of a packet
 * of @len bytes.
 */
void ts_pcap_out_write(struct ts_pcap_out *o, ts_ns_t wall_ns, const uint8_t *hdr, uint32_t caplen,
		       uint32_t len);

/* Flush and close; returns 0 or -EIO if a write failed. Safe when not open. */
int ts_pcap_out_close(struct ts_pcap_out *o);

#endif
