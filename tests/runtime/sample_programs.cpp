#include "sample_programs.hpp"

#include <cstring>

#include "axcore/txn/axcore_builder.hpp"

namespace axcore::runtime::testing_support {
using txn::Dir;
using txn::Tile;

spec::DmaBd linear_bd(spec::MemSel mem, uint32_t words, uint32_t addr) {
  spec::DmaBd bd;
  bd.valid = 1;
  bd.mem = mem;
  bd.length = words;
  bd.d0_size = words;
  bd.d0_stride = 1;
  bd.addr_lo = addr;
  return bd;
}
spec::QueuePush token_push(uint32_t start, uint32_t tag) {
  spec::QueuePush p;
  p.start = start;
  p.tag = tag;
  p.token = 1;
  return p;
}

Bundle dma_copy_bundle() {
  Bundle b;
  txn::AxcoreBuilder t(1);
  t.write_bd(Tile::shim(), 0, linear_bd(spec::MemSel::DDR, 64)).patch_bd_address(Tile::shim(), 0, 0, 0);
  t.write_bd(Tile::shim(), 1, linear_bd(spec::MemSel::L1, 64, 0x800));
  t.push_dma(Tile::shim(), Dir::S2MM, 0, token_push(1)).push_dma(Tile::shim(), Dir::MM2S, 0, token_push(0));
  t.wait_dma(Tile::shim(), Dir::S2MM, 0).wait_dma(Tile::shim(), Dir::MM2S, 0);
  spec::DmaBd rows = linear_bd(spec::MemSel::L1, 64, 0x800);
  rows.d0_size = 8;
  rows.d1_size = 8;
  rows.d1_stride = 8;
  rows.d0_pad_before = 1;
  rows.d0_pad_after = 1;
  rows.pad_value = kCopyPad;
  t.write_bd(Tile::core(0), 0, rows);
  t.write_bd(Tile::core(0), 1, linear_bd(spec::MemSel::DDR, 80)).patch_bd_address(Tile::core(0), 1, 1, 0);
  t.push_dma(Tile::core(0), Dir::S2MM, 0, token_push(1)).push_dma(Tile::core(0), Dir::MM2S, 0, token_push(0));
  t.wait_dma(Tile::core(0), Dir::S2MM, 0).wait_dma(Tile::core(0), Dir::MM2S, 0);
  b.txn = t.words();
  b.buffers.push_back({"x", BufferRole::INPUT, spec::Dtype::INT32, {8, 8}, {}, 0, std::nullopt});
  b.buffers.push_back({"y", BufferRole::OUTPUT, spec::Dtype::INT32, {8, 10}, {}, 1, std::nullopt});
  b.params.push_back({"marker",
                      ParamType::INT32,
                      7,
                      {{spec::tile_addr(0, 0, spec::shim::SCRATCH.offset), 0x0000FFFF, 0}},
                      "bring-up marker"});
  b.metadata["name"] = "dma_copy_pad";
  return b;
}

ref::NDArray<int32_t> dma_copy_expected(const ref::NDArray<int32_t>& x) {
  ref::NDArray<int32_t> y({8, 10}, static_cast<int32_t>(kCopyPad));
  for (size_t r = 0; r < 8; ++r)
    for (size_t c = 0; c < 8; ++c) y({r, c + 1}) = x({r, c});
  return y;
}

Bundle linear_relu_bundle() {
  Bundle b;
  std::vector<uint8_t> w(64 * 4);
  for (size_t k = 0; k < 64; ++k)
    for (size_t n = 0; n < 4; ++n) w[k * 4 + n] = static_cast<uint8_t>(static_cast<int8_t>(n == 3 ? -1 : int(n)));
  const float scale[4] = {0.5f, 1.0f, 2.0f, 1.0f};
  std::vector<uint8_t> s(16);
  std::memcpy(s.data(), scale, 16);
  b.constants.push_back({"w", w});
  b.constants.push_back({"scale", s});
  b.buffers.push_back({"x", BufferRole::INPUT, spec::Dtype::INT8, {2, 64}, {}, 0, std::nullopt});
  b.buffers.push_back({"w", BufferRole::CONSTANT, spec::Dtype::INT8, {64, 4}, {}, 1, 0});
  b.buffers.push_back({"scale", BufferRole::CONSTANT, spec::Dtype::FLOAT32, {4}, {}, 2, 1});
  b.buffers.push_back({"y", BufferRole::OUTPUT, spec::Dtype::FLOAT32, {2, 4}, {}, 3, std::nullopt});
  b.graph.push_back({"linear", {"x", "w", "scale"}, {"acc"}, {}});
  b.graph.push_back({"relu", {"acc"}, {"y"}, {}});
  return b;
}

}  // namespace axcore::runtime::testing_support
