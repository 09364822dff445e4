/* objpath.c - which object file given now a .LOR's object= names; see objpath.h. */
#include "objpath.h"

#include <stdbool.h>
#include <string.h>

lg_objpath_t lg_objpath_split(const char *object)
{
    size_t n = strlen(object);
    lg_objpath_t o = {object, n, NULL, 0};
    if (n < 3 || object[n - 1] != ')')
        return o;
    size_t depth = 0;
    for (size_t i = n; i-- > 0;) {
        if (object[i] == ')') {
            depth++;
        } else if (object[i] == '(' && --depth == 0) {
            if (i > 0 && i + 2 < n)
                o = (lg_objpath_t){object, i, object + i + 1, n - i - 2};
            return o;
        }
    }
    return o;
}

/* A path's components read from the end, as they are once "." components, empty ones (repeated
 * '/') and "dir/.." pairs are taken out; the ".." that nothing before them cancels come last
 * (none for an absolute path, whose root has no parent). */
typedef struct backwards {
    const char *s;
    size_t end;    /* the text not read yet is s[0..end) */
    bool done;     /* every component of the text was read */
    size_t skip;   /* ".." read, not yet cancelled by a component before them */
    bool absolute; /* the path starts with '/' */
} backwards_t;

static backwards_t backwards(const char *s, size_t n)
{
    return (backwards_t){s, n, false, 0, n > 0 && s[0] == '/'};
}

/* The next component from the end into *comp and *len; false when there is none. */
static bool next_component(backwards_t *b, const char **comp, size_t *len)
{
    while (!b->done) {
        size_t end = b->end, start = end;
        while (start > 0 && b->s[start - 1] != '/')
            start--;
        if (start == 0)
            b->done = true;
        else
            b->end = start - 1;
        const char *c = b->s + start;
        size_t n = end - start;
        if (n == 0 || (n == 1 && c[0] == '.'))
            continue;
        if (n == 2 && c[0] == '.' && c[1] == '.') {
            b->skip++;
            continue;
        }
        if (b->skip > 0) {
            b->skip--;
            continue;
        }
        *comp = c;
        *len = n;
        return true;
    }
    if (b->skip > 0 && !b->absolute) {
        b->skip--;
        *comp = "..";
        *len = 2;
        return true;
    }
    return false;
}

/* An object's components from the end: its member's (when it is one), then its file's. */
typedef struct object_backwards {
    backwards_t part[2]; /* the member, the file or archive */
    int at;              /* the part being read; 2 when both are read */
} object_backwards_t;

static object_backwards_t object_backwards(const lg_objpath_t *o)
{
    object_backwards_t b = {{backwards(o->member, o->member_len), backwards(o->path, o->path_len)},
                            o->member != NULL ? 0 : 1};
    return b;
}

static bool next_object_component(object_backwards_t *b, const char **comp, size_t *len)
{
    for (; b->at < 2; b->at++)
        if (next_component(&b->part[b->at], comp, len))
            return true;
    return false;
}

unsigned lg_objpath_match(const char *lor_object, const char *object)
{
    lg_objpath_t a = lg_objpath_split(lor_object), b = lg_objpath_split(object);
    /* A file outside an archive is never an archive's member. */
    if ((a.member == NULL) != (b.member == NULL))
        return 0;
    object_backwards_t ra = object_backwards(&a), rb = object_backwards(&b);
    unsigned common = 0;
    for (;;) {
        const char *ca = NULL, *cb = NULL;
        size_t la = 0, lb = 0;
        bool more_a = next_object_component(&ra, &ca, &la);
        bool more_b = next_object_component(&rb, &cb, &lb);
        if (!more_a && !more_b)
            return ra.part[1].absolute == rb.part[1].absolute ? LG_OBJPATH_SAME : common;
        /* A component of a member never stands for one of an archive's path. */
        if (!more_a || !more_b || ra.at != rb.at || la != lb || memcmp(ca, cb, la) != 0)
            return common;
        common++;
    }
}
