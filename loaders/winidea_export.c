/* winidea_export.c - the parts of a winIDEA profiler export that Text1 and XML share: field
 * syntax, the .BIN next to the main file, streams per (core, context), statistics held back
 * until the timeline is known, and finishing the profile. See winidea_export.h.
 */
#include "winidea_export.h"

#include "mem.h"
#include "winidea_bin.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#define NONE UINT32_MAX
/* Most hexadecimal digits of a handle (32 bits). */
#define HANDLE_DIGITS 8u

/* ---- Field syntax ------------------------------------------------------------------------- */

int lg_wi_event_code(const char *t, size_t n)
{
    /* The letters Text1 and XML write, first: this runs for every timeline event. */
    if (n == 1) {
        switch (t[0]) {
        case 'E':
            return LG_TL_ENTRY;
        case 'X':
            return LG_TL_EXIT;
        case 'S':
            return LG_TL_SUSPEND;
        case 'R':
            return LG_TL_RESUME;
        case 'W':
            return (int)LG_WI_EVENT_WRITE;
        default:
            break;
        }
    }
    /* Letters as Text1 and XML write them, the numeric types of the .BIN, and the words of
     * winIDEA's SDK (EEvEnter, EEvExit, ...) for XML written by other tools. */
    static const struct {
        const char *text;
        int code;
    } names[] = {
        {"X", LG_TL_EXIT},        {"0", LG_TL_EXIT},
        {"EXIT", LG_TL_EXIT},     {"S", LG_TL_SUSPEND},
        {"1", LG_TL_SUSPEND},     {"SUSPEND", LG_TL_SUSPEND},
        {"R", LG_TL_RESUME},      {"2", LG_TL_RESUME},
        {"RESUME", LG_TL_RESUME}, {"E", LG_TL_ENTRY},
        {"3", LG_TL_ENTRY},       {"ENTRY", LG_TL_ENTRY},
        {"ENTER", LG_TL_ENTRY},   {"W", LG_WI_EVENT_WRITE},
        {"4", LG_WI_EVENT_WRITE}, {"WRITE", LG_WI_EVENT_WRITE},
    };
    for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
        const char *w = names[i].text;
        size_t k = 0;
        while (k < n && w[k] != '\0' &&
               (t[k] == w[k] || (w[k] >= 'A' && w[k] <= 'Z' && t[k] == w[k] - 'A' + 'a')))
            k++;
        if (k == n && w[k] == '\0')
            return names[i].code;
    }
    return -1;
}

static bool has_hex_prefix(const char *t, size_t n)
{
    return n > 2 && t[0] == '0' && (t[1] == 'x' || t[1] == 'X');
}

bool lg_wi_parse_handle(const char *t, size_t n, uint32_t *value)
{
    if (has_hex_prefix(t, n)) {
        t += 2;
        n -= 2;
    }
    if (n == 0 || n > HANDLE_DIGITS)
        return false;
    uint32_t v = 0;
    for (size_t i = 0; i < n; i++) {
        int d = lg_digit_value(t[i]);
        if (d < 0)
            return false;
        v = v << 4 | (uint32_t)d;
    }
    *value = v;
    return true;
}

bool lg_wi_parse_s64(const char *t, size_t n, int64_t *value)
{
    bool negative = n > 0 && t[0] == '-';
    uint64_t v;
    if (lg_parse_u64(t + negative, n - negative, LG_NUMBER_HEX_PREFIX, &v) != LG_NUMBER_OK)
        return false;
    if (negative ? v > (uint64_t)INT64_MAX + 1u : v > (uint64_t)INT64_MAX)
        return false;
    /* -(v - 1) - 1 reaches INT64_MIN without overflowing */
    *value = negative ? (v == 0 ? 0 : -(int64_t)(v - 1u) - 1) : (int64_t)v;
    return true;
}

/* ---- The .BIN next to the main file ------------------------------------------------------ */

static bool is_regular_file(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

lg_err_t lg_wi_bin_find(const char *main_path, char **bin)
{
    *bin = NULL;
    /* The help says "the same name as main file, but with additional .BIN extension"; files
     * renamed by hand or by tools that replace the extension are found too. */
    static const char *const suffixes[] = {".BIN", ".bin"};
    size_t len = strlen(main_path);
    const char *slash = strrchr(main_path, '/');
    const char *dot = strrchr(main_path, '.');
    size_t stem =
        dot != NULL && (slash == NULL || dot > slash + 1) ? (size_t)(dot - main_path) : len;
    for (int replace = 0; replace < 2; replace++) {
        if (replace && stem == len)
            break;
        for (size_t k = 0; k < sizeof suffixes / sizeof *suffixes; k++) {
            char *candidate =
                lg_format("%.*s%s", (int)(replace ? stem : len), main_path, suffixes[k]);
            if (candidate == NULL)
                return LG_ENOMEM;
            if (strcmp(candidate, main_path) != 0 && is_regular_file(candidate)) {
                *bin = candidate;
                return LG_OK;
            }
            free(candidate);
        }
    }
    return LG_OK;
}

/* ---- The export --------------------------------------------------------------------------- */

lg_err_t lg_wi_export_init(lg_wi_export_t *x, lg_profile_t *out, const char *path,
                           const char *format, bool find_bin, const lg_load_options_t *options,
                           lg_diag_t *d)
{
    memset(x, 0, sizeof *x);
    x->out = out;
    x->proximity = options == NULL || !options->skip_proximity;
    x->last_stream = NONE;
    lg_strmap_init(&x->contexts);
    if (lg_profile_set_path(out, path) != LG_OK || lg_wi_map_create(out, &x->map) != LG_OK ||
        (find_bin && lg_wi_bin_find(path, &x->bin_path) != LG_OK))
        return lg_diag_fail(d, LG_ENOMEM, path, "out of memory");
    out->format = format;
    out->kind = LG_PROFILE_TRACE;
    out->counter1_unit = "ns";
    return LG_OK;
}

void lg_wi_export_destroy(lg_wi_export_t *x)
{
    lg_timeline_destroy(x->timeline);
    lg_wi_map_destroy(x->map);
    free(x->bin_path);
    free(x->stats);
    lg_strmap_destroy(&x->contexts);
    for (size_t i = 0; i < x->ncontexts; i++)
        free(x->context_names[i]);
    free(x->context_names);
    lg_intmap_destroy(&x->core_no);
    lg_intmap_destroy(&x->streams);
    free(x->last_context_text);
    memset(x, 0, sizeof *x);
}

lg_err_t lg_wi_export_function_stat(lg_wi_export_t *x, uint32_t func, uint64_t count, uint64_t net,
                                    uint64_t gross)
{
    size_t old_cap = x->stats_cap;
    if (!lg_grow((void **)&x->stats, &x->stats_cap, x->out->nfuncs, sizeof *x->stats))
        return LG_ENOMEM;
    memset(x->stats + old_cap, 0, (x->stats_cap - old_cap) * sizeof *x->stats);
    lg_wi_stat_t *s = &x->stats[func];
    s->count = lg_sat_add(s->count, count);
    s->net = lg_sat_add(s->net, net);
    s->gross = lg_sat_add(s->gross, gross);
    return LG_OK;
}

/* The index of context name t, added if new. */
static lg_err_t context_id(lg_wi_export_t *x, const char *t, size_t n, uint32_t *id)
{
    char *copy = lg_strndup(t, n);
    if (copy == NULL)
        return LG_ENOMEM;
    if (lg_strmap_get(&x->contexts, copy, id)) {
        free(copy);
        return LG_OK;
    }
    if (!lg_grow((void **)&x->context_names, &x->context_names_cap, x->ncontexts + 1,
                 sizeof *x->context_names) ||
        !lg_strmap_put(&x->contexts, copy, (uint32_t)x->ncontexts, NULL)) {
        free(copy);
        return LG_ENOMEM;
    }
    *id = (uint32_t)x->ncontexts;
    x->context_names[x->ncontexts++] = copy;
    return LG_OK;
}

lg_err_t lg_wi_export_stream(lg_wi_export_t *x, int64_t core, const char *context, size_t n,
                             uint32_t *stream)
{
    if (x->last_stream != NONE && core == x->last_core && n == x->last_context_len &&
        (n == 0 || memcmp(context, x->last_context_text, n) == 0)) {
        *stream = x->last_stream;
        return LG_OK;
    }
    uint32_t ctx = NONE;
    if (n > 0)
        LG_CHECK(context_id(x, context, n, &ctx));
    /* (core, context) is wider than a key: cores are numbered first. Each stream has one core,
     * so there are at most LG_TL_MAX_STREAMS + 1 core numbers before the limit fails the load. */
    uint64_t *core_no = lg_intmap_find_or_add(&x->core_no, (uint64_t)core, x->core_no.count, NULL);
    if (core_no == NULL)
        return LG_ENOMEM;
    uint64_t key = lg_intmap_pair((uint32_t)*core_no, ctx);
    uint64_t s;
    if (!lg_intmap_get(&x->streams, key, &s)) {
        if (x->streams.count >= LG_TL_MAX_STREAMS)
            return LG_ELIMIT;
        s = x->streams.count;
        if (!lg_intmap_set(&x->streams, key, s))
            return LG_ENOMEM;
    }
    if (!lg_grow((void **)&x->last_context_text, &x->last_context_cap, n + 1, 1))
        return LG_ENOMEM;
    memcpy(x->last_context_text, context, n);
    x->last_context_len = n;
    x->last_core = core;
    x->last_stream = (uint32_t)s;
    *stream = (uint32_t)s;
    return LG_OK;
}

bool lg_wi_export_has_timeline(const lg_wi_export_t *x)
{
    return x->timeline != NULL;
}

lg_err_t lg_wi_export_event(lg_wi_export_t *x, uint32_t stream, uint32_t func, lg_tl_kind_t kind,
                            int64_t time_ns)
{
    if (x->timeline == NULL)
        LG_CHECK(lg_timeline_create(x->out, x->proximity, &x->timeline));
    return lg_timeline_event(x->timeline, stream, func, kind, time_ns);
}

/* No timeline: hits and times from the statistics. A function that ran (some time) without a
 * counted entry gets hits 1, "ran, count unknown", as in the other loaders. */
static void apply_statistics(lg_wi_export_t *x)
{
    lg_profile_t *out = x->out;
    size_t n = out->nfuncs < x->stats_cap ? out->nfuncs : x->stats_cap;
    for (size_t i = 0; i < n; i++) {
        const lg_wi_stat_t *s = &x->stats[i];
        lg_pfunc_t *f = &out->funcs[i];
        f->hits = s->count > 0 || (s->net == 0 && s->gross == 0) ? s->count : 1;
        f->counter1_self = s->net;
        /* Gross time includes net time; without T.GROSS the net time is its best bound. */
        f->counter1_total = s->gross > s->net ? s->gross : s->net;
    }
    lg_profile_finish_edges(out);
}

lg_err_t lg_wi_export_finish(lg_wi_export_t *x, const lg_load_options_t *options, lg_diag_t *d)
{
    lg_profile_t *out = x->out;
    if (x->bin_path != NULL) {
        unsigned version = options != NULL ? options->bin_version : 0;
        if (version != LG_WI_BIN_DETECT && version != LG_WI_BIN_V1_0 && version != LG_WI_BIN_V1_1)
            return lg_diag_fail(d, LG_EINVAL, x->bin_path,
                                "expected binary timeline version 1.0 or 1.1, found code %u",
                                version);
        if (x->timeline == NULL && lg_timeline_create(out, x->proximity, &x->timeline) != LG_OK)
            return lg_diag_fail(d, LG_ENOMEM, x->bin_path, "out of memory");
        LG_CHECK(lg_wi_bin_read(x->bin_path, (lg_wi_bin_version_t)version, x->map, x->timeline,
                                options, d));
    }
    out->cost_positions = out->ncosts > 0 ? LG_POS_LINE : LG_POS_NONE;
    /* A timeline without events (an empty .BIN, a TIMELINE header with no entries) says
     * nothing: the statistics, if any, stand. */
    if (x->timeline != NULL && lg_timeline_stats(x->timeline)->events > 0)
        return lg_timeline_finish(x->timeline, d);
    apply_statistics(x);
    return LG_OK;
}
