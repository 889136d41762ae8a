// Sampled traces: what each recorded allocation stands for, and how sure an estimate built from
// them is.
//
// A sampled recording (docs/recorder.md, "Sampled recording") keeps only the allocations the JVM's
// heap sampler picks (JEP 331): each thread draws the distance in bytes to its next sample from an
// exponential distribution of mean `interval`, and the object whose bytes hold that point is
// reported. So the sample points fall on a thread's allocated bytes as a Poisson process, and an
// object of s bytes is recorded with probability
//
//     p(s) = 1 - exp(-s / interval),
//
// independently of every other (the estimator pprof's and async-profiler's heap profiles use).
// A recorded object then stands for 1/p(s) objects and s/p(s) bytes of its kind (Horvitz and
// Thompson's estimator: unbiased for any group of objects, since whether an object was recorded
// does not depend on what group it falls in or whether it is still alive). The variance of such
// a sum is estimated by summing (1 - p) / p^2 times the squared value over the recorded objects:
// small objects (p ~ s / interval) each add about interval^2 to the bytes', so a group of n
// samples is known to about 1 / sqrt(n); an object larger than the interval is nearly always
// recorded and adds almost nothing.
//
// The interval shown with an estimate is a 95% one: the sum is treated as a Poisson count of
// n_eff = estimate^2 / variance events, each worth estimate / n_eff, and Garwood's exact interval
// for that count is scaled back (a group of one sample: 0.025x to 5.6x its estimate; of 100
// samples: about +-20%; of 1,000: +-6%).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace memcity {

// An estimate with its 95% interval. exact: no sampling error (the interval is the value).
struct Estimate {
    double value = 0, low = 0, high = 0;
    bool exact = true;
};

// What one recorded object stands for.
struct SampleWeight {
    double objects = 0, bytes = 0;          // 1/p and s/p
    double var_objects = 0, var_bytes = 0;  // (1-p)/p^2 and (1-p) s^2/p^2
};

// Sums over a group of recorded objects: the estimate of its objects and bytes, how many samples
// it rests on, and its variance. A group's sums are its parts' added (a difference of two groups'
// estimates has no such sums: its variance is not theirs subtracted).
struct SampleSums {
    uint64_t samples = 0, sample_bytes = 0;  // the recorded objects themselves, and their bytes
    double objects = 0, bytes = 0;
    double var_objects = 0, var_bytes = 0;

    // A recorded object of `size` bytes that stands for `w`.
    void add(const SampleWeight& w, uint64_t size) {
        ++samples;
        sample_bytes += size;
        objects += w.objects;
        bytes += w.bytes;
        var_objects += w.var_objects;
        var_bytes += w.var_bytes;
    }
    SampleSums& operator+=(const SampleSums& o) {
        samples += o.samples;
        sample_bytes += o.sample_bytes;
        objects += o.objects;
        bytes += o.bytes;
        var_objects += o.var_objects;
        var_bytes += o.var_bytes;
        return *this;
    }
    // The estimates, rounded to whole objects and bytes (never below 0: sums that cancelled leave
    // rounding dust).
    uint64_t roundedObjects() const;
    uint64_t roundedBytes() const;
    Estimate objectsEstimate() const;
    Estimate bytesEstimate() const;
};

// A sampled trace's census GC: the JVM counted every type's objects and bytes right after it
// (GC_CENSUS, with the objects allocated since told apart), so the samples' weights are scaled
// type by type to those counts. A group of whole types (a type, a package, the whole heap) is
// then exact there; a part of a type (a site of it) keeps its estimate's spread, scaled alike
// (a ratio estimator's spread is at most that). A type the census did not list, or could not
// tell from dead space (before JDK 19 HotSpot formats dead space as int[] and java.lang.Object:
// the census counts their unsampled objects with the fillers), keeps its estimate.
struct SampleCalibration {
    struct Factor {
        uint32_t type = 0;
        double objects = 1, bytes = 1;  // on a sample's weight in objects and in bytes
        bool counted = false;           // the census counted the type: scaled, exact as a whole
    };
    uint32_t gc = 0;
    std::vector<Factor> factors;  // by type, ascending: each type with a live sample at the GC
    // Every type with a live sample was counted: the whole heap is exact.
    bool complete = true;
    // What the census counted of types no live sample stands for: exact figures that no group
    // below the whole heap can show.
    uint64_t unsampled_types = 0;
    uint64_t unsampled_objects = 0, unsampled_bytes = 0;
    // Every type's count together: the heap at the GC, exactly (when complete).
    uint64_t census_objects = 0, census_bytes = 0;

    const Factor* find(uint32_t type) const;
    bool counted(uint32_t type) const {
        const Factor* f = find(type);
        return f && f->counted;
    }
    // Scales a weight of a sample of type `type`.
    SampleWeight apply(SampleWeight w, uint32_t type) const {
        if (const Factor* f = find(type)) {
            w.objects *= f->objects;
            w.bytes *= f->bytes;
            w.var_objects *= f->objects * f->objects;
            w.var_bytes *= f->bytes * f->bytes;
        }
        return w;
    }
};

// The law the recording sampled by: a trace's interval (TraceHeader::sampling_interval).
class SampleModel {
public:
    // `interval`: the mean sampling interval in bytes; 0 makes an exact model (every object
    // recorded, weight 1, no variance), which sampled() tells apart.
    explicit SampleModel(uint64_t interval = 0);

    uint64_t interval() const { return interval_; }
    bool sampled() const { return interval_ != 0; }
    // Probability that an object of `size` bytes is recorded.
    double probability(uint64_t size) const;
    // What a recorded object of `size` bytes stands for (an object of 0 bytes counts as one).
    SampleWeight weigh(uint64_t size) const;

private:
    SampleWeight compute(uint64_t size) const;
    static constexpr size_t kCached = 1024;  // weights of sizes below, by size / 8
    uint64_t interval_;
    std::array<SampleWeight, kCached> cache_{};
};

inline constexpr double kConfidence = 0.95;
// The standard normal quantile of kConfidence's two-sided interval (1.96).
inline constexpr double kConfidenceZ = 1.959963984540054;
// The interval for an estimated `value` with `variance` (see the file comment); exact when the
// variance is 0.
Estimate estimate(double value, double variance);
// Garwood's two-sided interval for a Poisson mean after observing `count` events (real-valued),
// at kConfidence: {low, high}.
std::array<double, 2> poissonInterval(double count);

// "≈ 1.2 MiB (0.9–1.6 MiB)" / "≈ 12,400 (10,100–15,000)": an estimate as every text view shows it,
// "= 1.2 MiB" where it is exact (a census counted it); `bytes` picks the unit.
std::string formatEstimate(const Estimate& e, bool bytes);
// The same without the interval: "≈ 1.2 MiB", "= 1.2 MiB".
std::string formatEstimateValue(const Estimate& e, bool bytes);

}  // namespace memcity
