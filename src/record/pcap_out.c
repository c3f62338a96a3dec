/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <pcap/pcap.h>
#include <string.h>

#include "record/pcap_out.h"
#include "io/outfile.h"

int ts_pcap_out_open(struct ts_pcap_out *o, const char *path, uint32_t snaplen, struct ts_err *err)
{
	FILE *f = NULL;
	int ret;

	memset(o, 0, sizeof(*o));
	snprintf(o->path, sizeof(o->path), "%s", path);
	o->snaplen = snaplen;
	o->pcap = pcap_open_dead_with_tstamp_precision(DLT_RAW, (int)snaplen,
						       PCAP_TSTAMP_PRECISION_NANO);
	if (!o->pcap) {
		ts_err_set(err, "%s: libpcap: cannot make a capture handle", path);
		return -ENOMEM;
	}
	f = ts_out_fopen(path, err);
	if (!f) {
		ret = -errno;
		goto fail;
	}
	/* Our own stream, so its buffer is large: a record per packet adds up. */
	setvbuf(f, NULL, _IOFBF, 1 << 20);
	o->dumper = pcap_dump_fopen(o->pcap, f);
	if (!o->dumper) {
		ts_err_set(err, "%s: libpcap: %s", path, pcap_geterr(o->pcap));
		fclose(f);
		ret = -EIO;
		goto fail;
	}
	return 0;
fail:
	pcap_close(o->pcap);
	o->pcap = NULL;
	return ret;
}

void ts_pcap_out_write(struct ts_pcap_out *o, ts_ns_t wall_ns, const uint8_t *hdr, uint32_t caplen,
		       uint32_t len)
{
	struct pcap_pkthdr ph;

	if (!o->dumper)
		return;
	if (caplen > o->snaplen)
		caplen = o->snaplen;
	if (caplen > len)
		caplen = len;
	/* A nanosecond-precision dumper writes tv_usec as nanoseconds. */
	ph.ts.tv_sec = (time_t)(wall_ns / TS_NSEC_PER_SEC);
	ph.ts.tv_usec = (suseconds_t)(wall_ns % TS_NSEC_PER_SEC);
	ph.caplen = caplen;
	ph.len = len;
	pcap_dump((u_char *)o->dumper, &ph, hdr);
	o->records++;
}

int ts_pcap_out_close(struct ts_pcap_out *o)
{
	int ret = 0;

	if (o->dumper) {
		FILE *f = pcap_dump_file(o->dumper);

		if (pcap_dump_flush(o->dumper) < 0 || ferror(f))
			ret = -EIO;
		pcap_dump_close(o->dumper);
		o->dumper = NULL;
	}
	if (o->pcap)
		pcap_close(o->pcap);
	o->pcap = NULL;
	return ret;
}
