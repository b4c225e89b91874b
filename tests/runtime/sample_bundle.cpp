#include "sample_bundle.hpp"

#include "axcore/txn/axcore_builder.hpp"
#include "axcore/txn/decode.hpp"

namespace axcore::runtime::testing_support {

Bundle sample_bundle() {
  Bundle b;
  txn::AxcoreBuilder tb(1);
  spec::DmaBd bd;
  bd.length = 16;
  bd.valid = 1;
  bd.d0_size = 16;
  bd.d0_stride = 1;
  tb.write_bd(txn::Tile::shim(), 0, bd).patch_bd_address(txn::Tile::shim(), 0, 0, 0);
  spec::QueuePush push;
  push.token = 1;
  tb.push_dma(txn::Tile::shim(), txn::Dir::MM2S, 0, push).wait_dma(txn::Tile::shim(), txn::Dir::MM2S, 0);
  b.txn = tb.words();
  b.commands.push_back({"mvm", 0, 64, {0xD9, 1, 2, 3}});
  std::vector<uint8_t> w(64 * 4);
  for (size_t i = 0; i < w.size(); ++i) w[i] = static_cast<uint8_t>(i * 7);
  b.constants.push_back({"w", w});
  b.buffers.push_back({"x", BufferRole::INPUT, spec::Dtype::INT8, {4, 64}, {}, 0, std::nullopt});
  b.buffers.push_back({"w", BufferRole::CONSTANT, spec::Dtype::INT8, {64, 4}, {}, 1, 0});
  DeviceLayout pw;
  pw.kind = LayoutKind::PWORDS;
  pw.bytes = 4096;
  b.buffers.push_back({"y", BufferRole::OUTPUT, spec::Dtype::FLOAT32, {4, 4}, pw, 2, std::nullopt});
  b.buffers.push_back({"tmp", BufferRole::SCRATCH, spec::Dtype::INT32, {16}, {}, std::nullopt, std::nullopt});
  b.params.push_back({"scale",
                      ParamType::FLOAT32,
                      0x3f800000,
                      {{spec::tile_addr(0, 2, spec::core::CMD_MEM.at(70)), 0xFFFFFFFF, 0}},
                      "output scale"});
  GraphNode mm{"linear", {"x", "w"}, {"acc"}, {}};
  mm.attrs["out_dtype"] = std::string("float32");
  mm.attrs["scale"] = std::vector<double>{0.5};
  mm.attrs["k"] = int64_t{64};
  mm.attrs["shape"] = std::vector<int64_t>{4, 4};
  mm.attrs["alpha"] = 1.5;
  b.graph.push_back(mm);
  b.graph.push_back({"relu", {"acc"}, {"y"}, {}});
  b.metadata["compiler"] = "axc";
  b.metadata["compiler_version"] = "0.1.0";
  return b;
}

uint32_t sample_bd_length_word(const Bundle& b) {
  const txn::Decoded d = txn::decode(b.txn);
  for (const txn::Op& op : d.ops)
    if (const auto* bw = std::get_if<txn::BlockWrite>(&op.body))
      if (bw->addr == spec::tile_addr(0, 0, spec::shim::DMA_BD.at(0)))
        return static_cast<uint32_t>(bw->data.data() - b.txn.data());
  return 0;
}

Bundle sample_dispatch_bundle() {
  Bundle b = sample_bundle();
  b.dispatch.scalars.push_back({"M", 1, 16, "rows of x"});
  const Affine m{0, {{0, 1}}};
  b.dispatch.guards.push_back({m, 4, GuardOp::EQ, 0, "M must be a multiple of 4"});
  b.dispatch.guards.push_back({m, 0, GuardOp::NE, 12, "M cannot be 12"});
  b.dispatch.staged.push_back({StagedKind::BUFFER_DIM, 0, 0, m});
  // The BD's word 0: length 4 * M (bits 0..23) and valid (bit 28).
  b.dispatch.staged.push_back({StagedKind::TXN_WORD, sample_bd_length_word(b), 0, Affine{1 << 28, {{0, 4}}}});
  return b;
}

}  // namespace axcore::runtime::testing_support
