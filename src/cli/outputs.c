/* outputs.c - writes the outputs of a command, all of them or none. */
#include "outputs.h"

#include "messages.h"
#include "outfile.h"

#include <string.h>

bool lg_cli_wants(const lg_cli_options_t *o, unsigned kinds)
{
    for (size_t k = 0; k < LG_CLI_OUTPUTS; k++)
        if ((kinds & LG_CLI_OUTPUT_BIT(k)) && o->outputs[k] != NULL)
            return true;
    return false;
}

int lg_cli_write_outputs(const lg_cli_options_t *o, unsigned kinds, lg_output_t main_kind,
                         const lg_write_input_t *in, lg_outfile_t *files, lg_diag_t *d)
{
    _Static_assert(LG_CLI_OUTPUTS + LG_CLI_FAST_INCLUDES_MAX <= LG_OUTFILE_MAX_OPEN,
                   "one open file per output option and per --fast-include");
    lg_outfile_t none[LG_OUTFILE_MAX_OPEN];
    if (files == NULL) {
        memset(none, 0, sizeof none);
        files = none;
    }
    lg_err_t err = LG_OK;
    for (size_t k = 0; k < LG_CLI_OUTPUTS && err == LG_OK; k++) {
        if (!(kinds & LG_CLI_OUTPUT_BIT(k)) || o->outputs[k] == NULL)
            continue;
        err = lg_outfile_open(&files[k], o->outputs[k], d);
        if (err == LG_OK) {
            err = lg_writers[k == LG_OUTPUT_LOR ? main_kind : k](in, files[k].f, d);
            if (err != LG_OK)
                lg_outfile_write_failed(&files[k], err, d);
        }
    }
    if (err == LG_OK)
        err = lg_outfile_commit_all(files, LG_OUTFILE_MAX_OPEN, d);
    for (size_t k = 0; k < LG_OUTFILE_MAX_OPEN; k++)
        lg_outfile_abort(&files[k]);
    lg_cli_flush_diag(d);
    return err == LG_OK ? 0 : LG_EXIT_BAD_INPUT;
}
