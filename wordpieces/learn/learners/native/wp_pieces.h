/* Greedy longest-match-first segmentation (WordPiece's), to find the tokens words use.
 *
 * A trie of code point strings: tokens for a word's first piece, and continuation
 * tokens without their prefix for the others. Not handled here: Python objects
 * (wp_merge_module.c), what an unused token means (bottom_up.py, drop_unused).
 */
#ifndef WP_PIECES_H
#define WP_PIECES_H

#include <stddef.h>
#include <stdint.h>

typedef struct wp_pieces_trie wp_pieces_trie;

wp_pieces_trie *wp_pieces_trie_new(void);

/* Add a string with its token index (an empty string is never matched): 0, or -1 when
 * out of memory. */
int wp_pieces_trie_add(wp_pieces_trie *t, const uint32_t *chars, size_t length, int32_t token);

/* The longest token starting at chars[start]: its index, its end in *end; -1: none. */
int32_t wp_pieces_trie_longest(const wp_pieces_trie *t, const uint32_t *chars, size_t length,
                               size_t start, size_t *end);

/* out[i]: the token spelled by chars[0..i] (-1: none), for every i < length. */
void wp_pieces_trie_along(const wp_pieces_trie *t, const uint32_t *chars, size_t length,
                          int32_t *out);

void wp_pieces_trie_free(wp_pieces_trie *t);

#endif
