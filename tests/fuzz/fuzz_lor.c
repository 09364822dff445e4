/* fuzz_lor.c - libFuzzer target: the .LOR reader.
 *
 * Besides not crashing, a .LOR that parses must write back to text that parses again: the file
 * people edit by hand goes through lg_lor_write whenever lorgen rewrites it (lorgen script -o). */
#include "fuzz_util.h"
#include "lor.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    lg_lor_t lor;
    lg_diag_t d;
    lg_lor_init(&lor);
    lg_diag_init(&d);
    lg_err_t err = lg_lor_parse((const char *)data, size, "fuzz.lor", &lor, &d);
    lg_fz_check_diag(err, &d);
    if (err == LG_OK) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        if (f == NULL || lg_lor_write(&lor, f) != LG_OK || fclose(f) != 0)
            abort();
        lg_lor_t again;
        lg_diag_t d2;
        lg_lor_init(&again);
        lg_diag_init(&d2);
        if (lg_lor_parse(text, len, "rewritten.lor", &again, &d2) != LG_OK) {
            fprintf(stderr, "fuzz: a .LOR that parsed was written back to one that does not:\n");
            for (size_t i = 0; i < d2.count; i++)
                fprintf(stderr, "  %s: %s\n", d2.entries[i].where, d2.entries[i].message);
            abort();
        }
        lg_lor_destroy(&again);
        lg_diag_destroy(&d2);
        free(text);
    }
    lg_lor_destroy(&lor);
    lg_diag_destroy(&d);
    return 0;
}
