#include <axcore/spec.hpp>
#include <cstdio>
#include <map>
#include <set>

#include "axcore/runtime/trace_tools.hpp"

namespace axcore::runtime {
namespace {

std::string ts(uint64_t cycle) {
  char b[32];
  std::snprintf(b, sizeof b, "%.3f", static_cast<double>(cycle) / spec::param::clock_mhz);
  return b;
}
std::string hex(uint64_t v) {
  char b[24];
  std::snprintf(b, sizeof b, "0x%llx", static_cast<unsigned long long>(v));
  return b;
}

}  // namespace

void write_timeline(std::ostream& out, const std::vector<trace::Record>& recs) {
  out << "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
  bool first = true;
  auto emit = [&](const std::string& ev) {
    out << (first ? "" : ",\n") << ev;
    first = false;
  };
  std::set<std::pair<unsigned, unsigned>> tracks;                     // (pid, tid)
  std::map<std::tuple<unsigned, unsigned, uint64_t>, uint64_t> open;  // (pid, tid, addr) -> start cycle
  for (const auto& r : recs) {
    const unsigned pid = unsigned(r.col) * 32 + r.row, tid = static_cast<unsigned>(r.unit);
    tracks.insert({pid, tid});
    const std::string where = "\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid);
    switch (r.kind) {
      case trace::Kind::TASK_START: open[{pid, tid, r.addr}] = r.cycle; break;
      case trace::Kind::TASK_DONE: {
        auto it = open.find({pid, tid, r.addr});
        const uint64_t start = it == open.end() ? r.cycle : it->second;
        if (it != open.end()) open.erase(it);
        emit("{\"name\":\"task " + hex(r.addr) + "\",\"cat\":\"task\",\"ph\":\"X\",\"ts\":" + ts(start) +
             ",\"dur\":" + ts(r.cycle - start) + "," + where + ",\"args\":{\"bytes\":" + std::to_string(r.bytes) +
             ",\"token\":\"" + hex(r.token) + "\"}}");
        break;
      }
      case trace::Kind::MEM_WRITE:
        emit("{\"name\":\"write " + std::to_string(r.bytes) + "B\",\"cat\":\"mem\",\"ph\":\"X\",\"ts\":" + ts(r.cycle) +
             ",\"dur\":" + ts(1) + "," + where + ",\"args\":{\"addr\":\"" + hex(r.addr) + "\",\"hash\":\"" +
             hex(r.data_hash) + "\"}}");
        break;
      case trace::Kind::TOKEN:
        emit("{\"name\":\"token " + hex(r.token) +
             "\",\"cat\":\"token\",\"ph\":\"i\",\"s\":\"t\",\"ts\":" + ts(r.cycle) + "," + where + "}");
        break;
      case trace::Kind::REG_WRITE:
        emit("{\"name\":\"reg " + hex(r.addr) + "\",\"cat\":\"reg\",\"ph\":\"i\",\"s\":\"t\",\"ts\":" + ts(r.cycle) +
             "," + where + ",\"args\":{\"value\":\"" + hex(r.data_hash) + "\"}}");
        break;
    }
  }
  for (const auto& [k, start] : open)  // tasks that never finished: open-ended at the last record
    emit("{\"name\":\"task " + hex(std::get<2>(k)) + " (unfinished)\",\"cat\":\"task\",\"ph\":\"B\",\"ts\":" +
         ts(start) + ",\"pid\":" + std::to_string(std::get<0>(k)) + ",\"tid\":" + std::to_string(std::get<1>(k)) + "}");
  std::set<unsigned> pids;
  for (const auto& [pid, tid] : tracks) {
    if (pids.insert(pid).second)
      emit("{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":" + std::to_string(pid) + ",\"args\":{\"name\":\"tile (" +
           std::to_string(pid / 32) + "," + std::to_string(pid % 32) + ")\"}}");
    emit("{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":" + std::to_string(pid) + ",\"tid\":" + std::to_string(tid) +
         ",\"args\":{\"name\":\"" + std::string(trace::to_string(static_cast<trace::Unit>(tid))) + "\"}}");
  }
  out << "\n]}\n";
}

}  // namespace axcore::runtime
