/*
 * cache_sim.c - trace replay through hotcache, and Belady's OPT.
 *
 * OPT: with every access's next-use position known, evicting the cached key
 * used farthest in the future is optimal (Belady 1966; Mattson et al. 1970).
 * When bypass is allowed, a missed key whose own next use is at least as far
 * as every cached key's is simply not inserted, which is the same choice
 * (it would be the victim itself). The cached keys sit in a max-heap on next
 * use; a hit pushes a fresh (next use, key) pair and leaves the old one to be
 * discarded lazily when it reaches the top.
 */
#define _POSIX_C_SOURCE 200809L /* getline */
#include "cache_sim.h"

#include "ref_policy.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Tuned on Zipf and the LIRS traces (docs/benchmarks-cache.md): 8 lookups
 * per entry and a = 0.2; hotcache's own default gives two ghosts per entry. */
#define SIM_PERIOD_PER_ENTRY 8
#define SIM_MIN_PERIOD       64
#define SIM_DECAY            0.2

static int parse_key(const char *s, uint64_t *out) {
    while (isspace((unsigned char)*s)) s++;
    if (!*s) return -1;
    const char *digits = (*s == '-' || *s == '+') ? s + 1 : s;
    if (!isdigit((unsigned char)*digits)) return -1;
    char *end;
    errno = 0;
    uint64_t v = *s == '-' ? (uint64_t)strtoll(s, &end, 10) : strtoull(digits, &end, 10);
    if (errno) return -1;
    while (isspace((unsigned char)*end)) end++;
    if (*end) return -1;
    *out = v;
    return 0;
}

int cache_sim_read_trace(FILE *f, uint64_t **keys, size_t *n) {
    if (!f || !keys || !n) return SCBF_E_INVALID_ARG;
    size_t len = 0, cap = 4096;
    uint64_t *a = malloc(cap * sizeof *a);
    char *line = NULL;
    size_t linecap = 0;
    int rc = a ? SCBF_OK : SCBF_E_NOMEM;
    while (rc == SCBF_OK && getline(&line, &linecap, f) != -1) {
        uint64_t k;
        if (parse_key(line, &k)) continue;
        if (len == cap) {
            uint64_t *b = realloc(a, 2 * cap * sizeof *a);
            if (!b) {
                rc = SCBF_E_NOMEM;
                break;
            }
            a = b;
            cap *= 2;
        }
        a[len++] = k;
    }
    free(line);
    if (rc == SCBF_OK && ferror(f)) rc = SCBF_E_ITER;
    if (rc != SCBF_OK) {
        free(a);
        return rc;
    }
    *keys = a;
    *n = len;
    return SCBF_OK;
}

void cache_sim_config(hotcache_config_t *c, hotcache_policy policy, uint64_t entries) {
    hotcache_config_default(c, policy, UINT64_MAX);
    c->max_entries = entries;
    uint64_t period = entries > UINT32_MAX ? UINT32_MAX : entries * SIM_PERIOD_PER_ENTRY;
    if (period < SIM_MIN_PERIOD) period = SIM_MIN_PERIOD;
    c->period = period > UINT32_MAX ? UINT32_MAX : (uint32_t)period;
    c->decay = SIM_DECAY;
}

int cache_sim_replay(const hotcache_config_t *c, const uint64_t *keys, size_t n, uint64_t *hits) {
    if (!c || (!keys && n) || !hits) return SCBF_E_INVALID_ARG;
    hotcache_t *h;
    int rc = hotcache_create(c, &h);
    if (rc != SCBF_OK) return rc;
    static const unsigned char one = 1;
    for (size_t i = 0; i < n && rc == SCBF_OK; i++) {
        unsigned char k[8], v;
        for (int b = 0; b < 8; b++) k[b] = (unsigned char)(keys[i] >> (8 * b));
        size_t vlen;
        rc = hotcache_get(h, k, sizeof k, &v, sizeof v, &vlen);
        if (rc == SCBF_E_NOT_FOUND) rc = hotcache_put(h, k, sizeof k, &one, 1, NULL);
    }
    hotcache_stats_t st;
    if (rc == SCBF_OK) rc = hotcache_stats(h, &st);
    if (rc == SCBF_OK) *hits = st.hits;
    hotcache_free(h);
    return rc;
}

/* ---- OPT ---------------------------------------------------------------- */

typedef struct {
    uint64_t next;
    uint32_t id;
} use_t;

static void heap_up(use_t *a, size_t i) {
    use_t x = a[i];
    while (i > 0 && a[(i - 1) / 2].next < x.next) {
        a[i] = a[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    a[i] = x;
}

static void heap_down(use_t *a, size_t n, size_t i) {
    use_t x = a[i];
    for (;;) {
        size_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && a[c + 1].next > a[c].next) c++;
        if (a[c].next <= x.next) break;
        a[i] = a[c];
        i = c;
    }
    a[i] = x;
}

/* Dense ids 0..distinct-1 for the keys, via an open-addressing table. */
static int dense_ids(const uint64_t *keys, size_t n, uint32_t *ids, size_t *distinct) {
    size_t slots = 16;
    while (slots < 2 * n) slots *= 2;
    uint64_t *tk = malloc(slots * sizeof *tk);
    uint32_t *tv = calloc(slots, sizeof *tv); /* id + 1, 0 = empty */
    if (!tk || !tv) {
        free(tk);
        free(tv);
        return SCBF_E_NOMEM;
    }
    size_t d = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t x = keys[i] * UINT64_C(0x9E3779B97F4A7C15);
        size_t s = (size_t)(x >> 20) & (slots - 1);
        while (tv[s] && tk[s] != keys[i]) s = (s + 1) & (slots - 1);
        if (!tv[s]) {
            tk[s] = keys[i];
            tv[s] = (uint32_t)++d;
        }
        ids[i] = tv[s] - 1;
    }
    free(tk);
    free(tv);
    *distinct = d;
    return SCBF_OK;
}

int cache_sim_is_reference(const char *policy) {
    ref_policy p;
    return ref_policy_parse(policy, &p) == 0;
}

int cache_sim_reference(const char *policy, const uint64_t *keys, size_t n, uint64_t entries,
                        uint64_t *hits) {
    ref_policy p;
    if (ref_policy_parse(policy, &p) || (!keys && n) || !hits) return SCBF_E_INVALID_ARG;
    if (n >= UINT32_MAX) return SCBF_E_TOO_LARGE;
    uint32_t *ids = malloc((n ? n : 1) * sizeof *ids);
    size_t distinct = 0;
    int rc = ids ? dense_ids(keys, n, ids, &distinct) : SCBF_E_NOMEM;
    if (rc == SCBF_OK) rc = ref_replay(p, keys, ids, n, distinct, entries, hits);
    free(ids);
    return rc;
}

int cache_sim_opt(const uint64_t *keys, size_t n, uint64_t entries, uint64_t *hits) {
    if ((!keys && n) || !hits) return SCBF_E_INVALID_ARG;
    if (n >= UINT32_MAX) return SCBF_E_TOO_LARGE;
    const uint64_t never = UINT64_MAX;
    uint32_t *ids = malloc((n ? n : 1) * sizeof *ids);
    uint64_t *next = malloc((n ? n : 1) * sizeof *next);
    use_t *heap = malloc((n ? n : 1) * sizeof *heap);
    uint64_t *cur = NULL; /* per id: next use while cached, or `never` */
    unsigned char *cached = NULL;
    size_t distinct = 0;
    int rc = ids && next && heap ? dense_ids(keys, n, ids, &distinct) : SCBF_E_NOMEM;
    if (rc == SCBF_OK) {
        cur = malloc((distinct ? distinct : 1) * sizeof *cur);
        cached = calloc(distinct ? distinct : 1, 1);
        if (!cur || !cached) rc = SCBF_E_NOMEM;
    }
    if (rc == SCBF_OK) {
        for (size_t d = 0; d < distinct; d++) cur[d] = never;
        for (size_t i = n; i-- > 0;) { /* cur doubles as "last seen" here */
            next[i] = cur[ids[i]];
            cur[ids[i]] = i;
        }
        uint64_t h = 0, incache = 0;
        size_t hn = 0;
        for (size_t i = 0; i < n; i++) {
            uint32_t id = ids[i];
            if (cached[id]) {
                h++;
            } else if (incache < entries) {
                cached[id] = 1;
                incache++;
            } else {
                if (entries == 0) continue;
                /* Discard pairs made stale by later hits or evictions. */
                while (!cached[heap[0].id] || cur[heap[0].id] != heap[0].next) {
                    heap[0] = heap[--hn];
                    heap_down(heap, hn, 0);
                }
                if (next[i] >= heap[0].next) continue; /* bypass */
                cached[heap[0].id] = 0;
                heap[0] = heap[--hn];
                heap_down(heap, hn, 0);
                cached[id] = 1;
            }
            cur[id] = next[i];
            heap[hn++] = (use_t){next[i], id};
            heap_up(heap, hn - 1);
        }
        *hits = h;
    }
    free(ids);
    free(next);
    free(heap);
    free(cur);
    free(cached);
    return rc;
}
