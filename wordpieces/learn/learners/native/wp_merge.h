/* Bottom-up WordPiece merging by count (BPE's criterion) or likelihood, in plain C99.
 *
 * The C twin of merge_state.MergeState with score="count" or "likelihood": words are
 * arrays of symbol ids; each merge (a, b) -> new replaces the pair left to right in every
 * word holding it, keeps the pair counts and the occurrences a merge of (s, s) would
 * replace (runs halved) up to date, and a lazy max-heap gives the next pair: by count the
 * most occurrences replaced, then the smaller (name(u), name(v)) in code point order; by
 * likelihood the best unigram log-likelihood gain, ties within 1e-12 going to more
 * occurrences, then the smaller names (wp_likelihood.c).
 *
 * Not handled here: Python objects (wp_merge_module.c), the vocabulary, names of new
 * tokens (the caller makes them and passes them to wp_merger_add_name), drop_unused.
 */
#ifndef WP_MERGE_H
#define WP_MERGE_H

#include <stddef.h>
#include <stdint.h>

typedef struct wp_merger wp_merger;

#define WP_SCORE_COUNT 0       /* the most occurrences replaced (wp_merge.c) */
#define WP_SCORE_LIKELIHOOD 1  /* the unigram log-likelihood gain (wp_likelihood.c) */

/* A merger over n_words words: word w is symbols[starts[w] .. starts[w + 1]) seen
 * counts[w] times; symbol ids are below n_symbols; score is WP_SCORE_*; prefix (code
 * points) is the continuing-subword prefix, which the likelihood needs to name the token
 * a pair makes (the count ignores it). Returns NULL when out of memory. For the
 * likelihood every count and their total must stay below 2**53 (exact as doubles). */
wp_merger *wp_merger_new(const int32_t *symbols, const int64_t *starts, const int64_t *counts,
                         int32_t n_words, int32_t n_symbols, int64_t min_frequency,
                         int score, const uint32_t *prefix, size_t prefix_length);

/* Name the next symbol id (code points, copied); the initial symbols are named in id
 * order before the first wp_merger_pop_best. Returns the id, or -1 when out of memory. */
int32_t wp_merger_add_name(wp_merger *m, const uint32_t *name, size_t length);

/* The best pair to merge now into *u, *v: 1; no pair left: 0; out of memory: -1. */
int wp_merger_pop_best(wp_merger *m, int32_t *u, int32_t *v);

/* Merge (a, b) into new_id everywhere, left to right: 0, or -1 when out of memory. */
int wp_merger_merge(wp_merger *m, int32_t a, int32_t b, int32_t new_id);

void wp_merger_free(wp_merger *m);

#endif
