/* Encode one text through a fused pipeline, without touching Python.
 *
 * Reads the text's code points (CPython's 1-, 2- or 4-byte storage), classifies
 * each through the code point table, gathers words (maximal runs of word
 * characters of one run class, or one isolated character), normalizes each word
 * into UTF-8 bytes and splits it with LinMaxMatch, appending ids (and, when
 * asked, code point offsets into the original text and word indices) to growable
 * arrays.
 * Not handled here: texts holding a "complex" character or a character not in the
 * table yet: the caller is told (WP_NEED_PYTHON) and uses the Python path.
 */
#ifndef WP_ENCODE_H
#define WP_ENCODE_H

#include <stddef.h>
#include <stdint.h>

#include "wp_buf.h"
#include "wp_chartable.h"
#include "wp_trie.h"

enum { WP_OK = 0, WP_NEED_PYTHON = 1, WP_NOMEM = -1 };

#define WP_MAX_PREFIX 16

typedef struct {
    const wp_chartable *table;
    const wp_trie *trie;
    int32_t unk_id;
    int64_t max_chars; /* word limit in code points, or -1 */
    int64_t max_bytes; /* word limit in UTF-8 bytes (takes precedence), or -1 */
    /* The edit step: code points written before every text the normalizer keeps a
     * character of (a Prepend), read through the table as the text's are, each at the
     * index of the first kept character (its anchor). None when n_prefix is 0. */
    int32_t n_prefix;
    uint32_t prefix[WP_MAX_PREFIX];
} wp_model;

typedef struct {
    wp_i32vec ids;
    wp_i64vec offsets; /* start, end pairs */
    wp_i32vec word_ids;
} wp_output;

/* Per-thread working memory, reused from word to word. */
typedef struct {
    uint8_t *bytes; /* the normalized word */
    int64_t *src;   /* original code point index of each byte */
    size_t len, cap, chars;
    int64_t *piece_ends; /* end byte of each piece of the word */
    size_t piece_cap;
} wp_scratch;

void wp_output_free(wp_output *out);
void wp_scratch_free(wp_scratch *s);

/* Append the encoding of text (kind 1, 2 or 4 bytes per code point) to out.
 * On WP_NEED_PYTHON or WP_NOMEM, out is left as it was. */
int wp_encode_text(const wp_model *m, int kind, const void *data, int64_t len,
                   int want_offsets, wp_scratch *s, wp_output *out);

#endif
