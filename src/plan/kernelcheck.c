/* SPDX-License-Identifier: MIT */
/*
 * The checks of an experiment's kernels that need their files: each [kernel
 * NAME] section's image must be a bzImage and its modules a modules
 * directory, read as the run will read them (vm/kimage.h, vm/moddir.h): a
 * FIFO, a device or a huge file named there is refused at once, naming the
 * spec's line, instead of hanging or filling memory before the first run.
 */
#include <stdio.h>
#include <string.h>

#include "plan/expspec.h"
#include "vm/kimage.h"
#include "vm/moddir.h"

/* One section's files; 0 or -errno with @err set to "PATH:LINE: [kernel NAME]: KEY: ...". */
static int check_kernel(const struct ts_exp_spec *spec, const struct ts_exp_kernel *k,
			struct ts_err *err)
{
	struct ts_vm_kimage img;
	struct ts_err e;
	int ret = 0;

	/* image = debian is Debian's, fetched at its first run into tasshape's cache. */
	if (strcmp(k->image, "debian")) {
		ret = ts_vm_kimage_load(k->image, &img, &e);
		if (ret < 0) {
			ts_err_set(err, "%s:%u: [kernel %s]: image: %s", spec->path, k->image_line,
				   k->name, e.msg);
			return ret;
		}
		ts_vm_kimage_free(&img);
	}
	if (k->modules) {
		ret = ts_vm_modules_check(k->modules, &e);
		if (ret < 0)
			ts_err_set(err, "%s:%u: [kernel %s]: modules: %s", spec->path,
				   k->modules_line, k->name, e.msg);
	}
	return ret;
}

int ts_exp_spec_check_kernels(const struct ts_exp_spec *spec, struct ts_err *err)
{
	size_t i;
	int ret = 0;

	for (i = 0; i < spec->nkernels && !ret; i++)
		ret = check_kernel(spec, &spec->kernels[i], err);
	return ret;
}
