#ifndef NETBENCH_CLINUX_SHIM_H
#define NETBENCH_CLINUX_SHIM_H
#include <errno.h>
#include <sched.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/timerfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <net/if.h>
#include <linux/if_tun.h>
#include <signal.h>
#include <fcntl.h>
#include <unistd.h>
#include <spawn.h>
#include <errno.h>
#include <string.h>
#include <time.h>

// Declared by glibc only under _GNU_SOURCE, which would make this module's view of the C headers
// disagree with Swift's Glibc module; the prototypes are the kernel ABI and do not change.
extern int setns(int fd, int nstype);
extern int pipe2(int pipefd[2], int flags);
// glibc 2.35 declares it only under _GNU_SOURCE (see above): a child made the terminal's foreground.
extern int posix_spawn_file_actions_addtcsetpgrp_np(posix_spawn_file_actions_t *actions, int tcfd);
extern int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);
extern int epoll_pwait2(int epfd, struct epoll_event *events, int maxevents,
                        const struct timespec *timeout, const sigset_t *sigmask);
#ifndef CLONE_NEWNET
#define CLONE_NEWNET 0x40000000
#endif
static const int netbench_clone_newnet = CLONE_NEWNET;

// TUNSETIFF is a function-like _IOW macro: Swift cannot import it.
static inline unsigned long netbench_tunsetiff(void) { return TUNSETIFF; }
// TUNSETOFFLOAD and TUNSETVNETHDRSZ are _IOW macros too (offloads of a TUN opened with IFF_VNET_HDR).
static inline unsigned long netbench_tunsetoffload(void) { return TUNSETOFFLOAD; }
static inline unsigned long netbench_tunsetvnethdrsz(void) { return TUNSETVNETHDRSZ; }

// ioctl is variadic in C; Swift imports no variadic functions.
static inline int netbench_ioctl_ptr(int fd, unsigned long request, void *arg) { return ioctl(fd, request, arg); }

// fcntl is variadic in C.
static inline int netbench_fcntl_int(int fd, int cmd, int arg) { return fcntl(fd, cmd, arg); }

// open is variadic in C (mode).
static inline int netbench_open(const char *path, int flags) { return open(path, flags); }

// prctl is variadic in C.
static inline int netbench_prctl_timerslack(unsigned long ns) { return prctl(PR_SET_TIMERSLACK, ns, 0, 0, 0); }

// errno is a macro over a thread-local lvalue.
static inline int netbench_errno(void) { return errno; }

// struct ifreq's name field sits in a union; fill it from C to keep Swift free of the layout.
static inline void netbench_ifreq_init(struct ifreq *ifr, const char *name, short flags) {
    memset(ifr, 0, sizeof(*ifr));
    strncpy(ifr->ifr_name, name, IFNAMSIZ - 1);
    ifr->ifr_flags = flags;
}
static inline const char *netbench_ifreq_name(const struct ifreq *ifr) { return ifr->ifr_name; }

// epoll_pwait2 takes a nanosecond timespec; glibc 2.35+ has it, older ones, kernels before 5.11 and
// valgrind return ENOSYS: then epoll_wait with the timeout rounded up to whole milliseconds.
static int netbench_epoll_pwait2_missing = 0;
static inline int netbench_epoll_pwait2_ns(int epfd, struct epoll_event *events, int maxevents, long long timeout_ns) {
    if (!netbench_epoll_pwait2_missing) {
        int r;
        if (timeout_ns < 0) {
            r = epoll_pwait2(epfd, events, maxevents, NULL, NULL);
        } else {
            struct timespec ts = { .tv_sec = timeout_ns / 1000000000LL, .tv_nsec = timeout_ns % 1000000000LL };
            r = epoll_pwait2(epfd, events, maxevents, &ts, NULL);
        }
        if (r >= 0 || errno != ENOSYS) return r;
        netbench_epoll_pwait2_missing = 1;
    }
    long long ms = timeout_ns < 0 ? -1 : (timeout_ns + 999999LL) / 1000000LL;
    return epoll_wait(epfd, events, maxevents, ms > 2147483647LL ? 2147483647 : (int)ms);
}

// SOCK_NONBLOCK / SOCK_CLOEXEC are enum values in some libcs and macros in others.
static inline int netbench_sock_nonblock_cloexec(void) { return SOCK_NONBLOCK | SOCK_CLOEXEC; }
static inline int netbench_sock_stream(void) { return SOCK_STREAM; }
static inline int netbench_sock_dgram(void) { return SOCK_DGRAM; }
// UDP segmentation offload (GSO) and receive coalescing (GRO), Linux 4.18 / 5.0. The constants are
// missing from older libc headers; the values are the kernel ABI (include/uapi/linux/udp.h).
#include <stdint.h>
#ifndef SOL_UDP
#define SOL_UDP 17
#endif
#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif
static const int netbench_sol_udp = SOL_UDP;
static const int netbench_udp_gro = UDP_GRO;

// Control messages of a UDP socket (CMSG_* are macros): what sendmsg may carry and recvmsg may
// return. Kept apart from the calls so that tests can encode and decode them without a socket.
//
// Writes into `control` (`capacity` bytes, cmsghdr-aligned) a UDP_SEGMENT message when `segment` is
// > 0 and an IP_TOS message (an int, as ip_cmsg_send expects) when `tos` is >= 0. Returns the bytes
// used (msg_controllen), or -1 when they do not fit.
static inline long netbench_cmsg_encode(void *control, size_t capacity, uint16_t segment, int tos) {
    struct msghdr msg;
    memset(&msg, 0, sizeof(msg));
    size_t need = (segment > 0 ? CMSG_SPACE(sizeof(uint16_t)) : 0) + (tos >= 0 ? CMSG_SPACE(sizeof(int)) : 0);
    if (need == 0) return 0;
    if (need > capacity) return -1;
    memset(control, 0, need);
    msg.msg_control = control;
    msg.msg_controllen = need;
    struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
    if (segment > 0) {
        cm->cmsg_level = SOL_UDP;
        cm->cmsg_type = UDP_SEGMENT;
        cm->cmsg_len = CMSG_LEN(sizeof(uint16_t));
        memcpy(CMSG_DATA(cm), &segment, sizeof(segment));
        cm = CMSG_NXTHDR(&msg, cm);
    }
    if (tos >= 0) {
        cm->cmsg_level = IPPROTO_IP;
        cm->cmsg_type = IP_TOS;
        cm->cmsg_len = CMSG_LEN(sizeof(int));
        memcpy(CMSG_DATA(cm), &tos, sizeof(int));
    }
    return (long)need;
}

// Reads the messages recvmsg returned in `control` (`len` bytes): the UDP_GRO segment size
// (`*segment`, 0 when absent), the SO_TIMESTAMPNS receive time (`*stamp`, CLOCK_REALTIME ns, 0 when
// absent) and the IP_TOS byte of an IP_RECVTOS socket (`*tos`, -1 when absent; the kernel sends one
// byte).
static inline void netbench_cmsg_decode(const void *control, size_t len, int *segment, int64_t *stamp, int *tos) {
    struct msghdr msg;
    memset(&msg, 0, sizeof(msg));
    msg.msg_control = (void *)control;
    msg.msg_controllen = len;
    *segment = 0;
    *stamp = 0;
    *tos = -1;
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
        if (cm->cmsg_level == SOL_UDP && cm->cmsg_type == UDP_GRO) memcpy(segment, CMSG_DATA(cm), sizeof(int));
        if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_TIMESTAMPNS) {
            struct timespec ts;
            memcpy(&ts, CMSG_DATA(cm), sizeof(ts));
            *stamp = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
        }
        if (cm->cmsg_level == IPPROTO_IP && cm->cmsg_type == IP_TOS) {
            *tos = *(const unsigned char *)CMSG_DATA(cm);
        }
    }
}

// Room for what netbench_cmsg_encode writes and what the receiving socket asks for.
#define NETBENCH_CMSG_CAPACITY (CMSG_SPACE(sizeof(int)) + CMSG_SPACE(sizeof(struct timespec)) + CMSG_SPACE(sizeof(int)))
static const int netbench_cmsg_capacity = NETBENCH_CMSG_CAPACITY;
static const int netbench_ip_recvtos = IP_RECVTOS;
static const int netbench_ip_tos = IP_TOS;

// sendmsg(2) of `len` bytes to `to`, which the kernel cuts into datagrams of `segment` bytes (the
// last may be shorter) when `segment` is > 0 and < `len` (a UDP_SEGMENT control message), each
// with the TOS byte `tos` when it is >= 0 (an IP_TOS control message: the ECN codepoint). Returns
// what sendmsg returns.
static inline long netbench_sendmsg_segmented(int fd, const void *buf, size_t len, uint16_t segment, int tos,
                                              const struct sockaddr_in *to) {
    struct iovec iov = { .iov_base = (void *)buf, .iov_len = len };
    union { char bytes[NETBENCH_CMSG_CAPACITY]; struct cmsghdr align; } control;
    struct msghdr msg;
    memset(&msg, 0, sizeof(msg));
    msg.msg_name = (void *)to;
    msg.msg_namelen = sizeof(*to);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    long used = netbench_cmsg_encode(control.bytes, sizeof(control.bytes), (segment > 0 && len > segment) ? segment : 0,
                                     tos);
    if (used > 0) {
        msg.msg_control = control.bytes;
        msg.msg_controllen = (size_t)used;
    }
    return sendmsg(fd, &msg, MSG_NOSIGNAL);
}

// recvmsg(2) that also reports the control messages (see netbench_cmsg_decode): after UDP_GRO is
// enabled the kernel may hand over several datagrams of `*segment` bytes (the last may be shorter)
// in one buffer; `*segment` is 0 when it did not coalesce. Returns what recvmsg returns.
static inline long netbench_recvmsg_coalesced(int fd, void *buf, size_t len, struct sockaddr_in *from,
                                              int *segment, int64_t *stamp, int *tos) {
    struct iovec iov = { .iov_base = buf, .iov_len = len };
    union { char bytes[NETBENCH_CMSG_CAPACITY]; struct cmsghdr align; } control;
    struct msghdr msg;
    memset(&msg, 0, sizeof(msg));
    msg.msg_name = from;
    msg.msg_namelen = sizeof(*from);
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.bytes;
    msg.msg_controllen = sizeof(control.bytes);
    *segment = 0;
    *stamp = 0;
    *tos = -1;
    long n = recvmsg(fd, &msg, 0);
    if (n < 0) return n;
    netbench_cmsg_decode(control.bytes, msg.msg_controllen, segment, stamp, tos);
    return n;
}

// The sender-side counters of a TCP socket that glibc's `struct tcp_info` (netinet/tcp.h) stops short
// of: the kernel's struct has grown since (bytes_sent, bytes_retrans, min_rtt…). Including
// linux/tcp.h beside netinet/tcp.h redefines tcp_info, so the prefix of the kernel ABI layout
// (include/uapi/linux/tcp.h, append-only) is declared here under our own name; getsockopt fills as
// much of it as the running kernel knows and says how much in `len`.
struct netbench_tcp_info {
    uint8_t state, ca_state, retransmits, probes, backoff, options, wscale, app_limited_bits;
    uint32_t rto, ato, snd_mss, rcv_mss, unacked, sacked, lost, retrans, fackets;
    uint32_t last_data_sent, last_ack_sent, last_data_recv, last_ack_recv;
    uint32_t pmtu, rcv_ssthresh, rtt, rttvar, snd_ssthresh, snd_cwnd, advmss, reordering;
    uint32_t rcv_rtt, rcv_space, total_retrans;
    uint64_t pacing_rate, max_pacing_rate, bytes_acked, bytes_received;
    uint32_t segs_out, segs_in, notsent_bytes, min_rtt, data_segs_in, data_segs_out;
    uint64_t delivery_rate, busy_time, rwnd_limited, sndbuf_limited;
    uint32_t delivered, delivered_ce;
    uint64_t bytes_sent, bytes_retrans;
    uint32_t dsack_dups, reord_seen;
};

#include <stddef.h>
// The bytes a kernel must fill for bytes_sent/bytes_retrans to be there (Linux 4.19+).
static inline int netbench_tcp_info_required(void) { return (int)offsetof(struct netbench_tcp_info, dsack_dups); }

/// getsockopt(TCP_INFO) into the layout above; returns the bytes the kernel filled, or -1.
static inline int netbench_tcp_info(int fd, struct netbench_tcp_info *info) {
    memset(info, 0, sizeof(*info));
    socklen_t len = sizeof(*info);
    if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, info, &len) != 0) return -1;
    return (int)len;
}

// tcpi_options bit of a connection that negotiated ECN (a macro in netinet/tcp.h).
#ifndef TCPI_OPT_ECN
#define TCPI_OPT_ECN 8
#endif
static const int netbench_tcpi_opt_ecn = TCPI_OPT_ECN;

// Bytes a TCP socket holds that it has not sent yet (ioctl SIOCOUTQNSD, Linux 4.4+; the value is
// the kernel ABI of include/uapi/linux/sockios.h). -1 on error.
#ifndef SIOCOUTQNSD
#define SIOCOUTQNSD 0x894B
#endif
static inline int netbench_unsent_bytes(int fd) {
    int n = 0;
    return ioctl(fd, SIOCOUTQNSD, &n) == 0 ? n : -1;
}

// A packet tap on one device (AF_PACKET, SOCK_DGRAM: the network-layer packet, as a TUN carries it)
// that keeps only what the host sends into the device (PACKET_OUTGOING), cut to `snaplen` bytes, each
// stamped by the kernel as it went to the device (SO_TIMESTAMPNS). A classic BPF filter does both the
// selection and the cut, in the kernel, before anything is queued; the socket is created listening to
// no protocol and bound to ETH_P_ALL on the device only after the filter is in place, so nothing
// unfiltered is ever queued. Non-blocking. Returns the descriptor, or -1 with errno set.
#include <netpacket/packet.h>
#include <linux/filter.h>
#include <linux/if_ether.h>
static inline int netbench_packet_tap_open(int ifindex, int snaplen, int receive_buffer) {
    int fd = socket(AF_PACKET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) return -1;
    struct sock_filter code[] = {
        { BPF_LD | BPF_W | BPF_ABS, 0, 0, (unsigned int)(SKF_AD_OFF + SKF_AD_PKTTYPE) },
        { BPF_JMP | BPF_JEQ | BPF_K, 0, 1, PACKET_OUTGOING },
        { BPF_RET | BPF_K, 0, 0, (unsigned int)snaplen },
        { BPF_RET | BPF_K, 0, 0, 0 },
    };
    struct sock_fprog program = { .len = 4, .filter = code };
    int on = 1;
    struct sockaddr_ll address;
    memset(&address, 0, sizeof(address));
    address.sll_family = AF_PACKET;
    address.sll_protocol = htons(ETH_P_ALL);
    address.sll_ifindex = ifindex;
    if (setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &program, sizeof(program)) != 0
        || setsockopt(fd, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof(on)) != 0
        || setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &receive_buffer, sizeof(receive_buffer)) != 0
        || bind(fd, (struct sockaddr *)&address, sizeof(address)) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

// One packet from a tap: copies at most `len` bytes, sets `*length` to the length the tap kept
// (MSG_TRUNC) and `*stamp` to the kernel's time (CLOCK_REALTIME ns, 0 when none). Returns the bytes
// copied, or -1 with errno set (EAGAIN: nothing waiting).
static inline long netbench_packet_tap_read(int fd, void *buf, size_t len, long *length, int64_t *stamp) {
    struct iovec iov = { .iov_base = buf, .iov_len = len };
    union { char bytes[NETBENCH_CMSG_CAPACITY]; struct cmsghdr align; } control;
    struct msghdr msg;
    memset(&msg, 0, sizeof(msg));
    msg.msg_iov = &iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.bytes;
    msg.msg_controllen = sizeof(control.bytes);
    long n = recvmsg(fd, &msg, MSG_TRUNC | MSG_DONTWAIT);
    if (n < 0) return n;
    int segment, tos;
    netbench_cmsg_decode(control.bytes, msg.msg_controllen, &segment, stamp, &tos);
    *length = n;
    return n < (long)len ? n : (long)len;
}

#endif
