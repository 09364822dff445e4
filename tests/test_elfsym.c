/* test_elfsym.c - the ELF function symbol reader against objects, archives and executables built
 * at test time from tests/fixtures/elf/ by the host compiler and by every cross compiler present.
 *
 * Besides hand-written expectations, each file read is compared with what binutils' readelf
 * prints for it (the oracle): the same function symbols, in the same order, with the same values,
 * sizes, sections and source files. Error cases patch bytes of a copy of a host object. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "testutil.h"

#include "elfsym.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Cases skipped because this machine cannot build their fixture. A program with any is
 * reported to ctest as skipped (exit LG_TEST_SKIPPED), never as passed. */
static int skipped_cases;
#define LG_TEST_SKIPPED 77
#define skip_case()                                                                                \
    do {                                                                                           \
        skipped_cases++;                                                                           \
        skip();                                                                                    \
    } while (0)

#define FIXTURES LORGEN_SOURCE_DIR "/tests/fixtures/elf"
#define WORK LORGEN_TEST_TMPDIR "/elfsym"

/* Sizes of the fixed buffers the oracle parses readelf output into. */
#define ORACLE_MAX_SECTIONS 512
#define ORACLE_MAX_SYMS 1024
#define ORACLE_NAME_BYTES 256
#define COMMAND_BYTES 8192

/* Truncation tests cut a file at every length below TRUNC_DENSE_BYTES and in the last
 * TRUNC_DENSE_BYTES, and every TRUNC_STRIDE bytes in between (each cut writes a file: slow). */
#define TRUNC_DENSE_BYTES 160u
#define TRUNC_STRIDE 11u

/* Random byte patches applied to a host object by the fuzz test, and bytes patched per round. */
#define FUZZ_ROUNDS 400
#define FUZZ_PATCHES 4

/* ------------------------------------------------------------------------------------------ */
/* Helpers                                                                                    */

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int run(const char *fmt, ...)
{
    char command[COMMAND_BYTES];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(command, sizeof command, fmt, ap);
    va_end(ap);
    assert_true(n > 0 && (size_t)n < sizeof command);
    int status = lg_test_run(command);
    if (status != 0)
        print_message("command failed (%d): %s\n", status, command);
    return status;
}

static const char *work_path(const char *name)
{
    static char paths[8][1024];
    static int next;
    char *p = paths[next++ % 8];
    snprintf(p, sizeof paths[0], "%s/%s", WORK, name);
    return p;
}

/* Reads path into a fresh table and expects success. */
static void read_ok(lg_elfsyms_t *t, const char *path)
{
    lg_diag_t d;
    lg_diag_init(&d);
    lg_err_t err = lg_elfsyms_read(t, path, &d);
    if (err != LG_OK || d.errors != 0)
        lg_test_diag_dump(&d);
    assert_int_equal(err, LG_OK);
    assert_int_equal(d.errors, 0);
    lg_diag_destroy(&d);
}

/* The index of the only symbol named name in file, failing the test when there is not one. */
static const lg_elfsym_t *find_in(const lg_elfsyms_t *t, uint32_t file, const char *name)
{
    const lg_elfsym_t *found = NULL;
    for (uint32_t i = lg_elfsyms_first(t, name); i != UINT32_MAX; i = t->next_same_name[i]) {
        assert_string_equal(t->syms[i].name, name);
        if (t->syms[i].file == file) {
            if (found != NULL)
                fail_msg("%s appears twice in file %u", name, file);
            found = &t->syms[i];
        }
    }
    if (found == NULL)
        fail_msg("%s not found in file %u (%s)", name, file, t->files[file].path);
    return found;
}

static bool has_in(const lg_elfsyms_t *t, uint32_t file, const char *name)
{
    for (uint32_t i = lg_elfsyms_first(t, name); i != UINT32_MAX; i = t->next_same_name[i])
        if (t->syms[i].file == file)
            return true;
    return false;
}

/* ------------------------------------------------------------------------------------------ */
/* The readelf oracle                                                                         */

typedef struct osec {
    bool present;
    bool exec;
    char name[ORACLE_NAME_BYTES];
    uint64_t addr, size, align;
} osec_t;

typedef struct osym {
    char name[ORACLE_NAME_BYTES];
    char source[ORACLE_NAME_BYTES]; /* "" when none */
    uint64_t value, size;
    unsigned ndx;
    bool local, weak;
} osym_t;

typedef struct oracle {
    osec_t secs[ORACLE_MAX_SECTIONS];
    osym_t syms[ORACLE_MAX_SYMS]; /* kept functions only */
    size_t nsyms;
} oracle_t;

#define MAX_TOKENS 16

static size_t tokenize(char *line, char *tok[MAX_TOKENS])
{
    size_t n = 0;
    for (char *save = NULL, *p = strtok_r(line, " \t\n", &save); p != NULL && n < MAX_TOKENS;
         p = strtok_r(NULL, " \t\n", &save))
        tok[n++] = p;
    return n;
}

/* "  [ 4] .text.helper PROGBITS addr off size es [flags] lk inf al" */
static void parse_section_line(oracle_t *o, char *line)
{
    char *open = strchr(line, '[');
    if (open == NULL)
        return;
    for (char *p = line; p < open; p++)
        if (*p != ' ')
            return;
    char *end;
    unsigned long index = strtoul(open + 1, &end, 10);
    if (end == open + 1 || *end != ']' || index == 0 || index >= ORACLE_MAX_SECTIONS)
        return;
    char *tok[MAX_TOKENS];
    size_t n = tokenize(end + 1, tok);
    if (n != 9 && n != 10)
        return;
    osec_t *s = &o->secs[index];
    s->present = true;
    snprintf(s->name, sizeof s->name, "%s", tok[0]);
    s->addr = strtoull(tok[2], NULL, 16);
    s->size = strtoull(tok[4], NULL, 16);
    s->exec = n == 10 && strchr(tok[6], 'X') != NULL;
    s->align = strtoull(tok[n - 1], NULL, 10);
}

/* "    3: 0000000000000000    18 FUNC    LOCAL  DEFAULT    4 helper" */
static void parse_symbol_line(oracle_t *o, char *line, char *source)
{
    char *tok[MAX_TOKENS];
    size_t n = tokenize(line, tok);
    if (n < 7 || tok[0][strlen(tok[0]) - 1] != ':')
        return;
    size_t ndx_at = 6;
    /* Target-specific annotations such as "[VARIANT_PCS]" follow the visibility. */
    if (tok[ndx_at][0] == '[') {
        while (ndx_at < n && tok[ndx_at][strlen(tok[ndx_at]) - 1] != ']')
            ndx_at++;
        ndx_at++;
    }
    if (ndx_at >= n)
        return;
    const char *name = ndx_at + 1 < n ? tok[ndx_at + 1] : "";
    if (strcmp(tok[3], "FILE") == 0) {
        snprintf(source, ORACLE_NAME_BYTES, "%s", name);
        return;
    }
    if (strcmp(tok[3], "FUNC") != 0 && strcmp(tok[3], "IFUNC") != 0)
        return;
    char *end;
    unsigned long ndx = strtoul(tok[ndx_at], &end, 10);
    if (*end != '\0' || ndx == 0 || ndx >= ORACLE_MAX_SECTIONS || !o->secs[ndx].present ||
        !o->secs[ndx].exec)
        return;
    assert_true(o->nsyms < ORACLE_MAX_SYMS);
    osym_t *s = &o->syms[o->nsyms++];
    snprintf(s->name, sizeof s->name, "%s", name);
    s->value = strtoull(tok[1], NULL, 16);
    s->size = strtoull(tok[2], NULL, 0);
    s->ndx = (unsigned)ndx;
    s->local = strcmp(tok[4], "LOCAL") == 0;
    s->weak = strcmp(tok[4], "WEAK") == 0;
    snprintf(s->source, sizeof s->source, "%s", s->local ? source : "");
}

/* Runs readelf on path and keeps the function symbols of its .symtab. */
static oracle_t *oracle_read(const char *path)
{
    const char *out = work_path("readelf.txt");
    assert_int_equal(run("readelf -W -S -s '%s' > '%s' 2>&1", path, out), 0);
    FILE *f = fopen(out, "r");
    assert_non_null(f);
    oracle_t *o = calloc(1, sizeof *o);
    assert_non_null(o);
    char line[4096];
    char source[ORACLE_NAME_BYTES] = "";
    bool in_symtab = false, sections_done = false;
    while (fgets(line, sizeof line, f) != NULL) {
        if (strstr(line, "Symbol table '") != NULL) {
            in_symtab = strstr(line, "'.symtab'") != NULL;
            sections_done = true;
            source[0] = '\0';
        } else if (!sections_done) {
            parse_section_line(o, line);
        } else if (in_symtab) {
            parse_symbol_line(o, line, source);
        }
    }
    fclose(f);
    return o;
}

/* Checks every symbol of file against readelf, and section_funcs against a count of distinct
 * addresses per section. Returns how many symbols were compared. */
static size_t check_against_readelf(const lg_elfsyms_t *t, uint32_t file)
{
    const lg_elf_file_t *ef = &t->files[file];
    oracle_t *o = oracle_read(ef->path);
    size_t k = 0;
    for (size_t i = 0; i < t->nsyms; i++) {
        const lg_elfsym_t *s = &t->syms[i];
        if (s->file != file)
            continue;
        if (k >= o->nsyms)
            fail_msg("%s: lorgen read %s, readelf has no more functions", ef->path, s->name);
        const osym_t *e = &o->syms[k++];
        assert_string_equal(s->name, e->name);
        assert_int_equal(s->value, e->value);
        assert_int_equal(s->size, e->size);
        assert_int_equal(s->section_index, e->ndx);
        assert_string_equal(s->section, o->secs[e->ndx].name);
        assert_int_equal(s->section_align, o->secs[e->ndx].align);
        assert_int_equal(s->section_size, o->secs[e->ndx].size);
        assert_int_equal(s->is_local, e->local);
        assert_int_equal(s->is_weak, e->weak);
        if (e->source[0] != '\0') {
            assert_non_null(s->source_file);
            assert_string_equal(s->source_file, e->source);
        } else {
            assert_null(s->source_file);
        }
        if (ef->kind == LG_ELF_LINKED) {
            /* A linked function lies inside its output section (ARM: the Thumb bit aside). */
            const osec_t *sec = &o->secs[e->ndx];
            uint64_t start = ef->machine == EM_ARM ? s->value & ~(uint64_t)1 : s->value;
            assert_true(start >= sec->addr);
            assert_true(start + s->size <= sec->addr + sec->size);
            assert_int_equal(s->section_funcs, 0);
        } else {
            uint32_t distinct = 0;
            for (size_t a = 0; a < o->nsyms; a++) {
                if (o->syms[a].ndx != e->ndx)
                    continue;
                bool seen = false;
                for (size_t b = 0; b < a; b++)
                    seen |= o->syms[b].ndx == e->ndx && o->syms[b].value == o->syms[a].value;
                distinct += !seen;
            }
            assert_int_equal(s->section_funcs, distinct);
            assert_true(s->section_funcs >= 1);
        }
    }
    if (k != o->nsyms)
        fail_msg("%s: readelf has %zu functions, lorgen read %zu", ef->path, o->nsyms, k);
    assert_true(k > 0); /* every fixture defines functions: an empty match proves nothing */
    free(o);
    return k;
}

/* The next length to cut a size-byte file at, after len. */
static size_t next_cut(size_t len, size_t size)
{
    if (len < TRUNC_DENSE_BYTES || len + TRUNC_DENSE_BYTES >= size)
        return len + 1;
    return len + TRUNC_STRIDE < size - TRUNC_DENSE_BYTES ? len + TRUNC_STRIDE
                                                         : size - TRUNC_DENSE_BYTES;
}

/* ------------------------------------------------------------------------------------------ */
/* Snapshots: a failed read must leave the table exactly as it was                            */

typedef struct snapshot {
    size_t nsyms, nfiles, map_count;
    lg_elfsym_t *syms;
    lg_elf_file_t *files;
    uint32_t *next;
    uint32_t *first; /* lg_elfsyms_first of each symbol's name */
} snapshot_t;

static void snapshot_take(snapshot_t *s, const lg_elfsyms_t *t)
{
    s->nsyms = t->nsyms;
    s->nfiles = t->nfiles;
    s->map_count = t->by_name.count;
    s->syms = malloc((t->nsyms + 1) * sizeof *s->syms);
    s->files = malloc((t->nfiles + 1) * sizeof *s->files);
    s->next = malloc((t->nsyms + 1) * sizeof *s->next);
    s->first = malloc((t->nsyms + 1) * sizeof *s->first);
    assert_true(s->syms && s->files && s->next && s->first);
    if (t->nsyms > 0) {
        memcpy(s->syms, t->syms, t->nsyms * sizeof *s->syms);
        memcpy(s->next, t->next_same_name, t->nsyms * sizeof *s->next);
    }
    if (t->nfiles > 0)
        memcpy(s->files, t->files, t->nfiles * sizeof *s->files);
    for (size_t i = 0; i < t->nsyms; i++)
        s->first[i] = lg_elfsyms_first(t, t->syms[i].name);
}

/* Field by field: the padding of lg_elfsym_t and lg_elf_file_t is never written, and comparing
 * it reads uninitialised bytes (valgrind reports it in an optimised build). */
static void assert_same_file(const lg_elf_file_t *a, const lg_elf_file_t *b)
{
    assert_ptr_equal(a->path, b->path);
    assert_ptr_equal(a->member, b->member);
    assert_int_equal(a->kind, b->kind);
    assert_int_equal(a->elf_class, b->elf_class);
    assert_int_equal(a->big_endian, b->big_endian);
    assert_int_equal(a->machine, b->machine);
    assert_int_equal(a->refs_read, b->refs_read);
    assert_int_equal(a->lto_bytecode, b->lto_bytecode);
    assert_int_equal(a->stripped, b->stripped);
}

static void assert_same_sym(const lg_elfsym_t *a, const lg_elfsym_t *b)
{
    assert_ptr_equal(a->name, b->name);
    assert_int_equal(a->value, b->value);
    assert_int_equal(a->size, b->size);
    assert_ptr_equal(a->section, b->section);
    assert_int_equal(a->section_align, b->section_align);
    assert_int_equal(a->section_size, b->section_size);
    assert_int_equal(a->section_addr, b->section_addr);
    assert_ptr_equal(a->source_file, b->source_file);
    assert_int_equal(a->file, b->file);
    assert_int_equal(a->section_index, b->section_index);
    assert_int_equal(a->section_funcs, b->section_funcs);
    assert_int_equal(a->is_local, b->is_local);
    assert_int_equal(a->is_weak, b->is_weak);
    assert_int_equal(a->is_hidden, b->is_hidden);
    assert_int_equal(a->is_label, b->is_label);
}

static void snapshot_check_and_free(snapshot_t *s, const lg_elfsyms_t *t)
{
    assert_int_equal(t->nsyms, s->nsyms);
    assert_int_equal(t->nfiles, s->nfiles);
    assert_int_equal(t->by_name.count, s->map_count);
    if (s->nsyms > 0) {
        for (size_t i = 0; i < s->nsyms; i++)
            assert_same_sym(&t->syms[i], &s->syms[i]);
        assert_memory_equal(t->next_same_name, s->next, s->nsyms * sizeof *s->next);
    }
    for (size_t i = 0; i < s->nfiles; i++)
        assert_same_file(&t->files[i], &s->files[i]);
    for (size_t i = 0; i < s->nsyms; i++)
        assert_int_equal(lg_elfsyms_first(t, t->syms[i].name), s->first[i]);
    free(s->syms);
    free(s->files);
    free(s->next);
    free(s->first);
}

/* Reads path into t, which must fail with err (when err != LG_OK) and leave t unchanged, and
 * record an error mentioning needle (if not NULL). */
static void expect_failure(lg_elfsyms_t *t, const char *path, lg_err_t err, const char *needle)
{
    snapshot_t snap;
    snapshot_take(&snap, t);
    lg_diag_t d;
    lg_diag_init(&d);
    lg_err_t got = lg_elfsyms_read(t, path, &d);
    if (got != err || (needle != NULL && !lg_test_diag_has(&d, LG_ERROR, needle))) {
        print_message("expected error %d mentioning \"%s\", got %d:\n", err,
                      needle ? needle : "", got);
        lg_test_diag_dump(&d);
    }
    assert_int_equal(got, err);
    assert_true(d.errors >= 1);
    if (needle != NULL)
        assert_true(lg_test_diag_has(&d, LG_ERROR, needle));
    lg_diag_destroy(&d);
    snapshot_check_and_free(&snap, t);
}

/* ------------------------------------------------------------------------------------------ */
/* Patching a host ELF64 object                                                               */

typedef struct blob {
    uint8_t *data;
    size_t size;
} blob_t;

static blob_t load(const char *path)
{
    blob_t b;
    b.data = lg_test_read_file(path, &b.size);
    assert_non_null(b.data);
    return b;
}

/* True when b is an ELF64 file in this machine's byte order, which the patch tests need. */
static bool native_elf64(const blob_t *b)
{
    const uint16_t one = 1;
    uint8_t native = *(const uint8_t *)&one == 1 ? ELFDATA2LSB : ELFDATA2MSB;
    return b->size >= sizeof(Elf64_Ehdr) && memcmp(b->data, ELFMAG, SELFMAG) == 0 &&
           b->data[EI_CLASS] == ELFCLASS64 && b->data[EI_DATA] == native;
}

static Elf64_Ehdr get_ehdr(const blob_t *b)
{
    Elf64_Ehdr h;
    memcpy(&h, b->data, sizeof h);
    return h;
}

/* File offset of the header of the first section of type. */
static size_t shdr_offset(const blob_t *b, uint32_t type, Elf64_Shdr *out)
{
    Elf64_Ehdr h = get_ehdr(b);
    size_t shnum = h.e_shnum;
    if (shnum == 0 && h.e_shoff != 0) {
        /* Extended numbering: the count is section 0's sh_size. */
        assert_true(h.e_shoff + sizeof *out <= b->size);
        memcpy(out, b->data + h.e_shoff, sizeof *out);
        shnum = out->sh_size;
    }
    for (size_t i = 0; i < shnum; i++) {
        size_t off = h.e_shoff + i * h.e_shentsize;
        assert_true(off + sizeof *out <= b->size);
        memcpy(out, b->data + off, sizeof *out);
        if (out->sh_type == type)
            return off;
    }
    fail_msg("no section of type %u", type);
    return 0;
}

/* File offset of the symbol named name in the .symtab. */
static size_t sym_offset(const blob_t *b, const char *name, Elf64_Sym *out)
{
    Elf64_Shdr symtab, strtab;
    shdr_offset(b, SHT_SYMTAB, &symtab);
    Elf64_Ehdr h = get_ehdr(b);
    memcpy(&strtab, b->data + h.e_shoff + symtab.sh_link * h.e_shentsize, sizeof strtab);
    for (size_t off = symtab.sh_offset; off + sizeof *out <= symtab.sh_offset + symtab.sh_size;
         off += sizeof *out) {
        memcpy(out, b->data + off, sizeof *out);
        if (strcmp((const char *)b->data + strtab.sh_offset + out->st_name, name) == 0)
            return off;
    }
    fail_msg("no symbol %s", name);
    return 0;
}

/* ------------------------------------------------------------------------------------------ */
/* Fixtures                                                                                   */

/* A member name too long for the ar header: it goes through the "//" name table. */
#define LONG_MEMBER "c_with_a_name_longer_than_sixteen.o"

static bool have_host_only; /* host_only.o could be built */

static int build_fixtures(void **state)
{
    (void)state;
    if (run("rm -rf '%s' && mkdir -p '%s'", WORK, WORK) != 0)
        return -1;
    const char *cc = "gcc -O2 -ffunction-sections";
    if (run("%s -c '%s/a.c' -o '%s/a.o'", cc, FIXTURES, WORK) != 0 ||
        run("%s -c '%s/b.c' -o '%s/b.o'", cc, FIXTURES, WORK) != 0 ||
        run("gcc -O2 -c '%s/c.c' -o '%s/c.o'", FIXTURES, WORK) != 0 ||
        run("cd '%s' && gcc a.o b.o c.o -o app", WORK) != 0 ||
        run("%s -c '%s/refs.c' -o '%s/refs.o'", cc, FIXTURES, WORK) != 0 ||
        run("gcc -c '%s/labels.S' -o '%s/labels.o' && cd '%s' && gcc -nostdlib -static "
            "-Wl,-e,lab_a labels.o -o labels",
            FIXTURES, WORK, WORK) != 0 ||
        run("cd '%s' && printf 'not an object\\n' > notes.txt && cp c.o %s && "
            "ar rcs libabc.a a.o notes.txt b.o %s",
            WORK, LONG_MEMBER, LONG_MEMBER) != 0 ||
        run("%s -fPIC -shared '%s/b.c' '%s/c.c' -o '%s/libbc.so' && strip '%s/libbc.so'", cc,
            FIXTURES, FIXTURES, WORK, WORK) != 0 ||
        /* A thin archive: its members stay files of their own, named relative to it. */
        run("cd '%s' && mkdir -p thin/sub && cp a.o thin/a.o && cp b.o thin/sub/b.o && "
            "cp notes.txt thin/notes.txt && "
            "ar rcT thin/libthin.a thin/a.o thin/notes.txt thin/sub/b.o",
            WORK) != 0)
        return -1;
    have_host_only =
        run("%s -c '%s/host_only.c' -o '%s/host_only.o'", cc, FIXTURES, WORK) == 0;
    if (!have_host_only)
        print_message("host_only.c does not build here (no ifunc?); that test is skipped\n");
    return 0;
}

/* The kind of the reference t holds from section `from` (LG_ELFREF_DATA: data) of file 0 to
 * the section of function `to`, or to the undefined name `to` when by_name; -1 if none. */
static int ref_kind(const lg_elfsyms_t *t, uint32_t from, const char *to, bool by_name)
{
    uint32_t to_section = by_name ? LG_ELFREF_BY_NAME : find_in(t, 0, to)->section_index;
    for (size_t i = 0; i < t->nrefs; i++) {
        const lg_elfref_t *r = &t->refs[i];
        if (r->file == 0 && r->from_section == from && r->to_section == to_section &&
            (!by_name || strcmp(r->to_name, to) == 0))
            return r->kind;
    }
    return -1;
}

static bool has_ref(const lg_elfsyms_t *t, uint32_t from, const char *to, bool by_name)
{
    return ref_kind(t, from, to, by_name) >= 0;
}

/* Relocations become references: calls and jumps from code, addresses in data; a call the
 * compiler inlined leaves none, and the unwind tables (which name every function) are left
 * out. */
static void test_object_references(void **state)
{
    (void)state;
    lg_elfsyms_t t;
    lg_elfsyms_init(&t);
    read_ok(&t, work_path("refs.o"));
    assert_true(t.files[0].refs_read);
    uint32_t direct = find_in(&t, 0, "direct_caller")->section_index;
    uint32_t leaf = find_in(&t, 0, "leaf")->section_index;
    uint32_t pointer = find_in(&t, 0, "pointer_caller")->section_index;
    assert_true(has_ref(&t, direct, "callee", false));
    assert_true(has_ref(&t, direct, "deep", false));     /* the inlined leaf's call */
    assert_true(has_ref(&t, direct, "extern_fn", true)); /* undefined: by name */
    assert_false(has_ref(&t, direct, "leaf", false));    /* inlined (flatten) */
    assert_true(has_ref(&t, leaf, "deep", false));
    assert_false(has_ref(&t, pointer, "by_pointer", false)); /* called through the table */
    assert_true(has_ref(&t, LG_ELFREF_DATA, "by_pointer", false));
    assert_true(has_ref(&t, LG_ELFREF_DATA, "by_pointer2", false));
    assert_true(has_ref(&t, LG_ELFREF_DATA, "extern_fn", true));
    /* Calls by their opcode (x86: the relocations do not tell), taken addresses apart. */
    assert_int_equal(ref_kind(&t, direct, "callee", false), LG_ELFREF_CALL);
    assert_int_equal(ref_kind(&t, direct, "extern_fn", true), LG_ELFREF_CALL);
    assert_int_equal(ref_kind(&t, LG_ELFREF_DATA, "by_pointer", false), LG_ELFREF_ADDRESS);
    assert_int_equal(ref_kind(&t, find_in(&t, 0, "refs_callback")->section_index, "taken_in_code",
                              false),
                     LG_ELFREF_ADDRESS);
    /* .eh_frame names every function; none of that is a reference. */
    assert_false(has_ref(&t, LG_ELFREF_DATA, "callee", false));
    assert_false(has_ref(&t, LG_ELFREF_DATA, "leaf", false));
    /* Unique, and no code refers to its own section. */
    for (size_t i = 0; i < t.nrefs; i++) {
        assert_true(t.refs[i].from_section == LG_ELFREF_DATA ||
                    t.refs[i].from_section != t.refs[i].to_section);
        for (size_t j = i + 1; j < t.nrefs; j++)
            assert_false(t.refs[i].file == t.refs[j].file &&
                         t.refs[i].from_section == t.refs[j].from_section &&
                         t.refs[i].to_section == t.refs[j].to_section &&
                         (t.refs[i].to_name == NULL) == (t.refs[j].to_name == NULL) &&
                         (t.refs[i].to_name == NULL ||
                          strcmp(t.refs[i].to_name, t.refs[j].to_name) == 0));
    }
    lg_elfsyms_destroy(&t);
}

/* A linked program has no relocations to read: no references, and none claimed complete. */
static void test_linked_has_no_references(void **state)
{
    (void)state;
    lg_elfsyms_t t;
    lg_elfsyms_init(&t);
    read_ok(&t, work_path("app"));
    assert_int_equal(t.nrefs, 0);
    assert_false(t.files[0].refs_read);
    lg_elfsyms_destroy(&t);
}

/* ------------------------------------------------------------------------------------------ */
/* Host objects, archive, executable                                                          */

static void test_object_sections_and_clones(void **state)
{
    (void)state;
    lg_elfsyms_t t;
    lg_elfsyms_init(&t);
    read_ok(&t, work_path("a.o"));

    assert_int_equal(t.nfiles, 1);
    assert_string_equal(t.files[0].path, work_path("a.o"));
    assert_null(t.files[0].member);
    assert_int_equal(t.files[0].kind, LG_ELF_OBJECT);
    assert_int_equal(t.files[0].elf_class, ELFCLASS64);

    const lg_elfsym_t *helper = find_in(&t, 0, "helper");
    assert_string_equal(helper->section, ".text.helper");
    assert_true(helper->is_local);
    assert_string_equal(helper->source_file, "a.c");
    assert_int_equal(helper->section_funcs, 1);
    assert_true(helper->size > 0);
    assert_int_equal(helper->section_size, helper->size);

    const lg_elfsym_t *cold = find_in(&t, 0, "cold_fn");
    assert_string_equal(cold->section, ".text.unlikely.cold_fn");
    assert_false(cold->is_local);
    assert_null(cold->source_file); /* globals carry no source file */

    assert_string_equal(find_in(&t, 0, "main")->section, ".text.startup.main");
    assert_string_equal(find_in(&t, 0, "a_entry")->section, ".text.a_entry");
    /* GCC's IPA-CP clone of scale(x, 7) on x86-64 at -O2. */
    const lg_elfsym_t *clone = find_in(&t, 0, "scale.constprop.0");
    assert_string_equal(clone->section, ".text.scale.constprop.0");
    assert_string_equal(clone->source_file, "a.c");
    assert_false(has_in(&t, 0, "scale"));
    /* Data and undefined symbols are not functions of this file. */
    assert_int_equal(lg_elfsyms_first(&t, "lg_sink"), UINT32_MAX);
    assert_int_equal(lg_elfsyms_first(&t, "b_entry"), UINT32_MAX);

    check_against_readelf(&t, 0);
    lg_elfsyms_destroy(&t);
}

static void test_shared_text_section_counts_distinct_addresses(void **state)
{
    (void)state;
    lg_elfsyms_t t;
    lg_elfsyms_init(&t);
    read_ok(&t, work_path("c.o"));

    const char *names[] = {"c_one", "c_alias", "c_weak", "c_local", "c_two"};
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const lg_elfsym_t *s = find_in(&t, 0, names[i]);
        assert_string_equal(s->section, ".text");
        /* c_alias shares c_one's address: four functions, not five. */
        assert_int_equal(s->section_funcs, 4);
    }
    assert_int_equal(find_in(&t, 0, "c_alias")->value, find_in(&t, 0, "c_one")->value);
    assert_true(find_in(&t, 0, "c_weak")->is_weak);
    assert_false(find_in(&t, 0, "c_one")->is_weak);
    assert_string_equal(find_in(&t, 0, "c_local")->source_file, "c.c");

    check_against_readelf(&t, 0);
    lg_elfsyms_destroy(&t);
}

static void test_linked_executable_statics_and_chains(void **state)
{
    (void)state;
    lg_elfsyms_t t;
    lg_elfsyms_init(&t);
    read_ok(&t, work_path("app"));
    assert_int_equal(t.nfiles, 1);
    assert_int_equal(t.files[0].kind, LG_ELF_LINKED);

    /* The two static helpers, told apart by the STT_FILE symbol before each. */
    uint32_t first = lg_elfsyms_first(&t, "helper");
    assert_int_not_equal(first, UINT32_MAX);
    uint32_t second = t.next_same_name[first];
    assert_int_not_equal(second, UINT32_MAX);
    assert_int_equal(t.next_same_name[second], UINT32_MAX);
    assert_true(first < second);
    assert_string_equal(t.syms[first].source_file, "a.c");
    assert_string_equal(t.syms[second].source_file, "b.c");
    assert_int_not_equal(t.syms[first].value, t.syms[second].value);
    assert_string_equal(t.syms[first].section, ".text");
    assert_int_equal(t.syms[first].section_funcs, 0);

    const lg_elfsym_t *main_fn = find_in(&t, 0, "main");
    assert_string_equal(main_fn->section, ".text");
    assert_null(main_fn->source_file);
    assert_string_equal(find_in(&t, 0, "c_local")->source_file, "c.c");

    size_t compared = check_against_readelf(&t, 0);
    assert_true(compared >= 9);
    lg_elfsyms_destroy(&t);
}

static void test_reads_accumulate_and_chain_in_order(void **state)
{
    (void)state;
    lg_elfsyms_t t;
    lg_elfsyms_init(&t);
    read_ok(&t, work_path("a.o"));
    read_ok(&t, work_path("b.o"));
    read_ok(&t, work_path("app"));
    assert_int_equal(t.nfiles, 3);

    /* helper: a.o, b.o, then both in app, in read order. */
    uint32_t files[4], n = 0;
    for (uint32_t i = lg_elfsyms_first(&t, "helper"); i != UINT32_MAX; i = t.next_same_name[i]) {
        assert_true(n < 4);
        if (n > 0)
            assert_true(i > 0 && t.syms[i].file >= files[n - 1]);
        files[n++] = t.syms[i].file;
    }
    assert_int_equal(n, 4);
    assert_int_equal(files[0], 0);
    assert_int_equal(files[1], 1);
    assert_int_equal(files[2], 2);
    assert_int_equal(files[3], 2);
    for (size_t i = 0; i < t.nsyms; i++)
        assert_true(t.syms[i].file < t.nfiles);
    check_against_readelf(&t, 0);
    check_against_readelf(&t, 1);
    check_against_readelf(&t, 2);
    assert_int_equal(lg_elfsyms_first(&t, "no_such_function"), UINT32_MAX);
    assert_int_equal(lg_elfsyms_first(&t, NULL), UINT32_MAX);
    lg_elfsyms_destroy(&t);
}

static void test_archive_members(void **state)
{
    (void)state;
    lg_elfsyms_t t;
    lg_elfsyms_init(&t);
    const char *lib = work_path("libabc.a");
    char expect[1200];
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_elfsyms_read(&t, lib, &d), LG_OK);
    /* The text member is skipped without a word. */
    assert_int_equal(d.count, 0);
    lg_diag_destroy(&d);

    assert_int_equal(t.nfiles, 3);
    const char *members[] = {"a.o", "b.o", LONG_MEMBER};
    for (uint32_t i = 0; i < 3; i++) {
        snprintf(expect, sizeof expect, "%s(%s)", lib, members[i]);
        assert_string_equal(t.files[i].path, expect);
        assert_string_equal(t.files[i].member, members[i]);
        assert_int_equal(t.files[i].kind, LG_ELF_OBJECT);
    }
    assert_string_equal(find_in(&t, 0, "helper")->section, ".text.helper");
    assert_string_equal(find_in(&t, 1, "helper")->source_file, "b.c");
    assert_int_equal(find_in(&t, 2, "c_two")->section_funcs, 4);
    assert_int_equal(find_in(&t, 0, "helper")->file, 0);
    lg_elfsyms_destroy(&t);
}

/* A thin archive ("ar T") names its members' files, relative to its own directory: each is read
 * from there and shown as "archive(path)", the way ld names it; a member that is not ELF is
 * skipped as in an ordinary archive. */
static void test_thin_archive_members(void **state)
{
    (void)state;
    lg_elfsyms_t t;
    lg_elfsyms_init(&t);
    const char *lib = work_path("thin/libthin.a");
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_elfsyms_read(&t, lib, &d), LG_OK);
    assert_int_equal(d.count, 0);
    lg_diag_destroy(&d);
    assert_int_equal(t.nfiles, 2);
    const char *members[] = {"thin/a.o", "thin/sub/b.o"};
    char expect[1200];
    for (uint32_t i = 0; i < 2; i++) {
        snprintf(expect, sizeof expect, "%s(%s)", lib, work_path(members[i]));
        assert_string_equal(t.files[i].path, expect);
        assert_string_equal(t.files[i].member, work_path(members[i]));
        assert_int_equal(t.files[i].kind, LG_ELF_OBJECT);
    }
    /* The same symbols as the objects themselves. */
    lg_elfsyms_t direct;
    lg_elfsyms_init(&direct);
    read_ok(&direct, work_path("a.o"));
    read_ok(&direct, work_path("b.o"));
    assert_int_equal(t.nsyms, direct.nsyms);
    for (size_t i = 0; i < t.nsyms; i++) {
        assert_string_equal(t.syms[i].name, direct.syms[i].name);
        assert_string_equal(t.syms[i].section, direct.syms[i].section);
        assert_int_equal(t.syms[i].size, direct.syms[i].size);
    }
    lg_elfsyms_destroy(&direct);
    lg_elfsyms_destroy(&t);
}

/* A thin archive whose member file is gone, or whose header is cut, is an error naming it. */
static void test_thin_archive_errors(void **state)
{
    (void)state;
    lg_elfsyms_t t;
    lg_elfsyms_init(&t);
    assert_int_equal(run("cd '%s' && mkdir -p gone && cp a.o gone/a.o && cp b.o gone/b.o && "
                         "rm -f gone/libgone.a && ar rcT gone/libgone.a gone/a.o gone/b.o && "
                         "rm gone/b.o",
                         WORK),
                     0);
    char message[1200];
    snprintf(message, sizeof message, "thin archive member 2: cannot open %s: %s",
             work_path("gone/b.o"), "No such file or directory");
    expect_failure(&t, work_path("gone/libgone.a"), LG_EIO, message);
    blob_t b = load(work_path("thin/libthin.a"));
    /* The last member's header ends the file: damage its end marker. */
    memcpy(b.data + b.size - 2, "xx", 2);
    const char *bad = lg_test_write_file("elfsym/thin-bad.a", b.data, b.size);
    expect_failure(&t, bad, LG_EELF, "thin archive member 3 at offset");
    free(b.data);
    assert_int_equal(t.nfiles, 0);
    lg_elfsyms_destroy(&t);
}

static void test_stripped_shared_object_uses_dynsym(void **state)
{
    (void)state;
    lg_elfsyms_t t;
    lg_elfsyms_init(&t);
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_elfsyms_read(&t, work_path("libbc.so"), &d), LG_OK);
    assert_true(lg_test_diag_has(&d, LG_WARNING, "only dynamic symbols"));
    assert_int_equal(d.errors, 0);
    lg_diag_destroy(&d);

    assert_int_equal(t.files[0].kind, LG_ELF_LINKED);
    const lg_elfsym_t *b = find_in(&t, 0, "b_entry");
    assert_string_equal(b->section, ".text");
    assert_true(b->size > 0);
    assert_false(b->is_local);
    assert_true(find_in(&t, 0, "c_weak")->is_weak);
    /* Statics are not in .dynsym. */
    assert_int_equal(lg_elfsyms_first(&t, "helper"), UINT32_MAX);
    lg_elfsyms_destroy(&t);
}

static void test_ifunc_and_zero_size(void **state)
{
    (void)state;
    if (!have_host_only) {
        print_message("skipped: host_only.o was not built\n");
        skip_case();
    }
    lg_elfsyms_t t;
    lg_elfsyms_init(&t);
    read_ok(&t, work_path("host_only.o"));
    const lg_elfsym_t *picked = find_in(&t, 0, "picked");
    const lg_elfsym_t *resolver = find_in(&t, 0, "resolve_picked");
    assert_string_equal(picked->section, resolver->section);
    assert_int_equal(picked->value, resolver->value);
    /* The ifunc symbol and its resolver are one piece of code. */
    assert_int_equal(picked->section_funcs, 1);
    const lg_elfsym_t *no_size = find_in(&t, 0, "no_size_fn");
    assert_int_equal(no_size->size, 0);
    assert_string_equal(no_size->section, ".text");
    check_against_readelf(&t, 0);
    lg_elfsyms_destroy(&t);
}

/* True when file `file` of t has a symbol called name. */
static bool has_symbol(const lg_elfsyms_t *t, uint32_t file, const char *name)
{
    for (size_t i = 0; i < t->nsyms; i++)
        if (t->syms[i].file == file && strcmp(t->syms[i].name, name) == 0)
            return true;
    return false;
}

/* Untyped labels in code are functions that end where the next symbol starts (or at the
 * section's end), in an object and in a linked file alike; a label inside a sized function, or
 * at the section's end, is none. */
/* A program linked against the shared C library needs it (DT_NEEDED); a static one and an
 * object file need nothing. */
static void test_needs_shared_libraries(void **state)
{
    (void)state;
    const char *files[] = {"app", "labels", "a.o"};
    const bool needs[] = {true, false, false};
    for (size_t k = 0; k < 3; k++) {
        lg_elfsyms_t t;
        lg_elfsyms_init(&t);
        read_ok(&t, work_path(files[k]));
        assert_int_equal(t.nfiles, 1);
        assert_int_equal(t.files[0].needs_shared_libraries, needs[k]);
        lg_elfsyms_destroy(&t);
    }
}

static void test_code_labels(void **state)
{
    (void)state;
    const char *files[] = {"labels.o", "labels"};
    for (uint32_t k = 0; k < 2; k++) {
        lg_elfsyms_t t;
        lg_elfsyms_init(&t);
        read_ok(&t, work_path(files[k]));
        const lg_elfsym_t *a = find_in(&t, 0, "lab_a");
        const lg_elfsym_t *b = find_in(&t, 0, "fn_b");
        const lg_elfsym_t *c = find_in(&t, 0, "lab_c");
        assert_true(a->is_label);
        assert_false(b->is_label);
        assert_int_equal(a->size, 4);         /* three nops and ret, up to fn_b */
        assert_int_equal(b->value, a->value + 4);
        assert_int_equal(b->size, 3);
        assert_int_equal(c->value, b->value + 3);
        assert_int_equal(c->size, 3);         /* to the end of .text */
        assert_false(has_symbol(&t, 0, "inner_b"));
        assert_false(has_symbol(&t, 0, "lab_end"));
        if (k == 0)
            assert_int_equal(a->section_funcs, 3);
        lg_elfsyms_destroy(&t);
    }
}

/* More sections than an ELF header or a symbol's st_shndx can count (SHN_LORESERVE = 0xff00):
 * e_shnum, e_shstrndx and the indexes of the last functions' sections move to section 0 and to
 * SHT_SYMTAB_SHNDX. Written in assembly: a C file this size takes the compiler far longer. */
#define XINDEX_FUNCS 65400u

static void test_extended_section_indexes(void **state)
{
    (void)state;
    const char *s_path = work_path("many.s");
    FILE *f = fopen(s_path, "w");
    assert_non_null(f);
    for (unsigned i = 0; i < XINDEX_FUNCS; i++)
        fprintf(f, ".section .text.f%u,\"ax\",@progbits\n.globl f%u\n.type f%u,@function\n"
                   "f%u:\n\tret\n.size f%u,1\n", i, i, i, i, i);
    assert_int_equal(fclose(f), 0);
    if (run("gcc -c '%s' -o '%s/many.o'", s_path, WORK) != 0) {
        print_message("skipped: the host assembler did not build the many-section object\n");
        skip_case();
    }
    lg_elfsyms_t t;
    lg_elfsyms_init(&t);
    read_ok(&t, work_path("many.o"));
    assert_int_equal(t.nsyms, XINDEX_FUNCS);
    char expect[64];
    uint32_t max_index = 0;
    for (size_t i = 0; i < t.nsyms; i++) {
        const lg_elfsym_t *s = &t.syms[i];
        snprintf(expect, sizeof expect, ".text.%s", s->name);
        assert_string_equal(s->section, expect);
        assert_int_equal(s->size, 1);
        assert_int_equal(s->section_size, 1);
        assert_int_equal(s->section_funcs, 1);
        if (i > 0)
            assert_true(s->section_index > t.syms[i - 1].section_index);
        max_index = s->section_index;
    }
    assert_true(max_index > SHN_LORESERVE);
    snprintf(expect, sizeof expect, "f%u", XINDEX_FUNCS - 1);
    assert_int_equal(find_in(&t, 0, expect)->section_index, max_index);
    lg_elfsyms_destroy(&t);

    /* Without its SHT_SYMTAB_SHNDX the high-index functions cannot be placed: each is skipped
     * with a warning, and past the per-file cap the warnings are only counted. */
    blob_t b = load(work_path("many.o"));
    if (!native_elf64(&b)) {
        free(b.data);
        return;
    }
    Elf64_Shdr sh;
    size_t off = shdr_offset(&b, SHT_SYMTAB_SHNDX, &sh);
    sh.sh_type = SHT_PROGBITS;
    memcpy(b.data + off, &sh, sizeof sh);
    lg_elfsyms_init(&t);
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_elfsyms_read(&t, lg_test_write_file("elfsym/no_shndx.o", b.data, b.size),
                                     &d),
                     LG_OK);
    assert_true(lg_test_diag_has(&d, LG_WARNING, "uses SHN_XINDEX"));
    assert_true(lg_test_diag_has(&d, LG_WARNING, "more warnings about this file not recorded"));
    assert_true(d.warnings <= 21);
    assert_true(t.nsyms < XINDEX_FUNCS);
    for (size_t i = 0; i < t.nsyms; i++)
        assert_true(t.syms[i].section_index < SHN_LORESERVE);
    lg_diag_destroy(&d);
    free(b.data);
    lg_elfsyms_destroy(&t);
}

/* ------------------------------------------------------------------------------------------ */
/* Cross compilers                                                                            */

typedef struct cross {
    const char *cc;
    const char *flags;
    bool link;        /* the toolchain can link a freestanding executable in this mode */
    uint16_t machine;
    uint8_t elf_class;
    bool big_endian;
} cross_t;

static const cross_t crosses[] = {
    {"sh4-linux-gnu-gcc", "", true, EM_SH, ELFCLASS32, false},
    /* The Debian SH-4 toolchain has no big-endian linker emulation: objects only. */
    {"sh4-linux-gnu-gcc", "-mb", false, EM_SH, ELFCLASS32, true},
    {"arm-none-eabi-gcc", "-mthumb", true, EM_ARM, ELFCLASS32, false},
    {"arm-none-eabi-gcc", "-marm", true, EM_ARM, ELFCLASS32, false},
    {"arm-none-eabi-gcc", "-mbig-endian", true, EM_ARM, ELFCLASS32, true},
    {"riscv64-linux-gnu-gcc", "", true, EM_RISCV, ELFCLASS64, false},
};

static void check_cross_file(const lg_elfsyms_t *t, uint32_t file, const cross_t *c,
                             lg_elf_kind_t kind)
{
    const lg_elf_file_t *f = &t->files[file];
    assert_int_equal(f->kind, kind);
    assert_int_equal(f->machine, c->machine);
    assert_int_equal(f->elf_class, c->elf_class);
    assert_int_equal(f->big_endian, c->big_endian);
    check_against_readelf(t, file);
}

static void test_cross_targets(void **state)
{
    (void)state;
    size_t built = 0;
    for (size_t k = 0; k < sizeof crosses / sizeof crosses[0]; k++) {
        const cross_t *c = &crosses[k];
        if (!lg_test_have(c->cc)) {
            print_message("skipping %s %s: not installed\n", c->cc, c->flags);
            continue;
        }
        char d[1024];
        snprintf(d, sizeof d, "%s/cross%zu", WORK, k);
        const char *cc_flags = "-O2 -ffreestanding";
        assert_int_equal(run("mkdir -p '%s' && cd '%s' && "
                             "%s %s %s -ffunction-sections -c '%s/a.c' -o a.o && "
                             "%s %s %s -ffunction-sections -c '%s/b.c' -o b.o && "
                             "%s %s %s -c '%s/c.c' -o c.o",
                             d, d, c->cc, c->flags, cc_flags, FIXTURES, c->cc, c->flags,
                             cc_flags, FIXTURES, c->cc, c->flags, cc_flags, FIXTURES),
                         0);
        built++;
        lg_elfsyms_t t;
        lg_elfsyms_init(&t);
        char path[1200];
        const char *objs[] = {"a.o", "b.o", "c.o"};
        for (size_t i = 0; i < 3; i++) {
            snprintf(path, sizeof path, "%s/%s", d, objs[i]);
            read_ok(&t, path);
            check_cross_file(&t, (uint32_t)i, c, LG_ELF_OBJECT);
        }
        assert_string_equal(find_in(&t, 0, "helper")->section, ".text.helper");
        assert_string_equal(find_in(&t, 0, "helper")->source_file, "a.c");
        assert_string_equal(find_in(&t, 0, "cold_fn")->section, ".text.unlikely.cold_fn");
        assert_string_equal(find_in(&t, 0, "main")->section, ".text.startup.main");
        assert_string_equal(find_in(&t, 1, "helper")->source_file, "b.c");
        assert_int_equal(find_in(&t, 2, "c_two")->section_funcs, 4);
        if (has_in(&t, 0, "scale.constprop.0"))
            assert_string_equal(find_in(&t, 0, "scale.constprop.0")->section,
                                ".text.scale.constprop.0");
        else
            print_message("note: %s %s did not clone scale()\n", c->cc, c->flags);
        if (c->machine == EM_ARM && strcmp(c->flags, "-mthumb") == 0)
            assert_int_equal(find_in(&t, 0, "helper")->value & 1u, 1u); /* Thumb bit kept */

        if (c->link) {
            assert_int_equal(run("cd '%s' && %s %s %s -nostdlib -Wl,-e,main a.o b.o c.o -o app",
                                 d, c->cc, c->flags, cc_flags),
                             0);
            snprintf(path, sizeof path, "%s/app", d);
            read_ok(&t, path);
            check_cross_file(&t, 3, c, LG_ELF_LINKED);
            uint32_t h = lg_elfsyms_first(&t, "helper");
            size_t in_app = 0;
            for (; h != UINT32_MAX; h = t.next_same_name[h]) {
                if (t.syms[h].file != 3)
                    continue;
                assert_string_equal(t.syms[h].source_file, in_app == 0 ? "a.c" : "b.c");
                in_app++;
            }
            assert_int_equal(in_app, 2);
        }
        lg_elfsyms_destroy(&t);
    }
    if (built == 0) {
        print_message("skipped: no cross compiler installed\n");
        skip_case();
    }
}

/* A RISC-V (or any other machine's) object after a host one is another program's: refused,
 * naming both files and both machines, and the table keeps only the host file. So is an
 * archive whose members mix machines. */
static void test_mixed_machines_refused(void **state)
{
    (void)state;
    const cross_t *c = NULL;
    for (size_t k = 0; k < sizeof crosses / sizeof crosses[0] && c == NULL; k++)
        if (crosses[k].machine != EM_SH && lg_test_have(crosses[k].cc))
            c = &crosses[k];
    if (c == NULL) {
        print_message("skipped: no cross compiler installed\n");
        skip_case();
        return;
    }
    assert_int_equal(run("cd '%s' && %s %s -O2 -ffreestanding -c '%s/a.c' -o other.o && "
                         "rm -f mixed.a && ar rcs mixed.a b.o other.o",
                         WORK, c->cc, c->flags, FIXTURES),
                     0);
    lg_elfsyms_t t;
    lg_elfsyms_init(&t);
    read_ok(&t, work_path("a.o"));
    const char *host = lg_elf_machine_name(t.files[0].machine);
    if (host == NULL || t.files[0].machine == c->machine) {
        lg_elfsyms_destroy(&t);
        skip_case();
        return;
    }
    char host_target[256], want[2048];
    snprintf(host_target, sizeof host_target, "%s (ELF%d, %s)", host,
             t.files[0].elf_class == ELFCLASS64 ? 64 : 32,
             t.files[0].big_endian ? "big-endian" : "little-endian");
    snprintf(want, sizeof want, "built for %s (ELF%d, %s), but %s is built for %s",
             lg_elf_machine_name(c->machine), c->elf_class == ELFCLASS64 ? 64 : 32,
             c->big_endian ? "big-endian" : "little-endian", work_path("a.o"), host_target);
    expect_failure(&t, work_path("other.o"), LG_EELF, want);
    lg_elfsyms_destroy(&t);

    /* The other way round, and inside one archive. */
    lg_elfsyms_init(&t);
    read_ok(&t, work_path("other.o"));
    snprintf(want, sizeof want, "built for %s, but", host_target);
    expect_failure(&t, work_path("a.o"), LG_EELF, want);
    lg_elfsyms_destroy(&t);
    lg_elfsyms_init(&t);
    snprintf(want, sizeof want, "built for %s", lg_elf_machine_name(c->machine));
    expect_failure(&t, work_path("mixed.a"), LG_EELF, want);
    lg_elfsyms_destroy(&t);
}

/* gcc -flto without -ffat-lto-objects writes GIMPLE bytecode and no function: such an object is
 * marked lto_bytecode. A fat one holds the functions' code as well and reads as any object. */
static void test_lto_objects(void **state)
{
    (void)state;
    if (run("cd '%s' && gcc -O2 -ffunction-sections -flto -c '%s/a.c' -o slim.o && "
            "gcc -O2 -ffunction-sections -flto -ffat-lto-objects -c '%s/a.c' -o fat.o && "
            "rm -f libslim.a && gcc-ar rcs libslim.a slim.o",
            WORK, FIXTURES, FIXTURES) != 0) {
        print_message("skipped: gcc -flto does not work here\n");
        skip_case();
        return;
    }
    lg_elfsyms_t t;
    lg_elfsyms_init(&t);
    read_ok(&t, work_path("slim.o"));
    read_ok(&t, work_path("fat.o"));
    read_ok(&t, work_path("libslim.a"));
    read_ok(&t, work_path("a.o"));
    assert_int_equal(t.nfiles, 4);
    assert_true(t.files[0].lto_bytecode);
    assert_false(t.files[1].lto_bytecode);
    assert_true(t.files[2].lto_bytecode);
    assert_string_equal(t.files[2].member, "slim.o");
    assert_false(t.files[3].lto_bytecode);
    for (size_t i = 0; i < t.nsyms; i++)
        assert_true(t.syms[i].file == 1 || t.syms[i].file == 3);
    assert_string_equal(find_in(&t, 1, "helper")->section, ".text.helper");
    assert_true(find_in(&t, 1, "helper")->size > 0);
    lg_elfsyms_destroy(&t);
}

/* ------------------------------------------------------------------------------------------ */
/* Errors                                                                                     */

static void test_missing_file_is_eio(void **state)
{
    (void)state;
    lg_elfsyms_t t;
    lg_elfsyms_init(&t);
    const char *path = work_path("does-not-exist.o");
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_elfsyms_read(&t, path, &d), LG_EIO);
    assert_int_equal(d.count, 1);
    assert_string_equal(d.entries[0].where, path);
    assert_string_equal(d.entries[0].message, "cannot open: No such file or directory");
    lg_diag_destroy(&d);
    assert_int_equal(t.nsyms, 0);
    assert_int_equal(t.nfiles, 0);

    expect_failure(&t, WORK, LG_EIO, "cannot read");
    lg_elfsyms_destroy(&t);
}

static void test_not_elf(void **state)
{
    (void)state;
    lg_elfsyms_t t;
    lg_elfsyms_init(&t);
    read_ok(&t, work_path("b.o"));
    const char text[] = "int main(void) { return 0; }\n";
    expect_failure(&t, lg_test_write_file("elfsym/text.c", text, sizeof text - 1), LG_EELF,
                   "not an ELF file or ar archive");
    expect_failure(&t, lg_test_write_file("elfsym/empty", "", 0), LG_EELF,
                   "not an ELF file or ar archive");
    lg_elfsyms_destroy(&t);
}

static void test_truncated_object_never_reads(void **state)
{
    (void)state;
    blob_t b = load(work_path("a.o"));
    lg_elfsyms_t t;
    lg_elfsyms_init(&t);
    read_ok(&t, work_path("b.o"));
    /* GNU as puts the section headers last, so every proper prefix is unusable. */
    for (size_t len = 0; len < b.size; len = next_cut(len, b.size)) {
        const char *path = lg_test_write_file("elfsym/truncated.o", b.data, len);
        expect_failure(&t, path, LG_EELF, NULL);
    }
    expect_failure(&t, lg_test_write_file("elfsym/truncated.o", b.data, b.size / 2), LG_EELF,
                   "truncated");
    free(b.data);
    lg_elfsyms_destroy(&t);
}

static void test_truncated_archive(void **state)
{
    (void)state;
    blob_t b = load(work_path("libabc.a"));
    lg_elfsyms_t t;
    lg_elfsyms_init(&t);
    read_ok(&t, work_path("c.o"));
    size_t ok = 0, failed = 0;
    for (size_t len = 0; len < b.size; len = next_cut(len, b.size)) {
        const char *path = lg_test_write_file("elfsym/truncated.a", b.data, len);
        snapshot_t snap;
        snapshot_take(&snap, &t);
        lg_diag_t d;
        lg_diag_init(&d);
        lg_err_t err = lg_elfsyms_read(&t, path, &d);
        if (err == LG_OK) {
            /* Cut at a member boundary: a shorter, valid archive. */
            assert_int_equal(d.errors, 0);
            free(snap.syms);
            free(snap.files);
            free(snap.next);
            free(snap.first);
            lg_elfsyms_destroy(&t);
            lg_elfsyms_init(&t);
            read_ok(&t, work_path("c.o"));
            ok++;
        } else {
            assert_true(d.errors >= 1);
            snapshot_check_and_free(&snap, &t);
            failed++;
        }
        lg_diag_destroy(&d);
    }
    assert_true(failed > ok);
    expect_failure(&t, lg_test_write_file("elfsym/truncated.a", b.data, b.size - 1), LG_EELF,
                   "is truncated");
    free(b.data);
    lg_elfsyms_destroy(&t);
}

static void test_bad_symtab_entsize_names_section(void **state)
{
    (void)state;
    blob_t b = load(work_path("a.o"));
    if (!native_elf64(&b)) {
        free(b.data);
        print_message("skipped: the host object is not native ELF64\n");
        skip_case();
    }
    Elf64_Shdr sh;
    size_t off = shdr_offset(&b, SHT_SYMTAB, &sh);
    sh.sh_entsize = sizeof(Elf64_Sym) + 8;
    memcpy(b.data + off, &sh, sizeof sh);
    const char *bad = lg_test_write_file("elfsym/bad_entsize.o", b.data, b.size);

    lg_elfsyms_t t;
    lg_elfsyms_init(&t);
    read_ok(&t, work_path("b.o"));
    read_ok(&t, work_path("app"));
    char needle[1200];
    snprintf(needle, sizeof needle, "%s: section .symtab: expected sh_entsize 24", bad);
    expect_failure(&t, bad, LG_EELF, needle);

    /* The same object inside an archive: the whole archive fails, good members included. */
    assert_int_equal(run("cd '%s' && rm -f libbad.a && cp bad_entsize.o bad.o && "
                         "ar rcs libbad.a a.o bad.o", WORK),
                     0);
    snprintf(needle, sizeof needle, "%s(bad.o): section .symtab: expected sh_entsize",
             work_path("libbad.a"));
    expect_failure(&t, work_path("libbad.a"), LG_EELF, needle);
    free(b.data);
    lg_elfsyms_destroy(&t);
}

static void test_symtab_size_not_multiple(void **state)
{
    (void)state;
    blob_t b = load(work_path("a.o"));
    if (!native_elf64(&b)) {
        free(b.data);
        skip_case();
    }
    Elf64_Shdr sh;
    size_t off = shdr_offset(&b, SHT_SYMTAB, &sh);
    sh.sh_size -= 5;
    memcpy(b.data + off, &sh, sizeof sh);
    lg_elfsyms_t t;
    lg_elfsyms_init(&t);
    expect_failure(&t, lg_test_write_file("elfsym/bad_size.o", b.data, b.size), LG_EELF,
                   "section .symtab: sh_size");
    free(b.data);
    lg_elfsyms_destroy(&t);
}

static void test_wrong_e_type(void **state)
{
    (void)state;
    blob_t b = load(work_path("a.o"));
    if (!native_elf64(&b)) {
        free(b.data);
        skip_case();
    }
    Elf64_Ehdr h = get_ehdr(&b);
    h.e_type = ET_CORE;
    memcpy(b.data, &h, sizeof h);
    lg_elfsyms_t t;
    lg_elfsyms_init(&t);
    expect_failure(&t, lg_test_write_file("elfsym/core.o", b.data, b.size), LG_EELF,
                   "expected an executable, shared object or relocatable object, found e_type 4");
    free(b.data);
    lg_elfsyms_destroy(&t);
}

static void test_bad_names_get_placeholders(void **state)
{
    (void)state;
    blob_t b = load(work_path("a.o"));
    if (!native_elf64(&b)) {
        free(b.data);
        skip_case();
    }
    /* a_entry's name points past the string table; cold_fn's section name likewise. */
    Elf64_Sym sym;
    size_t off = sym_offset(&b, "a_entry", &sym);
    sym.st_name = 0x7fffff;
    memcpy(b.data + off, &sym, sizeof sym);
    off = sym_offset(&b, "cold_fn", &sym);
    Elf64_Ehdr h = get_ehdr(&b);
    Elf64_Shdr sh;
    size_t sh_off = h.e_shoff + (size_t)sym.st_shndx * h.e_shentsize;
    memcpy(&sh, b.data + sh_off, sizeof sh);
    sh.sh_name = 0x7ffffff;
    memcpy(b.data + sh_off, &sh, sizeof sh);

    lg_elfsyms_t t;
    lg_elfsyms_init(&t);
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_elfsyms_read(&t, lg_test_write_file("elfsym/bad_names.o", b.data,
                                                             b.size), &d),
                     LG_OK);
    assert_true(lg_test_diag_has(&d, LG_WARNING, "invalid name offset"));
    assert_true(lg_test_diag_has(&d, LG_WARNING, "invalid section name offset"));
    lg_diag_destroy(&d);
    const lg_elfsym_t *renamed = find_in(&t, 0, "[invalid st_name 0x7fffff]");
    assert_string_equal(renamed->section, ".text.a_entry");
    char label[64];
    snprintf(label, sizeof label, "[section %u]", (unsigned)sym.st_shndx);
    assert_string_equal(find_in(&t, 0, "cold_fn")->section, label);
    free(b.data);
    lg_elfsyms_destroy(&t);
}

static void test_section_index_out_of_range(void **state)
{
    (void)state;
    blob_t b = load(work_path("a.o"));
    if (!native_elf64(&b)) {
        free(b.data);
        skip_case();
    }
    Elf64_Sym sym;
    size_t off = sym_offset(&b, "a_entry", &sym);
    sym.st_shndx = 0xfe00; /* below SHN_LORESERVE, far beyond e_shnum */
    memcpy(b.data + off, &sym, sizeof sym);
    lg_elfsyms_t t;
    lg_elfsyms_init(&t);
    lg_diag_t d;
    lg_diag_init(&d);
    assert_int_equal(lg_elfsyms_read(&t, lg_test_write_file("elfsym/bad_shndx.o", b.data,
                                                             b.size), &d),
                     LG_OK);
    assert_true(lg_test_diag_has(&d, LG_WARNING, "out of range"));
    lg_diag_destroy(&d);
    assert_false(has_in(&t, 0, "a_entry"));
    assert_true(has_in(&t, 0, "cold_fn"));
    free(b.data);
    lg_elfsyms_destroy(&t);
}

/* Random patches of the ELF header, the section headers and the symbol table: any result is
 * fine as long as nothing crashes (run under ASan), errors leave the table alone and successes
 * leave it consistent. */
static void test_random_corruption(void **state)
{
    (void)state;
    blob_t b = load(work_path("a.o"));
    if (!native_elf64(&b)) {
        free(b.data);
        skip_case();
    }
    Elf64_Ehdr h = get_ehdr(&b);
    Elf64_Shdr symtab;
    shdr_offset(&b, SHT_SYMTAB, &symtab);
    size_t regions[3][2] = {
        {0, sizeof h},
        {h.e_shoff, (size_t)h.e_shnum * h.e_shentsize},
        {symtab.sh_offset, symtab.sh_size},
    };
    uint8_t *copy = malloc(b.size);
    assert_non_null(copy);
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    lg_elfsyms_t t;
    lg_elfsyms_init(&t);
    size_t failures = 0;
    for (int round = 0; round < FUZZ_ROUNDS; round++) {
        memcpy(copy, b.data, b.size);
        for (int p = 0; p < FUZZ_PATCHES; p++) {
            rng ^= rng << 13; /* xorshift64 */
            rng ^= rng >> 7;
            rng ^= rng << 17;
            size_t *r = regions[rng % 3];
            size_t at = r[0] + (size_t)((rng >> 8) % r[1]);
            copy[at] = (uint8_t)(rng >> 32);
        }
        const char *path = lg_test_write_file("elfsym/fuzz.o", copy, b.size);
        snapshot_t snap;
        snapshot_take(&snap, &t);
        lg_diag_t d;
        lg_diag_init(&d);
        lg_err_t err = lg_elfsyms_read(&t, path, &d);
        if (err != LG_OK) {
            assert_true(d.errors >= 1);
            snapshot_check_and_free(&snap, &t);
            failures++;
        } else {
            free(snap.syms);
            free(snap.files);
            free(snap.next);
            free(snap.first);
            for (size_t i = 0; i < t.nsyms; i++) {
                assert_non_null(t.syms[i].name);
                assert_non_null(t.syms[i].section);
                assert_true(t.syms[i].file < t.nfiles);
            }
        }
        lg_diag_destroy(&d);
    }
    print_message("random corruption: %zu of %d reads failed cleanly\n", failures, FUZZ_ROUNDS);
    free(copy);
    free(b.data);
    lg_elfsyms_destroy(&t);
}

/* ------------------------------------------------------------------------------------------ */
/* Small API                                                                                  */

static void test_probe(void **state)
{
    (void)state;
    assert_true(lg_elf_probe((const uint8_t *)"\x7f" "ELF\x02\x01", 6));
    assert_true(lg_elf_probe((const uint8_t *)"\x7f" "ELF", 4));
    assert_true(lg_elf_probe((const uint8_t *)"!<arch>\n/  ", 11));
    assert_false(lg_elf_probe((const uint8_t *)"!<arch>", 7));
    assert_false(lg_elf_probe((const uint8_t *)"\x7f" "EL", 3));
    assert_true(lg_elf_probe((const uint8_t *)"!<thin>\n", 8));
    assert_false(lg_elf_probe((const uint8_t *)"!<thin>", 7));
    assert_false(lg_elf_probe((const uint8_t *)"PRF\0", 4));
    assert_false(lg_elf_probe(NULL, 0));
}

static void test_destroy_accepts_zeroed(void **state)
{
    (void)state;
    lg_elfsyms_t t;
    memset(&t, 0, sizeof t);
    lg_elfsyms_destroy(&t);
    lg_elfsyms_destroy(NULL);
    lg_elfsyms_init(&t);
    assert_int_equal(lg_elfsyms_first(&t, "main"), UINT32_MAX);
    lg_elfsyms_destroy(&t);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_object_sections_and_clones),
        cmocka_unit_test(test_object_references),
        cmocka_unit_test(test_linked_has_no_references),
        cmocka_unit_test(test_shared_text_section_counts_distinct_addresses),
        cmocka_unit_test(test_linked_executable_statics_and_chains),
        cmocka_unit_test(test_reads_accumulate_and_chain_in_order),
        cmocka_unit_test(test_archive_members),
        cmocka_unit_test(test_thin_archive_members),
        cmocka_unit_test(test_thin_archive_errors),
        cmocka_unit_test(test_stripped_shared_object_uses_dynsym),
        cmocka_unit_test(test_ifunc_and_zero_size),
        cmocka_unit_test(test_code_labels),
        cmocka_unit_test(test_extended_section_indexes),
        cmocka_unit_test(test_cross_targets),
        cmocka_unit_test(test_mixed_machines_refused),
        cmocka_unit_test(test_lto_objects),
        cmocka_unit_test(test_missing_file_is_eio),
        cmocka_unit_test(test_not_elf),
        cmocka_unit_test(test_truncated_object_never_reads),
        cmocka_unit_test(test_truncated_archive),
        cmocka_unit_test(test_bad_symtab_entsize_names_section),
        cmocka_unit_test(test_symtab_size_not_multiple),
        cmocka_unit_test(test_wrong_e_type),
        cmocka_unit_test(test_bad_names_get_placeholders),
        cmocka_unit_test(test_section_index_out_of_range),
        cmocka_unit_test(test_random_corruption),
        cmocka_unit_test(test_probe),
        cmocka_unit_test(test_destroy_accepts_zeroed),
        cmocka_unit_test(test_needs_shared_libraries),
    };
    int failed = cmocka_run_group_tests_name("elfsym", tests, build_fixtures, NULL);
    if (failed == 0 && skipped_cases > 0) {
        printf("%d case(s) skipped: the program is reported as skipped\n", skipped_cases);
        return LG_TEST_SKIPPED;
    }
    return failed;
}
