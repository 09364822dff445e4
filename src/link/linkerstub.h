/* linkerstub.h - telling the stubs a linker adds for calls out of range by their names. */
#ifndef LG_LINKERSTUB_H
#define LG_LINKERSTUB_H

#include <stdbool.h>
#include <string.h>

/* A stub the linker made for a call out of range (GNU ld: __callee_veneer; lld:
 * __ARMv7ABSLongThunk_callee and its kin). It lies beside the calls it serves: in a fast region
 * when they leave it. It follows lorgen's choice, so it is the region's own code, taken by no
 * wildcard. */
static inline bool lg_linker_stub_name(const char *name)
{
    static const char veneer[] = "_veneer";
    size_t n = strlen(name), tail = sizeof veneer - 1;
    if (strncmp(name, "__", 2) != 0)
        return false;
    return (n > 2 + tail && strcmp(name + n - tail, veneer) == 0) || strstr(name, "Thunk_") != NULL;
}

#endif
