#include "carousel/io/json.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>

#include "carousel/util/error.hpp"

namespace carousel::io {
namespace {

using Kind = JsonValue::Kind;

TEST(Json, ParsesEveryKindAndKeepsOrderAndLines) {
  const JsonValue v = ParseJson(
      "{\n  \"a\": 1,\n  \"b\": [true, false, null, -2.5e3, \"x\"],\n  \"c\": {\"d\": \"\"}\n}\n",
      "m.json");
  ASSERT_EQ(v.kind, Kind::kObject);
  ASSERT_EQ(v.members.size(), 3u);
  EXPECT_EQ(v.members[0].first, "a");
  EXPECT_EQ(v.members[2].first, "c");
  EXPECT_EQ(v.Find("a")->AsUnsigned(), 1u);
  EXPECT_EQ(v.Find("a")->line, 2u);
  const JsonValue& b = *v.Find("b");
  ASSERT_EQ(b.items.size(), 5u);
  EXPECT_EQ(b.line, 3u);
  EXPECT_TRUE(b.items[0].kind == Kind::kBool && b.items[0].boolean);
  EXPECT_TRUE(b.items[1].kind == Kind::kBool && !b.items[1].boolean);
  EXPECT_EQ(b.items[2].kind, Kind::kNull);
  EXPECT_EQ(b.items[3].AsDouble(), -2500.0);
  EXPECT_FALSE(b.items[3].AsUnsigned());
  EXPECT_EQ(b.items[4].text, "x");
  EXPECT_EQ(v.Find("c")->Find("d")->kind, Kind::kString);
  EXPECT_EQ(v.Find("missing"), nullptr);
  EXPECT_EQ(b.Find("a"), nullptr);  // not an object
}

TEST(Json, IntegersStayExact) {
  const JsonValue v = ParseJson("[18446744073709551615, 18446744073709551616, 3.0]", "m.json");
  EXPECT_EQ(v.items[0].AsUnsigned(), std::numeric_limits<std::uint64_t>::max());
  EXPECT_FALSE(v.items[1].AsUnsigned());
  EXPECT_FALSE(v.items[2].AsUnsigned());
}

TEST(Json, StringsRoundTripThroughEscapes) {
  const std::string text = std::string("quote \" backslash \\ tab \t newline \n bell \x07 é");
  const JsonValue v = ParseJson(JsonString(text), "m.json");
  EXPECT_EQ(v.kind, Kind::kString);
  EXPECT_EQ(v.text, text);
  EXPECT_EQ(ParseJson("\"\\u00e9\\ud83d\\ude00\\/\"", "m.json").text, "é\xF0\x9F\x98\x80/");
}

TEST(Json, NumbersReadBackExactly) {
  for (const double x : {0.1, 1.0 / 3.0, 6.02214076e23, -1e-300, 5.0}) {
    const JsonValue v = ParseJson(JsonNumber(x), "m.json");
    EXPECT_EQ(v.AsDouble(), x) << JsonNumber(x);
  }
  for (const float x : {3.52587509f, 0.1f, 1.0f, 5.0f}) {
    const JsonValue v = ParseJson(JsonNumber(x), "m.json");
    EXPECT_EQ(static_cast<float>(*v.AsDouble()), x) << JsonNumber(x);
  }
  EXPECT_EQ(JsonNumber(0.1f), "0.1");
  EXPECT_EQ(JsonNumber(std::nan("")), "null");
  EXPECT_EQ(JsonNumber(std::numeric_limits<double>::infinity()), "null");
}

TEST(Json, MalformedTextNamesFileAndLine) {
  const auto message = [](const std::string& text) -> std::string {
    try {
      ParseJson(text, "m.json");
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ExitCode::kInput);
      return e.what();
    }
    return "no error";
  };
  EXPECT_EQ(message("{\n\"a\": 1,\n}").rfind("m.json:3: expected a member name", 0), 0u)
      << message("{\n\"a\": 1,\n}");
  EXPECT_NE(message("[1 2]").find("m.json:1: expected ',' or ']'"), std::string::npos);
  EXPECT_NE(message("{\"a\" 1}").find("expected ':'"), std::string::npos);
  EXPECT_NE(message("\"open").find("not closed"), std::string::npos);
  EXPECT_NE(message("01").find("leading zero"), std::string::npos);
  EXPECT_NE(message("1.").find("digits after '.'"), std::string::npos);
  EXPECT_NE(message("tru").find("expected a value"), std::string::npos);
  EXPECT_NE(message("{} {}").find("after the JSON value"), std::string::npos);
  EXPECT_NE(message("").find("end of file"), std::string::npos);
  EXPECT_NE(message(std::string(100, '[')).find("nested more than"), std::string::npos);
}

}  // namespace
}  // namespace carousel::io
