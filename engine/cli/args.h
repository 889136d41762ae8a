// Command-line parsing for memcity's subcommands: flags, options with values, positionals.
// Problems come back as one-line messages naming the command and the offending word.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "util/result.h"
#include "util/units.h"  // parseUnsigned, parseBytes

namespace memcity::cli {

// A picture's or a window's size in pixels, given as WIDTHxHEIGHT ("1280x720").
struct Size {
    uint32_t width = 0;
    uint32_t height = 0;
};

// One option of a command, as its help lists it (the command table, cli/help.cpp, holds them).
struct OptionSpec {
    std::string_view name;        // "--scale"
    std::string_view value;       // what it takes, as the help names it ("N", "FILE"); empty: a flag
    std::string_view short_name;  // "-o", or empty
    // One or more lines. Empty: the help shows the option on one line with the next one
    // ("--from A, --to B   the window ...").
    std::string_view help;

    bool takesValue() const { return !value.empty(); }
};

class Args {
public:
    // Parses argv[begin..) for `command`. "--" ends options. "--help"/"-h" is always a flag.
    static Result<Args> parse(std::string_view command, const std::vector<std::string>& argv,
                              const std::vector<OptionSpec>& specs);
    // The same with the options the command's entry in the command table lists (commands.h).
    static Result<Args> parse(std::string_view command, const std::vector<std::string>& argv);

    bool has(std::string_view name) const { return values_.count(std::string(name)) != 0; }
    std::optional<std::string> value(std::string_view name) const;
    const std::vector<std::string>& positionals() const { return positionals_; }
    // Where each positional is in argv (not an option's value, or an option).
    const std::vector<size_t>& positionalIndices() const { return positional_indices_; }
    bool help() const { return has("--help"); }

    // Typed values; errors name the command and option.
    Result<uint64_t> unsignedValue(std::string_view name, uint64_t fallback, uint64_t min = 0,
                                   uint64_t max = UINT64_MAX) const;
    // WIDTHxHEIGHT with each side within [min, max] of that side.
    Result<Size> sizeValue(std::string_view name, Size fallback, Size min, Size max) const;

private:
    std::string command_;
    std::map<std::string, std::string> values_;
    std::vector<std::string> positionals_;
    std::vector<size_t> positional_indices_;
};

}  // namespace memcity::cli
