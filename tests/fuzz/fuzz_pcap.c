/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer harness for the pure part of the pcap importer (`trace
 * import pcap`): the link-layer and IP header parser of each frame
 * (Ethernet with VLAN tags, Linux cooked v1/v2, BSD/OpenBSD loopback,
 * raw IPv4/IPv6) and the byte counter that turns arrivals into delivery
 * opportunities. Input: frames of [dlt index, 2 bytes caplen, 2 bytes
 * time step in us, bytes...]. Checks: a parsed header never claims more
 * than the frame holds of it (version 4 or 6), the builder's trace is a
 * well-formed opportunity trace carrying the bytes counted.
 */
#include <errno.h>

#include "fuzz_common.h"
#include "tasshape/trace_pcap.h"

static const int dlts[] = {
	TS_DLT_NULL, TS_DLT_EN10MB, TS_DLT_RAW,	       14,  101, TS_DLT_LOOP, TS_DLT_LINUX_SLL,
	TS_DLT_IPV4, TS_DLT_IPV6,   TS_DLT_LINUX_SLL2, 9999};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ts_opp_builder b;
	struct ts_trace *t = NULL;
	struct ts_err err;
	size_t pos = 0;
	ts_ns_t now = 0;
	uint64_t bytes = 0;
	int ret;

	ts_opp_builder_init(&b);
	while (pos + 5 <= size) {
		int dlt = dlts[data[pos] % (sizeof(dlts) / sizeof(dlts[0]))];
		uint32_t caplen = (uint32_t)data[pos + 1] | (uint32_t)data[pos + 2] << 8;
		struct ts_pcap_ip ip;

		now += ((ts_ns_t)data[pos + 3] | (ts_ns_t)data[pos + 4] << 8) * TS_NSEC_PER_USEC;
		pos += 5;
		if (caplen > size - pos)
			caplen = (uint32_t)(size - pos);
		ret = ts_pcap_ip_parse(dlt, data + pos, caplen, &ip);
		pos += caplen;
		if (dlt == 9999) {
			CHECK(ret == -EPROTONOSUPPORT);
			continue;
		}
		CHECK(ret == 0 || ret == -EINVAL);
		if (ret)
			continue;
		CHECK(ip.version == 4 || ip.version == 6);
		if (ts_opp_builder_add(&b, now, ip.ip_len) < 0)
			break;
		bytes += ip.ip_len;
	}
	err.msg[0] = '\0';
	ret = ts_opp_builder_finish(&b, "fuzz", &t, &err);
	if (ret == 0) {
		uint64_t n = 0;
		size_t i;

		fuzz_check_opps(t);
		for (i = 0; i < t->n; i++)
			n += t->opps[i].count;
		CHECK(n == bytes / TS_OPP_BYTES);
		ts_trace_free(t);
	} else {
		CHECK(!t && err.msg[0] && (ret == -EINVAL || ret == -ENOMEM));
		CHECK(ret == -ENOMEM || bytes < TS_OPP_BYTES || now >= FUZZ_PERIOD_MAX - 2000000);
	}
	ts_opp_builder_free(&b);
	return 0;
}
