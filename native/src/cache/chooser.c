/*
 * chooser.c - sampled shadow simulations and the choice of the real cache's
 * mode (see chooser.h).
 *
 * The decision. Every `period` sampled lookups the decayed counts are
 * compared (halved at each decision, so the last two periods or so count).
 * The best of the three sampled shadows takes the cache to its mode when it
 * out-hits the real cache significantly (see significant) and, from the
 * adaptive mode, also the shadow LRU (the adaptive mode can become LRU by
 * itself). In another mode, the shadow LRU out-hitting the real cache so
 * takes it back to the adaptive one. A switch away from the adaptive mode
 * is a trial (end_trial).
 *
 * Why the real cache is one of the counts and not a shadow: its hits on the
 * sampled keys are exact, and the modes are its own settings; the shadows
 * only need to say which family of policy the workload favours.
 */
#include "chooser.h"

#include <math.h>
#include <string.h>

#include "scbf/scbf_error.h"

static const chooser_mode MODE_OF[NCAND] = {MODE_ADAPTIVE, MODE_ADAPTIVE, MODE_FREQUENCY, MODE_FIFO,
                                            MODE_FREQUENCY};

static uint32_t lirs_slots(uint64_t mini) { return (uint32_t)mini_lirs_slots(mini, mini); }

uint64_t chooser_bytes(uint64_t mini) {
    if (!mini) return 0;
    uint32_t sl = lirs_slots(mini), ss = (uint32_t)mini_s3fifo_slots(mini),
             sw = (uint32_t)mini_wtinylfu_slots(mini);
    /* each array charged with malloc's most overhead, 32 bytes: the maps 3 x 3, LIRS 6,
     * S3-FIFO 4, W-TinyLFU 5 (its sketch included) */
    return idmap_bytes(sl) + idmap_bytes(ss) + idmap_bytes(sw) + mini_lirs_bytes(sl) +
           mini_s3fifo_bytes(ss) + mini_wtinylfu_bytes(sw, mini) + 24 * 32;
}

uint64_t chooser_size(uint64_t entries, uint64_t budget) {
    uint64_t mini = entries < CHOOSER_MAX_MINI ? entries : CHOOSER_MAX_MINI;
    while (mini >= CHOOSER_MIN_MINI && chooser_bytes(mini) > budget) mini = mini * 7 / 8;
    return mini >= CHOOSER_MIN_MINI ? mini : 0;
}

uint64_t chooser_size_floor(uint64_t entries, uint64_t budget) {
    uint64_t mini = chooser_size(entries, budget);
    if (mini) return mini;
    mini = entries < CHOOSER_MIN_MINI ? entries : CHOOSER_MIN_MINI;
    return mini >= 2 ? mini : 0; /* LIRS needs 2 */
}

static void forget(void *ctx, uint32_t id) {
    chooser_keys_t *k = ctx;
    if (id == k->accessing)
        k->forgot_accessing = 1;
    else
        idmap_remove(&k->map, id);
}

void chooser_destroy(chooser_t *c) {
    for (int k = 0; k < 3; k++) idmap_destroy(&c->keys[k].map);
    if (c->enabled) {
        mini_lirs_free(&c->lirs);
        mini_s3fifo_free(&c->s3fifo);
        mini_wtinylfu_free(&c->wtinylfu);
    }
    memset(c, 0, sizeof *c);
}

static int start_shadows(chooser_t *c) {
    uint64_t mini = c->mini_entries;
    mini_forget_t f[3];
    for (int k = 0; k < 3; k++) f[k] = (mini_forget_t){forget, &c->keys[k]};
    int rc = mini_lirs_init(&c->lirs, mini, mini, lirs_slots(mini), f[0]);
    if (rc == SCBF_OK) {
        rc = mini_s3fifo_init(&c->s3fifo, mini, mini_s3fifo_slots(mini), f[1]);
        if (rc != SCBF_OK) mini_lirs_free(&c->lirs);
    }
    if (rc == SCBF_OK) {
        rc = mini_wtinylfu_init(&c->wtinylfu, mini, 1, mini_wtinylfu_slots(mini), f[2]);
        if (rc != SCBF_OK) {
            mini_lirs_free(&c->lirs);
            mini_s3fifo_free(&c->s3fifo);
        }
    }
    return rc == SCBF_OK ? 0 : -1;
}

int chooser_init(chooser_t *c, uint64_t entries, uint64_t mini) {
    memset(c, 0, sizeof *c);
    if (!mini || !entries) return 0;
    c->mini_entries = mini;
    double rate = (double)mini / (double)entries;
    c->threshold = rate >= 1 ? UINT64_C(1) << 32 : (uint64_t)(rate * 4294967296.0);
    c->period = CHOOSER_PERIOD_PER_MINI * mini > CHOOSER_MIN_PERIOD ? CHOOSER_PERIOD_PER_MINI * mini
                                                                    : CHOOSER_MIN_PERIOD;
    uint32_t slots[3] = {lirs_slots(mini), (uint32_t)mini_s3fifo_slots(mini),
                         (uint32_t)mini_wtinylfu_slots(mini)};
    for (int k = 0; k < 3; k++) {
        c->keys[k].accessing = IDMAP_NONE;
        if (idmap_init(&c->keys[k].map, slots[k])) {
            chooser_destroy(c);
            return -1;
        }
    }
    if (start_shadows(c)) {
        chooser_destroy(c);
        return -1;
    }
    c->enabled = 1;
    return 0;
}

/* Shadows restart empty; the mode goes back to the adaptive one. */
void chooser_clear(chooser_t *c) {
    if (!c->enabled) return;
    mini_lirs_free(&c->lirs);
    mini_s3fifo_free(&c->s3fifo);
    mini_wtinylfu_free(&c->wtinylfu);
    for (int k = 0; k < 3; k++) idmap_clear(&c->keys[k].map);
    c->enabled = start_shadows(c) == 0; /* out of memory: no more choosing */
    c->in_period = c->decisions = 0;
    c->in_trial = 0;
    memset(c->veto, 0, sizeof c->veto);
    memset(c->hits, 0, sizeof c->hits);
    memset(c->won, 0, sizeof c->won);
    memset(c->lost, 0, sizeof c->lost);
    c->lookups = 0;
    c->mode = MODE_ADAPTIVE;
}

int chooser_sampled(const chooser_t *c, uint64_t hash) {
    return c->enabled && ((hash >> 24) & UINT32_MAX) < c->threshold;
}

/* The id of `hash` in shadow k's keys, a new one if it has none. */
static uint32_t enter_key(chooser_keys_t *k, uint64_t hash) {
    uint32_t id = idmap_find(&k->map, hash);
    if (id == IDMAP_NONE) id = idmap_add(&k->map, hash); /* slots bound what a shadow tracks */
    k->accessing = id;
    k->forgot_accessing = 0;
    return id;
}

static void leave_key(chooser_keys_t *k, int tracked) {
    if (k->forgot_accessing && !tracked) idmap_remove(&k->map, k->accessing);
    k->accessing = IDMAP_NONE;
}

/* Does candidate k out-hit the real cache by more than CHOOSER_SWITCH_MARGIN, and
 * by more than chance would? Both saw the same lookups, so only those where
 * they differ count: k's lead is won - lost, whose standard deviation, were
 * the two equal, is about sqrt(won + lost). */
static int significant(const chooser_t *c, int k) {
    double lead = c->won[k] - c->lost[k];
    return lead > CHOOSER_SWITCH_MARGIN * c->lookups &&
           lead > CHOOSER_SWITCH_Z * sqrt(c->won[k] + c->lost[k]);
}

/* The real cache's lead over the shadow LRU, per lookup: the yardstick of a
 * trial, unmoved by a change of workload that moves both. */
static double edge(double real, double lru, double lookups) {
    return lookups > 0 ? (real - lru) / lookups : 0;
}

/* A trial: one full period in the new mode. A mode the cache cannot make
 * pay (its shadow's policy is not what the mode builds: LIRS's stack is
 * not a 1% window) leaves the real cache's lead over LRU below what it was
 * before the switch; then the cache goes back and the mode is vetoed for
 * CHOOSER_VETO_PERIODS. */
static void end_trial(chooser_t *c) {
    c->in_trial = 0;
    double after = edge(c->trial_hits[0], c->trial_hits[1], c->trial_lookups);
    if (after < c->trial_edge) {
        c->veto[c->mode] = CHOOSER_VETO_PERIODS;
        c->mode = c->trial_from;
    }
}

static void choose(chooser_t *c) {
    int best = C_LIRS;
    for (int k = C_S3FIFO; k < NCAND; k++)
        if (c->hits[k] > c->hits[best]) best = k;
    if (c->mode != MODE_ADAPTIVE && significant(c, C_LRU) && c->hits[C_LRU] >= c->hits[best]) {
        c->mode = MODE_ADAPTIVE;
        return;
    }
    chooser_mode next = MODE_OF[best];
    if (next == c->mode || c->veto[next] || !significant(c, best)) return;
    if (c->mode == MODE_ADAPTIVE &&
        !(c->hits[best] > c->hits[C_LRU] + CHOOSER_SWITCH_MARGIN * c->lookups))
        return;
    c->in_trial = 1;
    c->trial_from = c->mode;
    c->trial_edge = edge(c->hits[C_REAL], c->hits[C_LRU], c->lookups);
    c->trial_hits[0] = c->trial_hits[1] = c->trial_lookups = 0;
    c->mode = next;
}

static void decide(chooser_t *c) {
    c->decisions++;
    for (int m = 0; m < NMODES; m++)
        if (c->veto[m]) c->veto[m]--;
    if (c->in_trial)
        end_trial(c);
    else
        choose(c);
    for (int k = 0; k < NCAND; k++) {
        c->hits[k] /= 2;
        c->won[k] /= 2;
        c->lost[k] /= 2;
    }
    c->lookups /= 2;
}

chooser_mode chooser_access(chooser_t *c, uint64_t hash, int real_hit, int lru_hit) {
    uint32_t id;
    int hit[NCAND];
    hit[C_REAL] = real_hit;
    hit[C_LRU] = lru_hit;

    id = enter_key(&c->keys[0], hash);
    hit[C_LIRS] = mini_lirs_access(&c->lirs, id);
    leave_key(&c->keys[0], mini_lirs_tracks(&c->lirs, id));

    id = enter_key(&c->keys[1], hash);
    hit[C_S3FIFO] = mini_s3fifo_access(&c->s3fifo, id);
    leave_key(&c->keys[1], mini_s3fifo_tracks(&c->s3fifo, id));

    id = enter_key(&c->keys[2], hash);
    hit[C_WTINYLFU] = mini_wtinylfu_access(&c->wtinylfu, id, hash);
    leave_key(&c->keys[2], mini_wtinylfu_tracks(&c->wtinylfu, id));

    for (int k = 0; k < NCAND; k++) {
        c->hits[k] += hit[k];
        c->won[k] += hit[k] && !real_hit;
        c->lost[k] += real_hit && !hit[k];
    }
    c->lookups += 1;
    c->trial_hits[0] += real_hit;
    c->trial_hits[1] += lru_hit;
    c->trial_lookups += 1;
    if (++c->in_period == c->period) {
        c->in_period = 0;
        decide(c);
    }
    return c->mode;
}
