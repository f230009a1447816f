// Minimal JSON (RFC 8259) for Carousel's own small descriptive files (`carousel mf`'s
// model.json): the pieces to write one by hand, and a reader into a tree. Not meant for
// large or foreign documents: the whole text is held, and nesting is limited.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace carousel::io {

// A JSON string literal: `text` in double quotes, with '"', '\' and control characters
// escaped (other bytes, UTF-8 included, as they are).
std::string JsonString(std::string_view text);

// The shortest JSON number that reads back as exactly `value` (as a double, or as a float);
// `null` for NaN and infinities, which JSON cannot spell.
std::string JsonNumber(double value);
std::string JsonNumber(float value);

struct JsonValue {
  enum class Kind { kNull, kBool, kNumber, kString, kArray, kObject };
  Kind kind = Kind::kNull;
  bool boolean = false;
  std::string text;              // a string's value, or a number as written (integers stay exact)
  std::vector<JsonValue> items;  // an array's
  std::vector<std::pair<std::string, JsonValue>> members;  // an object's, in order
  std::size_t line = 0;                                    // where the value starts

  // The member named `key` of an object (the first, if repeated); null if absent or not an
  // object.
  const JsonValue* Find(std::string_view key) const;
  // A number as a double; nullopt unless a number.
  std::optional<double> AsDouble() const;
  // A number that is a non-negative integer below 2^64, exactly; nullopt otherwise.
  std::optional<std::uint64_t> AsUnsigned() const;
};

// Parses a whole JSON text (one value, surrounded by whitespace only). Throws
// carousel::InputError("path:line", problem) for malformed text.
JsonValue ParseJson(std::string_view text, const std::string& path);

}  // namespace carousel::io
