#include "heap/jvm_check.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <unordered_map>

#include "trace/trace_format.h"
#include "util/units.h"

namespace memcity {

namespace {

double relative(uint64_t value, uint64_t reference) {
    if (reference == 0) return 0;
    return (static_cast<double>(value) - static_cast<double>(reference)) / static_cast<double>(reference);
}

// |b| without overflow (INT64_MIN has no positive int64_t).
uint64_t magnitude(int64_t b) {
    return b < 0 ? uint64_t{0} - static_cast<uint64_t>(b) : static_cast<uint64_t>(b);
}

std::string signedBytes(int64_t b) {
    return (b < 0 ? "-" : "+") + formatBytes(magnitude(b));
}

int64_t clampToSigned(uint64_t v) {
    return v > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX : static_cast<int64_t>(v);
}

// acc += v, held at the ends of int64_t: census figures of a corrupt trace may be anything.
void addSaturating(int64_t& acc, int64_t v) {
    if (__builtin_add_overflow(acc, v, &acc)) acc = v < 0 ? INT64_MIN : INT64_MAX;
}

}  // namespace

int64_t JvmCheck::deadSpace() const {
    const uint64_t counted = jvm_bytes + agent_bytes < jvm_bytes ? UINT64_MAX : jvm_bytes + agent_bytes;
    return jvm_used_after >= counted ? clampToSigned(jvm_used_after - counted)
                                     : -clampToSigned(counted - jvm_used_after);
}

double JvmCheck::gap() const {
    return relative(live_bytes, expected());
}

double JvmCheck::usedGap() const {
    return relative(live_bytes, jvm_used_after);
}

JvmCheck checkAgainstJvm(const GcRecord& record, const HeapView& heap, const GcCensusEvent* census) {
    JvmCheck c;
    c.gc = record.index;
    c.jvm_used_after = record.vm_heap_after;
    c.live_bytes = record.live_bytes;
    if (!census) return c;
    c.has_census = true;
    // memcity's live heap by type name, less the JVM's count of each (objects the trace has and
    // objects it never saw alike). By name: a class has two types when it was first met before
    // it was prepared.
    const SymbolTable& sym = heap.symbols();
    std::unordered_map<std::string, TypeGap> gaps;
    heap.forEachLive([&](size_t pos) {
        TypeGap& g = gaps[sym.type(heap.type(pos)).name];
        g.objects += 1;
        g.bytes += static_cast<int64_t>(heap.size(pos));
    });
    for (const CensusType& t : census->types) {
        TypeGap& g = gaps[t.type ? sym.type(t.type).name : std::string()];
        addSaturating(g.objects, -clampToSigned(t.objects + t.untracked_objects));
        addSaturating(g.bytes, -clampToSigned(t.bytes + t.untracked_bytes));
        c.jvm_objects += t.objects + t.untracked_objects;
        c.jvm_bytes += t.bytes + t.untracked_bytes;
        c.untracked_bytes += t.untracked_bytes;
        c.agent_bytes += t.agent_bytes;
    }
    for (auto& [type, g] : gaps) {
        g.type = type;
        if (g.objects != 0 || g.bytes != 0) c.biggest.push_back(g);
    }
    std::sort(c.biggest.begin(), c.biggest.end(), [](const TypeGap& a, const TypeGap& b) {
        const uint64_t x = magnitude(a.bytes), y = magnitude(b.bytes);
        return x != y ? x > y : a.type < b.type;
    });
    if (c.biggest.size() > 5) c.biggest.resize(5);
    return c;
}

void settleJvmChecks(std::vector<JvmCheck>& checks) {
    int64_t least = -1;
    for (const JvmCheck& c : checks)
        if (c.has_census)
            least = least < 0 ? std::max<int64_t>(0, c.deadSpace()) : std::min(least, c.deadSpace());
    if (least <= 0) return;
    for (JvmCheck& c : checks)
        if (!c.has_census) c.assumed_dead_space = static_cast<uint64_t>(least);
}

JvmAgreement summarizeJvmChecks(const std::vector<JvmCheck>& checks) {
    JvmAgreement a;
    for (const JvmCheck& c : checks) {
        const bool first = a.full_gcs++ == 0;
        a.used_gap_min = first ? c.usedGap() : std::min(a.used_gap_min, c.usedGap());
        a.used_gap_max = first ? c.usedGap() : std::max(a.used_gap_max, c.usedGap());
        a.gap_min = first ? c.gap() : std::min(a.gap_min, c.gap());
        a.gap_max = first ? c.gap() : std::max(a.gap_max, c.gap());
        a.disagreeing += !c.agrees();
        if (c.has_census) {
            ++a.with_census;
            if (c.deadSpace() > a.dead_space) {
                a.dead_space = c.deadSpace();
                a.dead_space_gc = c.gc;
            }
        }
    }
    return a;
}

std::string describeJvmAgreement(const JvmAgreement& a, bool jvm_figures) {
    if (!jvm_figures)
        return "the trace has none of the JVM's own GC figures (recorded before format 1.1, or not by a JVM)";
    if (a.full_gcs == 0)
        return "no full GC to compare at (the JVM's figures of young GCs are in 'memcity gcs')";
    auto range = [](double lo, double hi) {
        char buf[64];
        if (std::abs(hi - lo) < 5e-5)
            std::snprintf(buf, sizeof buf, "%+.2f%%", lo * 100.0);
        else
            std::snprintf(buf, sizeof buf, "%+.2f%%..%+.2f%%", lo * 100.0, hi * 100.0);
        return std::string(buf);
    };
    std::string s = "live bytes at " + std::to_string(a.full_gcs) +
                    (a.full_gcs == 1 ? " full GC" : " full GCs") + " " +
                    range(a.used_gap_min, a.used_gap_max) + " from the JVM's used bytes after";
    if (a.with_census == a.full_gcs)
        s += ", " + range(a.gap_min, a.gap_max) + " from its count of live objects";
    else if (a.with_census)
        s += "; " + range(a.gap_min, a.gap_max) + " from its count of live objects (at " +
             std::to_string(a.with_census) + " of them)";
    if (a.dead_space > 0 && a.used_gap_min < -kJvmAgreementLimit)
        s += "; its used bytes also hold up to " + formatBytes(static_cast<uint64_t>(a.dead_space)) +
             " that are no objects (dead space, GC " + std::to_string(a.dead_space_gc) + ")";
    if (a.disagreeing)
        s += "; " + std::to_string(a.disagreeing) +
             (a.disagreeing == 1 ? " full GC differs" : " full GCs differ") + " by over 1%";
    return s;
}

std::string describeJvmCheck(const JvmCheck& c) {
    char pct[32];
    std::snprintf(pct, sizeof pct, "%+.2f%%", c.gap() * 100.0);
    std::string s = "GC " + std::to_string(c.gc) + ": memcity's live heap " + formatBytes(c.live_bytes);
    if (!c.has_census)
        return s + ", the JVM's used after " + formatBytes(c.jvm_used_after) +
               (c.assumed_dead_space ? " less the " + formatBytes(c.assumed_dead_space) +
                                           " of dead space it kept at every counted GC"
                                     : "") +
               " (" + pct + "); no class count was recorded at this GC";
    s += ", the JVM's count of live objects " + formatBytes(c.jvm_bytes) + " (" + pct + ")";
    if (c.untracked_bytes) s += ", of which the recorder never saw " + formatBytes(c.untracked_bytes);
    if (c.biggest.empty()) return s;
    s += "; by type, memcity less the JVM:";
    for (size_t i = 0; i < c.biggest.size() && i < 3; ++i) {
        const TypeGap& g = c.biggest[i];
        s += std::string(i ? "," : "") + " " +
             (g.type.empty() ? "(classes the trace does not name)" : g.type) + " " + signedBytes(g.bytes) +
             " (" + (g.objects < 0 ? "" : "+") + std::to_string(g.objects) + " objects)";
    }
    return s;
}

}  // namespace memcity
