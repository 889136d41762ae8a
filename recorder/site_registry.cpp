#include "site_registry.h"

#include <algorithm>

#include "jvmti_util.h"
#include "trace/symbols.h"
#include "trace/trace_writer.h"

namespace memcity::agent {

size_t SiteRegistry::StackHash::operator()(const StackKey& k) const {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (const auto& [m, loc] : k.frames) {
        h ^= reinterpret_cast<uintptr_t>(m) + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
        h ^= static_cast<uint64_t>(loc) * 0xff51afd7ed558ccdull;
        h = (h << 17) | (h >> 47);
    }
    return static_cast<size_t>(h);
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
    StackKey key;
    key.frames.reserve(static_cast<size_t>(count));
    for (int i = 0; i < count; ++i)
        key.frames.emplace_back(frames[i].method, frames[i].location);
    Shard& shard = shards_[StackHash{}(key) % kShards];
    {
        std::lock_guard lock(shard.mutex);
        auto it = shard.sites.find(key);
        if (it != shard.sites.end()) return it->second;
    }
    // A new stack: its methods and lines first (they may call JVMTI), then the site.
    std::vector<Frame> resolved;
    for (const auto& [m, loc] : key.frames) {
        Frame f;
        f.method = methodOf(jvmti, m, write);
        f.line = lineOf(jvmti, m, loc, write);
        resolved.push_back(f);
    }
    uint32_t id = 0;
    write([&](TraceWriter& w) {
        std::lock_guard define(define_mutex_);
        std::lock_guard lock(shard.mutex);
        auto it = shard.sites.find(key);
        if (it != shard.sites.end()) {
            id = it->second;
            return;
        }
        id = ++next_site_;
        w.defineSite(id, resolved);
        shard.sites.emplace(std::move(key), id);
    });
    return id;
}

}  // namespace memcity::agent
