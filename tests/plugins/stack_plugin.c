/* stack: a one-to-hierarchy classifier plugin (docs/plugins.md) that shows allocations as a call
 * tree: the allocating stack, outermost recorded caller first, down to the allocating frame.
 *
 *   plugin(path=stack_plugin.so)                  every recorded frame
 *   plugin(path=stack_plugin.so,depth=2,thread=1) the thread, then the 2 innermost frames
 *
 * Frames are named "Class.method:line". It reads only the site and the thread, so it declares
 * itself shape-only and memcity calls it once per shape. Names are interned into a table that
 * classify (which may run on several threads) and label share, behind a mutex. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memcity_plugin.h"

#define MAX_KEYS 256

typedef struct Stack {
    uint64_t depth; /* innermost frames to show, 0 = all */
    int thread;     /* the thread's name as the outermost level */

    pthread_mutex_t lock; /* guards the rest */
    char** names;         /* key -> name, NUL-terminated */
    size_t count, capacity;
    uint32_t* slots; /* open addressing over names: key + 1, 0 = empty; size is a power of two */
    size_t slot_count;
} Stack;

static uint64_t hash(const char* s, size_t n) {
    uint64_t h = 1469598103934665603ull; /* FNV-1a */
    size_t i;
    for (i = 0; i < n; ++i)
        h = (h ^ (unsigned char)s[i]) * 1099511628211ull;
    return h;
}

/* Doubles the slot table; 0 on success. Called with the lock held. */
static int grow(Stack* st) {
    const size_t slot_count = st->slot_count ? st->slot_count * 2 : 64;
    uint32_t* slots = (uint32_t*)calloc(slot_count, sizeof(uint32_t));
    size_t k;
    if (!slots) return -1;
    for (k = 0; k < st->count; ++k) {
        size_t at = (size_t)hash(st->names[k], strlen(st->names[k])) & (slot_count - 1);
        while (slots[at])
            at = (at + 1) & (slot_count - 1);
        slots[at] = (uint32_t)(k + 1);
    }
    free(st->slots);
    st->slots = slots;
    st->slot_count = slot_count;
    return 0;
}

/* The key of a name, adding it when new; MEMCITY_RESERVED_KEY_MIN - 1 when out of memory. */
static uint64_t intern(Stack* st, const char* s, size_t n) {
    uint64_t key = MEMCITY_RESERVED_KEY_MIN - 1;
    size_t at;
    pthread_mutex_lock(&st->lock);
    if ((st->count + 1) * 2 > st->slot_count && grow(st) != 0) goto done;
    at = (size_t)hash(s, n) & (st->slot_count - 1);
    while (st->slots[at]) {
        const char* have = st->names[st->slots[at] - 1];
        if (strlen(have) == n && memcmp(have, s, n) == 0) {
            key = st->slots[at] - 1;
            goto done;
        }
        at = (at + 1) & (st->slot_count - 1);
    }
    if (st->count == st->capacity) {
        const size_t capacity = st->capacity ? st->capacity * 2 : 64;
        char** names = (char**)realloc(st->names, capacity * sizeof(char*));
        if (!names) goto done;
        st->names = names;
        st->capacity = capacity;
    }
    st->names[st->count] = (char*)malloc(n + 1);
    if (!st->names[st->count]) goto done;
    memcpy(st->names[st->count], s, n);
    st->names[st->count][n] = '\0';
    st->slots[at] = (uint32_t)(st->count + 1);
    key = st->count++;
done:
    pthread_mutex_unlock(&st->lock);
    return key;
}

static void stack_destroy(void* instance) {
    Stack* st = (Stack*)instance;
    size_t k;
    for (k = 0; k < st->count; ++k)
        free(st->names[k]);
    free(st->names);
    free(st->slots);
    pthread_mutex_destroy(&st->lock);
    free(st);
}

static int stack_init(const memcity_param* params, size_t param_count, void** instance, char* error,
                      size_t error_capacity) {
    uint64_t depth = 0, thread = 0;
    Stack* st;
    size_t i;
    for (i = 0; i < param_count; ++i) {
        uint64_t* target = strcmp(params[i].key, "depth") == 0    ? &depth
                           : strcmp(params[i].key, "thread") == 0 ? &thread
                                                                  : NULL;
        char* end = NULL;
        if (!target) {
            snprintf(error, error_capacity, "unknown parameter '%s' (parameters: depth, thread)",
                     params[i].key);
            return 1;
        }
        errno = 0;
        *target = strtoull(params[i].value, &end, 10);
        if (params[i].value[0] < '0' || params[i].value[0] > '9' || errno != 0 || *end != '\0' ||
            (target == &thread && thread > 1)) {
            snprintf(error, error_capacity, "%s expects %s, got '%s'", params[i].key,
                     target == &thread ? "0 or 1" : "a whole number", params[i].value);
            return 1;
        }
    }
    st = (Stack*)calloc(1, sizeof(Stack));
    if (!st) {
        snprintf(error, error_capacity, "out of memory");
        return 1;
    }
    st->depth = depth;
    st->thread = thread != 0;
    pthread_mutex_init(&st->lock, NULL);
    *instance = st;
    return 0;
}

/* "Class.method:line" for a frame, into buffer (snprintf style). */
static int frame_name(const memcity_frame* f, char* buffer, size_t capacity) {
    if (f->method.size == 0) return snprintf(buffer, capacity, "<method %u>", (unsigned)f->method_id);
    if (f->line < 0)
        return snprintf(buffer, capacity, "%.*s.%.*s", (int)f->class_name.size, f->class_name.data,
                        (int)f->method.size, f->method.data);
    return snprintf(buffer, capacity, "%.*s.%.*s:%d", (int)f->class_name.size, f->class_name.data,
                    (int)f->method.size, f->method.data, (int)f->line);
}

static size_t stack_classify(void* instance, const memcity_object* object, uint64_t* keys, size_t capacity) {
    Stack* st = (Stack*)instance;
    size_t n = 0;
    uint32_t frames = object->get_frame_count(object), i;
    if (st->thread) {
        if (object->thread_name.size == 0)
            keys[n++] = intern(st, "<unknown thread>", strlen("<unknown thread>"));
        else
            keys[n++] = intern(st, object->thread_name.data, object->thread_name.size);
    }
    if (frames == 0) {
        keys[n++] = intern(st, "<unknown site>", strlen("<unknown site>"));
        return n;
    }
    if (st->depth != 0 && frames > st->depth) frames = (uint32_t)st->depth;
    if (frames > capacity - n) frames = (uint32_t)(capacity - n);
    for (i = frames; i-- > 0;) {
        memcity_frame f;
        char local[512];
        char* name = local;
        int len;
        object->get_frame(object, i, &f);
        len = frame_name(&f, local, sizeof local);
        if (len < 0) len = 0;
        if ((size_t)len >= sizeof local) {
            name = (char*)malloc((size_t)len + 1);
            if (name) frame_name(&f, name, (size_t)len + 1);
        }
        keys[n++] = name ? intern(st, name, (size_t)len) : MEMCITY_RESERVED_KEY_MIN - 1;
        if (name != local) free(name);
    }
    return n;
}

static size_t stack_label(void* instance, uint64_t key, char* buffer, size_t capacity) {
    Stack* st = (Stack*)instance;
    int n;
    pthread_mutex_lock(&st->lock);
    if (key < st->count)
        n = snprintf(buffer, capacity, "%s", st->names[key]);
    else
        n = snprintf(buffer, capacity, "<out of memory>");
    pthread_mutex_unlock(&st->lock);
    return n < 0 ? 0 : (size_t)n;
}

static const memcity_plugin kStack = {
    .abi_version = MEMCITY_PLUGIN_ABI_VERSION,
    .cardinality = MEMCITY_HIERARCHY,
    .name = "stack",
    .shape_only = 1,
    .max_keys = MAX_KEYS,
    .init = stack_init,
    .classify = stack_classify,
    .label = stack_label,
    .destroy = stack_destroy,
};

MEMCITY_PLUGIN_EXPORT const memcity_plugin* memcity_plugin_entry(void) {
    return &kStack;
}
