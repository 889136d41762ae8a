#include "scene/time_cursor.h"

#include <algorithm>
#include <cmath>

#include "classify/series.h"

namespace memcity::scene {

TimeCursor::TimeCursor(std::vector<uint32_t> gcs, const TimeCursorOptions& options)
    : gcs_(std::move(gcs)), options_(options) {}

TimeCursor TimeCursor::over(const TreeSeries& series, const TimeCursorOptions& options) {
    return TimeCursor(series.gcs(), options);
}

size_t TimeCursor::index() const {
    if (gcs_.empty()) return 0;
    const auto i = static_cast<size_t>(std::floor(t_));
    return std::min(i, gcs_.size() - 1);
}

uint32_t TimeCursor::gcBefore() const {
    return gcs_.empty() ? 0 : gcs_[index()];
}

uint32_t TimeCursor::gcAfter() const {
    if (gcs_.empty()) return 0;
    return gcs_[std::min(index() + 1, gcs_.size() - 1)];
}

double TimeCursor::gcTimeOf(const std::vector<uint32_t>& gcs, double t) {
    if (gcs.empty()) return 0.0;
    const double last = static_cast<double>(gcs.size() - 1);
    t = std::clamp(t, 0.0, last);
    const auto i = std::min(static_cast<size_t>(std::floor(t)), gcs.size() - 1);
    if (i + 1 >= gcs.size()) return gcs[i];
    const double f = t - static_cast<double>(i);
    return gcs[i] + f * (static_cast<double>(gcs[i + 1]) - static_cast<double>(gcs[i]));
}

double TimeCursor::indexTimeOf(double gc_time) const {
    if (gcs_.empty() || !(gc_time > gcs_.front())) return 0.0;
    if (gc_time >= gcs_.back()) return maxT();
    const auto next = std::upper_bound(gcs_.begin(), gcs_.end(), gc_time,
                                       [](double v, uint32_t g) { return v < static_cast<double>(g); });
    const auto i = static_cast<size_t>(next - gcs_.begin()) - 1;
    const double span = static_cast<double>(gcs_[i + 1]) - static_cast<double>(gcs_[i]);
    return static_cast<double>(i) + (gc_time - static_cast<double>(gcs_[i])) / span;
}

bool TimeCursor::advance(double dt_seconds) {
    if (!playing_ || dt_seconds <= 0.0) return false;
    const double before = t_, end = maxT();
    if (end <= 0.0) {
        playing_ = false;
        return false;
    }
    double t = t_ + options_.speed * dt_seconds;
    if (options_.at_end == PlayEnd::kLoop) {
        // Wrap into [0, end): the length of one loop is end index steps.
        t = std::fmod(t, end);
        if (t < 0) t += end;
    } else if (t >= end || t <= 0.0) {
        t = std::clamp(t, 0.0, end);
        playing_ = false;
    }
    t_ = t;
    return t_ != before;
}

void TimeCursor::play() {
    if (options_.at_end == PlayEnd::kStop) {
        if (options_.speed > 0 && atEnd()) t_ = 0.0;
        if (options_.speed < 0 && atStart()) t_ = maxT();
    }
    playing_ = maxT() > 0.0;
}

bool TimeCursor::stepNext() {
    playing_ = false;
    const double before = t_;
    t_ = std::min(std::floor(t_) + 1.0, maxT());
    return t_ != before;
}

bool TimeCursor::stepPrevious() {
    playing_ = false;
    const double before = t_;
    const double f = std::floor(t_);
    t_ = std::max(f < t_ ? f : f - 1.0, 0.0);
    return t_ != before;
}

void TimeCursor::seek(double t) {
    t_ = std::isfinite(t) ? std::clamp(t, 0.0, maxT()) : 0.0;
}

}  // namespace memcity::scene
