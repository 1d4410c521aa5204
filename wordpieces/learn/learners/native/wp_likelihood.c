/* Bottom-up merging by the unigram log-likelihood gain (score="likelihood"), in C.
 *
 * The C twin of merge_state.MergeState with merge_scores.Likelihood; wp_merge.c keeps the
 * words and pair counts and calls in here to rank the pairs. The gain of merging (u, v)
 * into w, m occurrences, N tokens in all, is computed with the reference's formula and
 * order of operations (merge_scores.likelihood_gain, likelihood_gain_of; every count is
 * below 2**53, so each int -> double conversion and each division is the one Python
 * makes, and log / log1p are the same libm's), so every score is the same double.
 *
 * The order is the reference's: the best score S, every score >= S - 1e-12·|S| ties,
 * ties go to more occurrences replaced, then to the smaller (name(u), name(v)). The heap
 * gives S exactly, as MergeState's does (its docstring says why each bound holds):
 *
 * - a heap entry records its score and the merge after which it was scored; it is valid
 *   while its stamp is the pair's (each push of a pair makes the older entries invalid)
 *   and stale once another merge has happened (N shrank, maybe c(w) too: the gain only
 *   fell, so the entry is still an upper bound, re-scored when it reaches the top);
 * - a pair whose own count changed, whose (s, s) run count changed, or whose w was made
 *   again (c(w) grew: the gain rose) is pushed afresh;
 * - a merge lowers c(a) and c(b), which raises the gains of their pairs: those near the
 *   top are pushed, and a and b are deferred with the best score among the others as a
 *   bound, their pairs pushed when the bound reaches the top. c(new) grows, which only lowers
 *   the gains of new's pairs: nothing to do. A pair (s, x) whose w is not a token scores
 *   at most U(m) = Δf(c(s), -m) - Δf(N, -m) (f superadditive), so most pairs of a
 *   deferred symbol are bounded without being scored.
 *
 * Every live pair is thus bounded by a valid entry or a deferred bound: the top entry,
 * once valid, current and at or above every bound, is the best; the tie window below it
 * is settled the same way, then ordered by count and names.
 *
 * Memory per live pair on top of wp_merge.c's: 12 bytes (product, stamp, flags), two
 * places in its symbols' pair lists (4 bytes each) and at most one valid heap entry of
 * 24 bytes. Per symbol: its count, its pair list and its deferral.
 */
#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF  /* a fused multiply-add would round differently from Python */
#endif

#include "wp_merge_internal.h"

#include <math.h>

#define TIE_TOLERANCE 1e-12   /* merge_scores.TIE_TOLERANCE */
#define CEILING_CACHE 256     /* U(m) remembered for m below this, per deferral */
#define FLUSH_SHARE 0.25      /* push a deferred symbol's pairs within this share of the top */
#define LISTED_U 1            /* the pair is in pairs_of[u] */
#define LISTED_V 2            /* the pair is in pairs_of[v] (u != v) */

typedef struct {
    int32_t product;    /* id of name(u) + name(v) without the prefix, -1: not a token */
    uint32_t stamp;     /* bumped on each push: only the newest entry is valid */
    uint8_t listed;     /* LISTED_U | LISTED_V */
} lk_pair_t;

typedef struct {
    double score;
    int32_t pair;
    uint32_t stamp;      /* the pair's stamp when pushed */
    uint32_t scored_at;  /* merge number when scored: older is stale */
} lk_entry_t;

typedef struct {
    double bound;       /* at or above the score of each of the symbol's pairs */
    uint32_t version;   /* live while the symbol's deferral is this version */
    int32_t symbol;
} lk_bound_t;

typedef struct {
    int32_t *items;
    int32_t n, cap;
} pair_list_t;

struct wp_likelihood {
    int64_t *count;          /* symbol -> occurrences in the segmented words */
    int64_t total;           /* N: every symbol occurrence */
    pair_list_t *pairs_of;   /* symbol -> pairs holding it (dead ones dropped when read) */
    uint32_t *deferred;      /* symbol -> version of its live bound (0: none) */
    int32_t cap_symbols;

    lk_pair_t *pairs;
    int32_t cap_pairs;

    lk_entry_t *heap;
    size_t n_heap, cap_heap;
    lk_bound_t *bounds;      /* max-heap of deferred symbols by bound */
    size_t n_bounds, cap_bounds;
    uint32_t version;
    lk_entry_t *group;       /* the tie window being settled */
    size_t n_group, cap_group;

    wp_name_index names;     /* symbol ids by name (wp_names.c) */
    uint32_t *prefix;
    size_t prefix_length;

    double ceiling[CEILING_CACHE];
    uint32_t ceiling_at[CEILING_CACHE], ceiling_generation;
    int started;             /* names known, heap filled */
};

/* ------------------------------------------------------------ the gain */

/* f(count + delta) - f(count) for f(x) = x·ln x: merge_scores.xlogx_change, step by step. */
static double xlogx_change(int64_t count, int64_t delta) {
    int64_t after = count + delta;
    if (count == 0) return after ? (double)after * log((double)after) : 0.0;
    if (after == 0) return (double)(-count) * log((double)count);
    double ratio = (double)delta / (double)count;
    if (ratio <= -1.0) {
        double grown = (double)after * log((double)after);
        double was = (double)count * log((double)count);
        return grown - was;
    }
    double moved = (double)delta * log((double)count);
    double rest = (double)after * log1p(ratio);
    return moved + rest;
}

/* The gain of merging pair p (merged occurrences): likelihood_gain when u, v and w are
 * distinct, else likelihood_gain_of. There at most two counts move (u = v: c(u) by -2m
 * and c(w) by +m; w = v, u named as the prefix: c(v) is unchanged), and fsum of one or two
 * doubles is their correctly rounded sum, which is what + gives. */
static double gain_of(const wp_merger *m, int32_t p, int64_t merged) {
    const wp_likelihood *lk = m->lk;
    int32_t a = m->pairs[p].u, b = m->pairs[p].v, w = lk->pairs[p].product;
    const int64_t *c = lk->count;
    double total = xlogx_change(lk->total, -merged);
    if (a != b && w != a && w != b) {
        double sum = xlogx_change(c[a], -merged) + xlogx_change(c[b], -merged);
        sum = sum + xlogx_change(w < 0 ? 0 : c[w], merged);
        return sum - total;
    }
    int64_t of_a = -merged, of_b = a == b ? 0 : -merged, extra = 0;
    if (a == b) of_a -= merged;
    if (w == a) of_a += merged;
    else if (w == b) of_b += merged;
    else extra = merged;  /* w is new, or a token other than u and v */
    double parts[3];
    int n = 0;
    if (of_a) parts[n++] = xlogx_change(c[a], of_a);
    if (of_b) parts[n++] = xlogx_change(c[b], of_b);
    if (extra) parts[n++] = xlogx_change(w < 0 ? 0 : c[w], extra);
    double sum = n ? parts[0] : 0.0;
    if (n > 1) sum = sum + parts[1];  /* n == 3 needs u, v, w distinct: the branch above */
    return sum - total;
}

/* ------------------------------------------------------------ names */

/* The token pair p makes, if it is a symbol: name(u) + name(v) without the prefix. */
static int32_t product_of(const wp_merger *m, int32_t p) {
    const name_t *u = &m->names[m->pairs[p].u], *v = &m->names[m->pairs[p].v];
    size_t skip = v->length < m->lk->prefix_length ? v->length : m->lk->prefix_length;
    return wp_names_find(&m->lk->names, m->names, u->chars, u->length, v->chars + skip,
                         v->length - skip);
}

/* ------------------------------------------------------------ heaps */

static void sift_down(lk_entry_t *heap, size_t n, size_t i, lk_entry_t item) {
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= n) break;
        if (child + 1 < n && heap[child + 1].score > heap[child].score) child++;
        if (!(heap[child].score > item.score)) break;
        heap[i] = heap[child];
        i = child;
    }
    heap[i] = item;
}

static int valid(const wp_merger *m, const lk_entry_t *e) {
    return e->stamp == m->lk->pairs[e->pair].stamp && m->pairs[e->pair].count >= m->floor;
}

static int stale(const wp_merger *m, const lk_entry_t *e) {
    return e->scored_at != m->merge_number;
}

static void heapify(lk_entry_t *heap, size_t n) {
    for (size_t i = n / 2; i-- > 0;) sift_down(heap, n, i, heap[i]);
}

static int insert(wp_merger *m, lk_entry_t entry) {
    wp_likelihood *lk = m->lk;
    if (lk->n_heap == lk->cap_heap && lk->n_heap >= 4096) {
        size_t kept = 0;  /* drop the invalid entries first: most are */
        for (size_t i = 0; i < lk->n_heap; i++)
            if (valid(m, &lk->heap[i])) lk->heap[kept++] = lk->heap[i];
        lk->n_heap = kept;
        heapify(lk->heap, kept);
        if (kept > lk->cap_heap / 2 && grow((void **)&lk->heap, sizeof *lk->heap,
                                            &lk->cap_heap, lk->cap_heap + 1) < 0)
            return -1;
    } else if (grow((void **)&lk->heap, sizeof *lk->heap, &lk->cap_heap, lk->n_heap + 1) < 0) {
        return -1;
    }
    size_t i = lk->n_heap++;
    while (i > 0 && entry.score > lk->heap[(i - 1) / 2].score) {
        lk->heap[i] = lk->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    lk->heap[i] = entry;
    return 0;
}

static lk_entry_t pop_top(wp_likelihood *lk) {
    lk_entry_t top = lk->heap[0], last = lk->heap[--lk->n_heap];
    if (lk->n_heap) sift_down(lk->heap, lk->n_heap, 0, last);
    return top;
}

/* Push pair p scored `score` now: its older entries become invalid. */
static int push_scored(wp_merger *m, int32_t p, double score) {
    uint32_t stamp = ++m->lk->pairs[p].stamp;
    return insert(m, (lk_entry_t){score, p, stamp, m->merge_number});
}

static int push_fresh(wp_merger *m, int32_t p) {
    return push_scored(m, p, gain_of(m, p, merged_of(m, p)));
}

static int push_bound(wp_merger *m, int32_t symbol, double bound) {
    wp_likelihood *lk = m->lk;
    if (grow((void **)&lk->bounds, sizeof *lk->bounds, &lk->cap_bounds, lk->n_bounds + 1) < 0)
        return -1;
    lk_bound_t item = {bound, ++lk->version, symbol};
    lk->deferred[symbol] = item.version;
    size_t i = lk->n_bounds++;
    while (i > 0 && item.bound > lk->bounds[(i - 1) / 2].bound) {
        lk->bounds[i] = lk->bounds[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    lk->bounds[i] = item;
    return 0;
}

static void pop_bound(wp_likelihood *lk) {
    lk_bound_t item = lk->bounds[--lk->n_bounds];
    size_t i = 0, n = lk->n_bounds;
    if (!n) return;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= n) break;
        if (child + 1 < n && lk->bounds[child + 1].bound > lk->bounds[child].bound) child++;
        if (!(lk->bounds[child].bound > item.bound)) break;
        lk->bounds[i] = lk->bounds[child];
        i = child;
    }
    lk->bounds[i] = item;
}

/* ------------------------------------------------------------ deferred symbols */

/* U(m) for `symbol`: the most a pair of it whose w is not a token can score. */
static double ceiling(wp_likelihood *lk, int64_t own, int64_t merged) {
    if (merged < CEILING_CACHE && lk->ceiling_at[merged] == lk->ceiling_generation)
        return lk->ceiling[merged];
    double most = xlogx_change(own, -merged) - xlogx_change(lk->total, -merged);
    if (merged < CEILING_CACHE) {
        lk->ceiling[merged] = most;
        lk->ceiling_at[merged] = lk->ceiling_generation;
    }
    return most;
}

/* A symbol's pairs are scattered over memory: ask for the next ones early, so that their
 * cache misses overlap with the work on this one. */
static void prefetch_pair(const wp_merger *m, const pair_list_t *list, int32_t i) {
#if defined(__GNUC__) || defined(__clang__)
    if (i + 8 < list->n) {
        __builtin_prefetch(&m->pairs[list->items[i + 8]]);
        __builtin_prefetch(&m->lk->pairs[list->items[i + 8]]);
    }
#else
    (void)m, (void)list, (void)i;
#endif
}

/* MergeState._push_above: push the pairs of `symbol` scoring `cut` or more (has_cut: 0,
 * none) and defer the symbol with the best score of the others. Dead pairs leave its list. */
static int push_above(wp_merger *m, int32_t symbol, int has_cut, double cut) {
    wp_likelihood *lk = m->lk;
    pair_list_t *list = &lk->pairs_of[symbol];
    int64_t own = lk->count[symbol];
    int have = 0;
    double bound = 0.0;
    if (++lk->ceiling_generation == 0) {  /* wrapped: forget every remembered U(m) */
        memset(lk->ceiling_at, 0, sizeof lk->ceiling_at);
        lk->ceiling_generation = 1;
    }
    int32_t kept = 0;
    for (int32_t i = 0; i < list->n; i++) {
        int32_t p = list->items[i];
        const pair_t *pair = &m->pairs[p];
        prefetch_pair(m, list, i);
        if (pair->count == 0) {
            lk->pairs[p].listed &= (uint8_t)~(pair->u == symbol ? LISTED_U : LISTED_V);
            continue;
        }
        list->items[kept++] = p;
        if (pair->count < m->floor) continue;
        int64_t merged = pair->u != pair->v ? pair->count : m->self_merges[symbol];
        if (lk->pairs[p].product < 0) {
            double most = ceiling(lk, own, merged);
            if ((!has_cut || most < cut) && have && most <= bound) continue;
        }
        double score = gain_of(m, p, merged);
        if (has_cut && score >= cut) {
            if (push_scored(m, p, score) < 0) return -1;
        } else if (!have || score > bound) {
            bound = score;
            have = 1;
        }
    }
    list->n = kept;
    if (have) return push_bound(m, symbol, bound);
    lk->deferred[symbol] = 0;
    return 0;
}

/* Push the pairs of the deferred symbol of highest bound if it reaches `level` (has_level:
 * 0, any): 1; none does: 0; out of memory: -1. Pairs scoring at least
 * level - FLUSH_SHARE·|level| are pushed, the others stay deferred. */
static int flush(wp_merger *m, int has_level, double level) {
    wp_likelihood *lk = m->lk;
    while (lk->n_bounds && lk->deferred[lk->bounds[0].symbol] != lk->bounds[0].version)
        pop_bound(lk);
    if (!lk->n_bounds || (has_level && lk->bounds[0].bound < level)) return 0;
    int32_t symbol = lk->bounds[0].symbol;
    pop_bound(lk);
    lk->deferred[symbol] = 0;
    double cut = has_level ? level - fabs(level) * FLUSH_SHARE : -INFINITY;
    if (push_above(m, symbol, 1, cut) < 0) return -1;
    return 1;
}

/* ------------------------------------------------------------ choosing */

/* Whether x ranks before y in a tie: more replaced, then the smaller names. */
static int tie_before(const wp_merger *m, int32_t x, int32_t y) {
    int64_t mx = merged_of(m, x), my = merged_of(m, y);
    if (mx != my) return mx > my;
    const pair_t *px = &m->pairs[x], *py = &m->pairs[y];
    int order = compare_names(&m->names[px->u], &m->names[py->u]);
    if (!order) order = compare_names(&m->names[px->v], &m->names[py->v]);
    return order < 0;
}

/* The names are known now: find each pair's token and rank every pair. */
static int start(wp_merger *m) {
    wp_likelihood *lk = m->lk;
    for (int32_t p = 0; p < m->n_pairs; p++) lk->pairs[p].product = product_of(m, p);
    if (grow((void **)&lk->heap, sizeof *lk->heap, &lk->cap_heap, (size_t)m->n_pairs + 1) < 0)
        return -1;
    for (int32_t p = 0; p < m->n_pairs; p++) {
        if (m->pairs[p].count < m->floor) continue;
        uint32_t stamp = ++lk->pairs[p].stamp;
        lk->heap[lk->n_heap++] = (lk_entry_t){gain_of(m, p, merged_of(m, p)), p, stamp,
                                              m->merge_number};
    }
    heapify(lk->heap, lk->n_heap);
    lk->started = 1;
    return 0;
}

/* Settle the top: valid, current, at or above every bound. 1, empty: 0, no memory: -1. */
static int settle_top(wp_merger *m) {
    wp_likelihood *lk = m->lk;
    for (;;) {
        while (lk->n_heap && !valid(m, &lk->heap[0])) pop_top(lk);
        int flushed = flush(m, lk->n_heap > 0, lk->n_heap ? lk->heap[0].score : 0.0);
        if (flushed < 0) return -1;
        if (flushed) continue;
        if (!lk->n_heap) return 0;
        if (!stale(m, &lk->heap[0])) return 1;
        if (push_fresh(m, pop_top(lk).pair) < 0) return -1;
    }
}

/* Gather every valid, current entry scoring `cut` or more into the group. */
static int gather(wp_merger *m, double cut) {
    wp_likelihood *lk = m->lk;
    lk->n_group = 0;
    for (;;) {
        if (lk->n_heap && lk->heap[0].score >= cut) {
            lk_entry_t entry = pop_top(lk);
            if (!valid(m, &entry)) continue;
            if (stale(m, &entry)) {
                if (push_fresh(m, entry.pair) < 0) return -1;
                continue;
            }
            if (grow((void **)&lk->group, sizeof *lk->group, &lk->cap_group,
                     lk->n_group + 1) < 0)
                return -1;
            lk->group[lk->n_group++] = entry;
        } else {
            int flushed = flush(m, 1, cut);
            if (flushed <= 0) return flushed;
        }
    }
}

int wp_lk_pop_best(wp_merger *m, int32_t *u, int32_t *v) {
    wp_likelihood *lk = m->lk;
    if (!lk->started && start(m) < 0) return -1;
    int found = settle_top(m);
    if (found <= 0) return found;
    double best = lk->heap[0].score;
    if (gather(m, best - TIE_TOLERANCE * fabs(best)) < 0) return -1;
    size_t chosen = 0;
    for (size_t i = 1; i < lk->n_group; i++)
        if (tie_before(m, lk->group[i].pair, lk->group[chosen].pair)) chosen = i;
    for (size_t i = 0; i < lk->n_group; i++)
        if (i != chosen && insert(m, lk->group[i]) < 0) return -1;
    *u = m->pairs[lk->group[chosen].pair].u;
    *v = m->pairs[lk->group[chosen].pair].v;
    return 1;
}

/* ------------------------------------------------------------ after a merge */

/* The live pairs other than (a, b) that make new_id's name: c(w) grew, so did their gain. */
static int push_producers(wp_merger *m, int32_t a, int32_t b, int32_t new_id) {
    wp_likelihood *lk = m->lk;
    const name_t *token = &m->names[new_id];
    for (size_t k = 1; k < token->length; k++) {
        int32_t u = wp_names_find(&lk->names, m->names, token->chars, k, NULL, 0);
        if (u < 0) continue;
        int32_t v = wp_names_find(&lk->names, m->names, lk->prefix, lk->prefix_length,
                                  token->chars + k, token->length - k);
        if (v < 0 || (u == a && v == b)) continue;
        int32_t q = find_pair(m, u, v);
        if (q < 0) continue;
        lk->pairs[q].product = new_id;
        if (m->pairs[q].count >= m->floor && push_fresh(m, q) < 0) return -1;
    }
    return 0;
}

int wp_lk_after_merge(wp_merger *m, int32_t a, int32_t b, int32_t new_id,
                      const int32_t *runs, int32_t n_runs, const int *runs_changed) {
    for (size_t i = 0; i < m->n_changed; i++) {
        int32_t p = m->changed[i];
        if (m->pairs[p].count >= m->floor) {
            if (push_fresh(m, p) < 0) return -1;
        } else {
            m->lk->pairs[p].stamp++;  /* below the floor now: no entry stays valid */
        }
    }
    for (int32_t r = 0; r < n_runs; r++) {
        int32_t q = runs_changed[r] ? find_pair(m, runs[r], runs[r]) : -1;
        if (q >= 0 && m->pairs[q].count >= m->floor && push_fresh(m, q) < 0) return -1;
    }
    /* Deferring a and b and flushing them when their bound reaches the top reads their
     * pairs twice, and most do reach it (their gains just rose): push those near the
     * top entry's score now (any cut is exact: the rest stay deferred with their bound). */
    const wp_likelihood *lk = m->lk;
    int near = lk->n_heap > 0;
    double top = near ? lk->heap[0].score : 0.0, cut = top - fabs(top) * FLUSH_SHARE;
    if (push_producers(m, a, b, new_id) < 0 || push_above(m, a, near, cut) < 0) return -1;
    return b != a ? push_above(m, b, near, cut) : 0;
}

/* ------------------------------------------------------------ state */

static int grow_symbols(wp_likelihood *lk, size_t needed) {
    if (needed <= (size_t)lk->cap_symbols) return 0;
    size_t cap = lk->cap_symbols ? (size_t)lk->cap_symbols : 64;
    while (cap < needed) cap *= 2;
    if (cap > INT32_MAX) return -1;
    int64_t *count = realloc(lk->count, cap * sizeof *count);
    if (count) lk->count = count;
    pair_list_t *lists = realloc(lk->pairs_of, cap * sizeof *lists);
    if (lists) lk->pairs_of = lists;
    uint32_t *deferred = realloc(lk->deferred, cap * sizeof *deferred);
    if (deferred) lk->deferred = deferred;
    if (!count || !lists || !deferred) return -1;
    size_t old = (size_t)lk->cap_symbols;
    memset(lk->count + old, 0, (cap - old) * sizeof *count);
    memset(lk->pairs_of + old, 0, (cap - old) * sizeof *lists);
    memset(lk->deferred + old, 0, (cap - old) * sizeof *deferred);
    lk->cap_symbols = (int32_t)cap;
    return 0;
}

int wp_lk_new(wp_merger *m, const uint32_t *prefix, size_t prefix_length) {
    wp_likelihood *lk = calloc(1, sizeof *lk);
    if (!lk) return -1;
    m->lk = lk;
    lk->ceiling_generation = 1;
    lk->prefix = malloc((prefix_length ? prefix_length : 1) * sizeof *lk->prefix);
    if (!lk->prefix || grow_symbols(lk, (size_t)m->n_symbols + 1) < 0) return -1;
    if (prefix_length) memcpy(lk->prefix, prefix, prefix_length * sizeof *prefix);
    lk->prefix_length = prefix_length;
    return 0;
}

int wp_lk_add_symbol(wp_merger *m, int32_t id) {
    if (grow_symbols(m->lk, (size_t)id + 1) < 0) return -1;
    return wp_names_add(&m->lk->names, m->names, id);
}

int wp_lk_new_pair(wp_merger *m, int32_t p) {
    wp_likelihood *lk = m->lk;
    if (p >= lk->cap_pairs && grow32((void **)&lk->pairs, sizeof *lk->pairs, &lk->cap_pairs,
                                     (size_t)p + 1) < 0)
        return -1;
    lk->pairs[p] = (lk_pair_t){-1, 0, 0};
    if (lk->started) lk->pairs[p].product = product_of(m, p);
    return 0;
}

static int list_add(pair_list_t *list, int32_t p) {
    if (list->n == list->cap && grow32((void **)&list->items, sizeof *list->items, &list->cap,
                                       (size_t)list->n + 1) < 0)
        return -1;
    list->items[list->n++] = p;
    return 0;
}

int wp_lk_link(wp_merger *m, int32_t p) {
    wp_likelihood *lk = m->lk;
    int32_t u = m->pairs[p].u, v = m->pairs[p].v;
    if (!(lk->pairs[p].listed & LISTED_U)) {
        if (list_add(&lk->pairs_of[u], p) < 0) return -1;
        lk->pairs[p].listed |= LISTED_U;
    }
    if (v != u && !(lk->pairs[p].listed & LISTED_V)) {
        if (list_add(&lk->pairs_of[v], p) < 0) return -1;
        lk->pairs[p].listed |= LISTED_V;
    }
    return 0;
}

void wp_lk_count(wp_merger *m, int32_t a, int32_t b, int32_t new_id, int64_t weight) {
    wp_likelihood *lk = m->lk;
    lk->count[a] -= weight;
    lk->count[b] -= weight;
    lk->count[new_id] += weight;
    lk->total -= weight;
}

void wp_lk_count_word(wp_merger *m, const int32_t *symbols, int32_t n, int64_t count) {
    for (int32_t i = 0; i < n; i++) m->lk->count[symbols[i]] += count;
    m->lk->total += count * n;
}

void wp_lk_free(wp_merger *m) {
    wp_likelihood *lk = m->lk;
    if (!lk) return;
    if (lk->pairs_of)
        for (int32_t s = 0; s < lk->cap_symbols; s++) free(lk->pairs_of[s].items);
    free(lk->count);
    free(lk->pairs_of);
    free(lk->deferred);
    free(lk->pairs);
    free(lk->heap);
    free(lk->bounds);
    free(lk->group);
    wp_names_free(&lk->names);
    free(lk->prefix);
    free(lk);
    m->lk = NULL;
}
