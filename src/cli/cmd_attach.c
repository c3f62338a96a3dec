/* SPDX-License-Identifier: MIT */
/*
 * tasshape attach --netns NAME: shape the link of a namespace that already
 * exists (made by `ip netns add` and a veth, a Mininet-style test bed),
 * until SIGINT/SIGTERM or --duration, then remove the rules. NAME is the
 * station: its uplink leaves by --dev; the other end of that veth is in
 * --peer-netns (default: the namespace tasshape runs in).
 */
#include <stdio.h>
#include <unistd.h>

#include "cli/cli.h"
#include "net/netns.h"
#include "net/userns.h"

struct attach_args {
	struct ts_linkcfg link;
	struct ts_run_common common;
	const char *netns, *dev, *peer;
};

enum { OPT_NETNS = 0x500, OPT_DEV, OPT_PEER, OPT_FORCE };

static const struct argp_option attach_options[] = {
	{"netns", OPT_NETNS, "NAME", 0, "The station's namespace (/run/netns/NAME); required", 0},
	{"dev", OPT_DEV, "IFACE", 0,
	 "Its interface towards the network (default: its only interface besides lo)", 0},
	{"peer-netns", OPT_PEER, "NAME", 0,
	 "Namespace of the other end of that veth (default: the one tasshape runs in)", 0},
	{"force", OPT_FORCE, NULL, 0,
	 "Shape even when NAME is the host's own network namespace (refused otherwise)", 0},
	{0}};

static error_t attach_parse(int key, char *arg, struct argp_state *state)
{
	struct attach_args *a = state->input;

	switch (key) {
	case ARGP_KEY_INIT:
		state->child_inputs[0] = &a->link;
		state->child_inputs[1] = &a->common;
		break;
	case OPT_NETNS:
		a->netns = arg;
		break;
	case OPT_DEV:
		a->dev = arg;
		break;
	case OPT_PEER:
		a->peer = arg;
		break;
	case OPT_FORCE:
		a->common.force_host = true;
		break;
	case ARGP_KEY_ARG:
		argp_error(state, "unexpected argument '%s'", arg);
		break;
	case ARGP_KEY_END:
		if (!a->netns)
			argp_error(state, "--netns NAME is required");
		break;
	default:
		return ARGP_ERR_UNKNOWN;
	}
	return 0;
}

static const struct argp_child attach_children[] = {
	{&ts_link_argp, 0, NULL, 0}, {&ts_common_argp, 0, NULL, 0}, {0}};

static const struct argp attach_argp = {
	attach_options,
	attach_parse,
	NULL,
	"Shape the link of an existing namespace until SIGINT/SIGTERM or --duration, then "
	"remove the rules and print the summary.\v"
	"Examples:\n"
	"  # A station namespace joined to this one by a veth (addresses and routes as usual):\n"
	"  sudo ip netns add sta\n"
	"  sudo ip link add ap0 type veth peer name sta0 netns sta\n"
	"  sudo tasshape attach --netns sta --trace lte-driving --delay 20ms\n"
	"  # One minute of Starlink, recorded for 'tasshape plot run1':\n"
	"  sudo tasshape attach --netns sta --trace starlink --duration 60s --out run1",
	attach_children,
	NULL,
	NULL};

/*
 * Without root (docs/rootless.md): shaping a namespace needs CAP_NET_ADMIN
 * in the user namespace that owns it, which a user has only in a user
 * namespace of their own, entered. attach does not enter one, so a user is
 * refused here, with the owner of @netns named: root's (`ip netns add`), or
 * another user's, or one of the user's own, which the wrapper would serve.
 * Root of a rootless run's namespace may shape only what that namespace
 * owns. 0 when nothing stands in the way, or 1 after the message (a
 * namespace that cannot be opened is left for ts_session_attach to report).
 */
static int attach_rootless_check(const char *netns)
{
	bool rootless = ts_userns_rootless(), ours = false;
	struct ts_netns ns;
	uid_t owner = 0;
	int ret;

	if (geteuid() == 0 && !rootless)
		return 0;
	if (ts_netns_open(&ns, netns, NULL) < 0)
		return 0;
	ret = ts_netns_owner(ns.fd, &owner, &ours);
	ts_netns_destroy(&ns, NULL);
	if (ret < 0 || (rootless && ours))
		return 0;
	if (rootless) {
		ts_cli_error("attach: namespace %s belongs to a user namespace other than this "
			     "rootless run's (the host's, or another outside it): shaping it needs "
			     "CAP_NET_ADMIN there, which root of this run's namespace does not "
			     "have: run attach with sudo outside the run (docs/rootless.md)",
			     netns);
		return 1;
	}
	if (owner != geteuid()) {
		ts_cli_error("attach: namespace %s belongs to a user namespace of uid %u%s, not "
			     "yours (uid %u): shaping it needs CAP_NET_ADMIN there: sudo tasshape "
			     "attach ... (docs/rootless.md)",
			     netns, (unsigned)owner,
			     owner == 0 ? " (root's: `ip netns add` makes them there)" : "",
			     (unsigned)geteuid());
		return 1;
	}
	ts_cli_error("attach: namespace %s belongs to a user namespace of yours, but attach does "
		     "not enter user namespaces: run the command under the wrapper (tasshape "
		     "[LINK OPTIONS] -- CMD makes a user namespace of its own), or use sudo "
		     "(docs/rootless.md)",
		     netns);
	return 1;
}

int cmd_attach(int argc, char **argv)
{
	struct attach_args a = {0};
	struct ts_session s;
	struct ts_err err = {{0}};
	int ret, code = 0;

	ts_linkcfg_init(&a.link);
	ts_run_common_init(&a.common);
	argp_parse(&attach_argp, argc, argv, 0, NULL, &a);
	a.common.argc = argc;
	a.common.argv = argv;
	if (attach_rootless_check(a.netns)) {
		ts_linkcfg_free(&a.link);
		return 1;
	}
	ret = ts_session_attach(&s, &a.link, &a.common, a.netns, a.dev, a.peer, &err);
	if (ret < 0) {
		ts_cli_error("attach: %s", err.msg);
		ts_linkcfg_free(&a.link);
		return 1;
	}
	if (!a.common.quiet)
		fprintf(stderr, "tasshape: shaping %s (%s) until interrupted\n", a.netns,
			s.hook_dev[TS_H_UP_SENDER]);
	ret = ts_session_run(&s, 0, &err);
	if (ret < 0) {
		ts_cli_error("attach: %s", err.msg);
		code = 1;
	}
	if (ts_session_close(&s, &err) < 0) {
		ts_cli_error("attach: %s", err.msg);
		code = 1;
	}
	ts_linkcfg_free(&a.link);
	return code;
}
