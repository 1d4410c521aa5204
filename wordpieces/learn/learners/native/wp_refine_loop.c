/* The refinement loop (refine.py's refine_python, step for step): rank the candidates
 * by join count, measure their exact gains and the stale tokens' exact losses, swap the
 * least useful tokens for the most useful candidates in a batch kept only if the words'
 * total greedy cost drops. Ties are broken by code point order, as Python's sorts do.
 */
#include "wp_refine_internal.h"

typedef struct {
    int64_t key;
    const uint32_t *chars;
    uint32_t length;
    int32_t id;
} rank_t;

static int by_key_then_string(const void *x, const void *y) {
    const rank_t *a = x, *b = y;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    uint32_t n = a->length < b->length ? a->length : b->length;
    for (uint32_t i = 0; i < n; i++)
        if (a->chars[i] != b->chars[i]) return a->chars[i] < b->chars[i] ? -1 : 1;
    return a->length < b->length ? -1 : a->length > b->length;
}

typedef struct {
    int32_t *ids;
    size_t n, cap;
} ids_t;

static int push(ids_t *list, int32_t id) {
    if (refiner_grow((void **)&list->ids, &list->cap, list->n + 1, sizeof *list->ids) < 0)
        return -1;
    list->ids[list->n++] = id;
    return 0;
}

/* list's ids sorted by (key, string), keys from key_of. */
static int sort_ids(const wp_refiner *r, ids_t *list, int64_t (*key_of)(const tok_t *)) {
    rank_t *ranks = malloc((list->n ? list->n : 1) * sizeof *ranks);
    if (!ranks) return -1;
    for (size_t i = 0; i < list->n; i++) {
        const tok_t *t = &r->toks[list->ids[i]];
        ranks[i] = (rank_t){key_of(t), r->pool + t->start, t->length, list->ids[i]};
    }
    qsort(ranks, list->n, sizeof *ranks, by_key_then_string);
    for (size_t i = 0; i < list->n; i++) list->ids[i] = ranks[i].id;
    free(ranks);
    return 0;
}

static int64_t by_joins(const tok_t *t) { return -t->joins; }
static int64_t by_loss(const tok_t *t) { return t->loss; }
static int64_t by_gain(const tok_t *t) { return -t->gain; }
static int64_t by_place(const tok_t *t) {  /* order, then came_in; -1s resolved by caller */
    return (int64_t)t->order << 32 | (uint32_t)t->came_in;
}

typedef struct {
    ids_t stale, gains, ranked, victims, offers, swaps;  /* swaps: victim, offer, ... */
    ids_t touched, changed;                 /* changed: word, old start, old count, ... */
    int32_t *found;
    size_t n_found, cap_found;
    int32_t *pieces;                        /* touched words' new pieces; changed's old */
    size_t cap_pieces;
    int32_t *old;
    size_t n_old, cap_old;
} loop_t;

/* The tokens the words would save with token id added. */
static int exact_gain(wp_refiner *r, loop_t *s, int32_t id, int64_t *gain) {
    if (refiner_add(r, id) < 0) return -1;
    r->word_stamp++;
    s->n_found = 0;
    if (refiner_touched_by(r, id, &s->found, &s->n_found, &s->cap_found) < 0) return -1;
    int64_t total = 0;
    for (size_t i = 0; i < s->n_found; i++) {
        const word_t *word = &r->words[s->found[i]];
        total += cost_of(word, word->n_pieces) - cost_of(word, refiner_split(r, s->found[i], 0,
                                                                             NULL));
    }
    refiner_discard(r, id);
    *gain = total;
    return 0;
}

/* The extra tokens token id's users would cost without it (their weight if above
 * ceiling). Each user splits again from the token's first use. */
static int removal_loss(wp_refiner *r, int32_t id, int64_t ceiling, int64_t *loss) {
    uint32_t n = refiner_users(r, id);
    int64_t weight = 0, total = 0;
    for (uint32_t i = 0; i < n; i++) weight += r->words[r->toks[id].users[i]].count;
    if (!n || weight > ceiling) {
        *loss = weight;
        return 0;
    }
    refiner_discard(r, id);
    int64_t cut = (int64_t)r->prefix_length;
    for (uint32_t i = 0; i < n; i++) {
        int32_t w = r->toks[id].users[i];
        const word_t *word = &r->words[w];
        const int32_t *pieces = r->pieces + word->start;
        int32_t at = 0;
        int64_t start = 0;
        for (; pieces[at] != id; at++) start += (int64_t)r->toks[pieces[at]].length - cut;
        if (at) start += cut;
        int32_t tail = refiner_split(r, w, (size_t)start, NULL);
        total += cost_of(word, tail < 0 ? -1 : at + tail) - cost_of(word, word->n_pieces);
    }
    *loss = total;
    return refiner_add(r, id);
}

/* The candidates of this round: joins in no token, the most frequent first. */
static int rank_candidates(wp_refiner *r, loop_t *s, int candidates) {
    s->ranked.n = 0;
    for (size_t id = 0; id < r->n_toks; id++)
        if (r->toks[id].joins > 0 && !r->toks[id].in_vocab && push(&s->ranked, (int32_t)id) < 0)
            return -1;
    if (sort_ids(r, &s->ranked, by_joins) < 0) return -1;
    if (s->ranked.n > (size_t)candidates) s->ranked.n = (size_t)candidates;
    return 0;
}

/* gains: the ranked candidates, each with its gain (kept from before, or measured). */
static int measure_gains(wp_refiner *r, loop_t *s, int64_t *best) {
    uint32_t stamp = ++r->tok_stamp;
    for (size_t i = 0; i < s->ranked.n; i++) r->toks[s->ranked.ids[i]].mark = stamp;
    for (size_t i = 0; i < s->gains.n; i++)
        if (r->toks[s->gains.ids[i]].mark != stamp) r->toks[s->gains.ids[i]].has_gain = 0;
    s->gains.n = 0;
    *best = 0;
    for (size_t i = 0; i < s->ranked.n; i++) {
        tok_t *t = &r->toks[s->ranked.ids[i]];
        if (!t->has_gain) {
            int64_t gain;
            if (exact_gain(r, s, s->ranked.ids[i], &gain) < 0) return -1;
            t = &r->toks[s->ranked.ids[i]];
            t->gain = gain;
            t->has_gain = 1;
        }
        if (i == 0 || t->gain > *best) *best = t->gain;
        if (push(&s->gains, s->ranked.ids[i]) < 0) return -1;
    }
    return 0;
}

/* swaps: (victim, offer) pairs of the sorted lists whose gain beats the loss. */
static int pick_swaps(wp_refiner *r, loop_t *s, int64_t batch) {
    s->victims.n = s->offers.n = s->swaps.n = 0;
    for (size_t id = 0; id < r->n_toks; id++)
        if (r->toks[id].has_loss && push(&s->victims, (int32_t)id) < 0) return -1;
    for (size_t i = 0; i < s->gains.n; i++)
        if (push(&s->offers, s->gains.ids[i]) < 0) return -1;
    if (sort_ids(r, &s->victims, by_loss) < 0 || sort_ids(r, &s->offers, by_gain) < 0)
        return -1;
    for (size_t i = 0; i < s->victims.n && i < s->offers.n && (int64_t)s->swaps.n / 2 < batch;
         i++) {
        int32_t victim = s->victims.ids[i], offer = s->offers.ids[i];
        if (r->toks[offer].gain > r->toks[victim].loss
            && (push(&s->swaps, victim) < 0 || push(&s->swaps, offer) < 0))
            return -1;
    }
    return 0;
}

/* Make the swaps; keep them if the words' total cost drops (*kept = 1), else undo. The
 * words that changed go to s->changed (word, start of its old pieces in s->old, their
 * number), their new pieces in place. */
static int apply_swaps(wp_refiner *r, loop_t *s, int *kept) {
    uint32_t stamp = ++r->word_stamp;
    s->n_found = s->changed.n = s->n_old = 0;
    for (size_t i = 0; i < s->swaps.n; i += 2) {
        int32_t victim = s->swaps.ids[i];
        uint32_t n = refiner_users(r, victim);
        for (uint32_t k = 0; k < n; k++) {
            int32_t w = r->toks[victim].users[k];
            if (r->words[w].mark == stamp) continue;
            r->words[w].mark = stamp;
            if (refiner_grow((void **)&s->found, &s->cap_found, s->n_found + 1,
                             sizeof *s->found) < 0)
                return -1;
            s->found[s->n_found++] = w;
        }
        if (refiner_add(r, s->swaps.ids[i + 1]) < 0) return -1;
    }
    for (size_t i = 1; i < s->swaps.n; i += 2)
        if (refiner_touched_by(r, s->swaps.ids[i], &s->found, &s->n_found, &s->cap_found) < 0)
            return -1;
    for (size_t i = 0; i < s->swaps.n; i += 2) refiner_discard(r, s->swaps.ids[i]);
    size_t room = 0;
    for (size_t i = 0; i < s->n_found; i++) room += r->words[s->found[i]].length;
    if (refiner_grow((void **)&s->pieces, &s->cap_pieces, room + 1, sizeof *s->pieces) < 0
        || refiner_grow((void **)&s->touched.ids, &s->touched.cap, s->n_found + 1,
                        sizeof *s->touched.ids) < 0)
        return -1;
    int64_t delta = 0;
    size_t at = 0;
    for (size_t i = 0; i < s->n_found; i++) {
        const word_t *word = &r->words[s->found[i]];
        int32_t n = refiner_split(r, s->found[i], 0, s->pieces + at);
        s->touched.ids[i] = n;
        delta += cost_of(word, n) - cost_of(word, word->n_pieces);
        at += word->length;
    }
    *kept = delta < 0;
    if (!*kept) {
        for (size_t i = 0; i < s->swaps.n; i += 2) {
            refiner_discard(r, s->swaps.ids[i + 1]);
            if (refiner_add(r, s->swaps.ids[i]) < 0) return -1;
        }
        return 0;
    }
    at = 0;
    for (size_t i = 0; i < s->n_found; i++) {
        int32_t w = s->found[i], n = s->touched.ids[i];
        word_t *word = &r->words[w];
        int32_t *now = r->pieces + word->start, *fresh = s->pieces + at;
        at += word->length;
        if (n == word->n_pieces && (n < 0 || !memcmp(now, fresh, (size_t)n * sizeof *now)))
            continue;
        size_t old_n = word->n_pieces < 0 ? 0 : (size_t)word->n_pieces;
        if (refiner_grow((void **)&s->old, &s->cap_old, s->n_old + old_n + 1, sizeof *s->old) < 0
            || push(&s->changed, w) < 0 || push(&s->changed, (int32_t)s->n_old) < 0
            || push(&s->changed, word->n_pieces) < 0)
            return -1;
        memcpy(s->old + s->n_old, now, old_n * sizeof *now);
        s->n_old += old_n;
        if (n > 0) memcpy(now, fresh, (size_t)n * sizeof *now);
        word->n_pieces = n;
        for (int32_t k = 0; k < n; k++) {
            int fresh_use = 1;
            for (size_t j = 0; j < old_n; j++) fresh_use &= s->old[s->n_old - old_n + j] != now[k];
            for (int32_t j = 0; j < k; j++) fresh_use &= now[j] != now[k];
            if (fresh_use && refiner_user(r, now[k], w) < 0) return -1;
        }
    }
    return 0;
}

/* The bookkeeping of a kept batch: stale tokens, joins, losses, gains left valid. */
static int after_swaps(wp_refiner *r, loop_t *s, int round) {
    uint32_t stamp = ++r->tok_stamp;
    s->stale.n = 0;
    for (size_t c = 0; c < s->changed.n; c += 3) {
        int32_t w = s->changed.ids[c];
        const int32_t *old = s->old + s->changed.ids[c + 1], *now = r->pieces + r->words[w].start;
        int32_t n_old = s->changed.ids[c + 2], n_now = r->words[w].n_pieces;
        for (int side = 0; side < 2; side++) {
            const int32_t *pieces = side ? now : old;
            for (int32_t i = 0; i < (side ? n_now : n_old); i++) {
                tok_t *t = &r->toks[pieces[i]];
                if (t->kept || !t->in_vocab || t->mark == stamp) continue;
                t->mark = stamp;
                if (push(&s->stale, pieces[i]) < 0) return -1;
            }
        }
        if (refiner_count_joins(r, w, old, n_old, -1) < 0
            || refiner_count_joins(r, w, now, n_now, 1) < 0)
            return -1;
    }
    for (size_t i = 0; i < s->swaps.n; i += 2) {
        int32_t offer = s->swaps.ids[i + 1];
        r->toks[s->swaps.ids[i]].has_loss = 0;
        if (r->toks[offer].mark != stamp) {
            r->toks[offer].mark = stamp;
            if (push(&s->stale, offer) < 0) return -1;
        }
        r->toks[offer].came_in = round;
    }
    stamp = ++r->tok_stamp;  /* moved: the joins of the changed words, old and new */
    for (size_t c = 0; c < s->changed.n; c += 3) {
        int32_t w = s->changed.ids[c];
        const int32_t *old = s->old + s->changed.ids[c + 1], *now = r->pieces + r->words[w].start;
        int32_t n_old = s->changed.ids[c + 2], n_now = r->words[w].n_pieces;
        for (int32_t i = 0; i + 1 < n_old; i++) {
            int join = refiner_join(r, old[i], old[i + 1]);
            if (join < 0) return -1;
            r->toks[join].mark = stamp;
        }
        for (int32_t i = 0; i + 1 < n_now; i++) {
            int join = refiner_join(r, now[i], now[i + 1]);
            if (join < 0) return -1;
            r->toks[join].mark = stamp;
        }
    }
    size_t kept = 0;
    for (size_t i = 0; i < s->gains.n; i++) {
        tok_t *t = &r->toks[s->gains.ids[i]];
        if (t->mark == stamp || t->in_vocab) t->has_gain = 0;
        else s->gains.ids[kept++] = s->gains.ids[i];
    }
    s->gains.n = kept;
    return 0;
}

static int rounds(wp_refiner *r, loop_t *s, const wp_refine_params *p) {
    int64_t batch = p->first_batch;
    for (size_t id = 0; id < r->n_toks; id++)
        if (r->toks[id].in_vocab && !r->toks[id].kept && push(&s->stale, (int32_t)id) < 0)
            return -1;
    for (size_t w = 0; w < r->n_words; w++)
        if (refiner_count_joins(r, (int32_t)w, r->pieces + r->words[w].start,
                                r->words[w].n_pieces, 1) < 0)
            return -1;
    for (int round = 0; round < p->rounds && batch >= 1; round++) {
        int64_t best;
        if (rank_candidates(r, s, p->candidates) < 0 || measure_gains(r, s, &best) < 0)
            return -1;
        for (size_t i = 0; i < s->stale.n; i++) {
            tok_t *t = &r->toks[s->stale.ids[i]];
            int64_t loss;
            if (removal_loss(r, s->stale.ids[i], p->heavy * best, &loss) < 0) return -1;
            t = &r->toks[s->stale.ids[i]];
            t->loss = loss;
            t->has_loss = 1;
        }
        if (pick_swaps(r, s, batch) < 0) return -1;
        if (!s->swaps.n) break;
        int kept;
        if (apply_swaps(r, s, &kept) < 0) return -1;
        if (!kept) {
            batch /= 2;
            continue;
        }
        if (after_swaps(r, s, round) < 0) return -1;
    }
    return 0;
}

/* The vocabulary in refine.py's order: given tokens by place, then new ones by round. */
static int order_result(wp_refiner *r) {
    ids_t out = {0};
    int32_t distinct = 0;
    for (size_t id = 0; id < r->n_toks; id++) distinct += r->toks[id].order >= 0;
    for (size_t id = 0; id < r->n_toks; id++) {
        tok_t *t = &r->toks[id];
        if (t->order < 0) t->order = distinct;
        if (t->came_in < 0) t->came_in = 0;
        if (t->in_vocab && push(&out, (int32_t)id) < 0) return -1;
    }
    if (sort_ids(r, &out, by_place) < 0) {
        free(out.ids);
        return -1;
    }
    free(r->result);
    r->result = out.ids;
    r->n_result = out.n;
    return 0;
}

int wp_refiner_run(wp_refiner *r, const wp_refine_params *params) {
    loop_t s = {0};
    int result = -1;
    if (refiner_setup(r) == 0 && rounds(r, &s, params) == 0) result = order_result(r);
    ids_t *lists[] = {&s.stale, &s.gains, &s.ranked, &s.victims, &s.offers, &s.swaps,
                      &s.touched, &s.changed};
    for (size_t i = 0; i < sizeof lists / sizeof *lists; i++) free(lists[i]->ids);
    free(s.found);
    free(s.pieces);
    free(s.old);
    return result;
}
