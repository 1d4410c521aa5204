/* WordPiece by LinMaxMatch: a byte trie with failure links and failure pops.
 *
 * Song et al., "Fast WordPiece Tokenization" (EMNLP 2021). Two tries share one
 * double array: T0 holds every token (the first piece of a word may be any token),
 * T1 holds the continuation tokens with their prefix ("##") removed. Matching a
 * word of n bytes costs O(n) and gives exactly the greedy longest-match-first split.
 * Bytes are UTF-8 (with surrogates encoded as 3 bytes, as Python's "surrogatepass"):
 * since tokens are whole characters, every match ends on a character boundary.
 * Not handled here: normalization and word splitting (wp_encode.c).
 */
#ifndef WP_TRIE_H
#define WP_TRIE_H

#include <stddef.h>
#include <stdint.h>

#include "wp_buf.h"

/* One double-array unit, 4 bytes, so that the walk's working set is a quarter of a
 * 16-byte layout's (most of the walk's time is its loads). A transition from node p on
 * byte c goes to slot s = base(p) + c, and is real when unit s is live with label c:
 * every node with children has a base of its own, so the label alone identifies the
 * parent. Bits: label (0-7), live (8), spells a token (9), base (10-31). */
typedef uint32_t wp_unit;

#define WP_UNIT_LIVE 0x100u
#define WP_UNIT_TOKEN 0x200u
#define WP_UNIT_BASE_SHIFT 10
#define WP_MAX_SLOTS ((size_t)1 << (32 - WP_UNIT_BASE_SHIFT))

WP_INLINE uint32_t wp_unit_base(wp_unit u)
{
    return u >> WP_UNIT_BASE_SHIFT;
}

/* The token a node spells, read only once the walk pops it. */
typedef struct {
    int32_t token; /* vocabulary id, or -1 */
    int32_t tlen;  /* bytes of the word that token covers (prefix excluded) */
} wp_slot_token;

typedef struct {
    int32_t fail;       /* slot to continue from after popping, -1: no split */
    int32_t pops_start; /* into wp_trie.pops */
    int32_t pops_count;
} wp_ninfo;

typedef struct {
    int32_t id;  /* vocabulary id */
    int32_t len; /* bytes of the word it covers (prefix excluded) */
} wp_pop;

typedef struct {
    wp_unit *units;
    wp_slot_token *tokens;
    wp_ninfo *info;
    wp_pop *pops;
    size_t size, npops;
    int32_t root0, root1;
} wp_trie;

typedef struct {
    const uint8_t *bytes;
    size_t len;
    int32_t id;
} wp_token;

/* Build from the vocabulary (tokens[i] has id tokens[i].id) and the continuation
 * prefix. Returns NULL on out of memory, or if the tables would be unreasonably big. */
wp_trie *wp_trie_build(const wp_token *tokens, size_t ntokens, const uint8_t *prefix,
                       size_t prefix_len);
void wp_trie_free(wp_trie *t);

/* Follow node's failure link: emit its failure pops (pieces ending at *pos) and return
 * the node to continue from, or -1 when it has no link or the pops would not fit. */
WP_INLINE int32_t wp_trie_fail(const wp_trie *t, int32_t node, size_t n, int32_t *ids,
                               int64_t *ends, int64_t *np, int64_t *pos)
{
    const wp_ninfo *ni = &t->info[node];
    if (ni->fail < 0 || *np + ni->pops_count > (int64_t)n)
        return -1;
    for (int32_t k = 0; k < ni->pops_count; k++) {
        const wp_pop *p = &t->pops[ni->pops_start + k];
        *pos += p->len;
        ids[*np] = p->id;
        ends[(*np)++] = *pos;
    }
    return ni->fail;
}

/* Pop the token node spells: piece *np ends where it ends. */
WP_INLINE void wp_trie_pop(const wp_trie *t, int32_t node, int32_t *ids, int64_t *ends,
                           int64_t *np, int64_t *pos)
{
    *pos += t->tokens[node].tlen;
    ids[*np] = t->tokens[node].token;
    ends[(*np)++] = *pos;
}

/* Split word w[0..n) into pieces: ids[k] and the end byte ends[k] of piece k, going on
 * from node, where the first trie's walk of w[0..start) leads (root0 and 0: from the
 * start). Returns the number of pieces (at most n), or -1 when the word has no split. */
WP_INLINE int64_t wp_trie_match(const wp_trie *t, const uint8_t *w, size_t n, int32_t node,
                                size_t start, int32_t *ids, int64_t *ends)
{
    const wp_unit *units = t->units;
    wp_unit u = units[node];
    int64_t np = 0, pos = 0;
    for (size_t i = start; i < n; i++) {
        const uint8_t c = w[i];
        for (;;) {
            const uint32_t s = wp_unit_base(u) + c;
            const wp_unit v = units[s];
            if (WP_LIKELY((v & 0x1ffu) == (WP_UNIT_LIVE | c))) {
                node = (int32_t)s;
                u = v;
                break;
            }
            if (WP_UNLIKELY(np >= (int64_t)n))
                return -1; /* cannot happen for a well-built trie; never overrun */
            if (u & WP_UNIT_TOKEN) { /* pop the token, continue in the suffix trie */
                wp_trie_pop(t, node, ids, ends, &np, &pos);
                node = t->root1;
            } else {
                node = wp_trie_fail(t, node, n, ids, ends, &np, &pos);
                if (node < 0)
                    return -1;
            }
            u = units[node];
        }
    }
    while (node != t->root1) {
        if (WP_UNLIKELY(np >= (int64_t)n))
            return -1;
        if (u & WP_UNIT_TOKEN) { /* a node's token covers the bytes since the last pop */
            ids[np] = t->tokens[node].token;
            ends[np++] = (int64_t)n;
            return np;
        }
        node = wp_trie_fail(t, node, n, ids, ends, &np, &pos);
        if (node < 0)
            return -1;
        u = units[node];
    }
    return pos == (int64_t)n ? np : -1;
}

#endif
