// Jdk: the parts of the Java class library the scenarios use, on a SimHeap: String, boxes,
// Date, ArrayList, HashMap, ConcurrentHashMap and WeakReference, with their real layouts and
// growth rules (HashMap: 16 bins, doubling past 3/4 full; ArrayList: 10 slots, growing by half).
// Every allocation gets a site made of the library's own frames followed by the caller's.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "synth/sim_heap.h"

namespace memcity::synth {

// The caller's frames, innermost first.
using Caller = std::vector<FrameSpec>;

// A hash map in the simulated heap and, beside it, the index the simulation uses to find keys.
struct SimMap {
    Ref object = kNull;
    bool concurrent = false;
    uint32_t capacity = 0;  // bins of the current table
    struct Entry {
        Ref node;
        uint32_t hash;
    };
    std::unordered_map<uint64_t, Entry> entries;  // key identity -> node
};

struct SimList {
    Ref object = kNull;
    uint32_t size = 0;
    uint32_t capacity = 0;
};

class Jdk {
public:
    explicit Jdk(SimHeap& heap);

    // Types.
    uint32_t string = 0, byte_array = 0, char_array = 0, int_array = 0, long_array = 0, object_array = 0;
    uint32_t integer = 0, long_box = 0, date = 0, array_list = 0, weak_reference = 0;
    uint32_t hash_map = 0, hash_map_node = 0, hash_map_node_array = 0;
    uint32_t chm = 0, chm_node = 0, chm_node_array = 0;

    // A Latin-1 String of `length` characters: the String and its byte[] value.
    Ref newString(const Caller& at, uint32_t length);
    Ref newInteger(const Caller& at);
    Ref newLong(const Caller& at);
    Ref newDate(const Caller& at);
    Ref newWeakReference(const Caller& at, Ref referent);

    SimList newArrayList(const Caller& at);
    void add(SimList& list, Ref value, const Caller& at);

    SimMap newHashMap(const Caller& at);
    SimMap newConcurrentHashMap(const Caller& at);
    // Puts `value` under a key whose equals/hashCode identity is `key_identity`.
    void put(SimMap& map, uint64_t key_identity, Ref key, Ref value, const Caller& at);
    bool remove(SimMap& map, uint64_t key_identity);
    Ref getValue(const SimMap& map, uint64_t key_identity) const;

private:
    uint32_t site(std::initializer_list<FrameSpec> own, const Caller& at);
    void resize(SimMap& map, const Caller& at);

    SimHeap& h_;
    // Methods for the library's frames.
    uint32_t m_string_init_ = 0, m_string_latin1_ = 0, m_integer_value_of_ = 0, m_long_value_of_ = 0,
             m_date_init_ = 0, m_weak_init_ = 0;
    uint32_t m_list_init_ = 0, m_list_add_ = 0, m_list_grow_ = 0, m_arrays_copy_of_ = 0;
    uint32_t m_map_put_ = 0, m_map_put_val_ = 0, m_map_new_node_ = 0, m_map_resize_ = 0, m_map_init_ = 0;
    uint32_t m_chm_put_ = 0, m_chm_put_val_ = 0, m_chm_init_table_ = 0, m_chm_transfer_ = 0, m_chm_init_ = 0;
    // Reference slots.
    uint32_t s_string_value_ = 0, s_list_data_ = 0, s_map_table_ = 0, s_node_key_ = 0, s_node_value_ = 0,
             s_node_next_ = 0, s_chm_table_ = 0, s_weak_referent_ = 0;
};

}  // namespace memcity::synth
