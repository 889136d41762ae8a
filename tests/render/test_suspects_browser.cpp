// The suspects HTML report (docs/suspects.md) in a real headless browser, where chromium is
// installed: a screenshot that is not blank and the findings' text in its DOM. Here rather than
// with the other `memcity suspects` tests (tests/cli/test_cli_suspects.cpp, in memcity_tests)
// because reading the screenshot takes render/png.h, and memcity_tests links no renderer.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "cli/run_memcity.h"
#include "render/png.h"
#include "unit/trace_builder.h"

namespace memcity {
namespace {

using testing::Outcome;
using testing::runMemcity;
using testing::runShell;
using testing::tempPath;

bool has(const std::string& text, const std::string& what) {
    return text.find(what) != std::string::npos;
}

TEST(SuspectsBrowser, HtmlOpensInHeadlessChromium) {
    if (runShell("command -v chromium").status != 0)
        GTEST_SKIP() << "chromium is not installed: no browser test";
    const std::string html = tempPath("suspects-demo") + ".html";
    Outcome r = runMemcity(std::string("suspects ") + MEMCITY_DEMO_TRACE + " --format html -o " + html);
    ASSERT_EQ(r.status, 0) << r.err;
    const std::string shot = tempPath("suspects-shot") + ".png";
    const std::string flags =
        "--headless --no-sandbox --disable-gpu --user-data-dir=" + testing::tempDir("suspects-chromium");
    Outcome s = runShell("timeout 60 chromium " + flags + " --screenshot=" + shot +
                         " --window-size=1000,1400 file://" + html);
    ASSERT_EQ(s.status, 0) << s.err;
    auto image = render::readPng(shot);
    ASSERT_TRUE(image.ok()) << image.error().message;
    EXPECT_EQ(image->width, 1000u);
    // Not blank: many distinct colours (text, the chart's lines and window, the city).
    std::set<uint32_t> colours;
    for (uint32_t y = 0; y < image->height; y += 2)
        for (uint32_t x = 0; x < image->width; x += 2)
            colours.insert(image->pixel(x, y));
    EXPECT_GT(colours.size(), 50u);

    Outcome d = runShell("timeout 60 chromium " + flags + " --dump-dom file://" + html);
    ASSERT_EQ(d.status, 0) << d.err;
    EXPECT_TRUE(has(d.out, "Suspect 1: java.util.concurrent.ConcurrentHashMap")) << d.out.substr(0, 2000);
    EXPECT_TRUE(has(d.out, "ShopServer$AuditEntry"));
    EXPECT_TRUE(has(d.out, "static field ShopServer.AUDIT_HISTORY"));
}

}  // namespace
}  // namespace memcity
