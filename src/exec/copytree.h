/* SPDX-License-Identifier: MIT */
/*
 * Copying a run's directory, for a run in a guest: it writes its files on
 * the guest's own tmpfs while it runs and copies them into the shared run
 * directory at the end. A write to the 9p share stalls the writer on the
 * host's I/O; in virtual time the guest's clock runs on meanwhile (it
 * jumps ahead while the vCPU idles), so files written during the run would
 * make its timing depend on the host (docs/kernels.md, "What breaks
 * determinism").
 */
#ifndef TS_EXEC_COPYTREE_H
#define TS_EXEC_COPYTREE_H

#include <stddef.h>

/*
 * ts_exp_copy_tree - copy the regular files and directories under @src into
 * @dst (which exists), at most 8 levels deep; symbolic links and other file
 * types are skipped, never followed. An existing file of the same name in
 * @dst is replaced. Returns 0, or a negative errno with @err naming the file.
 */
int ts_exp_copy_tree(const char *src, const char *dst, char *err, size_t errlen);

#endif
