/* size_class: a one-to-one classifier plugin (docs/plugins.md) that groups objects by size.
 *
 *   plugin(path=size_class_plugin.so)                  power-of-two buckets, as the built-in `size`
 *   plugin(path=size_class_plugin.so,limits=16:64)     up to 16 B, 17 B – 64 B, over 64 B
 *
 * Keys: without limits, the bucket k holds sizes 2^(k-1)+1 .. 2^k (k = 0 holds 0 and 1 byte), the
 * built-in size classifier's keys; with limits, the index of the first limit the size does not
 * exceed, or the number of limits for larger objects. The instance is read-only after init, so
 * classify and label need no lock. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memcity_plugin.h"

#define MAX_LIMITS 32

typedef struct SizeClass {
    size_t limit_count; /* 0: power-of-two buckets */
    uint64_t limits[MAX_LIMITS];
} SizeClass;

/* Reads "16:64:1024" (increasing byte counts) into sc; 0 on success. */
static int parse_limits(const char* text, SizeClass* sc) {
    const char* p = text;
    while (*p) {
        char* end = NULL;
        unsigned long long n;
        if (*p < '0' || *p > '9') return -1;
        errno = 0;
        n = strtoull(p, &end, 10);
        if (errno != 0 || end == p || (*end != ':' && *end != '\0')) return -1;
        if (sc->limit_count == MAX_LIMITS) return -1;
        if (sc->limit_count > 0 && n <= sc->limits[sc->limit_count - 1]) return -1;
        sc->limits[sc->limit_count++] = (uint64_t)n;
        p = *end == ':' ? end + 1 : end;
        if (*end == ':' && *p == '\0') return -1;
    }
    return sc->limit_count > 0 ? 0 : -1;
}

static int size_class_init(const memcity_param* params, size_t param_count, void** instance, char* error,
                           size_t error_capacity) {
    SizeClass* sc = (SizeClass*)calloc(1, sizeof(SizeClass));
    size_t i;
    if (!sc) {
        snprintf(error, error_capacity, "out of memory");
        return 1;
    }
    for (i = 0; i < param_count; ++i) {
        if (strcmp(params[i].key, "limits") != 0) {
            snprintf(error, error_capacity, "unknown parameter '%s' (parameters: limits)", params[i].key);
            free(sc);
            return 1;
        }
        if (parse_limits(params[i].value, sc) != 0) {
            snprintf(error, error_capacity,
                     "limits expects up to %d increasing byte counts separated by ':', got '%s'", MAX_LIMITS,
                     params[i].value);
            free(sc);
            return 1;
        }
    }
    *instance = sc;
    return 0;
}

static uint64_t bucket_of(uint64_t size) {
    uint64_t k = 0;
    if (size <= 1) return 0;
#if defined(__GNUC__) || defined(__clang__)
    k = (uint64_t)(64 - __builtin_clzll(size - 1));
#else
    for (size -= 1; size; size >>= 1)
        ++k;
#endif
    return k;
}

static size_t size_class_classify(void* instance, const memcity_object* object, uint64_t* keys,
                                  size_t capacity) {
    const SizeClass* sc = (const SizeClass*)instance;
    size_t i = 0;
    (void)capacity; /* one-to-one: memcity hands a buffer of one */
    if (sc->limit_count == 0) {
        keys[0] = bucket_of(object->size);
        return 1;
    }
    while (i < sc->limit_count && object->size > sc->limits[i])
        ++i;
    keys[0] = i;
    return 1;
}

static size_t size_class_label(void* instance, uint64_t key, char* buffer, size_t capacity) {
    const SizeClass* sc = (const SizeClass*)instance;
    int n;
    if (sc->limit_count == 0) {
        const unsigned long long hi = key < 64 ? 1ull << key : 0, lo = hi / 2 + 1;
        if (key >= 64)
            n = snprintf(buffer, capacity, "over 9223372036854775808 B");
        else if (key == 0)
            n = snprintf(buffer, capacity, "0 B \xe2\x80\x93 1 B");
        else if (lo == hi)
            n = snprintf(buffer, capacity, "%llu B", hi);
        else
            n = snprintf(buffer, capacity, "%llu B \xe2\x80\x93 %llu B", lo, hi);
    } else if (key == 0) {
        n = snprintf(buffer, capacity, "up to %llu B", (unsigned long long)sc->limits[0]);
    } else if (key >= sc->limit_count) {
        n = snprintf(buffer, capacity, "over %llu B", (unsigned long long)sc->limits[sc->limit_count - 1]);
    } else {
        n = snprintf(buffer, capacity, "%llu B \xe2\x80\x93 %llu B",
                     (unsigned long long)sc->limits[key - 1] + 1, (unsigned long long)sc->limits[key]);
    }
    return n < 0 ? 0 : (size_t)n;
}

static void size_class_destroy(void* instance) {
    free(instance);
}

static const memcity_plugin kSizeClass = {
    .abi_version = MEMCITY_PLUGIN_ABI_VERSION,
    .cardinality = MEMCITY_ONE,
    .name = "size-class",
    .shape_only = 0, /* reads the size */
    .init = size_class_init,
    .classify = size_class_classify,
    .label = size_class_label,
    .destroy = size_class_destroy,
};

MEMCITY_PLUGIN_EXPORT const memcity_plugin* memcity_plugin_entry(void) {
    return &kSizeClass;
}
