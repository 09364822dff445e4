/* walk.c - a random walk over a function's executed instructions (rules in walk.h). */
#include "walk.h"

#include <stdlib.h>
#include <string.h>

void lg_walk_free(lg_walk_t *w)
{
    free(w->nodes);
    free(w->target);
    free(w->weight);
    free(w->entry_cum);
    memset(w, 0, sizeof *w);
}

/* The node at offset, or LG_WALK_OUT when no executed instruction starts there. */
static size_t node_at(const lg_walk_t *w, uint64_t offset)
{
    size_t lo = 0, hi = w->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->nodes[mid].offset < offset)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < w->n && w->nodes[lo].offset == offset ? lo : LG_WALK_OUT;
}

static double positive(double x)
{
    return x > 0.0 ? x : 0.0;
}

bool lg_walk_build(lg_walk_t *w, const lg_hotspot_t *hs, size_t nh, const lg_hotjump_t *js,
                   size_t nj)
{
    memset(w, 0, sizeof *w);
    w->nodes = calloc(nh ? nh : 1, sizeof *w->nodes);
    w->target = calloc(nj ? nj : 1, sizeof *w->target);
    w->weight = calloc(nj ? nj : 1, sizeof *w->weight);
    w->entry_cum = calloc(nh ? nh : 1, sizeof *w->entry_cum);
    double *count = calloc(nh ? nh : 1, sizeof *count), *in = calloc(nh ? nh : 1, sizeof *in);
    if (!w->nodes || !w->target || !w->weight || !w->entry_cum || !count || !in) {
        free(count);
        free(in);
        lg_walk_free(w);
        return false;
    }
    w->n = nh;
    for (size_t k = 0; k < nh; k++) {
        w->nodes[k].offset = hs[k].offset;
        count[k] = (double)hs[k].cost;
    }
    /* Jumps come sorted by source, so each node's jumps are contiguous in target[]. */
    size_t m = 0;
    for (size_t i = 0; i < nj; i++) {
        size_t from = node_at(w, js[i].from), to = node_at(w, js[i].to);
        if (from == LG_WALK_OUT || to == LG_WALK_OUT || js[i].count == 0)
            continue;
        lg_walk_node_t *s = &w->nodes[from];
        if (s->njmp == 0)
            s->first = m;
        w->target[m] = (uint32_t)to;
        w->weight[m] = (double)js[i].count;
        s->njmp++;
        s->jumps += (double)js[i].count;
        in[to] += (double)js[i].count;
        m++;
    }
    double entries = 0.0;
    for (size_t k = 0; k < nh; k++) {
        lg_walk_node_t *s = &w->nodes[k];
        if (k + 1 < nh) {
            double left = positive(count[k] - s->jumps),
                   needed = positive(count[k + 1] - in[k + 1]);
            s->fall = left < needed ? left : needed;
        }
        s->exit = positive(count[k] - s->jumps - s->fall);
        s->total = s->fall + s->exit + s->jumps;
        double entry = positive(count[k] - in[k] - (k > 0 ? w->nodes[k - 1].fall : 0.0));
        entries += entry;
        w->entry_cum[k] = entries;
    }
    if (entries <= 0.0) /* a loop with no way in: start anywhere, by count */
        for (size_t k = 0; k < nh; k++)
            w->entry_cum[k] = (entries += count[k]);
    free(count);
    free(in);
    return true;
}

uint64_t lg_walk_seed(uint64_t seed)
{
    return seed * 0x9E3779B97F4A7C15ull + 1u; /* odd, so never the xorshift's fixed point 0 */
}

/* xorshift64*: a uniform double in [0, 1), the same on every run and machine. */
static double next_unit(uint64_t *state)
{
    uint64_t x = *state;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return (double)((x * 0x2545F4914F6CDD1Dull) >> 11) * (1.0 / 9007199254740992.0);
}

size_t lg_walk_entry(const lg_walk_t *w, uint64_t *rng)
{
    double r = next_unit(rng) * w->entry_cum[w->n - 1];
    size_t lo = 0, hi = w->n - 1;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (w->entry_cum[mid] <= r)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

size_t lg_walk_next(const lg_walk_t *w, size_t cur, uint64_t *rng)
{
    const lg_walk_node_t *s = &w->nodes[cur];
    if (s->total <= 0.0)
        return LG_WALK_OUT;
    double r = next_unit(rng) * s->total;
    for (size_t i = 0; i < s->njmp; i++) {
        r -= w->weight[s->first + i];
        if (r < 0.0)
            return w->target[s->first + i];
    }
    r -= s->fall;
    return r < 0.0 && cur + 1 < w->n ? cur + 1 : LG_WALK_OUT;
}
