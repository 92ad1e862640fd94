/* The blocking forms of the mailbox services (tools only): the _async form started,
 * then its completion waited for. With no RT thread the caller drives the cycle until
 * it comes; from another thread while the RT thread runs the request is posted and the
 * caller sleeps, the transfer's buffer being the waiter's (it outlives a timeout here)
 * and the result copied out when it came. */
#include <errno.h>
#include <string.h>
#include "ecat/driver.h"
#include "ecat/master_internal.h"

static int rt_run(struct takt_ecat_master *drv, const struct ecat_block *b)
{
    struct rt_waiter *rw = rt_waiter_new(b->n);
    if (!rw)
        return -ENOMEM;
    if (b->write && b->n)
        memcpy(rw->buf, b->buf, b->n);    /* the cycle reads it after a timeout here too */
    int rc = ecat_cmd_wait(drv, rw, b->start(drv, b->args, rw->buf, b->n, rt_waiter_done, rw), b->timeout_ns);
    if (!rc && !b->write) {
        size_t n = rw->len < b->n ? rw->len : b->n;
        memcpy(b->buf, rw->buf, n);
        if (b->len)
            *b->len = n;
    }
    rt_waiter_put(rw);
    return rc;
}

int ecat_block_run(struct takt_ecat_master *drv, const struct ecat_block *b)
{
    int mode = ecat_cmd_blocking(drv);
    if (mode)
        return mode < 0 ? mode : rt_run(drv, b);
    struct ecat_wait w = { 0 };
    int rc = b->start(drv, b->args, b->buf, b->n, ecat_wait_done, &w);
    if (rc)
        return rc;
    if ((rc = ecat_wait_drive(drv, &w, b->timeout_ns))) {
        b->forget(&drv->core, &w);
        /* the call's own limit ran out before the service's: said, not an empty error */
        if (rc == -ETIMEDOUT)
            ECAT_FAIL(&drv->core, rc, TAKT_ECAT_EV_CALL_TIMEOUT, -1, b->timeout_ns / TAKT_NS_PER_MS);
        return rc;
    }
    if (b->len && !b->write)
        *b->len = w.len;
    return w.err;
}
