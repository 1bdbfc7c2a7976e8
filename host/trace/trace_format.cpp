// Parser and checker for the plain-text trace format of docs/traces.md (see trace_format.hpp).
#include "host/trace/trace_format.hpp"

#include <sys/stat.h>

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <unordered_map>
#include <utility>

#include "host/config/config_error.hpp"

namespace saturn {

namespace {

constexpr uint64_t kMaxFileBytes = 2ull << 30;

class Parser {
 public:
  Parser(const std::string& text, const std::string& name) : text_(text), name_(clip_for_message(name)) {}

  Trace run() {
    trace_.path = name_;
    size_t pos = 0;
    while (pos <= text_.size()) {
      size_t end = text_.find('\n', pos);
      if (end == std::string::npos) end = text_.size();
      ++line_;
      line_tokens(std::string_view(text_).substr(pos, end - pos));
      if (!tok_.empty()) directive();
      pos = end + 1;
    }
    if (!header_) fail(1, "empty trace: the first line must be the header 'saturn_trace 1'");
    if (trace_.nodes == 0) fail(line_, "no 'nodes N' line (N from 1 to " + std::to_string(kTraceMaxNodes) + ")");
    close_block();
    group_by_node();
    match_messages();
    check_acyclic();
    return std::move(trace_);
  }

 private:
  [[noreturn]] void fail(int line, const std::string& what) const {
    throw ConfigError(name_ + ":" + std::to_string(line) + ": " + what);
  }

  void line_tokens(std::string_view s) {
    tok_.clear();
    const size_t hash = s.find('#');
    if (hash != std::string_view::npos) s = s.substr(0, hash);
    size_t i = 0;
    while (i < s.size()) {
      while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r')) ++i;
      size_t j = i;
      while (j < s.size() && s[j] != ' ' && s[j] != '\t' && s[j] != '\r') ++j;
      if (j > i) tok_.push_back(s.substr(i, j - i));
      i = j;
    }
  }

  // An unsigned decimal integer in [lo, hi]; otherwise one line naming `what` and the range.
  uint64_t number(std::string_view t, uint64_t lo, uint64_t hi, const std::string& what) const {
    uint64_t v = 0;
    const auto [p, ec] = std::from_chars(t.data(), t.data() + t.size(), v);
    if (ec != std::errc() || p != t.data() + t.size() || v < lo || v > hi)
      fail(line_, what + " '" + clip_for_message(std::string(t)) + "' is not allowed (an integer from " +
                      std::to_string(lo) + " to " + std::to_string(hi) + ")");
    return v;
  }

  uint32_t node_id(std::string_view t, const std::string& what) const {
    return static_cast<uint32_t>(number(t, 0, trace_.nodes - 1, what + " node"));
  }

  void arity(size_t lo, size_t hi, const char* usage) const {
    if (tok_.size() < lo || tok_.size() > hi) fail(line_, std::string("expected '") + usage + "'");
  }

  void directive() {
    const std::string_view d = tok_[0];
    if (!header_) {
      if (d != "saturn_trace" || tok_.size() != 2 || tok_[1] != "1")
        fail(line_, "expected the header 'saturn_trace 1' (format version 1) before anything else");
      header_ = true;
      return;
    }
    if (d == "nodes") {
      arity(2, 2, "nodes N");
      if (trace_.nodes != 0) fail(line_, "'nodes' given twice (once, before any node block or stream)");
      trace_.nodes = static_cast<uint32_t>(number(tok_[1], 1, kTraceMaxNodes, "node count"));
      block_line_.assign(trace_.nodes, 0);
      return;
    }
    if (trace_.nodes == 0) fail(line_, "'nodes N' must come right after the header");
    if (d == "node") {
      arity(2, 2, "node N");
      close_block();
      node_ = static_cast<int64_t>(node_id(tok_[1], "block"));
      if (block_line_[node_] != 0)
        fail(line_, "node " + std::to_string(node_) + " already has a block (at line " +
                        std::to_string(block_line_[node_]) + "); one block per node");
      block_line_[node_] = line_;
      block_begin_ = static_cast<uint32_t>(raw_.size());
      return;
    }
    if (d == "stream") {
      arity(6, 6, "stream SRC DST START_NS STOP_NS RATE_PCT");
      TraceStream s;
      s.src = node_id(tok_[1], "source");
      s.dst = node_id(tok_[2], "destination");
      if (s.src == s.dst) fail(line_, "stream from node " + std::to_string(s.src) + " to itself (SRC and DST must differ)");
      s.start_ns = number(tok_[3], 0, kTraceMaxTimeNs, "start time");
      s.stop_ns = number(tok_[4], 0, kTraceMaxTimeNs, "stop time");
      if (s.stop_ns <= s.start_ns) fail(line_, "stream stops at or before it starts (STOP_NS must exceed START_NS)");
      s.rate_pct = static_cast<uint32_t>(number(tok_[5], 1, 100, "stream rate (percent of the link)"));
      s.line = line_;
      trace_.streams.push_back(s);
      return;
    }
    if (d.empty() || d[0] < '0' || d[0] > '9')
      fail(line_, "unknown directive '" + clip_for_message(std::string(d)) +
                      "' (allowed: nodes, node, stream, or an event 'ID compute|send|recv ...')");
    event();
  }

  void event() {
    if (node_ < 0) fail(line_, "event outside a node block (start one with 'node N')");
    arity(3, 6, "ID compute NS | ID send DST BYTES | ID recv SRC BYTES, then optionally 'after ID,ID,...'");
    TraceEvent e;
    e.id = static_cast<uint32_t>(number(tok_[0], 0, kTraceMaxEventId, "event id"));
    e.line = line_;
    const std::string_view op = tok_[1];
    size_t next;
    if (op == "compute") {
      e.op = TraceOp::kCompute;
      e.amount = number(tok_[2], 0, kTraceMaxComputeNs, "compute time (ns)");
      next = 3;
    } else if (op == "send" || op == "recv") {
      e.op = op == "send" ? TraceOp::kSend : TraceOp::kRecv;
      if (tok_.size() < 4) fail(line_, "expected 'ID " + std::string(op) + (op == "send" ? " DST" : " SRC") + " BYTES'");
      e.peer = static_cast<int32_t>(node_id(tok_[2], op == "send" ? "destination" : "source"));
      if (e.peer == node_)
        fail(line_, "node " + std::to_string(node_) + " " + std::string(op) + "s to itself (the peer must be another node)");
      e.amount = number(tok_[3], 1, kTraceMaxMessageBytes, "message size (bytes)");
      next = 4;
    } else {
      fail(line_, "unknown event '" + clip_for_message(std::string(op)) + "' (allowed: compute, send, recv)");
    }
    e.dep_begin = static_cast<uint32_t>(raw_deps_.size());
    if (tok_.size() > next) {
      if (tok_[next] != "after" || tok_.size() != next + 2)
        fail(line_, "expected 'after ID,ID,...' (comma-separated event ids of this node, no spaces) after the event");
      std::string_view list = tok_[next + 1];
      while (true) {
        const size_t comma = list.find(',');
        raw_deps_.push_back(static_cast<uint32_t>(number(list.substr(0, comma), 0, kTraceMaxEventId, "dependency id")));
        if (comma == std::string_view::npos) break;
        list = list.substr(comma + 1);
      }
    }
    e.dep_count = static_cast<uint32_t>(raw_deps_.size()) - e.dep_begin;
    if (!ids_.emplace(e.id, static_cast<uint32_t>(raw_.size())).second)
      fail(line_, "event id " + std::to_string(e.id) + " repeated in node " + std::to_string(node_) +
                      " (ids are unique within a node)");
    raw_.push_back(e);
    raw_node_.push_back(static_cast<uint32_t>(node_));
  }

  // Resolve the block's 'after' ids (forward references allowed) into raw event indices.
  void close_block() {
    if (node_ < 0) return;
    for (uint32_t i = block_begin_; i < raw_.size(); ++i) {
      const TraceEvent& e = raw_[i];
      for (uint32_t k = e.dep_begin; k < e.dep_begin + e.dep_count; ++k) {
        const auto it = ids_.find(raw_deps_[k]);
        if (it == ids_.end())
          fail(e.line, "event " + std::to_string(e.id) + " waits on event " + std::to_string(raw_deps_[k]) + ", which node " +
                           std::to_string(node_) + " does not have ('after' names events of the same node)");
        raw_deps_[k] = it->second;
      }
    }
    ids_.clear();
    node_ = -1;
  }

  // Reorder the events node by node (blocks may come in any order) and remap the dependencies.
  void group_by_node() {
    const uint32_t n = trace_.nodes;
    trace_.node_first.assign(n + 1, 0);
    for (uint32_t node : raw_node_) ++trace_.node_first[node + 1];
    for (uint32_t i = 0; i < n; ++i) trace_.node_first[i + 1] += trace_.node_first[i];
    std::vector<uint32_t> fill(trace_.node_first.begin(), trace_.node_first.end() - 1), where(raw_.size());
    for (size_t i = 0; i < raw_.size(); ++i) where[i] = fill[raw_node_[i]]++;
    trace_.events.resize(raw_.size());
    for (size_t i = 0; i < raw_.size(); ++i) trace_.events[where[i]] = raw_[i];
    trace_.deps.clear();
    trace_.deps.reserve(raw_deps_.size());
    for (TraceEvent& e : trace_.events) {
      const uint32_t begin = static_cast<uint32_t>(trace_.deps.size());
      for (uint32_t k = e.dep_begin; k < e.dep_begin + e.dep_count; ++k) trace_.deps.push_back(where[raw_deps_[k]]);
      e.dep_begin = begin;
    }
  }

  uint32_t node_of(size_t event) const {
    size_t lo = 0, hi = trace_.nodes;  // node_first[lo] <= event < node_first[hi]
    while (hi - lo > 1) {
      const size_t mid = (lo + hi) / 2;
      (trace_.node_first[mid] <= event ? lo : hi) = mid;
    }
    return static_cast<uint32_t>(lo);
  }

  // The k-th send from A to B matches the k-th recv at B from A (file order within each node).
  void match_messages() {
    std::unordered_map<uint64_t, std::pair<std::vector<uint32_t>, size_t>> sends;
    auto key = [](uint64_t a, uint64_t b) { return a << 32 | b; };
    for (uint32_t a = 0; a < trace_.nodes; ++a)
      for (uint32_t i = trace_.node_first[a]; i < trace_.node_first[a + 1]; ++i)
        if (trace_.events[i].op == TraceOp::kSend) sends[key(a, trace_.events[i].peer)].first.push_back(i);
    for (uint32_t b = 0; b < trace_.nodes; ++b)
      for (uint32_t i = trace_.node_first[b]; i < trace_.node_first[b + 1]; ++i) {
        TraceEvent& r = trace_.events[i];
        if (r.op != TraceOp::kRecv) continue;
        auto it = sends.find(key(r.peer, b));
        const size_t have = it == sends.end() ? 0 : it->second.first.size();
        if (it == sends.end() || it->second.second >= have)
          fail(r.line, "recv at node " + std::to_string(b) + " from node " + std::to_string(r.peer) +
                           " has no matching send (node " + std::to_string(r.peer) + " sends node " + std::to_string(b) +
                           " " + std::to_string(have) + " message(s); the k-th recv matches the k-th send)");
        TraceEvent& s = trace_.events[it->second.first[it->second.second++]];
        if (s.amount != r.amount)
          fail(r.line, "recv of " + std::to_string(r.amount) + " bytes matches the send of " + std::to_string(s.amount) +
                           " bytes at line " + std::to_string(s.line) + " (matched sizes must be equal)");
        s.match = i;
        r.match = static_cast<int64_t>(&s - trace_.events.data());
        trace_.total_message_bytes += s.amount;
        ++trace_.messages;
      }
    for (uint32_t i = 0; i < trace_.events.size(); ++i) {
      const TraceEvent& s = trace_.events[i];
      if (s.op == TraceOp::kSend && s.match < 0)
        fail(s.line, "send from node " + std::to_string(node_of(i)) + " to node " + std::to_string(s.peer) +
                         " has no matching recv (each send needs a recv of the same size at the destination)");
    }
  }

  // Depth-first search over predecessors (dependencies, and a recv's matching send); a grey event
  // met again closes a cycle, which would never finish in a replay.
  void check_acyclic() const {
    const size_t n = trace_.events.size();
    std::vector<uint8_t> color(n, 0);  // 0 new, 1 on the stack, 2 done
    std::vector<std::pair<uint32_t, uint32_t>> stack;  // event, next predecessor
    auto pred_count = [&](uint32_t e) {
      const TraceEvent& x = trace_.events[e];
      return x.dep_count + (x.op == TraceOp::kRecv ? 1u : 0u);
    };
    auto pred = [&](uint32_t e, uint32_t k) {
      const TraceEvent& x = trace_.events[e];
      return k < x.dep_count ? trace_.deps[x.dep_begin + k] : static_cast<uint32_t>(x.match);
    };
    for (uint32_t root = 0; root < n; ++root) {
      if (color[root]) continue;
      color[root] = 1;
      stack.emplace_back(root, 0);
      while (!stack.empty()) {
        auto& [e, k] = stack.back();
        if (k == pred_count(e)) {
          color[e] = 2;
          stack.pop_back();
          continue;
        }
        const uint32_t p = pred(e, k++);
        if (color[p] == 1) {
          const TraceEvent& x = trace_.events[p];
          fail(x.line, "dependency cycle through node " + std::to_string(node_of(p)) + " event " + std::to_string(x.id) +
                           " (the 'after' lists and the send -> recv matches must form no cycle)");
        }
        if (color[p] == 0) {
          color[p] = 1;
          stack.emplace_back(p, 0);
        }
      }
    }
  }

  const std::string& text_;
  std::string name_;
  Trace trace_;
  std::vector<std::string_view> tok_;
  int line_ = 0;
  bool header_ = false;
  int64_t node_ = -1;  // the open block's node, -1 = none
  uint32_t block_begin_ = 0;
  std::vector<int> block_line_;
  std::unordered_map<uint32_t, uint32_t> ids_;  // the open block's event ids -> raw index
  std::vector<TraceEvent> raw_;
  std::vector<uint32_t> raw_node_, raw_deps_;
};

}  // namespace

Trace parse_trace(const std::string& text, const std::string& name) { return Parser(text, name).run(); }

Trace load_trace(const std::string& path) {
  const std::string shown = clip_for_message(path);
  struct stat st {};
  if (stat(path.c_str(), &st) != 0) throw ConfigError("cannot read trace file '" + shown + "': " + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) throw ConfigError("trace file '" + shown + "' is not a regular file");
  if (static_cast<uint64_t>(st.st_size) > kMaxFileBytes)
    throw ConfigError("trace file '" + shown + "' is " + std::to_string(st.st_size >> 20) + " MiB; at most " +
                      std::to_string(kMaxFileBytes >> 20) + " MiB are read");
  std::FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) throw ConfigError("cannot read trace file '" + shown + "': " + std::strerror(errno));
  std::string text;
  text.reserve(static_cast<size_t>(st.st_size));
  char buf[1 << 16];
  size_t got;
  while (text.size() <= kMaxFileBytes && (got = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, got);
  const bool bad = std::ferror(f) != 0;
  std::fclose(f);
  if (bad) throw ConfigError("cannot read trace file '" + shown + "'");
  if (text.size() > kMaxFileBytes) throw ConfigError("trace file '" + shown + "' grew past the size limit while read");
  return parse_trace(text, path);
}

const char* trace_op_name(TraceOp op) {
  switch (op) {
    case TraceOp::kCompute: return "compute";
    case TraceOp::kSend: return "send";
    case TraceOp::kRecv: return "recv";
    default: return "?";
  }
}

}  // namespace saturn
