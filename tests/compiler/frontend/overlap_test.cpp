// The overlap scheduler (compiler/passes/schedule_overlap.cpp) and the race verifier
// (compiler/passes/verify_sync.cpp) on the example models: which copies run while which
// datapaths compute, the ping/pong slots of the row-streamed linear, and a removed wait caught.
#include <algorithm>
#include <axcore/compiler/frontend/model.hpp>
#include <axcore/compiler/sync.hpp>
#include <axcore/runtime/bundle.hpp>
#include <axcore/txn/decode.hpp>
#include <axcore/txn/read_words.hpp>
#include <filesystem>
#include <map>
#include <set>

#include "../ops/harness.hpp"

namespace {

namespace cc = axcore::compiler;
namespace fe = axcore::compiler::frontend;

const std::filesystem::path kModels = AXCORE_EXAMPLE_MODELS;

cc::CompileResult compile_model(const std::string& name, bool overlap) {
  const fe::Model m = fe::load_model(kModels / (name + ".yaml"));
  cc::CompileOptions o;
  o.overlap = overlap;
  return cc::compile(m.module.ir().main(), o);
}

struct TxnDescriptors {
  uint64_t words = 0;                     // CMD_MEM words the TXN writes
  uint64_t pushes_before_descriptor = 0;  // task pushes whose descriptor was not (wholly) written yet
  uint64_t written_across_a_wait = 0;     // descriptors whose write and first push a TCT separates
};

TxnDescriptors txn_descriptors(const cc::CompileResult& r) {
  namespace sp = axcore::spec;
  // (core, cmd_word) -> the words the device reads (the TXN writes only those)
  std::map<std::pair<uint32_t, uint32_t>, std::vector<bool>> read;
  for (const auto& s : r.program.steps)
    if (const auto* k = std::get_if<cc::Task>(&s))
      read[{k->core, k->cmd_word}] = axcore::txn::descriptor_read_words(k->words);
  TxnDescriptors out;
  std::map<std::pair<uint32_t, uint32_t>, uint64_t> written_at;  // (core, word) -> TCTs seen before its write
  std::set<std::pair<uint32_t, uint32_t>> pushed;
  uint64_t tcts = 0;
  for (const auto& op : axcore::txn::decode(r.bundle.txn).ops) {
    if (std::holds_alternative<axcore::txn::Tct>(op.body)) ++tcts;
    if (const auto* w = std::get_if<axcore::txn::BlockWrite>(&op.body))
      for (uint32_t core = 0; core < r.program.cores; ++core) {
        const uint32_t base = sp::tile_addr(0, sp::core_row(core), sp::core::CMD_MEM.offset);
        if (w->addr < base || w->addr >= base + 4 * sp::core::CMD_MEM.count) continue;
        for (std::size_t i = 0; i < w->data.size(); ++i) written_at[{core, (w->addr - base) / 4 + uint32_t(i)}] = tcts;
        out.words += w->data.size();
      }
    const auto* p = std::get_if<axcore::txn::Write32>(&op.body);
    for (uint32_t core = 0; p && core < r.program.cores; ++core)
      for (uint32_t q = 0; q < sp::core::Q_PUSH.count; ++q) {
        if (p->addr != sp::tile_addr(0, sp::core_row(core), sp::core::Q_PUSH.at(q))) continue;
        const uint32_t start = sp::QueuePush::decode_word(p->value).start;
        const std::vector<bool>& used = read.at({core, start});
        for (uint32_t i = 0; i < used.size(); ++i)
          if (used[i] && !written_at.count({core, start + i})) {
            ++out.pushes_before_descriptor;
            break;
          }
        if (pushed.insert({core, start}).second && written_at.count({core, start}) &&
            written_at.at({core, start}) < tcts)
          ++out.written_across_a_wait;
      }
  }
  return out;
}

// [push step, wait step] of every launch.
std::map<std::size_t, std::pair<std::size_t, std::size_t>> spans(const cc::Program& p) {
  std::map<std::size_t, std::pair<std::size_t, std::size_t>> s;
  for (std::size_t i = 0; i < p.steps.size(); ++i) {
    if (std::holds_alternative<cc::Transfer>(p.steps[i]) || std::holds_alternative<cc::Task>(p.steps[i]))
      s[i] = {i, p.steps.size()};
    if (const auto* w = std::get_if<cc::Wait>(&p.steps[i])) s.at(w->launch).second = i;
  }
  return s;
}

std::string name_of(const cc::Step& s) {
  if (const auto* t = std::get_if<cc::Transfer>(&s)) return t->name;
  if (const auto* k = std::get_if<cc::Task>(&s)) return k->name;
  return "";
}

// Pairs (copy, datapath) in flight at the same time: the copy pushed before the datapath is
// waited and waited after the datapath is pushed.
std::vector<std::pair<std::string, std::string>> overlaps(const cc::Program& p) {
  std::vector<std::pair<std::string, std::string>> r;
  const auto s = spans(p);
  for (const auto& [i, si] : s) {
    const auto* k = std::get_if<cc::Task>(&p.steps[i]);
    if (!k || k->queue == axcore::spec::Queue::LOADIMC) continue;
    for (const auto& [j, sj] : s)
      if (std::holds_alternative<cc::Transfer>(p.steps[j]) && sj.first < si.second && sj.second > si.first)
        r.emplace_back(name_of(p.steps[j]), k->name);
  }
  return r;
}

TEST(Overlap, EveryExampleModelIsRaceFreeAndOverlapsCopiesWithCompute) {
  for (const char* m : {"mlp", "cnn", "attention", "vit_patch_embed", "resident_linear"}) {
    const auto on = compile_model(m, true), off = compile_model(m, false);
    EXPECT_TRUE(on.program.overlapped) << m;
    EXPECT_TRUE(cc::find_races(on.program).empty()) << m;
    EXPECT_TRUE(cc::find_races(off.program).empty()) << m;
    EXPECT_FALSE(overlaps(on.program).empty()) << m << ": no copy runs while a datapath computes";
    EXPECT_TRUE(overlaps(off.program).empty()) << m << ": the default sync waits after every launch";
  }
}

TEST(Overlap, MlpLoadsTheSecondLayersWeightsWhileTheFirstComputes) {
  const auto r = compile_model("mlp", true);
  const auto o = overlaps(r.program);
  bool w2_during_layer1 = false;
  for (const auto& [copy, dp] : o) w2_during_layer1 |= copy.rfind("sysdma w2", 0) == 0 && dp.rfind("dp1.", 0) == 0;
  EXPECT_TRUE(w2_during_layer1) << cc::explain(r.program);
  // Both weights share one IMC residency (64 + 16 tiles), so loading w2 ends no residency.
  uint32_t ids = 0;
  for (const auto& l : r.program.placement_notes) ids += l.rfind("IMC residency", 0) == 0;
  EXPECT_EQ(ids, 1u);
}

TEST(Overlap, RowStreamedLinearDoubleBuffersItsSlots) {
  const auto r = compile_model("resident_linear", true);
  const auto o = overlaps(r.program);
  // Chunk k + 1's input copy (into the other slot) runs while chunk k's datapath computes, and
  // chunk k - 1's result copy too: for every datapath but the first and last.
  std::map<std::string, std::set<std::string>> during;
  for (const auto& [copy, dp] : o) during[dp].insert(copy);
  std::size_t dps = 0, fed = 0, drained = 0;
  for (const auto& s : r.program.steps)
    if (const auto* k = std::get_if<cc::Task>(&s); k && k->queue == axcore::spec::Queue::MVMEXE) {
      ++dps;
      bool in = false, out = false;
      for (const auto& c : during[k->name]) {
        in |= c.find("-> y_n0_x") != std::string::npos;
        out |= c.find("y_n0_y") != std::string::npos && c.find("-> y") != std::string::npos;
      }
      fed += in;
      drained += out;
    }
  EXPECT_EQ(dps, 12u);
  EXPECT_GE(fed, dps - 1) << cc::explain(r.program);
  EXPECT_GE(drained, dps - 2) << cc::explain(r.program);
  // Two slots, not one per chunk: the L1 holds x's 768 KiB nowhere.
  std::size_t x_slots = 0;
  for (const auto& [b, reg] : r.program.l1) x_slots += b->name.rfind("y_n0_x", 0) == 0;
  EXPECT_EQ(x_slots, 2u);
  // With the default sync nothing overlaps, so the check above fails without double buffering.
  EXPECT_TRUE(overlaps(compile_model("resident_linear", false).program).empty());
}

// A constant weight streamed from DDR is cut into column chunks by the cost model (plan_columns)
// and read from its column-block-major image (a chunk's K rows contiguous in DDR, whole bursts):
// chunk j + 1's LoadIMC runs beside chunk j's MVMEXE. Without it the mlp's layer 1 is one MVMEXE
// task after all of w1's LoadIMC tasks, and only w2's two LoadIMC tasks run beside an MVMEXE.
TEST(Overlap, ConstantWeightsStreamInColumnChunks) {
  const auto r = compile_model("mlp", true);
  const auto s = spans(r.program);
  std::size_t mvmexe = 0, beside = 0, image_copies = 0;
  for (const auto& [i, si] : s) {
    const auto* k = std::get_if<cc::Task>(&r.program.steps[i]);
    if (const auto* t = std::get_if<cc::Transfer>(&r.program.steps[i]))
      image_copies += t->name.rfind("sysdma w1_cb", 0) == 0;
    if (!k || k->queue != axcore::spec::Queue::LOADIMC) {
      mvmexe += k && k->queue == axcore::spec::Queue::MVMEXE;
      continue;
    }
    bool with_mvmexe = false;
    for (const auto& [j, sj] : s) {
      const auto* m = std::get_if<cc::Task>(&r.program.steps[j]);
      with_mvmexe |= m && m->queue == axcore::spec::Queue::MVMEXE && sj.first < si.second && sj.second > si.first;
    }
    beside += with_mvmexe;
  }
  EXPECT_GE(mvmexe, 6u) << cc::explain(r.program);  // layer 1 in at least 4 chunks, layer 2 in 1 or 2
  EXPECT_GE(beside, 4u) << cc::explain(r.program);
  EXPECT_GE(image_copies, 2u) << cc::explain(r.program);
  EXPECT_TRUE(cc::find_races(r.program).empty());
  // The bundle carries the image only: the reference reads it through reshape/permute nodes.
  bool image = false, logical = false;
  for (const auto& c : r.bundle.constants) {
    image |= c.name.rfind("w1_cb", 0) == 0;
    logical |= c.name == "w1";
  }
  EXPECT_TRUE(image);
  EXPECT_FALSE(logical);
}

// A streamed weight group lands in L1 tile after tile (the copy scatters each DDR row's PWORDs to
// their tiles), so every LoadIMC walks consecutive rows over the L1 banks (row stride 1) instead of
// holding one bank per tile while the next group's copy into L1 waits on it (docs/compiler.md).
TEST(Overlap, StreamedWeightTilesLieContiguousInL1) {
  for (const char* m : {"mlp", "resident_linear"}) {
    const auto r = compile_model(m, true);
    std::size_t loads = 0;
    for (const auto& s : r.program.steps)
      if (const auto* k = std::get_if<cc::Task>(&s); k && k->queue == axcore::spec::Queue::LOADIMC) {
        const auto d = axcore::spec::LoadimcDesc::decode(k->words);
        EXPECT_EQ(d.row_stride, 1u) << m << " " << k->name;
        ++loads;
      }
    EXPECT_GT(loads, 1u) << m;
  }
}

// Tasks with equal descriptors share one CMD_MEM copy: the row-streamed linear's 12 chunks
// alternate between two descriptors (ping/pong slots), which the host loads once each.
TEST(Overlap, EqualDescriptorsAreLoadedOnce) {
  const auto r = compile_model("resident_linear", true);
  std::set<uint32_t> words;
  std::size_t dps = 0;
  for (const auto& s : r.program.steps)
    if (const auto* k = std::get_if<cc::Task>(&s); k && k->queue == axcore::spec::Queue::MVMEXE) {
      ++dps;
      words.insert(k->cmd_word);
      const auto cmd = axcore::runtime::command_memory(r.bundle).at(0).words;
      ASSERT_LE(k->cmd_word + k->words.size(), cmd.size());
      const std::vector<bool> used = axcore::txn::descriptor_read_words(k->words);
      for (std::size_t i = 0; i < used.size(); ++i)
        if (used[i]) { EXPECT_EQ(cmd[k->cmd_word + i], k->words[i]) << k->name << " word " << i; }
    }
  EXPECT_EQ(dps, 12u);
  EXPECT_EQ(words.size(), 2u);
  // Each distinct descriptor of a task once (2 datapaths + the LoadIMCs), only the words the
  // device reads; the preloaded image was 319 words, the CMD_MEM of descriptors no step runs
  // included, and the whole descriptors 284.
  EXPECT_EQ(txn_descriptors(r).words, 116u);
}

// What a compiled bundle's TXN does with descriptors, op by op: the CMD_MEM words it blockwrites
// (per core), whether each push's descriptor was written before it, and how many descriptors were
// written with a TCT between the write and their first push (written while earlier tasks ran).
TEST(Overlap, DescriptorsTravelInTheTxnAheadOfTheirPushes) {
  for (const char* model : {"mlp", "cnn", "attention", "vit_patch_embed", "resident_linear"}) {
    SCOPED_TRACE(model);
    const auto r = compile_model(model, true);
    EXPECT_TRUE(r.bundle.commands.empty());  // no preloaded streams: the TXN is the whole program
    const TxnDescriptors d = txn_descriptors(r);
    EXPECT_EQ(d.pushes_before_descriptor, 0u);
    std::set<std::pair<uint32_t, uint32_t>> distinct;
    uint64_t words = 0, total = 0;
    for (const auto& s : r.program.steps)
      if (const auto* k = std::get_if<cc::Task>(&s); k && distinct.insert({k->core, k->cmd_word}).second) {
        const std::vector<bool> used = axcore::txn::descriptor_read_words(k->words);
        words += static_cast<uint64_t>(std::count(used.begin(), used.end(), true));
        total += k->words.size();
      }
    EXPECT_EQ(d.words, words);  // every descriptor written, each once, only the words the device reads
    EXPECT_LT(2 * d.words, total);
    EXPECT_GT(d.written_across_a_wait, 0u);
  }
}

// Copies reading DDR alternate over the SysDMA's two channels (one copy's DDR latency passes under
// the other's data) until the first store to DDR; after it reads stay on channel 0, so no read
// queues behind a store (channel 1) that waits for the compute it saves.
TEST(Overlap, DdrReadsAlternateChannelsUntilTheFirstStore) {
  const auto mlp = compile_model("mlp", true);
  std::set<uint32_t> w1;
  for (const auto& s : mlp.program.steps)
    if (const auto* t = std::get_if<cc::Transfer>(&s); t && t->name.rfind("sysdma w1", 0) == 0) w1.insert(t->channel);
  EXPECT_EQ(w1, (std::set<uint32_t>{0, 1})) << cc::explain(mlp.program);
  const auto rl = compile_model("resident_linear", true);
  bool stored = false;
  for (const auto& s : rl.program.steps)
    if (const auto* t = std::get_if<cc::Transfer>(&s)) {
      if (t->ddr_s2mm) {
        EXPECT_EQ(t->channel, 1u) << t->name;
        stored = true;
      } else if (stored && t->ddr_mm2s) {
        EXPECT_EQ(t->channel, 0u) << t->name << " reads DDR on the store channel";
      }
    }
  EXPECT_TRUE(stored);
  // Without the overlap scheduler every read stays on channel 0.
  for (const auto& s : compile_model("mlp", false).program.steps)
    if (const auto* t = std::get_if<cc::Transfer>(&s); t && t->ddr_mm2s) { EXPECT_EQ(t->channel, 0u) << t->name; }
}

// Copies in pieces (docs/compiler.md "Copies in pieces", vit_patch_embed 6 201 -> 5 209 RTL cycles).
// A large DDR read goes in ~32 KiB pieces on alternating channels, so the DDR (which both channels
// share) serves the reads in the order the program needs them: vit_patch_embed's 72 KiB image in
// two pieces beside the first weight chunk's copies, not one copy beside the second chunk's.
// A 16 KiB input stays one copy; without the overlap scheduler every read is one copy.
TEST(Overlap, LargeDdrReadsGoInPiecesOnAlternatingChannels) {
  const auto r = compile_model("vit_patch_embed", true);
  std::set<uint32_t> channels;
  uint64_t words = 0;
  std::size_t pieces = 0, last_piece = 0, first_chunk1_copy = r.program.steps.size();
  for (std::size_t i = 0; i < r.program.steps.size(); ++i)
    if (const auto* t = std::get_if<cc::Transfer>(&r.program.steps[i])) {
      if (t->name.rfind("load image [", 0) == 0) {
        ++pieces, last_piece = i, words += t->words;
        channels.insert(t->channel);
      }
      if (t->name.find("-> b2_w_c1") != std::string::npos) first_chunk1_copy = std::min(first_chunk1_copy, i);
    }
  EXPECT_EQ(pieces, 2u) << cc::explain(r.program);
  EXPECT_EQ(words * 4, 32u * 36 * 64);  // the pieces cover the image once
  EXPECT_EQ(channels, (std::set<uint32_t>{0, 1}));
  EXPECT_LT(last_piece, first_chunk1_copy) << "the image is read before the second weight chunk";
  EXPECT_NE(cc::explain(r.program).find("load image in 2 copies"), std::string::npos);
  EXPECT_TRUE(cc::find_races(r.program).empty());
  for (const bool overlap : {true, false})
    for (const auto& s : compile_model(overlap ? "mlp" : "vit_patch_embed", overlap).program.steps)
      if (const auto* t = std::get_if<cc::Transfer>(&s); t && t->ddr_mm2s) {
        EXPECT_EQ(t->name.find('['), std::string::npos) << t->name;
      }
}

// A column chunk of more than 8 IMC tiles is copied and loaded in pieces of 4 tiles (a copy and a
// LoadIMC each), so its LoadIMC follows its copy; a chunked convolution's last chunk computes in
// two bands of output rows, and the result's store goes in two pieces, the first while the second
// band computes. The mlp's 8-tile chunks stay one copy and one LoadIMC each, and its result (one
// datapath writes all its rows) one store.
TEST(Overlap, LargeChunksLoadInPiecesAndTheLastBandOverlapsTheStore) {
  const auto r = compile_model("vit_patch_embed", true);
  const cc::Program& p = r.program;
  std::vector<std::size_t> mvmexe, stores;
  std::size_t loadimc = 0, copies = 0;
  for (std::size_t i = 0; i < p.steps.size(); ++i) {
    if (const auto* k = std::get_if<cc::Task>(&p.steps[i])) {
      loadimc += k->queue == axcore::spec::Queue::LOADIMC;
      if (k->queue == axcore::spec::Queue::MVMEXE) {
        mvmexe.push_back(i);
        EXPECT_EQ(k->mvm_tile_ops, mvmexe.size() == 1 ? 1024u : 512u) << k->name;
      }
    }
    if (const auto* t = std::get_if<cc::Transfer>(&p.steps[i])) {
      copies += t->name.rfind("sysdma w_conv", 0) == 0;
      if (t->ddr_s2mm) stores.push_back(i);
    }
  }
  EXPECT_EQ(loadimc, 8u) << cc::explain(p);  // 2 chunks x 4 pieces
  EXPECT_EQ(copies, 8u);
  ASSERT_EQ(mvmexe.size(), 3u) << cc::explain(p);  // chunk 0, chunk 1 in two bands
  ASSERT_EQ(stores.size(), 2u) << cc::explain(p);
  const auto s = spans(p);
  EXPECT_LT(stores[0], s.at(mvmexe[2]).second) << "the first store piece is pushed while the last band runs";
  const std::string why = cc::explain(p);
  EXPECT_NE(why.find("copied and loaded in 4 pieces"), std::string::npos) << why;
  EXPECT_NE(why.find("in 2 bands of output rows"), std::string::npos) << why;
  EXPECT_NE(why.find("store b4 in 2 copies"), std::string::npos) << why;
  EXPECT_TRUE(cc::find_races(p).empty());

  const auto mlp = compile_model("mlp", true);
  std::size_t mlp_loadimc = 0, mlp_mvmexe = 0, mlp_stores = 0;
  for (const auto& st : mlp.program.steps) {
    if (const auto* k = std::get_if<cc::Task>(&st)) {
      mlp_loadimc += k->queue == axcore::spec::Queue::LOADIMC;
      mlp_mvmexe += k->queue == axcore::spec::Queue::MVMEXE;
    }
    if (const auto* t = std::get_if<cc::Transfer>(&st)) mlp_stores += t->ddr_s2mm;
  }
  EXPECT_EQ(mlp_loadimc, mlp_mvmexe) << cc::explain(mlp.program);  // one LoadIMC per chunk
  EXPECT_EQ(mlp_stores, 1u);
}

// Backfilling (schedule_overlap.cpp): the cnn's LoadIMC queue would idle while conv2's second
// weight half is still copied; the first chunk of the linear's weight, whose copy landed, is loaded
// in that gap, before the conv2 LoadIMC tasks later in program order (cnn 6 446 -> 5 986 RTL
// cycles with the channel rule, docs/compiler.md). The explanation names the pair; the program
// stays race free (lower() verified it).
TEST(Overlap, ALoadImcWhoseCopyLandedFillsTheQueueBeforeOneStillWaiting) {
  const auto r = compile_model("cnn", true);
  std::size_t first_linear = r.program.steps.size(), last_conv = 0;
  for (std::size_t i = 0; i < r.program.steps.size(); ++i)
    if (const auto* k = std::get_if<cc::Task>(&r.program.steps[i]); k && k->queue == axcore::spec::Queue::LOADIMC) {
      if (k->name.find("core.linear") != std::string::npos) first_linear = std::min(first_linear, i);
      if (k->name.find("core.convolution") != std::string::npos) last_conv = i;
    }
  EXPECT_LT(first_linear, last_conv) << cc::explain(r.program);
  bool noted = false;
  for (const auto& n : r.program.reorder_notes) noted |= n.find("before loadimc") != std::string::npos;
  EXPECT_TRUE(noted) << cc::explain(r.program);
  EXPECT_NE(cc::explain(r.program).find("reordered by the model"), std::string::npos);
  // Without the scheduler the queue runs in program order.
  std::size_t fl = 0, lc = 0;
  const auto plain = compile_model("cnn", false);
  for (std::size_t i = 0; i < plain.program.steps.size(); ++i)
    if (const auto* k = std::get_if<cc::Task>(&plain.program.steps[i]); k && k->queue == axcore::spec::Queue::LOADIMC) {
      if (!fl && k->name.find("core.linear") != std::string::npos) fl = i;
      if (k->name.find("core.convolution") != std::string::npos) lc = i;
    }
  EXPECT_GT(fl, lc);
}

// A DDR read whose channel the scheduler may still change (Transfer::any_channel) is ordered as if
// on the other channel: two copies writing the same L1 rows on one channel need no wait (the
// channel runs them in order), but an open one may land on the other channel.
TEST(Overlap, ACopyWithAnOpenChannelIsOrderedAsOnAnotherChannel) {
  cc::Transfer a;
  a.ddr_mm2s = true;
  a.channel = 0;
  a.footprint = {cc::Access{cc::Access::Space::L1, 0, 0, 16, nullptr, true, "slot"}};
  a.mm2s.start_bd = 0;
  a.s2mm.start_bd = 1;
  cc::Transfer b = a;
  b.mm2s.start_bd = 2;
  b.s2mm.start_bd = 3;
  EXPECT_FALSE(cc::must_order(cc::Step(b), cc::Step(a)));
  b.any_channel = true;
  EXPECT_TRUE(cc::must_order(cc::Step(b), cc::Step(a)));
  EXPECT_TRUE(cc::must_order(cc::Step(a), cc::Step(b)));
}

TEST(Overlap, TheVerifierCatchesARemovedWait) {
  auto r = compile_model("resident_linear", true);
  cc::Program& p = r.program;
  // Remove the wait for the second input slot copy's predecessor use: the first wait for a
  // datapath that is followed by a copy into the slot it read.
  std::size_t removed = p.steps.size();
  for (std::size_t i = 0; i < p.steps.size() && removed == p.steps.size(); ++i)
    if (const auto* w = std::get_if<cc::Wait>(&p.steps[i]))
      if (const auto* k = std::get_if<cc::Task>(&p.steps[w->launch]); k && k->queue == axcore::spec::Queue::MVMEXE)
        removed = i;
  ASSERT_LT(removed, p.steps.size());
  p.steps.erase(p.steps.begin() + static_cast<std::ptrdiff_t>(removed));
  for (auto& s : p.steps)
    if (auto* w = std::get_if<cc::Wait>(&s); w && w->launch > removed) --w->launch;
  const auto races = cc::find_races(p);
  ASSERT_FALSE(races.empty());
  bool slot_race = false;
  for (const auto& l : races) slot_race |= l.find("starts while") != std::string::npos;
  EXPECT_TRUE(slot_race) << races.front();
  EXPECT_THROW(cc::verify_sync(p), std::logic_error);
}

// The mlp's w2 LoadIMC tasks run beside layer 1's MVMEXE task (same residency, tiles 64..79
// against 0..63: apart, docs/timing.md); the verifier accepts that and reports the same pair once
// the LoadIMC names another matrix_id (the device would run it after the MVMEXE task).
TEST(Overlap, LoadImcBesideMvmexeMustBeApart) {
  auto r = compile_model("mlp", true);
  cc::Program& p = r.program;
  std::map<std::size_t, std::size_t> waited;
  for (std::size_t i = 0; i < p.steps.size(); ++i)
    if (const auto* w = std::get_if<cc::Wait>(&p.steps[i])) waited[w->launch] = i;
  auto task = [&](std::size_t i, axcore::spec::Queue q) {
    const auto* k = std::get_if<cc::Task>(&p.steps[i]);
    return k && k->queue == q ? k : nullptr;
  };
  std::size_t li = p.steps.size();
  for (std::size_t i = 0; i < p.steps.size() && li == p.steps.size(); ++i)
    if (task(i, axcore::spec::Queue::MVMEXE))
      for (std::size_t j = 0; j < waited.at(i); ++j)
        if (task(j, axcore::spec::Queue::LOADIMC) && waited.at(j) > i) {
          li = j;
          break;
        }
  ASSERT_LT(li, p.steps.size()) << "no LoadIMC pushed while an MVMEXE task is in flight";
  EXPECT_TRUE(cc::find_races(p).empty());
  auto& words = std::get<cc::Task>(p.steps[li]).words;
  auto d = axcore::spec::LoadimcDesc::decode(words);
  d.matrix_id += 1;
  const auto enc = d.encode();
  std::copy(enc.begin(), enc.end(), words.begin());
  const auto races = cc::find_races(p);
  ASSERT_FALSE(races.empty());
  EXPECT_NE(races.front().find("not apart"), std::string::npos) << races.front();
  EXPECT_THROW(cc::verify_sync(p), std::logic_error);
}

}  // namespace
