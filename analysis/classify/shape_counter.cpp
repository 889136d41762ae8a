#include "classify/shape_counter.h"

#include <algorithm>
#include <atomic>
#include <thread>

#include "util/parallel.h"

namespace memcity {
namespace {

// Tombstones in [begin, end): four counters so the loop keeps several compares in flight.
size_t deadIn(const uint32_t* shape, size_t begin, size_t end) {
    size_t n0 = 0, n1 = 0, n2 = 0, n3 = 0;
    size_t p = begin;
    for (; p + 4 <= end; p += 4) {
        n0 += shape[p] == ObjectStore::kDead;
        n1 += shape[p + 1] == ObjectStore::kDead;
        n2 += shape[p + 2] == ObjectStore::kDead;
        n3 += shape[p + 3] == ObjectStore::kDead;
    }
    for (; p < end; ++p)
        n0 += shape[p] == ObjectStore::kDead;
    return n0 + n1 + n2 + n3;
}

// What a recount of one epoch found, until it replaces the epoch's counts.
struct Fresh {
    std::vector<uint32_t> shapes;
    std::vector<ShapeCount> counts;
    std::vector<size_t> first;  // a position of each shape
    uint64_t live = 0;
};

}  // namespace

void ShapeCounter::countRange(const HeapView& heap, size_t begin, size_t end, const SizeRule* rules,
                              Scratch& s) {
    const uint32_t* shape = heap.store().shape.data();
    const uint16_t* length16 = heap.store().length16.data();
    ShapeCount* dense = s.dense.data();
    size_t* first = s.first.data();
    // Sizes that do not follow the layout live in a side table: look every array up then.
    const bool by_layout = heap.store().explicit_sizes.empty();
    for (size_t pos = begin; pos < end; ++pos) {
        const uint32_t sh = shape[pos];
        if (sh == ObjectStore::kDead) continue;
        ShapeCount& c = dense[sh];
        if (c.objects++ == 0) {
            s.touched.push_back(sh);
            first[sh] = pos;
        }
        const SizeRule& r = rules[sh];
        const uint16_t length = length16[pos];  // 0 for instances
        if (r.array && (length == ObjectStore::kLongLength || !by_layout))
            c.bytes += heap.size(pos);
        else
            c.bytes += (r.base + uint64_t{length} * r.element + r.round) & r.mask;
    }
}

void ShapeCounter::update(const HeapView& heap) {
    const uint32_t g = heap.gc();
    if (gc_ != UINT32_MAX && g <= gc_) {  // not a forward step: start afresh
        epochs_.clear();
        std::fill(totals_.begin(), totals_.end(), ShapeCount{});
        std::fill(rep_gc_.begin(), rep_gc_.end(), UINT32_MAX);
    }
    const std::span<const uint64_t> wm = heap.watermarks();
    // One new epoch per GC since the last update.
    for (uint32_t e = gc_ == UINT32_MAX || epochs_.empty() ? 0 : gc_ + 1; e <= g; ++e) {
        Epoch ep;
        ep.id_end = e < wm.size() ? wm[e] : UINT64_MAX;
        epochs_.push_back(std::move(ep));
    }
    gc_ = g;
    const size_t shapes = heap.shapes().size();
    totals_.resize(shapes);
    rep_pos_.resize(shapes, 0);
    rep_gc_.resize(shapes, UINT32_MAX);
    // Sizes by shape in one flat array: bytes = (base + length * element + round) & mask, an
    // instance's size or an array's layout, rounded up to the alignment. Shapes never change.
    const uint64_t align = heap.alignment();
    for (size_t sh = rules_.size(); sh < shapes; ++sh) {
        const Shape& shp = heap.shapes()[static_cast<uint32_t>(sh)];
        if (shp.size != 0) {
            rules_.push_back({shp.size, 0, 0, ~uint64_t{0}, false});
        } else {
            const TypeLayout& l = heap.symbols().layouts()[shp.type];
            rules_.push_back({l.array_header, l.element_size, align - 1, ~(align - 1), true});
        }
    }

    // The epochs' positions in this heap (the last one ends where the heap does).
    const IdColumn& ids = heap.store().ids;
    const size_t n = heap.positions();
    size_t begin = 0;
    for (size_t e = 0; e < epochs_.size(); ++e) {
        const size_t end = e + 1 == epochs_.size() ? n : ids.lowerBound(epochs_[e].id_end, begin, n);
        epochs_[e].begin = begin;
        epochs_[e].end = end;
        begin = end;
    }

    // Which epochs changed (in parallel, newest first: they change most), counted afresh.
    const size_t count = epochs_.size();
    const unsigned threads = static_cast<unsigned>(std::clamp<size_t>(options_.threads, 1, count));
    scratch_.resize(threads);
    std::vector<Fresh> fresh(count);
    std::atomic<size_t> next{0};
    const uint32_t* shape = heap.store().shape.data();
    auto work = [&](unsigned t) {
        Scratch& s = scratch_[t];
        s.dense.resize(shapes);
        s.first.resize(shapes);
        for (size_t i; (i = next.fetch_add(1, std::memory_order_relaxed)) < count;) {
            Epoch& ep = epochs_[count - 1 - i];
            Fresh& f = fresh[count - 1 - i];
            const uint64_t live = (ep.end - ep.begin) - deadIn(shape, ep.begin, ep.end);
            ep.changed = !options_.incremental || !ep.counted || live != ep.live;
            if (!ep.changed) continue;
            f.live = live;
            countRange(heap, ep.begin, ep.end, rules_.data(), s);
            f.shapes = s.touched;
            f.counts.reserve(s.touched.size());
            f.first.reserve(s.touched.size());
            for (uint32_t sh : s.touched) {
                f.counts.push_back(s.dense[sh]);
                f.first.push_back(s.first[sh]);
                s.dense[sh] = {};
            }
            s.touched.clear();
        }
    };
    runParts(threads, [&](size_t t) { work(static_cast<unsigned>(t)); });

    // Replace the changed epochs' counts in the totals.
    counted_epochs_ = 0;
    for (size_t e = 0; e < count; ++e) {
        Epoch& ep = epochs_[e];
        if (!ep.changed) continue;
        ++counted_epochs_;
        for (size_t i = 0; i < ep.shapes.size(); ++i) {
            ShapeCount& t = totals_[ep.shapes[i]];
            t.objects -= ep.counts[i].objects;
            t.bytes -= ep.counts[i].bytes;
        }
        Fresh& f = fresh[e];
        for (size_t i = 0; i < f.shapes.size(); ++i) {
            const uint32_t sh = f.shapes[i];
            totals_[sh].objects += f.counts[i].objects;
            totals_[sh].bytes += f.counts[i].bytes;
            rep_pos_[sh] = f.first[i];
            rep_gc_[sh] = g;
        }
        ep.shapes = std::move(f.shapes);
        ep.counts = std::move(f.counts);
        ep.live = f.live;
        ep.counted = true;
        ep.ids_valid = false;
    }
    while (epochs_.size() > std::max<size_t>(options_.max_epochs, 2))
        mergeSmallestPair();
}

void ShapeCounter::mergeSmallestPair() {
    // The two neighbours with the fewest live objects together, the newest epoch left alone.
    size_t best = 0;
    for (size_t e = 1; e + 2 < epochs_.size(); ++e)
        if (epochs_[e].live + epochs_[e + 1].live < epochs_[best].live + epochs_[best + 1].live) best = e;
    Epoch& a = epochs_[best];
    Epoch& b = epochs_[best + 1];
    // Sum the sparse counts through the first thread's scratch.
    Scratch& s = scratch_[0];
    for (size_t i = 0; i < a.shapes.size() + b.shapes.size(); ++i) {
        const bool in_a = i < a.shapes.size();
        const uint32_t sh = in_a ? a.shapes[i] : b.shapes[i - a.shapes.size()];
        const ShapeCount& c = in_a ? a.counts[i] : b.counts[i - a.shapes.size()];
        if (s.dense[sh].objects == 0) s.touched.push_back(sh);
        s.dense[sh].objects += c.objects;
        s.dense[sh].bytes += c.bytes;
    }
    a.shapes = s.touched;
    a.counts.clear();
    for (uint32_t sh : s.touched) {
        a.counts.push_back(s.dense[sh]);
        s.dense[sh] = {};
    }
    s.touched.clear();
    a.end = b.end;
    a.id_end = b.id_end;
    a.live += b.live;
    a.counted = a.counted && b.counted;
    a.ids_valid = a.ids_valid && b.ids_valid;
    a.ids.insert(a.ids.end(), b.ids.begin(), b.ids.end());
    epochs_.erase(epochs_.begin() + static_cast<ptrdiff_t>(best) + 1);
}

std::vector<uint64_t> ShapeCounter::collectIds(const HeapView& heap, const std::vector<uint8_t>& marked) {
    std::vector<uint64_t> out;
    const uint32_t* shape = heap.store().shape.data();
    for (Epoch& ep : epochs_) {
        if (!ep.ids_valid) {
            ep.ids.clear();
            bool any = false;
            for (uint32_t sh : ep.shapes)
                any = any || (sh < marked.size() && marked[sh]);
            if (any) {
                for (size_t pos = ep.begin; pos < ep.end; ++pos) {
                    const uint32_t sh = shape[pos];
                    if (sh != ObjectStore::kDead && sh < marked.size() && marked[sh])
                        ep.ids.push_back(heap.id(pos));
                }
            }
            ep.ids.shrink_to_fit();
            ep.ids_valid = true;
        }
        out.insert(out.end(), ep.ids.begin(), ep.ids.end());
    }
    return out;
}

size_t ShapeCounter::memoryBytes() const {
    size_t n = epochs_.capacity() * sizeof(Epoch) + totals_.capacity() * sizeof(ShapeCount) +
               rep_pos_.capacity() * sizeof(size_t) + rep_gc_.capacity() * sizeof(uint32_t);
    for (const Epoch& e : epochs_)
        n += e.shapes.capacity() * sizeof(uint32_t) + e.counts.capacity() * sizeof(ShapeCount) +
             e.ids.capacity() * sizeof(uint64_t);
    for (const Scratch& s : scratch_)
        n += s.dense.capacity() * sizeof(ShapeCount) + s.first.capacity() * sizeof(size_t) +
             s.touched.capacity() * sizeof(uint32_t);
    return n;
}

}  // namespace memcity
