/* SPDX-License-Identifier: MIT */
/*
 * Where a virtual-time guest's instructions go: a QEMU TCG plugin (run by
 * hand for docs/benchmarks.md; not part of tasshape).
 *
 * Under `-icount shift=0` every guest instruction is 1 ns of the guest's
 * clock, so a count of instructions per code address is a profile in guest
 * time. The plugin counts, per translation block start address, how many
 * instructions ran there (an inline add per block execution: no callback on
 * the hot path). The guest marks the window to measure by executing a marker
 * instruction (the 8-byte no-op `nopl 0x7a55(%rax,%rax,1)`, which compilers
 * do not emit; tools/vtime-prof/vtime_mark.c); at each marker the plugin
 * writes every block's running count to OUT.N (N = 0, 1, ...): "vaddr insns
 * gated" per line, hexadecimal address, decimal counts, and a last line
 * "gate_calls N". The difference of two snapshots is the window's profile;
 * vtime_prof.py attributes it to the guest kernel's symbols (its
 * /proc/kallsyms) and to user-space mappings.
 *
 * With the argument gate=on, the instructions run between the markers
 * 0x7a56 (gate on) and 0x7a57 (gate off), which a debug build of a program
 * puts around a call to profile (tasshape's verdict calls, say), are also
 * counted apart, in the third column; gate_calls counts the gate-on markers.
 * This adds a callback per block execution: slower on the wall clock, not in
 * guest time.
 *
 * Build: cc -O2 -shared -fPIC -o vtime_prof.so tools/vtime-prof/vtime_prof.c
 * Use:   qemu-system-x86_64 ... -plugin ./vtime_prof.so,out=/var/tmp/prof[,gate=on]
 * (tasshape vm --qemu WRAPPER, WRAPPER adding the -plugin argument).
 *
 * The declarations below are QEMU's plugin interface as of version 7.2
 * (QEMU_PLUGIN_VERSION 1), written out because Debian ships no header.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef uint64_t qemu_plugin_id_t;
struct qemu_plugin_tb;
struct qemu_plugin_insn;
typedef struct {
	const char *target_name;
	struct {
		int min, cur;
	} version;
	bool system_emulation;
	union {
		struct {
			int smp_vcpus, max_vcpus;
		} system;
	};
} qemu_info_t;
enum qemu_plugin_cb_flags { QEMU_PLUGIN_CB_NO_REGS };
enum qemu_plugin_op { QEMU_PLUGIN_INLINE_ADD_U64 };

void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   void (*cb)(qemu_plugin_id_t, struct qemu_plugin_tb *));
void qemu_plugin_register_vcpu_tb_exec_inline(struct qemu_plugin_tb *tb, enum qemu_plugin_op op,
					      void *ptr, uint64_t imm);
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  void (*cb)(unsigned int, void *),
					  enum qemu_plugin_cb_flags flags, void *udata);
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    void (*cb)(unsigned int, void *),
					    enum qemu_plugin_cb_flags flags, void *udata);
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, void (*cb)(qemu_plugin_id_t, void *),
				    void *udata);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);

__attribute__((visibility("default"))) int qemu_plugin_version = 1;

#define SLOTS (1u << 22) /* distinct block addresses; a guest run has a few 100,000 */

struct slot {
	uint64_t vaddr; /* 0: empty */
	uint64_t insns;
	uint64_t gated; /* instructions run between a gate-on and a gate-off marker */
	uint64_t n;	/* the block's instructions */
};

static struct slot *tab;
static char out_prefix[512];
static bool gating; /* gate=on: count gated instructions too (slower) */
static unsigned int nsnap;
/* nopl 0x7a55(...): snapshot; 0x7a56: gate on; 0x7a57: gate off. */
static const unsigned char marker[8] = {0x0f, 0x1f, 0x84, 0x00, 0x55, 0x7a, 0x00, 0x00};
static bool gate;
static uint64_t gate_calls;

static struct slot *slot_of(uint64_t vaddr)
{
	uint64_t h = (vaddr * 0x9e3779b97f4a7c15ull) >> 42;
	unsigned int i;

	for (i = 0; i < SLOTS; i++) {
		struct slot *s = &tab[(h + i) & (SLOTS - 1)];

		if (s->vaddr == vaddr || s->vaddr == 0) {
			s->vaddr = vaddr;
			return s;
		}
	}
	return NULL;
}

static void snapshot(unsigned int vcpu, void *udata)
{
	char path[600];
	FILE *f;
	unsigned int i;

	(void)vcpu;
	(void)udata;
	snprintf(path, sizeof(path), "%s.%u", out_prefix, nsnap++);
	f = fopen(path, "w");
	if (!f)
		return;
	for (i = 0; i < SLOTS; i++)
		if (tab[i].insns)
			fprintf(f, "%llx %llu %llu\n", (unsigned long long)tab[i].vaddr,
				(unsigned long long)tab[i].insns, (unsigned long long)tab[i].gated);
	fprintf(f, "gate_calls %llu\n", (unsigned long long)gate_calls);
	fclose(f);
}

static void gate_set(unsigned int vcpu, void *udata)
{
	(void)vcpu;
	gate = udata != NULL;
	gate_calls += gate;
}

/* While the gate is on, a block's instructions count in its gated total too. */
static void tb_exec(unsigned int vcpu, void *udata)
{
	struct slot *s = udata;

	(void)vcpu;
	if (gate)
		s->gated += s->n;
}

static void on_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), k;
	struct slot *s = slot_of(qemu_plugin_tb_vaddr(tb));

	(void)id;
	if (s) {
		s->n = n;
		qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &s->insns,
							 n);
		if (gating)
			qemu_plugin_register_vcpu_tb_exec_cb(tb, tb_exec, QEMU_PLUGIN_CB_NO_REGS,
							     s);
	}
	for (k = 0; k < n; k++) {
		struct qemu_plugin_insn *in = qemu_plugin_tb_get_insn(tb, k);
		const unsigned char *d = qemu_plugin_insn_data(in);

		if (qemu_plugin_insn_size(in) != sizeof(marker) || memcmp(d, marker, 4) ||
		    d[5] != 0x7a || d[6] || d[7])
			continue;
		if (d[4] == 0x55)
			qemu_plugin_register_vcpu_insn_exec_cb(in, snapshot, QEMU_PLUGIN_CB_NO_REGS,
							       NULL);
		else if (d[4] == 0x56 || d[4] == 0x57)
			qemu_plugin_register_vcpu_insn_exec_cb(in, gate_set, QEMU_PLUGIN_CB_NO_REGS,
							       d[4] == 0x56 ? (void *)1 : NULL);
	}
}

static void at_exit(qemu_plugin_id_t id, void *udata)
{
	(void)id;
	snapshot(0, udata);
}

__attribute__((visibility("default"))) int
qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info, int argc, char **argv)
{
	int i;

	(void)info;
	snprintf(out_prefix, sizeof(out_prefix), "/var/tmp/vtime-prof");
	for (i = 0; i < argc; i++)
		if (!strncmp(argv[i], "out=", 4))
			snprintf(out_prefix, sizeof(out_prefix), "%s", argv[i] + 4);
		else if (!strcmp(argv[i], "gate=on"))
			gating = true;
	tab = calloc(SLOTS, sizeof(*tab));
	if (!tab)
		return -1;
	qemu_plugin_register_vcpu_tb_trans_cb(id, on_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
