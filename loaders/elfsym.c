/* elfsym.c - read function symbols, their sizes and sections from ELF files and ar archives.
 *
 * Outline (after elfutils nm):
 *   1. open the file read-only and hand it to libelf (ELF_C_READ_MMAP); check elf_kind
 *   2. an ar archive: walk its members with elf_begin(fd, cmd, archive) / elf_next and read each
 *      ELF member as its own file "lib.a(member.o)"; the index members and non-ELF members are
 *      skipped
 *   3. one ELF file: pick SHT_SYMTAB (else SHT_DYNSYM, with a warning), validate its entry size,
 *      and keep the symbols that are functions defined in an executable section
 *   4. everything goes into a temporary table first; only a file read without error is appended
 *      to the caller's table, so a failed read leaves that table exactly as it was
 *
 * Definitions:
 *   display path  what diagnostics and files[].path name: the path as given, or
 *                 "lib.a(member.o)" for an archive member
 *   source file   the name of the last STT_FILE symbol before a symbol in symbol-table order;
 *                 the toolchain emits one before the locals of each translation unit
 *
 * Every count, offset and index read from the file is checked before it is used to divide,
 * allocate or index; libelf's own checks (elf_strptr, gelf_getsym) are relied on for string and
 * symbol offsets, and each of its results is checked.
 */
#include "elfsym.h"

#include "arm_attributes.h"
#include "mem.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <inttypes.h>
#include <limits.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* Warnings recorded per ELF file (or archive member) before the rest are only counted: a file
 * with a corrupt string table would otherwise warn once per symbol. */
#define LG_ELF_MAX_WARNINGS_PER_FILE 20u

/* The magic numbers lg_elf_probe looks for: "\x7f" "ELF" is ELFMAG from <elf.h>. */
#define LG_AR_MAGIC "!<arch>\n"
#define LG_AR_MAGIC_BYTES 8u
/* A thin archive ("ar T") has its own magic, of the same length. */
#define LG_AR_THIN_MAGIC "!<thin>\n"
/* Size of an ar member header (struct ar_hdr in <ar.h>), and where in it the member size is
 * written (ar_size: 10 ASCII digits). */
#define LG_AR_HEADER_BYTES 60u
#define LG_AR_SIZE_OFFSET 48u
#define LG_AR_SIZE_BYTES 10u
/* The member name field (ar_name) and the two bytes that end every header (ar_fmag). */
#define LG_AR_NAME_BYTES 16u
#define LG_AR_FMAG_OFFSET 58u
#define LG_AR_FMAG "`\n"
/* Bytes lg_elf_probe needs to tell both apart. */
#define LG_ELF_PROBE_BYTES LG_AR_MAGIC_BYTES

/* Room for a placeholder such as "[invalid st_name 0xffffffff]" or "[section 4294967295]". */
#define LG_ELF_PLACEHOLDER_BYTES 48u

/* State of one lg_elfsyms_read call. */
typedef struct reader {
    lg_elfsyms_t *out; /* temporary table the input is read into */
    size_t base_nsyms; /* symbols already in the caller's table, counted against the limit */
    size_t base_nfiles;
    const lg_elf_file_t *first_file; /* the caller's first file, which every file read must
                                        match in machine, class and byte order; NULL if none */
    const char *path; /* as given by the caller */
    lg_diag_t *d;
    /* Archive members without a symbol table: normal in archives (a member whose code is all
     * in other members, or none for this machine), so counted into one note, not a warning
     * each. The first one's name, cut to fit. */
    size_t members_without_symtab;
    char first_without_symtab[LG_ELF_PLACEHOLDER_BYTES];
} reader_t;

/* What one ELF file needs while its symbols are read. */
typedef struct elf_reader {
    reader_t *r;
    Elf *elf;
    const char *where; /* display path */
    size_t shstrndx;   /* section holding section names */
    size_t shnum;      /* sections, including the null section 0 */
    size_t warnings;   /* recorded for this file */
    size_t suppressed; /* not recorded because of LG_ELF_MAX_WARNINGS_PER_FILE */
} elf_reader_t;

/* What is known about one section of the file, filled in when a symbol first refers to it. */
typedef enum sec_state {
    SEC_UNKNOWN = 0,
    SEC_EXEC = 1,  /* SHF_EXECINSTR: its function symbols are kept */
    SEC_OTHER = 2, /* not executable, or its header is unreadable */
} sec_state_t;

typedef struct sec_info {
    sec_state_t state;
    uint64_t flags; /* sh_flags */
    const char *name; /* in libelf's section name table (valid while the Elf is open), or NULL */
    uint64_t align, size;
    uint64_t addr; /* sh_addr: where a linked file's symbol values start; 0 in objects */
} sec_info_t;

/* ------------------------------------------------------------------------------------------ */
/* Strings and diagnostics                                                                    */


/* Records an entry whose location is "WHERE: section SECTION" (or WHERE alone when section is
 * NULL or memory runs out). */
static void vadd_at(lg_diag_t *d, lg_severity_t sev, const char *where, const char *section,
                    const char *fmt, va_list ap) __attribute__((format(printf, 5, 0)));

static void vadd_at(lg_diag_t *d, lg_severity_t sev, const char *where, const char *section,
                    const char *fmt, va_list ap)
{
    char *full = section != NULL ? lg_format("%s: section %s", where, section) : NULL;
    lg_diag_vadd(d, sev, full != NULL ? full : where, fmt, ap);
    free(full);
}

static lg_err_t fail_at(elf_reader_t *f, lg_err_t err, const char *section, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static lg_err_t fail_at(elf_reader_t *f, lg_err_t err, const char *section, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vadd_at(f->r->d, LG_ERROR, f->where, section, fmt, ap);
    va_end(ap);
    return err;
}

static void warn_at(elf_reader_t *f, const char *section, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void warn_at(elf_reader_t *f, const char *section, const char *fmt, ...)
{
    if (f->warnings >= LG_ELF_MAX_WARNINGS_PER_FILE) {
        f->suppressed++;
        return;
    }
    f->warnings++;
    va_list ap;
    va_start(ap, fmt);
    vadd_at(f->r->d, LG_WARNING, f->where, section, fmt, ap);
    va_end(ap);
}

/* The name of section index, or a placeholder "[section N]" in buf when it has none. */
static const char *section_label(const char *name, size_t index, char *buf, size_t n)
{
    if (name != NULL && *name != '\0')
        return name;
    snprintf(buf, n, "[section %zu]", index);
    return buf;
}

/* ------------------------------------------------------------------------------------------ */
/* The table                                                                                  */

void lg_elfsyms_init(lg_elfsyms_t *t)
{
    memset(t, 0, sizeof *t);
    lg_strmap_init(&t->by_name);
}

static void free_sym(lg_elfsym_t *s)
{
    free(s->name);
    free(s->section);
    free(s->source_file);
}

void lg_elfsyms_destroy(lg_elfsyms_t *t)
{
    if (t == NULL)
        return;
    for (size_t i = 0; i < t->nfiles; i++) {
        free(t->files[i].path);
        free(t->files[i].member);
    }
    for (size_t i = 0; i < t->nsyms; i++)
        free_sym(&t->syms[i]);
    for (size_t i = 0; i < t->nrefs; i++)
        free(t->refs[i].to_name);
    free(t->refs);
    free(t->files);
    free(t->syms);
    free(t->next_same_name);
    lg_strmap_destroy(&t->by_name);
    memset(t, 0, sizeof *t);
}

uint32_t lg_elfsyms_first(const lg_elfsyms_t *t, const char *name)
{
    uint32_t first;
    if (name == NULL || !lg_strmap_get(&t->by_name, name, &first))
        return UINT32_MAX;
    return first;
}

const char *lg_elf_machine_name(uint16_t machine)
{
    switch (machine) {
    case EM_386:
        return "i386";
    case EM_X86_64:
        return "x86-64";
    case EM_ARM:
        return "ARM";
    case EM_AARCH64:
        return "AArch64";
    case EM_RISCV:
        return "RISC-V";
    case EM_SH:
        return "SH";
    case EM_PPC:
        return "PowerPC";
    case EM_PPC64:
        return "PowerPC64";
    case EM_MIPS:
        return "MIPS";
    case EM_S390:
        return "S/390";
    case EM_SPARCV9:
        return "SPARC V9";
    default:
        return NULL;
    }
}

bool lg_elf_probe(const uint8_t *head, size_t len)
{
    if (head == NULL)
        return false;
    if (len >= SELFMAG && memcmp(head, ELFMAG, SELFMAG) == 0)
        return true;
    return len >= LG_AR_MAGIC_BYTES && (memcmp(head, LG_AR_MAGIC, LG_AR_MAGIC_BYTES) == 0 ||
                                        memcmp(head, LG_AR_THIN_MAGIC, LG_AR_MAGIC_BYTES) == 0);
}

/* Makes the by_name map hold exactly the names of the first n symbols again, after a failed
 * commit inserted some of the following ones. Cannot fail: the map already had room for n names
 * without growing, and a put only allocates when it grows. */
static void rebuild_names(lg_elfsyms_t *t, size_t n)
{
    lg_strmap_t *m = &t->by_name;
    if (m->capacity > 0)
        memset(m->keys, 0, m->capacity * sizeof *m->keys);
    m->count = 0;
    /* Inserting in index order keeps the first index of each name, as before. */
    for (size_t i = 0; i < n; i++)
        (void)lg_strmap_put(m, t->syms[i].name, (uint32_t)i, NULL);
}

/* Grows t->syms and t->next_same_name (which always has the capacity of syms) for need symbols.
 * On failure both arrays keep their contents and the recorded capacity stays valid for both. */
static bool grow_syms(lg_elfsyms_t *t, size_t need)
{
    if (need <= t->syms_cap)
        return true;
    void *syms = t->syms;
    size_t cap = t->syms_cap;
    if (!lg_grow(&syms, &cap, need, sizeof *t->syms))
        return false;
    t->syms = syms; /* the old block may be gone; syms_cap still fits next_same_name */
    void *next = t->next_same_name;
    size_t next_cap = t->syms_cap;
    if (!lg_grow(&next, &next_cap, cap, sizeof *t->next_same_name))
        return false;
    t->next_same_name = next;
    t->syms_cap = cap;
    return true;
}

/* Moves every file and symbol of tmp to the end of t and indexes their names. On failure t is
 * unchanged (apart from spare capacity) and tmp still owns its contents. */
static lg_err_t commit(lg_elfsyms_t *t, lg_elfsyms_t *tmp)
{
    size_t old_n = t->nsyms, add_n = tmp->nsyms;
    size_t old_f = t->nfiles, add_f = tmp->nfiles;
    if (add_n > LG_ELF_MAX_SYMBOLS || old_n > LG_ELF_MAX_SYMBOLS - add_n ||
        add_f > UINT32_MAX || old_f > UINT32_MAX - add_f)
        return LG_ELIMIT;
    size_t old_r = t->nrefs, add_r = tmp->nrefs;
    if (add_r > LG_ELF_MAX_REFS || old_r > LG_ELF_MAX_REFS - add_r)
        return LG_ELIMIT;
    if (!lg_grow((void **)&t->files, &t->files_cap, old_f + add_f, sizeof *t->files) ||
        !grow_syms(t, old_n + add_n) ||
        (add_r > 0 && !lg_grow((void **)&t->refs, &t->refs_cap, old_r + add_r, sizeof *t->refs)))
        return LG_ENOMEM;
    uint32_t *first = add_n > 0 ? malloc(add_n * sizeof *first) : NULL;
    if (add_n > 0 && first == NULL)
        return LG_ENOMEM;
    for (size_t j = 0; j < add_n; j++) {
        /* The key is the name string itself, which keeps its address when it moves to t. */
        if (!lg_strmap_put(&t->by_name, tmp->syms[j].name, (uint32_t)(old_n + j), &first[j])) {
            rebuild_names(t, old_n);
            free(first);
            return LG_ENOMEM;
        }
    }
    /* Nothing below can fail. */
    if (add_f > 0)
        memcpy(t->files + old_f, tmp->files, add_f * sizeof *t->files);
    for (size_t j = 0; j < add_n; j++) {
        size_t index = old_n + j;
        t->syms[index] = tmp->syms[j];
        t->syms[index].file += (uint32_t)old_f;
        lg_chain_append(t->next_same_name, first[j], (uint32_t)index);
    }
    for (size_t j = 0; j < add_r; j++) {
        t->refs[old_r + j] = tmp->refs[j];
        t->refs[old_r + j].file += (uint32_t)old_f;
    }
    t->nfiles += add_f;
    t->nsyms += add_n;
    t->nrefs += add_r;
    tmp->nfiles = 0;
    tmp->nsyms = 0;
    tmp->nrefs = 0;
    free(first);
    return LG_OK;
}

/* ------------------------------------------------------------------------------------------ */
/* One ELF file                                                                               */

static lg_err_t add_file(elf_reader_t *f, const GElf_Ehdr *ehdr, lg_elf_kind_t kind, int elf_class,
                         bool big_endian, const char *member)
{
    lg_elfsyms_t *out = f->r->out;
    if (f->r->base_nfiles + out->nfiles >= UINT32_MAX)
        return fail_at(f, LG_ELIMIT, NULL, "more than %u ELF files", (unsigned)UINT32_MAX);
    if (!lg_grow((void **)&out->files, &out->files_cap, out->nfiles + 1, sizeof *out->files))
        return fail_at(f, LG_ENOMEM, NULL, "out of memory");
    bool ok = true;
    lg_elf_file_t file = {
        .path = lg_strdup_opt(f->where, &ok),
        .member = lg_strdup_opt(member, &ok),
        .kind = kind,
        .elf_class = (uint8_t)elf_class,
        .big_endian = big_endian,
        .machine = ehdr->e_machine,
    };
    if (!ok) {
        free(file.path);
        free(file.member);
        return fail_at(f, LG_ENOMEM, NULL, "out of memory");
    }
    out->files[out->nfiles++] = file;
    return LG_OK;
}

/* The symbol table to read: SHT_SYMTAB, else SHT_DYNSYM; *shndx receives the SHT_SYMTAB_SHNDX
 * section that belongs to it, if any. *symtab is NULL when the file has neither. */
static lg_err_t find_symtab(elf_reader_t *f, Elf_Scn **symtab, Elf_Scn **shndx, bool *dynamic)
{
    Elf_Scn *dynsym = NULL;
    *symtab = NULL;
    *shndx = NULL;
    for (Elf_Scn *scn = elf_nextscn(f->elf, NULL); scn != NULL; scn = elf_nextscn(f->elf, scn)) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) == NULL)
            return fail_at(f, LG_EELF, NULL, "cannot read the header of section %zu: %s",
                           elf_ndxscn(scn), elf_errmsg(-1));
        if (sh.sh_type == SHT_SYMTAB && *symtab == NULL)
            *symtab = scn;
        else if (sh.sh_type == SHT_DYNSYM && dynsym == NULL)
            dynsym = scn;
    }
    *dynamic = *symtab == NULL && dynsym != NULL;
    if (*symtab == NULL)
        *symtab = dynsym;
    if (*symtab == NULL)
        return LG_OK;
    /* The extended section index table names its symbol table in sh_link. */
    size_t symtab_index = elf_ndxscn(*symtab);
    for (Elf_Scn *scn = elf_nextscn(f->elf, NULL); scn != NULL; scn = elf_nextscn(f->elf, scn)) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) != NULL && sh.sh_type == SHT_SYMTAB_SHNDX &&
            sh.sh_link == symtab_index) {
            *shndx = scn;
            break;
        }
    }
    return LG_OK;
}

/* Looks up section index once; afterwards cache[index] tells whether its functions are kept. */
static void describe_section(elf_reader_t *f, sec_info_t *cache, size_t index)
{
    sec_info_t *s = &cache[index];
    if (s->state != SEC_UNKNOWN)
        return;
    char buf[LG_ELF_PLACEHOLDER_BYTES];
    GElf_Shdr sh;
    Elf_Scn *scn = elf_getscn(f->elf, index);
    if (scn == NULL || gelf_getshdr(scn, &sh) == NULL) {
        s->state = SEC_OTHER;
        warn_at(f, section_label(NULL, index, buf, sizeof buf),
                "cannot read the section header, its symbols are skipped: %s", elf_errmsg(-1));
        return;
    }
    s->state = (sh.sh_flags & SHF_EXECINSTR) ? SEC_EXEC : SEC_OTHER;
    s->flags = sh.sh_flags;
    s->align = sh.sh_addralign;
    s->size = sh.sh_size;
    s->addr = sh.sh_addr;
    s->name = elf_strptr(f->elf, f->shstrndx, sh.sh_name);
    if (s->name == NULL && s->state == SEC_EXEC)
        warn_at(f, section_label(NULL, index, buf, sizeof buf),
                "invalid section name offset %#" PRIx64 "; named by its index instead",
                (uint64_t)sh.sh_name);
}

typedef struct sec_value {
    uint32_t section;
    uint64_t value;
    size_t sym;
} sec_value_t;

static int cmp_sec_value(const void *a, const void *b)
{
    const sec_value_t *x = a, *y = b;
    if (x->section != y->section)
        return x->section < y->section ? -1 : 1;
    if (x->value != y->value)
        return x->value < y->value ? -1 : 1;
    return x->sym < y->sym ? -1 : (x->sym > y->sym);
}

/* True for the name of an untyped symbol that may label code: not empty, not an ARM, AArch64 or
 * RISC-V mapping symbol ("$a", "$t", "$x", "$d.1"), not an assembler-local ".L" label. */
static bool is_code_label_name(const char *name)
{
    return name != NULL && name[0] != '\0' && name[0] != '$' && strncmp(name, ".L", 2) != 0;
}

/* The code labels of syms[lo, hi) (one file; read_symbols kept every untyped symbol of its
 * code, with section_size set to its section's end): a label inside a function symbol's range
 * (a loop's label, an alias) is dropped; a kept one without st_size ends where the next symbol
 * of its section starts, or at the section's end, and one that would be empty is dropped. *hi
 * receives the new end. Time O(n log n), and O(n) per run of symbols at one value. */
static lg_err_t size_code_labels(elf_reader_t *f, size_t lo, size_t *hi)
{
    lg_elfsyms_t *out = f->r->out;
    lg_elfsym_t *syms = out->syms;
    size_t n = *hi - lo, labels = 0;
    for (size_t i = lo; i < *hi; i++)
        labels += syms[i].is_label;
    if (labels == 0)
        return LG_OK;
    sec_value_t *v = calloc(n, sizeof *v);
    bool *drop = calloc(n, sizeof *drop);
    if (v == NULL || drop == NULL) {
        free(v);
        free(drop);
        return fail_at(f, LG_ENOMEM, NULL, "out of memory");
    }
    /* On ARM bit 0 of a Thumb function's value marks the instruction set, not the address. */
    uint64_t mask = n > 0 && out->files[syms[lo].file].machine == EM_ARM ? ~(uint64_t)1 : ~0ull;
    for (size_t i = 0; i < n; i++)
        v[i] = (sec_value_t){syms[lo + i].section_index, syms[lo + i].value & mask, lo + i};
    qsort(v, n, sizeof *v, cmp_sec_value);
    uint64_t covered_to = 0; /* end of the function symbols met so far in this section */
    for (size_t k = 0; k < n; k++) {
        if (k == 0 || v[k].section != v[k - 1].section)
            covered_to = 0;
        lg_elfsym_t *s = &syms[v[k].sym];
        if (!s->is_label) {
            if (s->size > 0 && lg_sat_add(v[k].value, s->size) > covered_to)
                covered_to = lg_sat_add(v[k].value, s->size);
            continue;
        }
        bool inside = s->value < covered_to;
        /* A function symbol at the same value, later in the sort, covers it too. */
        for (size_t j = k + 1; !inside && j < n && v[j].section == v[k].section &&
                               v[j].value == s->value;
             j++)
            inside = !syms[v[j].sym].is_label && syms[v[j].sym].size > 0;
        /* The section's end, in values. Linker-defined symbols (_edata, __bss_start) may stand
         * at or past it: no code is theirs. */
        uint64_t section_end = lg_sat_add(s->section_addr, s->section_size), end = section_end;
        for (size_t j = k + 1; j < n && v[j].section == v[k].section; j++)
            if (v[j].value > s->value) {
                end = v[j].value < section_end ? v[j].value : section_end;
                break;
            }
        bool in_section = s->value >= s->section_addr && s->value < section_end;
        if (s->size == 0 && in_section && end > s->value)
            s->size = end - s->value;
        drop[v[k].sym - lo] = inside || !in_section || s->size == 0;
    }
    /* Drops the labels in place. */
    size_t kept = lo;
    for (size_t i = lo; i < *hi; i++) {
        if (drop[i - lo]) {
            free_sym(&syms[i]);
            continue;
        }
        syms[kept++] = syms[i];
    }
    free(v);
    free(drop);
    *hi = kept;
    out->nsyms = kept;
    return LG_OK;
}

/* Sets section_funcs of syms[lo, hi) (one relocatable file): the number of distinct addresses
 * among the kept functions of each section, so aliases of one function count once. */
static lg_err_t count_section_funcs(elf_reader_t *f, size_t lo, size_t hi)
{
    lg_elfsym_t *syms = f->r->out->syms;
    size_t n = hi - lo;
    if (n == 0)
        return LG_OK;
    sec_value_t *v = calloc(n, sizeof *v);
    if (v == NULL)
        return fail_at(f, LG_ENOMEM, NULL, "out of memory");
    for (size_t i = 0; i < n; i++)
        v[i] = (sec_value_t){syms[lo + i].section_index, syms[lo + i].value, lo + i};
    qsort(v, n, sizeof *v, cmp_sec_value);
    for (size_t start = 0; start < n;) {
        size_t end = start;
        uint32_t distinct = 0;
        while (end < n && v[end].section == v[start].section) {
            if (end == start || v[end].value != v[end - 1].value)
                distinct++;
            end++;
        }
        for (size_t i = start; i < end; i++)
            syms[v[i].sym].section_funcs = distinct;
        start = end;
    }
    free(v);
    return LG_OK;
}

/* Appends one kept symbol to the temporary table. */
static lg_err_t add_sym(elf_reader_t *f, const lg_elfsym_t *proto, const char *name,
                        const char *section, const char *source_file)
{
    lg_elfsyms_t *out = f->r->out;
    if (f->r->base_nsyms + out->nsyms >= LG_ELF_MAX_SYMBOLS)
        return fail_at(f, LG_ELIMIT, NULL, "more than %u function symbols in all ELF inputs",
                       LG_ELF_MAX_SYMBOLS);
    if (!lg_grow((void **)&out->syms, &out->syms_cap, out->nsyms + 1, sizeof *out->syms))
        return fail_at(f, LG_ENOMEM, NULL, "out of memory");
    bool ok = true;
    lg_elfsym_t s = *proto;
    s.name = lg_strdup_opt(name, &ok);
    s.section = lg_strdup_opt(section, &ok);
    s.source_file = lg_strdup_opt(source_file, &ok);
    if (!ok) {
        free_sym(&s);
        return fail_at(f, LG_ENOMEM, NULL, "out of memory");
    }
    out->syms[out->nsyms++] = s;
    return LG_OK;
}

/* Reads the kept function symbols of symtab. */
static lg_err_t read_symbols(elf_reader_t *f, Elf_Scn *symtab, Elf_Scn *shndx_scn, uint32_t file)
{
    GElf_Shdr sh;
    if (gelf_getshdr(symtab, &sh) == NULL)
        return fail_at(f, LG_EELF, NULL, "cannot read the symbol table header: %s",
                       elf_errmsg(-1));
    char label_buf[LG_ELF_PLACEHOLDER_BYTES];
    const char *label = section_label(elf_strptr(f->elf, f->shstrndx, sh.sh_name),
                                      elf_ndxscn(symtab), label_buf, sizeof label_buf);

    /* Entry size and count, checked before anything is divided or read. */
    size_t entsize = gelf_fsize(f->elf, ELF_T_SYM, 1, EV_CURRENT);
    if (entsize == 0)
        return fail_at(f, LG_EELF, label, "cannot size a symbol: %s", elf_errmsg(-1));
    if (sh.sh_entsize != entsize)
        return fail_at(f, LG_EELF, label,
                       "expected sh_entsize %zu (the size of one symbol), found %" PRIu64, entsize,
                       (uint64_t)sh.sh_entsize);
    if (sh.sh_size % entsize != 0)
        return fail_at(f, LG_EELF, label, "sh_size %" PRIu64 " is not a multiple of sh_entsize %zu",
                       (uint64_t)sh.sh_size, entsize);
    Elf_Data *data = elf_getdata(symtab, NULL);
    if (data == NULL)
        return fail_at(f, LG_EELF, label, "cannot read the symbols: %s", elf_errmsg(-1));
    uint64_t count = sh.sh_size / entsize;
    if (count > data->d_size / entsize)
        return fail_at(f, LG_EELF, label,
                       "sh_size %" PRIu64 " promises more symbols than the %zu bytes of data",
                       (uint64_t)sh.sh_size, data->d_size);
    /* gelf_getsym takes an int index. */
    if (count > (uint64_t)INT_MAX)
        return fail_at(f, LG_EELF, label, "%" PRIu64 " symbols: more than libelf can index",
                       count);

    Elf_Data *shndx = NULL;
    char shndx_buf[LG_ELF_PLACEHOLDER_BYTES];
    if (shndx_scn != NULL) {
        GElf_Shdr xsh;
        const char *xlabel = shndx_buf;
        if (gelf_getshdr(shndx_scn, &xsh) != NULL)
            xlabel = section_label(elf_strptr(f->elf, f->shstrndx, xsh.sh_name),
                                   elf_ndxscn(shndx_scn), shndx_buf, sizeof shndx_buf);
        else
            section_label(NULL, elf_ndxscn(shndx_scn), shndx_buf, sizeof shndx_buf);
        shndx = elf_getdata(shndx_scn, NULL);
        if (shndx == NULL)
            return fail_at(f, LG_EELF, xlabel, "cannot read the extended section indexes: %s",
                           elf_errmsg(-1));
        if (shndx->d_size / sizeof(Elf32_Word) < count)
            return fail_at(f, LG_EELF, xlabel,
                           "holds %zu extended section indexes for %" PRIu64 " symbols",
                           shndx->d_size / sizeof(Elf32_Word), count);
    }

    sec_info_t *cache = calloc(f->shnum, sizeof *cache);
    if (cache == NULL)
        return fail_at(f, LG_ENOMEM, NULL, "out of memory");
    lg_err_t err = LG_OK;
    bool linked = f->r->out->files[file].kind == LG_ELF_LINKED;
    const char *source_file = NULL; /* in the string table; NULL when none or unreadable */
    size_t bad_names = 0;
    /* Symbol 0 is the reserved null symbol. */
    for (uint64_t i = 1; i < count; i++) {
        GElf_Sym sym;
        Elf32_Word xindex = 0;
        GElf_Sym *got = shndx != NULL ? gelf_getsymshndx(data, shndx, (int)i, &sym, &xindex)
                                      : gelf_getsym(data, (int)i, &sym);
        if (got == NULL) {
            err = fail_at(f, LG_EELF, label, "cannot read symbol %" PRIu64 ": %s", i,
                          elf_errmsg(-1));
            break;
        }
        int type = GELF_ST_TYPE(sym.st_info);
        if (type == STT_FILE) {
            const char *name = elf_strptr(f->elf, sh.sh_link, sym.st_name);
            source_file = (name != NULL && *name != '\0') ? name : NULL;
            continue;
        }
        bool untyped = type == STT_NOTYPE;
        if (type != STT_FUNC && type != STT_GNU_IFUNC && !untyped)
            continue;
        /* Undefined, absolute and common symbols have no section to place. */
        size_t index;
        if (sym.st_shndx == SHN_XINDEX) {
            if (shndx == NULL) {
                warn_at(f, label, "symbol %" PRIu64 " uses SHN_XINDEX but the file has no "
                        "SHT_SYMTAB_SHNDX section; skipped", i);
                continue;
            }
            index = xindex;
        } else if (sym.st_shndx == SHN_UNDEF || sym.st_shndx >= SHN_LORESERVE) {
            continue;
        } else {
            index = sym.st_shndx;
        }
        if (index == SHN_UNDEF || index >= f->shnum) {
            warn_at(f, label, "symbol %" PRIu64 ": section index %zu out of range (%zu sections); "
                    "skipped", i, index, f->shnum);
            continue;
        }
        describe_section(f, cache, index);
        if (cache[index].state != SEC_EXEC)
            continue;

        char name_buf[LG_ELF_PLACEHOLDER_BYTES];
        const char *name = elf_strptr(f->elf, sh.sh_link, sym.st_name);
        if (untyped && !is_code_label_name(name))
            continue;
        if (name == NULL) {
            snprintf(name_buf, sizeof name_buf, "[invalid st_name %#" PRIx64 "]",
                     (uint64_t)sym.st_name);
            name = name_buf;
            if (bad_names++ == 0)
                warn_at(f, label, "symbol %" PRIu64 " has an invalid name offset; named %s", i,
                        name);
        }
        char sec_buf[LG_ELF_PLACEHOLDER_BYTES];
        bool hidden = GELF_ST_VISIBILITY(sym.st_other) == STV_HIDDEN ||
                      GELF_ST_VISIBILITY(sym.st_other) == STV_INTERNAL;
        /* A static has default visibility: a linked local that is hidden was a global. */
        bool local = GELF_ST_BIND(sym.st_info) == STB_LOCAL && !(linked && hidden);
        lg_elfsym_t proto = {
            .value = sym.st_value,
            .size = sym.st_size,
            .section_align = cache[index].align,
            .section_size = cache[index].size,
            .file = file,
            .section_index = (uint32_t)index,
            .is_local = local,
            .is_weak = GELF_ST_BIND(sym.st_info) == STB_WEAK,
            .is_hidden = hidden,
            .is_label = untyped,
            .section_addr = cache[index].addr,
        };
        err = add_sym(f, &proto, name,
                      section_label(cache[index].name, index, sec_buf, sizeof sec_buf),
                      local ? source_file : NULL);
        if (err != LG_OK)
            break;
    }
    free(cache);
    if (err == LG_OK && bad_names > 1)
        warn_at(f, label, "%zu function symbols in all have invalid name offsets", bad_names);
    return err;
}

/* ---- References (relocations of objects) -------------------------------------------------- */

/* Sections whose relocations name functions without calling them or taking their address:
 * unwind and exception tables. A name matches exactly or as a prefix followed by '.'. */
static bool is_unwind_section(const char *name)
{
    static const char *const unwind[] = {".eh_frame", ".gcc_except_table", ".ARM.exidx",
                                         ".ARM.extab"};
    if (name == NULL)
        return false;
    for (size_t i = 0; i < sizeof unwind / sizeof unwind[0]; i++) {
        size_t n = strlen(unwind[i]);
        if (strncmp(name, unwind[i], n) == 0 && (name[n] == '\0' || name[n] == '.'))
            return true;
    }
    return false;
}

static int cmp_ref(const void *a, const void *b)
{
    const lg_elfref_t *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind < y->kind ? -1 : 1;
    if (x->from_section != y->from_section)
        return x->from_section < y->from_section ? -1 : 1;
    if (x->to_section != y->to_section)
        return x->to_section < y->to_section ? -1 : 1;
    if (x->to_name == NULL || y->to_name == NULL)
        return (x->to_name != NULL) - (y->to_name != NULL);
    return strcmp(x->to_name, y->to_name);
}

/* Sorts the references [first, nrefs) of the temporary table and drops repeats: a section
 * calls the same function from many places. */
static void unique_refs(lg_elfsyms_t *out, size_t first)
{
    size_t n = out->nrefs - first;
    if (n < 2)
        return;
    lg_elfref_t *r = out->refs + first;
    qsort(r, n, sizeof *r, cmp_ref);
    size_t kept = 1;
    for (size_t i = 1; i < n; i++) {
        if (cmp_ref(&r[i], &r[kept - 1]) == 0)
            free(r[i].to_name);
        else
            r[kept++] = r[i];
    }
    out->nrefs = first + kept;
}

static lg_err_t add_ref(elf_reader_t *f, uint32_t file, uint32_t from, uint32_t to,
                        const char *name, lg_elfref_kind_t kind)
{
    lg_elfsyms_t *out = f->r->out;
    if (out->nrefs >= LG_ELF_MAX_REFS)
        return fail_at(f, LG_ELIMIT, NULL, "more than %u references in one ELF file",
                       LG_ELF_MAX_REFS);
    if (!lg_grow((void **)&out->refs, &out->refs_cap, out->nrefs + 1, sizeof *out->refs))
        return fail_at(f, LG_ENOMEM, NULL, "out of memory");
    lg_elfref_t ref = {file, from, to, NULL, (uint8_t)kind};
    if (name != NULL && (ref.to_name = strdup(name)) == NULL)
        return fail_at(f, LG_ENOMEM, NULL, "out of memory");
    out->refs[out->nrefs++] = ref;
    return LG_OK;
}

/* Relocation types that are calls or jumps (a branch's displacement), per machine. */
static bool branch_type(uint16_t machine, uint32_t type)
{
    switch (machine) {
    case EM_ARM:
        return type == R_ARM_PC24 || type == R_ARM_PLT32 || type == R_ARM_CALL ||
               type == R_ARM_JUMP24 || type == R_ARM_THM_PC22 || type == R_ARM_THM_JUMP24 ||
               type == R_ARM_THM_JUMP19;
    case EM_AARCH64:
        return type == R_AARCH64_CALL26 || type == R_AARCH64_JUMP26;
    case EM_RISCV:
        return type == R_RISCV_CALL || type == R_RISCV_CALL_PLT || type == R_RISCV_JAL ||
               type == R_RISCV_BRANCH;
    case EM_PPC:
        return type == R_PPC_REL24 || type == R_PPC_PLTREL24 || type == R_PPC_LOCAL24PC;
    case EM_PPC64:
        return type == R_PPC64_REL24;
    case EM_MIPS:
        return type == R_MIPS_26 || type == R_MIPS_PC16;
    default:
        return false;
    }
}

/* How code at `offset` of section data `code` refers to a function (elfsym.h: lg_elfref_kind).
 * x86 relocations do not tell a call from a taken address, the opcode before the displacement
 * does: e8 call, e9 jmp, 0f 80-8f jcc, ff 15 / ff 25 call / jmp through the GOT. */
static lg_elfref_kind_t code_ref_kind(uint16_t machine, uint32_t type, const Elf_Data *code,
                                      uint64_t offset)
{
    if (machine == EM_X86_64 || machine == EM_386) {
        const unsigned char *b = code != NULL ? code->d_buf : NULL;
        if (b == NULL || offset < 1 || offset > code->d_size)
            return LG_ELFREF_ADDRESS;
        unsigned char op = b[offset - 1];
        if (op == 0xe8 || op == 0xe9)
            return LG_ELFREF_CALL;
        if (offset >= 2 && ((b[offset - 2] == 0x0f && (op & 0xf0) == 0x80) ||
                            (b[offset - 2] == 0xff && (op == 0x15 || op == 0x25))))
            return LG_ELFREF_CALL;
        return LG_ELFREF_ADDRESS;
    }
    if (branch_type(machine, type))
        return LG_ELFREF_CALL;
    switch (machine) {
    case EM_ARM:
    case EM_AARCH64:
    case EM_RISCV:
    case EM_PPC:
    case EM_PPC64:
    case EM_MIPS:
        return LG_ELFREF_ADDRESS;
    default:
        return LG_ELFREF_CODE;
    }
}

/* One relocation's symbol as a reference target: *to the executable section of this file it
 * lies in, or LG_ELFREF_BY_NAME with *name an undefined symbol's name. False when it is no
 * function's: data, absolute, common, or a section that holds no code. */
static bool ref_target(elf_reader_t *f, sec_info_t *cache, Elf_Data *syms, Elf_Data *xsyms,
                       size_t strtab, size_t index, uint32_t *to, const char **name)
{
    GElf_Sym sym;
    Elf32_Word xindex = 0;
    if ((xsyms != NULL ? gelf_getsymshndx(syms, xsyms, (int)index, &sym, &xindex)
                       : gelf_getsym(syms, (int)index, &sym)) == NULL)
        return false;
    int type = GELF_ST_TYPE(sym.st_info);
    if (sym.st_shndx == SHN_UNDEF) {
        if (type == STT_OBJECT || type == STT_TLS || type == STT_SECTION)
            return false;
        *name = elf_strptr(f->elf, strtab, sym.st_name);
        *to = LG_ELFREF_BY_NAME;
        return *name != NULL && **name != '\0';
    }
    size_t sec = sym.st_shndx == SHN_XINDEX ? xindex : sym.st_shndx;
    if (sym.st_shndx != SHN_XINDEX && sym.st_shndx >= SHN_LORESERVE)
        return false;
    if (sec == SHN_UNDEF || sec >= f->shnum)
        return false;
    describe_section(f, cache, sec);
    if (cache[sec].state != SEC_EXEC)
        return false;
    *to = (uint32_t)sec;
    *name = NULL;
    return true;
}

/* Reads the relocations of one relocatable file as references, and marks the file's
 * references complete when every relocation section that matters could be read. A section
 * that cannot be read is warned about and leaves them incomplete: binding then trusts every
 * call of the file's functions, as it does without objects. */
static lg_err_t read_references(elf_reader_t *f, Elf_Scn *symtab, Elf_Scn *shndx_scn,
                                uint32_t file)
{
    GElf_Shdr symsh;
    size_t sym_entsize = gelf_fsize(f->elf, ELF_T_SYM, 1, EV_CURRENT);
    Elf_Data *syms = elf_getdata(symtab, NULL);
    Elf_Data *xsyms = shndx_scn != NULL ? elf_getdata(shndx_scn, NULL) : NULL;
    if (gelf_getshdr(symtab, &symsh) == NULL || sym_entsize == 0 || syms == NULL ||
        (shndx_scn != NULL && xsyms == NULL))
        return LG_OK; /* read_symbols read these already; refs_read stays false */
    size_t nsyms = syms->d_size / sym_entsize;
    size_t symtab_index = elf_ndxscn(symtab);
    sec_info_t *cache = calloc(f->shnum, sizeof *cache);
    if (cache == NULL)
        return fail_at(f, LG_ENOMEM, NULL, "out of memory");
    size_t first = f->r->out->nrefs;
    uint16_t machine = f->r->out->files[file].machine;
    bool complete = true;
    lg_err_t err = LG_OK;
    for (Elf_Scn *scn = NULL; err == LG_OK && (scn = elf_nextscn(f->elf, scn)) != NULL;) {
        GElf_Shdr sh;
        char buf[LG_ELF_PLACEHOLDER_BYTES];
        if (gelf_getshdr(scn, &sh) == NULL) {
            complete = false;
            continue;
        }
        if (sh.sh_type != SHT_REL && sh.sh_type != SHT_RELA)
            continue;
        const char *label = section_label(elf_strptr(f->elf, f->shstrndx, sh.sh_name),
                                          elf_ndxscn(scn), buf, sizeof buf);
        size_t target = sh.sh_info;
        if (sh.sh_link != symtab_index || target == 0 || target >= f->shnum) {
            warn_at(f, label, "expected relocations of a section (sh_info %zu of %zu) against "
                    "the symbol table (sh_link %zu), found sh_link %u: its references are not "
                    "read, so every profiled call from this file is trusted",
                    target, f->shnum, symtab_index, (unsigned)sh.sh_link);
            complete = false;
            continue;
        }
        describe_section(f, cache, target);
        uint32_t from;
        if (cache[target].state == SEC_EXEC)
            from = (uint32_t)target;
        else if ((cache[target].flags & SHF_ALLOC) && !is_unwind_section(cache[target].name))
            from = LG_ELFREF_DATA;
        else
            continue;
        Elf_Data *code = NULL; /* the referring code's bytes, when the machine needs them */
        if (from != LG_ELFREF_DATA && (machine == EM_X86_64 || machine == EM_386))
            code = elf_getdata(elf_getscn(f->elf, target), NULL);
        bool rela = sh.sh_type == SHT_RELA;
        size_t entsize = gelf_fsize(f->elf, rela ? ELF_T_RELA : ELF_T_REL, 1, EV_CURRENT);
        Elf_Data *data = elf_getdata(scn, NULL);
        if (entsize == 0 || data == NULL || data->d_size / entsize > (size_t)INT_MAX) {
            warn_at(f, label, "cannot read the relocations (%s): every profiled call from this "
                    "file is trusted", elf_errmsg(-1));
            complete = false;
            continue;
        }
        size_t count = data->d_size / entsize;
        for (size_t k = 0; err == LG_OK && k < count; k++) {
            GElf_Rela ra;
            GElf_Rel rl;
            uint64_t info, offset;
            if (rela ? gelf_getrela(data, (int)k, &ra) == NULL
                     : gelf_getrel(data, (int)k, &rl) == NULL) {
                complete = false;
                break;
            }
            info = rela ? ra.r_info : rl.r_info;
            offset = rela ? ra.r_offset : rl.r_offset;
            size_t symi = GELF_R_SYM(info);
            if (symi == 0)
                continue;
            if (symi >= nsyms) {
                warn_at(f, label, "relocation %zu names symbol %zu of %zu: its references are "
                        "incomplete, so every profiled call from this file is trusted",
                        k, symi, nsyms);
                complete = false;
                break;
            }
            uint32_t to;
            const char *name;
            if (!ref_target(f, cache, syms, xsyms, symsh.sh_link, symi, &to, &name) ||
                (from != LG_ELFREF_DATA && to == from))
                continue; /* not a function's, or code referring to its own section */
            lg_elfref_kind_t kind =
                from == LG_ELFREF_DATA
                    ? LG_ELFREF_ADDRESS
                    : code_ref_kind(machine, (uint32_t)GELF_R_TYPE(info), code, offset);
            err = add_ref(f, file, from, to, name, kind);
        }
    }
    free(cache);
    if (err != LG_OK)
        return err;
    unique_refs(f->r->out, first);
    f->r->out->files[file].refs_read = complete;
    return LG_OK;
}

/* libelf reports no sections at all when the section header table lies past the end of the
 * file, so a truncated file would read as a stripped one: check the table against the size. */
static lg_err_t check_section_headers(elf_reader_t *f, const GElf_Ehdr *ehdr)
{
    size_t size;
    if (ehdr->e_shoff == 0 || elf_rawfile(f->elf, &size) == NULL)
        return LG_OK;
    size_t entsize = gelf_fsize(f->elf, ELF_T_SHDR, 1, EV_CURRENT);
    /* e_shnum 0 with a table means the count is in section 0, which must be there too. */
    uint64_t want = f->shnum > 0 ? f->shnum : ehdr->e_shnum > 0 ? ehdr->e_shnum : 1;
    if (entsize == 0 || ehdr->e_shoff > size || (size - ehdr->e_shoff) / entsize < want)
        return fail_at(f, LG_EELF, NULL,
                       "truncated: %" PRIu64 " section headers at offset %" PRIu64
                       " do not fit in the %zu bytes of the file",
                       want, (uint64_t)ehdr->e_shoff, size);
    return LG_OK;
}

/* Room for what describe_target writes: a machine's name or number, class and byte order. */
#define LG_ELF_TARGET_BYTES 64u

/* "x86-64 (ELF64, little-endian)", or "machine 4711 (...)" for one lorgen does not name. */
static void describe_target(uint16_t machine, int elf_class, bool big_endian, char *buf, size_t n)
{
    const char *name = lg_elf_machine_name(machine);
    const char *layout = elf_class == ELFCLASS64 ? "ELF64" : "ELF32";
    const char *order = big_endian ? "big-endian" : "little-endian";
    if (name != NULL)
        snprintf(buf, n, "%s (%s, %s)", name, layout, order);
    else
        snprintf(buf, n, "machine %u (%s, %s)", (unsigned)machine, layout, order);
}

/* The ELF inputs are one program: the linked file and the objects it was built from. A file of
 * another machine, ELF class or byte order than the first one read is another program's, and
 * binding names across the two would order functions that neither link holds. */
static lg_err_t check_same_target(elf_reader_t *f, uint16_t machine, int elf_class, bool big_endian)
{
    const lg_elf_file_t *first = f->r->first_file;
    if (first == NULL && f->r->out->nfiles > 0)
        first = &f->r->out->files[0]; /* an earlier member of the same archive */
    if (first == NULL || (first->machine == machine && first->elf_class == elf_class &&
                          first->big_endian == big_endian))
        return LG_OK;
    char mine[LG_ELF_TARGET_BYTES], theirs[LG_ELF_TARGET_BYTES];
    describe_target(machine, elf_class, big_endian, mine, sizeof mine);
    describe_target(first->machine, first->elf_class, first->big_endian, theirs, sizeof theirs);
    return fail_at(f, LG_EELF, NULL,
                   "built for %s, but %s is built for %s: the ELF inputs must be one program "
                   "and the objects it was linked from, all for one machine",
                   mine, first->path, theirs);
}

/* True when the file has GCC's LTO sections (.gnu.lto_*: GIMPLE bytecode, its symbol table,
 * its options). */
static bool has_lto_sections(elf_reader_t *f)
{
    static const char prefix[] = ".gnu.lto_";
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(f->elf, scn)) != NULL;) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) == NULL)
            continue;
        const char *name = elf_strptr(f->elf, f->shstrndx, sh.sh_name);
        if (name != NULL && strncmp(name, prefix, sizeof prefix - 1) == 0)
            return true;
    }
    return false;
}

/* lld names itself in a .comment string "Linker: [vendor ]LLD version"; gold leaves a
 * .note.gnu.gold-version section. GNU ld leaves neither. */
#define LG_LLD_COMMENT_PREFIX "Linker: "
#define LG_LLD_COMMENT_NAME "LLD"
#define LG_GOLD_NOTE ".note.gnu.gold-version"

/* True when the .comment strings in data name lld as the linker. */
static bool comment_names_lld(const Elf_Data *data)
{
    const char *p = data->d_buf, *end = p + data->d_size;
    size_t prefix = strlen(LG_LLD_COMMENT_PREFIX), name = strlen(LG_LLD_COMMENT_NAME);
    while (p != NULL && p < end) {
        const char *nul = memchr(p, '\0', (size_t)(end - p));
        const char *stop = nul != NULL ? nul : end;
        if ((size_t)(stop - p) >= prefix && memcmp(p, LG_LLD_COMMENT_PREFIX, prefix) == 0)
            for (const char *q = p + prefix; (size_t)(stop - q) >= name; q++)
                if (memcmp(q, LG_LLD_COMMENT_NAME, name) == 0)
                    return true;
        p = nul != NULL ? nul + 1 : NULL;
    }
    return false;
}

/* True when lld or gold linked the file (elfsym.h: sources_partial). */
static bool linked_by_lld_or_gold(elf_reader_t *f)
{
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(f->elf, scn)) != NULL;) {
        GElf_Shdr sh;
        if (gelf_getshdr(scn, &sh) == NULL)
            continue;
        const char *name = elf_strptr(f->elf, f->shstrndx, sh.sh_name);
        if (name == NULL)
            continue;
        if (strcmp(name, LG_GOLD_NOTE) == 0)
            return true;
        Elf_Data *data;
        if (strcmp(name, ".comment") == 0 && sh.sh_type == SHT_PROGBITS &&
            (data = elf_getdata(scn, NULL)) != NULL && data->d_buf != NULL &&
            comment_names_lld(data))
            return true;
    }
    return false;
}

/* SHT_ARM_ATTRIBUTES, the Arm ABI's build attributes section type. */
#define LG_SHT_ARM_ATTRIBUTES 0x70000003u

/* Tag_CPU_arch of an Arm file's build attributes, or 0 (arm_attributes.h). */
static uint8_t arm_cpu_arch(elf_reader_t *f, bool big_endian)
{
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(f->elf, scn)) != NULL;) {
        GElf_Shdr sh;
        Elf_Data *data;
        if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != LG_SHT_ARM_ATTRIBUTES ||
            (data = elf_rawdata(scn, NULL)) == NULL || data->d_buf == NULL)
            continue;
        return (uint8_t)lg_arm_cpu_arch(data->d_buf, data->d_size, big_endian);
    }
    return 0;
}

/* True when the file's dynamic section names a library it needs (DT_NEEDED). */
static bool needs_shared_libraries(elf_reader_t *f)
{
    for (Elf_Scn *scn = NULL; (scn = elf_nextscn(f->elf, scn)) != NULL;) {
        GElf_Shdr sh;
        Elf_Data *data;
        if (gelf_getshdr(scn, &sh) == NULL || sh.sh_type != SHT_DYNAMIC ||
            (data = elf_getdata(scn, NULL)) == NULL || sh.sh_entsize == 0)
            continue;
        size_t n = data->d_size / sh.sh_entsize;
        for (size_t i = 0; i < n; i++) {
            GElf_Dyn dyn;
            if (gelf_getdyn(data, (int)i, &dyn) == NULL || dyn.d_tag == DT_NULL)
                break;
            if (dyn.d_tag == DT_NEEDED)
                return true;
        }
    }
    return false;
}

/* Reads one ELF file (or archive member) known to be of kind ELF_K_ELF. */
static lg_err_t read_elf(reader_t *r, Elf *elf, const char *where, const char *member)
{
    elf_reader_t f = {.r = r, .elf = elf, .where = where};
    GElf_Ehdr ehdr;
    if (gelf_getehdr(elf, &ehdr) == NULL)
        return fail_at(&f, LG_EELF, NULL, "cannot read the ELF header: %s", elf_errmsg(-1));
    lg_elf_kind_t kind;
    if (ehdr.e_type == ET_EXEC || ehdr.e_type == ET_DYN)
        kind = LG_ELF_LINKED;
    else if (ehdr.e_type == ET_REL)
        kind = LG_ELF_OBJECT;
    else
        return fail_at(&f, LG_EELF, NULL,
                       "expected an executable, shared object or relocatable object, found "
                       "e_type %u", (unsigned)ehdr.e_type);
    int elf_class = gelf_getclass(elf);
    if (elf_class != ELFCLASS32 && elf_class != ELFCLASS64)
        return fail_at(&f, LG_EELF, NULL, "expected ELF class 1 or 2, found %d", elf_class);
    const char *ident = elf_getident(elf, NULL);
    if (ident == NULL)
        return fail_at(&f, LG_EELF, NULL, "cannot read the ELF identification: %s",
                       elf_errmsg(-1));
    bool big_endian = (unsigned char)ident[EI_DATA] == ELFDATA2MSB;
    LG_CHECK(check_same_target(&f, ehdr.e_machine, elf_class, big_endian));
    if (elf_getshdrstrndx(elf, &f.shstrndx) != 0)
        return fail_at(&f, LG_EELF, NULL, "cannot find the section name table: %s",
                       elf_errmsg(-1));
    if (elf_getshdrnum(elf, &f.shnum) != 0)
        return fail_at(&f, LG_EELF, NULL, "cannot count the sections: %s", elf_errmsg(-1));
    LG_CHECK(check_section_headers(&f, &ehdr));

    Elf_Scn *symtab = NULL, *shndx = NULL;
    bool dynamic = false;
    LG_CHECK(find_symtab(&f, &symtab, &shndx, &dynamic));
    LG_CHECK(add_file(&f, &ehdr, kind, elf_class, big_endian, member));
    /* Symbols refer to files of the temporary table; commit() shifts them. */
    uint32_t file = (uint32_t)(r->out->nfiles - 1);
    r->out->files[file].stripped = symtab == NULL || dynamic;
    r->out->files[file].sources_partial = kind == LG_ELF_LINKED && linked_by_lld_or_gold(&f);
    r->out->files[file].needs_shared_libraries =
        kind == LG_ELF_LINKED && needs_shared_libraries(&f);
    if (ehdr.e_machine == EM_ARM)
        r->out->files[file].arm_cpu_arch = arm_cpu_arch(&f, big_endian);
    if (symtab == NULL && member != NULL) {
        if (r->members_without_symtab++ == 0)
            snprintf(r->first_without_symtab, sizeof r->first_without_symtab, "%s", member);
        return LG_OK;
    }
    if (symtab == NULL) {
        warn_at(&f, NULL, "no symbol table (stripped?); no functions read");
        return LG_OK;
    }
    if (dynamic)
        warn_at(&f, NULL, "no .symtab: only dynamic symbols were available, so static and "
                "hidden functions are missing");
    size_t first_sym = r->out->nsyms;
    lg_err_t err = read_symbols(&f, symtab, shndx, file);
    size_t end_sym = r->out->nsyms;
    if (err == LG_OK)
        err = size_code_labels(&f, first_sym, &end_sym);
    if (err == LG_OK && kind == LG_ELF_OBJECT)
        err = count_section_funcs(&f, first_sym, r->out->nsyms);
    if (err == LG_OK && kind == LG_ELF_OBJECT && !dynamic)
        err = read_references(&f, symtab, shndx, file);
    /* A fat LTO object (-ffat-lto-objects) holds machine code beside its bytecode, and is read
     * as any object; a slim one has no function symbol at all. */
    if (err == LG_OK && kind == LG_ELF_OBJECT && r->out->nsyms == first_sym)
        r->out->files[file].lto_bytecode = has_lto_sections(&f);
    if (err == LG_OK && f.suppressed > 0)
        lg_diag_add(r->d, LG_WARNING, where, "%zu more warnings about this file not recorded",
                    f.suppressed);
    return err;
}

/* ------------------------------------------------------------------------------------------ */
/* Archives                                                                                   */

/* Members that hold the archive's own tables, not object files. */
static bool is_index_member(const char *name)
{
    return strcmp(name, "/") == 0 || strcmp(name, "//") == 0 || strcmp(name, "/SYM64/") == 0;
}

/* The member size the ar header at offset header of the archive image gives, as ASCII decimal
 * digits padded with spaces. libelf reports a smaller size when the file ends early, which would
 * hide a truncated archive. Returns false when the field is missing or not a number. */
static bool raw_member_size(const char *image, size_t image_size, uint64_t header, uint64_t *size)
{
    if (header > image_size || image_size - header < LG_AR_HEADER_BYTES)
        return false;
    const char *field = image + header + LG_AR_SIZE_OFFSET;
    uint64_t n = 0;
    size_t i = 0;
    for (; i < LG_AR_SIZE_BYTES && field[i] >= '0' && field[i] <= '9'; i++)
        n = n * 10u + (uint64_t)(field[i] - '0'); /* at most 10 digits: cannot wrap */
    if (i == 0)
        return false;
    for (; i < LG_AR_SIZE_BYTES; i++)
        if (field[i] != ' ')
            return false;
    *size = n;
    return true;
}

/* Reads every ELF member of archive. */
/* Whether a member header fits before the archive's end at offset; warns about the bytes left
 * when it does not (both archive walkers stop there). */
static bool member_header_fits(reader_t *r, size_t size, uint64_t offset)
{
    if (size - offset >= LG_AR_HEADER_BYTES)
        return true;
    lg_diag_add(r->d, LG_WARNING, r->path,
                "%" PRIu64 " bytes after the last archive member ignored", (uint64_t)size - offset);
    return false;
}

static void warn_no_elf_members(reader_t *r)
{
    lg_diag_add(r->d, LG_WARNING, r->path, "archive holds no ELF members; no functions read");
}

static lg_err_t read_archive(reader_t *r, int fd, Elf *archive)
{
    elf_reader_t f = {.r = r, .where = r->path};
    size_t size;
    const char *image = elf_rawfile(archive, &size);
    if (image == NULL)
        return fail_at(&f, LG_EELF, NULL, "cannot read the archive: %s", elf_errmsg(-1));
    size_t members = 0, elf_members = 0;
    lg_err_t err = LG_OK;
    /* elf_next returns ELF_C_NULL, and sets an error, both at the end of the archive and at a
     * damaged member header; the offset of the next header tells the two apart. libelf's error
     * state is sticky, so it is cleared before each call that is checked. */
    uint64_t offset = LG_AR_MAGIC_BYTES;
    Elf_Cmd cmd = ELF_C_READ_MMAP;
    int next_error = 0;
    while (err == LG_OK && offset < size) {
        if (!member_header_fits(r, size, offset))
            break;
        if (cmd == ELF_C_NULL) {
            err = fail_at(&f, LG_EELF, NULL, "cannot read the header of archive member %zu "
                          "at offset %" PRIu64 ": %s", members + 1, offset,
                          elf_errmsg(next_error));
            break;
        }
        if (members >= LG_ELF_MAX_ARCHIVE_MEMBERS) {
            err = fail_at(&f, LG_ELIMIT, NULL, "more than %u archive members",
                          LG_ELF_MAX_ARCHIVE_MEMBERS);
            break;
        }
        (void)elf_errno();
        Elf *m = elf_begin(fd, cmd, archive);
        if (m == NULL) {
            err = fail_at(&f, LG_EELF, NULL, "cannot read archive member %zu at offset %" PRIu64
                          ": %s", members + 1, offset, elf_errmsg(-1));
            break;
        }
        members++;
        Elf_Arhdr *h = elf_getarhdr(m);
        int64_t base = elf_getbase(m);
        uint64_t member_size = 0;
        if (h == NULL || h->ar_name == NULL || base < 0) {
            err = fail_at(&f, LG_EELF, NULL, "cannot read the header of archive member %zu "
                          "at offset %" PRIu64 ": %s", members, offset, elf_errmsg(-1));
        } else if (base < LG_AR_HEADER_BYTES ||
                   !raw_member_size(image, size, (uint64_t)base - LG_AR_HEADER_BYTES,
                                    &member_size)) {
            err = fail_at(&f, LG_EELF, NULL, "archive member %zu at offset %" PRIu64
                          ": expected a decimal size in its header", members, offset);
        } else {
            /* Members start at even offsets. */
            uint64_t end = (uint64_t)base + member_size;
            offset = end + (end & 1u);
            if (end > size) {
                err = fail_at(&f, LG_EELF, NULL, "archive member %zu (%s) is truncated: it ends "
                              "at offset %" PRIu64 ", past the end of the file (%" PRIu64
                              " bytes)", members, h->ar_name, end, (uint64_t)size);
            } else if (!is_index_member(h->ar_name) && elf_kind(m) == ELF_K_ELF) {
                /* Other members (text files, nested archives) hold no functions to place. */
                char *where = lg_format("%s(%s)", r->path, h->ar_name);
                if (where == NULL) {
                    err = fail_at(&f, LG_ENOMEM, NULL, "out of memory");
                } else {
                    elf_members++;
                    err = read_elf(r, m, where, h->ar_name);
                    free(where);
                }
            }
        }
        (void)elf_errno();
        cmd = elf_next(m);
        next_error = elf_errno();
        elf_end(m);
    }
    if (err == LG_OK && elf_members == 0)
        warn_no_elf_members(r);
    return err;
}

/* ------------------------------------------------------------------------------------------ */
/* Thin archives                                                                              */

/* The name of a thin archive's member whose header starts at image + header: "/N" is the entry
 * at offset N of the long-name table (names end with "/\n" there), anything else a name ended by
 * '/' (GNU ar) or by spaces. Sets *name and *len; false when the header names nothing usable. */
static bool thin_member_name(const char *image, size_t header, const char *names, size_t names_size,
                             const char **name, size_t *len)
{
    const char *field = image + header;
    if (field[0] == '/' && field[1] >= '0' && field[1] <= '9') {
        uint64_t at = 0;
        for (size_t i = 1; i < LG_AR_NAME_BYTES && field[i] >= '0' && field[i] <= '9'; i++)
            at = at * 10u + (uint64_t)(field[i] - '0'); /* at most 15 digits: cannot wrap */
        if (names == NULL || at >= names_size)
            return false;
        const char *end = memchr(names + at, '\n', names_size - (size_t)at);
        if (end == NULL)
            return false;
        *name = names + at;
        *len = (size_t)(end - *name);
    } else {
        *name = field;
        *len = LG_AR_NAME_BYTES;
        while (*len > 0 && field[*len - 1] == ' ')
            (*len)--;
    }
    if (*len > 0 && (*name)[*len - 1] == '/')
        (*len)--;
    return *len > 0 && memchr(*name, '\0', *len) == NULL;
}

/* Reads one member of a thin archive: the ELF file at path (a relative name is taken from the
 * archive's directory, as binutils does), shown as "archive(path)". Files that are not ELF are
 * skipped, as in an ordinary archive. */
static lg_err_t read_thin_member(reader_t *r, elf_reader_t *f, size_t index, const char *name,
                                 size_t len, bool *was_elf)
{
    const char *slash = strrchr(r->path, '/');
    int dir = name[0] == '/' || slash == NULL ? 0 : (int)(slash - r->path + 1);
    if (len > INT_MAX)
        return fail_at(f, LG_ELIMIT, NULL, "thin archive member %zu: name too long", index);
    char *path = lg_format("%.*s%.*s", dir, r->path, (int)len, name);
    char *where = path ? lg_format("%s(%s)", r->path, path) : NULL;
    if (where == NULL) {
        free(path);
        return fail_at(f, LG_ENOMEM, NULL, "out of memory");
    }
    lg_err_t err = LG_OK;
    /* The archive chooses the path: a FIFO or a device there must not block or stream. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    struct stat st;
    int why = fd < 0 || fstat(fd, &st) != 0 ? errno : 0;
    if (why != 0) {
        err = fail_at(f, LG_EIO, NULL, "thin archive member %zu: cannot open %s: %s", index, path,
                      strerror(why));
    } else if (!S_ISREG(st.st_mode)) {
        err = fail_at(f, LG_EIO, NULL, "thin archive member %zu: %s is not a regular file", index,
                      path);
    } else {
        Elf *m = elf_begin(fd, ELF_C_READ_MMAP, NULL);
        if (m == NULL) {
            err =
                fail_at(f, LG_EELF, NULL, "thin archive member %zu (%s): libelf cannot read it: %s",
                        index, path, elf_errmsg(-1));
        } else {
            /* A nested archive is left out: ar flattens the ones it adds, and following others
             * could loop. */
            *was_elf = elf_kind(m) == ELF_K_ELF;
            if (*was_elf)
                err = read_elf(r, m, where, path);
            elf_end(m);
        }
    }
    if (fd >= 0)
        close(fd);
    free(where);
    free(path);
    return err;
}

/* Reads every ELF member of a thin archive, whose image holds the member headers, the symbol
 * and long-name tables, but no member data: each member is a file of its own. libelf does not
 * read thin archives. */
static lg_err_t read_thin_archive(reader_t *r, const char *image, size_t size)
{
    elf_reader_t f = {.r = r, .where = r->path};
    const char *names = NULL; /* the long-name table "//" */
    size_t names_size = 0, members = 0, elf_members = 0;
    uint64_t offset = LG_AR_MAGIC_BYTES;
    lg_err_t err = LG_OK;
    while (err == LG_OK && offset < size) {
        if (!member_header_fits(r, size, offset))
            break;
        uint64_t member_size;
        const char *header = image + offset;
        if (memcmp(header + LG_AR_FMAG_OFFSET, LG_AR_FMAG, 2) != 0 ||
            !raw_member_size(image, size, offset, &member_size))
            return fail_at(&f, LG_EELF, NULL,
                           "thin archive member %zu at offset %" PRIu64 ": expected an ar header",
                           members + 1, offset);
        uint64_t data = offset + LG_AR_HEADER_BYTES;
        bool is_table = header[0] == '/' &&
                        (header[1] == ' ' || header[1] == '/' || memcmp(header, "/SYM64/", 7) == 0);
        if (is_table) {
            /* The archive's own tables are stored in it, even in a thin archive. */
            if (member_size > size - data)
                return fail_at(&f, LG_EELF, NULL,
                               "thin archive table at offset %" PRIu64 " is truncated: %" PRIu64
                               " bytes, %" PRIu64 " left in the file",
                               offset, member_size, (uint64_t)size - data);
            if (header[1] == '/' && header[2] == ' ') {
                names = image + data;
                names_size = (size_t)member_size;
            }
            uint64_t end = data + member_size;
            offset = end + (end & 1u);
            continue;
        }
        if (members >= LG_ELF_MAX_ARCHIVE_MEMBERS)
            return fail_at(&f, LG_ELIMIT, NULL, "more than %u archive members",
                           LG_ELF_MAX_ARCHIVE_MEMBERS);
        members++;
        const char *name;
        size_t len;
        if (!thin_member_name(image, offset, names, names_size, &name, &len))
            return fail_at(&f, LG_EELF, NULL,
                           "thin archive member %zu at offset %" PRIu64
                           ": its name is not in the archive's name table",
                           members, offset);
        bool was_elf = false;
        err = read_thin_member(r, &f, members, name, len, &was_elf);
        elf_members += was_elf;
        offset = data; /* the member's bytes are in its own file */
    }
    if (err == LG_OK && elf_members == 0)
        warn_no_elf_members(r);
    return err;
}

/* ------------------------------------------------------------------------------------------ */
/* Entry point                                                                                */

/* elf_version must be called once before any other libelf function. lorgen reads its inputs
 * from one thread, so a plain static suffices. */
static bool libelf_ready(void)
{
    static int state = 0; /* 0 not yet asked, 1 ready, -1 unusable */
    if (state == 0)
        state = elf_version(EV_CURRENT) == EV_NONE ? -1 : 1;
    return state == 1;
}

/* One note for the archive's members without a symbol table (reader_t). */
static void note_members_without_symtab(reader_t *r)
{
    if (r->members_without_symtab == 0)
        return;
    lg_diag_add(r->d, LG_NOTE, r->path,
                "%zu archive member(s) have no symbol table, the first %s: no functions read "
                "from them (members without code of their own are common in archives)",
                r->members_without_symtab, r->first_without_symtab);
}

/* Reads the input at fd (already open) into r->out. */
static lg_err_t read_input(reader_t *r, int fd)
{
    elf_reader_t f = {.r = r, .where = r->path};
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (elf == NULL)
        return fail_at(&f, LG_EELF, NULL, "libelf cannot read it: %s", elf_errmsg(-1));
    lg_err_t err;
    switch (elf_kind(elf)) {
    case ELF_K_ELF:
        err = read_elf(r, elf, r->path, NULL);
        break;
    case ELF_K_AR:
        err = read_archive(r, fd, elf);
        note_members_without_symtab(r);
        break;
    default: {
        /* Tell a thin archive, and a damaged ELF file, from something else entirely. */
        uint8_t head[LG_ELF_PROBE_BYTES];
        ssize_t got = pread(fd, head, sizeof head, 0);
        size_t size;
        const char *image;
        if (got == (ssize_t)LG_AR_MAGIC_BYTES &&
            memcmp(head, LG_AR_THIN_MAGIC, LG_AR_MAGIC_BYTES) == 0 &&
            (image = elf_rawfile(elf, &size)) != NULL) {
            err = read_thin_archive(r, image, size);
            note_members_without_symtab(r);
        } else if (got > 0 && lg_elf_probe(head, (size_t)got))
            err = fail_at(&f, LG_EELF, NULL, "ELF header truncated or corrupt");
        else
            err = fail_at(&f, LG_EELF, NULL, "not an ELF file or ar archive");
        break;
    }
    }
    elf_end(elf);
    return err;
}

lg_err_t lg_elfsyms_read(lg_elfsyms_t *t, const char *path, lg_diag_t *d)
{
    if (!libelf_ready())
        return lg_diag_fail(d, LG_EELF, path, "libelf cannot handle the current ELF version: %s",
                            elf_errmsg(-1));
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return lg_diag_fail(d, LG_EIO, path, "cannot open: %s", strerror(errno));
    struct stat st;
    lg_err_t err = LG_OK;
    if (fstat(fd, &st) != 0)
        err = lg_diag_fail(d, LG_EIO, path, "cannot read: %s", strerror(errno));
    else if (S_ISDIR(st.st_mode))
        err = lg_diag_fail(d, LG_EIO, path, "cannot read: %s", strerror(EISDIR));
    if (err != LG_OK) {
        close(fd);
        return err;
    }

    lg_elfsyms_t tmp;
    lg_elfsyms_init(&tmp);
    reader_t r = {.out = &tmp,
                  .base_nsyms = t->nsyms,
                  .base_nfiles = t->nfiles,
                  .first_file = t->nfiles > 0 ? &t->files[0] : NULL,
                  .path = path,
                  .d = d};
    err = read_input(&r, fd);
    close(fd);
    if (err == LG_OK) {
        err = commit(t, &tmp);
        if (err == LG_ELIMIT)
            lg_diag_fail(d, err, path, "more than %u function symbols or %u files in all ELF "
                         "inputs", LG_ELF_MAX_SYMBOLS, (unsigned)UINT32_MAX);
        else if (err != LG_OK)
            lg_diag_fail(d, err, path, "out of memory");
    }
    lg_elfsyms_destroy(&tmp);
    return err;
}
