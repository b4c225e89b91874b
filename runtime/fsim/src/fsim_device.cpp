#include "axcore/runtime/fsim_device.hpp"

#include <axcore/ref/dpu.hpp>
#include <axcore/ref/dwpu.hpp>
#include <axcore/ref/walk.hpp>

namespace axcore::runtime {
namespace {
namespace L = spec::layout::datapath_desc;
}  // namespace

FsimDevice::FsimDevice(unsigned cores)
    : runtime::RegFileDevice(runtime::RegFileOptions{cores, 64ull << 20, 16}), imc_(cores) {}

void FsimDevice::write32(uint64_t addr, uint32_t value) {
  const spec::TileAddr t = spec::decode_addr32(static_cast<uint32_t>(addr));
  if (const auto q = spec::core::Q_PUSH.index_of(t.offset); t.kind == spec::TileKind::Core && q) {
    const auto push = spec::QueuePush::decode_word(value);
    for (uint32_t r = 0; r <= push.repeat; ++r) run_task(t.core, *q, push.start);
  }
  runtime::RegFileDevice::write32(addr, value);
}

uint32_t FsimDevice::read32(uint64_t addr) {
  const uint32_t v = runtime::RegFileDevice::read32(addr);  // checks the address, advances the clock
  const spec::TileAddr t = spec::decode_addr32(static_cast<uint32_t>(addr));
  const uint32_t off = t.offset;
  if (t.kind != spec::TileKind::Core || t.core >= imc_.size()) return v;
  const ref::Imc& imc = imc_[t.core];
  if (off == spec::core::IMC_STALE_READS.offset) return static_cast<uint32_t>(imc.stale_reads);
  if (off == spec::core::IMC_STATUS.offset) {
    spec::core::ImcStatus st;
    st.matrix_id = imc.matrix_id();
    st.valid_tiles = static_cast<uint32_t>(imc.valid_tiles());
    st.stale = imc.stale_reads ? 1 : 0;
    return st.encode_word();
  }
  return v;
}

void FsimDevice::run_task(unsigned core, unsigned queue, uint32_t start) {
  const uint64_t cmd = spec::tile_addr(0, spec::core_row(core), spec::core::CMD_MEM.offset);
  auto word = [&](uint32_t w) { return read32(cmd + 4ull * (start + w)); };
  std::vector<uint32_t> d(L::max_words);
  for (uint32_t w = 0; w < 8; ++w) d[w] = word(w);
  std::vector<uint8_t>& l1 = this->l1(core);
  ++tasks_;
  if (queue == static_cast<unsigned>(spec::Queue::LOADIMC)) {
    ref::run_loadimc(spec::LoadimcDesc::decode(d), l1, imc_.at(core));
    return;
  }
  if (queue == static_cast<unsigned>(spec::Queue::CTRL)) return;
  const auto h = spec::DpHeader::decode(d);
  for (uint32_t w = 8; w < std::min<uint32_t>(h.words, L::max_words); ++w) d[w] = word(w);
  // a compiled descriptor is well formed: parse() refuses anything else with its reason
  const spec::DatapathDesc desc = spec::DatapathDesc::parse(d);
  ref::VectorSink ifd0, ifd1, main, dpu_out;
  ref::run_ifd(ref::ifd_walks(desc, 0, h.has_ifd1), l1, ifd0.fn());  // each feeder's segments in order (§8.3)
  if (h.has_ifd1) ref::run_ifd(ref::ifd_walks(desc, 1, true), l1, ifd1.fn());
  std::vector<ref::Element> stage = ifd0.elems;
  if (h.has_main) {
    ref::VectorSource src(stage);
    if (desc.mvm) {
      ref::run_mvm(*desc.mvm, imc_.at(core), src.fn(), main.fn());
      tile_ops_ += main.elems.size() * desc.mvm->k_blocks;
    } else {
      ref::run_dwpu(*desc.dwpu, l1, src.fn(), main.fn());
    }
    stage = main.elems;
  }
  if (h.has_dpu) {
    constexpr uint32_t kProgram = spec::DatapathDesc::kFixedWords;  // the program follows the fixed part
    const auto prog =
        ref::DpuProgram::decode(desc.dpu, std::span<const uint32_t>(d).subspan(kProgram, h.words - kProgram));
    ref::VectorSource in0(stage), in1(ifd1.elems);
    ref::Dpu dpu(prog, ref::DpuConfig{h.has_ifd1 != 0});
    dpu.run(ref::DpuIo{[&](unsigned s) { return s ? in1.pop() : in0.pop(); }, dpu_out.fn()});
    stage = dpu_out.elems;
  }
  ref::VectorSource out(stage);
  ref::run_odr(desc.odr, l1, out.fn());
}

}  // namespace axcore::runtime
