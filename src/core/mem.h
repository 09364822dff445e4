/* mem.h - overflow-checked array growth, so no size computation on untrusted counts can wrap. */
#ifndef LG_MEM_H
#define LG_MEM_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Makes room for at least `need` elements of `elem` bytes in *array (capacity in *cap), growing
 * geometrically. Returns false, leaving *array and *cap untouched, on overflow or when memory runs
 * out. */
bool lg_grow(void **array, size_t *cap, size_t need, size_t elem);

/* a + b, saturating at UINT64_MAX: profile counters are summed from untrusted files. */
static inline uint64_t lg_sat_add(uint64_t a, uint64_t b)
{
    return a > UINT64_MAX - b ? UINT64_MAX : a + b;
}

/* v * scale rounded to the nearest count, saturating; scale 1.0 is exact. Profiles merged with
 * weights are scaled by this. */
uint64_t lg_scale_count(uint64_t v, double scale);

/* strdup that accepts NULL (returns NULL) and reports failure through *ok. */
char *lg_strdup_opt(const char *s, bool *ok);

/* printf into a new string; NULL when memory runs out. */
char *lg_format(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
char *lg_vformat(const char *fmt, va_list ap) __attribute__((format(printf, 1, 0)));

/* Copies n bytes into a new NUL-terminated string; NULL when memory runs out. */
char *lg_strndup(const char *s, size_t n);

#endif
