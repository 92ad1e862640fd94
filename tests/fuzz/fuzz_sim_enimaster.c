/* Fuzz target: the master's ENI-driven start-up and cycle against replies it did not
 * expect (master_eni.c, eni_exec.c: the ENI's register and CoE init commands with their
 * validation and retries, eni_cyclic.c: its cyclic frames judged by Cnt). The simulator
 * built from an ENI answers a fresh master that scans, takes the same ENI and goes to
 * OP on a clock of 1 ms per cycle; every reply first passes the operation the input
 * gives it (tamper.h: drop, twice, held back, a byte or WKC changed, cut short); an event
 * byte resets a slave's ESC (a power cycle). Byte 0 picks the ENI: an output slave
 * described by the ENI alone and started by its register init commands (validated
 * read-backs), with DC and the ENI's cyclic frames, or a catalogue coupler and input
 * terminal that takt lays out, or one of the minimal ENIs of tests/data/eni (read from
 * the source tree next to this file; the first ENI when absent): DC set up by the
 * ENI's own SYNC commands and cyclic ARMW without the DC option, a slave without PDO
 * descriptions configured over CoE, a mailbox at 0x4000/0x4800. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <takt/ecat.h>
#include <takt/sim.h>
#include "ecat/driver.h"
#include "fuzz/tamper.h"
#include "sim/esc.h"
#include "sim/net.h"

#define CYCLES 500

/* One output slave described by the ENI alone, started by the ENI's register init
 * commands (validated read-backs with timeouts), DC, and cyclic frames as the ENI lays
 * them out: an LWR at its logical address, the AL status BRD (test_master_eni.c). */
static const char out_eni[] =
"<?xml version=\"1.0\"?>\n"
"<EtherCATConfig><Config>\n"
"<Master><Info><Name>t</Name><Destination>ffffffffffff</Destination><Source>020000000001</Source>"
"<EtherType>a488</EtherType></Info>\n"
"<InitCmds>\n"
"<InitCmd><Transition>IP</Transition><BeforeSlave>true</BeforeSlave><Comment>clear fmmu</Comment>"
"<Cmd>8</Cmd><Adp>0</Adp><Ado>1536</Ado><DataLength>32</DataLength></InitCmd>\n"
"</InitCmds></Master>\n"
"<Slave><Info><Name>Out (X1)</Name><PhysAddr>1001</PhysAddr><AutoIncAddr>0</AutoIncAddr>"
"<VendorId>2457</VendorId><ProductCode>1</ProductCode><RevisionNo>1</RevisionNo></Info>\n"
"<ProcessData><Send><BitStart>8</BitStart><BitLength>8</BitLength></Send>\n"
"<Sm2><Type>Outputs</Type><DefaultSize>1</DefaultSize><StartAddress>4096</StartAddress>"
"<ControlByte>100</ControlByte><Enable>1</Enable><Pdo>5632</Pdo></Sm2>\n"
"<RxPdo Fixed=\"1\" Sm=\"2\"><Index>#x1600</Index><Name>Out</Name><Entry><Index>#x7000</Index>"
"<SubIndex>1</SubIndex><BitLen>8</BitLen><Name>Value</Name><DataType>USINT</DataType></Entry></RxPdo>\n"
"</ProcessData>\n"
"<InitCmds>\n"
"<InitCmd><Transition>IP</Transition><Comment>set physical address</Comment><Cmd>2</Cmd><Adp>0</Adp>"
"<Ado>16</Ado><Data>e903</Data><Cnt>1</Cnt><Retries>3</Retries></InitCmd>\n"
"<InitCmd><Transition>IP</Transition><Comment>request PREOP</Comment><Cmd>5</Cmd><Adp>1001</Adp>"
"<Ado>288</Ado><Data>0200</Data><Cnt>1</Cnt><Timeout>3000</Timeout></InitCmd>\n"
"<InitCmd><Transition>IP</Transition><Comment>check PREOP</Comment><Cmd>4</Cmd><Adp>1001</Adp>"
"<Ado>304</Ado><Data>0000</Data><Cnt>1</Cnt><Validate><Data>0200</Data><DataMask>1f00</DataMask>"
"<Timeout>3000</Timeout></Validate></InitCmd>\n"
"<InitCmd><Transition>PS</Transition><Comment>set sm 2 (outputs)</Comment><Cmd>5</Cmd><Adp>1001</Adp>"
"<Ado>2064</Ado><Data>0010010064000100</Data><Cnt>1</Cnt><Retries>3</Retries></InitCmd>\n"
"<InitCmd><Transition>PS</Transition><Comment>check sm 2</Comment><Cmd>4</Cmd><Adp>1001</Adp>"
"<Ado>2064</Ado><Data>0000000000000000</Data><Cnt>1</Cnt><Validate><Data>0010010064000100</Data>"
"<DataMask>ffffffffff00ff00</DataMask><Timeout>200</Timeout></Validate></InitCmd>\n"
"<InitCmd><Transition>PS</Transition><Comment>set fmmu 0 (outputs)</Comment><Cmd>5</Cmd><Adp>1001</Adp>"
"<Ado>1536</Ado><Data>0100010001000007001000020100000000</Data><Cnt>1</Cnt></InitCmd>\n"
"<InitCmd><Transition>PS</Transition><Comment>request SAFEOP</Comment><Cmd>5</Cmd><Adp>1001</Adp>"
"<Ado>288</Ado><Data>0400</Data><Cnt>1</Cnt></InitCmd>\n"
"<InitCmd><Transition>PS</Transition><Comment>check SAFEOP</Comment><Cmd>4</Cmd><Adp>1001</Adp>"
"<Ado>304</Ado><Data>0000</Data><Cnt>1</Cnt><Validate><Data>0400</Data><DataMask>1f00</DataMask>"
"<Timeout>3000</Timeout></Validate></InitCmd>\n"
"<InitCmd><Transition>SO</Transition><Comment>request OP</Comment><Cmd>5</Cmd><Adp>1001</Adp>"
"<Ado>288</Ado><Data>0800</Data><Cnt>1</Cnt></InitCmd>\n"
"<InitCmd><Transition>SO</Transition><Comment>check OP</Comment><Cmd>4</Cmd><Adp>1001</Adp>"
"<Ado>304</Ado><Data>0000</Data><Cnt>1</Cnt><Validate><Data>0800</Data><DataMask>1f00</DataMask>"
"<Timeout>3000</Timeout></Validate></InitCmd>\n"
"</InitCmds><DC><ReferenceClock>1</ReferenceClock><CycleTime0>1000000</CycleTime0>"
"<AssignActivate>#x0300</AssignActivate></DC></Slave>\n"
"<Cyclic><CycleTime>1000</CycleTime><Frame>\n"
"<Cmd><State>SAFEOP</State><State>OP</State><Comment>outputs</Comment><Cmd>11</Cmd><Addr>65536</Addr>"
"<DataLength>2</DataLength><Cnt>1</Cnt><InputOffs>0</InputOffs><OutputOffs>0</OutputOffs></Cmd>\n"
"<Cmd><State>PREOP</State><State>SAFEOP</State><State>OP</State><Cmd>7</Cmd><Adp>0</Adp><Ado>304</Ado>"
"<DataLength>2</DataLength><Cnt>1</Cnt><InputOffs>2</InputOffs><OutputOffs>2</OutputOffs></Cmd>\n"
"</Frame></Cyclic>\n"
"<ProcessImage><Inputs><ByteSize>4</ByteSize></Inputs><Outputs><ByteSize>4</ByteSize><Variable>"
"<Name>Out (X1).Out.Value</Name><DataType>USINT</DataType><BitSize>8</BitSize><BitOffs>8</BitOffs>"
"</Variable></Outputs></ProcessImage>\n"
"</Config></EtherCATConfig>\n";

/* takt's catalogue EK1100 and EL1004 (data/esi): identities only, takt lays out. */
static const char io_eni[] =
"<?xml version=\"1.0\"?>\n<EtherCATConfig><Config>\n"
"<Master><Info><Name>m</Name><Destination>ffffffffffff</Destination><Source>020000000001</Source>"
"<EtherType>a488</EtherType></Info></Master>\n"
"<Slave><Info><Name>Coupler</Name><PhysAddr>1001</PhysAddr><AutoIncAddr>0</AutoIncAddr><VendorId>#x746b74"
"</VendorId><ProductCode>#x10001</ProductCode><RevisionNo>#x10000</RevisionNo></Info></Slave>\n"
"<Slave><Info><Name>DI</Name><PhysAddr>1002</PhysAddr><AutoIncAddr>65535</AutoIncAddr><VendorId>#x746b74"
"</VendorId><ProductCode>#x20001</ProductCode><RevisionNo>#x10000</RevisionNo></Info></Slave>\n"
"</Config></EtherCATConfig>\n";

struct rig {
    struct takt_sim *sim;
    struct takt_link *a, *b;
    struct tamper t;
    takt_ns_t now;
};

static takt_ns_t clk(void *ctx) { return ((struct rig *)ctx)->now; }

static void respond(void *ctx, struct takt_link *ep, const struct takt_frame *f)
{
    struct rig *g = ctx;
    uint8_t buf[TAKT_FRAME_BUF];
    if (f->len > sizeof buf)
        return;
    memcpy(buf, f->data, f->len);
    size_t n = takt_sim_process(g->sim, buf, f->len, sizeof buf, g->now, NULL);
    if (!n)
        return;
    struct takt_frame r = { .data = buf, .len = (uint16_t)n, .cap = sizeof buf };
    unsigned ev = tamper_reply(&g->t, ep, &r);
    if (ev)
        esc_reset(&g->sim->sl[(ev - 1) % g->sim->n].esc, g->now);    /* power cycle */
}

static const char *const data_enis[] = { "dc_sync.xml", "no_pdo_coe.xml", "mailbox_4000.xml" };
#define N_ENI (2 + sizeof data_enis / sizeof data_enis[0])

/* tests/data/eni/NAME beside tests/fuzz/ (this file's directory), -1 if unreadable */
static int data_file(const char *name)
{
    char p[1024];
    const char *slash = strrchr(__FILE__, '/');
    snprintf(p, sizeof p, "%.*s/../data/eni/%s", slash ? (int)(slash - __FILE__) : 1,
             slash ? __FILE__ : ".", name);
    return open(p, O_RDONLY);
}

static int eni_file(const char *text)
{
    int fd = memfd_create("eni", 0);
    if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text))
        abort();
    return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static int fd[N_ENI] = { -1, -1 };
    static struct takt_sim *sims[N_ENI];
    static struct rig g;
    char path[64], err[512];
    if (fd[0] < 0) {
        fd[0] = eni_file(out_eni);
        fd[1] = eni_file(io_eni);
        for (unsigned k = 2; k < N_ENI; k++)
            if ((fd[k] = data_file(data_enis[k - 2])) < 0)
                fd[k] = fd[0];
    }
    memset(&g, 0, sizeof g);
    g.t.in = data;
    g.t.n = size;
    unsigned which = tamper_take(&g.t) % N_ENI;
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd[which]);
    /* built once per ENI (the catalogue is read from its ESI files); power-on reset
     * before each input */
    if (!sims[which]) {
        struct takt_sim_opts so;
        takt_sim_opts_default(&so);
        so.seed = 1;
        if (takt_sim_create_eni(path, &so, &sims[which], err, sizeof err))
            abort();
    }
    g.sim = sims[which];
    for (unsigned k = 0; k < g.sim->n; k++)
        esc_reset(&g.sim->sl[k].esc, 0);
    g.sim->reach = g.sim->n;
    sim_net_topology(g.sim, 0);
    g.now = 1000 * TAKT_NS_PER_S;
    if (takt_link_mem_pair(&g.a, &g.b, 256, clk, &g))
        abort();
    takt_link_mem_set_responder(g.b, respond, &g);
    struct takt_ecat_master_opts o;
    takt_ecat_master_opts_default(&o);
    o.max_slaves = 4;
    o.dc = which == 0;
    struct takt_ecat_master *m;
    if (takt_ecat_master_open(&m, g.a, &o, err, sizeof err))
        abort();
    ecat_scan_start(&m->core, g.now);
    int stage = 0;                       /* 0 scan, 1 ENI taken, 2 OP requested */
    unsigned in_op = 0;
    for (g.t.cycle = 0; g.t.cycle < CYCLES && in_op < 30; g.t.cycle++) {
        tamper_release(&g.t, g.b);
        m->core.rx_deadline = g.now - 1;
        takt_ecat_master_cycle(m, g.now);
        m->core.rx_deadline = 0;
        if (stage == 0 && m->core.scan.done && m->core.scan.state == MF_IDLE)
            stage = takt_ecat_master_configure_eni(m, path) == 0 ? 1 : 3;
        else if (stage == 1)
            stage = takt_ecat_master_request_state(m, AL_OP) == 0 ? 2 : 3;
        if (takt_ecat_master_state(m) == AL_OP && g.t.pos >= g.t.n)
            in_op++;
        g.now += TAKT_NS_PER_MS;
    }
    char ev[256];
    bool trace = getenv("TAKT_FUZZ_TRACE");
    while (takt_ecat_master_next_event(m, ev, sizeof ev))
        if (trace)
            fprintf(stderr, "  %s\n", ev);
    struct takt_ecat_master_stats st;
    takt_ecat_master_get_stats(m, &st);
    if (st.frames_late > st.frames_lost || st.frames_received + st.frames_lost > st.frames_sent)
        abort();
    if (getenv("TAKT_FUZZ_TRACE") && stage == 3)
        fprintf(stderr, "%s\n", takt_ecat_master_error(m));
    if (getenv("TAKT_FUZZ_TRACE"))
        fprintf(stderr, "eni %u stage %d cycles %u state 0x%02x sent %llu received %llu lost %llu\n", which,
                stage, g.t.cycle, takt_ecat_master_state(m), (unsigned long long)st.frames_sent,
                (unsigned long long)st.frames_received, (unsigned long long)st.frames_lost);
    takt_ecat_master_close(m);
    takt_link_close(g.a);
    takt_link_close(g.b);
    return 0;
}
