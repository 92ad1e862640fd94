/* Fuzz target: the simulator built from an ENI (`takt sim ecat --eni`,
 * takt_sim_create_eni in src/sim/net_eni.c: the ENI read, each slave a catalogue device
 * or one described from the ENI itself by device_eni.c, the tree from <PreviousPort>),
 * then a BRD, an APRD and an LRW served by it. The input is the ENI file, handed over as
 * a memory file (/proc/self/fd/N); nothing is written to disk. The corpus holds the
 * minimal ENIs of tests/data/eni: PDOs only configured by CoE init commands (device_eni.c
 * builds them from the downloads), a mailbox at 0x4000 (ESC memory sized from the
 * ENI), DC by SYNC init commands. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <libxml/xmlerror.h>
#include <takt/sim.h>
#include "ecat/frame.h"
#include "sim/net.h"

static void quiet(void *ctx, const char *msg, ...) { (void)ctx; (void)msg; }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int fd = -1;
    xmlSetGenericErrorFunc(NULL, quiet);     /* libxml2's own messages: noise here */
    if (fd < 0 && (fd = memfd_create("eni", 0)) < 0)
        abort();
    if (ftruncate(fd, 0) || pwrite(fd, data, size, 0) != (ssize_t)size)
        abort();
    char path[64], err[512] = "";
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    struct takt_sim_opts o;
    takt_sim_opts_default(&o);
    struct takt_sim *s = NULL;
    if (takt_sim_create_eni(path, &o, &s, err, sizeof err)) {
        if (!err[0] || s)
            abort();                         /* a refusal must say why */
        return 0;
    }
    if (!s->n || s->reach > s->n)
        abort();
    static const uint8_t mac[6] = { 0x02, 0, 0, 0, 0, 1 };
    uint8_t buf[TAKT_FRAME_BUF];
    for (int i = 0; i < 3; i++) {
        size_t pos = ecat_frame_begin(buf, mac);
        ecat_frame_add(buf, sizeof buf, &pos, ECAT_BRD, 0, ESC_AL_STATUS << 16, 2, NULL);
        ecat_frame_add(buf, sizeof buf, &pos, ECAT_APRD, 1, (uint32_t)ESC_TYPE << 16, 8, NULL);
        ecat_frame_add(buf, sizeof buf, &pos, ECAT_LRW, 2, 0x10000000u, 64, NULL);
        size_t len = ecat_frame_end(buf, pos);
        takt_sim_process(s, buf, len, sizeof buf, 1000000 + i * 1000000, NULL);
    }
    takt_sim_destroy(s);
    return 0;
}
