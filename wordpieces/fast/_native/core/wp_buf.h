/* Growable arrays of fixed-width integers, usable without the GIL.
 *
 * Every push checks capacity and reports allocation failure by returning -1, so
 * that callers can unwind cleanly instead of writing past a buffer.
 * Not handled here: anything Python-specific (see wp_module.c).
 */
#ifndef WP_BUF_H
#define WP_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#if defined(__GNUC__) || defined(__clang__)
#define WP_INLINE static inline __attribute__((always_inline))
#define WP_LIKELY(x) __builtin_expect(!!(x), 1)
#define WP_UNLIKELY(x) __builtin_expect(!!(x), 0)
#else
#define WP_INLINE static __inline
#define WP_LIKELY(x) (x)
#define WP_UNLIKELY(x) (x)
#endif

/* Grow *data (elements of `size` bytes) so that it holds at least `need` elements. */
static inline int wp_grow(void **data, size_t *cap, size_t need, size_t size)
{
    if (need <= *cap)
        return 0;
    size_t cap2 = *cap ? *cap : 64;
    while (cap2 < need) {
        if (cap2 > ((size_t)-1) / 4 / size)
            return -1;
        cap2 *= 2;
    }
    void *p = realloc(*data, cap2 * size);
    if (!p)
        return -1;
    *data = p;
    *cap = cap2;
    return 0;
}

typedef struct {
    int32_t *data;
    size_t len, cap;
} wp_i32vec;

typedef struct {
    int64_t *data;
    size_t len, cap;
} wp_i64vec;

WP_INLINE int wp_i32_reserve(wp_i32vec *v, size_t extra)
{
    if (WP_LIKELY(v->len + extra <= v->cap))
        return 0;
    return wp_grow((void **)&v->data, &v->cap, v->len + extra, sizeof(int32_t));
}

WP_INLINE int wp_i64_reserve(wp_i64vec *v, size_t extra)
{
    if (WP_LIKELY(v->len + extra <= v->cap))
        return 0;
    return wp_grow((void **)&v->data, &v->cap, v->len + extra, sizeof(int64_t));
}

WP_INLINE int wp_i32_push(wp_i32vec *v, int32_t x)
{
    if (WP_UNLIKELY(wp_i32_reserve(v, 1) < 0))
        return -1;
    v->data[v->len++] = x;
    return 0;
}

WP_INLINE int wp_i64_push(wp_i64vec *v, int64_t x)
{
    if (WP_UNLIKELY(wp_i64_reserve(v, 1) < 0))
        return -1;
    v->data[v->len++] = x;
    return 0;
}

static inline void wp_i32_free(wp_i32vec *v)
{
    free(v->data);
    v->data = NULL;
    v->len = v->cap = 0;
}

static inline void wp_i64_free(wp_i64vec *v)
{
    free(v->data);
    v->data = NULL;
    v->len = v->cap = 0;
}

#endif
