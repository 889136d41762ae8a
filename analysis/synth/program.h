// Shared scaffolding of the SimHeap scenarios: the heap, the library, a seeded random source and
// the scenario's phases, which go into the trace's metadata as "synth.phase.NAME" = "FIRST..LAST"
// (GC indices) so tests and people can find them.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "synth/jdk.h"
#include "synth/sim_heap.h"
#include "synth/synth.h"

namespace memcity::synth {

// splitmix64: small, fast, and the same on every platform.
class Rng {
public:
    explicit Rng(uint64_t seed) : state_(seed) {}
    uint64_t next() {
        uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    // Uniform in [lo, hi].
    uint32_t range(uint32_t lo, uint32_t hi) {
        return lo + static_cast<uint32_t>(next() % (uint64_t{hi} - lo + 1));
    }

private:
    uint64_t state_;
};

struct Program {
    // `young_bytes`: the young generation of the simulated VM (allocation between minor GCs).
    Program(TraceWriter& out, const SynthOptions& o, std::string_view scenario, uint64_t young_bytes)
        : options(o), heap(out, simOptions(o, young_bytes)), jdk(heap), rng(o.seed) {
        out.meta("producer", "memcity synth");
        out.meta("synth.scenario", scenario);
        out.meta("synth.scale", std::to_string(o.scale));
        out.meta("synth.seed", std::to_string(o.seed));
        // SimHeap's snapshots list the objects its last GC marked from the roots.
        out.meta(format::kMetaSnapshots, format::kSnapshotsFromRoots);
    }
    // Phases: begin() before the phase's work, end() after it.
    void beginPhase(std::string name) {
        phases.push_back({std::move(name), static_cast<uint32_t>(heap.gcs().size()), 0});
    }
    void endPhase() { phases.back().last = static_cast<uint32_t>(heap.gcs().size()) - 1; }
    void expect(std::string_view key, uint64_t value) {
        heap.writer().meta("synth.expect." + std::string(key), std::to_string(value));
    }
    void finish() {
        heap.finish();
        for (const Phase& p : phases)
            heap.writer().meta("synth.phase." + p.name,
                               std::to_string(p.first) + ".." + std::to_string(p.last));
    }

    static SimOptions simOptions(const SynthOptions& o, uint64_t young_bytes) {
        SimOptions sim;
        sim.young_bytes = young_bytes;
        sim.refs_every = o.refs_every;
        sim.sampling_interval = o.writer.sampling_interval;
        sim.sampling_seed = o.seed;
        return sim;
    }

    struct Phase {
        std::string name;
        uint32_t first, last;
    };
    SynthOptions options;
    SimHeap heap;
    Jdk jdk;
    Rng rng;
    std::vector<Phase> phases;
};

// Scenario entry points (one file each).
Status runBuggyStack(TraceWriter& out, const SynthOptions& options);
Status runMultiCache(TraceWriter& out, const SynthOptions& options);
Status runGrowingMap(TraceWriter& out, const SynthOptions& options);
Status runChurn(TraceWriter& out, const SynthOptions& options);
Status runGcHotspot(TraceWriter& out, const SynthOptions& options);
Status runSteady(TraceWriter& out, const SynthOptions& options);
Status runBigHeap(TraceWriter& out, const SynthOptions& options);

}  // namespace memcity::synth
