/* Standalone driver for the fuzz targets when libFuzzer is not used: replays every
 * file of a seed corpus directory, then a bounded number of deterministic random
 * mutations of those seeds, so each target runs in CTest and cannot rot. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_SEEDS 256
#define MAX_LEN   8192

static uint8_t *seeds[MAX_SEEDS];
static size_t seed_len[MAX_SEEDS];
static int nseeds;

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(void)
{
    rng ^= rng << 13; rng ^= rng >> 7; rng ^= rng << 17;
    return (uint32_t)rng;
}

static void load_dir(const char *dir)
{
    DIR *d = opendir(dir);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) && nseeds < MAX_SEEDS) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096];
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        FILE *f = fopen(path, "rb");
        if (!f)
            continue;
        uint8_t *buf = malloc(MAX_LEN);
        size_t n = fread(buf, 1, MAX_LEN, f);
        fclose(f);
        seeds[nseeds] = buf;
        seed_len[nseeds++] = n;
    }
    closedir(d);
}

int main(int argc, char **argv)
{
    long runs = 10000;
    for (int i = 1; i < argc; i++) {
        if (strncmp(argv[i], "-runs=", 6) == 0)
            runs = strtol(argv[i] + 6, NULL, 10);
        else
            load_dir(argv[i]);
    }
    for (int i = 0; i < nseeds; i++)
        LLVMFuzzerTestOneInput(seeds[i], seed_len[i]);
    static uint8_t buf[MAX_LEN];
    for (long r = 0; r < runs; r++) {
        size_t len;
        if (nseeds && (rnd() % 8)) {
            int s = rnd() % nseeds;
            len = seed_len[s];
            memcpy(buf, seeds[s], len);
            int flips = 1 + rnd() % 8;
            for (int k = 0; k < flips && len; k++) {
                switch (rnd() % 4) {
                case 0: buf[rnd() % len] ^= (uint8_t)(1u << (rnd() % 8)); break;
                case 1: buf[rnd() % len] = (uint8_t)rnd(); break;
                case 2: len = rnd() % (len + 1); break;               /* truncate */
                default: if (len < MAX_LEN - 16) { size_t add = rnd() % 16;
                         for (size_t j = 0; j < add; j++) buf[len++] = (uint8_t)rnd(); }
                }
            }
        } else {
            len = rnd() % 1600;
            for (size_t j = 0; j < len; j++)
                buf[j] = (uint8_t)rnd();
        }
        LLVMFuzzerTestOneInput(buf, len);
    }
    printf("fuzz: %d seeds, %ld generated inputs, no crash\n", nseeds, runs);
    for (int i = 0; i < nseeds; i++)
        free(seeds[i]);
    return 0;
}
