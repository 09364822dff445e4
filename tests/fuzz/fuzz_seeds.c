/* fuzz_seeds.c - writes the binary seed inputs of the fuzz corpora (the text formats are seeded
 * with tests/fixtures as they are): small but complete .prf, BR and winIDEA .BIN files, made
 * with the same writers the unit tests build their fixtures with, so every record type and
 * section is there for the fuzzer to mutate.
 *
 *   lg_fuzz_seeds DIR      writes DIR/prf/, DIR/br/ and DIR/winidea_bin/ (which must exist)
 */
#include "br.h"
#include "fuzz_util.h"
#include "prf.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void write_file(const char *dir, const char *name, const uint8_t *data, size_t size)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (f == NULL || fwrite(data, 1, size, f) != size || fclose(f) != 0) {
        fprintf(stderr, "lg_fuzz_seeds: cannot write %s\n", path);
        exit(1);
    }
}

/* A trace (main calls work twice, work calls leaf, leaf recurses once) or the statistical
 * profile of the same run, with an overlay record. */
static void seed_prf(const char *dir, const char *name, uint8_t type)
{
    lg_prf_header_t h = {.version = 1, .type = type, .total_hits = 6, .counter1_kind = 0x23};
    lg_prf_writer_t w;
    lg_prf_writer_init(&w, &h);
    lg_prf_write_overlay(&w, 0, 0x1000, 0x1fff, 1);
    static const char *const names[] = {"main", "work", "leaf"};
    for (uint32_t i = 0; i < 3; i++) {
        lg_prf_record_fields_t f = {.description = 1,
                                    .cache_line = 0xFFFF,
                                    .pc_min = 0x100 * (i + 1),
                                    .pc_max = 0x100 * (i + 1) + 0x3f,
                                    .overlay_area = 0xFFFFFFFFu,
                                    .overlay_id = 0xFFFFFFFFu,
                                    .group_id = 0xFFFFFFFFu,
                                    .hits = i + 1,
                                    .name = names[i],
                                    .link_label = names[i],
                                    .qual_name = "app.c"};
        lg_prf_write_function(&w, &f);
    }
    if (type == LG_PRF_TYPE_TRACE) {
        uint32_t call = 0;
        lg_prf_record_fields_t f = {.description = 1,
                                    .cache_line = 0xFFFF,
                                    .overlay_area = 0xFFFFFFFFu,
                                    .overlay_id = 0xFFFFFFFFu,
                                    .group_id = 0xFFFFFFFFu,
                                    .hits = 1};
        f.name = "main";
        lg_prf_write_call(&w, call++, &f);
        for (int i = 0; i < 2; i++) {
            f.name = "work";
            lg_prf_write_call(&w, call++, &f);
            f.name = "leaf";
            lg_prf_write_call(&w, call++, &f);
            lg_prf_write_call(&w, call++, &f);
            lg_prf_write_return(&w, call - 1);
            lg_prf_write_return(&w, call - 2);
            lg_prf_write_return(&w, call - 3);
        }
        lg_prf_write_return(&w, 0);
    }
    if (lg_prf_writer_finish(&w) != LG_OK) {
        fprintf(stderr, "lg_fuzz_seeds: the .prf writer failed\n");
        exit(1);
    }
    write_file(dir, name, w.buf.data, w.buf.size);
    lg_prf_writer_destroy(&w);
}

/* Three samples over two modules, with every kind of frame mark. */
static void seed_br(const char *dir, const char *name, bool timed)
{
    lg_br_writer_t w;
    lg_br_writer_init(&w);
    lg_br_write_module(&w, 1, "main.brs");
    lg_br_write_module(&w, 2, "lib.brs");
    const lg_br_frame_t a[] = {{2, 120, 1, LG_BR_MARK_FUNCTION, "fnCalc"},
                               {1, 30, 1, LG_BR_MARK_GOSUB, NULL},
                               {1, 10, 1, LG_BR_MARK_MAIN, NULL}};
    const lg_br_frame_t b[] = {{1, 40, 2, LG_BR_MARK_NONE, NULL}};
    lg_br_write_sample(&w, a, 3, timed, 1500);
    lg_br_write_sample(&w, b, 1, timed, 700);
    lg_br_write_sample(&w, a, 2, timed, 300);
    if (lg_br_writer_finish(&w) != LG_OK) {
        fprintf(stderr, "lg_fuzz_seeds: the BR writer failed\n");
        exit(1);
    }
    write_file(dir, name, w.buf.data, w.buf.size);
    lg_br_writer_destroy(&w);
}

/* fuzz_winidea_bin's input: a byte choosing the layout, then the small timeline. */
static void seed_bin(const char *dir, const char *name, uint8_t layout)
{
    size_t size;
    const uint8_t *bin = lg_fz_small_bin(&size);
    uint8_t *seed = malloc(size + 1);
    if (seed == NULL)
        exit(1);
    seed[0] = layout;
    memcpy(seed + 1, bin, size);
    write_file(dir, name, seed, size + 1);
    free(seed);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: lg_fuzz_seeds DIR\n");
        return 2;
    }
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/prf", argv[1]);
    seed_prf(dir, "trace.prf", LG_PRF_TYPE_TRACE);
    seed_prf(dir, "statistical.prf", LG_PRF_TYPE_STATISTICAL);
    snprintf(dir, sizeof dir, "%s/br", argv[1]);
    seed_br(dir, "sampled.br", false);
    seed_br(dir, "timed.br", true);
    snprintf(dir, sizeof dir, "%s/winidea_bin", argv[1]);
    seed_bin(dir, "detect.bin", 0);
    seed_bin(dir, "v1_1.bin", 2);
    return 0;
}
