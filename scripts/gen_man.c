/* gen_man.c - lg_gen_man PAGE: writes the manual page PAGE (docs/lorgen.1) to standard output
 * with its part between the LG_CLI_MANUAL_BEGIN and LG_CLI_MANUAL_END comment lines replaced by
 * what the option table gives (lg_cli_write_manual), the rest as it is.
 *
 * `cmake --build build --target man` rewrites docs/lorgen.1 with it; the test docs.manpage fails
 * while the committed page differs from its output. Exit status 1 when PAGE cannot be read or
 * lacks either mark.
 */
#include "options.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest line of the page, in bytes. */
#define GEN_MAN_LINE_MAX 4096

int main(int argc, char **argv)
{
    if (argc != 2) {
        fputs("usage: lg_gen_man PAGE\n", stderr);
        return 2;
    }
    FILE *in = fopen(argv[1], "r");
    if (in == NULL) {
        perror(argv[1]);
        return 1;
    }
    char line[GEN_MAN_LINE_MAX];
    enum { BEFORE, INSIDE, AFTER } where = BEFORE;
    while (fgets(line, sizeof line, in) != NULL) {
        if (where == BEFORE && strstr(line, LG_CLI_MANUAL_BEGIN) != NULL) {
            lg_cli_write_manual(stdout);
            where = INSIDE;
        } else if (where == INSIDE) {
            if (strstr(line, LG_CLI_MANUAL_END) != NULL)
                where = AFTER;
        } else {
            fputs(line, stdout);
        }
    }
    fclose(in);
    if (where != AFTER) {
        fprintf(stderr, "%s: expected the marks '%s' and '%s', found %s\n", argv[1],
                LG_CLI_MANUAL_BEGIN, LG_CLI_MANUAL_END, where == BEFORE ? "neither" : "no end");
        return 1;
    }
    return fflush(stdout) == 0 ? 0 : 1;
}
