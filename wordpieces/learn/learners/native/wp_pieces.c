/* The trie of wp_pieces.h: nodes numbered from 0 (the root); each edge (node, code
 * point) -> child sits in one open-addressing table. */
#include "wp_pieces.h"

#include <stdlib.h>

struct wp_pieces_trie {
    int32_t *token;     /* node -> token index ending there, or -1 */
    size_t n_nodes, cap_nodes;
    uint64_t *keys;     /* edge key + 1 (0 = empty) */
    int32_t *children;
    size_t n_edges, cap_edges;  /* cap_edges: a power of two */
};

static size_t edge_slot(uint64_t key, size_t cap) {  /* splitmix64's finalizer */
    key = (key ^ (key >> 30)) * 0xBF58476D1CE4E5B9ull;
    key = (key ^ (key >> 27)) * 0x94D049BB133111EBull;
    return (size_t)(key ^ (key >> 31)) & (cap - 1);
}

static uint64_t edge_key(size_t node, uint32_t ch) {
    return ((uint64_t)node << 21 | (ch & 0x1FFFFF)) + 1;  /* code points fit in 21 bits */
}

static int32_t child_of(const wp_pieces_trie *t, size_t node, uint32_t ch) {
    uint64_t key = edge_key(node, ch);
    for (size_t i = edge_slot(key, t->cap_edges);; i = (i + 1) & (t->cap_edges - 1)) {
        if (t->keys[i] == key) return t->children[i];
        if (!t->keys[i]) return -1;
    }
}

static void put_edge(uint64_t *keys, int32_t *children, size_t cap, uint64_t key, int32_t child) {
    size_t i = edge_slot(key, cap);
    while (keys[i]) i = (i + 1) & (cap - 1);
    keys[i] = key;
    children[i] = child;
}

static int grow_edges(wp_pieces_trie *t) {
    size_t cap = t->cap_edges * 2;
    uint64_t *keys = calloc(cap, sizeof *keys);
    int32_t *children = malloc(cap * sizeof *children);
    if (!keys || !children) {
        free(keys);
        free(children);
        return -1;
    }
    for (size_t i = 0; i < t->cap_edges; i++)
        if (t->keys[i]) put_edge(keys, children, cap, t->keys[i], t->children[i]);
    free(t->keys);
    free(t->children);
    t->keys = keys;
    t->children = children;
    t->cap_edges = cap;
    return 0;
}

static int32_t new_node(wp_pieces_trie *t) {
    if (t->n_nodes == t->cap_nodes) {
        size_t cap = t->cap_nodes * 2;
        int32_t *token = realloc(t->token, cap * sizeof *token);
        if (!token || cap > INT32_MAX) {
            if (token) t->token = token;
            return -1;
        }
        t->token = token;
        t->cap_nodes = cap;
    }
    t->token[t->n_nodes] = -1;
    return (int32_t)t->n_nodes++;
}

wp_pieces_trie *wp_pieces_trie_new(void) {
    wp_pieces_trie *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    t->cap_nodes = 1024;
    t->cap_edges = 2048;
    t->token = malloc(t->cap_nodes * sizeof *t->token);
    t->keys = calloc(t->cap_edges, sizeof *t->keys);
    t->children = malloc(t->cap_edges * sizeof *t->children);
    if (!t->token || !t->keys || !t->children || new_node(t) < 0) {
        wp_pieces_trie_free(t);
        return NULL;
    }
    return t;
}

int wp_pieces_trie_add(wp_pieces_trie *t, const uint32_t *chars, size_t length, int32_t token) {
    size_t node = 0;
    for (size_t i = 0; i < length; i++) {
        int32_t child = child_of(t, node, chars[i]);
        if (child < 0) {
            if ((t->n_edges + 1) * 2 > t->cap_edges && grow_edges(t) < 0) return -1;
            if ((child = new_node(t)) < 0) return -1;
            put_edge(t->keys, t->children, t->cap_edges, edge_key(node, chars[i]), child);
            t->n_edges++;
        }
        node = (size_t)child;
    }
    if (node) t->token[node] = token;
    return 0;
}

int32_t wp_pieces_trie_longest(const wp_pieces_trie *t, const uint32_t *chars, size_t length,
                               size_t start, size_t *end) {
    int32_t best = -1;
    size_t node = 0;
    for (size_t i = start; i < length; i++) {
        int32_t child = child_of(t, node, chars[i]);
        if (child < 0) break;
        node = (size_t)child;
        if (t->token[node] >= 0) {
            best = t->token[node];
            *end = i + 1;
        }
    }
    return best;
}

void wp_pieces_trie_along(const wp_pieces_trie *t, const uint32_t *chars, size_t length,
                          int32_t *out) {
    size_t node = 0, i = 0;
    for (; i < length; i++) {
        int32_t child = child_of(t, node, chars[i]);
        if (child < 0) break;
        node = (size_t)child;
        out[i] = t->token[node];
    }
    for (; i < length; i++) out[i] = -1;
}

void wp_pieces_trie_free(wp_pieces_trie *t) {
    if (!t) return;
    free(t->token);
    free(t->keys);
    free(t->children);
    free(t);
}
