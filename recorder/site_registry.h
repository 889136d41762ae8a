// SiteRegistry: allocation sites (call chains of depth N) and the methods in them, defined as
// METHOD and SITE symbols the first time they are seen. Looking up a known stack takes one
// sharded lock and no allocation; JVMTI is only called with no registry lock held.
#pragma once

#include <jvmti.h>

#include <array>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "stack_key_table.h"

namespace memcity {
class TraceWriter;
}

namespace memcity::agent {

class SiteRegistry {
public:
    using WithWriter = std::function<void(const std::function<void(TraceWriter&)>&)>;

    // The site id of a stack (innermost frame first); 0 for an empty stack.
    uint32_t siteOf(jvmtiEnv* jvmti, const jvmtiFrameInfo* frames, int count, const WithWriter& write);
    // Sites by stack key (see stack_walker.h), shared by all threads. A key is remembered for one
    // generation of the code and methods keys name: a lookup in another finds nothing.
    static constexpr uint8_t kTopClone = 1;  // Object.clone
    struct KeyedSite {
        uint32_t site = 0;  // 0: not known
        uint8_t top = 0;    // what the innermost frame is: kTopClone
    };
    KeyedSite siteOfKey(const StackKey& key, uint32_t generation);
    void rememberKey(const StackKey& key, uint32_t generation, KeyedSite site);
    // The method id of a JVMTI method (defining it on first sight); 0 if it cannot be read.
    uint32_t methodOf(jvmtiEnv* jvmti, jmethodID method, const WithWriter& write);
    // Source line of a location in a method, -1 if unknown.
    int32_t lineOf(jvmtiEnv* jvmti, jmethodID method, jlocation location, const WithWriter& write);

private:
    struct Method {
        uint32_t id = 0;
        std::vector<std::pair<jlocation, int32_t>> lines;  // (start location, line), ascending
    };
    // Stacks live in one flat array per shard; the table holds (hash, offset, count, site).
    struct Slot {
        uint64_t hash = 0;
        uint32_t offset = 0;
        uint32_t count = 0;
        uint32_t site = 0;  // 0: empty
    };
    struct Shard {
        std::mutex mutex;
        std::vector<Slot> slots;  // open addressing, power-of-two size
        std::vector<std::pair<jmethodID, jlocation>> frames;
        size_t used = 0;
        uint32_t find(uint64_t hash, const jvmtiFrameInfo* frames, int count) const;
        void insert(uint64_t hash, const jvmtiFrameInfo* frames, int count, uint32_t site);
    };
    static constexpr size_t kShards = 16;
    static uint64_t hash(const jvmtiFrameInfo* frames, int count);

    const Method* method(jvmtiEnv* jvmti, jmethodID m, const WithWriter& write);

    struct KeyShard {
        std::mutex mutex;
        StackKeyTable<KeyedSite> keys;
    };

    std::array<Shard, kShards> shards_;
    std::array<KeyShard, kShards> key_shards_;
    std::mutex methods_mutex_;
    std::unordered_map<jmethodID, Method> methods_;
    std::mutex define_mutex_;
    uint32_t next_site_ = 0, next_method_ = 0;
};

}  // namespace memcity::agent
