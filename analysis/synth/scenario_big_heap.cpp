// big-heap: the benchmark workload. A program with 8 threads, 32 types and 512 allocation sites
// allocates 1,000,000 x scale objects, 200,000 between two GCs. Each object draws its lifetime:
// 65% die at the next GC, 10% live 2..30 GCs, 25% live to the end. At scale 40 that is
// 40 million allocations, about 30 million deaths and over 10 million live objects at the end.
//
// Reference snapshots are taken at every (25 x refs_every)-th GC and at the last: each live
// object is reached from an older one (a forest hanging off 4,096 static roots), half of them
// also reference a second, older object.
#include <algorithm>
#include <array>
#include <deque>

#include "synth/program.h"

namespace memcity::synth {
namespace {

struct TypeSpec {
    const char* name;
    format::TypeKind kind;
    uint32_t size;     // instances
    uint32_t element;  // arrays: bytes per element
    uint32_t weight;   // relative allocation frequency
};

constexpr std::array<TypeSpec, 32> kTypes = {{
    {"java.lang.String", format::TypeKind::kInstance, 24, 0, 120},
    {"byte[]", format::TypeKind::kPrimitiveArray, 0, 1, 120},
    {"java.lang.Object[]", format::TypeKind::kReferenceArray, 0, 4, 40},
    {"java.util.HashMap$Node", format::TypeKind::kInstance, 32, 0, 60},
    {"java.util.HashMap", format::TypeKind::kInstance, 48, 0, 8},
    {"java.util.HashMap$Node[]", format::TypeKind::kReferenceArray, 0, 4, 8},
    {"java.util.ArrayList", format::TypeKind::kInstance, 24, 0, 30},
    {"java.lang.Integer", format::TypeKind::kInstance, 16, 0, 50},
    {"java.lang.Long", format::TypeKind::kInstance, 24, 0, 20},
    {"int[]", format::TypeKind::kPrimitiveArray, 0, 4, 25},
    {"long[]", format::TypeKind::kPrimitiveArray, 0, 8, 10},
    {"char[]", format::TypeKind::kPrimitiveArray, 0, 2, 10},
    {"java.util.concurrent.ConcurrentHashMap$Node", format::TypeKind::kInstance, 32, 0, 12},
    {"java.lang.StringBuilder", format::TypeKind::kInstance, 24, 0, 15},
    {"java.util.LinkedHashMap$Entry", format::TypeKind::kInstance, 40, 0, 10},
    {"java.util.TreeMap$Entry", format::TypeKind::kInstance, 40, 0, 6},
    {"java.lang.invoke.LambdaForm$MH", format::TypeKind::kInstance, 16, 0, 4},
    {"org.h2.value.ValueInt", format::TypeKind::kInstance, 16, 0, 30},
    {"org.h2.value.ValueString", format::TypeKind::kInstance, 24, 0, 20},
    {"org.h2.result.Row", format::TypeKind::kInstance, 32, 0, 20},
    {"org.h2.value.Value[]", format::TypeKind::kReferenceArray, 0, 4, 20},
    {"org.h2.mvstore.Page$Leaf", format::TypeKind::kInstance, 48, 0, 4},
    {"org.h2.mvstore.Page$NonLeaf", format::TypeKind::kInstance, 48, 0, 1},
    {"org.h2.command.dml.Select", format::TypeKind::kInstance, 96, 0, 2},
    {"org.h2.expression.ExpressionColumn", format::TypeKind::kInstance, 40, 0, 6},
    {"org.h2.table.Column", format::TypeKind::kInstance, 72, 0, 1},
    {"java.util.Date", format::TypeKind::kInstance, 24, 0, 3},
    {"java.math.BigDecimal", format::TypeKind::kInstance, 40, 0, 3},
    {"java.lang.ref.WeakReference", format::TypeKind::kInstance, 32, 0, 2},
    {"java.nio.HeapByteBuffer", format::TypeKind::kInstance, 48, 0, 2},
    {"java.util.Optional", format::TypeKind::kInstance, 16, 0, 4},
    {"java.lang.Object", format::TypeKind::kInstance, 16, 0, 4},
}};

constexpr uint32_t kSites = 512, kMethods = 160, kThreads = 8, kRoots = 4096;
constexpr uint32_t kPerGc = 200'000;

uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    return x;
}

}  // namespace

Status runBigHeap(TraceWriter& out, const SynthOptions& options) {
    const uint64_t total = 1'000'000ull * options.scale;
    const uint32_t snapshot_every = options.refs_every == 0 ? 0 : 25 * options.refs_every;
    Rng rng(options.seed);
    out.meta("producer", "memcity synth");
    out.meta("synth.scenario", "big-heap");
    out.meta("synth.scale", std::to_string(options.scale));
    out.meta("synth.seed", std::to_string(options.seed));

    // Symbols.
    std::vector<uint32_t> weights;
    for (uint32_t t = 0; t < kTypes.size(); ++t) {
        TypeDef d;
        d.name = kTypes[t].name;
        d.kind = kTypes[t].kind;
        d.instance_size = kTypes[t].size;
        if (d.kind != format::TypeKind::kInstance) {
            d.array_header = 16;
            d.element_size = kTypes[t].element;
        }
        out.defineType(t + 1, d);
        for (uint32_t w = 0; w < kTypes[t].weight; ++w)
            weights.push_back(t + 1);
    }
    for (uint32_t m = 1; m <= kMethods; ++m)
        out.defineMethod(m, "org.example.app.Module" + std::to_string(m % 23), "method" + std::to_string(m),
                         "()V", "Module" + std::to_string(m % 23) + ".java");
    for (uint32_t s = 1; s <= kSites; ++s) {
        std::vector<Frame> frames;
        for (uint32_t f = 0, n = 1 + static_cast<uint32_t>(mix(s) % 8); f < n; ++f)
            frames.push_back({1 + static_cast<uint32_t>(mix(s * 31 + f) % kMethods),
                              static_cast<int32_t>(10 + mix(s + f) % 400)});
        out.defineSite(s, frames);
    }
    for (uint32_t t = 1; t <= kThreads; ++t)
        out.defineThread(t, "worker-" + std::to_string(t));
    out.defineString(1, "Allocation Failure");
    out.defineField(1, 0, "INSTANCE", "java.lang.Object", format::kFieldStatic | format::kFieldReference);
    for (uint32_t t = 1; t <= kThreads; ++t)
        out.threadStart({t, 0});

    // Each type allocates from its own handful of sites.
    auto siteOf = [&](uint32_t type, uint64_t r) {
        return 1 + static_cast<uint32_t>((type * 16 + r % 16) % kSites);
    };
    auto sizeOf = [&](uint32_t type, uint64_t length) -> uint64_t {
        const TypeSpec& t = kTypes[type - 1];
        if (t.kind == format::TypeKind::kInstance) return t.size;
        return (16 + length * t.element + 7) & ~uint64_t{7};
    };

    std::deque<std::vector<uint64_t>> deaths;  // deaths[k]: ids that die at GC (current + k)
    std::vector<uint64_t> immortal;
    int64_t now = 0;
    uint64_t live_bytes = 0, allocated_since = 0;
    uint32_t gc = 0;
    uint64_t id = 0;

    auto snapshot = [&](uint32_t at_gc) {
        std::vector<uint64_t> live = immortal;
        for (const auto& bucket : deaths)
            live.insert(live.end(), bucket.begin(), bucket.end());
        std::sort(live.begin(), live.end());
        const size_t n = live.size();
        // Children per parent, as a CSR (counting sort by parent index).
        auto parentOf = [&](size_t j) { return j - 1 - mix(j) % std::min<size_t>(j, 64); };
        std::vector<uint32_t> start(n + 1, 0);
        for (size_t j = kRoots; j < n; ++j)
            start[parentOf(j) + 1]++;
        for (size_t j = 0; j < n; ++j)
            start[j + 1] += start[j];
        std::vector<uint32_t> child(start[n]);
        std::vector<uint32_t> fill(start.begin(), start.end() - 1);
        for (size_t j = kRoots; j < n; ++j)
            child[fill[parentOf(j)]++] = static_cast<uint32_t>(j);
        out.beginSnapshot(at_gc);
        std::vector<Edge> edges;
        for (size_t j = 0; j < n; ++j) {
            edges.clear();
            for (uint32_t k = start[j]; k < start[j + 1]; ++k)
                edges.push_back({live[child[k]], 0, 0});
            if (j > 0 && mix(j * 7) % 2 == 0)
                edges.push_back({live[j - 1 - mix(j * 13) % std::min<size_t>(j, 4096)], 0, 0});
            if (!edges.empty()) out.snapshotObject(live[j], edges);
        }
        for (size_t r = 0; r < std::min<size_t>(kRoots, n); ++r)
            out.snapshotRoot(Root::make(static_cast<uint32_t>(format::RootKind::kStaticField), live[r],
                                        {1 + mix(r) % kTypes.size(), 1}));
        out.endSnapshot();
    };

    auto collect = [&](bool last) {
        GcStartEvent s{gc, static_cast<uint8_t>(format::GcKind::kMinor), 1, now};
        out.gcStart(s);
        std::vector<uint64_t> dying = deaths.empty() ? std::vector<uint64_t>{} : std::move(deaths.front());
        if (!deaths.empty()) deaths.pop_front();
        // The VM's own figures are estimates here: only the sizes of immortal objects are kept.
        uint64_t before = live_bytes + allocated_since;
        int64_t pause = 200'000 + static_cast<int64_t>(dying.size() / 100);
        now += pause;
        GcEndEvent e{gc, now, id, before, live_bytes, 2 * before, static_cast<uint64_t>(pause)};
        out.gcEnd(e);
        out.deaths(gc, dying);
        if (snapshot_every != 0 && (gc % snapshot_every == snapshot_every - 1 || last)) snapshot(gc);
        allocated_since = 0;
        ++gc;
    };

    for (uint64_t i = 0; i < total; ++i) {
        uint64_t r = rng.next();
        uint32_t type = weights[r % weights.size()];
        AllocEvent a;
        a.id = id++;
        a.type = type;
        a.site = siteOf(type, r >> 20);
        a.thread = 1 + static_cast<uint32_t>((i / 64) % kThreads);
        if (kTypes[type - 1].kind != format::TypeKind::kInstance) {
            uint64_t l = (r >> 32) % 100;
            a.length = l < 90   ? 4 + (r >> 40) % 60
                       : l < 99 ? 64 + (r >> 40) % 4000
                                : 60'000 + (r >> 40) % 100'000;
        }
        a.time_ns = now;
        out.alloc(a);
        uint64_t size = sizeOf(type, a.length == kNoLength ? 0 : a.length);
        now += 40 + static_cast<int64_t>(size / 64);
        allocated_since += size;
        uint64_t fate = (r >> 8) % 100;
        if (fate < 65) {
            if (deaths.empty()) deaths.emplace_back();
            deaths[0].push_back(a.id);
        } else if (fate < 75) {
            size_t k = 1 + (r >> 16) % 29;
            while (deaths.size() <= k)
                deaths.emplace_back();
            deaths[k].push_back(a.id);
        } else {
            immortal.push_back(a.id);
            live_bytes += size;
        }
        if ((i + 1) % kPerGc == 0) collect(i + 1 == total);
    }
    if (total % kPerGc != 0) collect(true);
    for (uint32_t t = 1; t <= kThreads; ++t)
        out.threadEnd({t, now});
    out.meta("synth.expect.allocations", std::to_string(total));
    out.meta("synth.expect.immortal", std::to_string(immortal.size()));
    return {};
}

}  // namespace memcity::synth
