#include "synth/synth.h"

#include <array>
#include <stdexcept>

#include "synth/program.h"

namespace memcity::synth {
namespace {

struct Entry {
    ScenarioInfo info;
    Status (*run)(TraceWriter&, const SynthOptions&);
};

const std::array<Entry, 7> kScenarios = {{
    {{"buggy-stack", "a stack whose pop keeps references: popped objects never die (ICPE18 §5.3)"},
     runBuggyStack},
    {{"multi-cache", "products held by two static maps: shared ownership (ManLang18 §5.1)"}, runMultiCache},
    {{"growing-map", "a cache whose key lacks equals/hashCode grows with every request (STAG20 §7.2)"},
     runGrowingMap},
    {{"churn", "a burst of short-lived boxed values and lambdas between calm phases"}, runChurn},
    {{"gc-hotspot", "a phase in which most young objects survive, making GC pauses long"}, runGcHotspot},
    {{"steady", "a server with a bounded cache and weakly held sessions: no leak"}, runSteady},
    {{"big-heap", "tens of millions of objects with drawn lifetimes: the benchmark workload"}, runBigHeap},
}};

}  // namespace

std::span<const ScenarioInfo> scenarios() {
    static const std::array<ScenarioInfo, kScenarios.size()> infos = [] {
        std::array<ScenarioInfo, kScenarios.size()> a{};
        for (size_t i = 0; i < kScenarios.size(); ++i)
            a[i] = kScenarios[i].info;
        return a;
    }();
    return infos;
}

bool isScenario(std::string_view name) {
    for (const Entry& e : kScenarios)
        if (e.info.name == name) return true;
    return false;
}

Status synthesize(std::string_view name, const std::string& path, const SynthOptions& options) {
    const Entry* entry = nullptr;
    for (const Entry& e : kScenarios)
        if (e.info.name == name) entry = &e;
    if (!entry) return Error{"unknown scenario '" + std::string(name) + "'"};
    if (options.scale == 0) return Error{"--scale must be at least 1"};
    auto writer = TraceWriter::create(path, options.writer);
    if (!writer) return writer.error();
    try {
        if (Status s = entry->run(**writer, options); !s) return s;
    } catch (const std::exception& e) {
        return Error{"scenario " + std::string(name) + " failed: " + e.what()};
    }
    return (*writer)->close();
}

}  // namespace memcity::synth
