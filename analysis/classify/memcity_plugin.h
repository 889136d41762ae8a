/* memcity_plugin.h: the C ABI of classifier plugins (docs/plugins.md).
 *
 * A plugin is a shared library that exports one function, memcity_plugin_entry, returning a
 * descriptor table. memcity loads it with dlopen when a classifier chain names it:
 *
 *     memcity report app.mct --classify 'plugin(path=./size_class.so,limits=16:64),type'
 *
 * The header is plain C99 (also valid C++) and is all a plugin needs:
 *
 *     cc -std=c99 -shared -fPIC -I memcity/analysis/classify -o size_class.so size_class.c
 *
 * Versioning: memcity loads a plugin only when the descriptor's abi_version equals the
 * MEMCITY_PLUGIN_ABI_VERSION it was built with. Any change to a type, field, function signature
 * or contract in this header that an already built plugin could notice raises the version; the
 * field abi_version stays the first of memcity_plugin in every version, so a mismatch is always
 * reported as one.
 *
 * Threads: classify and label may be called from several threads at once, with the same
 * instance. init and destroy are called once per instance, never at the same time as any other
 * call on that instance. A plugin that changes its instance in classify or label (a table of
 * interned names) must lock.
 *
 * A plugin written in C++ defines memcity_plugin_entry with C linkage (this header's declaration
 * gives it) and lets no exception leave a function that memcity calls.
 */
#ifndef MEMCITY_PLUGIN_H
#define MEMCITY_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#define MEMCITY_PLUGIN_ABI_VERSION 1

/* The name of the function every plugin exports (see memcity_plugin_entry below). */
#define MEMCITY_PLUGIN_ENTRY_NAME "memcity_plugin_entry"

#if defined(__GNUC__) || defined(__clang__)
#define MEMCITY_PLUGIN_EXPORT __attribute__((visibility("default")))
#else
#define MEMCITY_PLUGIN_EXPORT
#endif

#ifdef __cplusplus
extern "C" {
#endif

/* A string that memcity owns: `size` bytes at `data`, not NUL-terminated, valid only for the
 * call it was handed to (copy it to keep it). Names come from the trace: any bytes. */
typedef struct memcity_string {
    const char* data;
    size_t size;
} memcity_string;

/* How many values a classifier gives one object (ICPE18 §3.3). 0 is not a cardinality, so a
 * descriptor that forgot to set it is refused. */
typedef enum memcity_cardinality {
    MEMCITY_ONE = 1,       /* exactly one value: the object goes to one group */
    MEMCITY_MANY = 2,      /* a set of values, maybe none: the object counts once under each */
    MEMCITY_HIERARCHY = 3, /* a path of values, outermost first, at least one: one level each */
} memcity_cardinality;

/* One frame of an allocation site. */
typedef struct memcity_frame {
    memcity_string class_name; /* "java.util.HashMap"; empty when the trace does not name it */
    memcity_string method;     /* "resize"; empty when unknown */
    int32_t line;              /* source line, -1 when unknown */
    uint32_t method_id;        /* the trace's method id: equal ids, equal class and method */
} memcity_frame;

/* One live object of the heap being classified. Everything is read-only and valid only for
 * the classify call it was handed to. Ids are the trace's symbol ids: equal ids mean equal
 * names, 0 means unknown, and they are the cheap way to cache per type, site or thread.
 *
 * The fields are filled for every object; what costs more to work out (the object's id, its
 * birth GC and age, the frames of its site) is computed when a get_ function asks for it, so a
 * plugin that does not read it pays nothing (call each at most once per object: each call does
 * the work again).
 *
 * For a plugin whose descriptor says shape_only, memcity hands over one object per shape (type,
 * site and thread) and gives its values to every object of the shape: such a plugin must read
 * only the type, site (frames) and thread. */
typedef struct memcity_object memcity_object;
struct memcity_object {
    uint32_t type_id;           /* type */
    uint32_t site_id;           /* allocation site */
    uint32_t thread_id;         /* allocating thread */
    int32_t is_array;           /* 1 for an array, 0 for an instance */
    memcity_string type_name;   /* Java style: "java.util.HashMap", "int[]", "java.lang.String[][]" */
    memcity_string thread_name; /* "main"; empty when unknown */
    uint64_t length;            /* array length in elements; 0 for an instance */
    uint64_t size;              /* shallow size in bytes */
    uint32_t gc;                /* index of the GC whose heap is being classified */

    /* The object's id in the trace, unique among the live objects. */
    uint64_t (*get_id)(const memcity_object* object);
    /* Index of the first GC the object lived through (it was born before that GC ended). */
    uint32_t (*get_birth_gc)(const memcity_object* object);
    /* GCs survived up to and including `gc`: gc - birth_gc + 1 (1: born since the previous GC). */
    uint32_t (*get_age)(const memcity_object* object);
    /* Frames recorded for the allocation site (0: unknown site). */
    uint32_t (*get_frame_count)(const memcity_object* object);
    /* Frame `index` of the allocation site, 0 being the allocating frame and frame count - 1 the
     * outermost recorded caller. Returns 1 and fills *out, or 0 when index is past the last frame. */
    int (*get_frame)(const memcity_object* object, uint32_t index, memcity_frame* out);

    const void* host; /* memcity's own (the get_ functions use it); do not touch */
};

/* One PARAM=VALUE of the chain spec, other than path. NUL-terminated, quotes removed, valid only
 * during init. */
typedef struct memcity_param {
    const char* key;
    const char* value;
} memcity_param;

/* Keys 2^64 - 1 and 2^64 - 2 are memcity's own (an error and "(none)"); classify must not
 * return them. */
#define MEMCITY_RESERVED_KEY_MIN UINT64_C(0xFFFFFFFFFFFFFFFE)

/* The descriptor a plugin returns. It must stay valid and unchanged while the library is loaded
 * (a static const table is the usual way). */
typedef struct memcity_plugin {
    /* MEMCITY_PLUGIN_ABI_VERSION of the header the plugin was built with. Always the first field. */
    uint32_t abi_version;
    /* A memcity_cardinality. */
    uint32_t cardinality;
    /* A short name for messages: "size-class". NUL-terminated, not NULL. */
    const char* name;
    /* Nonzero when the values depend only on the object's type, site and thread (see
     * memcity_object): memcity then classifies one object per shape instead of every object. */
    int32_t shape_only;
    /* The most keys classify gives one object (MEMCITY_MANY, MEMCITY_HIERARCHY; 0 means 64, at
     * most 65536). The key buffer holds this many. MEMCITY_ONE plugins get a buffer of 1. */
    uint32_t max_keys;

    /* Optional (NULL: the plugin takes no parameters and its instance is NULL). Reads the
     * parameters and makes an instance. Returns 0 with *instance set, or nonzero with a one-line
     * message in `error` (NUL-terminated, at most error_capacity bytes with the NUL), which
     * memcity shows: "limits expects byte counts separated by ':', got 'x'". A plugin that does
     * not know a parameter should refuse it this way. */
    int (*init)(const memcity_param* params, size_t param_count, void** instance, char* error,
                size_t error_capacity);

    /* Required. Writes the object's keys to keys[0 .. n) and returns n: exactly 1 for
     * MEMCITY_ONE; distinct keys, maybe none, for MEMCITY_MANY; the path, outermost first, at least
     * one, for MEMCITY_HIERARCHY. n must not exceed capacity. Called for millions of objects, from
     * several threads at once: no allocation, no locking on the common path. */
    size_t (*classify)(void* instance, const memcity_object* object, uint64_t* keys, size_t capacity);

    /* Required. The name of a key as trees show it ("17–32 B"), in UTF-8, snprintf style: writes
     * at most `capacity` bytes to `buffer` (a terminating NUL is not needed) and returns the
     * label's full length in bytes without a NUL. When that is >= capacity, memcity calls again
     * with a larger buffer. May be called from several threads at once. */
    size_t (*label)(void* instance, uint64_t key, char* buffer, size_t capacity);

    /* Optional. Frees an instance that init made. */
    void (*destroy)(void* instance);
} memcity_plugin;

/* What every plugin exports under MEMCITY_PLUGIN_ENTRY_NAME:
 *
 *     MEMCITY_PLUGIN_EXPORT const memcity_plugin* memcity_plugin_entry(void) { return &kPlugin; }
 *
 * It may be called more than once and must return the same table each time. */
typedef const memcity_plugin* (*memcity_plugin_entry_fn)(void);
MEMCITY_PLUGIN_EXPORT const memcity_plugin* memcity_plugin_entry(void);

#ifdef __cplusplus
} /* extern "C" */
#endif

#endif /* MEMCITY_PLUGIN_H */
