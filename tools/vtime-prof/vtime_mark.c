/* SPDX-License-Identifier: MIT */
/*
 * Mark a point of a virtual-time guest's run for tools/vtime-prof/vtime_prof.c:
 * executes the plugin's marker instruction once and exits. Run by hand; static,
 * so that `tasshape vm --seal-tool` packs it alone:
 *   cc -O2 -static -o vtime_mark tools/vtime-prof/vtime_mark.c
 */
int main(void)
{
	/* nopl 0x7a55(%rax,%rax,1): an 8-byte no-op no compiler emits. */
	__asm__ volatile(".byte 0x0f, 0x1f, 0x84, 0x00, 0x55, 0x7a, 0x00, 0x00");
	return 0;
}
