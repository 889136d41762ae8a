// OrExit<T>: what a command's shared start hands back, the way Result<T> hands back a value or
// an Error: the value to go on with, or the exit status the command returns now (its one line on
// stderr, or its help, printed already).
#pragma once

#include <utility>
#include <variant>

namespace memcity::cli {

// The command ends here with `status` (commands.h: 0 after --help, 1 after bad input).
struct ExitWith {
    int status = 1;
};

template <class T>
class [[nodiscard]] OrExit {
public:
    OrExit(T value) : data_(std::move(value)) {}  // NOLINT(google-explicit-constructor)
    OrExit(ExitWith exit) : data_(exit) {}        // NOLINT(google-explicit-constructor)

    // True when the command goes on with value().
    bool ok() const { return data_.index() == 0; }
    explicit operator bool() const { return ok(); }

    // Contract: value() only when ok(), status() only when not.
    T& value() & { return std::get<0>(data_); }
    const T& value() const& { return std::get<0>(data_); }
    int status() const { return std::get<1>(data_).status; }

    T* operator->() { return &value(); }
    const T* operator->() const { return &value(); }
    T& operator*() & { return value(); }
    const T& operator*() const& { return value(); }

private:
    std::variant<T, ExitWith> data_;
};

}  // namespace memcity::cli
