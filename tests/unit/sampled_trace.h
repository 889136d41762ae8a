// A small sampled recording for the views' and the explorer's tests (format 2.0: its allocations
// are the JVM heap sampler's picks, one per 64 KiB on average, and each stands for 1/p objects of
// its size, heap/sampling.h). A shop over 12 GCs, with the collector's spaces after each GC but
// no reference snapshots (a sampled recording takes them only on request) and no addresses:
//   site 3 "com.shop.Checkout.run:42": per GC 4 com.shop.Order (48 B), 5 java.lang.String (24 B),
//       a byte[200000] and a byte[8192], all dead at the next GC (request data);
//   site 4 "com.shop.Audit.record:17": per GC 3 com.shop.AuditEntry (40 B) and 2
//       java.util.HashMap$Node (32 B) that never die (the leak);
//   site 1 "Main.run:10": 20 int[256] before GC 0 that never die (a cache).
// Types 1-5, sites 1-2 and threads are TraceBuilder's.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "unit/trace_builder.h"

namespace memcity::testing {

inline constexpr uint64_t kSampledShopInterval = 64 << 10;
inline constexpr uint32_t kSampledShopGcs = 12;
inline const std::string kSampledShopLeak = "com.shop.AuditEntry";

// Writes the trace to `path` (its name shows in titles: tests that compare pictures give a fixed
// one) and returns `path`.
inline std::string writeSampledShop(const std::string& path) {
    WriterOptions o;
    o.sampling_interval = kSampledShopInterval;
    TraceBuilder b("sampled-shop", o);
    TraceWriter& w = b.writer();
    using format::TypeKind;
    w.defineType(6, {"com.shop.Order", TypeKind::kInstance, 0, 48, 0, 0, 0});
    w.defineType(7, {"com.shop.AuditEntry", TypeKind::kInstance, 0, 40, 0, 0, 0});
    w.defineType(8, {"java.lang.String", TypeKind::kInstance, 0, 24, 0, 0, 0});
    w.defineType(9, {"byte[]", TypeKind::kPrimitiveArray, 0, 0, 16, 1, 0});
    w.defineType(10, {"java.util.HashMap$Node", TypeKind::kInstance, 0, 32, 0, 0, 0});
    w.defineMethod(3, "com.shop.Checkout", "run", "()V", "Checkout.java");
    w.defineMethod(4, "com.shop.Audit", "record", "()V", "Audit.java");
    const Frame checkout{3, 42}, audit{4, 17};
    w.defineSite(3, {&checkout, 1});
    w.defineSite(4, {&audit, 1});
    constexpr uint64_t kEden = 0x10000000, kEdenSize = 16 << 20, kOld = 0x20000000, kOldSize = 64 << 20;
    w.defineSpace(1, "Eden Space", kEden, kEdenSize);
    w.defineSpace(2, "Tenured Gen", kOld, kOldSize);

    uint64_t id = 1;
    for (int i = 0; i < 20; ++i)
        b.allocArray(id++, 3, 256, 1);
    std::vector<uint64_t> young;  // this epoch's request data, dead at the next GC
    for (uint32_t g = 0; g < kSampledShopGcs; ++g) {
        std::vector<uint64_t> dead = std::move(young);
        young.clear();
        for (int i = 0; i < 4; ++i) {
            young.push_back(id);
            b.alloc(id++, 6, 3);
        }
        for (int i = 0; i < 5; ++i) {
            young.push_back(id);
            b.alloc(id++, 8, 3, 2);
        }
        young.push_back(id);
        b.allocArray(id++, 9, 200000, 3, 2);
        young.push_back(id);
        b.allocArray(id++, 9, 8192, 3);
        for (int i = 0; i < 3; ++i)
            b.alloc(id++, 7, 4);
        for (int i = 0; i < 2; ++i)
            b.alloc(id++, 10, 4);
        b.gc(g, id, dead);
        const uint64_t old_top = kOld + ((6 + uint64_t{g} * 3) << 20);
        w.gcSpaces({g,
                    {{1, SpaceKind::kEden, kEden, kEden + (1 << 20), kEden + kEdenSize, kEden + kEdenSize},
                     {2, SpaceKind::kOld, kOld, old_top, kOld + kOldSize, old_top - (1 << 20)}}});
    }
    const std::string written = b.finish();
    std::filesystem::rename(written, path);
    return path;
}

}  // namespace memcity::testing
