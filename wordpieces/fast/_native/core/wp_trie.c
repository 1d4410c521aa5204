/* Build the LinMaxMatch trie (see wp_trie.h).
 *
 * Three steps: insert the tokens into a linked trie; compute failure links and
 * failure pops breadth-first (so a node's links are known before its children's);
 * lay the trie out as a double array, where a transition is one addition and one
 * comparison.
 */
#include "wp_trie.h"

#include <string.h>

typedef struct {
    int32_t first_child, next_sibling;
    int32_t token; /* vocabulary id, or -1 */
    int32_t tlen;  /* bytes of the piece this node spells */
    uint8_t label;
} bnode;

typedef struct {
    bnode *v;
    size_t len, cap;
} bnodes;

typedef struct {
    wp_pop *v;
    size_t len, cap;
} popvec;

enum { R0 = 0, R1 = 1 };

/* Failure pops are copied from parent to child, so their total grows with the square of
 * token length; real vocabularies need well under a million. */
#define WP_MAX_POPS ((size_t)1 << 26)

static int32_t bn_new(bnodes *ns, uint8_t label)
{
    if (ns->len >= INT32_MAX || wp_grow((void **)&ns->v, &ns->cap, ns->len + 1, sizeof(bnode)))
        return -1;
    bnode *b = &ns->v[ns->len];
    b->first_child = b->next_sibling = b->token = -1;
    b->tlen = 0;
    b->label = label;
    return (int32_t)ns->len++;
}

static int32_t bn_child(const bnodes *ns, int32_t u, uint8_t c)
{
    for (int32_t v = ns->v[u].first_child; v >= 0; v = ns->v[v].next_sibling) {
        if (ns->v[v].label == c)
            return v;
        if (ns->v[v].label > c)
            break;
    }
    return -1;
}

/* Return the child of u labelled c, adding it (children stay sorted by label). */
static int32_t bn_child_or_add(bnodes *ns, int32_t u, uint8_t c)
{
    int32_t prev = -1, v = ns->v[u].first_child;
    while (v >= 0 && ns->v[v].label < c) {
        prev = v;
        v = ns->v[v].next_sibling;
    }
    if (v >= 0 && ns->v[v].label == c)
        return v;
    int32_t w = bn_new(ns, c);
    if (w < 0)
        return -1;
    ns->v[w].next_sibling = v;
    if (prev < 0)
        ns->v[u].first_child = w;
    else
        ns->v[prev].next_sibling = w;
    return w;
}

static int bn_insert(bnodes *ns, int32_t root, const uint8_t *bytes, size_t len, int32_t id)
{
    int32_t node = root;
    for (size_t i = 0; i < len; i++) {
        node = bn_child_or_add(ns, node, bytes[i]);
        if (node < 0)
            return -1;
    }
    if (ns->v[node].token < 0) {
        ns->v[node].token = id;
        ns->v[node].tlen = (int32_t)len;
    }
    return 0;
}

static int insert_tokens(bnodes *ns, const wp_token *tokens, size_t n, const uint8_t *prefix,
                         size_t plen)
{
    if (bn_new(ns, 0) != R0 || bn_new(ns, 0) != R1)
        return -1;
    for (size_t i = 0; i < n; i++) {
        const wp_token *t = &tokens[i];
        if (t->len == 0 || t->len > INT32_MAX / 2)
            continue;
        if (bn_insert(ns, R0, t->bytes, t->len, t->id) < 0)
            return -1;
        if (t->len > plen && memcmp(t->bytes, prefix, plen) == 0 &&
            bn_insert(ns, R1, t->bytes + plen, t->len - plen, t->id) < 0)
            return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ failure links */

typedef struct {
    int32_t *order; /* breadth-first */
    int32_t *fail;
    int32_t *pstart, *pcount;
    popvec pool, tmp;
} links;

static int pops_append(popvec *dst, const popvec *src, int32_t start, int32_t count)
{
    if (wp_grow((void **)&dst->v, &dst->cap, dst->len + (size_t)count, sizeof(wp_pop)))
        return -1;
    memcpy(dst->v + dst->len, src->v + start, (size_t)count * sizeof(wp_pop));
    dst->len += (size_t)count;
    return 0;
}

/* Links of child v (label c) of u, once u's links are known. */
static int link_child(const bnodes *ns, links *L, int32_t u, int32_t v, uint8_t c)
{
    const bnode *b = &ns->v[v];
    L->pstart[v] = (int32_t)L->pool.len;
    L->pcount[v] = 0;
    L->fail[v] = -1;
    if (b->token >= 0) {
        /* v spells a token: on failure pop it and continue in the suffix trie */
        wp_pop p = {b->token, b->tlen};
        popvec one = {&p, 1, 1};
        L->fail[v] = R1;
        L->pcount[v] = 1;
        return pops_append(&L->pool, &one, 0, 1);
    }
    int32_t z = L->fail[u], g = -1;
    L->tmp.len = 0;
    if (z < 0)
        return 0;
    if (pops_append(&L->tmp, &L->pool, L->pstart[u], L->pcount[u]))
        return -1;
    while (z >= 0 && (g = bn_child(ns, z, c)) < 0) {
        if (pops_append(&L->tmp, &L->pool, L->pstart[z], L->pcount[z]))
            return -1;
        z = L->fail[z];
    }
    if (z < 0)
        return 0;
    if (L->pool.len + L->tmp.len > WP_MAX_POPS)
        return -1; /* only pathological vocabularies (many very long tokens) get here */
    L->fail[v] = g;
    L->pcount[v] = (int32_t)L->tmp.len;
    return pops_append(&L->pool, &L->tmp, 0, (int32_t)L->tmp.len);
}

static int compute_links(const bnodes *ns, links *L)
{
    size_t n = ns->len, head = 0, tail = 0;
    L->order = malloc(n * sizeof(int32_t));
    L->fail = malloc(n * sizeof(int32_t));
    L->pstart = malloc(n * sizeof(int32_t));
    L->pcount = malloc(n * sizeof(int32_t));
    if (!L->order || !L->fail || !L->pstart || !L->pcount)
        return -1;
    for (int32_t r = R0; r <= R1; r++) {
        L->order[tail++] = r;
        L->fail[r] = -1;
        L->pstart[r] = L->pcount[r] = 0;
    }
    while (head < tail) {
        int32_t u = L->order[head++];
        for (int32_t v = ns->v[u].first_child; v >= 0; v = ns->v[v].next_sibling) {
            if (link_child(ns, L, u, v, ns->v[v].label))
                return -1;
            L->order[tail++] = v;
        }
    }
    return 0;
}

static void links_free(links *L)
{
    free(L->order);
    free(L->fail);
    free(L->pstart);
    free(L->pcount);
    free(L->pool.v);
    free(L->tmp.v);
}

/* ------------------------------------------------------------ double array */

/* Slots come in blocks; free slots are kept in a list, and only the last OPEN_BLOCKS
 * blocks are searched (older holes are given up), which bounds every search. The first
 * block is dead: the roots sit there (not live, so never a transition's target), and a
 * leaf's base is 0, so every transition out of a leaf lands there and fails. */
#define BLOCK 256
#define OPEN_BLOCKS 16

typedef struct {
    wp_unit *units;
    uint8_t *used;        /* 1: taken, 2: given up */
    uint8_t *base_taken;  /* some node's children start at this base */
    int32_t *next, *prev; /* the free list, in slot order */
    size_t cap, alloc;
    int32_t head, tail;
} layout;

static void unlink_slot(layout *a, int32_t s)
{
    int32_t p = a->prev[s], n = a->next[s];
    if (p >= 0)
        a->next[p] = n;
    else
        a->head = n;
    if (n >= 0)
        a->prev[n] = p;
    else
        a->tail = p;
}

static int grow_arrays(layout *a, size_t need)
{
    if (need <= a->alloc)
        return 0;
    size_t c1 = a->alloc, c2 = a->alloc, c3 = a->alloc, c4 = a->alloc, c5 = a->alloc;
    if (wp_grow((void **)&a->units, &c1, need, sizeof(wp_unit)) ||
        wp_grow((void **)&a->used, &c2, need, 1) ||
        wp_grow((void **)&a->base_taken, &c3, need, 1) ||
        wp_grow((void **)&a->next, &c4, need, sizeof(int32_t)) ||
        wp_grow((void **)&a->prev, &c5, need, sizeof(int32_t)))
        return -1;
    a->alloc = c1 < c2 ? c1 : c2; /* all five grew to the same size */
    return 0;
}

static int add_block(layout *a)
{
    size_t old = a->cap, cap = old + BLOCK;
    if (cap > WP_MAX_SLOTS - 2 * BLOCK || grow_arrays(a, cap + BLOCK))
        return -1;
    for (size_t i = old; i < cap + BLOCK; i++) { /* the extra block stays a guard */
        a->units[i] = 0;
        a->used[i] = a->base_taken[i] = 0;
    }
    for (size_t i = old; i < cap; i++) {
        int32_t s = (int32_t)i;
        a->prev[s] = a->tail;
        a->next[s] = -1;
        if (a->tail >= 0)
            a->next[a->tail] = s;
        else
            a->head = s;
        a->tail = s;
    }
    a->cap = cap;
    if (cap / BLOCK > OPEN_BLOCKS) {
        size_t closed = (cap / BLOCK - OPEN_BLOCKS - 1) * BLOCK;
        for (size_t i = closed; i < closed + BLOCK; i++)
            if (!a->used[i]) {
                a->used[i] = 2;
                unlink_slot(a, (int32_t)i);
            }
    }
    return 0;
}

static void take_slot(layout *a, int32_t s)
{
    a->used[s] = 1;
    unlink_slot(a, s);
}

static int fits(const bnodes *ns, const layout *a, int32_t u, size_t base)
{
    if (a->base_taken[base])
        return 0;
    for (int32_t v = ns->v[u].first_child; v >= 0; v = ns->v[v].next_sibling) {
        size_t s = base + ns->v[v].label;
        if (s >= a->cap || a->used[s])
            return 0;
    }
    return 1;
}

/* Find a base of its own where every child of u lands on a free slot (a new block
 * always has one). */
static int64_t find_base(const bnodes *ns, layout *a, int32_t u)
{
    uint8_t c0 = ns->v[ns->v[u].first_child].label;
    for (;;) {
        for (int32_t p = a->head; p >= 0; p = a->next[p])
            if ((size_t)p >= c0 && fits(ns, a, u, (size_t)p - c0))
                return (int64_t)p - c0;
        if (add_block(a))
            return -1;
    }
}

static int place_children(const bnodes *ns, layout *a, int32_t *slot, int32_t u)
{
    if (ns->v[u].first_child < 0)
        return 0; /* a leaf: base 0, into the dead block */
    int64_t base = find_base(ns, a, u);
    if (base < 0)
        return -1;
    a->base_taken[base] = 1;
    a->units[slot[u]] |= (wp_unit)base << WP_UNIT_BASE_SHIFT;
    for (int32_t v = ns->v[u].first_child; v >= 0; v = ns->v[v].next_sibling) {
        int32_t s = (int32_t)(base + ns->v[v].label);
        take_slot(a, s);
        a->units[s] = WP_UNIT_LIVE | ns->v[v].label;
        slot[v] = s;
    }
    return 0;
}

static int build_layout(const bnodes *ns, const links *L, layout *a, int32_t *slot)
{
    a->head = a->tail = -1;
    if (add_block(a))
        return -1;
    for (int32_t s = 0; s < BLOCK; s++)
        take_slot(a, s); /* the dead block */
    slot[R0] = 0;
    slot[R1] = 1;
    for (size_t i = 0; i < ns->len; i++)
        if (place_children(ns, a, slot, L->order[i]))
            return -1;
    return 0;
}

/* ------------------------------------------------------------ assembly */

static wp_trie *assemble(const bnodes *ns, links *L, layout *a, const int32_t *slot)
{
    wp_trie *t = calloc(1, sizeof(*t));
    if (!t)
        return NULL;
    t->size = a->cap + BLOCK; /* the guard block: base + 255 stays inside */
    t->units = a->units;
    a->units = NULL;
    t->tokens = malloc(t->size * sizeof(wp_slot_token));
    t->info = malloc(t->size * sizeof(wp_ninfo));
    if (!t->tokens || !t->info) {
        wp_trie_free(t);
        return NULL;
    }
    for (size_t s = 0; s < t->size; s++) {
        t->tokens[s] = (wp_slot_token){-1, 0};
        t->info[s] = (wp_ninfo){-1, 0, 0};
    }
    for (size_t v = 0; v < ns->len; v++) {
        int32_t f = L->fail[v];
        t->info[slot[v]] = (wp_ninfo){f < 0 ? -1 : slot[f], L->pstart[v], L->pcount[v]};
        t->tokens[slot[v]] = (wp_slot_token){ns->v[v].token, ns->v[v].tlen};
        if (ns->v[v].token >= 0)
            t->units[slot[v]] |= WP_UNIT_TOKEN;
    }
    t->pops = L->pool.v;
    t->npops = L->pool.len;
    L->pool.v = NULL;
    t->root0 = slot[R0];
    t->root1 = slot[R1];
    return t;
}

wp_trie *wp_trie_build(const wp_token *tokens, size_t ntokens, const uint8_t *prefix,
                       size_t prefix_len)
{
    bnodes ns = {NULL, 0, 0};
    links L;
    layout a;
    int32_t *slot = NULL;
    wp_trie *t = NULL;
    memset(&L, 0, sizeof(L));
    memset(&a, 0, sizeof(a));
    if (insert_tokens(&ns, tokens, ntokens, prefix, prefix_len) || compute_links(&ns, &L))
        goto done;
    slot = malloc(ns.len * sizeof(int32_t));
    if (slot && !build_layout(&ns, &L, &a, slot))
        t = assemble(&ns, &L, &a, slot);
done:
    free(ns.v);
    free(slot);
    free(a.units);
    free(a.used);
    free(a.base_taken);
    free(a.next);
    free(a.prev);
    links_free(&L);
    return t;
}

void wp_trie_free(wp_trie *t)
{
    if (!t)
        return;
    free(t->units);
    free(t->tokens);
    free(t->info);
    free(t->pops);
    free(t);
}
