/* Devices shaped after the slaves of real ENI files (TwinCAT-style Beckhoff terminals,
 * EC-Engineer Elmo drives): process image sizes as the ENI says, every CoE init command
 * accepted over the mailbox, PREOP -> SAFEOP -> OP with the ENI's SM settings. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>
#include "ecat/eni.h"
#include "test_dev_util.h"

static uint8_t esc[0x1000];

static struct ecat_eni *load(const char *name)
{
    const char *fx = getenv("TAKT_FIXTURES");
    char path[4096], err[256];
    struct ecat_eni *eni = NULL;
    if (!fx)
        return NULL;
    snprintf(path, sizeof path, "%s/eni/%s", fx, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fclose(f);
    if (ecat_eni_load(path, &eni, err, sizeof err))
        fail_msg("%s: %s", name, err);
    return eni;
}

/* One CoE init command as a raw SDO download (expedited, normal or complete access). */
static uint32_t run_coe(struct sim_device *d, const struct ecat_eni_coe *c)
{
    uint8_t m[1100], r[1024];
    size_t n;
    if (c->len <= 4 && !c->complete_access) {
        uint8_t v[4] = { 0 };
        memcpy(v, c->data, c->len);
        n = sdo_msg(m, next_cnt(), (uint8_t)(0x23 | (4 - c->len) << 2), c->index, c->subindex,
                    get_le32(v), NULL, 0);
    } else {
        assert_true(c->len <= 1000);
        n = sdo_msg(m, next_cnt(), c->complete_access ? 0x31 : 0x21, c->index, c->subindex,
                    c->len, c->data, c->len);
    }
    assert_int_equal(d->ops->mbx_write(d, m, n, r, sizeof r, 0), 16);
    return r[8] == 0x80 ? get_le32(r + 12) : 0;
}

static void check_slave(const struct ecat_eni_slave *sl)
{
    char err[256];
    struct sim_device *d = NULL;
    if (sim_device_from_eni(sl, &d, err, sizeof err))
        fail_msg("slave %s: %s", sl->name, err);
    assert_int_equal(get_le32(d->sii + 2 * SII_W_VENDOR), sl->id.vendor);
    assert_int_equal(get_le32(d->sii + 2 * SII_W_PRODUCT), sl->id.product);
    esc_mem_init(esc, d, 0);
    assert_int_equal(al(d, AL_INIT, AL_PREOP, esc), 0);
    for (unsigned i = 0; i < sl->n_coe; i++) {
        const struct ecat_eni_coe *c = &sl->coe[i];
        if (c->ccs != 1)
            continue;
        uint32_t abort = run_coe(d, c);
        if (abort)
            fail_msg("slave %s: CoE init 0x%04X:%02X (%u bytes%s) aborted 0x%08X", sl->name,
                     c->index, c->subindex, c->len, c->complete_access ? ", CA" : "", abort);
    }
    size_t out, in;
    d->ops->pd_sizes(d, &out, &in);
    assert_int_equal(out, (sl->send_bitlen + 7) / 8);
    assert_int_equal(in, (sl->recv_bitlen + 7) / 8);
    set_pd_sm_len(esc, d, SIM_SM_OUTPUTS, (uint16_t)out);
    set_pd_sm_len(esc, d, SIM_SM_INPUTS, (uint16_t)in);
    if (sl->has_dc && sl->assign_activate) {
        esc[ESC_DC_ACTIVATION] = (uint8_t)(sl->assign_activate >> 8);
        put_le32(esc + ESC_DC_SYNC0_CYCLE, sl->cycle0);
    }
    assert_int_equal(al(d, AL_PREOP, AL_SAFEOP, esc), 0);
    assert_int_equal(al(d, AL_SAFEOP, AL_OP, esc), 0);
    uint8_t o[64] = { 0 }, i[64];
    d->ops->process(d, o, out, i, in, 1000000);
    d->ops->destroy(d);
}

static void beckhoff_terminals(void **state)
{
    struct ecat_eni *eni = load("mega_master_eni.xml");
    if (!eni)
        skip();
    assert_int_equal(eni->n_slaves, 4);
    for (unsigned k = 0; k < eni->n_slaves; k++)
        check_slave(&eni->slave[k]);
    /* behaviours follow the shape: coupler, digital out, analog out, digital in */
    struct sim_device_desc *d = malloc(sizeof *d);
    struct sim_od extra;
    char err[128];
    static const char *const want[] = { "coupler", "do", "do", "di" };
    for (unsigned k = 0; k < eni->n_slaves; k++) {
        assert_int_equal(sim_device_desc_from_eni(&eni->slave[k], d, &extra, err, sizeof err), 0);
        assert_string_equal(d->behaviour, want[k]);
        od_free(&extra);
    }
    free(d);
    ecat_eni_free(eni);
}

static void elmo_drives(void **state)
{
    struct ecat_eni *eni = load("rocos-eni4.xml");
    if (!eni)
        skip();
    assert_int_equal(eni->n_slaves, 4);
    for (unsigned k = 0; k < eni->n_slaves; k++)
        check_slave(&eni->slave[k]);
    /* the whole offer the ENI lists (more than the 16 the simulator once held), the
     * assigned ones first in SM order, the rest unassigned */
    char err[256];
    {
        struct sim_device_desc *dd = malloc(sizeof *dd);
        struct sim_od extra;
        unsigned rx = 0, tx = 0;
        for (unsigned i = 0; i < eni->slave[0].n_pdo; i++)
            eni->slave[0].pdo[i].input ? tx++ : rx++;
        assert_true(rx > 16 && tx > 16);
        assert_int_equal(sim_device_desc_from_eni(&eni->slave[0], dd, &extra, err, sizeof err), 0);
        assert_int_equal(dd->n_rxpdo, rx);
        assert_int_equal(dd->n_txpdo, tx);
        assert_int_equal(dd->rxpdo[rx - 1].sm, -1);
        od_free(&extra);
        free(dd);
    }
    /* the drive model runs on the ENI's mapping: enable it and move in csp */
    struct sim_device *d = NULL;
    const struct ecat_eni_slave *sl = &eni->slave[0];
    assert_int_equal(sim_device_from_eni(sl, &d, err, sizeof err), 0);
    assert_string_equal(d->desc->behaviour, "servo");
    esc_mem_init(esc, d, 0);
    assert_int_equal(al(d, AL_INIT, AL_PREOP, esc), 0);
    for (unsigned i = 0; i < sl->n_coe; i++)
        if (sl->coe[i].ccs == 1)
            assert_int_equal(run_coe(d, &sl->coe[i]), 0);
    size_t out, in;
    d->ops->pd_sizes(d, &out, &in);
    set_pd_sm_len(esc, d, SIM_SM_OUTPUTS, (uint16_t)out);
    set_pd_sm_len(esc, d, SIM_SM_INPUTS, (uint16_t)in);
    esc[ESC_DC_ACTIVATION] = 0x03;
    put_le32(esc + ESC_DC_SYNC0_CYCLE, 1000000);
    assert_int_equal(al(d, AL_PREOP, AL_SAFEOP, esc), 0);
    assert_int_equal(al(d, AL_SAFEOP, AL_OP, esc), 0);
    /* image per the ENI: out = cw u16, mode i8, pad?, torque, position, velocity: find
     * the offsets from the variables of this slave instead of assuming them */
    struct sim_od *od = sim_device_od(d);
    od_set_u(od, 0x6060, 0, 8);
    uint8_t o[64] = { 0 }, i[64];
    for (int k = 0; k < 4; k++) {
        static const uint16_t cw[] = { 0x06, 0x07, 0x0F, 0x0F };
        od_set_u(od, 0x6040, 0, cw[k]);
        d->ops->process(d, NULL, 0, i, in, (k + 1) * 1000000);
    }
    assert_int_equal(od_get_u(od, 0x6041, 0) & 0x6F, 0x27);
    od_set_u(od, 0x607A, 0, 500);
    d->ops->process(d, NULL, 0, i, in, 6000000);
    assert_int_equal(od_get_u(od, 0x6064, 0), 500);
    (void)o;
    d->ops->destroy(d);
    ecat_eni_free(eni);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(beckhoff_terminals),
        cmocka_unit_test(elmo_drives),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
