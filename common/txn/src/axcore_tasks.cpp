#include "axcore_tasks.hpp"

#include <algorithm>
#include <array>
#include <string>

#include "axcore/txn/read_words.hpp"
#include "axcore/txn/text.hpp"

namespace axcore::txn::detail {
namespace {

namespace dd = spec::layout::datapath_desc;

// Collects the descriptor words a task reads, noting the ones the stream never wrote.
class DescriptorReader {
 public:
  DescriptorReader(uint32_t start, const TileState& state) : start_(start), state_(state) {}

  // Words [at, at + count) of the descriptor; reserved words up to `size` read as 0.
  std::vector<uint32_t> section(uint32_t at, uint32_t count, uint32_t size) {
    std::vector<uint32_t> w(size > count ? size : count, 0);
    for (uint32_t i = 0; i < count; ++i) {
      const uint64_t word = uint64_t{start_} + at + i;
      if (word >= spec::core::CMD_MEM.count) {
        past_end_ = true;
        continue;
      }
      const auto v = state_.read(spec::core::CMD_MEM.at(static_cast<uint32_t>(word)));
      if (!v) missing_.push_back(at + i);
      w[i] = v.value_or(0);
      read_.push_back(w[i]);
    }
    return w;
  }
  template <class S>
  S read(uint32_t at) {
    return S::decode(section(at, field_words<S>(), S::kWords));
  }
  // A walk: word 0, then only the words the device reads for its ndims and nguards
  // (walk_read_words; the TXN writes no others).
  spec::Walk read_walk(uint32_t at) {
    std::vector<uint32_t> w = section(at, 1, spec::Walk::kWords);
    const std::vector<bool> used = walk_read_words(spec::Walk::decode(w));
    for (uint32_t i = 1; i < used.size(); ++i)
      if (used[i]) w[i] = section(at + i, 1, 1)[0];
    return spec::Walk::decode(w);
  }

  bool past_end() const { return past_end_; }
  std::vector<uint32_t>& missing() { return missing_; }
  std::vector<uint32_t>& words() { return read_; }

 private:
  uint32_t start_;
  const TileState& state_;
  std::vector<uint32_t> missing_, read_;
  bool past_end_ = false;
};

std::string dims_text(std::span<const uint32_t> sizes, std::span<const int32_t> strides) {
  std::string s = "[";
  for (std::size_t i = 0; i < sizes.size(); ++i)
    s += (i ? " " : "") + std::to_string(sizes[i]) + "x" + std::to_string(strides[i]);
  return s + "]";
}

std::string walk_text(std::string_view unit, const spec::Walk& w, bool odr) {
  const std::array<uint32_t, 6> sizes{w.d0_size, w.d1_size, w.d2_size, w.d3_size, w.d4_size, w.d5_size};
  const std::array<int32_t, 6> strides{w.d0_stride, w.d1_stride, w.d2_stride, w.d3_stride, w.d4_stride, w.d5_stride};
  const std::size_t n = w.ndims < 6 ? w.ndims : 6;
  std::string s = std::string(unit) + " " + std::string(spec::to_string(w.dtype));
  if (odr && w.cast_from != w.dtype) s += "<-" + std::string(spec::to_string(w.cast_from));
  s += " " + dims_text(std::span(sizes).first(n), std::span(strides).first(n)) + " @r" + std::to_string(w.base_row);
  if (w.nguards) s += " guards=" + std::to_string(w.nguards);
  return s;
}

std::string out_dims(uint32_t ndims, std::array<uint32_t, 4> sizes) {
  std::string s;
  for (uint32_t i = 0; i < ndims && i < 4; ++i) s += (i ? "x" : "") + std::to_string(sizes[i]);
  return s.empty() ? "-" : s;
}

Task datapath(spec::Queue queue, DescriptorReader& r) {
  const auto h = r.read<spec::DpHeader>(dd::header);
  std::string units, parts;
  auto unit = [&](std::string_view name, const std::string& text) {
    units += (units.empty() ? "" : ",") + std::string(name);
    parts += "; " + text;
  };
  if (h.has_ifd0) unit("ifd0", walk_text("ifd0", r.read_walk(dd::ifd0), false));
  if (h.has_ifd1) unit("ifd1", walk_text("ifd1", r.read_walk(dd::ifd1), false));
  if (h.has_main && h.kind == spec::DpKind::MVMEXE) {
    const auto m = r.read<spec::MvmDesc>(dd::mvm);
    unit("mvm", "mvm k=" + std::to_string(m.k_blocks) + " matrix=" + std::to_string(m.matrix_id) +
                    " tile=" + std::to_string(m.tile_base) +
                    " out=" + out_dims(m.ndims, {m.o0_size, m.o1_size, m.o2_size, m.o3_size}));
  } else if (h.has_main) {
    const auto d = r.read<spec::DwpuDesc>(dd::dwpu);
    unit("dwpu", "dwpu " + std::string(spec::to_string(d.op)) + " taps=" + std::to_string(d.taps) +
                     " out=" + out_dims(d.ndims, {d.o0_size, d.o1_size, d.o2_size, d.o3_size}));
  }
  if (h.has_dpu) {
    const auto d = r.read<spec::DpuDesc>(dd::dpu);
    const uint32_t instrs = d.init_len + d.body_len;
    r.section(dd::program, 2 * instrs, 0);
    unit("dpu", "dpu " + std::to_string(d.init_len) + "+" + std::to_string(d.body_len) + " x" +
                    std::to_string(d.iterations) + " -> " + std::string(spec::to_string(d.out_dtype)));
  }
  if (h.has_odr) unit("odr", walk_text("odr", r.read_walk(dd::odr), true));
  std::string kind(spec::to_string(h.kind));
  const bool on_its_queue = (h.kind == spec::DpKind::MVMEXE && queue == spec::Queue::MVMEXE) ||
                            (h.kind == spec::DpKind::DWPU && queue == spec::Queue::DWPU);
  if (!on_its_queue) kind += " (on the " + std::string(spec::to_string(queue)) + " queue)";
  return {"datapath",
          "datapath " + kind + " id=" + std::to_string(h.id) + " units=" + (units.empty() ? "none" : units) + parts,
          {}};
}

Task loadimc(DescriptorReader& r) {
  const auto d = r.read<spec::LoadimcDesc>(0);
  return {"loadimc",
          "loadimc matrix=" + std::to_string(d.matrix_id) + " tiles=" + std::to_string(d.d0_size) + "x" +
              std::to_string(d.d1_size) + " @t" + std::to_string(d.tile_base) + " from r" + std::to_string(d.base_row) +
              " stride " + std::to_string(d.row_stride),
          {}};
}

Task barrier(DescriptorReader& r) {
  const auto d = r.read<spec::BarrierDesc>(0);
  return {"barrier", "barrier id=" + std::to_string(d.barrier_id) + " cores=" + hex(d.core_mask), {}};
}

uint32_t magic_of(spec::Queue q) {
  switch (q) {
    case spec::Queue::MVMEXE:
    case spec::Queue::DWPU: return spec::magic::datapath;
    case spec::Queue::LOADIMC: return spec::magic::loadimc;
    case spec::Queue::CTRL: return spec::magic::barrier;
  }
  return 0;
}

}  // namespace

TaskRead read_axcore_task(spec::Queue queue, uint32_t start, const TileState& state) {
  TaskRead out;
  out.what = "the " + std::string(spec::to_string(queue)) + " descriptor at word " + std::to_string(start);
  if (start >= spec::core::CMD_MEM.count) {
    out.problem = "past the end of its " + std::to_string(spec::core::CMD_MEM.count) + "-word command memory";
    return out;
  }
  DescriptorReader r(start, state);
  const uint32_t first = r.section(0, 1, 1)[0];
  Task task;
  if (!r.missing().empty()) {
    out.missing = r.missing();
    return out;
  }
  if ((first & 0xFF) != magic_of(queue)) {
    task = {"invalid",
            "descriptor magic " + hex(first & 0xFF) + ", the " + std::string(spec::to_string(queue)) + " queue runs " +
                hex(magic_of(queue)),
            {}};
  } else {
    r.words().clear();  // the typed reads below read word 0 again
    task = queue == spec::Queue::LOADIMC ? loadimc(r) : queue == spec::Queue::CTRL ? barrier(r) : datapath(queue, r);
  }
  if (r.past_end()) {
    out.problem =
        "which runs past the end of its " + std::to_string(spec::core::CMD_MEM.count) + "-word command memory";
    return out;
  }
  if (!r.missing().empty()) {
    out.missing = r.missing();
    std::ranges::sort(out.missing);  // sections are read in pipeline order, not word order
    return out;
  }
  task.words = std::move(r.words());
  out.task = std::move(task);
  return out;
}

}  // namespace axcore::txn::detail
