// StackKey and StackKeyTable: what a stack key (see stack_walker.h) was found to name, in a flat
// table with open addressing. A lookup reads one cache line, where a node map chased two or three.
//
// Every entry belongs to a generation of the code and methods keys name (Recorder moves it when
// code may have been freed); a lookup finds only the given generation's. The table stays at most
// 70% full: a key remembered again overwrites its entry, a new one takes the first slot of an
// older generation on its way, and a rebuild keeps only the newest generation's entries, so the
// table holds what the running code can meet. Not thread-safe: callers lock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace memcity::agent {

struct StackKey {
    uint64_t lo = 0, hi = 0;
    bool operator==(const StackKey&) const = default;
};

template <class Value>
class StackKeyTable {
public:
    // The value of `key` in `generation`; nullptr if it has none.
    const Value* find(const StackKey& key, uint32_t generation) const {
        if (entries_.empty()) return nullptr;
        const size_t mask = entries_.size() - 1;
        for (size_t i = key.lo & mask;; i = (i + 1) & mask) {
            const Entry& e = entries_[i];
            if (e.generation == 0) return nullptr;
            if (e.key == key) return e.generation == generation ? &e.value : nullptr;
        }
    }

    void put(const StackKey& key, uint32_t generation, const Value& value) {
        if ((used_ + 1) * 10 > entries_.size() * 7) rebuild(generation);
        const size_t mask = entries_.size() - 1;
        Entry* slot = nullptr;
        for (size_t i = key.lo & mask;; i = (i + 1) & mask) {
            Entry& e = entries_[i];
            if (e.key == key && e.generation != 0) {
                slot = &e;
                break;
            }
            if (e.generation == 0) {
                if (!slot) {
                    slot = &e;
                    ++used_;
                }
                break;
            }
            if (!slot && e.generation != generation) slot = &e;
        }
        *slot = {key, generation, value};
    }

    size_t capacity() const { return entries_.size(); }

private:
    struct Entry {
        StackKey key;
        uint32_t generation = 0;  // 0: empty (generations start at 1)
        Value value{};
    };

    // With this generation's entries only, at most half full: bigger, or no bigger where most
    // were of older ones.
    void rebuild(uint32_t generation) {
        size_t live = 0;
        for (const Entry& e : entries_)
            live += e.generation == generation;
        size_t size = 1024;
        while (size < (live + 1) * 2)
            size *= 2;
        std::vector<Entry> old(size);
        old.swap(entries_);
        used_ = 0;
        for (const Entry& e : old)
            if (e.generation == generation) put(e.key, e.generation, e.value);
    }

    std::vector<Entry> entries_;  // power-of-two size
    size_t used_ = 0;             // slots not empty
};

}  // namespace memcity::agent
