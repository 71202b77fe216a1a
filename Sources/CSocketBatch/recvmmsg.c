// recvmmsg(2) for GripBlueZ's drain of an acquired notify socket (docs/design.md, "Hot path"): one system call for
// a 40 ms batch of notifications instead of one per datagram plus one that finds the queue empty.
#define _GNU_SOURCE
#include <stddef.h>
#include <sys/socket.h>

#include "CSocketBatch.h"

_Static_assert(sizeof(struct griptrack_mmsghdr) == sizeof(struct mmsghdr), "mmsghdr size");
_Static_assert(offsetof(struct griptrack_mmsghdr, msg_len) == offsetof(struct mmsghdr, msg_len), "mmsghdr msg_len");

int griptrack_recvmmsg(int fd, struct griptrack_mmsghdr *messages, unsigned int count, int flags) {
    return recvmmsg(fd, (struct mmsghdr *)messages, count, flags, NULL);
}
