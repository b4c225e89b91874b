#include <axcore/spec.hpp>
#include <charconv>
#include <cstdio>
#include <map>
#include <set>
#include <vector>

#include "axcore/runtime/trace_tools.hpp"
#include "axcore/text/hex.hpp"

namespace axcore::runtime {
namespace {

// printf's "%.3f" of the microseconds (to_chars with a precision prints as printf does).
char* ts_chars(char (&b)[48], uint64_t cycle) {
  return std::to_chars(b, b + sizeof b, static_cast<double>(cycle) / spec::param::clock_mhz, std::chars_format::fixed,
                       3)
      .ptr;
}
std::string ts(uint64_t cycle) {
  char b[48];
  return std::string(b, ts_chars(b, cycle));
}
using text::hex;
std::string json_string(const std::string& s) {
  std::string o = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') o += '\\';
    if (static_cast<unsigned char>(c) < 0x20) continue;
    o += c;
  }
  return o + "\"";
}

bool is_dma(trace::Unit u) { return u >= trace::Unit::DMA_MM2S0 && u <= trace::Unit::DMA_S2MM3; }

std::string tile_name(unsigned col, unsigned row) {
  const std::string at = " (" + std::to_string(col) + "," + std::to_string(row) + ")";
  if (row == spec::param::shim_row) return "shim" + at;
  if (row == spec::param::mem_row) return "mem tile" + at;
  return "core" + std::to_string(row - spec::param::first_core_row) + at;
}

// The name of a task span: the compiler's name of the launch whose pushes carry the record's tag
// (the k-th task of this unit with that tag is the k-th launch with it), else what it runs.
class Namer {
 public:
  explicit Namer(const TimelineOptions& opt) {
    for (const auto& [i, name] : opt.steps) by_tag_[i & 0x7F].push_back(i);
    steps_ = &opt.steps;
  }
  std::pair<std::string, int64_t> name(unsigned pid, const trace::Record& start) {
    const uint32_t tag = start.token >> 24 & 0x7F;
    const auto it = by_tag_.find(tag);
    if (it != by_tag_.end()) {
      const size_t k = used_[{pid, static_cast<unsigned>(start.unit), tag}]++;
      if (k < it->second.size()) return {steps_->at(it->second[k]), it->second[k]};
    }
    if (is_dma(start.unit)) return {"BD " + std::to_string(start.addr), -1};
    return {"descriptor at word " + std::to_string(start.addr), -1};
  }

 private:
  const std::map<uint32_t, std::string>* steps_;
  std::map<uint32_t, std::vector<uint32_t>> by_tag_;
  std::map<std::tuple<unsigned, unsigned, uint32_t>, size_t> used_;
};

}  // namespace

TimelineOptions timeline_options(const std::string& steps) {
  TimelineOptions o;
  for (size_t at = 0; at < steps.size();) {
    const size_t nl = std::min(steps.find('\n', at), steps.size());
    const std::string line = steps.substr(at, nl - at);
    at = nl + 1;
    const size_t sp = line.find(' ');
    if (sp == std::string::npos || sp == 0) continue;
    try {
      o.steps[static_cast<uint32_t>(std::stoul(line.substr(0, sp)))] = line.substr(sp + 1);
    } catch (const std::exception&) {}  // not a step line: ignored
  }
  return o;
}

void write_timeline(std::ostream& out, const std::vector<trace::Record>& recs, const TimelineOptions& opt) {
  // Built in one string, handed to `out` every 64 KiB (the buffer's pages stay the same ones).
  constexpr std::size_t kChunk = 64 * 1024;
  std::string text = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  text.reserve(kChunk + 4096);
  bool first = true;
  auto next = [&] {  // the separator before an event
    if (text.size() >= kChunk) {
      out.write(text.data(), static_cast<std::streamsize>(text.size()));
      text.clear();
    }
    if (!first) text += ",\n";
    first = false;
  };
  auto emit = [&](const std::string& ev) {
    next();
    text += ev;
  };
  auto put = [&](uint64_t v) {
    char b[24];
    text.append(b, std::to_chars(b, b + sizeof b, v).ptr);
  };
  auto put_hex = [&](uint64_t v) {  // as text::hex
    char b[24];
    text += "0x";
    text.append(b, std::to_chars(b, b + sizeof b, v, 16).ptr);
  };
  auto put_ts = [&](uint64_t cycle) {
    char b[48];
    text.append(b, ts_chars(b, cycle));
  };
  Namer namer(opt);
  struct Open {
    uint64_t start;
    std::string name;
    int64_t step;
  };
  std::set<std::pair<unsigned, unsigned>> tracks;                 // (pid, tid)
  std::map<std::tuple<unsigned, unsigned, uint64_t>, Open> open;  // (pid, tid, addr) -> the task
  for (const auto& r : recs) {
    const unsigned pid = unsigned(r.col) * 32 + r.row, tid = static_cast<unsigned>(r.unit);
    tracks.insert({pid, tid});
    auto where = [&] { return "\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid); };
    // An instant event appended in place, up to its args: {"name":"<head><name>","cat":"<cat>",
    // "ph":"i","s":"t","ts":...,"pid":...,"tid":...
    auto instant = [&](const char* head, auto put_name, const char* cat) {
      next();
      text += "{\"name\":\"";
      text += head;
      put_name();
      text += "\",\"cat\":\"";
      text += cat;
      text += "\",\"ph\":\"i\",\"s\":\"t\",\"ts\":";
      put_ts(r.cycle);
      text += ",\"pid\":";
      put(pid);
      text += ",\"tid\":";
      put(tid);
    };
    switch (r.kind) {
      case trace::Kind::TASK_START: {
        auto [name, step] = namer.name(pid, r);
        open[{pid, tid, r.addr}] = Open{r.cycle, std::move(name), step};
        break;
      }
      case trace::Kind::TASK_DONE: {
        auto it = open.find({pid, tid, r.addr});
        Open o = it == open.end() ? Open{r.cycle, namer.name(pid, r).first, -1} : it->second;
        if (it != open.end()) open.erase(it);
        if (r.unit == trace::Unit::CMDPROC && opt.task_units)  // the datapath's units, each on its thread
          for (const auto u : opt.task_units(r.row, r.addr)) {
            const unsigned utid = static_cast<unsigned>(u);
            tracks.insert({pid, utid});
            emit("{\"name\":" + json_string(o.name) + ",\"cat\":\"unit\",\"ph\":\"X\",\"ts\":" + ts(o.start) +
                 ",\"dur\":" + ts(r.cycle - o.start) + ",\"pid\":" + std::to_string(pid) +
                 ",\"tid\":" + std::to_string(utid) + ",\"args\":{\"word\":" + std::to_string(r.addr) +
                 ",\"span\":\"the unit's datapath task, start to done\"}}");
          }
        emit("{\"name\":" + json_string(o.name) + ",\"cat\":\"" + (is_dma(r.unit) ? "dma" : "task") +
             "\",\"ph\":\"X\",\"ts\":" + ts(o.start) + ",\"dur\":" + ts(r.cycle - o.start) + "," + where() +
             ",\"args\":{\"" + (is_dma(r.unit) ? "bd" : "word") + "\":" + std::to_string(r.addr) +
             ",\"bytes\":" + std::to_string(r.bytes) + ",\"cycles\":" + std::to_string(r.cycle - o.start) +
             (o.step >= 0 ? ",\"step\":" + std::to_string(o.step) : "") + ",\"token\":\"" + hex(r.token) + "\"}}");
        break;
      }
      // An instant: the cycle the burst's last word landed. The most frequent event.
      case trace::Kind::MEM_WRITE:
        instant(
            "write ",
            [&] {
              put(r.bytes);
              text += " B";
            },
            "mem");
        text += ",\"args\":{\"addr\":\"";
        put_hex(r.addr);
        text += "\",\"bytes\":";
        put(r.bytes);
        text += ",\"hash\":\"";
        put_hex(r.data_hash);
        text += "\"}}";
        break;
      case trace::Kind::TOKEN:
        instant(
            "token ", [&] { put_hex(r.token); }, "token");
        text += "}";
        break;
      case trace::Kind::REG_WRITE:
        instant(
            "reg ", [&] { put_hex(r.addr); }, "reg");
        text += ",\"args\":{\"value\":\"";
        put_hex(r.data_hash);
        text += "\"}}";
        break;
    }
  }
  for (const auto& [k, o] : open)  // tasks that never finished: open-ended at the last record
    emit("{\"name\":" + json_string(o.name + " (unfinished)") + ",\"cat\":\"task\",\"ph\":\"B\",\"ts\":" + ts(o.start) +
         ",\"pid\":" + std::to_string(std::get<0>(k)) + ",\"tid\":" + std::to_string(std::get<1>(k)) + "}");
  std::set<unsigned> pids;
  for (const auto& [pid, tid] : tracks) {
    if (pids.insert(pid).second) {
      emit("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" + std::to_string(pid) + ",\"args\":{\"name\":\"" +
           tile_name(pid / 32, pid % 32) + "\"}}");
      emit("{\"name\":\"process_sort_index\",\"ph\":\"M\",\"pid\":" + std::to_string(pid) +
           ",\"args\":{\"sort_index\":" + std::to_string(pid) + "}}");
    }
    emit("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
         ",\"args\":{\"name\":\"" + std::string(trace::to_string(static_cast<trace::Unit>(tid))) + "\"}}");
    emit("{\"name\":\"thread_sort_index\",\"ph\":\"M\",\"pid\":" + std::to_string(pid) +
         ",\"tid\":" + std::to_string(tid) + ",\"args\":{\"sort_index\":" + std::to_string(tid) + "}}");
  }
  text += "\n]}\n";
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

}  // namespace axcore::runtime
