#include "heap/sampling.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "util/units.h"

namespace memcity {
namespace {

uint64_t roundedNonNegative(double v) {
    if (!(v > 0.5)) return 0;
    if (v >= 1.8e19) return std::numeric_limits<uint64_t>::max();
    return static_cast<uint64_t>(std::llround(v));
}

// The regularized lower incomplete gamma function P(a, x): a series where x < a + 1, Legendre's
// continued fraction (evaluated by Lentz's method) elsewhere.
double gammaP(double a, double x) {
    if (x <= 0) return 0;
    const double log_prefix = a * std::log(x) - x - std::lgamma(a);
    if (x < a + 1) {
        double term = 1 / a, sum = term;
        for (int n = 1; n < 1000; ++n) {
            term *= x / (a + n);
            sum += term;
            if (std::fabs(term) < std::fabs(sum) * 1e-15) break;
        }
        return std::min(1.0, sum * std::exp(log_prefix));
    }
    constexpr double kTiny = 1e-300;
    double b = x + 1 - a, c = 1 / kTiny, d = 1 / b, h = d;
    for (int i = 1; i < 1000; ++i) {
        const double an = -i * (i - a);
        b += 2;
        d = an * d + b;
        if (std::fabs(d) < kTiny) d = kTiny;
        c = b + an / c;
        if (std::fabs(c) < kTiny) c = kTiny;
        d = 1 / d;
        const double step = d * c;
        h *= step;
        if (std::fabs(step - 1) < 1e-15) break;
    }
    return std::max(0.0, 1 - std::exp(log_prefix) * h);
}

// The x with P(a, x) = q: bisection on a bracket that doubles until it holds it (P rises in x).
double gammaQuantile(double a, double q) {
    double lo = 0, hi = std::max(1.0, 2 * a);
    while (gammaP(a, hi) < q)
        hi *= 2;
    for (int i = 0; i < 80 && hi - lo > 1e-12 * hi; ++i) {
        const double mid = (lo + hi) / 2;
        (gammaP(a, mid) < q ? lo : hi) = mid;
    }
    return (lo + hi) / 2;
}

}  // namespace

uint64_t SampleSums::roundedObjects() const {
    return roundedNonNegative(objects);
}

uint64_t SampleSums::roundedBytes() const {
    return roundedNonNegative(bytes);
}

// No sample behind a zero: none was picked, which says nothing exact (a census's zero has no
// sums at all).
Estimate SampleSums::objectsEstimate() const {
    if (samples == 0 && objects == 0) return {0, 0, 0, false};
    return estimate(objects, var_objects);
}

Estimate SampleSums::bytesEstimate() const {
    if (samples == 0 && bytes == 0) return {0, 0, 0, false};
    return estimate(bytes, var_bytes);
}

const SampleCalibration::Factor* SampleCalibration::find(uint32_t type) const {
    auto it = std::lower_bound(factors.begin(), factors.end(), type,
                               [](const Factor& f, uint32_t t) { return f.type < t; });
    return it != factors.end() && it->type == type ? &*it : nullptr;
}

SampleModel::SampleModel(uint64_t interval) : interval_(interval) {
    for (size_t i = 0; i < kCached; ++i) {
        const uint64_t size = i * 8;
        if (interval == 0) continue;
        cache_[i] = compute(size);
    }
}

double SampleModel::probability(uint64_t size) const {
    if (interval_ == 0) return 1;
    const double s = static_cast<double>(std::max<uint64_t>(size, 1));
    return -std::expm1(-s / static_cast<double>(interval_));
}

SampleWeight SampleModel::compute(uint64_t size) const {
    const double p = probability(size);
    const double s = static_cast<double>(std::max<uint64_t>(size, 1));
    // An object far larger than the interval is picked with p = 1 in doubles: its own estimate
    // has no spread, but a group it is in may hold smaller objects no sample was drawn from. A
    // floor keeps every sampled group's variance above 0, so that only a census makes it exact.
    const double miss = std::max(1 - p, 1e-12);
    return {1 / p, s / p, miss / (p * p), miss * s * s / (p * p)};
}

SampleWeight SampleModel::weigh(uint64_t size) const {
    if (interval_ == 0) return {1, static_cast<double>(size), 0, 0};
    if ((size & 7) == 0 && size / 8 < kCached) return cache_[size / 8];
    return compute(size);
}

namespace {

// The q quantile of the chi-square distribution with k degrees of freedom, by Wilson and
// Hilferty's cube-root normal approximation (good to 0.1% from k = 200 on).
double chiSquareQuantile(double k, double z) {
    const double c = 2 / (9 * k);
    const double t = 1 - c + z * std::sqrt(c);
    return k * t * t * t;
}

}  // namespace

std::array<double, 2> poissonInterval(double count) {
    const double tail = (1 - kConfidence) / 2;
    count = std::max(count, 0.0);
    // Garwood's bounds are chi-square quantiles with 2n and 2n + 2 degrees of freedom, halved:
    // exact (gamma quantiles) for few events, approximated for many (and cheap: a table row each).
    if (count >= 100)
        return {chiSquareQuantile(2 * count, -kConfidenceZ) / 2,
                chiSquareQuantile(2 * count + 2, kConfidenceZ) / 2};
    const double low = count <= 0 ? 0 : gammaQuantile(count, tail);
    const double high = gammaQuantile(count + 1, 1 - tail);
    return {low, high};
}

Estimate estimate(double value, double variance) {
    value = std::max(value, 0.0);
    if (!(variance > 0) || value <= 0) return {value, value, value, true};
    // A Poisson count of n events of equal worth has this mean and variance.
    const double n = value * value / variance;
    const std::array<double, 2> count = poissonInterval(n);
    const double worth = value / n;
    return {value, count[0] * worth, count[1] * worth, false};
}

std::string formatEstimateValue(const Estimate& e, bool bytes) {
    const std::string whole = formatEstimate(e, bytes);
    return whole.substr(0, whole.find(" ("));
}

std::string formatEstimate(const Estimate& e, bool bytes) {
    // Counts to three significant digits where they are estimates: 12,437 reads 12,400.
    auto fmt = [&](double v) {
        uint64_t n = roundedNonNegative(v);
        if (!e.exact && !bytes) {
            uint64_t unit = 1;
            while (n / unit >= 1000)
                unit *= 10;
            n = (n + unit / 2) / unit * unit;
        }
        return bytes ? formatBytes(n) : formatCount(n);
    };
    // Exact in a sampled trace: counted by a census (or an object no sample can miss).
    if (e.exact) return "= " + fmt(e.value);
    if (e.high <= 0) return "\u2248 " + fmt(0);  // no sample: nothing seen
    // "157.2–175.2 MiB" where both ends have one unit, "79.2 KiB–1.1 MiB" where they do not.
    std::string low = fmt(e.low), high = fmt(e.high);
    const size_t space = high.rfind(' ');
    if (bytes && space != std::string::npos && low.size() > space && low.ends_with(high.substr(space)))
        low.resize(low.size() - (high.size() - space));
    return "\u2248 " + fmt(e.value) + " (" + low + "\u2013" + high + ")";
}

}  // namespace memcity
