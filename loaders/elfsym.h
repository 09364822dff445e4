/* elfsym.h - function symbols, their sizes and the sections they live in, read with libelf.
 *
 * lorgen reads two kinds of ELF input and keeps both in one table:
 *   linked    ET_EXEC / ET_DYN: addresses and sizes as linked (the current order), and the
 *             STT_FILE symbol that precedes each local symbol (the source file of a static)
 *   objects   ET_REL files and ar archives of them: the exact input section each function lives
 *             in (.text.hot.foo, .text.foo.constprop.0, ...), its alignment, the object file it
 *             came from, and whether other functions share that section
 * 32/64-bit and little/big-endian ELF are read alike (x86-64, SH-4, ARM, RISC-V, ...), but all
 * the files of one table must share machine, class and byte order: they are one program.
 * A slim GCC LTO object (gcc -flto: .gnu.lto_* sections, no function) is kept as a file marked
 * lto_bytecode, with no symbols; a fat one (-ffat-lto-objects) is read as any object.
 *
 * A symbol is kept when it is STT_FUNC (or STT_GNU_IFUNC), defined (not SHN_UNDEF/SHN_ABS/
 * SHN_COMMON), and its section is executable (SHF_EXECINSTR). Zero-size functions are kept with
 * size 0 (binding reports them). SHN_XINDEX is resolved through SHT_SYMTAB_SHNDX.
 * Objects' relocations are read as references (lg_elfref_t): which executable sections each
 * executable or allocated data section refers to, and whether by a call or by taking an
 * address. Branch relocation types tell calls on ARM, AArch64, RISC-V, PowerPC and MIPS; on
 * x86 the opcode before the displacement does (call, jmp, jcc, call/jmp through the GOT).
 * Unwind and exception tables (.eh_frame, .gcc_except_table, .ARM.exidx/.ARM.extab) and
 * non-allocated sections (debug info) refer to every function without calling or taking the
 * address of any, and are left out.
 */
#ifndef LG_ELFSYM_H
#define LG_ELFSYM_H

#include "diag.h"
#include "strmap.h"

#include <stdbool.h>
#include <stdint.h>

/* Most function symbols lorgen reads from all ELF inputs together. */
#define LG_ELF_MAX_SYMBOLS (16u * 1024u * 1024u)
/* Most references (lg_elfref_t, after removing repeats) kept from all ELF inputs together. */
#define LG_ELF_MAX_REFS (64u * 1024u * 1024u)
/* Most ar members read from one archive. */
#define LG_ELF_MAX_ARCHIVE_MEMBERS (1u * 1024u * 1024u)

typedef enum lg_elf_kind {
    LG_ELF_LINKED = 0, /* ET_EXEC or ET_DYN */
    LG_ELF_OBJECT = 1, /* ET_REL, alone or as an archive member */
} lg_elf_kind_t;

typedef struct lg_elf_file {
    char *path;         /* as given; for archive members "lib.a(member.o)" */
    char *member;       /* archive member name, or NULL */
    lg_elf_kind_t kind;
    uint8_t elf_class;  /* ELFCLASS32 or ELFCLASS64 */
    bool big_endian;
    uint16_t machine;   /* e_machine (EM_X86_64, EM_SH, EM_ARM, EM_RISCV, ...) */
    bool refs_read;     /* objects: every relocation section was read into lg_elfsyms_t.refs, so
                           a function alone in its section refers to nothing else */
    bool lto_bytecode;  /* objects: GCC LTO bytecode only (GIMPLE in .gnu.lto_* sections, no
                           function of machine code: gcc -flto without -ffat-lto-objects). Its
                           functions get their code, and their sections, only when the program
                           is linked, so the file tells nothing about them */
    bool stripped;      /* no .symtab: at most the dynamic symbols (no statics) were read */
    bool sources_partial; /* linked by lld or gold (its .comment or .note.gnu.gold-version says
                           so): they copy only the STT_FILE symbols the objects have, so the
                           statics of an object without one (glibc's libc.a members, most
                           assembly) follow an earlier object's and take its source file.
                           GNU ld gives such an object an STT_FILE named after it */
    bool needs_shared_libraries; /* linked: its dynamic section names a DT_NEEDED library, whose
                                    code runs beside it where the loader puts it */
    uint8_t arm_cpu_arch; /* EM_ARM: Tag_CPU_arch of its build attributes (arm_attributes.h);
                             0 when it has none or is of another machine */
} lg_elf_file_t;

/* A reference found in an object's relocations: code or data in one section of the file that
 * refers to a function (a call, a jump, a taken address). Calls inlined when the object was
 * compiled leave none: that is how binding tells them from real calls (bind.c). */
#define LG_ELFREF_DATA UINT32_MAX /* from_section: the reference is from a data section */
#define LG_ELFREF_BY_NAME UINT32_MAX /* to_section: an undefined symbol, see to_name */
typedef enum lg_elfref_kind {
    LG_ELFREF_CALL = 0,    /* a call or jump to it: a branch relocation, or a branch opcode */
    LG_ELFREF_ADDRESS = 1, /* its address taken: from data, or code that is no branch */
    LG_ELFREF_CODE = 2,    /* from code of a machine whose branches lorgen cannot tell apart */
} lg_elfref_kind_t;
typedef struct lg_elfref {
    uint32_t file;         /* index into lg_elfsyms_t.files (an object) */
    uint32_t from_section; /* executable section holding the referring code, or LG_ELFREF_DATA */
    uint32_t to_section;   /* executable section of this file referred to, or LG_ELFREF_BY_NAME */
    char *to_name;         /* the undefined symbol's name when to_section is LG_ELFREF_BY_NAME */
    uint8_t kind;          /* lg_elfref_kind_t */
} lg_elfref_t;

typedef struct lg_elfsym {
    char *name;          /* symbol name as in the symbol table (mangled for C++) */
    uint64_t value;      /* st_value: address (linked) or offset in its section (object) */
    uint64_t size;       /* st_size in bytes; 0 when the symbol table gives none */
    char *section;       /* name of the section holding it: the input section for objects
                            (".text.foo"), the output section for linked files (".text") */
    uint64_t section_align; /* sh_addralign of that section (objects; 0 if unknown) */
    uint64_t section_size;  /* sh_size of that section */
    uint64_t section_addr;  /* sh_addr of that section: 0 in objects */
    char *source_file;   /* for locals: the STT_FILE name in effect, e.g. "util.c"; else NULL
                            (of a linked file with sources_partial, maybe another file's) */
    uint32_t file;       /* index into lg_elfsyms_t.files */
    uint32_t section_index; /* section header index in its file */
    uint32_t section_funcs; /* objects: function symbols in the same section (1 = alone) */
    bool is_local;       /* STB_LOCAL; false for a linked file's local of hidden or internal
                            visibility: a global its object hid, which lld (unlike GNU ld) makes
                            STB_LOCAL in the linked file, and still the global of that name */
    bool is_weak;        /* STB_WEAK */
    bool is_hidden;      /* STV_HIDDEN or STV_INTERNAL: a global the linker turns into a local
                            of the linked file (an object's hidden global is the linked local) */
    bool is_label;       /* a code label: an untyped symbol (STT_NOTYPE) in executable code
                            outside every function symbol's range, as hand-written assembly
                            defines them; without st_size it ends where the next symbol of its
                            section starts, or at the section's end */
} lg_elfsym_t;

typedef struct lg_elfsyms {
    lg_elf_file_t *files;
    size_t nfiles, files_cap;
    lg_elfsym_t *syms; /* in file order, then symbol-table order */
    size_t nsyms, syms_cap;
    lg_elfref_t *refs; /* objects' references to executable sections, unique per file */
    size_t nrefs, refs_cap;
    lg_strmap_t by_name;     /* name -> first symbol with that name */
    uint32_t *next_same_name; /* per symbol: next symbol with its name, or UINT32_MAX */
} lg_elfsyms_t;

void lg_elfsyms_init(lg_elfsyms_t *t);
/* Frees everything; accepts a zeroed struct. */
void lg_elfsyms_destroy(lg_elfsyms_t *t);

/* Reads the function symbols of one ELF file or ar archive at path and appends them to t.
 * On error returns LG_EIO (cannot open or read), LG_EELF (not ELF, libelf failure, corrupt
 * tables, or another machine, ELF class or byte order than the files t holds already: the ELF
 * inputs are one program's) or LG_ELIMIT, records a diagnostic naming the file (and section or
 * member), and leaves t as it was before the call. Never prints. */
lg_err_t lg_elfsyms_read(lg_elfsyms_t *t, const char *path, lg_diag_t *d);

/* A name for an e_machine value ("x86-64", "RISC-V", "SH", ...); NULL for one lorgen does not
 * name. */
const char *lg_elf_machine_name(uint16_t machine);

/* True when the first bytes look like an ELF file or an ar archive. */
bool lg_elf_probe(const uint8_t *head, size_t len);

/* First symbol named name, or UINT32_MAX; follow next_same_name for the others. */
uint32_t lg_elfsyms_first(const lg_elfsyms_t *t, const char *name);

#endif
