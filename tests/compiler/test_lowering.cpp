// Emitted descriptors decode back to what was built: the bundle's command stream holds the
// datapath and LoadIMC descriptors the lowering made, field for field.
#include <gtest/gtest.h>

#include <axcore/compiler/compile.hpp>
#include <axcore/compiler/printer.hpp>

#include "guide_kernels.hpp"

namespace ax = axcore::compiler;
namespace spec = axcore::spec;
namespace L = axcore::spec::layout::datapath_desc;

TEST(CompilerLowering, ScaleSinksIntoOneDatapathWithAnImplicitIfd1) {
  const auto r = ax::compile(axcore::examples::scale().ir().main());
  // One datapath: the loop of 8 was sunk into the units (§9.2).
  int tasks = 0;
  const ax::Task* t = nullptr;
  for (const auto& s : r.program.steps)
    if (const auto* k = std::get_if<ax::Task>(&s)) ++tasks, t = k;
  ASSERT_EQ(tasks, 1);
  const auto words = axcore::runtime::command_memory(r.bundle).at(0).words;
  const auto h = spec::DpHeader::decode(std::span(words).subspan(t->cmd_word));
  EXPECT_EQ(h.magic, spec::magic::datapath);
  EXPECT_EQ(h.kind, spec::DpKind::DWPU);
  EXPECT_EQ(h.has_ifd0 + h.has_ifd1 + h.has_dpu + h.has_odr, 4u);
  EXPECT_EQ(h.has_main, 0u);
  const auto ifd0 = spec::Walk::decode(std::span(words).subspan(t->cmd_word + L::ifd0));
  EXPECT_EQ(ifd0.dtype, spec::Dtype::FLOAT32);
  EXPECT_EQ(ifd0.ndims, 1u);
  EXPECT_EQ(ifd0.d0_size, 8u);
  EXPECT_EQ(ifd0.d0_stride, 4);  // one float32x64 element = 4 L1 rows
  const auto ifd1 = spec::Walk::decode(std::span(words).subspan(t->cmd_word + L::ifd1));
  EXPECT_EQ(ifd1.d0_size, 8u);
  EXPECT_EQ(ifd1.d0_stride, 0);  // scale[0] every iteration
  const auto dpu = spec::DpuDesc::decode(std::span(words).subspan(t->cmd_word + L::dpu));
  EXPECT_EQ(dpu.iterations, 8u);
  EXPECT_EQ(dpu.body_len, 4u);  // POP, POP (IFD1), MUL, PUSH
  EXPECT_EQ(h.words, L::program + 2 * dpu.body_len);
  const auto i2 = spec::DpuInstr::decode(std::span(words).subspan(t->cmd_word + L::program + 4));
  EXPECT_EQ(i2.op, spec::DpuOp::MUL);
  EXPECT_NE(r.ir_lowered().find("for "), std::string::npos);
}

TEST(CompilerLowering, MatmulLoadImcAndMvmDescriptors) {
  const auto r = ax::compile(axcore::examples::matmul(4, 2, 3, false).ir().main());
  std::vector<const ax::Task*> tasks;
  for (const auto& s : r.program.steps)
    if (const auto* k = std::get_if<ax::Task>(&s)) tasks.push_back(k);
  ASSERT_EQ(tasks.size(), 2u);  // one LoadIMC (grid sunk), one MVMEXE datapath
  const auto words = axcore::runtime::command_memory(r.bundle).at(0).words;
  const auto li = spec::LoadimcDesc::decode(std::span(words).subspan(tasks[0]->cmd_word));
  EXPECT_EQ(li.magic, spec::magic::loadimc);
  EXPECT_EQ(li.d1_size, 2u);  // kb
  EXPECT_EQ(li.d0_size, 3u);  // nb
  EXPECT_EQ(li.d1_tstride, 3);
  EXPECT_EQ(li.d0_tstride, 1);
  EXPECT_EQ(li.row_stride, 3u);  // weights (K, 3): one row of the matrix every 3 L1 rows
  EXPECT_EQ(li.d1_astride, 64 * 3);
  const auto mvm = spec::MvmDesc::decode(std::span(words).subspan(tasks[1]->cmd_word + L::mvm));
  EXPECT_EQ(mvm.k_blocks, 2u);
  EXPECT_EQ(mvm.k_stride, 3);
  EXPECT_EQ(mvm.matrix_id, li.matrix_id);
  EXPECT_EQ(mvm.ndims, 2u);
  EXPECT_EQ(mvm.o0_size, 3u);
  EXPECT_EQ(mvm.o0_tstride, 1);
  EXPECT_EQ(mvm.o1_size, 4u);
  EXPECT_EQ(mvm.o1_tstride, 0);
  EXPECT_EQ(tasks[1]->mvm_tile_ops, 4u * 3u * 2u);
  const auto ifd0 = spec::Walk::decode(std::span(words).subspan(tasks[1]->cmd_word + L::ifd0));
  EXPECT_EQ(ifd0.ndims, 3u);  // (m, nb, kb); nb has stride 0
  EXPECT_EQ(ifd0.d0_size, 2u);
  EXPECT_EQ(ifd0.d1_stride, 0);
  EXPECT_FALSE(r.bundle.txn.empty());
}
