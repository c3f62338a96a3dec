/* SPDX-License-Identifier: MIT */
/*
 * exp report: the figures of an experiment directory (gnuplot, PNG and
 * SVG, each with its data file NAME.dat beside it) and report.md, which
 * shows them with the summary table.
 */
#ifndef TS_RESULTS_REPORT_MAKE_H
#define TS_RESULTS_REPORT_MAKE_H

struct ts_report_req {
	const char *dir;    /* the experiment directory (untrusted input) */
	const char *out;    /* the report directory, created private */
	const char *qq_ref; /* the Q-Q plot's reference configuration (AXIS=VALUE,...), or NULL */
	/* Each problem, said as it is found (a report goes on past a picture not drawn). */
	void (*say)(void *ctx, const char *msg);
	void *ctx;
};

/*
 * ts_report_make - write the report of @q->dir into @q->out. Returns 0 when
 * every figure was drawn and report.md written (*@figures of them, *@nodata
 * saying their data is missing), -1 otherwise, each problem said through
 * @q->say. A directory that cannot be read leaves no report directory.
 */
int ts_report_make(const struct ts_report_req *q, unsigned *figures, unsigned *nodata);

#endif
