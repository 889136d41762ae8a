// PodArray<T>: a growable array of trivially copyable values held in its own memory mapping.
// Growing remaps the pages instead of copying them (mremap), and shrinking gives pages back to
// the system, so the big per-object columns neither copy themselves as they grow nor keep slack
// resident after a compaction. Move-only.
#pragma once

#include <sys/mman.h>

#include <algorithm>
#include <cstddef>
#include <cstring>
#include <new>
#include <type_traits>
#include <utility>

namespace memcity {

template <class T>
class PodArray {
    static_assert(std::is_trivially_copyable_v<T>, "PodArray holds plain values");

public:
    PodArray() = default;
    PodArray(const PodArray& other) { *this = other; }
    PodArray& operator=(const PodArray& other) {
        if (this != &other) {
            clear();
            reserve(other.size_);
            if (other.size_) std::memcpy(data_, other.data_, other.size_ * sizeof(T));
            size_ = other.size_;
        }
        return *this;
    }
    PodArray(PodArray&& other) noexcept { swap(other); }
    PodArray& operator=(PodArray&& other) noexcept {
        PodArray(std::move(other)).swap(*this);
        return *this;
    }
    ~PodArray() {
        if (data_) ::munmap(data_, mapped_);
    }
    void swap(PodArray& other) noexcept {
        std::swap(data_, other.data_);
        std::swap(size_, other.size_);
        std::swap(mapped_, other.mapped_);
    }

    T* data() { return data_; }
    const T* data() const { return data_; }
    size_t size() const { return size_; }
    bool empty() const { return size_ == 0; }
    size_t capacity() const { return mapped_ / sizeof(T); }
    T& operator[](size_t i) { return data_[i]; }
    const T& operator[](size_t i) const { return data_[i]; }
    T* begin() { return data_; }
    T* end() { return data_ + size_; }
    const T* begin() const { return data_; }
    const T* end() const { return data_ + size_; }
    T& back() { return data_[size_ - 1]; }

    void push_back(const T& v) {
        if (size_ == capacity()) grow(size_ + 1);
        data_[size_++] = v;
    }
    // Inserts `v` before `pos`, and removes the element at `pos` (moving the ones after it: for
    // the rare change in the middle of a big array). Return where the element is, or was.
    T* insert(T* pos, const T& v) {
        const auto at = static_cast<size_t>(pos - data_);
        if (size_ == capacity()) grow(size_ + 1);
        std::memmove(static_cast<void*>(data_ + at + 1), data_ + at, (size_ - at) * sizeof(T));
        data_[at] = v;
        ++size_;
        return data_ + at;
    }
    T* erase(T* pos) {
        const auto at = static_cast<size_t>(pos - data_);
        std::memmove(static_cast<void*>(data_ + at), data_ + at + 1, (size_ - at - 1) * sizeof(T));
        --size_;
        return data_ + at;
    }
    // New elements are zero.
    void resize(size_t n) {
        if (n > capacity()) grow(n);
        if (n > size_) std::memset(static_cast<void*>(data_ + size_), 0, (n - size_) * sizeof(T));
        size_ = n;
        trim();
    }
    void resize(size_t n, const T& value) {
        size_t old = size_;
        resize(n);
        std::fill(data_ + std::min(old, n), data_ + n, value);
    }
    void reserve(size_t n) {
        if (n > capacity()) remap(n);
    }
    void assign(size_t n, const T& value) {
        size_ = 0;
        resize(n, value);
    }
    void clear() {
        if (data_) ::munmap(data_, mapped_);
        data_ = nullptr;
        size_ = mapped_ = 0;
    }
    void shrink_to_fit() { trim(); }
    size_t memoryBytes() const { return mapped_; }

private:
    static constexpr size_t kPage = 4096;
    static size_t roundUp(size_t bytes) { return (bytes + kPage - 1) & ~(kPage - 1); }

    void grow(size_t n) { remap(std::max(n, capacity() + capacity() / 4 + 1024)); }
    // Gives back whole pages past a quarter of slack.
    void trim() {
        size_t want = roundUp(size_ * sizeof(T));
        if (mapped_ > kPage * 16 && want + want / 4 < mapped_) remap(size_);
    }
    void remap(size_t n) {
        size_t bytes = roundUp(std::max<size_t>(n, 1) * sizeof(T));
        void* p;
        if (!data_) {
            p = ::mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        } else {
            p = ::mremap(data_, mapped_, bytes, MREMAP_MAYMOVE);
        }
        if (p == MAP_FAILED) throw std::bad_alloc();
        data_ = static_cast<T*>(p);
        mapped_ = bytes;
    }

    T* data_ = nullptr;
    size_t size_ = 0;
    size_t mapped_ = 0;
};

}  // namespace memcity
