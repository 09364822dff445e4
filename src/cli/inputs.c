/* inputs.c - loads the profiles, ELF files and .LOR files a command names. */
#include "inputs.h"

#include "lor_file.h"
#include "messages.h"
#include "progress_line.h"
#include "registry.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Reads the first bytes of a file for probing. Returns the count, or -1 with errno set. */
static long read_head(const char *path, uint8_t *head, size_t size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return -1;
    size_t n = fread(head, 1, size, f);
    int failed = ferror(f);
    fclose(f);
    if (failed) {
        errno = EIO;
        return -1;
    }
    return (long)n;
}

void lg_cli_describe_head(const uint8_t *head, size_t n, char *out, size_t size)
{
    size_t used = 0;
    for (size_t i = 0; i < n && i < 8 && used + 4 < size; i++)
        used += (size_t)snprintf(out + used, size - used, "%s%02x", i ? " " : "", head[i]);
    if (n == 0)
        snprintf(out, size, "an empty file");
}

/* What the first pass found an input to be. */
typedef struct probed {
    const lg_cli_input_t *arg;
    const lg_loader_t *loader; /* NULL for an ELF file or archive */
} probed_t;

static int cmp_elf_path(const void *a, const void *b)
{
    const probed_t *x = a, *y = b;
    return strcmp(x->arg->path, y->arg->path);
}

/* The magic numbers of LLVM bitcode, bare and in its wrapper: what clang -flto writes instead of
 * an ELF object. */
static const uint8_t llvm_bitcode_magic[] = {'B', 'C', 0xc0, 0xde};
static const uint8_t llvm_wrapper_magic[] = {0xde, 0xc0, 0x17, 0x0b};

static bool is_llvm_bitcode(const uint8_t *head, size_t n)
{
    return n >= sizeof llvm_bitcode_magic &&
           (memcmp(head, llvm_bitcode_magic, sizeof llvm_bitcode_magic) == 0 ||
            memcmp(head, llvm_wrapper_magic, sizeof llvm_wrapper_magic) == 0);
}

/* Tells what arg is from its first bytes: an ELF input (loader NULL) or a profile of *loader.
 * Returns 0 or the exit status, with the error shown. */
static int probe_input(const lg_cli_input_t *arg, bool profiles_allowed, probed_t *out)
{
    uint8_t head[LG_PROBE_BYTES];
    long n = read_head(arg->path, head, sizeof head);
    if (n < 0) {
        lg_cli_message(LG_ERROR, arg->path, "cannot read: %s", strerror(errno));
        return LG_EXIT_BAD_INPUT;
    }
    *out = (probed_t){arg, NULL};
    if (arg->format == NULL && lg_elf_probe(head, (size_t)n))
        return 0;
    out->loader = arg->format ? lg_loader_find(arg->format) : lg_loader_detect(head, (size_t)n);
    if (out->loader == NULL && is_llvm_bitcode(head, (size_t)n)) {
        lg_cli_message(LG_ERROR, arg->path,
                       "LLVM bitcode (clang -flto): no machine code yet, so its functions get "
                       "their code and their sections only when the program is linked; give "
                       "the linked program instead");
        return LG_EXIT_BAD_INPUT;
    }
    if (out->loader == NULL) {
        char bytes[64];
        lg_cli_describe_head(head, (size_t)n, bytes, sizeof bytes);
        lg_cli_message(LG_ERROR, arg->path,
                       "unknown input format: expected an ELF file, an ar archive or a "
                       "profile ('lorgen formats' lists them), found %s",
                       bytes);
        return LG_EXIT_BAD_INPUT;
    }
    if (!profiles_allowed) {
        lg_cli_message(LG_ERROR, arg->path, "expected ELF inputs only here, found a %s profile",
                       out->loader->name);
        return LG_EXIT_BAD_INPUT;
    }
    return 0;
}

static int load_profile(const probed_t *input, const lg_load_options_t *load, lg_cli_inputs_t *in,
                        lg_diag_t *d)
{
    const lg_cli_input_t *arg = input->arg;
    const lg_loader_t *loader = input->loader;
    lg_profile_t *p = &in->profiles[in->nprofiles];
    lg_profile_init(p);
    lg_cli_verbose("reading %s profile %s", loader->name, arg->path);
    lg_cli_progress_line_start(load->progress_ctx);
    lg_err_t loaded = lg_loader_load(loader, arg->path, load, p, d);
    lg_cli_progress_line_clear(load->progress_ctx);
    if (loaded != LG_OK) {
        lg_profile_destroy(p);
        lg_cli_flush_diag(d);
        return LG_EXIT_BAD_INPUT;
    }
    in->profile_weights[in->nprofiles++] = arg->weight;
    if (!p->has_call_edges)
        lg_cli_message(LG_NOTE, arg->path,
                       "%s profile without call information: functions are grouped by "
                       "hotness only",
                       p->kind == LG_PROFILE_STATISTICAL ? "statistical" : "a");
    return 0;
}

int lg_cli_load_inputs(const lg_cli_input_t *args, size_t nargs, const lg_load_options_t *load,
                       bool profiles_allowed, lg_cli_inputs_t *in, lg_diag_t *d)
{
    memset(in, 0, sizeof *in);
    lg_elfsyms_init(&in->elf);
    in->profiles = calloc(nargs ? nargs : 1, sizeof *in->profiles);
    in->profile_weights = calloc(nargs ? nargs : 1, sizeof *in->profile_weights);
    in->elf_paths = calloc(nargs ? nargs : 1, sizeof *in->elf_paths);
    probed_t *elf = calloc(nargs ? nargs : 1, sizeof *elf);
    probed_t *profiles = calloc(nargs ? nargs : 1, sizeof *profiles);
    int status = 0;
    if (in->profiles == NULL || in->profile_weights == NULL || in->elf_paths == NULL ||
        elf == NULL || profiles == NULL) {
        lg_cli_message(LG_ERROR, "", "out of memory");
        status = LG_EXIT_BAD_INPUT;
    }
    /* Every input is told apart first, so that no file is read before all are known. */
    size_t nelf = 0, nprofiles = 0;
    for (size_t i = 0; status == 0 && i < nargs; i++) {
        probed_t p;
        status = probe_input(&args[i], profiles_allowed, &p);
        if (status == 0 && p.loader == NULL)
            elf[nelf++] = p;
        else if (status == 0)
            profiles[nprofiles++] = p;
    }
    /* The ELF inputs are read in the order of their paths, not of the command line: the
     * objects' order is the input order of a run without a linked program, and a build that
     * globs its objects in directory order must get the same outputs every time. */
    if (nelf > 1)
        qsort(elf, nelf, sizeof *elf, cmp_elf_path);
    for (size_t i = 0; status == 0 && i < nelf; i++) {
        const char *path = elf[i].arg->path;
        lg_cli_verbose("reading ELF %s", path);
        if (lg_elfsyms_read(&in->elf, path, d) != LG_OK)
            status = LG_EXIT_BAD_INPUT;
        else
            in->elf_paths[in->nelf++] = path;
    }
    for (size_t i = 0; status == 0 && i < nprofiles; i++)
        status = load_profile(&profiles[i], load, in, d);
    free(elf);
    free(profiles);
    lg_cli_flush_diag(d);
    return status;
}

int lg_cli_load_profiled(const lg_cli_options_t *o, const char *no_profile, const char *no_elf,
                         lg_cli_inputs_t *in, lg_diag_t *d)
{
    int status = lg_cli_load_inputs(o->inputs, o->ninputs, &o->load, true, in, d);
    size_t empty = 0;
    for (size_t i = 0; status == 0 && i < in->nprofiles; i++)
        if (!lg_profile_has_cost(&in->profiles[i])) {
            empty++;
            if (in->nprofiles > 1)
                lg_cli_message(LG_ALERT, in->profiles[i].path,
                               "the profile holds no cost: every count in it is 0 (a crashed "
                               "or empty profiling run?); it adds nothing to the order");
        }
    if (status == 0 && in->nprofiles > 0 && empty == in->nprofiles) {
        lg_cli_message(LG_ERROR, in->nprofiles == 1 ? in->profiles[0].path : "",
                       "expected a profile with some cost, found %s: every count is 0 (a "
                       "crashed or empty profiling run?), so there is nothing to order by",
                       in->nprofiles == 1 ? "none in it" : "none in any of the profiles");
        status = LG_EXIT_BAD_INPUT;
    } else if (status == 0 && in->nprofiles == 0) {
        lg_cli_message(LG_ERROR, "", "%s", no_profile);
        status = LG_EXIT_USAGE;
    } else if (status == 0 && no_elf != NULL && in->nelf == 0) {
        lg_cli_message(LG_ERROR, "", "%s", no_elf);
        status = LG_EXIT_USAGE;
    }
    return status;
}

void lg_cli_inputs_destroy(lg_cli_inputs_t *in)
{
    for (size_t i = 0; i < in->nprofiles; i++)
        lg_profile_destroy(&in->profiles[i]);
    free(in->profiles);
    free(in->profile_weights);
    free(in->elf_paths);
    lg_elfsyms_destroy(&in->elf);
}

lg_bind_input_t *lg_cli_bind_inputs(const lg_cli_inputs_t *in, bool normalize)
{
    lg_bind_input_t *b = calloc(in->nprofiles ? in->nprofiles : 1, sizeof *b);
    for (size_t i = 0; b != NULL && i < in->nprofiles; i++)
        b[i] = (lg_bind_input_t){&in->profiles[i], in->profile_weights[i]};
    if (b != NULL && normalize && in->nprofiles > 1)
        lg_bind_normalize(b, in->nprofiles);
    return b;
}

void lg_cli_warn_unbound(const lg_program_t *prog)
{
    if (prog->nunbound == 0)
        return;
    const lg_unbound_t *u = &prog->unbound[0];
    lg_cli_message(LG_WARNING, "",
                   "%zu profiled function(s) could not be bound to the ELF and are left out; "
                   "the hottest: '%s' (%" PRIu64 " hits): %s",
                   prog->nunbound, u->name, u->hits, u->reason);
}

char *lg_cli_read_lor(const char *path, size_t *len)
{
    /* Its own sink, shown at once: the caller's may hold messages that come after. */
    lg_diag_t d;
    lg_diag_init(&d);
    char *text;
    lg_lor_read_file(path, LG_LOR_MAX_FILE, &text, len, &d);
    lg_cli_flush_diag(&d);
    lg_diag_destroy(&d);
    return text;
}
