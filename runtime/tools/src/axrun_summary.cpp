#include <algorithm>
#include <cstdio>
#include <cstring>
#include <sstream>

#include "axcore/num/float16.hpp"

#include "axrun_parts.hpp"

namespace axcore::axrun {

void Activity::add(const trace::Record& r) {
  any = true;
  last_cycle = std::max(last_cycle, r.cycle);
  if (r.kind == trace::Kind::TASK_START) open[{r.col, r.row, r.unit, r.addr}] = r.cycle;
  if (r.kind != trace::Kind::TASK_DONE) return;
  const auto it = open.find({r.col, r.row, r.unit, r.addr});
  if (it == open.end()) return;
  busy[{r.col, r.row, r.unit}] += r.cycle - it->second;
  open.erase(it);
}

uint64_t Activity::busy_of(uint32_t row, trace::Unit u) const {
  const auto it = busy.find({uint8_t{0}, static_cast<uint8_t>(row), u});
  return it == busy.end() ? 0 : it->second;
}

void print_dma_rows(std::ostream& out, const runtime::RunResult& res, const Activity& act, uint64_t cycles) {
  const double c = static_cast<double>(std::max<uint64_t>(cycles, 1));
  for (const auto& d : res.dma) {
    const auto unit = static_cast<trace::Unit>(
        static_cast<unsigned>(d.mm2s ? trace::Unit::DMA_MM2S0 : trace::Unit::DMA_S2MM0) + d.channel);
    const uint64_t busy = act.busy_of(d.row, unit);
    if (!d.bytes && !busy) continue;
    char line[200];
    if (act.any)
      std::snprintf(line, sizeof line, "  %-16s busy %5.1f%%  %12s bytes  %6.2f B/cycle\n", d.name.c_str(),
                    100.0 * static_cast<double>(busy) / c, grouped(d.bytes).c_str(), static_cast<double>(d.bytes) / c);
    else
      std::snprintf(line, sizeof line, "  %-16s busy     ?   %12s bytes  %6.2f B/cycle\n", d.name.c_str(),
                    grouped(d.bytes).c_str(), static_cast<double>(d.bytes) / c);
    out << line;
  }
}

namespace {

template <class T>
double as_double(T v) {
  if constexpr (std::is_same_v<T, num::Float16>)
    return static_cast<double>(num::to_float(v));
  else
    return static_cast<double>(v);
}

std::string index_text(size_t flat, const ref::Shape& shape) {
  std::vector<size_t> idx(shape.size());
  for (size_t i = shape.size(); i-- > 0;) {
    idx[i] = flat % shape[i];
    flat /= shape[i];
  }
  std::string s = "[";
  for (size_t i = 0; i < idx.size(); ++i) s += (i ? "," : "") + std::to_string(idx[i]);
  return s + "]";
}

std::string dtype_name(const ref::AnyArray& a) {
  static const char* names[] = {"float32", "float16", "int8", "int32"};
  return names[a.index()];
}

}  // namespace

std::string expect_outputs(const std::filesystem::path& dir, const runtime::Arrays& outputs) {
  if (!std::filesystem::is_directory(dir)) return dir.string() + " is not a folder";
  size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    if (e.path().extension() != ".npy") continue;
    ++files;
    const std::string name = e.path().stem().string(), file = e.path().filename().string();
    const auto it = outputs.find(name);
    if (it == outputs.end()) {
      std::string have;
      for (const auto& [n, a] : outputs) have += " " + n;
      return file + ": the bundle has no output '" + name + "' (outputs:" + have + ")";
    }
    ref::AnyArray want;
    try {
      want = ref::load_npy(e.path().string());
    } catch (const std::exception& ex) { return file + ": " + ex.what(); }
    const ref::AnyArray& got = it->second;
    if (want.index() != got.index())
      return file + ": expected " + dtype_name(want) + ", the run wrote " + dtype_name(got);
    std::string diff;
    std::visit(
        [&](const auto& w) {
          using A = std::decay_t<decltype(w)>;
          const A& g = std::get<A>(got);
          if (w.shape() != g.shape()) {
            diff =
                file + ": expected shape " + ref::shape_str(w.shape()) + ", the run wrote " + ref::shape_str(g.shape());
            return;
          }
          for (size_t i = 0; i < w.size(); ++i) {
            if (std::memcmp(&w.data()[i], &g.data()[i], sizeof(w.data()[i])) == 0) continue;
            std::ostringstream o;
            o << file << index_text(i, w.shape()) << ": expected " << as_double(w.data()[i]) << ", the run wrote "
              << as_double(g.data()[i]);
            diff = o.str();
            return;
          }
        },
        want);
    if (!diff.empty()) return diff;
  }
  if (!files) return dir.string() + " holds no .npy file";
  return "";
}

}  // namespace axcore::axrun
