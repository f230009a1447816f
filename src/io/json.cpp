#include "carousel/io/json.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <tuple>

#include "carousel/io/text_input.hpp"
#include "carousel/util/error.hpp"

namespace carousel::io {
namespace {

template <typename T>
std::string ShortestNumber(T value) {
  if (!std::isfinite(value)) return "null";
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

constexpr int kMaxDepth = 64;

// Recursive descent over the text, counting lines for the messages.
class Parser {
 public:
  Parser(std::string_view text, const std::string& path) : text_(text), path_(path) {}

  JsonValue Document() {
    SkipBlanks();
    JsonValue value = Value(0);
    SkipBlanks();
    if (pos_ != text_.size()) Fail("unexpected " + Near() + " after the JSON value");
    return value;
  }

 private:
  [[noreturn]] void Fail(const std::string& problem) const {
    throw InputError(path_ + ":" + std::to_string(line_), problem);
  }

  std::string Near() const {
    if (pos_ >= text_.size()) return "end of file";
    const std::string_view rest = text_.substr(pos_, 12);
    if (rest.front() == '\n' || rest.front() == '\r') return "end of line";
    return Quoted(rest.substr(0, rest.find_first_of("\r\n")));
  }

  void SkipBlanks() {
    for (; pos_ < text_.size(); ++pos_) {
      const char c = text_[pos_];
      if (c == '\n')
        ++line_;
      else if (c != ' ' && c != '\t' && c != '\r')
        break;
    }
  }

  bool Take(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }

  void Expect(char c, const char* what) {
    SkipBlanks();
    if (!Take(c)) Fail(std::string("expected ") + what + ", found " + Near());
  }

  JsonValue Value(int depth) {
    if (depth > kMaxDepth) Fail("nested more than " + std::to_string(kMaxDepth) + " deep");
    JsonValue value;
    value.line = line_;
    if (pos_ >= text_.size()) Fail("expected a value, found end of file");
    const char c = text_[pos_];
    if (c == '{') {
      value.kind = JsonValue::Kind::kObject;
      ++pos_;
      SkipBlanks();
      if (Take('}')) return value;
      for (;;) {
        SkipBlanks();
        if (pos_ >= text_.size() || text_[pos_] != '"')
          Fail("expected a member name in double quotes, found " + Near());
        std::string key = String();
        Expect(':', "':' after a member name");
        SkipBlanks();
        value.members.emplace_back(std::move(key), Value(depth + 1));
        SkipBlanks();
        if (Take('}')) return value;
        if (!Take(',')) Fail("expected ',' or '}' in an object, found " + Near());
      }
    }
    if (c == '[') {
      value.kind = JsonValue::Kind::kArray;
      ++pos_;
      SkipBlanks();
      if (Take(']')) return value;
      for (;;) {
        SkipBlanks();
        value.items.push_back(Value(depth + 1));
        SkipBlanks();
        if (Take(']')) return value;
        if (!Take(',')) Fail("expected ',' or ']' in an array, found " + Near());
      }
    }
    if (c == '"') {
      value.kind = JsonValue::Kind::kString;
      value.text = String();
      return value;
    }
    for (const auto& [word, kind, truth] : {std::tuple{"true", JsonValue::Kind::kBool, true},
                                            std::tuple{"false", JsonValue::Kind::kBool, false},
                                            std::tuple{"null", JsonValue::Kind::kNull, false}}) {
      const std::string_view w(word);
      if (text_.substr(pos_, w.size()) == w) {
        pos_ += w.size();
        value.kind = kind;
        value.boolean = truth;
        return value;
      }
    }
    value.kind = JsonValue::Kind::kNumber;
    value.text = Number();
    return value;
  }

  // -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
  std::string Number() {
    const std::size_t start = pos_;
    const auto digits = [&] {
      const std::size_t from = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
      return pos_ - from;
    };
    Take('-');
    const std::size_t whole = pos_;
    if (digits() == 0) {
      pos_ = start;
      Fail("expected a value, found " + Near());
    }
    if (text_[whole] == '0' && pos_ - whole > 1) Fail("a number with a leading zero");
    if (Take('.') && digits() == 0) Fail("a number without digits after '.'");
    if (Take('e') || Take('E')) {
      if (!Take('+')) Take('-');
      if (digits() == 0) Fail("a number without digits in its exponent");
    }
    return std::string(text_.substr(start, pos_ - start));
  }

  static void AppendUtf8(std::string& out, std::uint32_t code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  std::uint32_t Hex4() {
    if (text_.size() - pos_ < 4) Fail("a \\u escape needs 4 hex digits");
    std::uint32_t code = 0;
    const auto [end, error] =
        std::from_chars(text_.data() + pos_, text_.data() + pos_ + 4, code, 16);
    if (error != std::errc() || end != text_.data() + pos_ + 4)
      Fail("a \\u escape needs 4 hex digits");
    pos_ += 4;
    return code;
  }

  std::string String() {
    ++pos_;  // the opening quote
    std::string out;
    for (;;) {
      if (pos_ >= text_.size()) Fail("a string is not closed");
      const char c = text_[pos_++];
      if (c == '"') return out;
      if (static_cast<unsigned char>(c) < 0x20) Fail("a control character inside a string");
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) Fail("a string is not closed");
      const char e = text_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out += e;
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'n':
          out += '\n';
          break;
        case 'r':
          out += '\r';
          break;
        case 't':
          out += '\t';
          break;
        case 'u': {
          std::uint32_t code = Hex4();
          if (code >= 0xD800 && code < 0xDC00 && text_.substr(pos_, 2) == "\\u") {
            pos_ += 2;
            const std::uint32_t low = Hex4();
            if (low < 0xDC00 || low >= 0xE000) Fail("a \\u surrogate pair is broken");
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          }
          AppendUtf8(out, code);
          break;
        }
        default:
          Fail(std::string("unknown escape '\\") + e + "' in a string");
      }
    }
  }

  std::string_view text_;
  const std::string& path_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;
};

}  // namespace

std::string JsonString(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    switch (c) {
      case '"':
        out += "\\\"";
        break;
      case '\\':
        out += "\\\\";
        break;
      case '\n':
        out += "\\n";
        break;
      case '\r':
        out += "\\r";
        break;
      case '\t':
        out += "\\t";
        break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escape[8];
          std::snprintf(escape, sizeof escape, "\\u%04x", static_cast<unsigned>(c));
          out += escape;
        } else {
          out += c;
        }
    }
  }
  return out + "\"";
}

std::string JsonNumber(double value) {
  return ShortestNumber(value);
}

std::string JsonNumber(float value) {
  return ShortestNumber(value);
}

const JsonValue* JsonValue::Find(std::string_view key) const {
  if (kind != Kind::kObject) return nullptr;
  for (const auto& [name, value] : members)
    if (name == key) return &value;
  return nullptr;
}

std::optional<double> JsonValue::AsDouble() const {
  if (kind != Kind::kNumber) return std::nullopt;
  double value = 0.0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<std::uint64_t> JsonValue::AsUnsigned() const {
  if (kind != Kind::kNumber) return std::nullopt;
  std::uint64_t value = 0;
  const char* last = text.data() + text.size();
  const auto [end, error] = std::from_chars(text.data(), last, value);
  if (error != std::errc() || end != last) return std::nullopt;
  return value;
}

JsonValue ParseJson(std::string_view text, const std::string& path) {
  return Parser(StripByteOrderMark(text), path).Document();
}

}  // namespace carousel::io
