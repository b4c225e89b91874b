#include "axcore/txn/event.hpp"

#include <algorithm>

#include "axcore/txn/text.hpp"

namespace axcore::txn {

std::string_view to_string(EventKind k) {
  switch (k) {
    case EventKind::PUSH: return "push";
    case EventKind::WAIT: return "wait";
    case EventKind::WRITE: return "write";
    case EventKind::LOADPDI: return "loadpdi";
    case EventKind::PREEMPT: return "preempt";
    case EventKind::SCRATCHPAD: return "scratchpad";
    case EventKind::UPDATE_REG: return "update_reg";
    case EventKind::CUSTOM: return "custom";
  }
  return "?";
}

std::string to_string(const Address& a) {
  if (a.patched) return "arg" + std::to_string(a.arg) + "+" + hex(a.value);
  if (!a.memory.empty()) return std::string(a.memory) + ":" + hex(a.value);
  return hex(a.value);
}

std::string to_string(const Transfer& t) {
  std::string s = "len=" + std::to_string(t.length) + " @" + to_string(t.address) + " dims=[";
  if (t.dims.empty()) s += "linear";
  for (std::size_t i = 0; i < t.dims.size(); ++i)
    s += (i ? " " : "") + std::to_string(t.dims[i].wrap) + "x" + std::to_string(t.dims[i].stride);
  s += "] outer=" + std::to_string(t.outer_stride);
  if (!t.padding.empty()) {
    s += " pad=[";
    for (std::size_t i = 0; i < t.padding.size(); ++i)
      s += (i ? " " : "") + std::to_string(t.padding[i].before) + "/" + std::to_string(t.padding[i].after);
    s += "]";
  }
  if (t.iteration.wrap != 0)
    s += " iter " + std::to_string(t.iteration.wrap) + "x" + std::to_string(t.iteration.stride);
  return s;
}

namespace {

std::string tile(const Event& e) { return "(" + std::to_string(e.col) + "," + std::to_string(e.row) + ")"; }

std::string channel(const Event& e) {
  if (!e.queue.empty()) return std::string(e.queue);
  return std::string(to_string(e.dir)) + " ch" + std::to_string(e.channel);
}

std::string push(const Event& e) {
  std::string s = "push " + tile(e) + " " + channel(e);
  if (e.repeat) s += " repeat=" + std::to_string(e.repeat);
  if (e.token) s += " token";
  if (e.tag) s += " tag=" + std::to_string(e.tag);
  s += " ctrl=" + hex(e.ctrl) + ": ";
  if (e.task) return s + e.task->summary;
  for (std::size_t i = 0; i < e.chain.size(); ++i) s += (i ? " -> " : "") + to_string(e.chain[i]);
  if (e.loop_to) s += " -> back to BD " + std::to_string(*e.loop_to) + " of the chain";
  return s;
}

std::string raw_at(const Event& e, std::size_t i) { return i < e.raw.size() ? std::to_string(e.raw[i]) : "?"; }

}  // namespace

std::string to_string(const Event& e) {
  switch (e.kind) {
    case EventKind::PUSH: return push(e);
    case EventKind::WAIT:
      return "wait " + tile(e) + " " + channel(e) + " cols=" + std::to_string(e.ncol) +
             " rows=" + std::to_string(e.nrow);
    case EventKind::WRITE: {
      std::string s = "write " + tile(e) + " " + hex_width(e.reg, 7) + " <- ";
      s += e.patched_value ? to_string(*e.patched_value) : hex_width(e.value, 10);
      if (e.mask != 0xFFFFFFFF) s += " & " + hex_width(e.mask, 10);
      if (e.addr_hi) s += " (addr_hi=" + hex(e.addr_hi) + ")";
      return s;
    }
    case EventKind::LOADPDI: {
      const uint64_t addr = e.raw.size() >= 4 ? (uint64_t{e.raw[3]} << 32 | e.raw[2]) : 0;
      return "loadpdi id=" + raw_at(e, 0) + " size=" + raw_at(e, 1) + " addr=" + hex(addr);
    }
    case EventKind::PREEMPT: return "preempt level=" + raw_at(e, 0);
    case EventKind::SCRATCHPAD: return "scratchpad usage=" + raw_at(e, 0) + " size=" + raw_at(e, 1);
    case EventKind::UPDATE_REG:
      return "update_reg table=" + raw_at(e, 0) + " func=" + raw_at(e, 1) +
             " arg=" + (e.raw.size() > 2 ? hex(e.raw[2]) : "?") + " reg=" + (e.raw.size() > 3 ? hex(e.raw[3]) : "?");
    case EventKind::CUSTOM: return std::string(to_string(e.opcode)) + " " + hex_list(e.raw);
  }
  return "?";
}

namespace {

template <class T>
std::string differ(const std::string& what, const T& a, const T& b) {
  return what + ": " + std::to_string(a) + " vs " + std::to_string(b);
}

std::string transfer_difference(const std::string& at, const Transfer& a, const Transfer& b) {
  if (a.length != b.length) return differ(at + "length", a.length, b.length);
  if (a.address != b.address) return at + "address: " + to_string(a.address) + " vs " + to_string(b.address);
  if (a.dims != b.dims || a.outer_stride != b.outer_stride || a.iteration != b.iteration || a.padding != b.padding)
    return at + "walk: " + to_string(a) + " vs " + to_string(b);
  const std::size_t n = std::max(a.fields.size(), b.fields.size());
  for (std::size_t i = 0; i < n; ++i) {
    if (i >= a.fields.size() || i >= b.fields.size()) return at + "field count differs";
    const Field &x = a.fields[i], &y = b.fields[i];
    if (x.name != y.name) return at + "fields differ: " + std::string(x.name) + " vs " + std::string(y.name);
    if (x.value != y.value) return differ(at + std::string(x.name), x.value, y.value);
  }
  return "";
}

}  // namespace

std::string first_difference(const Event& a, const Event& b) {
  if (a == b) return "";
  if (a.kind != b.kind) return "kind: " + std::string(to_string(a.kind)) + " vs " + std::string(to_string(b.kind));
  if (a.chain.size() != b.chain.size()) return differ("chain length", a.chain.size(), b.chain.size());
  for (std::size_t i = 0; i < a.chain.size(); ++i) {
    std::string d = transfer_difference("chain[" + std::to_string(i) + "].", a.chain[i], b.chain[i]);
    if (!d.empty()) return d;
  }
  if (a.task != b.task) {
    if (!a.task || !b.task) return "task: present in one event only";
    const auto &x = a.task->words, &y = b.task->words;
    for (std::size_t i = 0; i < std::min(x.size(), y.size()); ++i)
      if (x[i] != y[i]) return "descriptor word " + std::to_string(i) + ": " + hex(x[i]) + " vs " + hex(y[i]);
    return differ("descriptor words", x.size(), y.size());
  }
  if (a.loop_to != b.loop_to) return "chain loop differs";
  return "printed fields differ";
}

}  // namespace axcore::txn
