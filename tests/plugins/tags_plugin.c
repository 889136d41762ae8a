/* tags: a one-to-many classifier plugin (docs/plugins.md). An object gets every tag that fits it,
 * maybe none (the tree then shows it under "(none)"):
 *
 *   array        an array
 *   collection   an instance whose simple type name ends in Map, List, Set, Queue or Deque
 *                (java.util.HashMap, java.util.ArrayList; not java.util.HashMap$Node)
 *   big          size >= big bytes (parameter big=N, default 1024)
 *   old          age >= old GCs (parameter old=N, default 3)
 *
 *   plugin(path=tags_plugin.so,big=64,old=2)
 *
 * The instance is read-only after init, so classify and label need no lock. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memcity_plugin.h"

enum { kArray = 0, kCollection = 1, kBig = 2, kOld = 3, kTagCount = 4 };

typedef struct Tags {
    uint64_t big;
    uint64_t old;
} Tags;

static int parse_count(const char* text, uint64_t* out) {
    char* end = NULL;
    unsigned long long n;
    if (*text < '0' || *text > '9') return -1;
    errno = 0;
    n = strtoull(text, &end, 10);
    if (errno != 0 || *end != '\0') return -1;
    *out = (uint64_t)n;
    return 0;
}

static int tags_init(const memcity_param* params, size_t param_count, void** instance, char* error,
                     size_t error_capacity) {
    Tags t = {1024, 3};
    Tags* made;
    size_t i;
    for (i = 0; i < param_count; ++i) {
        uint64_t* target = strcmp(params[i].key, "big") == 0   ? &t.big
                           : strcmp(params[i].key, "old") == 0 ? &t.old
                                                               : NULL;
        if (!target) {
            snprintf(error, error_capacity, "unknown parameter '%s' (parameters: big, old)", params[i].key);
            return 1;
        }
        if (parse_count(params[i].value, target) != 0) {
            snprintf(error, error_capacity, "%s expects a whole number, got '%s'", params[i].key,
                     params[i].value);
            return 1;
        }
    }
    made = (Tags*)malloc(sizeof(Tags));
    if (!made) {
        snprintf(error, error_capacity, "out of memory");
        return 1;
    }
    *made = t;
    *instance = made;
    return 0;
}

static int ends_with(memcity_string s, const char* suffix) {
    const size_t n = strlen(suffix);
    return s.size >= n && memcmp(s.data + s.size - n, suffix, n) == 0;
}

/* The type name after its last '.' or '$'. */
static memcity_string simple_name(memcity_string s) {
    size_t i = s.size;
    while (i > 0 && s.data[i - 1] != '.' && s.data[i - 1] != '$')
        --i;
    s.data += i;
    s.size -= i;
    return s;
}

static int is_collection(memcity_string type_name) {
    static const char* const kSuffixes[] = {"Map", "List", "Set", "Queue", "Deque"};
    const memcity_string simple = simple_name(type_name);
    size_t i;
    for (i = 0; i < sizeof kSuffixes / sizeof kSuffixes[0]; ++i)
        if (ends_with(simple, kSuffixes[i])) return 1;
    return 0;
}

static size_t tags_classify(void* instance, const memcity_object* object, uint64_t* keys, size_t capacity) {
    const Tags* t = (const Tags*)instance;
    size_t n = 0;
    (void)capacity; /* at most kTagCount, the descriptor's max_keys */
    if (object->is_array) keys[n++] = kArray;
    if (!object->is_array && is_collection(object->type_name)) keys[n++] = kCollection;
    if (object->size >= t->big) keys[n++] = kBig;
    if (object->get_age(object) >= t->old) keys[n++] = kOld;
    return n;
}

static size_t tags_label(void* instance, uint64_t key, char* buffer, size_t capacity) {
    const Tags* t = (const Tags*)instance;
    int n;
    switch (key) {
        case kArray: n = snprintf(buffer, capacity, "array"); break;
        case kCollection: n = snprintf(buffer, capacity, "collection"); break;
        case kBig: n = snprintf(buffer, capacity, "big (>= %llu B)", (unsigned long long)t->big); break;
        case kOld: n = snprintf(buffer, capacity, "old (age >= %llu)", (unsigned long long)t->old); break;
        default: n = snprintf(buffer, capacity, "tag %llu", (unsigned long long)key); break;
    }
    return n < 0 ? 0 : (size_t)n;
}

static void tags_destroy(void* instance) {
    free(instance);
}

static const memcity_plugin kTags = {
    .abi_version = MEMCITY_PLUGIN_ABI_VERSION,
    .cardinality = MEMCITY_MANY,
    .name = "tags",
    .shape_only = 0, /* reads size and age */
    .max_keys = kTagCount,
    .init = tags_init,
    .classify = tags_classify,
    .label = tags_label,
    .destroy = tags_destroy,
};

MEMCITY_PLUGIN_EXPORT const memcity_plugin* memcity_plugin_entry(void) {
    return &kTags;
}
