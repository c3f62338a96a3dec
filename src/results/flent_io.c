/* SPDX-License-Identifier: MIT */
/* Writing Flent files: gzip (zlib) of the JSON text, and the per-run export. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <json-c/json.h>
#include <zlib.h>

#include "results/flent.h"
#include "results/rjson.h"
#include "io/json.h"
#include "io/outfile.h"

int ts_flent_write(const char *path, const struct json_object *doc, struct ts_err *err)
{
	const char *text;
	struct ts_out o;
	size_t len;
	gzFile gz;
	int ret = 0;

	text = json_object_to_json_string_ext((struct json_object *)doc, TS_JSON_PLAIN);
	if (!text)
		return -ENOMEM;
	len = strlen(text);
	ret = ts_out_begin(&o, path, err);
	if (ret < 0)
		return ret;
	gz = gzdopen(o.fd, "wb");
	if (!gz) {
		close(o.fd);
		ts_out_cancel(&o);
		ts_err_set(err, "%s: out of memory for gzip", path);
		return -ENOMEM;
	}
	while (len > 0) {
		unsigned chunk = len > (1u << 30) ? (1u << 30) : (unsigned)len;
		int w = gzwrite(gz, text, chunk);

		if (w <= 0) {
			int zerr;

			ts_err_set(err, "%s: gzip write failed (%s)", path, gzerror(gz, &zerr));
			ret = -EIO;
			break;
		}
		text += w;
		len -= (size_t)w;
	}
	/* gzclose closes the descriptor too. */
	if (gzclose(gz) != Z_OK && !ret) {
		ts_err_set(err, "%s: gzip close failed", path);
		ret = -EIO;
	}
	if (ret) {
		ts_out_cancel(&o);
		return ret;
	}
	ret = ts_out_commit(&o, err);
	return ret;
}

int ts_flent_export_run(const char *rundir, const char *tool_version, struct ts_err *err)
{
	struct json_object *result = NULL, *manifest = NULL, *doc = NULL, *ok;
	char path[PATH_MAX], host[256] = "";
	struct ts_err why;
	struct ts_flent_ctx ctx;
	const char *test;
	int ret;

	snprintf(path, sizeof(path), "%s/result.json", rundir);
	ret = ts_rj_load(path, &result, err);
	if (ret)
		return ret;
	test = ts_rj_str(result, "test", "");
	ret = 1;
	if (!ts_flent_is_test(test))
		goto out;
	/* A failed run has no measurement Flent could show; its result.json says why. */
	if (json_object_object_get_ex(result, "ok", &ok) && !json_object_get_boolean(ok))
		goto out;
	snprintf(path, sizeof(path), "%s/manifest.json", rundir);
	if (ts_rj_load(path, &manifest, err) == -EINVAL) {
		ret = -EINVAL;
		goto out;
	}
	gethostname(host, sizeof(host) - 1);
	ctx.local_host = host;
	ctx.tool_version = tool_version;
	ctx.manifest = manifest;
	ret = ts_flent_build(result, &ctx, &doc, &why);
	if (ret) {
		ts_err_set(err, "%s/result.json: %s (%s)", rundir, why.msg, strerror(-ret));
		goto out;
	}
	snprintf(path, sizeof(path), "%s/%s%s", rundir, test, TS_FLENT_FILE_SUFFIX);
	ret = ts_flent_write(path, doc, err);
out:
	json_object_put(doc);
	json_object_put(manifest);
	json_object_put(result);
	return ret;
}
