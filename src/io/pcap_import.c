/* SPDX-License-Identifier: MIT */
/*
 * Reading a capture for tasshape trace import pcap (see pcap_import.h).
 * Two passes over the file: the first finds the direction that carried
 * the most IP bytes (the download: the data packets, not the ACKs going
 * the other way), the second counts its bytes into opportunities.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "io/pcap_import.h"
#include "tasshape/trace_pcap.h"

#define MAX_PAIRS 256

struct pair {
	uint8_t version, src[16], dst[16];
	uint64_t bytes, packets;
};

struct pass {
	struct pair pairs[MAX_PAIRS];
	size_t npairs;
	uint64_t frames, not_ip;
};

static pcap_t *open_capture(const char *path, const char *filter, struct ts_err *err)
{
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	struct bpf_program prog;
	pcap_t *p;

	p = pcap_open_offline_with_tstamp_precision(path, PCAP_TSTAMP_PRECISION_NANO, ebuf);
	if (!p) {
		ts_err_set(err, "%s: cannot read the capture: %s", path, ebuf);
		return NULL;
	}
	if (!filter)
		return p;
	if (pcap_compile(p, &prog, filter, 1, PCAP_NETMASK_UNKNOWN) < 0) {
		ts_err_set(err, "--filter '%s': %s", filter, pcap_geterr(p));
		pcap_close(p);
		return NULL;
	}
	if (pcap_setfilter(p, &prog) < 0) {
		ts_err_set(err, "--filter '%s': %s", filter, pcap_geterr(p));
		pcap_freecode(&prog);
		pcap_close(p);
		return NULL;
	}
	pcap_freecode(&prog);
	return p;
}

static bool same_dir(const struct pair *a, const struct ts_pcap_ip *ip)
{
	return a->version == ip->version && !memcmp(a->src, ip->src, 16) &&
	       !memcmp(a->dst, ip->dst, 16);
}

static ts_ns_t hdr_ns(const struct pcap_pkthdr *h)
{
	/* tv_usec holds nanoseconds: the capture was opened with nano precision */
	return (ts_ns_t)h->ts.tv_sec * TS_NSEC_PER_SEC + (ts_ns_t)h->ts.tv_usec;
}

/* Pass 1: bytes per direction. */
static int tally(pcap_t *p, const char *path, struct pass *ps, struct ts_err *err)
{
	int dlt = pcap_datalink(p), ret;
	struct pcap_pkthdr *h;
	const u_char *data;

	while ((ret = pcap_next_ex(p, &h, &data)) == 1) {
		struct ts_pcap_ip ip;
		size_t i;
		int r = ts_pcap_ip_parse(dlt, data, h->caplen, &ip);

		ps->frames++;
		if (r == -EPROTONOSUPPORT) {
			ts_err_set(err,
				   "%s: link type %s (%d) is not supported; expected Ethernet, "
				   "raw IP, Linux cooked (tcpdump -i any) or loopback",
				   path,
				   pcap_datalink_val_to_name(dlt) ? pcap_datalink_val_to_name(dlt)
								  : "?",
				   dlt);
			return -EINVAL;
		}
		if (r) {
			ps->not_ip++;
			continue;
		}
		for (i = 0; i < ps->npairs && !same_dir(&ps->pairs[i], &ip); i++)
			;
		if (i == ps->npairs) {
			if (ps->npairs == MAX_PAIRS)
				continue; /* a download does not need the 257th address pair */
			memset(&ps->pairs[i], 0, sizeof(ps->pairs[i]));
			ps->pairs[i].version = ip.version;
			memcpy(ps->pairs[i].src, ip.src, 16);
			memcpy(ps->pairs[i].dst, ip.dst, 16);
			ps->npairs++;
		}
		ps->pairs[i].bytes += ip.ip_len;
		ps->pairs[i].packets++;
	}
	if (ret == PCAP_ERROR) {
		ts_err_set(err, "%s: %s", path, pcap_geterr(p));
		return -EINVAL;
	}
	return 0;
}

/* Pass 2: the chosen direction's bytes into opportunities. */
static int count(pcap_t *p, const char *path, const struct pair *dir,
		 const struct ts_pcap_import_opts *o, struct ts_opp_builder *b, struct ts_err *err)
{
	int dlt = pcap_datalink(p), ret;
	struct pcap_pkthdr *h;
	const u_char *data;
	bool have_first = false;
	ts_ns_t first = 0;

	while ((ret = pcap_next_ex(p, &h, &data)) == 1) {
		struct ts_pcap_ip ip;
		ts_ns_t t = hdr_ns(h);

		if (ts_pcap_ip_parse(dlt, data, h->caplen, &ip) || !same_dir(dir, &ip))
			continue;
		if (!have_first) {
			have_first = true;
			first = t;
		}
		if (t - first < o->skip)
			continue;
		if (o->duration && t - first - o->skip >= o->duration)
			break;
		if (ts_opp_builder_add(b, t, ip.ip_len) < 0) {
			ts_err_set(err, "%s: out of memory", path);
			return -ENOMEM;
		}
	}
	if (ret == PCAP_ERROR) {
		ts_err_set(err, "%s: %s", path, pcap_geterr(p));
		return -EINVAL;
	}
	return 0;
}

static const char *addr(const struct pair *d, const uint8_t *a, char *buf, size_t size)
{
	if (!inet_ntop(d->version == 4 ? AF_INET : AF_INET6, a, buf, (socklen_t)size))
		snprintf(buf, size, "?");
	return buf;
}

int ts_pcap_import(const char *path, const struct ts_pcap_import_opts *o, struct ts_trace **out,
		   struct ts_text *notes, struct ts_err *err)
{
	struct pass *ps = calloc(1, sizeof(*ps)); /* 10 KB: not on the stack */
	struct ts_opp_builder b;
	const struct pair *best = NULL;
	char s[INET6_ADDRSTRLEN], d[INET6_ADDRSTRLEN];
	pcap_t *p;
	size_t i;
	int ret;

	*out = NULL;
	ts_opp_builder_init(&b);
	if (!ps) {
		ts_err_set(err, "%s: out of memory", path);
		return -ENOMEM;
	}
	ret = -EINVAL;
	p = open_capture(path, o->filter, err);
	if (!p)
		goto out;
	ret = tally(p, path, ps, err);
	pcap_close(p);
	if (ret)
		goto out;
	for (i = 0; i < ps->npairs; i++)
		if (!best || ps->pairs[i].bytes > best->bytes)
			best = &ps->pairs[i];
	ret = -EINVAL;
	if (!best) {
		ts_err_set(err, "%s: no IP packets%s (%llu frames)", path,
			   o->filter ? " match the filter" : "", (unsigned long long)ps->frames);
		goto out;
	}
	p = open_capture(path, o->filter, err);
	if (!p)
		goto out;
	ret = count(p, path, best, o, &b, err);
	pcap_close(p);
	if (!ret)
		ret = ts_opp_builder_finish(&b, path, out, err);
	if (!ret) {
		ts_text_printf(
			notes,
			"%s: download %s -> %s, the busiest of %zu directions: %llu packets, "
			"%llu IP bytes counted, %llu opportunities of %u bytes",
			path, addr(best, best->src, s, sizeof(s)),
			addr(best, best->dst, d, sizeof(d)), ps->npairs,
			(unsigned long long)b.packets, (unsigned long long)b.bytes,
			(unsigned long long)(b.bytes / 1500), 1500u);
		if (b.reordered)
			ts_text_printf(
				notes,
				"; %llu packets earlier than the one before counted at its time",
				(unsigned long long)b.reordered);
		if (ps->not_ip)
			ts_text_printf(notes, "; %llu frames were not IP",
				       (unsigned long long)ps->not_ip);
	}
out:
	ts_opp_builder_free(&b);
	free(ps);
	return ret;
}
