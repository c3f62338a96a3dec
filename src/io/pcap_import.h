/* SPDX-License-Identifier: MIT */
/*
 * tasshape trace import pcap: a capture of a saturating download (read
 * with libpcap) into a mahimahi delivery-opportunity trace. The counting
 * is the model's (include/tasshape/trace_pcap.h); this file reads the
 * file, applies an optional BPF filter and picks the download direction.
 */
#ifndef TS_IO_PCAP_IMPORT_H
#define TS_IO_PCAP_IMPORT_H

#include "tasshape/err.h"
#include "tasshape/text.h"
#include "tasshape/trace.h"

struct ts_pcap_import_opts {
	const char *filter; /* BPF expression applied first, or NULL */
	ts_ns_t skip;	    /* ignore the first @skip after the first packet (slow start) */
	ts_ns_t duration;   /* stop after this much (after the skip); 0: to the end */
};

/*
 * ts_pcap_import - read @path; count the packets of the direction (source
 * and destination address) that carried the most IP bytes, from @o->skip
 * after its first packet, into *@out (owned by the caller). @notes gets
 * lines saying which direction, how many packets and bytes. Returns 0,
 * or -EINVAL / -ENOENT / -ENOMEM with @err set ("PATH: ...").
 */
int ts_pcap_import(const char *path, const struct ts_pcap_import_opts *o, struct ts_trace **out,
		   struct ts_text *notes, struct ts_err *err);

#endif
