#include "site_registry.h"

#include <algorithm>

#include "jvmti_util.h"
#include "trace/symbols.h"
#include "trace/trace_writer.h"

namespace memcity::agent {

uint64_t SiteRegistry::hash(const jvmtiFrameInfo* frames, int count) {
    uint64_t h = 0x9e3779b97f4a7c15ull ^ static_cast<uint64_t>(static_cast<uint32_t>(count));
    for (int i = 0; i < count; ++i) {
        h ^= reinterpret_cast<uintptr_t>(frames[i].method) * 0xc2b2ae3d27d4eb4full;
        h = (h << 27 | h >> 37) * 0x9e3779b97f4a7c15ull;
        h ^= static_cast<uint64_t>(frames[i].location) * 0xff51afd7ed558ccdull;
        h = (h << 31 | h >> 33) * 0x94d049bb133111ebull;
    }
    return h ^ (h >> 29);
}

uint32_t SiteRegistry::Shard::find(uint64_t h, const jvmtiFrameInfo* f, int count) const {
    if (slots.empty()) return 0;
    const size_t mask = slots.size() - 1;
    for (size_t i = h & mask;; i = (i + 1) & mask) {
        const Slot& s = slots[i];
        if (s.site == 0) return 0;
        if (s.hash != h || s.count != static_cast<uint32_t>(count)) continue;
        bool same = true;
        for (int k = 0; k < count && same; ++k)
            same = frames[s.offset + static_cast<uint32_t>(k)].first == f[k].method &&
                   frames[s.offset + static_cast<uint32_t>(k)].second == f[k].location;
        if (same) return s.site;
    }
}

void SiteRegistry::Shard::insert(uint64_t h, const jvmtiFrameInfo* f, int count, uint32_t site) {
    if ((used + 1) * 2 > slots.size()) {
        std::vector<Slot> old = std::move(slots);
        slots.assign(old.empty() ? 256 : old.size() * 2, Slot{});
        const size_t mask = slots.size() - 1;
        for (const Slot& s : old) {
            if (s.site == 0) continue;
            size_t i = s.hash & mask;
            while (slots[i].site != 0)
                i = (i + 1) & mask;
            slots[i] = s;
        }
    }
    Slot slot{h, static_cast<uint32_t>(frames.size()), static_cast<uint32_t>(count), site};
    for (int k = 0; k < count; ++k)
        frames.emplace_back(f[k].method, f[k].location);
    const size_t mask = slots.size() - 1;
    size_t i = h & mask;
    while (slots[i].site != 0)
        i = (i + 1) & mask;
    slots[i] = slot;
    ++used;
}

const SiteRegistry::Method* SiteRegistry::method(jvmtiEnv* jvmti, jmethodID m, const WithWriter& write) {
    {
        std::lock_guard lock(methods_mutex_);
        auto it = methods_.find(m);
        if (it != methods_.end()) return &it->second;
    }
    // Read everything about the method with no lock held.
    std::string class_name = "?", name = "?", signature, source;
    Method entry;
    {
        JvmtiPtr<char> n(jvmti), s(jvmti);
        if (jvmti->GetMethodName(m, n.out(), s.out(), nullptr) == JVMTI_ERROR_NONE) {
            name = n.get() ? n.get() : "?";
            signature = s.get() ? s.get() : "";
        }
    }
    jclass declaring = nullptr;
    if (jvmti->GetMethodDeclaringClass(m, &declaring) == JVMTI_ERROR_NONE && declaring) {
        JvmtiPtr<char> sig(jvmti), file(jvmti);
        if (jvmti->GetClassSignature(declaring, sig.out(), nullptr) == JVMTI_ERROR_NONE && sig.get())
            class_name = javaName(sig.get());
        if (jvmti->GetSourceFileName(declaring, file.out()) == JVMTI_ERROR_NONE && file.get())
            source = file.get();
    }
    {
        jint n = 0;
        JvmtiPtr<jvmtiLineNumberEntry> table(jvmti);
        if (jvmti->GetLineNumberTable(m, &n, table.out()) == JVMTI_ERROR_NONE) {
            for (jint i = 0; i < n; ++i)
                entry.lines.emplace_back(table[static_cast<size_t>(i)].start_location,
                                         table[static_cast<size_t>(i)].line_number);
            std::sort(entry.lines.begin(), entry.lines.end());
        }
    }
    const Method* result = nullptr;
    write([&](TraceWriter& w) {
        std::lock_guard define(define_mutex_);
        {
            std::lock_guard lock(methods_mutex_);
            auto it = methods_.find(m);
            if (it != methods_.end()) {
                result = &it->second;
                return;
            }
        }
        entry.id = ++next_method_;
        w.defineMethod(entry.id, class_name, name, signature, source);
        std::lock_guard lock(methods_mutex_);
        result = &methods_.emplace(m, std::move(entry)).first->second;
    });
    return result;
}

uint32_t SiteRegistry::methodOf(jvmtiEnv* jvmti, jmethodID m, const WithWriter& write) {
    const Method* e = method(jvmti, m, write);
    return e ? e->id : 0;
}

int32_t SiteRegistry::lineOf(jvmtiEnv* jvmti, jmethodID m, jlocation location, const WithWriter& write) {
    const Method* e = method(jvmti, m, write);
    if (!e || e->lines.empty() || location < 0) return -1;
    auto it = std::upper_bound(e->lines.begin(), e->lines.end(), std::make_pair(location, INT32_MAX));
    if (it == e->lines.begin()) return -1;
    return (it - 1)->second;
}

uint32_t SiteRegistry::siteOf(jvmtiEnv* jvmti, const jvmtiFrameInfo* frames, int count,
                              const WithWriter& write) {
    if (count <= 0) return 0;
    const uint64_t h = hash(frames, count);
    Shard& shard = shards_[h % kShards];
    {
        std::lock_guard lock(shard.mutex);
        if (uint32_t site = shard.find(h, frames, count)) return site;
    }
    // A new stack: its methods and lines first (they may call JVMTI), then the site.
    std::vector<Frame> resolved;
    for (int i = 0; i < count; ++i) {
        Frame f;
        f.method = methodOf(jvmti, frames[i].method, write);
        f.line = lineOf(jvmti, frames[i].method, frames[i].location, write);
        resolved.push_back(f);
    }
    uint32_t id = 0;
    write([&](TraceWriter& w) {
        std::lock_guard define(define_mutex_);
        std::lock_guard lock(shard.mutex);
        if ((id = shard.find(h, frames, count)) != 0) return;
        id = ++next_site_;
        w.defineSite(id, resolved);
        shard.insert(h, frames, count, id);
    });
    return id;
}

SiteRegistry::KeyedSite SiteRegistry::siteOfKey(const StackKey& key, uint32_t generation) {
    KeyShard& shard = key_shards_[key.hi % kShards];
    std::lock_guard lock(shard.mutex);
    const KeyedSite* known = shard.keys.find(key, generation);
    return known ? *known : KeyedSite{};
}

void SiteRegistry::rememberKey(const StackKey& key, uint32_t generation, KeyedSite site) {
    KeyShard& shard = key_shards_[key.hi % kShards];
    std::lock_guard lock(shard.mutex);
    shard.keys.put(key, generation, site);
}

}  // namespace memcity::agent
