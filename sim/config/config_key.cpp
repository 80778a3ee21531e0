#include "sim/config/config_key.hpp"

#include <algorithm>

#include "sim/config/json_reader.hpp"

namespace ftsim::config {

namespace {

const char* const kKeyHelp = "a key of the config: a JSON pointer such as \"/protocol/type\" or a dotted path such as \"protocol.type\"";

bool is_index(const std::string& token) {
  return !token.empty() && token.size() <= 9 && std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; }) &&
         (token == "0" || token.front() != '0');
}

}  // namespace

std::optional<ConfigKey> parse_config_key(const std::string& text, std::string& problem) {
  ConfigKey key;
  std::string token;
  if (!text.empty() && text.front() == '/') {
    for (std::size_t i = 1; i <= text.size(); ++i) {
      if (i == text.size() || text[i] == '/') {
        key.tokens.push_back(token);
        token.clear();
      } else if (text[i] == '~') {
        const char next = i + 1 < text.size() ? text[i + 1] : '\0';
        if (next != '0' && next != '1') {
          problem = std::string("expected ") + kKeyHelp + ", got \"" + text + "\": \"~\" must be followed by 0 or 1";
          return std::nullopt;
        }
        token += next == '0' ? '~' : '/';
        ++i;
      } else {
        token += text[i];
      }
    }
  } else {
    for (std::size_t i = 0; i <= text.size(); ++i) {
      if (i == text.size() || text[i] == '.') {
        key.tokens.push_back(token);
        token.clear();
      } else {
        token += text[i];
      }
    }
  }
  for (const auto& t : key.tokens) {
    if (t.empty()) {
      problem = std::string("expected ") + kKeyHelp + ", got \"" + text + "\" (an empty step)";
      return std::nullopt;
    }
  }
  for (std::size_t i = 0; i < key.tokens.size(); ++i) {
    key.pointer += "/" + escape_pointer_token(key.tokens[i]);
    key.column += (i ? "." : "") + key.tokens[i];
  }
  return key;
}

std::optional<std::string> set_config_key(nlohmann::json& document, const ConfigKey& key, const nlohmann::json& value,
                                          std::string_view document_name) {
  nlohmann::json* node = &document;
  std::string path;
  for (std::size_t i = 0; i < key.tokens.size(); ++i) {
    const std::string& token = key.tokens[i];
    const bool last = i + 1 == key.tokens.size();
    if (node->is_object()) {
      if (last) {
        (*node)[token] = value;
        return std::nullopt;
      }
      if (!node->contains(token)) (*node)[token] = nlohmann::json::object();
      node = &(*node)[token];
    } else if (node->is_array()) {
      if (!is_index(token) || std::stoul(token) >= node->size()) {
        return "cannot set " + key.pointer + ": " + (path.empty() ? "/" : path) + " is an array of " + std::to_string(node->size()) +
               " elements in " + std::string(document_name) + ", and \"" + token + "\" is not one of its indices";
      }
      if (last) {
        (*node)[std::stoul(token)] = value;
        return std::nullopt;
      }
      node = &(*node)[std::stoul(token)];
    } else {
      return "cannot set " + key.pointer + ": " + (path.empty() ? "/" : path) + " is " + node->dump() + " in " +
             std::string(document_name) + ", not an object";
    }
    path += "/" + escape_pointer_token(token);
  }
  return std::nullopt;
}

bool contains_key(const ConfigKey& a, const ConfigKey& b) {
  return a.tokens.size() <= b.tokens.size() && std::equal(a.tokens.begin(), a.tokens.end(), b.tokens.begin());
}

}  // namespace ftsim::config
