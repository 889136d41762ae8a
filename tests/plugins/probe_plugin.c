/* probe: a one-to-one plugin for the tests that gives one field of memcity_object as the key, so
 * that every field can be checked against a hand-made heap:
 *
 *   plugin(path=probe_plugin.so,field=birth_gc)
 *
 * Fields: id, type_id, site_id, thread_id, is_array, type_name (its length), thread_name (its
 * length), length, size, gc, birth_gc, age, frame_count, frame_line (line of the allocating frame,
 * plus one; 0 when there is none), frame_past_end (what get_frame says for the index past the
 * last frame: 0).
 * Labels are the key in decimal. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memcity_plugin.h"

static const char* const kFields[] = {
    "id",   "type_id", "site_id",  "thread_id", "is_array",    "type_name",  "thread_name",   "length",
    "size", "gc",      "birth_gc", "age",       "frame_count", "frame_line", "frame_past_end"};
enum { kFieldCount = sizeof kFields / sizeof kFields[0] };

static int probe_init(const memcity_param* params, size_t param_count, void** instance, char* error,
                      size_t error_capacity) {
    size_t* field;
    size_t f;
    if (param_count != 1 || strcmp(params[0].key, "field") != 0) {
        snprintf(error, error_capacity, "expects field=NAME and nothing else");
        return 1;
    }
    for (f = 0; f < kFieldCount; ++f)
        if (strcmp(params[0].value, kFields[f]) == 0) break;
    if (f == kFieldCount) {
        snprintf(error, error_capacity, "no field '%s'", params[0].value);
        return 1;
    }
    field = (size_t*)malloc(sizeof(size_t));
    if (!field) {
        snprintf(error, error_capacity, "out of memory");
        return 1;
    }
    *field = f;
    *instance = field;
    return 0;
}

static size_t probe_classify(void* instance, const memcity_object* o, uint64_t* keys, size_t capacity) {
    memcity_frame frame;
    (void)capacity;
    switch (*(const size_t*)instance) {
        case 0: keys[0] = o->get_id(o); break;
        case 1: keys[0] = o->type_id; break;
        case 2: keys[0] = o->site_id; break;
        case 3: keys[0] = o->thread_id; break;
        case 4: keys[0] = (uint64_t)o->is_array; break;
        case 5: keys[0] = o->type_name.size; break;
        case 6: keys[0] = o->thread_name.size; break;
        case 7: keys[0] = o->length; break;
        case 8: keys[0] = o->size; break;
        case 9: keys[0] = o->gc; break;
        case 10: keys[0] = o->get_birth_gc(o); break;
        case 11: keys[0] = o->get_age(o); break;
        case 12: keys[0] = o->get_frame_count(o); break;
        case 13: keys[0] = o->get_frame(o, 0, &frame) ? (uint64_t)(frame.line + 1) : 0; break;
        default: keys[0] = (uint64_t)o->get_frame(o, o->get_frame_count(o), &frame); break;
    }
    return 1;
}

static size_t probe_label(void* instance, uint64_t key, char* buffer, size_t capacity) {
    const int n = snprintf(buffer, capacity, "%llu", (unsigned long long)key);
    (void)instance;
    return n < 0 ? 0 : (size_t)n;
}

static void probe_destroy(void* instance) {
    free(instance);
}

static const memcity_plugin kProbe = {
    .abi_version = MEMCITY_PLUGIN_ABI_VERSION,
    .cardinality = MEMCITY_ONE,
    .name = "probe",
    .shape_only = 0,
    .init = probe_init,
    .classify = probe_classify,
    .label = probe_label,
    .destroy = probe_destroy,
};

MEMCITY_PLUGIN_EXPORT const memcity_plugin* memcity_plugin_entry(void) {
    return &kProbe;
}
