// Recorder, its allocation sites: read from the JVM's frames by stack key (StackWalker), or
// with GetStackTrace the first time a key is met, where a stack cannot be keyed, and to check.
#include <cstdio>

#include "recorder.h"

namespace memcity::agent {

uint32_t Recorder::siteFromJvmti(uint8_t* top) {
    jvmtiFrameInfo frames[256];
    jint count = 0;
    // The allocating thread is the current one: nullptr spares HotSpot resolving it through its
    // thread list on every call.
    if (jvmti_->GetStackTrace(nullptr, 0, static_cast<jint>(options_.depth), frames, &count) !=
        JVMTI_ERROR_NONE)
        count = 0;
    *top = 0;
    if (count > 0 && frames[0].method == clone_method_) *top |= SiteRegistry::kTopClone;
    return sites_.siteOf(jvmti_, frames, count, with_writer_);
}

uint32_t Recorder::siteOfStack(JNIEnv* jni, ThreadState& ts, uint8_t* top) {
    ThreadState::SiteCounts& counts = ts.site_counts;
    auto bump = [](std::atomic<uint64_t>& n) {
        n.store(n.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
    };
    if (!walker_on_.load(std::memory_order_acquire)) return siteFromJvmti(top);
    // Read before the walk: code freed while it ran moves the generation past its key's.
    const uint32_t generation = stack_generation_.load(std::memory_order_acquire);
    if (!ts.key_cache) {
        ts.key_cache = std::make_unique<ThreadState::KeyedSite[]>(ThreadState::kKeyCache);
        ts.blob_cache = std::make_unique<StackWalker::BlobCache>();
    }
    StackKey key;
    StackWalker::Miss miss{};
    if (!walker_->key(jni, options_.depth, ts.blob_cache.get(), generation, &key, &miss)) {
        bump(counts.unkeyed[static_cast<size_t>(miss)]);
        return siteFromJvmti(top);
    }
    ThreadState::KeyedSite& slot = ts.key_cache[key.lo % ThreadState::kKeyCache];
    SiteRegistry::KeyedSite known;
    if (slot.generation == generation && slot.key == key) {
        known = slot.site;
    } else if ((known = sites_.siteOfKey(key, generation)).site != 0) {
        slot = {key, generation, known};
    }
    if (known.site == 0) {
        // A stack not seen (in this generation): read once, remembered by its key.
        bump(counts.decoded);
        known.site = siteFromJvmti(&known.top);
        sites_.rememberKey(key, generation, known);
        slot = {key, generation, known};
        *top = known.top;
        return known.site;
    }
    bump(counts.cached);
    // Checked against GetStackTrace: every site in check mode, one in 4096 otherwise.
    const uint64_t cached = counts.cached.load(std::memory_order_relaxed);
    if (options_.sites == SiteMode::kCheck || cached % 4096 == 0) {
        bump(counts.checked);
        uint8_t exact_top = 0;
        const uint32_t exact = siteFromJvmti(&exact_top);
        if (exact != known.site) {
            bump(counts.mismatched);
            siteMismatch(known.site, exact);
            *top = exact_top;
            return exact;
        }
    }
    *top = known.top;
    return known.site;
}

void Recorder::siteMismatch(uint32_t keyed, uint32_t exact) {
    if (options_.sites != SiteMode::kCheck && walker_on_.exchange(false)) {
        std::fprintf(
            stderr,
            "memcity agent: a site read from the JVM's frames (site %u) differs from GetStackTrace's "
            "(site %u): sites are read with GetStackTrace from here on\n",
            keyed, exact);
        return;
    }
    if (mismatches_reported_.fetch_add(1) < 5)
        std::fprintf(stderr,
                     "memcity agent: check: site %u read from the JVM's frames, GetStackTrace says site %u\n",
                     keyed, exact);
}

std::string Recorder::siteSummary() {
    uint64_t cached = 0, decoded = 0, checked = 0, mismatched = 0;
    std::array<uint64_t, static_cast<size_t>(StackWalker::Miss::kCount)> unkeyed{};
    {
        std::lock_guard lock(threads_mutex_);
        for (const auto& ts : threads_) {
            const ThreadState::SiteCounts& c = ts->site_counts;
            cached += c.cached.load(std::memory_order_relaxed);
            decoded += c.decoded.load(std::memory_order_relaxed);
            checked += c.checked.load(std::memory_order_relaxed);
            mismatched += c.mismatched.load(std::memory_order_relaxed);
            for (size_t i = 0; i < unkeyed.size(); ++i)
                unkeyed[i] += c.unkeyed[i].load(std::memory_order_relaxed);
        }
    }
    if (!walker_) return "sites read with GetStackTrace (" + walker_off_ + ")";
    static constexpr const char* kMissNames[] = {"no Java frame", "unknown code", "deoptimized", "bad frame",
                                                 "too deep"};
    uint64_t unkeyed_all = 0;
    std::string misses;
    for (size_t i = 0; i < unkeyed.size(); ++i) {
        unkeyed_all += unkeyed[i];
        if (unkeyed[i])
            misses +=
                std::string(misses.empty() ? "" : ", ") + kMissNames[i] + " " + std::to_string(unkeyed[i]);
    }
    std::string s = "sites: " + std::to_string(cached) + " by stack key, " + std::to_string(decoded) +
                    " keys read with GetStackTrace, " + std::to_string(unkeyed_all) + " stacks not keyed" +
                    (misses.empty() ? "" : " (" + misses + ")") + "; " + std::to_string(checked) +
                    " checked against GetStackTrace, " + std::to_string(mismatched) + " differed";
    return s;
}

}  // namespace memcity::agent
