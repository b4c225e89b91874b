#include "axcore/compiler/emit.hpp"

#include <algorithm>
#include <axcore/num/pword.hpp>
#include <axcore/txn/axcore_builder.hpp>
#include <axcore/txn/read_words.hpp>
#include <cmath>
#include <cstring>
#include <map>
#include <optional>
#include <set>

namespace axcore::compiler {
namespace {

runtime::AttrValue attr_of(const std::vector<double>& v) {
  bool ints = true;
  for (double x : v) ints = ints && std::floor(x) == x && std::fabs(x) < 9e15;
  if (v.size() == 1) {
    if (ints) return static_cast<int64_t>(v[0]);
    return v[0];
  }
  if (ints) {
    std::vector<int64_t> r;
    for (double x : v) r.push_back(static_cast<int64_t>(x));
    return r;
  }
  return v;
}

std::vector<uint8_t> constant_bytes(const BufferNode& b, const std::vector<int64_t>& logical) {
  const spec::Dtype d = b.dtype.spec();
  const std::size_t lb = num::lane_bytes(d);
  const int64_t packed_last = b.shape.empty() ? 1 : b.shape.back() * b.dtype.lanes;
  const int64_t n_last = logical.empty() ? 1 : logical.back();
  int64_t outer = 1;
  for (std::size_t k = 0; k + 1 < logical.size(); ++k) outer *= logical[k];
  std::vector<uint8_t> out;
  out.reserve(static_cast<std::size_t>(outer * n_last) * lb);
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t j = 0; j < n_last; ++j) {
      const double v = b.data.at(static_cast<std::size_t>(o * packed_last + j));
      const uint32_t bits = num::encode_lane(d, v);
      for (std::size_t k = 0; k < lb; ++k) out.push_back(static_cast<uint8_t>(bits >> (8 * k)));
    }
  return out;
}

uint64_t bd_addr(const spec::DmaBd& bd) { return (static_cast<uint64_t>(bd.addr_hi) << 32) | bd.addr_lo; }

// metadata "steps": one line "INDEX NAME" per launch (its pushes carry tag INDEX & 0x7F), so the
// runtime's timeline names task spans as `axc compile --explain` does.
std::string step_names(const Program& p) {
  std::string out;
  for (std::size_t i = 0; i < p.steps.size(); ++i) {
    const std::string* name = nullptr;
    if (const auto* t = std::get_if<Transfer>(&p.steps[i])) name = &t->name;
    if (const auto* k = std::get_if<Task>(&p.steps[i])) name = &k->name;
    if (name && !name->empty()) out += std::to_string(i) + " " + *name + "\n";
  }
  return out;
}

// A run of descriptors the TXN writes into one core's CMD_MEM: only the words the device reads
// (`read`, txn/read_words.hpp), so the host spends no AXI-Lite cycles on absent units' sections,
// unused walk dimensions and guards, or reserved words.
struct DescriptorWrite {
  uint32_t core = 0, word = 0;
  std::vector<uint32_t> words;
  std::vector<bool> read;
};

// Where the TXN writes each descriptor: before the first push that runs it, hoisted above the run
// of waits that precedes that push, so the host's AXI-Lite writes (3 cycles a word) overlap the
// tasks those waits wait for instead of delaying the push; a push with no wait before it gets its
// descriptor just before it. A datapath's descriptor goes further up, right after the push of the
// core's previous datapath task before that point: the host writes it while that task computes,
// instead of between the token it waits for (often of a weight copy or LoadIMC the later layers
// need) and the push that continues the chain of datapaths. A descriptor several tasks share
// (lower() never rewrites CMD_MEM) is written once; descriptors written at one point that are
// consecutive on a core form one write. Key: the step before which the writes go.
std::map<std::size_t, std::vector<DescriptorWrite>> descriptor_writes(const Program& p) {
  std::map<std::size_t, std::vector<DescriptorWrite>> out;
  std::map<uint32_t, std::set<uint32_t>> written;                // per core: CMD_MEM words of descriptors written
  std::map<uint32_t, std::vector<std::size_t>> datapath_pushes;  // per core: steps pushing a datapath
  std::optional<std::size_t> anchor;                             // the first wait of the last run of waits
  bool after_wait = false;
  for (std::size_t i = 0; i < p.steps.size(); ++i) {
    const bool is_wait = std::holds_alternative<Wait>(p.steps[i]);
    if (is_wait && !after_wait) anchor = i;
    after_wait = is_wait;
    const auto* k = std::get_if<Task>(&p.steps[i]);
    if (!k) continue;
    const bool datapath = k->queue == spec::Queue::MVMEXE || k->queue == spec::Queue::DWPU;
    std::vector<std::size_t>& pushes = datapath_pushes[k->core];
    std::size_t where = anchor.value_or(i);
    if (datapath) {
      // the core's last datapath push before `where`: write right after it
      const auto before = std::lower_bound(pushes.begin(), pushes.end(), where);
      if (before != pushes.begin()) where = *std::prev(before) + 1;
      pushes.push_back(i);
    }
    if (!written[k->core].insert(k->cmd_word).second) continue;
    auto& at = out[where];
    const std::vector<bool> read = txn::descriptor_read_words(k->words);
    if (!at.empty() && at.back().core == k->core && at.back().word + at.back().words.size() == k->cmd_word) {
      at.back().words.insert(at.back().words.end(), k->words.begin(), k->words.end());
      at.back().read.insert(at.back().read.end(), read.begin(), read.end());
    } else {
      at.push_back({k->core, k->cmd_word, k->words, read});
    }
  }
  return out;
}

// Where the TXN writes each copy's BDs (key: the step before which they go; value: the copy's
// step): hoisted, like descriptors, above the run of waits before its push, but never above the
// wait that retired the previous copy on the same BDs (a BD is rewritten only once its last copy
// was waited). So the host's BD writes (the 14 words the device reads, or 12 and a DDR patch: ~42
// cycles) overlap the tasks those waits wait for instead of following the last token.
std::map<std::size_t, std::vector<std::size_t>> bd_writes(const Program& p) {
  std::map<std::size_t, std::vector<std::size_t>> out;
  std::map<std::pair<uint32_t, uint32_t>, std::size_t> last_user;  // (engine tile, BD) -> copy step
  std::map<std::size_t, std::size_t> waited_at;                    // launch step -> its wait step
  std::optional<std::size_t> anchor;
  bool after_wait = false;
  for (std::size_t i = 0; i < p.steps.size(); ++i) {
    if (const auto* w = std::get_if<Wait>(&p.steps[i])) {
      if (!after_wait) anchor = i;
      after_wait = true;
      waited_at[w->launch] = i;
      continue;
    }
    after_wait = false;
    const auto* t = std::get_if<Transfer>(&p.steps[i]);
    if (!t) continue;
    const uint32_t tile = dma_tile(*t);
    std::size_t at = anchor.value_or(i);
    for (const tap::BdTask* task : {&t->mm2s, &t->s2mm})
      for (std::size_t k = 0; k < task->bds.size(); ++k) {
        const std::pair<uint32_t, uint32_t> bd{tile, task->start_bd + static_cast<uint32_t>(k)};
        if (const auto u = last_user.find(bd); u != last_user.end()) {
          const auto w = waited_at.find(u->second);
          at = std::max(at, w == waited_at.end() ? i : w->second + 1);
        }
        last_user[bd] = i;
      }
    // Held below a wait of the run: written just before the push, so no earlier push of the run
    // waits behind them.
    out[anchor && at == *anchor ? at : i].push_back(i);
  }
  return out;
}

}  // namespace

std::vector<int64_t> logical_shape(const BufferNode& b) {
  if (!b.logical_shape.empty()) return b.logical_shape;
  std::vector<int64_t> s = b.shape;
  if (s.empty()) s.push_back(1);
  s.back() *= b.dtype.lanes;
  return s;
}

runtime::Bundle emit_bundle(const PrimFunc& f, const Program& p, const EmitOptions& opt) {
  runtime::Bundle out;
  std::map<const BufferNode*, uint32_t> arg;
  // `b` is the storage; `as` names and shapes it in the table (a view output: its root's bytes
  // under the view's name and logical shape).
  auto add_buffer = [&](const BufferNode& b, const BufferNode* as = nullptr) {
    if (arg.count(&b)) return;
    const BufferNode& named = as ? *as : b;
    runtime::BufferDesc d;
    d.name = named.name;
    d.role = b.output                         ? runtime::BufferRole::OUTPUT
             : b.role == BufferRole::Input    ? runtime::BufferRole::INPUT
             : b.role == BufferRole::Constant ? runtime::BufferRole::CONSTANT
                                              : runtime::BufferRole::SCRATCH;
    d.dtype = b.dtype.spec();
    std::vector<int64_t> shape = logical_shape(named);
    if (named.alias_of && named.logical_shape.empty()) {  // a view: its packed shape's, unless the front end set it
      shape = named.shape.empty() ? std::vector<int64_t>{1} : named.shape;
      shape.back() *= named.dtype.lanes;
    }
    for (int64_t x : shape) d.shape.push_back(static_cast<uint64_t>(x));
    d.layout.kind = runtime::LayoutKind::PWORDS;
    d.layout.axis = named.packed_axis;
    d.layout.bytes = static_cast<uint64_t>(b.elements()) * b.dtype.bytes();
    d.arg = static_cast<uint32_t>(out.buffers.size());
    if (b.role == BufferRole::Constant && !b.output) {
      d.constant = static_cast<uint32_t>(out.constants.size());
      out.constants.push_back({b.name, constant_bytes(b, logical_shape(b))});
    }
    arg[&b] = *d.arg;
    out.buffers.push_back(std::move(d));
  };
  for (const auto& b : f.params) add_buffer(*b);
  for (const auto& b : f.outputs) add_buffer(*b->root(), b.get());
  for (const auto& s : p.steps)
    if (const auto* t = std::get_if<Transfer>(&s))
      for (const BufferNode* b : {t->buffer, t->s2mm_buffer})
        if (b) add_buffer(*b);
  for (const auto& b : f.buffers)
    if (b->role == BufferRole::Constant && !b->alias_of) {
      bool used = false;
      for (const auto& n : f.graph)
        for (const auto& i : n.inputs) used = used || i == b->name;
      if (used) add_buffer(*b);
    }

  txn::AxcoreBuilder tb(p.cores);
  const txn::Tile shim = txn::Tile::shim();
  const auto descriptors = descriptor_writes(p);
  const auto bds = bd_writes(p);
  auto tile_of = [&](const Transfer& t) {
    if (t.engine == tap::Engine::kCoreDma) return txn::Tile::core(t.core);
    return t.engine == tap::Engine::kMemDma ? txn::Tile::mem() : shim;
  };
  for (std::size_t i = 0; i < p.steps.size(); ++i) {
    if (auto it = descriptors.find(i); it != descriptors.end())
      for (const DescriptorWrite& d : it->second) tb.write_descriptor(d.core, d.word, d.words, d.read);
    if (auto it = bds.find(i); it != bds.end())
      for (const std::size_t c : it->second) {
        const Transfer& t = std::get<Transfer>(p.steps[c]);
        for (const tap::BdTask* task : {&t.mm2s, &t.s2mm}) {
          const bool ddr_side = task == &t.mm2s ? t.ddr_mm2s : t.ddr_s2mm;
          for (std::size_t k = 0; k < task->bds.size(); ++k) {
            const uint32_t id = task->start_bd + static_cast<uint32_t>(k);
            tb.write_bd_read_words(tile_of(t), id, task->bds[k], ddr_side);
            const BufferNode* ddr = task == &t.s2mm && t.s2mm_buffer ? t.s2mm_buffer : t.buffer;
            if (ddr_side) tb.patch_bd_address(tile_of(t), id, arg.at(ddr), bd_addr(task->bds[k]));
          }
        }
      }
    const Step& s = p.steps[i];
    if (const auto* t = std::get_if<Transfer>(&s)) {
      const txn::Tile tile = tile_of(*t);
      spec::QueuePush s2mm{t->s2mm.start_bd, t->s2mm.repeat, static_cast<uint32_t>(i & 0x7F), 1};
      spec::QueuePush mm2s{t->mm2s.start_bd, t->mm2s.repeat, static_cast<uint32_t>(i & 0x7F), 0};
      tb.push_dma(tile, txn::Dir::S2MM, t->channel, s2mm);
      tb.push_dma(tile, txn::Dir::MM2S, t->channel, mm2s);
    } else if (const auto* k = std::get_if<Task>(&s)) {
      tb.push_task(k->core, k->queue, spec::QueuePush{k->cmd_word, 0, static_cast<uint32_t>(i & 0x7F), 1});
    } else if (const auto* w = std::get_if<Wait>(&s)) {
      const Step& l = p.steps.at(w->launch);
      if (const auto* lt = std::get_if<Transfer>(&l))
        tb.wait_dma(tile_of(*lt), txn::Dir::S2MM, lt->channel);
      else {
        const auto& k2 = std::get<Task>(l);
        tb.wait_task(k2.core, k2.queue);
      }
    }
  }
  out.txn = tb.words();

  // The graph is single assignment but for the output and scratch buffers of the table: a name
  // written again (an operator updating a buffer in place, a tile view's region written back,
  // guide §11.2) gets a new version (name.v2, ...), and the nodes after it read that version.
  std::map<std::string, std::string> version;  // name -> its latest version
  std::map<std::string, int> writes;
  auto reassignable = [&](const std::string& name) {
    const runtime::BufferDesc* d = out.find_buffer(name);
    return d && (d->role == runtime::BufferRole::OUTPUT || d->role == runtime::BufferRole::SCRATCH);
  };
  for (const auto& n : f.graph) {
    runtime::GraphNode g;
    g.op = n.op;
    for (const auto& i : n.inputs) g.inputs.push_back(version.count(i) ? version.at(i) : i);
    for (const auto& o : n.outputs) {
      const int k = ++writes[o];
      if (k > 1 && !reassignable(o)) {
        version[o] = o + ".v" + std::to_string(k);
        g.outputs.push_back(version[o]);
      } else {
        version.erase(o);
        g.outputs.push_back(o);
      }
    }
    for (const auto& [k, v] : n.num_attrs) g.attrs[k] = attr_of(v);
    for (const auto& [k, v] : n.str_attrs) g.attrs[k] = v;
    out.graph.push_back(std::move(g));
  }
  out.metadata["name"] = opt.name.empty() ? f.name : opt.name;
  out.metadata["compiler"] = "axc";
  out.metadata["compiler_version"] = "0.1.0";
  if (!opt.source.empty()) out.metadata["source"] = opt.source;
  if (auto names = step_names(p); !names.empty()) out.metadata["steps"] = std::move(names);
  return out;
}

}  // namespace axcore::compiler
