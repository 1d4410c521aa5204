/* Lazily filled two-level code point table (see wp_chartable.h). */
#include "wp_chartable.h"

#include <string.h>

#define WP_ARENA_BLOCK 65536

/* Long normalized forms live in append-only blocks that never move, so that a
 * reader without the GIL can keep a pointer while another thread adds entries. */
struct wp_arena_block {
    wp_arena_block *next;
    size_t used;
    uint8_t data[WP_ARENA_BLOCK];
};

int wp_table_init(wp_chartable *t)
{
    memset(t, 0, sizeof(*t));
    t->pages[0] = calloc(WP_PAGE_SIZE, sizeof(wp_charinfo));
    return t->pages[0] ? 0 : -1;
}

void wp_table_free(wp_chartable *t)
{
    for (size_t i = 0; i < WP_NUM_PAGES; i++) {
        free(t->pages[i]);
        t->pages[i] = NULL;
    }
    while (t->arena) {
        wp_arena_block *next = t->arena->next;
        free(t->arena);
        t->arena = next;
    }
}

static const uint8_t *arena_copy(wp_chartable *t, const uint8_t *bytes, size_t n)
{
    wp_arena_block *b = t->arena;
    if (!b || b->used + n > WP_ARENA_BLOCK) {
        b = malloc(sizeof(*b));
        if (!b)
            return NULL;
        b->next = t->arena;
        b->used = 0;
        t->arena = b;
    }
    uint8_t *dst = b->data + b->used;
    memcpy(dst, bytes, n);
    b->used += n;
    return dst;
}

static size_t count_chars(const uint8_t *bytes, size_t n)
{
    size_t chars = 0;
    for (size_t i = 0; i < n; i++)
        chars += (bytes[i] & 0xC0) != 0x80;
    return chars;
}

int wp_table_set(wp_chartable *t, uint32_t cp, int cls, int run, const uint8_t *bytes,
                 size_t n)
{
    if (cp >= 0x110000u)
        return 0;
    wp_charinfo *page = t->pages[cp >> WP_PAGE_BITS];
    if (!page) {
        page = calloc(WP_PAGE_SIZE, sizeof(wp_charinfo));
        if (!page)
            return -1;
        t->pages[cp >> WP_PAGE_BITS] = page;
    }
    wp_charinfo e;
    memset(&e, 0, sizeof(e));
    if (n > 255)
        cls = WP_COMPLEX; /* too long to hold: the Python path handles it */
    if (cls != WP_COMPLEX) {
        e.nbytes = (uint8_t)n;
        e.nchars = (uint8_t)count_chars(bytes, n);
        if (n > WP_INLINE_BYTES) {
            e.u.ptr = arena_copy(t, bytes, n);
            if (!e.u.ptr)
                return -1;
        } else if (n) {
            memcpy(e.u.bytes, bytes, n);
        }
    }
    e.cls = (uint8_t)cls;
    e.run = (uint8_t)(cls == WP_WORD ? run : 0);
    page[cp & (WP_PAGE_SIZE - 1)] = e;
    if (cp < WP_PAGE_SIZE)
        t->simple[cp] = (cls == WP_WORD && run == WP_RUN_WORD && n == 1 && bytes[0] &&
                         bytes[0] < 0x80) ? bytes[0] : 0;
    return 0;
}
