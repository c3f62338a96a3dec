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
#include "io/invoker.h"
#include "net/netns.h"
#include "net/userns.h"

struct attach_args {
	struct ts_linkcfg link;
	struct ts_run_common common;
	const char *netns, *dev, *peer;
};

enum { OPT_NETNS = 0x500, OPT_DEV, OPT_PEER, OPT_FORCE };

static const struct argp_option attach_options[] = {
	{"netns", OPT_NETNS, "NAME", 0,
	 "The station's namespace: /run/netns/NAME, or pid:PID, that of process PID; required", 0},
	{"dev", OPT_DEV, "IFACE", 0,
	 "Its interface towards the network (default: its only interface besides lo)", 0},
	{"peer-netns", OPT_PEER, "NAME", 0,
	 "Namespace of the other end of that veth, NAME or pid:PID (default: the one tasshape "
	 "runs in)",
	 0},
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
	"  sudo tasshape attach --netns sta --trace starlink --duration 60s --out run1\n"
	"  # Without root, namespaces of your own (docs/rootless.md): the station's and the\n"
	"  # other end's, named by a process in each:\n"
	"  tasshape attach --netns pid:$STA --peer-netns pid:$AP --trace const:20mbit",
	attach_children,
	NULL,
	NULL};

/*
 * Root of a rootless run's namespace (docs/rootless.md) may shape only
 * what that namespace owns: the run's own namespaces. 0 when @netns is
 * one of them (or cannot be opened: ts_session_attach reports that), 1
 * after the message.
 */
static int attach_inside_run(const char *netns)
{
	struct ts_netns ns;
	bool ours = false;
	uid_t owner = 0;
	int ret;

	if (ts_netns_open(&ns, netns, NULL) < 0)
		return 0;
	ret = ts_netns_owner(ns.fd, &owner, &ours);
	ts_netns_destroy(&ns, NULL);
	if (ret < 0 || ours)
		return 0;
	ts_cli_error("attach: namespace %s belongs to a user namespace other than this rootless "
		     "run's (the host's, or another outside it): shaping it needs CAP_NET_ADMIN "
		     "there, which root of this run's namespace does not have: run attach with "
		     "sudo outside the run (docs/rootless.md)",
		     netns);
	return 1;
}

/*
 * A user without root or sudo (docs/rootless.md): shaping a namespace
 * needs CAP_NET_ADMIN in the user namespace that owns it, so the run joins
 * that user namespace when it is one the user made (net/userns_join.c),
 * and goes on as root does, from the other end's namespace; anything else
 * (root's namespaces, another user's) is refused before any set-up. 0 to
 * go on, 1 after the message.
 */
static int attach_as_user(struct attach_args *a)
{
	struct ts_netns ns, peer;
	struct ts_err err = {{0}};
	int ret;

	ts_netns_init(&peer);
	ret = ts_netns_open(&ns, a->netns, &err);
	if (ret < 0)
		goto out;
	if (a->peer)
		ret = ts_netns_open(&peer, a->peer, &err);
	else
		ret = peer.fd = ts_netns_current(&err);
	if (ret >= 0)
		ret = ts_userns_join(ns.fd, a->netns, peer.fd, a->peer ? a->peer : "this namespace",
				     &err);
out:
	ts_netns_destroy(&ns, NULL);
	ts_netns_destroy(&peer, NULL);
	if (ret < 0) {
		ts_cli_error("attach: %s", err.msg);
		return 1;
	}
	/* Unmapped files (root's, others') show as the overflow uid from here on. */
	ts_invoker_set_rootless();
	a->common.rootless = true;
	return 0;
}

/* Who runs attach decides how it may shape @a->netns: 0 to go on, 1 after the message. */
static int attach_rootless_check(struct attach_args *a)
{
	if (ts_userns_rootless())
		return attach_inside_run(a->netns);
	if (geteuid() == 0)
		return 0;
	return attach_as_user(a);
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
	if (attach_rootless_check(&a)) {
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
