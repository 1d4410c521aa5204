/* Encode one text through a fused pipeline, without touching Python.
 *
 * Reads the text's code points (CPython's 1-, 2- or 4-byte storage), classifies
 * each through the code point table, gathers words (maximal runs of word
 * characters of one run class, or one isolated character), normalizes each word
 * into UTF-8 bytes and splits it with LinMaxMatch, appending ids (and, when
 * asked, code point offsets into the original text and word indices) to growable
 * arrays. The edit steps of a Prepend (wp_model.prefix) and of a Metaspace
 * (wp_model.meta, WP_BEGIN characters) are steps of the same walk.
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
    /* The edit step of a Metaspace pre-tokenizer: its replacement's UTF-8 bytes (none
     * when meta_len is 0), written before the first bytes of a text's first word
     * (meta_at_start: prepend_scheme "always", or "first" with meta_first_only: only
     * when those bytes come from the text's character 0) and, after other members of
     * a Sequence (meta_each_word: "always"), of each of their words; never before
     * bytes that start with it. Not run through the table: HF writes it after the
     * normalizer. A WP_BEGIN character starts a word at each replacement it holds. */
    uint8_t meta[4];
    uint8_t meta_len;
    uint8_t meta_at_start;
    uint8_t meta_first_only;
    uint8_t meta_each_word;
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
