/* Plugins that break the ABI one way each, for the loader's error tests. Built once per way,
 * with BAD_KIND set to:
 *   1  abi_version is one more than this header's
 *   2  cardinality 7
 *   3  classify returns one key more than its capacity (max_keys 2)
 *   4  exports no memcity_plugin_entry (only a function of another name)
 *   5  a one-to-one classifier whose classify returns no key
 *   6  classify returns the reserved key 2^64 - 1 */
#include "memcity_plugin.h"

#ifndef BAD_KIND
#error "BAD_KIND must be defined"
#endif

static size_t bad_classify(void* instance, const memcity_object* object, uint64_t* keys, size_t capacity) {
    size_t i;
    (void)instance;
    (void)object;
    if (BAD_KIND == 5) return 0;
    if (BAD_KIND == 6) {
        keys[0] = UINT64_MAX;
        return 1;
    }
    for (i = 0; i < capacity; ++i) /* writes within the buffer, then claims more */
        keys[i] = i;
    return capacity + 1;
}

static size_t bad_label(void* instance, uint64_t key, char* buffer, size_t capacity) {
    (void)instance;
    (void)key;
    if (capacity > 0) buffer[0] = '?';
    return 1;
}

static const memcity_plugin kBad = {
    .abi_version = BAD_KIND == 1 ? MEMCITY_PLUGIN_ABI_VERSION + 1 : MEMCITY_PLUGIN_ABI_VERSION,
    .cardinality = BAD_KIND == 2   ? 7
                   : BAD_KIND == 5 ? MEMCITY_ONE
                                   : MEMCITY_MANY,
    .name = "bad",
    .shape_only = 1,
    .max_keys = 2,
    .classify = bad_classify,
    .label = bad_label,
};

#if BAD_KIND == 4
MEMCITY_PLUGIN_EXPORT const memcity_plugin* memcity_plugin_entry_v0(void);
const memcity_plugin* memcity_plugin_entry_v0(void) {
    return &kBad;
}
#else
MEMCITY_PLUGIN_EXPORT const memcity_plugin* memcity_plugin_entry(void) {
    return &kBad;
}
#endif
