// The documentation cannot drift from the code: docs/parameters.md is the parameter table itself
// (regenerate it with scripts/update_params_doc.py), the README opens with the two set-up
// commands and stays a front door, and every relative link in README.md and docs/ resolves.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <regex>
#include <set>
#include <sstream>

#include "host/config/params.hpp"
#include "tests/support/run_helpers.hpp"

namespace saturn {
namespace {

namespace fs = std::filesystem;

TEST(Docs, ParameterPageMatchesTheTable) {
  const std::string page = test::read_file(test::source_path("docs/parameters.md"));
  std::string table = params_markdown();
  while (!table.empty() && table.back() == '\n') table.pop_back();
  EXPECT_NE(page.find(table), std::string::npos)
      << "docs/parameters.md is stale: run /usr/bin/python3 scripts/update_params_doc.py";
}

TEST(Docs, ReadmeOpensWithTheTwoCommands) {
  const std::string readme = test::read_file(test::source_path("README.md"));
  const auto first = readme.find("bash scripts/setup.sh && ./build/saturn run configs/default.toml");
  const auto second = readme.find("bash scripts/setup.sh && bash scripts/test.sh");
  ASSERT_NE(first, std::string::npos);
  ASSERT_NE(second, std::string::npos);
  EXPECT_LT(first, 800u);
  EXPECT_LT(second, 800u);
  EXPECT_NE(test::read_file(test::source_path(".ci/run")).find("bash scripts/setup.sh && bash scripts/test.sh"),
            std::string::npos);
}

TEST(Docs, ReadmeIsAFrontDoorNotTheManual) {
  const std::string readme = test::read_file(test::source_path("README.md"));
  const auto lines = std::count(readme.begin(), readme.end(), '\n');
  // Issue 66: a front door fits on a screen or two; status and reference prose live in docs/.
  EXPECT_LE(lines, 200) << "README.md has grown past a front door: move reference text to docs/";
  EXPECT_LE(readme.size(), 12u * 1024u) << "README.md has grown past a front door: move reference text to docs/";
  // No table cell of prose: a row a reader cannot scan belongs on a page of docs/.
  std::istringstream in(readme);
  for (std::string line; std::getline(in, line);)
    if (line.rfind("|", 0) == 0) EXPECT_LE(line.size(), 300u) << line.substr(0, 80) << "...";
}

// GitHub's heading anchor: lower case, spaces to '-', ASCII letters, digits, '-' and '_' kept,
// everything else dropped. Non-ASCII characters are dropped too (GitHub keeps non-ASCII letters):
// keep headings that are link targets in ASCII.
std::string anchor_of(const std::string& heading) {
  std::string out;
  for (unsigned char c : heading) {
    if (c >= 0x80) continue;
    if (std::isalnum(c) || c == '-' || c == '_') out += static_cast<char>(std::tolower(c));
    else if (c == ' ') out += '-';
  }
  return out;
}

std::set<std::string> anchors_of(const fs::path& file) {
  std::set<std::string> anchors;
  std::istringstream in(test::read_file(file.string()));
  bool fenced = false;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("```", 0) == 0) fenced = !fenced;
    if (fenced || line.empty() || line[0] != '#') continue;
    const auto text = line.find_first_not_of('#');
    if (text == std::string::npos) continue;
    std::string heading = line.substr(text);
    while (!heading.empty() && heading.front() == ' ') heading.erase(heading.begin());
    anchors.insert(anchor_of(heading));
  }
  return anchors;
}

// Every link or image `](target)` outside code fences whose target is not a URL must name an
// existing file (relative to the page) and, with `#anchor` into a Markdown page, a heading there.
std::vector<std::string> broken_links(const fs::path& page, const fs::path& root) {
  std::vector<std::string> broken;
  std::istringstream in(test::read_file(page.string()));
  const std::regex link(R"(\]\(([^)\s]+)\))");
  const std::regex url(R"(^[a-zA-Z][a-zA-Z0-9+.-]*:)");
  bool fenced = false;
  int line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.rfind("```", 0) == 0) {
      fenced = !fenced;
      continue;
    }
    if (fenced) continue;
    for (std::sregex_iterator it(line.begin(), line.end(), link), end; it != end; ++it) {
      const std::string target = (*it)[1];
      if (std::regex_search(target, url)) continue;
      const auto hash = target.find('#');
      const std::string path = target.substr(0, hash);
      const fs::path file = path.empty() ? page : page.parent_path() / path;
      const std::string where = fs::relative(page, root).string() + ":" + std::to_string(line_no) + ": ";
      if (!fs::exists(file)) {
        broken.push_back(where + "no file for " + target);
      } else if (hash != std::string::npos && file.extension() == ".md" &&
                 anchors_of(file).count(target.substr(hash + 1)) == 0) {
        broken.push_back(where + "no heading for " + target);
      }
    }
  }
  return broken;
}

std::vector<fs::path> documentation_pages(const fs::path& root) {
  std::vector<fs::path> pages{root / "README.md"};
  for (const auto& entry : fs::recursive_directory_iterator(root / "docs"))
    if (entry.is_regular_file() && entry.path().extension() == ".md") pages.push_back(entry.path());
  return pages;
}

TEST(Docs, EveryRelativeLinkResolves) {
  const fs::path root = test::source_path("");
  const auto pages = documentation_pages(root);
  EXPECT_GE(pages.size(), 5u);
  for (const auto& page : pages)
    for (const auto& broken : broken_links(page, root)) ADD_FAILURE() << broken;
}

TEST(Docs, LinkCheckCatchesAMissingFileAndAMissingHeading) {
  const fs::path dir = test::make_temp_dir("saturn_docs");
  test::write_file((dir / "a.md").string(),
                   "# Title: one\n\n[ok](#title-one) [ok](b.md#part-2) [web](https://x.org/y)\n"
                   "```\n[fenced](nowhere.md)\n```\n[gone](missing.md) [bad](b.md#part-3)\n");
  test::write_file((dir / "b.md").string(), "## Part 2\n");
  const auto broken = broken_links(dir / "a.md", dir);
  ASSERT_EQ(broken.size(), 2u);
  EXPECT_NE(broken[0].find("a.md:7: no file for missing.md"), std::string::npos) << broken[0];
  EXPECT_NE(broken[1].find("no heading for b.md#part-3"), std::string::npos) << broken[1];
}

}  // namespace
}  // namespace saturn
