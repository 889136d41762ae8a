#include "heap/replayer.h"

#include "heap/heap_map.h"

#include <algorithm>
#include <optional>
#include <sstream>
#include <unordered_map>

namespace memcity {

Replayer::Replayer(const TraceFile& trace, HistoryData& data, Mode mode)
    : trace_(trace),
      symbols_(trace.symbols()),
      data_(data),
      mode_(mode),
      alignment_(trace.header().object_alignment) {}

template <class... Parts>
void Replayer::anomaly(Anomaly a, size_t offset, const Parts&... parts) {
    if (!build()) return;
    data_.diagnostics.add(a, [&] {
        std::ostringstream os;
        (os << ... << parts);
        return trace_.describe(chunk_, offset, os.str());
    });
}

void Replayer::count(format::EventKind k, int64_t t) {
    if (!build()) return;
    EventCounts& c = data_.counts;
    ++c.by_kind[static_cast<size_t>(k)];
    if (!c.any_time) {
        c.first_time_ns = c.last_time_ns = t;
        c.any_time = true;
    } else {
        c.first_time_ns = std::min(c.first_time_ns, t);
        c.last_time_ns = std::max(c.last_time_ns, t);
    }
}

uint32_t Replayer::epochOf(uint64_t id) const {
    const auto& w = data_.watermarks;
    auto end = w.begin() + s_.gcs_ended;
    return static_cast<uint32_t>(std::upper_bound(w.begin(), end, id) - w.begin());
}

Status Replayer::applyChunk(size_t index, std::vector<uint8_t>& scratch) {
    chunk_ = index;
    auto p = trace_.payload(index, scratch);
    if (!p) return p.error();
    DecodeStatus st = decodeEvents(*p, symbols_, alignment_, *this);
    flushDeaths();
    if (!fatal_.empty()) return Error{fatal_};
    if (!st.ok) return trace_.errorAt(index, st.offset, st.message);
    return {};
}

namespace {

struct BatchDecoder : EventVisitorBase {
    ShapeTable& shapes;
    EventBatch& batch;
    BatchDecoder(ShapeTable& s, EventBatch& b) : shapes(s), batch(b) {}

    EventRecord& add(format::EventKind kind, size_t offset) {
        EventRecord& r = batch.records.emplace_back();
        r.kind = static_cast<uint8_t>(kind);
        r.offset = static_cast<uint32_t>(offset);
        return r;
    }
    void onAlloc(const AllocEvent& e, size_t offset) {
        EventRecord& r =
            add(e.isArray() ? format::EventKind::kAllocArray : format::EventKind::kAlloc, offset);
        r.id = e.id;
        r.a = e.length;
        r.b = e.size;
        r.time = e.time_ns;
        r.c = shapes.intern({e.type, e.site, e.thread, e.isArray() ? 0u : static_cast<uint32_t>(e.size)});
        r.type = e.type;
    }
    void onDeath(uint32_t gc, uint64_t id, size_t offset) {
        EventRecord& r = add(format::EventKind::kDeaths, offset);
        r.id = id;
        r.c = gc;
    }
    bool onGcStart(const GcStartEvent& e, size_t offset) {
        add(format::EventKind::kGcStart, offset).a = batch.starts.size();
        batch.starts.push_back(e);
        return true;
    }
    bool onGcEnd(const GcEndEvent& e, size_t offset) {
        add(format::EventKind::kGcEnd, offset).a = batch.ends.size();
        batch.ends.push_back(e);
        return true;
    }
    void onThreadStart(const ThreadEvent& e, size_t offset) {
        EventRecord& r = add(format::EventKind::kThreadStart, offset);
        r.c = e.thread;
        r.time = e.time_ns;
    }
    void onThreadEnd(const ThreadEvent& e, size_t offset) {
        EventRecord& r = add(format::EventKind::kThreadEnd, offset);
        r.c = e.thread;
        r.time = e.time_ns;
    }
    void onMove(const MoveEvent& e, size_t offset) {
        EventRecord& r = add(format::EventKind::kMove, offset);
        r.id = e.id;
        r.a = e.address;
    }
    void onExtension(uint32_t ext, std::span<const uint8_t> data, size_t offset) {
        EventRecord& r = add(format::EventKind::kExtension, offset);
        r.c = ext;
        r.a = batch.extensions.size();
        batch.extensions.emplace_back(data.begin(), data.end());
    }
};

}  // namespace

Status decodeBatch(const TraceFile& trace, size_t chunk, ShapeTable& shapes, std::vector<uint8_t>& scratch,
                   EventBatch* batch) {
    batch->clear();
    batch->chunk = chunk;
    auto p = trace.payload(chunk, scratch);
    if (!p) return p.error();
    // The header's event count is only a hint (and untrusted): an event takes at least one byte.
    batch->records.reserve(std::min<size_t>(trace.chunks()[chunk].meta, p->size()));
    BatchDecoder d(shapes, *batch);
    DecodeStatus st = decodeEvents(*p, trace.symbols(), trace.header().object_alignment, d);
    if (!st.ok) return trace.errorAt(chunk, st.offset, st.message);
    return {};
}

Status Replayer::applyBatch(const EventBatch& batch) {
    using format::EventKind;
    chunk_ = batch.chunk;
    for (const EventRecord& r : batch.records) {
        switch (static_cast<EventKind>(r.kind)) {
            case EventKind::kAlloc:
            case EventKind::kAllocArray: applyAlloc(r.id, r.c, r.type, r.a, r.b, r.time, r.offset); break;
            case EventKind::kDeaths: onDeath(r.c, r.id, r.offset); break;
            case EventKind::kGcStart:
                if (!onGcStart(batch.starts[r.a], r.offset)) return {};
                break;
            case EventKind::kGcEnd:
                if (!onGcEnd(batch.ends[r.a], r.offset)) return {};
                break;
            case EventKind::kThreadStart: onThreadStart({r.c, r.time}, r.offset); break;
            case EventKind::kThreadEnd: onThreadEnd({r.c, r.time}, r.offset); break;
            case EventKind::kMove: onMove({r.id, r.a}, r.offset); break;
            case EventKind::kExtension: onExtension(r.c, batch.extensions[r.a], r.offset); break;
            default: break;
        }
        if (!fatal_.empty()) return Error{fatal_};
    }
    flushDeaths();
    return {};
}

void Replayer::applyAlloc(uint64_t id, uint32_t shape, uint32_t type, uint64_t length, uint64_t size,
                          int64_t time, size_t offset) {
    if (!deaths_.empty()) flushDeaths();
    if (shape == ShapeTable::kNone) {
        if (fatal_.empty())
            fatal_ = trace_.describe(chunk_, offset,
                                     "more than " + std::to_string(ShapeTable::kMaxShapes) +
                                         " distinct (type, site, thread, size) combinations");
        return;
    }
    const bool is_array = length != kNoLength;
    if (build()) {
        count(is_array ? format::EventKind::kAllocArray : format::EventKind::kAlloc, time);
        EventCounts& c = data_.counts;
        ++c.objects_allocated;
        c.bytes_allocated += size;
        c.arrays_allocated += is_array;
        c.max_object_id = std::max(c.max_object_id, id);
        // Remember which ids exist, to tell a death of an unknown object from a double death.
        if (ids_.empty() || id > ids_.back().end) {
            ids_.push_back({id, id + 1});
        } else if (id == ids_.back().end) {
            ++ids_.back().end;
        } else {
            noteIdOutOfOrder(id);
        }
    }
    uint64_t explicit_size = 0;
    if (is_array && size != arrayBytes(symbols_.layouts()[type], length, alignment_)) explicit_size = size;
    store_.append(id, shape, length, explicit_size);
    s_.all_objects++;
    s_.all_bytes += size;
    if (id >= s_.last_watermark) {
        s_.tail_objects++;
        s_.tail_bytes += size;
        s_.epoch_objects++;
        s_.epoch_bytes += size;
        return;
    }
    // Born before the last GC ended but written after it (a buffer flushed late). Normal while
    // the last GC's heap is still open; late once the heap of its epoch was completed.
    uint32_t epoch = epochOf(id);
    bool completed = epoch + 1 < s_.gcs_ended || s_.heap_done;
    if (completed)
        anomaly(Anomaly::kLateAlloc, offset, "object ", id, " was born before GC ", epoch,
                " ended, but written after that GC's heap was complete");
    if (build()) {
        data_.gcs[epoch].allocated_objects++;
        data_.gcs[epoch].allocated_bytes += size;
    }
}

uint32_t Replayer::findShape(const Shape& sh) {
    // Replays run after the build interned every shape, so they only look shapes up (and may
    // run side by side). The last shape found is checked first.
    if (last_shape_id_ != ShapeTable::kNone && last_shape_.type == sh.type && last_shape_.site == sh.site &&
        last_shape_.thread == sh.thread && last_shape_.size == sh.size)
        return last_shape_id_;
    uint32_t id = data_.shapes.find(sh);
    if (id == ShapeTable::kNone) id = data_.shapes.intern(sh);  // only if the trace changed underneath
    last_shape_ = sh;
    last_shape_id_ = id;
    return id;
}

void Replayer::noteIdOutOfOrder(uint64_t id) {
    // Find the first interval ending at or after id.
    auto it = std::lower_bound(ids_.begin(), ids_.end(), id,
                               [](const IdInterval& r, uint64_t v) { return r.end < v; });
    if (it != ids_.end() && it->begin <= id && id < it->end) return;  // a duplicate; normalize() reports it
    if (it != ids_.end() && it->end == id) {
        ++it->end;
        auto next = it + 1;
        if (next != ids_.end() && next->begin == it->end) {
            it->end = next->end;
            ids_.erase(next);
        }
        return;
    }
    if (it != ids_.end() && it->begin == id + 1) {
        it->begin = id;
        return;
    }
    ids_.insert(it, {id, id + 1});
}

bool Replayer::idWasAllocated(uint64_t id) const {
    auto it = std::lower_bound(ids_.begin(), ids_.end(), id,
                               [](const IdInterval& r, uint64_t v) { return r.end <= v; });
    return it != ids_.end() && it->begin <= id;
}

void Replayer::normalize() {
    store_.normalize([&](size_t pos) {
        uint64_t id = store_.id(pos);
        uint64_t size = store_.sizeOf(pos, data_.shapes, symbols_, alignment_);
        anomaly(Anomaly::kDuplicateAlloc, 0, "object id ", id,
                " was allocated twice; the later copy is dropped");
        store_.kill(pos);
        s_.all_objects--;
        s_.all_bytes -= size;
        if (id >= s_.last_watermark) {
            s_.tail_objects--;
            s_.tail_bytes -= size;
            s_.epoch_objects--;
            s_.epoch_bytes -= size;
        } else if (build()) {
            uint32_t epoch = epochOf(id);
            data_.gcs[epoch].allocated_objects--;
            data_.gcs[epoch].allocated_bytes -= size;
        }
        if (build()) {
            data_.counts.objects_allocated--;
            data_.counts.bytes_allocated -= size;
        }
    });
}

void Replayer::onDeath(uint32_t gc, uint64_t id, size_t offset) {
    deaths_.push_back({id, gc, static_cast<uint32_t>(offset)});
    if (deaths_.size() >= 4096) flushDeaths();
}

void Replayer::flushDeaths() {
    if (deaths_.empty()) return;
    if (build()) {
        data_.counts.by_kind[static_cast<size_t>(format::EventKind::kDeaths)] += deaths_.size();
        data_.counts.deaths += deaths_.size();
    }
    if (!store_.isSorted()) normalize();
    // Positions first: ascending ids make this a walk through the id column.
    death_positions_.resize(deaths_.size());
    for (size_t i = 0; i < deaths_.size(); ++i) {
        size_t pos = store_.find(deaths_[i].id, death_hint_);
        if (pos != store_.size()) death_hint_ = pos;
        death_positions_[i] = pos;
    }
    constexpr size_t kAhead = 12;
    const uint32_t* shape = store_.shape.data();
    const size_t n = deaths_.size(), size = store_.size();
    for (size_t i = 0; i < n; ++i) {
        if (i + kAhead < n && death_positions_[i + kAhead] < size)
            __builtin_prefetch(shape + death_positions_[i + kAhead], 1);
        if (i + kAhead / 2 < n && death_positions_[i + kAhead / 2] < size) {
            uint32_t ahead = shape[death_positions_[i + kAhead / 2]];
            if (ahead != ObjectStore::kDead) __builtin_prefetch(&data_.shapes[ahead]);
        }
        applyDeath(deaths_[i].gc, deaths_[i].id, death_positions_[i], deaths_[i].offset);
    }
    deaths_.clear();
}

void Replayer::applyDeath(uint32_t gc, uint64_t id, size_t pos, size_t offset) {
    if (pos == store_.size()) {
        if (build()) {
            if (idWasAllocated(id))
                anomaly(Anomaly::kDoubleDeath, offset, "object ", id, " dies at GC ", gc,
                        " but was already dead");
            else
                anomaly(Anomaly::kUnknownDeath, offset, "object ", id, " dies at GC ", gc,
                        " but was never allocated");
        }
        return;
    }
    if (!store_.alive(pos)) {
        anomaly(Anomaly::kDoubleDeath, offset, "object ", id, " dies at GC ", gc, " but was already dead");
        return;
    }
    uint64_t size = store_.sizeOf(pos, data_.shapes, symbols_, alignment_);
    if (on_death_) on_death_(store_, pos, gc);
    store_.kill(pos);
    s_.all_objects--;
    s_.all_bytes -= size;
    if (id >= s_.last_watermark) {  // born after the last GC ended: it cannot have died yet
        s_.tail_objects--;
        s_.tail_bytes -= size;
        s_.epoch_objects--;
        s_.epoch_bytes -= size;
    }
    if (gc >= s_.gcs_ended) {
        anomaly(Anomaly::kEarlyDeath, offset, "object ", id, " dies at GC ", gc, ", which has not ended (",
                s_.gcs_ended, " GCs ended so far)");
        return;
    }
    if (gc + 1 < s_.gcs_ended || s_.heap_done)
        anomaly(
            Anomaly::kLateDeath, offset, "object ", id, " dies at GC ", gc, ", written after ",
            gc + 1 < s_.gcs_ended ? "GC " + std::to_string(gc + 1) + " started" : "its heap was complete");
    if (build()) {
        GcRecord& r = data_.gcs[gc];
        r.freed_objects++;
        r.freed_bytes += size;
        if (sampled()) {
            const SampleWeight w = data_.sampling.weigh(size);
            r.freed_sampled.add(w, size);
            // Born since the GC before: allocated in this GC's epoch. estimateHeap adds the live
            // ones when the heap completes; a death written after that (late) was counted then.
            const bool open = gc + 1 == s_.gcs_ended && !s_.heap_done;
            if (open && (gc == 0 || id >= data_.watermarks[gc - 1])) r.allocated_sampled.add(w, size);
        }
    }
}

bool Replayer::onGcStart(const GcStartEvent& e, size_t offset) {
    flushDeaths();
    count(format::EventKind::kGcStart, e.time_ns);
    const uint32_t expected = s_.gcs_ended;
    if (s_.in_gc)
        anomaly(Anomaly::kGcUnfinished, offset, "GC ", s_.open_gc, " started but never ended; GC ", e.gc,
                " starts here");
    if (e.gc != expected)
        anomaly(Anomaly::kGcOutOfOrder, offset, "GC start carries index ", e.gc, ", expected ", expected);
    if (!s_.heap_done) {
        completeHeap();
        if (stopped_) return false;
    }
    s_.in_gc = 1;
    s_.open_gc = expected;
    s_.start = e;
    s_.start.gc = expected;
    return true;
}

bool Replayer::onGcEnd(const GcEndEvent& e, size_t offset) {
    flushDeaths();
    count(format::EventKind::kGcEnd, e.time_ns);
    const uint32_t g = s_.gcs_ended;
    if (!s_.in_gc) {
        anomaly(Anomaly::kGcOutOfOrder, offset, "GC end (index ", e.gc, ") without a GC start");
        if (!s_.heap_done) completeHeap();
        s_.start = GcStartEvent{g, 0, 0, e.time_ns};
    } else if (e.gc != g) {
        anomaly(Anomaly::kGcOutOfOrder, offset, "GC end carries index ", e.gc, ", expected ", g);
    }
    uint64_t wm = e.next_object_id;
    if (wm < s_.last_watermark) {
        anomaly(Anomaly::kWatermarkBackwards, offset, "GC ", g, " ends with next object id ", wm,
                ", below the previous GC's ", s_.last_watermark);
        wm = s_.last_watermark;
    }
    if (build()) {
        data_.watermarks.push_back(wm);
        GcRecord r;
        r.index = g;
        r.kind = s_.start.kind;
        r.cause = s_.start.cause;
        r.start_ns = s_.start.time_ns;
        r.end_ns = e.time_ns;
        r.pause_ns = e.pause_ns;
        r.vm_heap_before = e.heap_used_before;
        r.vm_heap_after = e.heap_used_after;
        r.vm_heap_committed = e.heap_committed;
        r.next_object_id = wm;
        data_.gcs.push_back(r);
    }
    s_.last_watermark = wm;
    s_.gcs_ended = g + 1;
    s_.in_gc = 0;
    s_.heap_done = 0;
    retail();
    if (build()) {
        // Objects in the open epoch with ids past the watermark belong to the next epoch.
        data_.gcs[g].allocated_objects += s_.epoch_objects - s_.tail_objects;
        data_.gcs[g].allocated_bytes += s_.epoch_bytes - s_.tail_bytes;
    }
    s_.epoch_objects = s_.tail_objects;
    s_.epoch_bytes = s_.tail_bytes;
    store_.maybeCompact();
    death_hint_ = 0;
    return true;
}

void Replayer::onExtension(uint32_t ext, std::span<const uint8_t> data, size_t offset) {
    countOnly(format::EventKind::kExtension);
    // The extensions that change the heap, or when it is complete: read by every replay, not
    // only the build.
    if (static_cast<format::ExtensionKind>(ext) == format::ExtensionKind::kGcLive) {
        applyGcLive(data, offset);
        return;
    }
    if (static_cast<format::ExtensionKind>(ext) == format::ExtensionKind::kGcComplete) {
        applyGcComplete(data, offset);
        return;
    }
    if (!build()) return;
    flushDeaths();
    auto attach = [&](uint32_t gc, int32_t GcRecord::*slot, int32_t index) {
        if (gc >= data_.gcs.size()) {
            anomaly(Anomaly::kBadExtension, offset, "the JVM's figures of GC ", gc,
                    " come before that GC ended");
            return false;
        }
        data_.gcs[gc].*slot = index;
        return true;
    };
    switch (static_cast<format::ExtensionKind>(ext)) {
        case format::ExtensionKind::kGcJvm: {
            GcJvmEvent e;
            if (Status s = decodeGcJvm(data, symbols_, &e); !s) {
                badExtension("GC_JVM", offset, s.error());
                return;
            }
            if (attach(e.gc, &GcRecord::jvm, static_cast<int32_t>(data_.jvm_facts.size())))
                data_.jvm_facts.push_back(std::move(e));
            return;
        }
        case format::ExtensionKind::kGcCensus: {
            GcCensusEvent e;
            if (Status s = decodeGcCensus(data, symbols_, &e); !s) {
                badExtension("GC_CENSUS", offset, s.error());
                return;
            }
            if (attach(e.gc, &GcRecord::census, static_cast<int32_t>(data_.censuses.size())))
                data_.censuses.push_back(std::move(e));
            return;
        }
        case format::ExtensionKind::kGcSpaces: {
            GcSpacesEvent e;
            if (Status s = decodeGcSpaces(data, symbols_, &e); !s) {
                badExtension("GC_SPACES", offset, s.error());
                return;
            }
            if (attach(e.gc, &GcRecord::spaces, static_cast<int32_t>(data_.spaces.size())))
                data_.spaces.push_back(std::move(e));
            return;
        }
        case format::ExtensionKind::kGcRegions: {
            GcRegionsEvent e;
            e.gc = UINT32_MAX;
            if (Status s = decodeGcRegions(data, &e); !s) {
                // A table that contradicts itself: an integrity error of that GC.
                if (e.gc != UINT32_MAX)
                    anomaly(Anomaly::kBadExtension, offset, "GC ", e.gc,
                            "'s region table (GC_REGIONS, at byte ", s.error().offset,
                            " of it): ", s.error().message);
                else
                    badExtension("GC_REGIONS", offset, s.error());
                return;
            }
            if (!attach(e.gc, e.after ? &GcRecord::regions_after : &GcRecord::regions_before,
                        static_cast<int32_t>(data_.regions.size())))
                return;
            data_.regions.push_back(recordOf(e, {data.begin(), data.end()}));
            // The heap map's one space, G1's grid (heap/heap_map.h), where the collector has no
            // spaces of its own.
            GcRecord& g = data_.gcs[e.gc];
            if (e.after && g.spaces < 0) {
                const uint64_t before =
                    g.regions_before >= 0 ? data_.regions[static_cast<size_t>(g.regions_before)].used : 0;
                g.spaces = static_cast<int32_t>(data_.spaces.size());
                data_.spaces.push_back(spacesOfRegions(e, before));
            }
            return;
        }
        default: return;  // an extension of a later format: skipped
    }
}

void Replayer::badExtension(std::string_view name, size_t offset, const Error& e) {
    anomaly(Anomaly::kBadExtension, offset, name, " event, at byte ", e.offset, " of it: ", e.message);
}

void Replayer::applyGcLive(std::span<const uint8_t> data, size_t offset) {
    GcLiveEvent e;
    if (Status s = decodeGcLive(data, &e); !s) {
        badExtension("GC_LIVE", offset, s.error());
        return;
    }
    // It speaks for the GC whose heap is open: after that GC's end, before the next one starts.
    if (s_.in_gc || s_.gcs_ended == 0 || e.gc + 1 != s_.gcs_ended || s_.heap_done) {
        anomaly(Anomaly::kBadExtension, offset, "a GC_LIVE event of GC ", e.gc, " where GC ",
                s_.gcs_ended == 0 ? 0 : s_.gcs_ended - 1, "'s heap is not the open one (skipped)");
        return;
    }
    flushDeaths();
    normalize();
    // Every object born before the GC ended that the JVM's heap no longer held died in it.
    const size_t end = store_.lowerBound(s_.last_watermark);
    size_t next = 0;
    uint64_t died = 0;
    auto unheld = [&](uint64_t id) {  // listed, but the trace has it dead, or never had it
        anomaly(Anomaly::kJvmHoldsDead, offset, "the JVM's heap after GC ", e.gc, " holds object ", id,
                ", which the trace has ", idWasAllocated(id) ? "as dead" : "never allocated");
    };
    for (size_t pos = 0; pos < end; ++pos) {
        if (!store_.alive(pos)) continue;
        const uint64_t id = store_.id(pos);
        for (; next < e.ids.size() && e.ids[next] < id; ++next)
            unheld(e.ids[next]);
        if (next < e.ids.size() && e.ids[next] == id) {
            ++next;
            continue;
        }
        applyDeath(e.gc, id, pos, offset);
        ++died;
    }
    for (; next < e.ids.size() && e.ids[next] < s_.last_watermark; ++next)
        unheld(e.ids[next]);
    if (build()) {
        data_.counts.deaths_from_heap += died;
        data_.gcs[e.gc].jvm_live = true;
    }
}

void Replayer::applyGcComplete(std::span<const uint8_t> data, size_t offset) {
    GcCompleteEvent e;
    if (Status s = decodeGcComplete(data, &e); !s) {
        badExtension("GC_COMPLETE", offset, s.error());
        return;
    }
    // It completes the GC whose heap is open; an older GC's heap is complete already.
    if (!s_.in_gc && s_.gcs_ended > 0 && e.gc + 1 == s_.gcs_ended) {
        if (!s_.heap_done) {
            flushDeaths();
            completeHeap();
        }
        return;
    }
    if (e.gc + 1 < s_.gcs_ended) return;
    anomaly(Anomaly::kBadExtension, offset, "a GC_COMPLETE event of GC ", e.gc,
            s_.in_gc ? " inside GC " : " before the end of GC ", s_.in_gc ? s_.open_gc : e.gc, " (skipped)");
}

void Replayer::retail() {
    normalize();
    s_.tail_objects = 0;
    s_.tail_bytes = 0;
    for (size_t pos = store_.lowerBound(s_.last_watermark); pos < store_.size(); ++pos) {
        if (!store_.alive(pos)) continue;
        s_.tail_objects++;
        s_.tail_bytes += store_.sizeOf(pos, data_.shapes, symbols_, alignment_);
    }
}

void applySampledEstimates(GcRecord& r) {
    r.live_objects = r.live_sampled.roundedObjects();
    r.live_bytes = r.live_sampled.roundedBytes();
    r.allocated_objects = r.allocated_sampled.roundedObjects();
    r.allocated_bytes = r.allocated_sampled.roundedBytes();
    r.freed_objects = r.freed_sampled.roundedObjects();
    r.freed_bytes = r.freed_sampled.roundedBytes();
}

namespace {

// The census of a sampled heap, where it tells the objects alive at its GC (those allocated
// since, by address), against the samples' sums per type (ascending): each type's factors.
std::optional<SampleCalibration> calibrate(uint32_t gc, const GcCensusEvent& census,
                                           const std::vector<std::pair<uint32_t, SampleSums>>& by_type) {
    if (!census.newer_by_address) return std::nullopt;
    SampleCalibration c;
    c.gc = gc;
    c.factors.reserve(by_type.size());
    for (const auto& [type, sums] : by_type)
        c.factors.push_back({type, 1, 1, false});
    for (const CensusType& t : census.types) {
        const uint64_t objects = t.objects + t.untracked_objects, bytes = t.bytes + t.untracked_bytes;
        c.census_objects += objects;
        c.census_bytes += bytes;
        auto it = std::lower_bound(by_type.begin(), by_type.end(), t.type,
                                   [](const auto& entry, uint32_t type) { return entry.first < type; });
        if (it == by_type.end() || it->first != t.type) {
            if (objects == 0) continue;
            ++c.unsampled_types;
            c.unsampled_objects += objects;
            c.unsampled_bytes += bytes;
            continue;
        }
        // Unsampled objects counted as dead space (a type HotSpot also fills dead space with,
        // before JDK 19) cannot be told from it: the type keeps its estimate.
        if (t.filler_objects != 0) continue;
        SampleCalibration::Factor& f = c.factors[static_cast<size_t>(it - by_type.begin())];
        f.objects = static_cast<double>(objects) / it->second.objects;
        f.bytes = static_cast<double>(bytes) / it->second.bytes;
        f.counted = true;
    }
    for (const SampleCalibration::Factor& f : c.factors)
        c.complete = c.complete && f.counted;
    return c;
}

}  // namespace

void Replayer::estimateHeap(uint32_t g, GcRecord& r) {
    const HeapView view = viewAt(g);
    const uint64_t born_from = g == 0 ? 0 : data_.watermarks[g - 1];
    SampleSums live;
    const bool census = r.census >= 0;
    std::unordered_map<uint32_t, SampleSums> by_type;  // types with a live sample (at a census GC)
    view.forEachLive([&](size_t pos) {
        const uint64_t size = view.size(pos);
        const SampleWeight w = data_.sampling.weigh(size);
        live.add(w, size);
        if (view.id(pos) >= born_from) r.allocated_sampled.add(w, size);  // the dead ones: applyDeath
        if (census) by_type[view.type(pos)].add(w, size);
    });
    r.live_sampled = live;
    if (census) {
        std::vector<std::pair<uint32_t, SampleSums>> sorted(by_type.begin(), by_type.end());
        std::sort(sorted.begin(), sorted.end(),
                  [](const auto& a, const auto& b) { return a.first < b.first; });
        if (auto c = calibrate(g, data_.censuses[static_cast<size_t>(r.census)], sorted)) {
            // The heap at a census GC is counted, not estimated, where the census counted every
            // type a sample stands for.
            if (c->complete) {
                r.live_sampled.objects = static_cast<double>(c->census_objects);
                r.live_sampled.bytes = static_cast<double>(c->census_bytes);
                r.live_sampled.var_objects = r.live_sampled.var_bytes = 0;
            }
            r.calibration = static_cast<int32_t>(data_.calibrations.size());
            data_.calibrations.push_back(std::move(*c));
        }
    }
    applySampledEstimates(r);
}

void Replayer::completeHeap() {
    const uint32_t g = s_.gcs_ended - 1;
    s_.heap_done = 1;
    if (build()) {
        GcRecord& r = data_.gcs[g];
        r.live_objects = s_.all_objects - s_.tail_objects;
        r.live_bytes = s_.all_bytes - s_.tail_bytes;
        if (sampled()) {
            r.live_sampled.samples = r.live_objects;  // viewAt reads them
            r.live_sampled.sample_bytes = r.live_bytes;
            estimateHeap(g, r);
        }
        r.final_chunk = static_cast<uint32_t>(chunk_);
        EventCounts& c = data_.counts;
        if (r.live_objects > c.peak_live_objects) {
            c.peak_live_objects = r.live_objects;
            c.peak_objects_gc = g;
        }
        if (r.live_bytes > c.peak_live_bytes) {
            c.peak_live_bytes = r.live_bytes;
            c.peak_bytes_gc = g;
        }
        // At a full GC the JVM's own accounting is the judge (heap/jvm_check.h); not the last GC
        // of a cut trace, whose deaths and count may be in the lost part.
        // A sampled trace's heap is an estimate: held against the JVM's figures by the views that
        // show both, never as an integrity check.
        const bool cut_last = trace_.truncated() && s_.gcs_ended == data_.gcs.size() && finishing_;
        if (!cut_last && !sampled() && r.jvm >= 0 && data_.jvm_facts[static_cast<size_t>(r.jvm)].whole_heap)
            data_.jvm_checks.push_back(checkAgainstJvm(
                r, viewAt(g), r.census >= 0 ? &data_.censuses[static_cast<size_t>(r.census)] : nullptr));
    }
    if (on_heap_ && !on_heap_(viewAt(g))) stopped_ = true;
}

HeapView Replayer::viewAt(uint32_t gc) {
    flushDeaths();
    normalize();
    const GcRecord& r = data_.gcs[gc];
    size_t cut = store_.lowerBound(data_.watermarks[gc]);
    // A sampled heap's view counts its samples (the record has their estimates).
    const bool s = sampled();
    const SampleCalibration* calibration =
        s && r.calibration >= 0 ? &data_.calibrations[static_cast<size_t>(r.calibration)] : nullptr;
    return HeapView(store_, cut, gc, data_.shapes, symbols_, alignment_,
                    std::span<const uint64_t>(data_.watermarks.data(), size_t{gc} + 1),
                    s ? r.live_sampled.samples : r.live_objects,
                    s ? r.live_sampled.sample_bytes : r.live_bytes, &data_.sampling)
        .withCalibration(calibration);
}

void Replayer::finish() {
    flushDeaths();
    if (s_.in_gc && build()) {
        if (trace_.truncated()) {
            data_.diagnostics.add(Anomaly::kGcCutOff, [&] {
                return trace_.path() + ": the trace ends inside GC " + std::to_string(s_.open_gc) +
                       " (cut off); that GC is left out";
            });
        } else {
            data_.diagnostics.add(Anomaly::kGcUnfinished, [&] {
                return trace_.path() + ": GC " + std::to_string(s_.open_gc) +
                       " started but the trace ends before it did";
            });
        }
    }
    finishing_ = true;
    if (!s_.heap_done && s_.gcs_ended > 0) completeHeap();
}

}  // namespace memcity
