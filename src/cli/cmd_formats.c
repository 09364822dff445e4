/* cmd_formats.c - lorgen formats: the input formats lorgen reads. */
#include "commands.h"

#include "messages.h"
#include "registry.h"

#include <stdio.h>

int lg_cli_cmd_formats(const lg_cli_options_t *o)
{
    /* A word after it would be dropped unread: likely a command line missing its command. */
    if (o->ninputs > 0)
        lg_cli_usage_error("formats: takes no inputs, found '%s'", o->inputs[0].path);
    size_t n;
    const lg_loader_t *loaders = lg_loaders(&n);
    puts("Profile formats (detected from content; --format NAME forces one):");
    for (size_t i = 0; i < n; i++)
        printf("  %-14s %s\n", loaders[i].name, loaders[i].description);
    puts("Program inputs:");
    printf("  %-14s %s\n", "elf", "ELF executables and shared objects (addresses, sizes)");
    printf("  %-14s %s\n", "", "ELF relocatable objects and ar archives (exact input sections)");
    return 0;
}
