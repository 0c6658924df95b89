// Untrusted JSON text: bounded nesting, refused duplicate keys, a memory budget checked before
// anything is built, and errors that say where (docs/formats.md "Files from elsewhere").
#include "model/io/json_text.h"

#include <malloc.h>

#include <gtest/gtest.h>

#include "model/core/error.h"

namespace servescope {
namespace {

std::string nested_arrays(std::size_t depth) {
  return std::string(depth, '[') + std::string(depth, ']');
}

std::string message_of(std::string_view text, const JsonLimits& limits = {}) {
  try {
    parse_json_text(text, "in.json", limits);
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(JsonText, ReadsOrdinaryDocuments) {
  const auto j = parse_json_text(R"({"a": [1, 2.5, "x", true, null, {"b": {}}], "c": -3})", "in.json");
  EXPECT_EQ(j["a"][1], 2.5);
  EXPECT_EQ(j["a"][2], "x");
  EXPECT_EQ(j["c"], -3);
  EXPECT_TRUE(j["a"][5]["b"].is_object());
  EXPECT_EQ(parse_json_text("18446744073709551615", "in.json").get<std::uint64_t>(), 18446744073709551615u);
}

TEST(JsonText, NestingIsBoundedAndNamedByPath) {
  EXPECT_NO_THROW(parse_json_text(nested_arrays(kMaxJsonDepth), "in.json"));
  const auto m = message_of(nested_arrays(kMaxJsonDepth + 1));
  EXPECT_NE(m.find("in.json"), std::string::npos) << m;
  EXPECT_NE(m.find("nested deeper than 64 levels"), std::string::npos) << m;
  // A million levels (the GUI crashed at that) are refused the same way, with no recursion.
  EXPECT_NE(message_of(nested_arrays(1'000'000)).find("nested deeper"), std::string::npos);
  const auto in_object = message_of(R"({"plans": [{"body": )" + nested_arrays(100'000) + "}]}");
  EXPECT_NE(in_object.find("$.plans[0].body[0][0]"), std::string::npos) << in_object;
}

TEST(JsonText, DuplicateKeysAreRefusedWithTheirPlace) {
  const auto m = message_of(R"({"workloads": [{"rate_rps": -5, "rate_rps": 15000}]})");
  EXPECT_NE(m.find("$.workloads[0].rate_rps"), std::string::npos) << m;
  EXPECT_NE(m.find("appears twice"), std::string::npos) << m;
  // The same key in sibling objects is fine.
  EXPECT_NO_THROW(parse_json_text(R"([{"a": 1}, {"a": 2}])", "in.json"));
}

TEST(JsonText, SyntaxErrorsNameLineAndColumn) {
  const auto m = message_of("{\n  \"a\": 1,\n  \"b\": tru\n}");
  EXPECT_NE(m.find("in.json"), std::string::npos) << m;
  EXPECT_NE(m.find("line 3"), std::string::npos) << m;
  EXPECT_NE(message_of("[1e400]").find("number overflow"), std::string::npos);
  EXPECT_NE(message_of("[\"\xff\"]").find("invalid"), std::string::npos);
  EXPECT_NE(message_of("").find("invalid JSON"), std::string::npos);
}

TEST(JsonText, TextThatWouldTakeFarMoreMemoryThanItsSizeIsRefusedBeforeItIsBuilt) {
  // Two million empty arrays: 6 MB of text, over 100 MB once built.
  std::string text = "[";
  for (int i = 0; i < 2'000'000; ++i)
    text += i ? ",[]" : "[]";
  text += "]";
  const JsonLimits small{.min_budget_bytes = 16u << 20};
  const auto before = mallinfo2().uordblks;
  const auto m = message_of(text, small);
  EXPECT_NE(m.find("of memory once read"), std::string::npos) << m;
  // Nothing was built: the heap did not grow by the value's size while refusing it.
  EXPECT_LT(mallinfo2().uordblks, before + (8u << 20));
  // Ordinary numbers fit within the default eight times their text.
  std::string numbers = "[";
  for (int i = 0; i < 200'000; ++i)
    numbers += (i ? "," : "") + std::to_string(1'000'000 + i);
  numbers += "]";
  EXPECT_NO_THROW(parse_json_text(numbers, "in.json", small));
}

TEST(JsonText, TheEstimateCoversWhatTheValueReallyTakes) {
  // Calibrates the constants: the estimate may be generous but never short by more than a
  // quarter, for rows of numbers (timelines), objects with names, and empty containers.
  for (const std::string row : {"[12345,678,9.5,1,0]", "{\"name\":\"resnet50-batch-sixteen\",\"rate\":12.5}", "[]"}) {
    std::string text = "[";
    for (int i = 0; i < 100'000; ++i)
      text += (i ? "," : "") + row;
    text += "]";
    const auto before = mallinfo2().uordblks;
    const auto value = parse_json_text(text, "in.json");
    const auto taken = mallinfo2().uordblks - before;
    EXPECT_GE(static_cast<double>(estimated_json_memory_bytes(text)), 0.75 * static_cast<double>(taken)) << row;
  }
}

}  // namespace
}  // namespace servescope
