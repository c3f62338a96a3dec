/* SPDX-License-Identifier: MIT */
/* apt's answers for --kernel debian (apt.h). */
#include <errno.h>
#include <string.h>

#include "vm/apt.h"

/* [@p, @end) without the blanks around it, into @f (@flen bytes); 0 or -ENOSPC. */
static int field(const char *p, const char *end, char *f, size_t flen)
{
	size_t n;

	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	while (end > p && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
		end--;
	n = (size_t)(end - p);
	if (!n || n >= flen)
		return -ENOSPC;
	memcpy(f, p, n);
	f[n] = '\0';
	return 0;
}

size_t ts_vm_apt_versions(const char *text, char out[][TS_VM_APT_VERSION_LEN], size_t max)
{
	const char *l = text;
	size_t n = 0, i;

	while (l && *l && n < max) {
		const char *end = strchr(l, '\n'), *b1, *b2;
		char v[TS_VM_APT_VERSION_LEN];
		int seen = 0;

		if (!end)
			end = l + strlen(l);
		b1 = memchr(l, '|', (size_t)(end - l));
		b2 = b1 ? memchr(b1 + 1, '|', (size_t)(end - b1 - 1)) : NULL;
		if (b2 && field(b1 + 1, b2, v, sizeof(v)) == 0 && !strpbrk(v, " \t")) {
			for (i = 0; i < n; i++)
				seen |= !strcmp(out[i], v);
			if (!seen)
				memcpy(out[n++], v, sizeof(v));
		}
		l = *end ? end + 1 : NULL;
	}
	return n;
}

int ts_vm_apt_image(const char *text, char *pkg, size_t len)
{
	static const char key[] = "Depends: linux-image-";
	const char *p;

	for (p = text; (p = strstr(p, key)); p++) {
		const char *name = p + strlen("Depends: ");
		size_t n = strcspn(name, " \t\r\n<>");

		if (n < len && n > strlen("linux-image-")) {
			memcpy(pkg, name, n);
			pkg[n] = '\0';
			return 0;
		}
	}
	return -ENOENT;
}
