// memcity: the command-line entry point, the one place that joins the commands (cli/) and the
// explorer (app/). Dispatches to the commands of cli/commands.cpp, and opens the window otherwise.
#include <exception>
#include <iostream>
#include <new>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "app/cmd_explore.h"
#include "app/live_record.h"
#include "cli/commands.h"
#include "cli/dump_open.h"
#include "hprof/import_cache.h"
#include "util/parallel.h"

namespace {

int run(std::vector<std::string> words);

}  // namespace

// The last line of defence: readers bound what they reserve by what their input holds, but an
// input that really holds more than the machine (or its address-space limit) can is an error,
// on one line, not an abort.
int main(int argc, char** argv) {
    std::exception_ptr failure;
    try {
        return run(std::vector<std::string>(argv + 1, argv + argc));
    } catch (const std::bad_alloc&) {
        failure = std::current_exception();
    } catch (const std::length_error&) {
        failure = std::current_exception();
    } catch (const std::system_error&) {  // (a thread that cannot be created, most often)
        failure = std::current_exception();
    }
    std::cerr << "memcity: " << memcity::describeFailure(failure) << "\n";
    return 1;
}

namespace {

int run(std::vector<std::string> words) {
    using namespace memcity::cli;
    if (words.empty()) return memcity::app::runExplore({});
    // A heap dump where a command expects a trace is its imported trace (not for the commands
    // that take dumps or a program's arguments; the window imports a dump itself, showing it as
    // the import writes it).
    if (const Command* command = findCommand(words[0]); command && command->import_dumps)
        if (memcity::Status s = openDumpsIn(words); !s.ok()) {
            std::cerr << "error: " << s.error().message << "\n";
            return 1;
        }
    const std::string first = words[0];
    const Words rest(words.begin() + 1, words.end());
    if (first == "--help" || first == "-h" || first == "help")
        return runHelp(first == "help" ? rest : Words{}, MEMCITY_VERSION, std::cout, std::cerr);
    if (first == "--version") {
        std::cout << "memcity " MEMCITY_VERSION "\n";
        return 0;
    }
    if (const Command* command = findCommand(first)) {
        const Services services{memcity::app::watchRecording};
        return command->run(rest, services);
    }
    // Anything else that is not an option is a trace to open.
    if (first.empty() || first[0] != '-') {
        if (first.find('.') == std::string::npos && first.find('/') == std::string::npos &&
            !memcity::hprof::isHeapDump(first)) {
            std::cerr << "memcity: unknown command '" << first << "' (see 'memcity --help')\n";
            return 1;
        }
        return memcity::app::runExplore(words);
    }
    return memcity::app::runExplore(words);
}

}  // namespace
