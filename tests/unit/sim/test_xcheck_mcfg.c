/* Cross-check of two independent implementations: the master's SII parser, PDO layout
 * and CoE client (src/ecat, helper "mcfg") against the simulator's SII builder and
 * CoE server (src/sim). Every catalogue device's SII must parse and lay out to the
 * sizes the device itself computes; every CoE transfer type must complete. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "test_dev_util.h"
#include "ecat/coe.h"
#include "ecat/pdo.h"
#include "ecat/sii.h"

extern const char *const sim_device_names[];

static struct ecat_sii sii;
static struct ecat_pdo_map map;
static uint8_t esc[0x1000];
static char err[256];

static void sii_and_layout(void **state)
{
    (void)state;
    for (unsigned i = 0; sim_device_names[i]; i++) {
        struct sim_device *d = dev_new(sim_device_names[i]);
        int rc = ecat_sii_decode(d->sii, d->sii_len, &sii, ECAT_SII_STRICT, err, sizeof err);
        if (rc)
            fail_msg("%s: %s", sim_device_names[i], err);
        assert_int_equal(sii.id.vendor, d->desc->vendor);
        assert_int_equal(sii.id.product, d->desc->product);
        assert_int_equal(sii.id.revision, d->desc->revision);
        assert_int_equal(sii.n_sm, d->desc->n_sm);
        assert_int_equal(sii.mbx_proto, d->desc->mbx_protocols);
        assert_int_equal(sii.has_general ? sii.gen.coe_details : 0, d->desc->coe_details);
        unsigned n_pdo = 0;
        for (unsigned k = 0; k < sii.n_pdo; k++)
            n_pdo++;
        assert_int_equal(n_pdo, d->desc->n_rxpdo + d->desc->n_txpdo);
        assert_int_equal(sii.n_dc, d->desc->n_dc_opmode);
        for (unsigned k = 0; k < sii.n_dc; k++) {
            assert_int_equal(sii.dc[k].assign_activate, d->desc->dc_opmode[k].assign_activate);
            assert_int_equal(sii.dc[k].cycle0, d->desc->dc_opmode[k].cycle0);
            assert_string_equal(ecat_sii_str(&sii, sii.dc[k].name), d->desc->dc_opmode[k].name);
        }
        /* the layout from SII gives the process data sizes the device computes */
        assert_int_equal(ecat_pdo_map_from_sii(&map, &sii), 0);
        struct ecat_pdo_image img;
        rc = ecat_pdo_layout(&img, &map, NULL, 1, 0, 0, err, sizeof err);
        if (rc)
            fail_msg("%s: %s", sim_device_names[i], err);
        size_t out = 0, in = 0;
        d->ops->pd_sizes(d, &out, &in);
        assert_int_equal(img.slave[0].out_len, out);
        assert_int_equal(img.slave[0].in_len, in);
        ecat_pdo_image_free(&img);
        d->ops->destroy(d);
    }
}

/* Run one transfer of our client against the device's CoE server. */
static int run(struct sim_device *d, struct ecat_coe_xfer *x, struct ecat_coe_req *r,
               struct ecat_mbx_chan *chan, uint16_t mbx)
{
    uint8_t out[1024], in[1024];
    size_t out_len, n = 0;
    r->mbx_out = r->mbx_in = mbx;
    int rc = ecat_coe_xfer_start(x, r, chan, out, mbx, &out_len);
    for (int steps = 0; steps < 1000; steps++) {
        if (rc == ECAT_COE_SEND)
            n = d->ops->mbx_write(d, out, out_len, in, sizeof in, 0);
        else if (rc == ECAT_COE_WAIT)
            n = d->ops->mbx_pending(d, in, sizeof in, 0);
        else
            return rc;
        if (n == 0)
            fail_msg("0x%04X:%02X: the server had no reply (client state %d)", r->index, r->subindex, x->state);
        rc = ecat_coe_xfer_on_reply(x, in, n, out, mbx, &out_len);
    }
    fail_msg("transfer did not end");
    return -1;
}

static void coe_transfers(void **state)
{
    (void)state;
    struct sim_device *d = dev_new("servo");
    esc_mem_init(esc, d, 32);
    assert_int_equal(al(d, AL_INIT, AL_PREOP, esc), 0);
    struct ecat_mbx_chan chan = {0};
    struct ecat_coe_xfer x;
    uint8_t buf[600];
    const uint16_t mbx = 32;           /* small mailboxes force segmented transfers */

    /* expedited upload */
    struct ecat_coe_req r = { .op = ECAT_COE_UPLOAD, .index = 0x1018, .subindex = 1, .data = buf, .cap = sizeof buf };
    assert_int_equal(run(d, &x, &r, &chan, mbx), ECAT_COE_DONE);
    assert_int_equal(x.result_len, 4);
    assert_int_equal(get_le32(buf), d->desc->vendor);
    /* segmented upload of the device name */
    r = (struct ecat_coe_req){ .op = ECAT_COE_UPLOAD, .index = 0x1008, .data = buf, .cap = sizeof buf };
    assert_int_equal(run(d, &x, &r, &chan, mbx), ECAT_COE_DONE);
    assert_true(x.result_len > 32 - 16);
    /* complete access upload of the identity object */
    r = (struct ecat_coe_req){ .op = ECAT_COE_UPLOAD, .index = 0x1018, .complete_access = true, .data = buf, .cap = sizeof buf };
    assert_int_equal(run(d, &x, &r, &chan, mbx), ECAT_COE_DONE);
    assert_true(x.result_len >= 2 + 4 * 4);
    /* expedited download and read back: mode of operation */
    uint8_t mode = 9;
    r = (struct ecat_coe_req){ .op = ECAT_COE_DOWNLOAD, .index = 0x6060, .data = &mode, .len = 1 };
    assert_int_equal(run(d, &x, &r, &chan, mbx), ECAT_COE_DONE);
    r = (struct ecat_coe_req){ .op = ECAT_COE_UPLOAD, .index = 0x6060, .data = buf, .cap = sizeof buf };
    assert_int_equal(run(d, &x, &r, &chan, mbx), ECAT_COE_DONE);
    assert_int_equal(buf[0], 9);
    /* complete access upload of the RxPDO assignment, then download it back (normal +
     * segments through the 32-byte mailbox) */
    r = (struct ecat_coe_req){ .op = ECAT_COE_UPLOAD, .index = 0x1C12, .complete_access = true, .data = buf, .cap = sizeof buf };
    assert_int_equal(run(d, &x, &r, &chan, mbx), ECAT_COE_DONE);
    size_t n = x.result_len;
    uint8_t assign[64];
    memcpy(assign, buf, n);
    r = (struct ecat_coe_req){ .op = ECAT_COE_DOWNLOAD, .index = 0x1C12, .complete_access = true, .data = assign, .len = n };
    int rc = run(d, &x, &r, &chan, mbx);
    if (rc)
        fail_msg("CA download of 0x1C12 (%zu bytes): %s", n, x.msg);
    /* an object that does not exist: the server's abort reaches us with its code */
    r = (struct ecat_coe_req){ .op = ECAT_COE_UPLOAD, .index = 0x5FFF, .data = buf, .cap = sizeof buf };
    rc = run(d, &x, &r, &chan, mbx);
    if (rc != -TAKT_ESDOABORT)
        fail_msg("expected an abort for 0x5FFF, got %d: %s", rc, x.msg);
    assert_int_equal(x.abort_code, 0x06020000);
    d->ops->destroy(d);
}

static void sdo_info(void **state)
{
    (void)state;
    struct sim_device *d = dev_new("servo");
    esc_mem_init(esc, d, 32);
    assert_int_equal(al(d, AL_INIT, AL_PREOP, esc), 0);
    struct ecat_mbx_chan chan = {0};
    struct ecat_coe_xfer x;
    static uint8_t buf[4096];
    /* the object list comes in many fragments through a 32-byte mailbox */
    struct ecat_coe_req r = { .op = ECAT_COE_ODLIST, .list_type = 1, .data = buf, .cap = sizeof buf };
    int rc = run(d, &x, &r, &chan, 32);
    if (rc)
        fail_msg("OD list: %s", x.msg);
    uint16_t lt;
    const uint8_t *first;
    int n = takt_ecat_coe_odlist_parse(buf, x.result_len, &lt, &first);
    assert_true(n > 10);
    assert_int_equal(lt, 1);
    bool has_1018 = false;
    for (int i = 0; i < n; i++)
        has_1018 |= get_le16(first + 2 * i) == 0x1018;
    assert_true(has_1018);
    r = (struct ecat_coe_req){ .op = ECAT_COE_OBJDESC, .index = 0x1018, .data = buf, .cap = sizeof buf };
    assert_int_equal(run(d, &x, &r, &chan, 128), ECAT_COE_DONE);
    struct takt_ecat_coe_objdesc o;
    assert_int_equal(takt_ecat_coe_objdesc_parse(buf, x.result_len, &o), 0);
    assert_int_equal(o.index, 0x1018);
    assert_int_equal(o.obj_code, 9);
    assert_true(o.max_sub >= 4);
    r = (struct ecat_coe_req){ .op = ECAT_COE_ENTRYDESC, .index = 0x1018, .subindex = 1, .data = buf, .cap = sizeof buf };
    assert_int_equal(run(d, &x, &r, &chan, 128), ECAT_COE_DONE);
    struct takt_ecat_coe_entrydesc e;
    assert_int_equal(takt_ecat_coe_entrydesc_parse(buf, x.result_len, &e), 0);
    assert_int_equal(e.data_type, 7);
    assert_int_equal(e.bitlen, 32);
    d->ops->destroy(d);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(sii_and_layout),
        cmocka_unit_test(coe_transfers),
        cmocka_unit_test(sdo_info),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
