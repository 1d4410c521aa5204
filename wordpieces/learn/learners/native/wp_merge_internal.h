/* The merge loop's shared state, for wp_merge.c (words, pairs, merging, the count heap)
 * and wp_likelihood.c (the likelihood heap). Not a public header: wp_merge.h is the API.
 */
#ifndef WP_MERGE_INTERNAL_H
#define WP_MERGE_INTERNAL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wp_merge.h"

#define INLINE_HOLDERS 2   /* word lists this short live inside the pair (no malloc) */

typedef struct {
    int32_t u, v;
    int64_t count;      /* adjacent occurrences, weighted by word counts */
    union {             /* words that gained the pair (repeats and stale ones allowed) */
        int32_t *many;  /* n_holders > INLINE_HOLDERS: an array of its own */
        int32_t few[INLINE_HOLDERS];  /* otherwise here: most pairs are rare */
    } holders;
    int32_t n_holders;  /* the array's capacity follows: the next power of two, 8 or more */
    uint32_t touched;   /* merge number that last changed the count */
} pair_t;

typedef struct {
    int64_t merged;     /* occurrences a merge replaces, when pushed */
    int32_t pair;       /* 16 bytes: the heap ranks every live pair of a large corpus */
} entry_t;

typedef struct {
    uint32_t *chars;
    size_t length;
} name_t;

typedef struct {
    int64_t start;      /* in symbols */
    int64_t count;      /* times the word was seen */
    int32_t length;     /* symbols now (merges shorten it in place) */
    uint32_t visited;   /* merge number that last rewrote it */
} word_t;

typedef struct wp_likelihood wp_likelihood;  /* score="likelihood" only: wp_likelihood.c */

struct wp_merger {
    int32_t *symbols;   /* every word's symbols, word w from words[w].start */
    word_t *words;      /* one struct per word: one cache miss, not four */
    int32_t n_words;

    name_t *names;
    int64_t *self_merges; /* s -> occurrences a merge of (s, s) replaces */
    int32_t n_names, cap_names, n_symbols;

    pair_t *pairs;
    int32_t n_pairs, cap_pairs;
    int32_t *slots;     /* open addressing by (u, v): pair + 1 (0 = empty); 4 bytes a slot */
    size_t cap_table;   /* a power of two */

    entry_t *heap;
    size_t n_heap, cap_heap;
    int64_t level;      /* pairs replacing fewer occurrences may be missing from the heap */

    int32_t *changed;   /* pairs whose count the current merge changed */
    size_t n_changed, cap_changed;
    uint32_t merge_number;
    int64_t floor;      /* pairs seen fewer times are never merged */
    wp_likelihood *lk;  /* NULL when merging by count */
};

/* ------------------------------------------------------------ growth */

static inline int grow(void **items, size_t size, size_t *capacity, size_t needed) {
    if (needed <= *capacity) return 0;
    size_t cap = *capacity ? *capacity : 16;
    while (cap < needed) cap *= 2;
    void *bigger = realloc(*items, cap * size);
    if (!bigger) return -1;
    *items = bigger;
    *capacity = cap;
    return 0;
}

static inline int grow32(void **items, size_t size, int32_t *capacity, size_t needed) {
    size_t cap = (size_t)*capacity;
    if (grow(items, size, &cap, needed) < 0 || cap > INT32_MAX) return -1;
    *capacity = (int32_t)cap;
    return 0;
}

/* ------------------------------------------------------------ pair table */

static inline uint64_t pair_key(int32_t u, int32_t v) {
    return ((uint64_t)(uint32_t)u << 32) | (uint32_t)v;
}

static inline size_t slot_of(uint64_t key, size_t cap) {  /* splitmix64's finalizer */
    uint64_t h = key;
    h = (h ^ (h >> 30)) * 0xBF58476D1CE4E5B9ull;
    h = (h ^ (h >> 27)) * 0x94D049BB133111EBull;
    return (size_t)(h ^ (h >> 31)) & (cap - 1);
}

static inline int32_t find_pair(const wp_merger *m, int32_t u, int32_t v) {
    for (size_t i = slot_of(pair_key(u, v), m->cap_table);; i = (i + 1) & (m->cap_table - 1)) {
        int32_t slot = m->slots[i];
        if (!slot) return -1;
        const pair_t *pair = &m->pairs[slot - 1];
        if (pair->u == u && pair->v == v) return slot - 1;
    }
}

/* ------------------------------------------------------------ counts and names */

static inline int64_t merged_of(const wp_merger *m, int32_t p) {
    const pair_t *pair = &m->pairs[p];
    return pair->u == pair->v ? m->self_merges[pair->u] : pair->count;
}

/* ------------------------------------------------------------ heap */

static inline int compare_names(const name_t *x, const name_t *y) {
    size_t n = x->length < y->length ? x->length : y->length;
    for (size_t i = 0; i < n; i++)
        if (x->chars[i] != y->chars[i]) return x->chars[i] < y->chars[i] ? -1 : 1;
    return x->length < y->length ? -1 : x->length > y->length;
}

/* ------------------------------------------------------------ symbol ids by name (wp_names.c) */

typedef struct {
    int32_t *slots;     /* open addressing: id + 1 (0 = empty); a power of two */
    size_t cap;
    int32_t n;
} wp_name_index;

/* Index symbol `id` under names[id] (names are distinct): 0, or -1 when out of memory. */
int wp_names_add(wp_name_index *index, const name_t *names, int32_t id);
/* The id of the symbol named x + y (code points), or -1. */
int32_t wp_names_find(const wp_name_index *index, const name_t *names, const uint32_t *x,
                      size_t nx, const uint32_t *y, size_t ny);
void wp_names_free(wp_name_index *index);

/* ------------------------------------------------------------ likelihood (wp_likelihood.c) */

/* Allocate the likelihood state for a merger of n_symbols initial symbols: 0 or -1. */
int wp_lk_new(wp_merger *m, const uint32_t *prefix, size_t prefix_length);
void wp_lk_free(wp_merger *m);
/* A new symbol id (named): grow the per-symbol tables and index its name. */
int wp_lk_add_symbol(wp_merger *m, int32_t id);
/* A new pair slot p: grow the per-pair table. */
int wp_lk_new_pair(wp_merger *m, int32_t p);
/* Pair p gained an occurrence: list it under its symbols if it is not. */
int wp_lk_link(wp_merger *m, int32_t p);
/* One word replaced `times` occurrences of (a, b) by new_id, each weighing `count`. */
void wp_lk_count(wp_merger *m, int32_t a, int32_t b, int32_t new_id, int64_t weight);
/* Symbol counts of the initial words (before any merge). */
void wp_lk_count_word(wp_merger *m, const int32_t *symbols, int32_t n, int64_t count);
int wp_lk_pop_best(wp_merger *m, int32_t *u, int32_t *v);
/* After a merge of (a, b) into new_id: re-rank what it changed. 0 or -1. */
int wp_lk_after_merge(wp_merger *m, int32_t a, int32_t b, int32_t new_id,
                      const int32_t *runs, int32_t n_runs, const int *runs_changed);

#endif
