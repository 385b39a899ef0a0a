/*
 * chooser.c - the choice of the real cache's mode from its mode shadows'
 * hits (see chooser.h).
 *
 * Every `period` sampled lookups the decayed counts are compared (scaled by
 * CHOOSER_KEEP at each decision, so the last twenty periods or so count).
 * The mode whose shadow hit most takes the cache when it out-hit the
 * current mode's shadow significantly: by more than CHOOSER_SWITCH_MARGIN of the lookups and by
 * more than chance would. Both shadows saw the same lookups, so only those
 * where they differ count: the lead is won - lost, whose standard deviation,
 * were the two equal, is about sqrt(won + lost). The margin keeps a cache
 * whose shadows tie from switching on noise; a switch costs the real cache
 * the entries its new mode would not have kept.
 */
#include "chooser.h"

#include <math.h>
#include <string.h>

uint64_t chooser_size(uint64_t entries, uint64_t budget, uint64_t (*shadow_bytes)(uint64_t)) {
    uint64_t mini = entries < CHOOSER_MAX_MINI ? entries : CHOOSER_MAX_MINI;
    while (mini >= CHOOSER_MIN_MINI && shadow_bytes(mini) > budget) mini = mini * 7 / 8;
    return mini >= CHOOSER_MIN_MINI ? mini : 0;
}

void chooser_init(chooser_t *c, uint64_t entries, uint64_t mini) {
    memset(c, 0, sizeof *c);
    if (!mini || !entries) return;
    double rate = (double)mini / (double)entries;
    c->threshold = rate >= 1 ? UINT64_C(1) << 32 : (uint64_t)(rate * 4294967296.0);
    c->period = mini > CHOOSER_MIN_PERIOD ? mini : CHOOSER_MIN_PERIOD;
    c->enabled = 1;
}

void chooser_clear(chooser_t *c) {
    c->in_period = c->switches = 0;
    memset(c->hits, 0, sizeof c->hits);
    memset(c->won, 0, sizeof c->won);
    c->lookups = 0;
    c->mode = MODE_ADAPTIVE;
}

int chooser_sampled(const chooser_t *c, uint64_t hash) {
    return c->enabled && ((hash >> 24) & UINT32_MAX) < c->threshold;
}

static int significant(const chooser_t *c, int a, int b) {
    double won = c->won[a][b], lost = c->won[b][a], lead = won - lost;
    return lead > CHOOSER_SWITCH_MARGIN * c->lookups && lead > CHOOSER_SWITCH_Z * sqrt(won + lost);
}

static void decide(chooser_t *c) {
    int best = c->mode;
    for (int m = 0; m < NMODES; m++)
        if (c->hits[m] > c->hits[best]) best = m;
    if (best != (int)c->mode && significant(c, best, c->mode)) {
        c->mode = (chooser_mode)best;
        c->switches++;
    }
    for (int a = 0; a < NMODES; a++) {
        c->hits[a] *= CHOOSER_KEEP;
        for (int b = 0; b < NMODES; b++) c->won[a][b] *= CHOOSER_KEEP;
    }
    c->lookups *= CHOOSER_KEEP;
}

chooser_mode chooser_vote(chooser_t *c, const int hit[NMODES]) {
    for (int a = 0; a < NMODES; a++) {
        c->hits[a] += hit[a];
        for (int b = 0; b < NMODES; b++) c->won[a][b] += hit[a] && !hit[b];
    }
    c->lookups += 1;
    if (++c->in_period == c->period) {
        c->in_period = 0;
        decide(c);
    }
    return c->mode;
}
