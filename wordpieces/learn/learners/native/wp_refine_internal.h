/* The refiner's shared state, for wp_refine.c (strings, segmentation, users, joins) and
 * wp_refine_loop.c (losses, gains, swaps). Not a public header: wp_refine.h is the API.
 */
#ifndef WP_REFINE_INTERNAL_H
#define WP_REFINE_INTERNAL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "wp_pieces.h"
#include "wp_refine.h"

typedef struct {
    size_t start;        /* in the string pool */
    uint32_t length;
    int32_t order;       /* index in the given vocabulary (last one), or -1 */
    int32_t came_in;     /* the round a swap brought it in, or -1 */
    int64_t loss, gain;  /* valid while has_loss / has_gain */
    int64_t joins;       /* adjacent greedy pieces joining into it, weighted by counts */
    char in_vocab, kept, has_loss, has_gain, in_trie, rest;
    uint32_t mark;       /* stamp for sets of tokens */
    int32_t *users;      /* words using it (repeats and stale ones allowed) */
    uint32_t n_users, cap_users;
} tok_t;

typedef struct {
    size_t start;        /* in chars and in pieces (a word has at most length pieces) */
    uint32_t length;
    int32_t n_pieces;    /* -1: [UNK] */
    int64_t count;
    uint32_t mark, seen; /* stamps: sets of words; dedup of a token's users */
} word_t;

struct wp_refiner {
    uint32_t *prefix;
    size_t prefix_length;

    uint32_t *chars;     /* the words' code points */
    size_t n_chars, cap_chars;
    word_t *words;
    size_t n_words, cap_words;
    int32_t *pieces;     /* word w's pieces from words[w].start */

    uint32_t *pool;      /* the tokens' code points */
    size_t n_pool, cap_pool;
    tok_t *toks;
    size_t n_toks, cap_toks;
    int32_t *table;      /* open addressing by string: token + 1 (0 = empty) */
    size_t cap_table;    /* a power of two */
    int32_t n_order;

    wp_pieces_trie *first, *rest;  /* rest == first without a prefix */
    uint32_t word_stamp, seen_stamp, tok_stamp;

    int32_t *result;
    size_t n_result;

    int32_t *scratch;    /* join spelling, prefixes along a token */
    uint32_t *spell;
    size_t cap_scratch, cap_spell;
};

int refiner_intern(wp_refiner *r, const uint32_t *chars, size_t length);
int refiner_join(wp_refiner *r, int32_t left, int32_t right);
int refiner_add(wp_refiner *r, int32_t id);
void refiner_discard(wp_refiner *r, int32_t id);
int32_t refiner_split(const wp_refiner *r, int32_t w, size_t start, int32_t *out);
int refiner_user(wp_refiner *r, int32_t id, int32_t w);
uint32_t refiner_users(wp_refiner *r, int32_t id);
int refiner_touched_by(wp_refiner *r, int32_t id, int32_t **found, size_t *n, size_t *cap);
int refiner_count_joins(wp_refiner *r, int32_t w, const int32_t *pieces, int32_t n,
                        int64_t sign);
int refiner_setup(wp_refiner *r);
int refiner_grow(void **array, size_t *cap, size_t need, size_t size);

static inline int64_t cost_of(const word_t *w, int32_t n_pieces) {
    return w->count * (n_pieces < 0 ? 1 : n_pieces);
}

static inline int pieces_hold(const wp_refiner *r, int32_t w, int32_t id) {
    const word_t *word = &r->words[w];
    for (int32_t i = 0; i < word->n_pieces; i++)
        if (r->pieces[word->start + (size_t)i] == id) return 1;
    return 0;
}

#endif
