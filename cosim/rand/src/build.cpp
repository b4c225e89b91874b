#include "build.hpp"

#include <fstream>
#include <random>

#include "axcore/ref/dma.hpp"
#include "axcore/ref/npy.hpp"
#include "axcore/txn/axcore_builder.hpp"

namespace axcore::rand {
namespace {

ref::DmaEngine engine_of(Engine e) {
  switch (e) {
    case Engine::SYS: return ref::DmaEngine::sysdma();
    case Engine::MEM: return ref::DmaEngine::memdma();
    case Engine::CORE: return ref::DmaEngine::coredma();
  }
  return ref::DmaEngine::sysdma();
}

txn::Tile tile_of(const Hop& h) {
  switch (h.engine) {
    case Engine::SYS: return txn::Tile::shim();
    case Engine::MEM: return txn::Tile::mem();
    case Engine::CORE: return txn::Tile::core(h.core);
  }
  return txn::Tile::shim();
}

// The golden machine: x, y, L2 and every L1 as byte arrays, addressed from 0.
struct Memories {
  std::vector<uint8_t> x, y, l2;
  std::vector<std::vector<uint8_t>> l1;
  std::vector<uint8_t>& of(const Place& p) {
    switch (p.mem) {
      case spec::MemSel::DDR: return p.arg == 0 ? x : y;
      case spec::MemSel::L2: return l2;
      default: return l1.at(p.core);
    }
  }
};

}  // namespace

spec::DmaBd to_bd(const Walk& w, const Place& p, uint32_t repeat, uint32_t pad_value, bool mm2s) {
  spec::DmaBd bd{};
  bd.valid = 1;
  bd.mem = p.mem;
  bd.core = p.mem == spec::MemSel::L1 ? p.core : 0;
  bd.length = static_cast<uint32_t>(w.words());
  const uint64_t addr = p.base + w.offset * 4;
  bd.addr_lo = static_cast<uint32_t>(addr);
  bd.addr_hi = static_cast<uint32_t>(addr >> 32);
  uint32_t* sizes[] = {&bd.d0_size, &bd.d1_size, &bd.d2_size, &bd.d3_size};
  int32_t* strides[] = {&bd.d0_stride, &bd.d1_stride, &bd.d2_stride, &bd.d3_stride};
  uint32_t* before[] = {&bd.d0_pad_before, &bd.d1_pad_before, &bd.d2_pad_before, &bd.d3_pad_before};
  uint32_t* after[] = {&bd.d0_pad_after, &bd.d1_pad_after, &bd.d2_pad_after, &bd.d3_pad_after};
  for (std::size_t k = 0; k < 4; ++k) {
    *sizes[k] = k < w.sizes.size() ? w.sizes[k] : 1;
    *strides[k] = k < w.strides.size() ? w.strides[k] : 0;
    if (mm2s && k < w.pad.size()) {
      *before[k] = w.pad[k].first;
      *after[k] = w.pad[k].second;
    }
  }
  if (repeat > 0) {
    bd.iter_size = repeat + 1;
    bd.iter_stride = w.iter_stride;
  }
  bd.pad_value = mm2s ? pad_value : 0;
  return bd;
}

Built build(const Program& p) {
  Built b;
  std::mt19937 rng(static_cast<uint32_t>(p.seed * 2654435761u + 7));
  std::vector<int32_t> xs(p.x_words);
  for (auto& v : xs) v = static_cast<int32_t>(rng());
  b.x = ref::NDArray<int32_t>({p.x_words}, xs);

  Memories m;
  m.x.resize(p.x_words * 4);
  std::memcpy(m.x.data(), xs.data(), m.x.size());
  m.y.assign(p.y_words * 4, 0);
  m.l2.assign(spec::param::l2_bytes, 0);
  m.l1.assign(p.cores, std::vector<uint8_t>(spec::param::l1_bytes, 0));

  txn::AxcoreBuilder tb(p.cores);
  uint32_t tag = 0;
  for (const auto& h : p.hops) {
    const auto eng = engine_of(h.engine);
    const auto tile = tile_of(h);
    std::vector<spec::DmaBd> reads;
    for (std::size_t k = 0; k < h.reads.size(); ++k) {
      auto bd = to_bd(h.reads[k], h.src, h.repeat, h.pad_value, true);
      if (k + 1 < h.reads.size()) {
        bd.use_next = 1;
        bd.next_bd = h.mm2s_bds[k + 1];
      }
      reads.push_back(bd);
    }
    const auto write = to_bd(h.write, h.dst, h.repeat, 0, false);
    // The golden run: every repeat runs the whole MM2S chain into the one S2MM BD.
    for (uint32_t r = 0; r <= h.repeat; ++r) {
      std::vector<uint32_t> stream;
      for (const auto& bd : reads) {
        ref::validate_bd(bd, eng, ref::DmaDir::MM2S);
        const auto walk = ref::dma_walk(bd, eng, ref::DmaDir::MM2S, r);
        const auto& src = m.of(h.src);
        const auto words = ref::mm2s_read(bd, walk, ref::ConstMemView{std::span<const uint8_t>(src), 0});
        stream.insert(stream.end(), words.begin(), words.end());
      }
      ref::validate_bd(write, eng, ref::DmaDir::S2MM);
      const auto walk = ref::dma_walk(write, eng, ref::DmaDir::S2MM, r);
      auto& dst = m.of(h.dst);
      ref::s2mm_write(walk, stream, ref::MemView{std::span<uint8_t>(dst), 0});
    }
    // The TXN: BDs, DDR patches, S2MM push with a token, MM2S push, wait.
    for (std::size_t k = 0; k < reads.size(); ++k) {
      tb.write_bd(tile, h.mm2s_bds[k], reads[k]);
      if (h.src.mem == spec::MemSel::DDR) tb.patch_bd_address(tile, h.mm2s_bds[k], h.src.arg, h.reads[k].offset * 4);
    }
    tb.write_bd(tile, h.s2mm_bd, write);
    if (h.dst.mem == spec::MemSel::DDR) tb.patch_bd_address(tile, h.s2mm_bd, h.dst.arg, h.write.offset * 4);
    spec::QueuePush s2mm{};
    s2mm.start = h.s2mm_bd;
    s2mm.repeat = h.repeat;
    s2mm.tag = tag++ & 0x7F;
    s2mm.token = 1;
    spec::QueuePush mm2s{};
    mm2s.start = h.mm2s_bds.front();
    mm2s.repeat = h.repeat;
    tb.push_dma(tile, txn::Dir::S2MM, h.channel, s2mm);
    tb.push_dma(tile, txn::Dir::MM2S, h.channel, mm2s);
    tb.wait_dma(tile, txn::Dir::S2MM, h.channel);
  }
  std::vector<int32_t> ys(p.y_words);
  std::memcpy(ys.data(), m.y.data(), m.y.size());
  b.y = ref::NDArray<int32_t>({p.y_words}, ys);

  auto& bundle = b.bundle;
  bundle.txn = tb.words();
  runtime::BufferDesc x;
  x.name = "x";
  x.role = runtime::BufferRole::INPUT;
  x.dtype = spec::Dtype::INT32;
  x.shape = {p.x_words};
  x.arg = 0;
  runtime::BufferDesc y = x;
  y.name = "y";
  y.role = runtime::BufferRole::OUTPUT;
  y.shape = {p.y_words};
  y.arg = 1;
  bundle.buffers = {x, y};
  bundle.metadata = {{"name", "axrand-" + std::to_string(p.seed)},
                     {"compiler", "axrand"},
                     {"source", "random DMA program, seed " + std::to_string(p.seed)}};
  return b;
}

void write_program(const Program& p, const std::filesystem::path& dir) {
  std::filesystem::create_directories(dir / "inputs");
  std::filesystem::create_directories(dir / "expected");
  const auto b = build(p);
  std::ofstream(dir / "program.json") << to_json(p).dump(1) << "\n";
  std::ofstream(dir / "coverage.json") << nlohmann::json(coverage_points(p)).dump() << "\n";
  std::ofstream(dir / "coverage_space.json") << nlohmann::json(coverage_space(p.cores)).dump() << "\n";
  runtime::save_bundle(dir / "program.axb", b.bundle);
  ref::save_npy((dir / "inputs" / "x.npy").string(), b.x);
  ref::save_npy((dir / "expected" / "y.npy").string(), b.y);
}

}  // namespace axcore::rand
