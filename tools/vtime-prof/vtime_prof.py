#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Attribute a window of a virtual-time guest's instructions (tools/vtime-prof/vtime_prof.c).

Usage: vtime_prof.py SNAP_A SNAP_B KALLSYMS [MAPS [BINARY]] [--top N] [--per COUNT] [--gated]

SNAP_A and SNAP_B are two snapshots of the plugin (the window is B - A);
KALLSYMS the guest's /proc/kallsyms read after the run (modules loaded);
MAPS /proc/PID/maps of the tasshape process, BINARY the same tasshape
binary on the host (its symbols, for the shaper's own functions). Prints
the window's instructions by group and the top functions; --per divides
by a count (packets) as well; --gated reads the instructions run between
the plugin's gate markers instead of all of them.
"""
import bisect
import re
import subprocess
import sys

# Groups, first match wins (kernel function names of Linux 6.1 - 6.12).
GROUPS = [
    ("nfqueue", r"^(nfqnl_|__nfqnl|nf_queue|nf_reinject|nfnetlink_|nfnl_|instance_lookup|"
                r"nf_hook_slow|nf_iterate|skb_zerocopy|nfqnl|find_dequeue|__find_dequeue|"
                r"issue_verdict|nf_queue_entry)"),
    ("netlink", r"^(netlink_|__netlink|nlmsg|nla_|__nla|__nlmsg|genl|rtnl)"),
    ("conntrack", r"^(nf_conntrack|__nf_conntrack|nf_ct_|__nf_ct|ipv4_conntrack|ipv6_conntrack|"
                  r"nf_confirm|ipv4_confirm|nf_nat|hash_conntrack|tcp_packet$|nf_tcp|"
                  r"tcp_in_window|tcp_error|resolve_normal_ct|init_conntrack|nf_checksum|"
                  r"tcp_new|__nf_ct_refresh|nf_l4proto)"),
    ("iptables", r"^(ipt_|ip6t_|xt_|ip_tables|iptable_|ip6table_|ebt_|arpt_|mark_mt|"
                 r"comment_mt|nft_|tcp_mt|udp_mt)"),
    ("gso/csum", r"^(skb_segment|__skb_gso|skb_gso|tcp_gso|tcp4_gso|inet_gso|__skb_checksum|"
                 r"skb_checksum|csum_|do_csum|__csum|csum_partial|skb_copy_and_csum|"
                 r"inet_gro|tcp_gro|tcp4_gro|dev_gro|napi_gro|__napi_gro|skb_gro|gro_)"),
    ("tcp", r"^(tcp_|__tcp|tcp4_|tcpv|inet_csk|inet_ehash|__inet_lookup|inet_lookup|bictcp|"
            r"cubictcp|bbr_|minmax|sk_stream|sk_reset|sk_forced|sock_rfree|sock_wfree|"
            r"__sock_wfree|skb_entail|sk_page_frag)"),
    ("ip/route", r"^(ip_|__ip_|ipv4_|inet_|fib_|ip6_|__ip6|ipv6_|rt_|dst_|__dst|ip_route|"
                 r"ip_rcv|raw_local|raw_v4|l3mdev|__mkroute|ip_finish)"),
    ("dev/veth/softirq", r"^(veth_|__dev_|dev_|netif_|__netif|net_rx_action|process_backlog|"
                         r"enqueue_to_backlog|__napi|napi_|eth_|do_softirq|__do_softirq|"
                         r"__local_bh|local_bh|irq_exit|sch_direct|validate_xmit|qdisc|"
                         r"pfifo|noop_|skb_mac|rps_|get_rps|skb_tx_hash|netdev_)"),
    ("skb/mem", r"^(__alloc_skb|alloc_skb|kfree_skb|__kfree_skb|skb_release|skb_free|"
                r"consume_skb|__consume|skb_clone|__skb_clone|skb_copy|__copy_skb|pskb_|"
                r"skb_put|skb_push|skb_pull|__pskb|skb_orphan|skb_attempt|kmem_cache|"
                r"__kmem|kmalloc|__kmalloc|kfree|__slab|slab_|___slab|__kmalloc|page_frag|"
                r"__page_frag|napi_alloc|build_skb|__build_skb|skb_head|free_unref|"
                r"__free_pages|__alloc_pages|get_page_from|rmqueue|__rmqueue|"
                r"skb_try_coalesce|kmalloc_reserve|skb_ext|__skb_ext|memcg|mem_cgroup|"
                r"refill_stock|obj_cgroup|__mod_memcg|mod_objcg|consume_obj)"),
    ("copy", r"^(copy_user|_copy_|__copy|copyin|copyout|memcpy|__memcpy|memmove|__memmove|"
             r"memset|__memset|rep_movs|copy_page|skb_copy_datagram|__skb_datagram|"
             r"simple_copy|csum_and_copy|_copy_to_iter|_copy_from_iter|iov_iter|"
             r"copy_from_kernel|__check_object)"),
    ("socket/syscall", r"^(entry_|syscall_|do_syscall|__x64_sys|__sys_|sys_|sock_|__sock|"
                       r"sockfd|____sys|___sys|import_iovec|__import|fdget|__fdget|fput|"
                       r"__fput|__fget|security_|apparmor|aa_|inet_sendmsg|inet_recvmsg|"
                       r"copy_msghdr|move_addr|recvmsg|sendmsg|do_recvmmsg|__skb_recv|"
                       r"skb_recv|__skb_try_recv|skb_free_datagram|exit_to_user|"
                       r"syscall_exit|fpregs|switch_fpu|restore_fpregs|rw_verify|vfs_|"
                       r"ksys_|new_sync|do_epoll|ep_|__ep|epoll|do_sys_poll|timerfd|"
                       r"__x86_indirect|__x86_return|clear_bhb|srso|retbleed|"
                       r"lockdep|rcu_|__rcu|_raw_spin|raw_spin|_raw_read|_raw_write|"
                       r"queued_spin|__lock|mutex|down_|up_|_copy_to_user|_copy_from_user|"
                       r"__put_user|__get_user|check_stack|__check_heap|__virt_addr|"
                       r"should_fail|should_failslab)"),
    ("sched/timer", r"^(schedule|__schedule|pick_|enqueue_|dequeue_|update_|try_to_wake|"
                    r"ttwu|wake_up|__wake_up|autoremove|default_wake|finish_task|"
                    r"context_switch|__switch_to|switch_mm|prepare_task|hrtimer|__hrtimer|"
                    r"tick_|ktime_|clockevents|lapic|native_apic|timekeeping|"
                    r"sched_|set_next|put_prev|check_preempt|resched|psi_|cpuacct|"
                    r"account_|native_sched_clock|sched_clock|read_tsc|irqtime|"
                    r"vtime|__update|reweight|place_entity|avg_vruntime|__enqueue|"
                    r"__dequeue|select_task|wakeup|hrtick|run_timer|__run_timers|"
                    r"timer_|mod_timer|__mod_timer|del_timer|add_timer|call_timer|"
                    r"asm_sysvec|sysvec_|irq_|__irq|handle_irq|handle_edge|"
                    r"do_idle|cpuidle|default_idle|arch_cpu_idle|cpu_startup|"
                    r"native_safe_halt|mwait|poll_idle|nohz|tick_nohz|"
                    r"calc_global|__calc|do_timer|update_wall|cpu_|notifier)"),
]
GROUP_RE = [(g, re.compile(p)) for g, p in GROUPS]


def group_of(name):
    for g, rx in GROUP_RE:
        if rx.search(name):
            return g
    return "kernel:other"


def read_snap(path, col=1):
    d = {}
    with open(path) as f:
        for line in f:
            p = line.split()
            if p[0] == "gate_calls":
                d["calls"] = int(p[1])
                continue
            d[int(p[0], 16)] = int(p[col]) if col < len(p) else 0
    return d


def read_kallsyms(path):
    syms = []
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) < 3 or p[1] not in "tTwW":
                continue
            syms.append((int(p[0], 16), p[2], p[3].strip("[]") if len(p) > 3 else ""))
    syms.sort()
    return syms


def read_maps(path):
    maps = []
    with open(path) as f:
        for line in f:
            p = line.split()
            if len(p) < 6 or "x" not in p[1]:
                continue
            lo, hi = (int(x, 16) for x in p[0].split("-"))
            maps.append((lo, hi, int(p[2], 16), p[5]))
    return maps


def read_nm(binary):
    out = subprocess.run(["nm", "-C", "--defined-only", binary], capture_output=True,
                         text=True, check=True).stdout
    syms = []
    for line in out.splitlines():
        p = line.split(maxsplit=2)
        if len(p) == 3 and p[1] in "tTwW":
            syms.append((int(p[0], 16), p[2]))
    syms.sort()
    return syms


def main():
    args = [a for a in sys.argv[1:]]
    top, per = 50, 0
    if "--top" in args:
        i = args.index("--top")
        top = int(args[i + 1])
        del args[i:i + 2]
    if "--per" in args:
        i = args.index("--per")
        per = float(args[i + 1])
        del args[i:i + 2]
    col = 1
    if "--gated" in args:
        args.remove("--gated")
        col = 2
    a, b, ks = read_snap(args[0], col), read_snap(args[1], col), read_kallsyms(args[2])
    calls = b.pop("calls", 0) - a.pop("calls", 0)
    if col == 2:
        print("gated windows: %d" % calls)
    maps = read_maps(args[3]) if len(args) > 3 else []
    nm = read_nm(args[4]) if len(args) > 4 else []
    kaddr = [s[0] for s in ks]
    naddr = [s[0] for s in nm]
    fn, grp = {}, {}
    total = 0
    for addr, n in b.items():
        d = n - a.get(addr, 0)
        if d <= 0:
            continue
        total += d
        if addr >= 0xffff800000000000:
            i = bisect.bisect_right(kaddr, addr) - 1
            name = ks[i][1] if i >= 0 else "?"
            mod = ks[i][2] if i >= 0 else ""
            g = group_of(name)
            key = name + (" [%s]" % mod if mod else "")
        else:
            key, g = "user:other", "user:other"
            for lo, hi, off, path in maps:
                if lo <= addr < hi:
                    base = path.rsplit("/", 1)[-1]
                    if base.startswith("tasshape") and nm:
                        j = bisect.bisect_right(naddr, addr - lo + off) - 1
                        key = "ts:" + (nm[j][1] if j >= 0 else "?")
                        g = "user:tasshape"
                    else:
                        key = "lib:" + base
                        g = "user:tasshape-libs"
                    break
        fn[key] = fn.get(key, 0) + d
        grp[g] = grp.get(g, 0) + d

    def row(label, n):
        s = "%-44s %14d %6.2f%%" % (label[:44], n, 100.0 * n / total)
        if per:
            s += " %10.0f" % (n / per)
        return s

    print(row("TOTAL (busy instructions in the window)", total))
    for g, n in sorted(grp.items(), key=lambda x: -x[1]):
        print(row("  " + g, n))
    print()
    for k, n in sorted(fn.items(), key=lambda x: -x[1])[:top]:
        print(row(k, n))


if __name__ == "__main__":
    main()
