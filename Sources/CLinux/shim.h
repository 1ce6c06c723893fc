#ifndef NETBENCH_CLINUX_SHIM_H
#define NETBENCH_CLINUX_SHIM_H
#define _GNU_SOURCE 1
#include <sched.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/prctl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <net/if.h>
#include <linux/if_tun.h>
#include <signal.h>
#include <fcntl.h>
#include <unistd.h>
#include <errno.h>
#endif
