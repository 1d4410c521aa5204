/* Per-code-point facts of one fused pipeline: class, run class and normalized bytes.
 *
 * The table holds no Unicode data of its own: every entry is filled from the
 * Python reference's public contract, WordEncoder.char_facts (fast/word_encoder.py:
 * a character's class and what it normalizes to, made from the normalizer's
 * `mapped` and the pre-tokenizer's `classes`, pipeline/normalizers.CharwiseNormalizer
 * and pipeline/pre_tokenizers.CharClassPreTokenizer), so the native and pure-Python
 * backends can never disagree. Entries are filled
 * lazily, while holding the GIL, and never change once set; readers without the
 * GIL only read entries of code points they checked were set beforehand.
 * Not handled here: calling Python to learn an entry (wp_module.c).
 */
#ifndef WP_CHARTABLE_H
#define WP_CHARTABLE_H

#include <stddef.h>
#include <stdint.h>

#include "wp_buf.h"

enum {
    WP_UNSET = 0,   /* not learned yet */
    WP_SPACE = 1,   /* separates words, dropped */
    WP_ISOLATE = 2, /* a word of its own (punctuation, spaced-out CJK) */
    WP_WORD = 3,    /* part of a word (of its run class, below); may normalize to nothing */
    WP_COMPLEX = 4, /* needs the general Python path */
    WP_BEGIN = 5    /* Metaspace: its bytes start a new word at each replacement they hold */
};

enum { WP_RUN_GLUE = 0, WP_RUN_WORD = 1 };

#define WP_INLINE_BYTES 8
#define WP_PAGE_BITS 8
#define WP_PAGE_SIZE (1u << WP_PAGE_BITS)
#define WP_NUM_PAGES (0x110000u >> WP_PAGE_BITS)

typedef struct {
    uint8_t cls;
    uint8_t nbytes; /* UTF-8 (surrogatepass) bytes of the normalized form */
    uint8_t nchars; /* code points of the normalized form */
    /* WP_WORD: its run class. A word is a maximal run of word characters of one run
     * class; WP_RUN_GLUE (a character the normalizer deletes, in a pipeline of several
     * run classes) joins the run around it. BERT's pipeline has WP_RUN_WORD alone. */
    uint8_t run;
    uint8_t pad[4];
    union {
        uint8_t bytes[WP_INLINE_BYTES];
        const uint8_t *ptr; /* into the arena when nbytes > WP_INLINE_BYTES */
    } u;
} wp_charinfo;

typedef struct wp_arena_block wp_arena_block;

typedef struct {
    wp_charinfo *pages[WP_NUM_PAGES];
    wp_arena_block *arena;
    /* For code points below 256: the one ASCII byte a word character of run class
     * WP_RUN_WORD normalizes to, or 0 when it is anything else (space, isolated, another
     * run class, several bytes, not learned).
     * Lets the encoder copy a run of such characters without looking at their entries. */
    uint8_t simple[WP_PAGE_SIZE];
} wp_chartable;

int wp_table_init(wp_chartable *t);
void wp_table_free(wp_chartable *t);

/* Record code point cp: its class, run class (WP_WORD) and normalized bytes.
 * Returns -1 on out of memory. */
int wp_table_set(wp_chartable *t, uint32_t cp, int cls, int run, const uint8_t *bytes,
                 size_t n);

WP_INLINE const wp_charinfo *wp_table_get(const wp_chartable *t, uint32_t cp)
{
    const wp_charinfo *page = t->pages[cp >> WP_PAGE_BITS];
    return page ? &page[cp & (WP_PAGE_SIZE - 1)] : NULL;
}

WP_INLINE int wp_table_is_set(const wp_chartable *t, uint32_t cp)
{
    const wp_charinfo *e = wp_table_get(t, cp);
    return e != NULL && e->cls != WP_UNSET;
}

WP_INLINE const uint8_t *wp_charinfo_bytes(const wp_charinfo *e)
{
    return e->nbytes > WP_INLINE_BYTES ? e->u.ptr : e->u.bytes;
}

#endif
