/* SII EEPROM interface of the software ESC (ETG.1000.4 SII access, registers 0x0500-0x050F): read of
 * 4 or 8 bytes, word write with write enable, reload, busy and error bits, and the
 * power-on load of alias and PDI configuration with its checksum check. */
#include <string.h>
#include "sim/esc.h"
#include "util/wire.h"

static uint16_t sii_word(const struct sim_esc *e, uint32_t w)
{
    /* Past the end of the EEPROM the interface reads 0xFFFF (as KickCAT's emulated ESC does). */
    if ((size_t)w * 2 + 1 >= e->sii_bytes)
        return 0xFFFF;
    return get_le16(e->sii + (size_t)w * 2);
}

static void set_ctrl(struct sim_esc *e, uint16_t v) { put_le16(e->mem + ESC_SII_CTRL, v); }

void esc_sii_load(struct sim_esc *e)
{
    uint16_t ctrl = esc_reg16(e, ESC_SII_CTRL) & ~(SII_ERR_CSUM | SII_ERR_LOAD);
    if (e->sii_bytes < 16) {
        set_ctrl(e, ctrl | SII_ERR_LOAD);
        return;
    }
    if (ecat_sii_crc(e->sii, 14) != e->sii[14]) {
        /* A bad checksum leaves the configuration area unloaded (ESC datasheet). */
        set_ctrl(e, ctrl | SII_ERR_CSUM);
        return;
    }
    set_ctrl(e, ctrl);
    put_le16(e->mem + ESC_STATION_ALIAS, sii_word(e, SII_W_ALIAS));
    uint16_t w0 = sii_word(e, SII_W_PDI_CTRL);
    e->mem[ESC_PDI_CONTROL] = (uint8_t)w0;
    e->mem[ESC_ESC_CONFIG] = (uint8_t)(w0 >> 8);
}

/* The master wrote 0x0500 (ESC datasheet Section I 11.2, ETG.1000.4 SII access): bit 0 offers the
 * EEPROM to the PDI, bit 1 forces it back to EtherCAT (resets 0x0501 bit 0). The
 * simulated firmware takes an offered EEPROM at once (0x0501 bit 0, "PDI has EEPROM
 * control"), gives it back when the offer ends and, once forced off, waits for the
 * next offer (0x0500 bit 0 going 0 -> 1). */
void esc_sii_owner(struct sim_esc *e, uint8_t old, uint8_t written)
{
    bool offered = written & 0x01, force = written & 0x02;
    uint8_t pdi = e->mem[ESC_SII_PDI] & 0x01;
    if (force || !offered)
        pdi = 0;
    else if (!(old & 0x01))
        pdi = 1;
    e->mem[ESC_SII_PDI] = pdi;
}

/* EtherCAT has the EEPROM unless it is offered to the PDI and the PDI took it. */
static bool pdi_owns(const struct sim_esc *e)
{
    return (e->mem[ESC_SII_CONFIG] & 0x01) && (e->mem[ESC_SII_PDI] & 0x01);
}

/* A write to 0x0502/0x0503 was stored: start the command, finished at the end of the
 * frame (esc_sii_complete) so the busy bit is visible meanwhile. */
void esc_sii_command(struct sim_esc *e)
{
    uint16_t ctrl = esc_reg16(e, ESC_SII_CTRL);
    uint16_t cmd = ctrl & SII_CMD_MASK;
    if (e->sii_cmd_pending)
        return;                     /* busy: the interface ignores new commands */
    if (pdi_owns(e)) {
        set_ctrl(e, (uint16_t)(ctrl & ~(SII_CMD_MASK | SII_WRITE_EN)));
        return;                     /* the PDI owns the EEPROM: ECAT commands ignored */
    }
    if (!cmd) {
        /* NOP clears the error bits (ESC datasheet Section II, register 0x0502). */
        set_ctrl(e, (uint16_t)(ctrl & ~(SII_ERR_ACK | SII_ERR_WE)));
        return;
    }
    if (cmd != SII_CMD_READ && cmd != SII_CMD_WRITE && cmd != SII_CMD_RELOAD) {
        set_ctrl(e, (uint16_t)((ctrl & ~(SII_CMD_MASK | SII_WRITE_EN)) | SII_ERR_ACK));
        return;
    }
    ctrl &= (uint16_t)~(SII_ERR_ACK | SII_ERR_WE);
    set_ctrl(e, ctrl | SII_BUSY);
    /* the command runs on the address it came with, whatever is written meanwhile */
    e->sii_cmd_addr = get_le32(e->mem + ESC_SII_ADDR);
    e->sii_cmd_pending = true;
    e->pdi_work = true;
}

void esc_sii_complete(struct sim_esc *e)
{
    uint16_t ctrl = esc_reg16(e, ESC_SII_CTRL);
    uint16_t cmd = ctrl & SII_CMD_MASK;
    uint32_t w = e->sii_cmd_addr;
    e->sii_cmd_pending = false;
    ctrl &= (uint16_t)~(SII_CMD_MASK | SII_BUSY);
    if (cmd == SII_CMD_READ) {
        unsigned words = (ctrl & SII_READ8) ? 4 : 2;
        for (unsigned i = 0; i < words; i++)
            put_le16(e->mem + ESC_SII_DATA + 2 * i, sii_word(e, w + i));
    } else if (cmd == SII_CMD_WRITE) {
        /* The write enable bit has to come with the command; it clears itself. */
        if (!(ctrl & SII_WRITE_EN))
            ctrl |= SII_ERR_WE;
        else if ((size_t)w * 2 + 1 < e->sii_bytes)
            memcpy(e->sii + (size_t)w * 2, e->mem + ESC_SII_DATA, 2);
        else
            ctrl |= SII_ERR_ACK;    /* beyond the device: no acknowledge */
    } else if (cmd == SII_CMD_RELOAD) {
        set_ctrl(e, ctrl);
        esc_sii_load(e);
        esc_cache_regs(e);
        ctrl = esc_reg16(e, ESC_SII_CTRL);
        /* 0x0110 bit 0 says whether the EEPROM loaded correctly: follow the reload */
        esc_update_dl_status(e);
    }
    set_ctrl(e, (uint16_t)(ctrl & ~SII_WRITE_EN));
}
