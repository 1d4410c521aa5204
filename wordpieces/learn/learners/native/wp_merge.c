/* Bottom-up merging: see wp_merge.h. The reference is merge_state.MergeState. This file
 * keeps the words and pair counts for both scores and ranks pairs by count; with
 * score="likelihood" it also keeps symbol counts and leaves the ranking to wp_likelihood.c.
 *
 * Layout: all words in one int32 array (merges only shorten a word, in place); pairs in
 * an array indexed through an open-addressing table hashed by (u << 32 | v); each pair
 * lists the words that gained it (a word may be listed twice, or no longer hold the
 * pair: merging skips those, so the lists need no deletions); a list of one or two words
 * sits inside the pair (most pairs are rare). A pair whose count falls to 0 frees its
 * list and keeps its slot, ready to come back.
 *
 * The heap holds (merged, pair) as scored when pushed; an entry is valid while the
 * pair's replaced occurrences are still those (see valid()). Every change of its count
 * or of those pushes a fresh entry, so each live pair replacing at least `level` occurrences has a
 * valid entry, and the first valid entry popped is the best pair: the same rule as
 * MergeState's heap, hence the same merges. Pairs below `level` (most pairs of a large
 * corpus are rare and never merged) stay out of the heap until it runs dry; then the
 * level drops so that some LEVEL_BATCH more pairs come in. A pair whose counts change is
 * pushed if it reaches the level, so every pair at or above it has a valid entry, and
 * a pair below it replaces fewer occurrences than any valid entry: the first valid
 * entry is still the best pair. When the heap is full it first drops its invalid
 * entries (memory: most entries go stale), and grows only if half of it is still valid.
 */
#include "wp_merge_internal.h"

#define LEVEL_BATCH 65536  /* pairs let into the heap each time the level drops */
#define LEVEL_CAP 65536    /* merged counts above this share one histogram bucket */

static void table_put(int32_t *slots, size_t cap, uint64_t key, int32_t pair) {
    size_t i = slot_of(key, cap);
    while (slots[i]) i = (i + 1) & (cap - 1);
    slots[i] = pair + 1;
}

static int grow_table(wp_merger *m) {
    size_t cap = m->cap_table ? m->cap_table * 2 : 1024;
    int32_t *slots = calloc(cap, sizeof *slots);
    if (!slots) return -1;
    for (int32_t p = 0; p < m->n_pairs; p++)
        table_put(slots, cap, pair_key(m->pairs[p].u, m->pairs[p].v), p);
    free(m->slots);
    m->slots = slots;
    m->cap_table = cap;
    return 0;
}

/* The pair (u, v), created with count 0 if new; -1 when out of memory. */
static int32_t pair_of(wp_merger *m, int32_t u, int32_t v) {
    int32_t p = find_pair(m, u, v);
    if (p >= 0) return p;
    if ((size_t)(m->n_pairs + 1) * 2 > m->cap_table && grow_table(m) < 0) return -1;
    if (grow32((void **)&m->pairs, sizeof *m->pairs, &m->cap_pairs, (size_t)m->n_pairs + 1) < 0)
        return -1;
    p = m->n_pairs++;
    pair_t *pair = &m->pairs[p];
    memset(pair, 0, sizeof *pair);
    pair->u = u;
    pair->v = v;
    table_put(m->slots, m->cap_table, pair_key(u, v), p);
    if (m->lk && wp_lk_new_pair(m, p) < 0) return -1;
    return p;
}

static int32_t *holders_of(pair_t *pair) {
    return pair->n_holders > INLINE_HOLDERS ? pair->holders.many : pair->holders.few;
}

static void free_holders(pair_t *pair) {
    if (pair->n_holders > INLINE_HOLDERS) free(pair->holders.many);
    pair->holders.many = NULL;
    pair->n_holders = 0;
}

/* Most pairs (a merged token beside a rare neighbour) are held by a word or two: their
 * list stays inline; a longer one moves to an array of 8, doubled whenever it is full
 * (the capacity is implied by the length: 8 bytes less per pair). */
static int add_holder(pair_t *pair, int32_t word) {
    int32_t n = pair->n_holders;
    if (n && holders_of(pair)[n - 1] == word) return 0;
    if (n < INLINE_HOLDERS) {
        pair->holders.few[pair->n_holders++] = word;
        return 0;
    }
    if (n == INT32_MAX) return -1;
    if (n == INLINE_HOLDERS) {
        int32_t *many = malloc(8 * sizeof *many);
        if (!many) return -1;
        memcpy(many, pair->holders.few, INLINE_HOLDERS * sizeof *many);
        pair->holders.many = many;
    } else if (n >= 8 && !(n & (n - 1))) {  /* full */
        int32_t *bigger = realloc(pair->holders.many, 2 * (size_t)n * sizeof *bigger);
        if (!bigger) return -1;
        pair->holders.many = bigger;
    }
    pair->holders.many[pair->n_holders++] = word;
    return 0;
}

static int note_change(wp_merger *m, int32_t p) {
    if (m->pairs[p].touched == m->merge_number) return 0;
    m->pairs[p].touched = m->merge_number;
    if (grow((void **)&m->changed, sizeof *m->changed, &m->cap_changed, m->n_changed + 1) < 0)
        return -1;
    m->changed[m->n_changed++] = p;
    return 0;
}

/* Add ``delta`` to the count of (u, v), which ``word`` now holds if delta > 0. */
static int change(wp_merger *m, int32_t u, int32_t v, int64_t delta, int32_t word) {
    int32_t p = pair_of(m, u, v);
    if (p < 0) return -1;
    m->pairs[p].count += delta;
    if (delta > 0 && (add_holder(&m->pairs[p], word) < 0 || (m->lk && wp_lk_link(m, p) < 0)))
        return -1;
    return note_change(m, p);
}

/* ------------------------------------------------------------ runs of one symbol */

/* Occurrences of (s, s) a left-to-right merge replaces in one word: half of each run. */
static int64_t run_halves(const int32_t *symbols, int32_t n, int32_t s) {
    int64_t halves = 0, run = 0;
    for (int32_t i = 0; i < n; i++) {
        if (symbols[i] == s) {
            run++;
        } else {
            halves += run / 2;
            run = 0;
        }
    }
    return halves + run / 2;
}

/* Whether x comes before y: more replaced, then the smaller (name(u), name(v)). */
static int before(const wp_merger *m, const entry_t *x, const entry_t *y) {
    if (x->merged != y->merged) return x->merged > y->merged;
    const pair_t *px = &m->pairs[x->pair], *py = &m->pairs[y->pair];
    int order = compare_names(&m->names[px->u], &m->names[py->u]);
    if (!order) order = compare_names(&m->names[px->v], &m->names[py->v]);
    return order < 0;
}

static void sift_down(wp_merger *m, size_t i, entry_t item) {
    size_t n = m->n_heap;
    for (;;) {
        size_t child = 2 * i + 1;
        if (child >= n) break;
        if (child + 1 < n && before(m, &m->heap[child + 1], &m->heap[child])) child++;
        if (!before(m, &m->heap[child], &item)) break;
        m->heap[i] = m->heap[child];
        i = child;
    }
    m->heap[i] = item;
}

/* An entry is valid while its pair still replaces the occurrences it was pushed with
 * (and is seen often enough). For (u, v), u != v, that is its count; for (s, s), whose
 * count may change while the occurrences replaced do not, a fresh entry with the same
 * key was pushed on that change: either one gives the same pair at the same place. */
static int valid(const wp_merger *m, const entry_t *entry) {
    return merged_of(m, entry->pair) == entry->merged
           && m->pairs[entry->pair].count >= m->floor;
}

/* Drop the entries no longer valid (every change pushes a fresh one, so most are
 * stale) and heapify what is left: the heap stays near the live pairs it ranks. */
static void compact_heap(wp_merger *m) {
    size_t kept = 0;
    for (size_t i = 0; i < m->n_heap; i++)
        if (valid(m, &m->heap[i])) m->heap[kept++] = m->heap[i];
    m->n_heap = kept;
    for (size_t i = kept / 2; i-- > 0;) sift_down(m, i, m->heap[i]);
}

static int push(wp_merger *m, int32_t p) {
    if (m->n_heap == m->cap_heap && m->n_heap >= 4096) {
        compact_heap(m);
        if (m->n_heap > m->cap_heap / 2 && grow((void **)&m->heap, sizeof *m->heap,
                                                &m->cap_heap, m->cap_heap + 1) < 0)
            return -1;
    } else if (grow((void **)&m->heap, sizeof *m->heap, &m->cap_heap, m->n_heap + 1) < 0) {
        return -1;
    }
    entry_t entry = {merged_of(m, p), p};
    size_t i = m->n_heap++;
    while (i > 0 && before(m, &entry, &m->heap[(i - 1) / 2])) {
        m->heap[i] = m->heap[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    m->heap[i] = entry;
    return 0;
}

static void pop_top(wp_merger *m) {
    entry_t last = m->heap[--m->n_heap];
    if (m->n_heap) sift_down(m, 0, last);
}

static int push_if_mergeable(wp_merger *m, int32_t p) {
    return m->pairs[p].count >= m->floor && merged_of(m, p) >= m->level ? push(m, p) : 0;
}

/* Lower the level below ``m->level`` until some LEVEL_BATCH live pairs are at or above
 * it, and push them: 0, nothing left below the level: 1, out of memory: -1. */
static int lower_level(wp_merger *m) {
    int64_t below = m->level, top = below - 1 < LEVEL_CAP ? below - 1 : LEVEL_CAP;
    if (top < 1) return 1;
    int64_t *histogram = calloc((size_t)top + 1, sizeof *histogram);
    if (!histogram) return -1;
    int any = 0;
    for (int32_t p = 0; p < m->n_pairs; p++) {
        int64_t merged = merged_of(m, p);
        if (m->pairs[p].count >= m->floor && merged >= 1 && merged < below) {
            histogram[merged < top ? merged : top]++;
            any = 1;
        }
    }
    int64_t level = top, seen = histogram[top];
    while (level > 1 && seen < LEVEL_BATCH) seen += histogram[--level];
    free(histogram);
    m->level = any ? level : 0;
    if (!any) return 1;
    for (int32_t p = 0; p < m->n_pairs; p++) {
        int64_t merged = merged_of(m, p);
        if (m->pairs[p].count >= m->floor && merged >= level && merged < below
            && push(m, p) < 0)
            return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ public */

wp_merger *wp_merger_new(const int32_t *symbols, const int64_t *starts, const int64_t *counts,
                         int32_t n_words, int32_t n_symbols, int64_t min_frequency,
                         int score, const uint32_t *prefix, size_t prefix_length) {
    wp_merger *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    size_t total = (size_t)starts[n_words];
    m->symbols = malloc((total ? total : 1) * sizeof *m->symbols);
    m->words = calloc((size_t)n_words + 1, sizeof *m->words);
    m->n_symbols = n_symbols;
    m->floor = min_frequency > 1 ? min_frequency : 1;
    m->level = INT64_MAX;  /* nothing in the heap yet: the first pop lowers it */
    if (!m->symbols || !m->words
        || grow32((void **)&m->self_merges, sizeof *m->self_merges, &m->cap_names,
                  (size_t)n_symbols + 1) < 0
        || grow_table(m) < 0)
        goto fail;
    m->names = calloc((size_t)m->cap_names, sizeof *m->names);
    if (!m->names) goto fail;
    if (score == WP_SCORE_LIKELIHOOD && wp_lk_new(m, prefix, prefix_length) < 0) goto fail;
    memset(m->self_merges, 0, (size_t)m->cap_names * sizeof *m->self_merges);
    memcpy(m->symbols, symbols, total * sizeof *symbols);
    m->n_words = n_words;
    for (int32_t w = 0; w < n_words; w++) {
        int32_t *word = m->symbols + starts[w];
        int32_t n = (int32_t)(starts[w + 1] - starts[w]);
        m->words[w] = (word_t){starts[w], counts[w], n, 0};
        if (m->lk) wp_lk_count_word(m, word, n, counts[w]);
        for (int32_t i = 0; i + 1 < n; i++)
            if (change(m, word[i], word[i + 1], counts[w], w) < 0) goto fail;
        for (int32_t i = 0, run = 1; i < n; i++, run++) {  /* each run of r: r / 2 */
            if (i + 1 == n || word[i + 1] != word[i]) {
                m->self_merges[word[i]] += counts[w] * (run / 2);
                run = 0;
            }
        }
    }
    return m;
fail:
    wp_merger_free(m);
    return NULL;
}

int32_t wp_merger_add_name(wp_merger *m, const uint32_t *name, size_t length) {
    size_t id = (size_t)m->n_names;
    int32_t cap = m->cap_names;
    if (grow32((void **)&m->self_merges, sizeof *m->self_merges, &cap, id + 1) < 0) return -1;
    if (cap != m->cap_names) {
        name_t *names = realloc(m->names, (size_t)cap * sizeof *names);
        if (!names) return -1;
        m->names = names;
        memset(m->self_merges + m->cap_names, 0,
               (size_t)(cap - m->cap_names) * sizeof *m->self_merges);
        m->cap_names = cap;
    }
    uint32_t *chars = malloc((length ? length : 1) * sizeof *chars);
    if (!chars) return -1;
    memcpy(chars, name, length * sizeof *chars);
    m->names[id].chars = chars;
    m->names[id].length = length;
    m->n_names++;
    if (m->lk && wp_lk_add_symbol(m, (int32_t)id) < 0) return -1;
    return (int32_t)id;
}

int wp_merger_pop_best(wp_merger *m, int32_t *u, int32_t *v) {
    if (m->lk) return wp_lk_pop_best(m, u, v);
    for (;;) {
        while (m->n_heap) {
            entry_t top = m->heap[0];
            pop_top(m);
            if (valid(m, &top)) {
                *u = m->pairs[top.pair].u;
                *v = m->pairs[top.pair].v;
                return 1;
            }
        }
        int lowered = lower_level(m);
        if (lowered) return lowered < 0 ? -1 : 0;
    }
}

/* The distinct symbols among a, b and new: the only ones whose runs a merge changes. */
static int32_t distinct3(int32_t a, int32_t b, int32_t c, int32_t out[3]) {
    int32_t n = 0;
    out[n++] = a;
    if (b != a) out[n++] = b;
    if (c != a && c != b) out[n++] = c;
    return n;
}

/* Merge (a, b) in word w, left to right, as MergeState._merge_in_word: the pair before
 * an occurrence, read from the merged output, becomes (p, new); the one after, read
 * from the input, becomes (new, q); back-to-back occurrences cancel out. */
static int merge_word(wp_merger *m, int32_t w, int32_t a, int32_t b, int32_t new_id,
                      const int32_t *runs, int32_t n_runs, int *runs_changed) {
    word_t *word = &m->words[w];
    int32_t *s = m->symbols + word->start;
    int32_t n = word->length, k = 0, i = 0;
    int64_t c = word->count, halves[3], merged = 0;
    for (int32_t r = 0; r < n_runs; r++) halves[r] = run_halves(s, n, runs[r]);
    while (i < n) {
        if (s[i] != a || i + 1 >= n || s[i + 1] != b) {
            s[k++] = s[i++];
            continue;
        }
        if (change(m, a, b, -c, w) < 0) return -1;
        if (k > 0 && (change(m, s[k - 1], a, -c, w) < 0 || change(m, s[k - 1], new_id, c, w) < 0))
            return -1;
        if (i + 2 < n && (change(m, b, s[i + 2], -c, w) < 0 || change(m, new_id, s[i + 2], c, w) < 0))
            return -1;
        s[k++] = new_id;
        i += 2;
        merged++;
    }
    word->length = k;
    if (m->lk && merged) wp_lk_count(m, a, b, new_id, merged * c);
    for (int32_t r = 0; r < n_runs; r++) {
        int64_t change_of_runs = run_halves(s, k, runs[r]) - halves[r];
        if (change_of_runs) {
            m->self_merges[runs[r]] += change_of_runs * c;
            runs_changed[r] = 1;
        }
    }
    return 0;
}

/* Words of a pair are scattered over memory: ask for the next ones' words and symbols
 * early, so that their cache misses overlap with the work on this one. */
static void prefetch_ahead(const wp_merger *m, int32_t p, int32_t h, int32_t n) {
#if defined(__GNUC__) || defined(__clang__)
    const int32_t *holders = holders_of(&m->pairs[p]);
    if (h + 16 < n) __builtin_prefetch(&m->words[holders[h + 16]]);
    if (h + 4 < n) __builtin_prefetch(m->symbols + m->words[holders[h + 4]].start);
#else
    (void)m, (void)p, (void)h, (void)n;
#endif
}

int wp_merger_merge(wp_merger *m, int32_t a, int32_t b, int32_t new_id) {
    int32_t p = find_pair(m, a, b);
    if (p < 0) return 0;
    m->merge_number++;
    m->n_changed = 0;
    int32_t runs[3], n_runs = distinct3(a, b, new_id, runs);
    int runs_changed[3] = {0, 0, 0};
    /* Words gaining the pair during this merge are ones already merged: n is fixed. */
    int32_t n = m->pairs[p].n_holders;
    for (int32_t h = 0; h < n; h++) {
        int32_t w = holders_of(&m->pairs[p])[h];
        prefetch_ahead(m, p, h, n);
        if (m->words[w].visited == m->merge_number) continue;
        m->words[w].visited = m->merge_number;
        if (merge_word(m, w, a, b, new_id, runs, n_runs, runs_changed) < 0) return -1;
    }
    for (size_t i = 0; i < m->n_changed; i++) {
        pair_t *pair = &m->pairs[m->changed[i]];
        if (pair->count == 0) {  /* gone: its word list goes, its slot stays */
            free_holders(pair);
        } else if (!m->lk && push_if_mergeable(m, m->changed[i]) < 0) {
            return -1;
        }
    }
    if (m->lk) return wp_lk_after_merge(m, a, b, new_id, runs, n_runs, runs_changed);
    for (int32_t r = 0; r < n_runs; r++) {
        int32_t q = runs_changed[r] ? find_pair(m, runs[r], runs[r]) : -1;
        if (q >= 0 && m->pairs[q].count && push_if_mergeable(m, q) < 0) return -1;
    }
    return 0;
}

void wp_merger_free(wp_merger *m) {
    if (!m) return;
    wp_lk_free(m);
    for (int32_t p = 0; p < m->n_pairs; p++) free_holders(&m->pairs[p]);
    for (int32_t i = 0; i < m->n_names; i++) free(m->names[i].chars);
    free(m->pairs);
    free(m->slots);
    free(m->heap);
    free(m->changed);
    free(m->names);
    free(m->self_merges);
    free(m->symbols);
    free(m->words);
    free(m);
}
