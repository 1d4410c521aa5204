/* Encode one text: classify, gather words, normalize, LinMaxMatch (see wp_encode.h). */
#include "wp_encode.h"

#include <string.h>

typedef struct {
    const wp_model *m;
    wp_scratch *s;
    wp_output *out;
    int want_offsets;
    int32_t word_index;
    uint8_t run; /* the run class of the word being gathered (wp_chartable.h) */
    uint8_t pending; /* Metaspace's prefix is due before the next bytes (wp_model.meta) */
    /* The word walked in the first trie as its bytes are gathered: the node its first
     * `walked` bytes lead to, and that node's unit, or unit 0 once a byte had no
     * transition (unit 0's transitions all fail, so the walk stays stopped). A word
     * that ends on a token is that one token; any other resumes LinMaxMatch there. */
    int32_t node;
    wp_unit unit;
    size_t walked;
    /* Read once per text, so that a word's walk and output do not start with a chain
     * of loads through the model: the first trie's root and its unit, the trie's
     * units and token array, the table's simple bytes. */
    int32_t root;
    wp_unit root_unit;
    const wp_unit *units;
    const wp_slot_token *tokens;
    const uint8_t *simple;
} state;

/* Start the gathered-bytes walk of a new word at the first trie's root. */
WP_INLINE void start_word(state *st)
{
    st->node = st->root;
    st->unit = st->root_unit;
    st->walked = 0;
}

/* One step of the gathered-bytes walk: the child on byte c, or the dead unit 0. */
WP_INLINE wp_unit walk_step(const wp_unit *units, wp_unit u, uint8_t c, int32_t *node,
                            size_t *walked)
{
    const uint32_t s = wp_unit_base(u) + c;
    const wp_unit v = units[s];
    if (WP_UNLIKELY((v & 0x1ffu) != (WP_UNIT_LIVE | c)))
        return 0;
    *node = (int32_t)s;
    ++*walked;
    return v;
}

void wp_output_free(wp_output *out)
{
    wp_i32_free(&out->ids);
    wp_i64_free(&out->offsets);
    wp_i32_free(&out->word_ids);
}

void wp_scratch_free(wp_scratch *s)
{
    free(s->bytes);
    free(s->src);
    free(s->piece_ends);
    memset(s, 0, sizeof(*s));
}

static int grow_word(wp_scratch *s, size_t need)
{
    size_t cap = s->cap, cap2 = s->cap;
    if (wp_grow((void **)&s->bytes, &cap, need, 1) ||
        wp_grow((void **)&s->src, &cap2, need, sizeof(int64_t)))
        return WP_NOMEM;
    s->cap = cap < cap2 ? cap : cap2;
    return WP_OK;
}

static int grow_pieces(wp_scratch *s, size_t need)
{
    return wp_grow((void **)&s->piece_ends, &s->piece_cap, need, sizeof(int64_t)) ? WP_NOMEM
                                                                                   : WP_OK;
}

/* Append n bytes (nchars code points) that original character i normalizes to. */
WP_INLINE int append_bytes(state *st, const uint8_t *b, size_t n, size_t nchars, int64_t i)
{
    wp_scratch *s = st->s;
    if (WP_UNLIKELY(s->len + n > s->cap) && grow_word(s, s->len + n))
        return WP_NOMEM;
    const wp_unit *units = st->units;
    for (size_t k = 0; k < n; k++) {
        s->bytes[s->len + k] = b[k];
        st->unit = walk_step(units, st->unit, b[k], &st->node, &st->walked);
    }
    if (st->want_offsets)
        for (size_t k = 0; k < n; k++)
            s->src[s->len + k] = i;
    s->len += n;
    s->chars += nchars;
    return WP_OK;
}

/* Whether Metaspace's replacement stands at byte k of b[0..n). */
WP_INLINE int meta_at(const wp_model *m, const uint8_t *b, size_t n, size_t k)
{
    return k + m->meta_len <= n && memcmp(b + k, m->meta, m->meta_len) == 0;
}

/* Metaspace's prefix, due before b[0..n), the first bytes of a word, from character
 * i: the replacement (aligned to i, as HF's prepend), unless they start with it or, for
 * "first", i is not the text's first character. */
static int put_meta_prefix(state *st, const uint8_t *b, size_t n, int64_t i)
{
    const wp_model *m = st->m;
    st->pending = 0;
    if (meta_at(m, b, n, 0) || (m->meta_first_only && i != 0))
        return WP_OK;
    return append_bytes(st, m->meta, m->meta_len, 1, i);
}

/* Append the normalized bytes of original character i to the current word. */
WP_INLINE int append_char(state *st, const wp_charinfo *e, int64_t i)
{
    const uint8_t *b = wp_charinfo_bytes(e);
    if (WP_UNLIKELY(st->pending) && e->nbytes && put_meta_prefix(st, b, e->nbytes, i))
        return WP_NOMEM;
    return append_bytes(st, b, e->nbytes, e->nchars, i);
}

static int too_long(const wp_model *m, const wp_scratch *s)
{
    if (m->max_bytes >= 0)
        return s->len > (size_t)m->max_bytes;
    return m->max_chars >= 0 && s->chars > (size_t)m->max_chars;
}

/* Write the offsets and word index of the word's np tokens, whose ids are written:
 * token k covers normalized bytes [ends[k-1], ends[k]). */
static int put_offsets(state *st, int64_t np)
{
    wp_output *o = st->out;
    const wp_scratch *s = st->s;
    if (wp_i64_reserve(&o->offsets, 2 * (size_t)np) || wp_i32_reserve(&o->word_ids, (size_t)np))
        return WP_NOMEM;
    int64_t *offsets = o->offsets.data + o->offsets.len;
    int32_t *word_ids = o->word_ids.data + o->word_ids.len;
    int64_t start = 0;
    for (int64_t k = 0; k < np; k++) {
        offsets[2 * k] = s->src[start];
        offsets[2 * k + 1] = s->src[s->piece_ends[k] - 1] + 1;
        word_ids[k] = st->word_index;
        start = s->piece_ends[k];
    }
    o->offsets.len += 2 * (size_t)np;
    o->word_ids.len += (size_t)np;
    return WP_OK;
}

/* Split the gathered word and write its tokens; a word with no split is one unknown.
 * The walk writes the ids straight into the output (a word of n bytes has at most n
 * pieces, so n are reserved; a word over the length limit is one unknown). */
static int emit_word(state *st)
{
    wp_scratch *s = st->s;
    wp_output *o = st->out;
    const int over = too_long(st->m, s);
    const size_t n = over ? 1 : s->len;
    if (WP_UNLIKELY(wp_i32_reserve(&o->ids, n)) ||
        (WP_UNLIKELY(n > s->piece_cap) && grow_pieces(s, n)))
        return WP_NOMEM;
    int32_t *ids = o->ids.data + o->ids.len;
    int64_t np;
    if (WP_LIKELY(!over && (st->unit & WP_UNIT_TOKEN))) { /* the whole word is a token */
        ids[0] = st->tokens[st->node].token;
        s->piece_ends[0] = (int64_t)n;
        np = 1;
    } else {
        np = over ? -1 : wp_trie_match(st->m->trie, s->bytes, n, st->node, st->walked, ids,
                                       s->piece_ends);
    }
    if (WP_UNLIKELY(np < 0)) {
        ids[0] = st->m->unk_id;
        s->piece_ends[0] = (int64_t)s->len;
        np = 1;
    }
    o->ids.len += (size_t)np;
    if (st->want_offsets && put_offsets(st, np)) {
        o->ids.len -= (size_t)np;
        return WP_NOMEM;
    }
    st->word_index++;
    return WP_OK;
}

/* End the current word. The common case, a word that is one token when only ids are
 * asked, is written here without a call. */
WP_INLINE int flush_word(state *st)
{
    wp_scratch *s = st->s;
    int rc = WP_OK;
    if (s->len) {
        wp_i32vec *ids = &st->out->ids;
        if (WP_LIKELY((st->unit & WP_UNIT_TOKEN) && !st->want_offsets && ids->len < ids->cap &&
                      !too_long(st->m, s))) {
            ids->data[ids->len++] = st->tokens[st->node].token;
            st->word_index++;
        } else {
            rc = emit_word(st);
        }
        start_word(st);
    }
    s->len = s->chars = 0;
    return rc;
}

/* End the word at a separator of the pre-tokenizer (a space, an isolate, another run
 * class): after other members, Metaspace's "always" prefixes the next word too. */
WP_INLINE int end_word(state *st)
{
    st->pending |= st->m->meta_each_word;
    return flush_word(st);
}

static size_t utf8_chars(const uint8_t *b, size_t n)
{
    size_t chars = 0;
    for (size_t k = 0; k < n; k++)
        chars += (b[k] & 0xC0) != 0x80;
    return chars;
}

/* A WP_BEGIN character i: its bytes appended, a new word started before each of
 * Metaspace's replacements they hold (HF's MergedWithNext split). */
static int append_begin(state *st, const wp_charinfo *e, int64_t i)
{
    const wp_model *m = st->m;
    const uint8_t *b = wp_charinfo_bytes(e);
    const size_t n = e->nbytes;
    for (size_t at = 0, end; at < n; at = end) {
        for (end = at + 1; end < n && !meta_at(m, b, n, end); end++)
            ;
        int rc = meta_at(m, b, n, at) ? flush_word(st) : WP_OK;
        if (rc == WP_OK && WP_UNLIKELY(st->pending))
            rc = put_meta_prefix(st, b + at, end - at, i);
        if (rc == WP_OK)
            rc = append_bytes(st, b + at, end - at, utf8_chars(b + at, end - at), i);
        if (rc != WP_OK)
            return rc;
    }
    return WP_OK;
}

/* Code point i of a text stored kind bytes per code point. */
WP_INLINE uint32_t code_point(int kind, const void *data, int64_t i)
{
    if (kind == 1)
        return ((const uint8_t *)data)[i];
    if (kind == 2)
        return ((const uint16_t *)data)[i];
    return ((const uint32_t *)data)[i];
}

/* At most this many characters are copied per run, so that the word buffer only
 * grows by what is read (a huge text is not mirrored up front). */
#define WP_RUN_CHUNK 64

/* Append the run of "simple" characters (one ASCII byte each, see wp_chartable.h)
 * starting at i, up to WP_RUN_CHUNK of them, without reading their table entries.
 * Returns the index after the run, or -1 on out of memory. */
WP_INLINE int64_t append_simple_run(state *st, int kind, const void *data, int64_t i,
                                    int64_t len)
{
    wp_scratch *s = st->s;
    const uint8_t *simple = st->simple;
    int64_t end = len - i > WP_RUN_CHUNK ? i + WP_RUN_CHUNK : len;
    if (WP_UNLIKELY(s->len + (size_t)(end - i) > s->cap) &&
        grow_word(s, s->len + (size_t)(end - i)))
        return -1;
    uint8_t *dst = s->bytes + s->len;
    const wp_unit *units = st->units;
    wp_unit u = st->unit;
    int32_t node = st->node;
    size_t walked = st->walked;
    int64_t j = i;
    for (; j < end; j++) {
        uint32_t cp = code_point(kind, data, j);
        uint8_t b = cp < WP_PAGE_SIZE ? simple[cp] : 0;
        if (!b)
            break;
        *dst++ = b;
        u = walk_step(units, u, b, &node, &walked);
    }
    st->unit = u;
    st->node = node;
    st->walked = walked;
    if (st->want_offsets)
        for (int64_t k = i; k < j; k++)
            s->src[s->len + (size_t)(k - i)] = k;
    s->len += (size_t)(j - i);
    s->chars += (size_t)(j - i);
    return j;
}

/* The table entry of a code point known not to start a simple run, or NULL. */
WP_INLINE const wp_charinfo *entry_of(const wp_chartable *t, uint32_t cp)
{
    return cp < 0x110000u ? wp_table_get(t, cp) : NULL;
}

/* Handle the one character i that is not simple: a space, an isolated character or a
 * word character normalizing to something other than one ASCII byte. */
WP_INLINE int encode_char(state *st, const wp_charinfo *e, int64_t i)
{
    int rc;
    switch (e->cls) {
    case WP_WORD:
        if (WP_UNLIKELY(e->run != st->run) && e->run != WP_RUN_GLUE) {
            rc = end_word(st); /* another run class: a new word */
            if (WP_UNLIKELY(rc != WP_OK))
                return rc;
            st->run = e->run;
        }
        return append_char(st, e, i);
    case WP_SPACE:
        return end_word(st);
    case WP_ISOLATE:
        rc = end_word(st);
        if (rc == WP_OK)
            rc = append_char(st, e, i);
        if (rc == WP_OK)
            rc = end_word(st);
        return rc;
    case WP_BEGIN:
        return append_begin(st, e, i);
    default: /* complex, or not learned yet */
        return WP_NEED_PYTHON;
    }
}

WP_INLINE int encode_kind(state *st, int kind, const void *data, int64_t len)
{
    const wp_chartable *t = st->m->table;
    const uint8_t *simple = t->simple;
    int64_t i = 0;
    while (i < len) {
        uint32_t cp = code_point(kind, data, i);
        if (cp < WP_PAGE_SIZE && simple[cp]) {
            if (WP_UNLIKELY(st->run != WP_RUN_WORD)) {
                int rc = end_word(st);
                if (WP_UNLIKELY(rc != WP_OK))
                    return rc;
                st->run = WP_RUN_WORD;
            }
            if (WP_UNLIKELY(st->pending) && put_meta_prefix(st, &simple[cp], 1, i))
                return WP_NOMEM;
            i = append_simple_run(st, kind, data, i, len);
            if (WP_UNLIKELY(i < 0))
                return WP_NOMEM;
            continue;
        }
        const wp_charinfo *e = entry_of(t, cp);
        if (!e)
            return WP_NEED_PYTHON;
        int rc = encode_char(st, e, i);
        if (WP_UNLIKELY(rc != WP_OK))
            return rc;
        i++;
    }
    return flush_word(st);
}

/* Whether a table entry is a character the normalizer deletes (it has no bytes and
 * joins its neighbours: a word character of no bytes). */
WP_INLINE int is_deleted(const wp_charinfo *e)
{
    return e->cls == WP_WORD && e->nbytes == 0;
}

/* The edit step: the model's prefix written before the text, at its anchor (the first
 * character the normalizer keeps); nothing for a text it keeps none of. */
static int encode_prefix(state *st, int kind, const void *data, int64_t len)
{
    const wp_model *m = st->m;
    int64_t anchor = 0;
    for (; anchor < len; anchor++) {
        uint32_t cp = code_point(kind, data, anchor);
        const wp_charinfo *e = entry_of(m->table, cp);
        if (!e || e->cls == WP_UNSET || e->cls == WP_COMPLEX)
            return WP_NEED_PYTHON;
        if (!is_deleted(e))
            break;
    }
    if (anchor == len)
        return WP_OK;
    for (int32_t k = 0; k < m->n_prefix; k++) {
        const wp_charinfo *e = entry_of(m->table, m->prefix[k]);
        if (!e || e->cls == WP_UNSET || e->cls == WP_COMPLEX)
            return WP_NEED_PYTHON;
        int rc = encode_char(st, e, anchor);
        if (rc != WP_OK)
            return rc;
    }
    return WP_OK;
}

int wp_encode_text(const wp_model *m, int kind, const void *data, int64_t len,
                   int want_offsets, wp_scratch *s, wp_output *out)
{
    const wp_trie *trie = m->trie;
    state st = {.m = m, .s = s, .out = out, .want_offsets = want_offsets, .run = WP_RUN_WORD,
                .pending = m->meta_at_start,
                .root = trie->root0, .root_unit = trie->units[trie->root0],
                .units = trie->units, .tokens = trie->tokens, .simple = m->table->simple};
    size_t n_ids = out->ids.len, n_off = out->offsets.len, n_wid = out->word_ids.len;
    int rc;
    s->len = s->chars = 0;
    start_word(&st);
    rc = m->n_prefix ? encode_prefix(&st, kind, data, len) : WP_OK;
    if (rc != WP_OK)
        ; /* the prefix needs Python, or memory ran out */
    else if (kind == 1)
        rc = encode_kind(&st, 1, data, len);
    else if (kind == 2)
        rc = encode_kind(&st, 2, data, len);
    else
        rc = encode_kind(&st, 4, data, len);
    if (rc != WP_OK) {
        out->ids.len = n_ids;
        out->offsets.len = n_off;
        out->word_ids.len = n_wid;
    }
    return rc;
}
