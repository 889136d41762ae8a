// Result<T>: a value or a human-readable error. Recoverable failures (I/O, parsing, bad
// input) travel as Result; no exception crosses a module boundary.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace memcity {

// A string from a file made safe to print on one line: control characters (C0, DEL and C1)
// become \n, \t or \xNN, bytes that are not UTF-8 become \xNN, valid UTF-8 stays (Java names
// may be any Unicode), and anything past `max_bytes` becomes "...". Names in a trace are untrusted.
std::string printable(std::string_view s, size_t max_bytes = 200);

// Builds "path: offset N: what" (the offset is omitted when it is kNoOffset).
inline constexpr uint64_t kNoOffset = ~uint64_t{0};
std::string describeAt(const std::string& path, uint64_t offset, const std::string& what);

// An error meant for a person, and where it was found. `message` is the whole line as printed
// (for file problems it names the file and, where one exists, the byte offset: "app.mct: offset
// 4096: chunk checksum mismatch"); `file` and `offset` say the same for a program to read.
struct Error {
    std::string message;
    std::string file;             // the file it concerns; empty where none (or not yet known)
    uint64_t offset = kNoOffset;  // bytes into `file`, or, with no file, into the bytes decoded

    Error() = default;
    explicit Error(std::string message_) : message(std::move(message_)) {}

    // "file: offset N: what" (describeAt), with `file` and `offset` kept.
    static Error at(const std::string& file, uint64_t offset, const std::string& what);
    // A decoder's error: `what` alone, at `offset` bytes into the data it was given (no file:
    // the caller, which knows where the data lies, builds the line a person reads).
    static Error inData(uint64_t offset, std::string what);
    bool hasOffset() const { return offset != kNoOffset; }
};

template <class T>
class [[nodiscard]] Result {
public:
    Result(T value) : data_(std::move(value)) {}      // NOLINT(google-explicit-constructor)
    Result(Error error) : data_(std::move(error)) {}  // NOLINT(google-explicit-constructor)

    bool ok() const { return data_.index() == 0; }
    explicit operator bool() const { return ok(); }

    // Contract: value() and error() may only be called when ok() says so.
    T& value() & { return std::get<0>(data_); }
    const T& value() const& { return std::get<0>(data_); }
    T&& value() && { return std::get<0>(std::move(data_)); }
    const Error& error() const { return std::get<1>(data_); }

    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

private:
    std::variant<T, Error> data_;
};

// Result without a value.
class [[nodiscard]] Status {
public:
    Status() = default;
    Status(Error error) : error_(std::move(error)), failed_(true) {}  // NOLINT(google-explicit-constructor)

    bool ok() const { return !failed_; }
    explicit operator bool() const { return ok(); }
    // Contract: only when !ok(); the whole Error (message, file, offset).
    const Error& error() const { return error_; }

private:
    Error error_;
    bool failed_ = false;
};

}  // namespace memcity
