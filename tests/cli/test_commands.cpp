// The command list (cli/commands.cpp) and the help made from it, in-process.
#include <gtest/gtest.h>

#include <set>
#include <sstream>
#include <string>

#include "cli/commands.h"

namespace memcity {
namespace {

using cli::Command;

TEST(Commands, EachIsListedOnceAndFoundByName) {
    std::set<std::string_view> names;
    for (const Command& c : cli::commands()) {
        EXPECT_TRUE(names.insert(c.name).second) << "listed twice: " << c.name;
        EXPECT_EQ(cli::findCommand(c.name), &c) << c.name;
    }
    EXPECT_EQ(names.size(), 21u);
    EXPECT_EQ(cli::findCommand("frobnicate"), nullptr);
    EXPECT_EQ(cli::findCommand(""), nullptr);
    EXPECT_EQ(cli::findCommand("help"), nullptr);  // (main answers it, not a command)
}

TEST(Commands, EachHasSummaryUsageOptionsAndRun) {
    for (const Command& c : cli::commands()) {
        EXPECT_FALSE(c.summary.empty()) << c.name;
        EXPECT_EQ(c.summary.find('\n'), std::string_view::npos) << c.name;
        EXPECT_TRUE(c.usage.starts_with("usage: memcity ")) << c.name;
        EXPECT_TRUE(cli::usageOf(c).ends_with("\n\n")) << c.name;  // a blank line before "options:"
        EXPECT_NE(c.run, nullptr) << c.name;
        std::set<std::string_view> options;
        for (const cli::OptionSpec& o : c.options) {
            EXPECT_TRUE(o.name.starts_with("--")) << c.name << " " << o.name;
            EXPECT_TRUE(options.insert(o.name).second) << c.name << " lists " << o.name << " twice";
            if (!o.short_name.empty()) {
                EXPECT_TRUE(options.insert(o.short_name).second) << c.name << " " << o.short_name;
            }
        }
    }
}

TEST(Commands, OnlyThoseReadingDumpsOrProgramsKeepTheirWords) {
    // main replaces a heap dump among the words by its imported trace, except for these.
    std::set<std::string_view> keep;
    for (const Command& c : cli::commands())
        if (!c.import_dumps) keep.insert(c.name);
    EXPECT_EQ(keep, (std::set<std::string_view>{"attach", "dump", "import", "record"}));
}

TEST(Commands, HelpOfACommandIsItsUsageThenItsOptions) {
    std::ostringstream out, err;
    EXPECT_EQ(cli::runHelp({"info"}, "9.9", out, err), 0);
    EXPECT_EQ(out.str(), std::string(cli::findCommand("info")->usage) +
                             "options:\n"
                             "  --json       print JSON instead of text (docs/cli.md describes its shape)\n"
                             "  -h, --help   this help\n");
    EXPECT_EQ(err.str(), "");
    std::ostringstream same;
    EXPECT_EQ(cli::printHelp("info", same), 0);
    EXPECT_EQ(same.str(), out.str());
}

TEST(Commands, HelpOfAnUnknownCommandIsOneLineAndFails) {
    std::ostringstream out, err;
    EXPECT_EQ(cli::runHelp({"frobnicate"}, "9.9", out, err), 1);
    EXPECT_EQ(out.str(), "");
    EXPECT_EQ(err.str(), "memcity: unknown command 'frobnicate' (see 'memcity --help')\n");
}

TEST(Commands, UsageListsEveryCommandInOrderWithItsSummary) {
    std::ostringstream out, err;
    EXPECT_EQ(cli::runHelp({}, "9.9", out, err), 0);
    const std::string text = out.str();
    EXPECT_TRUE(text.starts_with("memcity 9.9 - explore how a garbage-collected heap evolves\n")) << text;
    size_t at = text.find("\ncommands:\n");
    ASSERT_NE(at, std::string::npos) << text;
    for (const Command& c : cli::commands()) {
        const std::string name(c.name);
        // The summary in a column after the name, or one space after a long name.
        const std::string line = "\n  " + name + std::string(name.size() < 8 ? 8 - name.size() : 1, ' ') +
                                 std::string(c.summary) + "\n";
        const size_t found = text.find(line, at);
        EXPECT_NE(found, std::string::npos) << line;
        if (found != std::string::npos) at = found + 1;
    }
    EXPECT_EQ(err.str(), "");
}

}  // namespace
}  // namespace memcity
