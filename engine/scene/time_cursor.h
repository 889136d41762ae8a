// The time cursor: where in a tree series the views stand, as a fractional position moved only by
// explicit steps (advance, step, seek), never by a clock of its own, so that a frame at time t is
// the same picture every run (headless renders and tests step by a fixed dt).
//
// Time is *index time* over the GCs the series holds: t = 2.25 stands a quarter of the way from
// gcs()[2] to gcs()[3], whatever their GC numbers are. A series that holds every GC of its window
// has index time = GC number - firstGc(); a sparse one (include_gc, or classifiers that read
// references) plays its held GCs at an even pace instead of rushing over long gaps. gcTime()
// converts to the GC time that TreeSeries::valueAt takes (which interpolates between the two held
// GCs around it, linearly in GC number): valueAt(id, gcTime(t)) is the value a quarter of the way
// from one held GC to the next at t = i + 0.25, exactly what the city's tween shows.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace memcity {
class TreeSeries;
}

namespace memcity::scene {

// What happens when playing reaches an end of the series.
enum class PlayEnd : uint8_t {
    kStop,  // stay at the end and pause
    kLoop,  // continue from the other end
};

struct TimeCursorOptions {
    double speed = 2.0;  // GCs (index steps) per second while playing; negative plays backwards
    PlayEnd at_end = PlayEnd::kStop;
};

class TimeCursor {
public:
    // A cursor over `gcs` (the series' gcs(): GC numbers, ascending; may be empty, then t stays 0).
    // Starts at t = 0, paused.
    explicit TimeCursor(std::vector<uint32_t> gcs = {}, const TimeCursorOptions& options = {});
    // Over series.gcs().
    static TimeCursor over(const TreeSeries& series, const TimeCursorOptions& options = {});

    // Index time in [0, maxT()].
    double t() const { return t_; }
    double maxT() const { return gcs_.size() < 2 ? 0.0 : static_cast<double>(gcs_.size() - 1); }
    size_t gcCount() const { return gcs_.size(); }
    const std::vector<uint32_t>& gcs() const { return gcs_; }

    // The held GC at or before t (its index: floor(t)), the one after it (the same at the end),
    // and how far t is between them (0..1).
    size_t index() const;
    uint32_t gcBefore() const;
    uint32_t gcAfter() const;
    double fraction() const { return t_ - static_cast<double>(index()); }
    // t as GC time, for TreeSeries::valueAt: gcBefore() + fraction() * (gcAfter() - gcBefore()).
    double gcTime() const { return gcTimeOf(gcs_, t_); }
    static double gcTimeOf(const std::vector<uint32_t>& gcs, double t);
    // The index time of GC time `gc_time` (a GC number, or fractional: the timeline's scrub
    // position): exact for a held GC; between two held GCs, as far between their indices as it is
    // between their numbers; clamped to the series. The inverse of gcTime().
    double indexTimeOf(double gc_time) const;

    // Moves t by speed * dt_seconds when playing (nothing when paused); at an end it stops and
    // pauses, or loops (options.at_end). Returns whether t changed. Contract: dt_seconds >= 0.
    bool advance(double dt_seconds);
    void play();  // at the end (or the start, when playing backwards) with kStop: starts over
    void pause() { playing_ = false; }
    void togglePlay() { playing_ ? pause() : play(); }
    bool playing() const { return playing_; }
    void setSpeed(double gcs_per_second) { options_.speed = gcs_per_second; }
    double speed() const { return options_.speed; }

    // To the next / previous held GC (the integer index after / before t; from 2.25 next is 3 and
    // previous is 2), clamped at the ends; pauses. Return whether t changed.
    bool stepNext();
    bool stepPrevious();
    // Jumps to index time t (clamped to [0, maxT()]); keeps playing or paused.
    void seek(double t);
    // Jumps to GC number `gc` (indexTimeOf).
    void seekGc(uint32_t gc) { seek(indexTimeOf(static_cast<double>(gc))); }
    bool atStart() const { return t_ <= 0.0; }
    bool atEnd() const { return t_ >= maxT(); }

private:
    std::vector<uint32_t> gcs_;
    TimeCursorOptions options_;
    double t_ = 0.0;
    bool playing_ = false;
};

}  // namespace memcity::scene
