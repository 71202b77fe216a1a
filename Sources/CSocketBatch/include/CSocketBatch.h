#ifndef GRIPTRACK_CSOCKETBATCH_H
#define GRIPTRACK_CSOCKETBATCH_H

#include <sys/socket.h>

/// `struct mmsghdr`, spelled out: Swift's Glibc module is built without _GNU_SOURCE, so it has neither the struct
/// nor recvmmsg(2). The layout is checked against the real one in recvmmsg.c.
struct griptrack_mmsghdr {
    struct msghdr msg_hdr;
    unsigned int msg_len;
};

/// recvmmsg(2) without a timeout: receives up to `count` datagrams in one system call. Returns how many were
/// received (fewer than `count` with MSG_DONTWAIT when the queue ran empty), or -1 with errno set.
int griptrack_recvmmsg(int fd, struct griptrack_mmsghdr *messages, unsigned int count, int flags);

#endif
