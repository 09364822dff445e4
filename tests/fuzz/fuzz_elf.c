/* fuzz_elf.c - libFuzzer target: the ELF and ar symbol reader (libelf underneath), through a
 * file as the CLI reads it. A failed read must leave the table as it was: empty here. */
#include "elfsym.h"
#include "fuzz_util.h"

#include <stdio.h>
#include <stdlib.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = lg_fz_write("input.elf", data, size);
    lg_elfsyms_t t;
    lg_diag_t d;
    lg_elfsyms_init(&t);
    lg_diag_init(&d);
    lg_err_t err = lg_elfsyms_read(&t, path, &d);
    lg_fz_check_diag(err, &d);
    if (err != LG_OK && (t.nsyms != 0 || t.nfiles != 0)) {
        fprintf(stderr, "fuzz: a failed ELF read left symbols or files behind\n");
        abort();
    }
    for (size_t i = 0; i < t.nsyms; i++)
        if (t.syms[i].name == NULL || t.syms[i].file >= t.nfiles) {
            fprintf(stderr, "fuzz: a symbol without a name or file\n");
            abort();
        }
    lg_elfsyms_destroy(&t);
    lg_diag_destroy(&d);
    return 0;
}
