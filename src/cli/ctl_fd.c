/* Files passed with control requests (docs/control.md): a request line may carry one
 * file descriptor (SCM_RIGHTS on its first bytes), opened by the client with its own
 * rights, so that the master never opens a path a client names. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include "cli/ctl.h"

ssize_t ctl_recv_fd(int sock, void *buf, size_t cap, int *passed)
{
    union { struct cmsghdr h; char b[CMSG_SPACE(4 * sizeof(int))]; } cm;
    struct iovec iov = { buf, cap };
    struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cm.b, .msg_controllen = sizeof cm.b };
    ssize_t n = recvmsg(sock, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
    for (struct cmsghdr *h = n > 0 ? CMSG_FIRSTHDR(&mh) : NULL; h; h = CMSG_NXTHDR(&mh, h)) {
        if (h->cmsg_level != SOL_SOCKET || h->cmsg_type != SCM_RIGHTS)
            continue;
        size_t nfd = (h->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t f = 0; f < nfd; f++) {
            int fd;
            memcpy(&fd, CMSG_DATA(h) + f * sizeof fd, sizeof fd);
            if (*passed < 0)
                *passed = fd;        /* one a request: any more are closed at once */
            else
                close(fd);
        }
    }
    return n;
}

int ctl_file_check(int fd, size_t max, size_t *size, char *err, size_t errlen)
{
    struct stat st;
    if (fd < 0) {
        snprintf(err, errlen, "expected a file sent with the request (SCM_RIGHTS), none came");
        return -1;
    }
    if (fstat(fd, &st)) {
        snprintf(err, errlen, "the file sent with the request cannot be examined: %s", strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errlen, "expected a regular file with the request, got another kind (mode 0%o)",
                 (unsigned)(st.st_mode & S_IFMT) >> 12);
        return -1;
    }
    if ((uint64_t)st.st_size > max) {
        snprintf(err, errlen, "the file sent with the request has %lld bytes; at most %zu",
                 (long long)st.st_size, max);
        return -1;
    }
    *size = (size_t)st.st_size;
    return 0;
}
