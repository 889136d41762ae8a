#include "heap/heap_history.h"

#include <algorithm>
#include <system_error>

#include "heap/addresses.h"
#include "heap/batch_pipeline.h"
#include "heap/whole_heap.h"
#include "trace/trace_writer.h"

namespace memcity {

using format::ChunkKind;

namespace {
constexpr uint64_t kProgressBytes = 8u << 20;

// The build's report: `done` of `total` trace bytes read, `gcs` heaps complete.
void reportBuild(const Progress& progress, uint64_t done, uint64_t total, size_t gcs) {
    const double fraction = total ? static_cast<double>(done) / static_cast<double>(total) : 1.0;
    progress.report({.fraction = fraction, .position = done, .total = total, .count = gcs});
}
constexpr uint64_t kReleaseBytes = 8u << 20;  // trace pages kept mapped behind the rebuild
}  // namespace

Result<HeapHistory> HeapHistory::build(const TraceFile& trace, const HistoryOptions& options) {
    auto h = buildFrom(trace, options);
    // A file cut short under the build read as zeros from there on: whatever the build made of
    // them (an error, or figures), the cut is what is reported.
    if (Status whole = trace.intact(); !whole) return whole.error();
    return h;
}

Result<HeapHistory> HeapHistory::buildFrom(const TraceFile& trace, const HistoryOptions& options) {
    HeapHistory h;
    h.trace_ = &trace;
    h.data_ = std::make_unique<HistoryData>();
    h.checkpoints_ = std::make_unique<CheckpointStore>(options.temp_dir);
    HistoryData& data = *h.data_;
    data.sampling = SampleModel(trace.header().sampling_interval);

    Replayer replayer(trace, data, Replayer::Mode::kBuild);
    // Snapshots whose ROOTS chunk was read, waiting for their heap to complete.
    std::vector<SnapshotInfo> pending;
    std::vector<SnapshotInfo> open;  // REFS seen, ROOTS not yet
    Status failure;

    ReachScratch reach_scratch;
    const std::string* listing = trace.metaValue(format::kMetaSnapshots);
    const bool from_roots = listing && *listing == format::kSnapshotsFromRoots;
    auto reach = [&](const SnapshotInfo& info, const HeapView& view) {
        GcRecord& r = data.gcs[info.gc];
        if (!options.reachability) {
            r.has_snapshot = true;
            data.snapshots.push_back(info);
            return;
        }
        SnapshotLoadOptions lo;
        lo.watermark = data.watermarks[info.gc];
        lo.diagnostics = &data.diagnostics;
        lo.from_roots = from_roots;
        lo.threads = options.more ? 1 : options.threads;  // a followed trace's chunks: this thread only
        // A sampled trace's: over the heap made whole by the objects the snapshot lists.
        std::unique_ptr<WholeHeap> whole;
        if (data.sampling.sampled()) {
            auto w = WholeHeap::load(trace, info, view);
            if (!w) {
                data.diagnostics.add(Anomaly::kIncompleteSnapshot, [&] { return w.error().message; });
                return;
            }
            whole = std::move(*w);
        }
        auto snap = snapshotReachability(trace, info, whole ? whole->view() : view, lo, reach_scratch);
        if (!snap) {
            data.diagnostics.add(Anomaly::kIncompleteSnapshot, [&] { return snap.error().message; });
            return;
        }
        const Reachability& rr = snap->reach;
        r.has_snapshot = true;
        r.reachable_objects = rr.reachable_objects;
        r.reachable_bytes = rr.reachable_bytes;
        // (A sampled one's snapshot lists the objects no reported root reaches too.)
        r.unreached_objects = rr.unreached_objects;
        r.unreached_bytes = rr.unreached_bytes;
        r.snapshot_edges = snap->edges;
        r.snapshot_roots = snap->roots;
        data.snapshots.push_back(info);
    };

    // Following a trace, checkpoints are written once the heap its reader waits for is handed
    // over (the GC after them, or the end), not while that heap is rebuilt.
    std::vector<CheckpointStore::Pending> deferred;
    auto writeDeferred = [&]() -> Status {
        for (const CheckpointStore::Pending& p : deferred)
            if (Status s = h.checkpoints_->write(p); !s) return s;
        deferred.clear();
        return {};
    };

    replayer.setOnHeap([&](const HeapView& view) {
        for (size_t i = 0; i < pending.size();) {
            if (pending[i].gc == view.gc()) {
                reach(pending[i], view);
                pending.erase(pending.begin() + static_cast<ptrdiff_t>(i));
            } else {
                ++i;
            }
        }
        if (options.on_heap && !options.on_heap(view, data.gcs[view.gc()])) {
            h.stopped_early_ = true;
            return false;
        }
        if (Status s = writeDeferred(); !s) {
            failure = s;
            return false;
        }
        return true;
    });

    std::vector<uint8_t> scratch;
    const auto& chunks = trace.chunks();
    // With two threads, a second one reads, decompresses, decodes and interns ahead.
    std::unique_ptr<BatchPipeline> pipeline;
    if (options.threads >= 2 && !options.more) {
        try {
            pipeline = std::make_unique<BatchPipeline>(trace, data.shapes);
        } catch (const std::system_error&) {  // (no thread to spare: this one decodes)
        }
    }
    uint64_t events_since_checkpoint = 0;
    uint64_t next_progress = kProgressBytes;
    size_t released_upto = 0;
    for (size_t c = 0; !replayer.stopped(); ++c) {
        if (c == chunks.size() && !(options.more && options.more() && c < chunks.size())) break;
        const ChunkRef& chunk = chunks[c];
        switch (static_cast<ChunkKind>(chunk.kind)) {
            case ChunkKind::kEvents: {
                if (events_since_checkpoint >= options.checkpoint_events) {
                    auto prepared = h.checkpoints_->prepare(static_cast<uint32_t>(c), replayer.store(),
                                                            replayer.scalars());
                    if (!prepared) return prepared.error();
                    if (pipeline && !h.checkpoints_->inMemory()) {
                        // The decoding thread writes it, off the critical path.
                        auto shared = std::make_shared<CheckpointStore::Pending>(std::move(*prepared));
                        CheckpointStore* store = h.checkpoints_.get();
                        pipeline->post([store, shared] { return store->write(*shared); });
                    } else if (options.more && !h.checkpoints_->inMemory()) {
                        deferred.push_back(std::move(*prepared));
                    } else if (Status s = h.checkpoints_->write(*prepared); !s) {
                        return s.error();
                    }
                    events_since_checkpoint = 0;
                }
                if (pipeline) {
                    EventBatch* batch = pipeline->next();
                    if (!batch || batch->chunk != c)
                        return trace.errorAt(c, 0, "events chunk was not decoded");
                    if (!batch->error.empty()) return Error{batch->error};
                    Status s = replayer.applyBatch(*batch);
                    pipeline->release(batch);
                    if (!s) return s.error();
                } else if (Status s = replayer.applyChunk(c, scratch); !s) {
                    return s.error();
                }
                events_since_checkpoint += chunk.meta;
                break;
            }
            case ChunkKind::kRefs:
            case ChunkKind::kObjects: {
                auto it = std::find_if(open.begin(), open.end(),
                                       [&](const SnapshotInfo& s) { return s.gc == chunk.meta; });
                if (it == open.end()) {
                    open.push_back({chunk.meta, {}, 0, false, {}, 0});
                    it = open.end() - 1;
                }
                (static_cast<ChunkKind>(chunk.kind) == ChunkKind::kRefs ? it->refs_chunks
                                                                        : it->unsampled_chunks)
                    .push_back(static_cast<uint32_t>(c));
                break;
            }
            case ChunkKind::kAddrs: {
                auto it = std::find_if(data.addresses.begin(), data.addresses.end(),
                                       [&](const AddressInfo& a) { return a.gc == chunk.meta; });
                if (it == data.addresses.end()) {
                    data.addresses.push_back({chunk.meta, {}});
                    it = data.addresses.end() - 1;
                }
                it->chunks.push_back(static_cast<uint32_t>(c));
                if (chunk.meta < data.gcs.size()) data.gcs[chunk.meta].has_addresses = true;
                break;
            }
            case ChunkKind::kRoots: {
                SnapshotInfo info{chunk.meta, {}, static_cast<uint32_t>(c), true, {}, 0};
                auto it = std::find_if(open.begin(), open.end(),
                                       [&](const SnapshotInfo& s) { return s.gc == chunk.meta; });
                if (it != open.end()) {
                    info.refs_chunks = std::move(it->refs_chunks);
                    info.unsampled_chunks = std::move(it->unsampled_chunks);
                    open.erase(it);
                }
                auto p = trace.payload(c, scratch);
                if (!p) return p.error();
                ByteReader r(p->data(), p->size());
                uint64_t gc = r.varint();
                uint64_t refs_chunks = r.varint();
                uint64_t unsampled_chunks = 0;
                if (data.sampling.sampled()) {  // (sources, edges, roots, then the unsampled objects')
                    for (int k = 0; k < 3; ++k)
                        r.varint();
                    unsampled_chunks = r.varint();
                    info.unsampled = r.varint();
                }
                if (r.failed() || gc != chunk.meta)
                    return trace.errorAt(
                        c, 0, "roots chunk header does not match its chunk (GC " + std::to_string(gc) + ")");
                const uint32_t ended = replayer.scalars().gcs_ended;
                if (refs_chunks != info.refs_chunks.size() ||
                    unsampled_chunks != info.unsampled_chunks.size() || info.gc >= ended) {
                    data.diagnostics.add(Anomaly::kIncompleteSnapshot, [&] {
                        return trace.describe(c, 0,
                                              "snapshot of GC " + std::to_string(info.gc) + " has " +
                                                  std::to_string(info.refs_chunks.size()) + " refs and " +
                                                  std::to_string(info.unsampled_chunks.size()) +
                                                  " objects chunks, its roots chunk says " +
                                                  std::to_string(refs_chunks) + " and " +
                                                  std::to_string(unsampled_chunks) +
                                                  (info.gc >= ended ? " (and that GC has not ended)" : ""));
                    });
                    break;
                }
                if (info.gc + 1 == ended && !replayer.scalars().heap_done) {
                    pending.push_back(std::move(info));  // walked once the heap is complete
                } else if (info.gc + 1 == ended) {
                    reach(info, replayer.viewAt(info.gc));
                } else {
                    // Written after a later GC ended: its heap is gone from the working store.
                    data.snapshots.push_back(info);
                    data.gcs[info.gc].has_snapshot = true;
                }
                break;
            }
            default: break;  // meta and symbols were read at open; unknown kinds are skipped
        }
        if (chunk.end() >= next_progress) {
            next_progress = chunk.end() + kProgressBytes;
            reportBuild(options.progress, chunk.end(), trace.fileSize(), data.gcs.size());
        }
        if (chunk.end() - chunks[released_upto].offset >= kReleaseBytes) {
            trace.releasePages(released_upto, c + 1);
            released_upto = c + 1;
        }
    }
    if (pipeline) {
        pipeline->stop();
        if (Status s = pipeline->taskStatus(); !s) return s.error();
    }
    if (!replayer.stopped()) replayer.finish();
    if (Status s = writeDeferred(); !s) return s.error();
    if (!failure) return failure.error();
    for (const SnapshotInfo& s : open) {
        // A walk its producer abandoned (another GC overtook it) is no broken snapshot.
        const std::string gc = std::to_string(s.gc);
        if (std::any_of(trace.meta().begin(), trace.meta().end(), [&](const auto& kv) {
                return kv.first == TraceWriter::kAbandonedSnapshotKey && kv.second == gc;
            }))
            continue;
        // (Opened by a REFS or an OBJECTS chunk: one of them is there.)
        const uint32_t first = s.refs_chunks.empty() ? s.unsampled_chunks.front() : s.refs_chunks.front();
        data.diagnostics.add(
            trace.truncated() ? Anomaly::kSnapshotCutOff : Anomaly::kIncompleteSnapshot, [&] {
                return trace.describe(first, 0,
                                      "snapshot of GC " + gc +
                                          " has references or objects but no roots chunk" +
                                          (trace.truncated() ? " (the trace is cut off)" : ""));
            });
    }
    std::sort(data.snapshots.begin(), data.snapshots.end(),
              [](const SnapshotInfo& a, const SnapshotInfo& b) { return a.gc < b.gc; });
    std::sort(data.addresses.begin(), data.addresses.end(),
              [](const AddressInfo& a, const AddressInfo& b) { return a.gc < b.gc; });
    for (const AddressInfo& a : data.addresses)
        if (a.gc < data.gcs.size()) data.gcs[a.gc].has_addresses = true;
    // A sampled trace's figures from their sums again: an anomaly after a heap was complete (a
    // duplicate, a late allocation) moved the counted figures it set.
    if (data.sampling.sampled())
        for (GcRecord& r : data.gcs)
            applySampledEstimates(r);
    settleJvmChecks(data.jvm_checks);
    for (const JvmCheck& check : data.jvm_checks)
        if (!check.agrees())
            data.diagnostics.add(Anomaly::kJvmDisagrees,
                                 [&] { return trace.path() + ": " + describeJvmCheck(check); });
    trace.releasePages(0, chunks.size());
    reportBuild(options.progress, trace.fileSize(), trace.fileSize(), data.gcs.size());
    return h;
}

Result<std::vector<uint64_t>> HeapHistory::addressesFor(const HeapState& heap, unsigned threads) const {
    std::vector<uint64_t> out;
    for (const AddressInfo& a : data_->addresses)
        if (a.gc == heap.gc()) {
            auto loaded = loadAddresses(*trace_, a.chunks, heap.store(), threads);
            if (Status whole = trace_->intact(); !whole) return whole.error();
            if (!loaded) return loaded.error();
            out = std::move(*loaded);
        }
    return out;
}

std::string gcRangeError(const std::string& path, uint64_t gc, size_t gcs) {
    const std::string head = path + ": GC " + std::to_string(gc) + " is out of range: the trace has ";
    if (gcs == 0) return head + "no GCs";
    return head + std::to_string(gcs) + " GCs (0.." + std::to_string(gcs - 1) + ")";
}

std::string HeapHistory::gcRangeError(uint64_t gc) const {
    return memcity::gcRangeError(trace_->path(), gc, gcCount());
}

Status HeapHistory::replay(uint32_t from, uint32_t to, const std::function<bool(const HeapView&)>& fn,
                           const Replayer::DeathFn& on_death) const {
    const auto& chunks = trace_->chunks();
    uint32_t start = 0;
    Replayer replayer(*trace_, *data_, Replayer::Mode::kReplay);
    if (checkpoints_->latestAtOrBefore(data_->gcs[from].final_chunk, &start)) {
        Replayer::Scalars s;
        if (Status st = checkpoints_->load(start, &replayer.store(), &s); !st) return st;
        replayer.restore(s);
    } else {
        start = 0;
    }
    replayer.setOnDeath(on_death);
    replayer.setOnHeap([&](const HeapView& view) {
        if (view.gc() < from) return true;
        if (!fn(view)) return false;
        return view.gc() < to;
    });
    std::vector<uint8_t> scratch;
    const uint32_t last = data_->gcs[to].final_chunk;
    size_t released = start;
    for (size_t c = start; c <= last && c < chunks.size() && !replayer.stopped(); ++c) {
        if (chunks[c].kind != static_cast<uint16_t>(ChunkKind::kEvents)) continue;
        if (Status s = replayer.applyChunk(c, scratch); !s) {
            if (Status whole = trace_->intact(); !whole) return whole;
            return s;
        }
        if (chunks[c].end() - chunks[released].offset >= kReleaseBytes) {
            trace_->releasePages(released, c + 1);
            released = c + 1;
        }
    }
    if (!replayer.stopped()) replayer.finish();
    trace_->releasePages(start, std::min<size_t>(size_t{last} + 1, chunks.size()));
    return trace_->intact();  // (the heaps handed out were rebuilt from zeros where it shrank)
}

Result<HeapState> HeapHistory::heapAt(uint32_t gc) const {
    if (gc >= gcCount()) return Error{gcRangeError(gc)};
    std::optional<HeapState> out;
    Status s = replay(gc, gc, [&](const HeapView& view) {
        out.emplace(view);
        return false;
    });
    if (!s) return s.error();
    if (!out) return Error{trace_->path() + ": GC " + std::to_string(gc) + " could not be rebuilt"};
    return std::move(*out);
}

Status HeapHistory::forEachHeap(uint32_t from, uint32_t to,
                                const std::function<bool(const HeapView&)>& fn) const {
    return forEachHeap(from, to, fn, {});
}

Status HeapHistory::forEachHeap(uint32_t from, uint32_t to, const std::function<bool(const HeapView&)>& fn,
                                const Replayer::DeathFn& on_death) const {
    if (from > to)
        return Error{trace_->path() + ": GC range " + std::to_string(from) + ".." + std::to_string(to) +
                     " is empty"};
    if (to >= gcCount()) return Error{gcRangeError(to)};
    return replay(from, to, fn, on_death);
}

Result<std::optional<HeapSnapshot>> HeapHistory::snapshotFor(const HeapState& heap) const {
    if (sampled()) return std::optional<HeapSnapshot>{};
    const SnapshotInfo* best = nullptr;
    for (const SnapshotInfo& s : data_->snapshots)
        if (s.gc <= heap.gc()) best = &s;
    if (!best) return std::optional<HeapSnapshot>{};
    SnapshotLoadOptions lo;
    lo.watermark = data_->watermarks[best->gc];
    auto snap = loadSnapshot(*trace_, *best, heap.store(), lo);
    if (Status whole = trace_->intact(); !whole) return whole.error();
    if (!snap) return snap.error();
    return std::optional<HeapSnapshot>(std::move(*snap));
}

Result<std::optional<HeapHistory::WholeSnapshot>> HeapHistory::wholeSnapshotFor(const HeapState& heap) const {
    if (!sampled()) return std::optional<WholeSnapshot>{};
    auto it = std::find_if(data_->snapshots.begin(), data_->snapshots.end(),
                           [&](const SnapshotInfo& s) { return s.gc == heap.gc(); });
    if (it == data_->snapshots.end()) return std::optional<WholeSnapshot>{};
    auto whole = WholeHeap::load(*trace_, *it, heap.view());
    if (!whole) return whole.error();
    SnapshotLoadOptions lo;
    lo.watermark = data_->watermarks[it->gc];
    auto snap = loadSnapshot(*trace_, *it, (*whole)->store(), lo);
    if (Status intact = trace_->intact(); !intact) return intact.error();
    if (!snap) return snap.error();
    return std::optional<WholeSnapshot>(WholeSnapshot{std::move(*whole), std::move(*snap)});
}

}  // namespace memcity
