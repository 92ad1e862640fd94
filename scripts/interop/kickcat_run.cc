// A second independent master drives takt's simulated network: written by takt for its
// interoperability check, built against a KickCAT checkout the user provides (nothing of
// KickCAT is in takt). It scans, configures from SII, optionally remaps a CiA 402 servo's
// TxPDO over CoE (statusword + position, as soem_servo.c), enables DC with SYNC0, goes to
// OP and runs cycles of LRD + LWR (+ DC drift compensation), counting KickCAT's own
// working-counter verdicts; it prints figures and one verdict line.
// Usage: kickcat_run IFNAME CYCLES [SERVO_POSITION (1-based, 0 = none)]
#include <cinttypes>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <exception>

#include "kickcat/Bus.h"
#include "kickcat/Link.h"
#include "kickcat/OS/Timer.h"
#include "kickcat/helpers.h"

using namespace kickcat;

static double wall_s()
{
    struct timespec t;
    clock_gettime(CLOCK_REALTIME, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

int main(int argc, char* argv[])
{
    if (argc < 3) {
        std::fprintf(stderr, "usage: %s IFNAME CYCLES [SERVO_POSITION]\n", argv[0]);
        return 2;
    }
    int cycles = std::atoi(argv[2]);
    int servo = argc > 3 ? std::atoi(argv[3]) : 0;
    static uint8_t io[4096];
    int lost = 0, bad_wkc = 0, other = 0, ok_read = 0, ok_write = 0;
    bool dc_sync = false, enabled = false, moved = false, remap_ok = true;
    int32_t pos = 0;
    uint16_t sw = 0;
    try {
        auto [nominal, redundancy] = createSockets(argv[1], "");
        auto link = std::make_shared<Link>(nominal, redundancy, [] {});
        link->setTimeout(2ms);
        Bus bus{link};
        bus.init(100ms);
        std::printf("%zu slaves found\n", bus.slaves().size());
        bus.requestState(State::PRE_OP);
        bus.waitForState(State::PRE_OP, 3000ms);
        Slave* s = nullptr;
        if (servo > 0) {
            if (static_cast<size_t>(servo) > bus.slaves().size()) {
                std::printf("VERDICT FAIL: %zu slaves, no position %d\n", bus.slaves().size(), servo);
                return 1;
            }
            s = &bus.slaves().at(servo - 1);
            uint32_t const tx[] = { 0x60410010, 0x60640020 };   // statusword, position actual value
            mapPDO(bus, *s, 0x1A00, tx, 2, 0x1C13);
            uint8_t n = 0;
            uint32_t sz = 1;
            bus.readSDO(*s, 0x1A00, 0, Bus::PARTIAL, &n, &sz);
            remap_ok = n == 2;
            std::printf("servo %d: TxPDO 0x1A00 remapped over CoE: %u entries read back (%s)\n", servo, n,
                        remap_ok ? "ok" : "FAILED");
        }
        bus.enableDC(1ms, 500us, 100ms);
        std::printf("DC: KickCAT's propagation delay of slave %zu %" PRId64 " ns%s", bus.slaves().size(),
                    static_cast<int64_t>(bus.slaves().back().delay.count()), s ? "" : "\n");
        if (s)
            std::printf(", of the servo %" PRId64 " ns\n", static_cast<int64_t>(s->delay.count()));
        bus.createMapping(io, sizeof io);
        if (s)
            std::printf("servo inputs %d B, outputs %d B (6 expected after the remap)\n", s->input.bsize,
                        s->output.bsize);
        auto count_read = [&](DatagramState const& st) {
            st == DatagramState::LOST ? lost++ : st == DatagramState::INVALID_WKC ? bad_wkc++ : other++;
        };
        auto tolerate = [](DatagramState const&) {};
        auto pump = [&] {
            bus.processDataRead(tolerate);
            bus.processDataWrite(tolerate);
        };
        bus.requestState(State::SAFE_OP);
        bus.waitForState(State::SAFE_OP, 3000ms, pump);
        pump();
        bus.requestState(State::OPERATIONAL);
        bus.waitForState(State::OPERATIONAL, 3000ms, pump);
        std::printf("all slaves OPERATIONAL\n");
        Timer timer{1ms};
        timer.start();
        int shown = 0;
        for (int i = 0; i < cycles; i++) {
            timer.wait_next_tick();
            if (s) {
                uint16_t cw = i < 200 ? 0x06 : i < 400 ? 0x07 : 0x0F;
                int32_t target = i < 600 ? 0 : 100000;
                std::memcpy(s->output.data, &cw, 2);
                std::memcpy(s->output.data + 2, &target, 4);
                if (s->output.bsize >= 7)
                    s->output.data[6] = 8;   // cyclic synchronous position
            }
            int before = lost + bad_wkc + other;
            double t_send = wall_s();
            try {
                bus.sendLogicalRead(count_read);
                bus.sendLogicalWrite(count_read);
                bus.sendDriftCompensation(tolerate);
                bus.finalizeDatagrams();
                bus.processAwaitingFrames();
            } catch (std::exception const& e) {
                other++;
                std::fprintf(stderr, "[%d] %s\n", i, e.what());
            }
            if (lost + bad_wkc + other == before) {
                ok_read++;
                ok_write++;
            } else if (shown++ < 20) {
                // wall-clock times to hold against the captures: was the answer there in time?
                double t_done = wall_s();
                std::printf("cycle %d: %d errors; sent at %.6f, given up at %.6f (%.3f ms later)\n", i,
                            lost + bad_wkc + other - before, t_send, t_done, (t_done - t_send) * 1e3);
            }
            if (s) {
                std::memcpy(&sw, s->input.data, 2);
                std::memcpy(&pos, s->input.data + 2, 4);
            }
            if (i % 1000 == 0)
                std::printf("cycle %5d: errors lost %d wkc %d other %d; statusword 0x%04x position %" PRId32 "\n", i,
                            lost, bad_wkc, other, sw, pos);
        }
        dc_sync = bus.isDCSynchronized(1000ns, false);
        if (s) {
            enabled = (sw & 0x6F) == 0x27;
            moved = pos > 90000;
        }
        bus.requestState(State::INIT);
        bool pass = !lost && !bad_wkc && !other && dc_sync && remap_ok &&
                    (!s || (enabled && moved && s->input.bsize == 6));
        std::printf("VERDICT %s: %d cycles in OP (LRD + LWR + DC), %d good, %d lost, %d with a wrong working counter "
                    "(KickCAT's own check), %d other errors; DC %s (every slave's 0x092C < 1 us)%s",
                    pass ? "PASS" : "FAIL", cycles, ok_read, lost, bad_wkc, other,
                    dc_sync ? "synchronized" : "NOT synchronized", s ? "" : "\n");
        if (s)
            std::printf("; servo statusword 0x%04x (%s), position %" PRId32 " of 100000\n", sw,
                        enabled ? "operation enabled" : "not enabled", pos);
        return pass ? 0 : 1;
    } catch (std::exception const& e) {
        std::printf("VERDICT FAIL: %s (after %d lost, %d wrong WKC)\n", e.what(), lost, bad_wkc);
        return 1;
    }
}
