#include "graphs/workflow_dot.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <unordered_map>

#include "sim/config/config_error.hpp"
#include "sim/config/input_file.hpp"

namespace ftsim::graphs {

namespace {

using config::ConfigError;

struct Token {
  enum Kind { id, symbol, end } kind = end;
  std::string text;  // an identifier, number or unquoted string; or the symbol
  std::size_t line = 1;
};

// DOT tokens: identifiers, numerals, "strings", <html> (refused), -> -- { } [ ] = ; , :
// Comments (// and /* */) and lines starting with # (preprocessor output) are skipped.
class Lexer {
public:
  Lexer(const std::string& text, const std::string& origin) : text_(text), origin_(origin) {}

  Token next() {
    skip_blanks();
    Token token;
    token.line = line_;
    if (pos_ >= text_.size()) return token;
    const char c = text_[pos_];
    if (c == '"') {
      token.kind = Token::id;
      token.text = quoted();
      return token;
    }
    if (c == '<') fail(line_, "HTML strings (<...>) are not supported");
    if (c == '-' && pos_ + 1 < text_.size() && (text_[pos_ + 1] == '>' || text_[pos_ + 1] == '-')) {
      token.kind = Token::symbol;
      token.text = text_.substr(pos_, 2);
      pos_ += 2;
      return token;
    }
    if (is_word(c) || c == '-' || c == '.') {
      token.kind = Token::id;
      const std::size_t begin = pos_;
      ++pos_;
      while (pos_ < text_.size() && (is_word(text_[pos_]) || text_[pos_] == '.')) ++pos_;
      token.text = text_.substr(begin, pos_ - begin);
      return token;
    }
    if (std::string("{}[]=;,:").find(c) != std::string::npos) {
      token.kind = Token::symbol;
      token.text = std::string(1, c);
      ++pos_;
      return token;
    }
    fail(line_, std::string("unexpected character '") + (std::isprint(static_cast<unsigned char>(c)) ? std::string(1, c) : "?") + "'");
  }

  [[noreturn]] void fail(std::size_t line, const std::string& message) const {
    throw ConfigError(origin_, "line " + std::to_string(line), message);
  }

private:
  static bool is_word(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           static_cast<unsigned char>(c) >= 0x80;
  }

  void skip_blanks() {
    bool line_start = pos_ == 0 || text_[pos_ - 1] == '\n';
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c == '\n') {
        ++line_;
        ++pos_;
        line_start = true;
      } else if (c == ' ' || c == '\t' || c == '\r') {
        ++pos_;
      } else if (c == '#' && line_start) {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else if (text_.compare(pos_, 2, "//") == 0) {
        while (pos_ < text_.size() && text_[pos_] != '\n') ++pos_;
      } else if (text_.compare(pos_, 2, "/*") == 0) {
        const std::size_t start_line = line_;
        pos_ += 2;
        while (pos_ < text_.size() && text_.compare(pos_, 2, "*/") != 0) {
          if (text_[pos_] == '\n') ++line_;
          ++pos_;
        }
        if (pos_ >= text_.size()) fail(start_line, "unterminated comment /* ... (no */)");
        pos_ += 2;
      } else {
        return;
      }
    }
  }

  std::string quoted() {
    const std::size_t start_line = line_;
    std::string out;
    ++pos_;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      char c = text_[pos_];
      if (c == '\\' && pos_ + 1 < text_.size()) {
        const char escaped = text_[pos_ + 1];
        if (escaped == '\n') {  // a line continuation
          ++line_;
          pos_ += 2;
          continue;
        }
        if (escaped == '"') {
          out += '"';
          pos_ += 2;
          continue;
        }
      }
      if (c == '\n') ++line_;
      out += c;
      ++pos_;
    }
    if (pos_ >= text_.size()) fail(start_line, "unterminated string (no closing \")");
    ++pos_;
    return out;
  }

  const std::string& text_;
  const std::string& origin_;
  std::size_t pos_ = 0;
  std::size_t line_ = 1;
};

using Attributes = std::map<std::string, std::pair<std::string, std::size_t>>;  // name -> value, line

class Parser {
public:
  Parser(const std::string& text, const std::string& origin) : lexer_(text, origin) {
    dag_.origin = origin;
    advance();
  }

  WorkflowDag parse() {
    if (is_id("strict")) advance();
    if (is_id("graph")) fail("an undirected graph; a task graph is a digraph (edges a -> b)");
    if (!is_id("digraph")) fail("expected \"digraph\", got " + describe());
    advance();
    if (token_.kind == Token::id) advance();  // the graph's name
    expect("{");
    while (!is_symbol("}")) {
      if (token_.kind == Token::end) fail("the file ends before the closing } of the digraph");
      statement();
    }
    advance();
    if (token_.kind != Token::end) fail("unexpected " + describe() + " after the closing } of the digraph");
    auto lines = std::make_shared<std::vector<std::size_t>>(std::move(task_line_));
    dag_.where = [lines](std::uint32_t t) { return "line " + std::to_string((*lines)[t]); };
    dag_.machine_key = "\"performer\" attribute";
    return std::move(dag_);
  }

private:
  void statement() {
    if (is_id("subgraph") || is_symbol("{")) fail("subgraphs are not supported");
    if (token_.kind != Token::id) fail("expected a node, an edge or an attribute statement, got " + describe());
    const Token first = token_;
    advance();
    if (first.text == "node" || first.text == "edge" || first.text == "graph") {
      if (is_symbol("[")) {
        Attributes defaults = attributes();
        // Defaults apply to the statements that follow; only the ones ftsim reads are kept.
        if (first.text == "node") merge(node_defaults_, defaults);
        if (first.text == "edge") merge(edge_defaults_, defaults);
      }
    } else if (is_symbol("=")) {  // a graph attribute: ignored
      advance();
      if (token_.kind != Token::id) fail("expected a value after =, got " + describe());
      advance();
    } else {
      std::vector<Token> chain{first};
      if (is_symbol(":")) fail("node ports (name:port) are not supported");
      while (is_symbol("->") || is_symbol("--")) {
        if (token_.text == "--") fail("an undirected edge \"--\" in a digraph; use ->");
        advance();
        if (is_symbol("{") || is_id("subgraph")) fail("subgraphs are not supported");
        if (token_.kind != Token::id) fail("expected a node name after ->, got " + describe());
        chain.push_back(token_);
        advance();
        if (is_symbol(":")) fail("node ports (name:port) are not supported");
      }
      Attributes attrs = is_symbol("[") ? attributes() : Attributes{};
      if (chain.size() == 1) {
        node_statement(first, attrs);
      } else {
        Attributes merged = edge_defaults_;
        merge(merged, attrs);
        for (std::size_t i = 0; i + 1 < chain.size(); ++i) edge(chain[i], chain[i + 1], merged);
      }
    }
    if (is_symbol(";")) advance();
  }

  // [a=b, c=d; e=f] [g=h] ...
  Attributes attributes() {
    Attributes attrs;
    while (is_symbol("[")) {
      advance();
      while (!is_symbol("]")) {
        if (token_.kind != Token::id) fail("expected an attribute name or ], got " + describe());
        const Token name = token_;
        advance();
        expect("=");
        if (token_.kind != Token::id) fail("expected a value for attribute \"" + name.text + "\", got " + describe());
        if (attrs.count(name.text)) fail("attribute \"" + name.text + "\" is given twice", name.line);
        attrs[name.text] = {token_.text, token_.line};
        advance();
        if (is_symbol(",") || is_symbol(";")) advance();
      }
      advance();
    }
    return attrs;
  }

  static void merge(Attributes& into, const Attributes& from) {
    for (const auto& [name, value] : from) into[name] = value;
  }

  std::uint32_t task(const Token& name) {
    auto [it, fresh] = task_index_.emplace(name.text, static_cast<std::uint32_t>(dag_.tasks.size()));
    if (fresh) {
      dag_.tasks.push_back({});
      dag_.tasks.back().kernel = kernel_of_task_name(name.text);
      task_line_.push_back(name.line);
      apply_node_attributes(it->second, node_defaults_);
    }
    return it->second;
  }

  void node_statement(const Token& name, const Attributes& attrs) {
    const bool fresh = !task_index_.count(name.text);
    const std::uint32_t t = task(name);
    if (!fresh && !attrs.empty() && declared_[t]) fail("node \"" + name.text + "\" is declared twice", name.line);
    if (declared_.size() < dag_.tasks.size()) declared_.resize(dag_.tasks.size(), false);
    declared_[t] = true;
    apply_node_attributes(t, attrs);
  }

  void apply_node_attributes(std::uint32_t t, const Attributes& attrs) {
    if (auto it = attrs.find("size"); it != attrs.end()) dag_.tasks[t].flops = number(it->second, "size (flops)", 1e300);
    if (auto it = attrs.find("performer"); it != attrs.end()) {
      dag_.tasks[t].machine = static_cast<std::uint32_t>(number(it->second, "performer (a host index)", 4294967295.0, true));
    }
  }

  void edge(const Token& from, const Token& to, const Attributes& attrs) {
    const std::uint32_t a = task(from), b = task(to);
    if (a == b) fail("a self-loop " + from.text + " -> " + to.text + ": a task cannot depend on itself", to.line);
    double bytes = 0;
    if (auto it = attrs.find("size"); it != attrs.end()) bytes = number(it->second, "size (bytes)", 1.8e19, true);
    if (bytes > 0) {  // data: a file written by `from` and read by `to`
      const auto file = static_cast<std::uint32_t>(dag_.files.size());
      dag_.files.push_back({static_cast<std::uint64_t>(bytes)});
      dag_.tasks[a].outputs.push_back(file);
      dag_.tasks[b].inputs.push_back(file);
    } else {
      dag_.tasks[b].parents.push_back(a);
    }
  }

  // A non-negative number (an integer when asked), at most `max`.
  double number(const std::pair<std::string, std::size_t>& value, const std::string& what, double max, bool integer = false) {
    const std::string& text = value.first;
    char* end = nullptr;
    errno = 0;
    const double x = std::strtod(text.c_str(), &end);
    if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(x)) {
      fail("expected a number for " + what + ", got \"" + text + "\"", value.second);
    }
    if (x < 0) fail("expected a non-negative " + what + ", got " + text, value.second);
    if (x > max) fail("expected at most " + std::to_string(max) + " for " + what + ", got " + text, value.second);
    if (integer && x != std::floor(x)) fail("expected an integer " + what + ", got " + text, value.second);
    return x;
  }

  bool is_id(const char* word) const { return token_.kind == Token::id && token_.text == word; }
  bool is_symbol(const char* symbol) const { return token_.kind == Token::symbol && token_.text == symbol; }
  std::string describe() const {
    if (token_.kind == Token::end) return "the end of the file";
    return "\"" + token_.text + "\"";
  }
  void expect(const char* symbol) {
    if (!is_symbol(symbol)) fail(std::string("expected ") + symbol + ", got " + describe());
    advance();
  }
  void advance() { token_ = lexer_.next(); }
  [[noreturn]] void fail(const std::string& message) const { lexer_.fail(token_.line, message); }
  [[noreturn]] void fail(const std::string& message, std::size_t line) const { lexer_.fail(line, message); }

  Lexer lexer_;
  Token token_;
  WorkflowDag dag_;
  std::unordered_map<std::string, std::uint32_t> task_index_;
  std::vector<std::size_t> task_line_;
  std::vector<bool> declared_;
  Attributes node_defaults_, edge_defaults_;
};

}  // namespace

WorkflowDag read_dot(const std::string& path) {
  if (auto problem = config::input_file_problem(path, config::kMaxGraphFileBytes)) throw ConfigError(path, "", *problem);
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in && !in.eof()) throw ConfigError(path, "", "cannot read the file");
  return dot_from_text(text.str(), path);
}

WorkflowDag dot_from_text(const std::string& text, const std::string& origin) {
  if (text.find('\0') != std::string::npos) throw ConfigError(origin, "", "a binary file (a NUL byte), not DOT text");
  return Parser(text, origin).parse();
}

}  // namespace ftsim::graphs
