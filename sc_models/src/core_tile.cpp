#include "core_tile.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

#include "axcore/ref/dwpu.hpp"
#include "axcore/ref/error.hpp"
#include "axcore/txn/read_words.hpp"

namespace axcore::tlm {

namespace {
using spec::ErrorCode;
namespace L = spec::layout::datapath_desc;
constexpr uint32_t kCmdWords = spec::param::cmd_mem_bytes / 4;
enum QueueId : unsigned { kMvmexe = 0, kDwpu = 1, kLoadimc = 2, kCtrl = 3 };
}  // namespace

CoreTile::CoreTile(sc_core::sc_module_name n, unsigned core, Tracer& tr, uint32_t cores, TokenSink token,
                   BarrierHub& hub, WordFabric* fabric)
    : Tile(n, spec::core::kRegisters, spec::core_row(core), tr),
      l1("l1", spec::param::l1_bytes),
      core_(core),
      cores_(cores),
      token_(std::move(token)),
      hub_(hub) {
  dma = std::make_unique<DmaEngine>("coredma", ref::DmaEngine::coredma(),
                                    DmaContext{&regs, &errors, &tracer, token_, row, cores, fabric});
  const UnitEnv env{l1.bytes(), &imc, &tracer, row, &perf_, &l1_banks_};
  if (fabric)
    fabric->attach_l1(core, &l1_banks_, [this] {
      return std::any_of(queues_.begin(), queues_.begin() + kCtrl, [](const Queue& q) { return !q.tasks.empty(); });
    });
  for (unsigned k = 0; k < 2; ++k) {
    const unsigned base = k * 5;
    const std::string p = k == 0 ? "mvm_" : "dw_";
    pipes_[k].ifd0 = std::make_unique<IfdUnit>((p + "ifd0").c_str(), env, base + 0, false);
    pipes_[k].ifd1 = std::make_unique<IfdUnit>((p + "ifd1").c_str(), env, base + 1, true);
    if (k == 0) {
      pipes_[k].mvm = std::make_unique<MvmUnit>("mvm", env, base + 2);
      pipes_[k].mvm->lookahead = pipes_[k].ifd0.get();  // the MVM pops IFD0's stream
    } else {
      pipes_[k].dwpu = std::make_unique<DwpuUnit>("dwpu", env, base + 2);
    }
    pipes_[k].dpu = std::make_unique<DpuUnit>((p + "dpu").c_str(), env, base + 3);
    pipes_[k].odr = std::make_unique<OdrUnit>((p + "odr").c_str(), env, base + 4);
  }
  loadimc_ = std::make_unique<LoadImcUnit>("loadimc", env);
  for (unsigned q = 0; q < queues_.size(); ++q) {
    queues_[q].q = q;
    sc_core::sc_spawn([this, q] { queue_thread(queues_[q]); });
  }
  sc_core::sc_spawn([this] { fetch_thread(); });
  regs.on_write("Q_PUSH", [this](uint32_t q, uint32_t, uint32_t v) {
    const auto p = spec::QueuePush::decode_word(v);
    Queue& qu = queues_[q];
    if (qu.tasks.size() >= spec::param::queue_depth) {
      errors.report({ErrorCode::QUEUE_OVERFLOW, 0, spec::param::core_queue_channel_base + q, p.start, 0});
      return;
    }
    qu.tasks.push_back({p, now_cycles()});  // the cycle the write takes effect
    // behind a head past its fetch: prefetched from the next cycle (the RTL's count is registered)
    try_prefetch(qu, now_cycles() + 1);
    qu.wake.notify(sc_core::SC_ZERO_TIME);
  });
  regs.on_write("CMD_MEM", [this](uint32_t, uint32_t w, uint32_t) { cmd_mem_written(w); });
  regs.on_write("Q_CTRL", [this](uint32_t q, uint32_t, uint32_t v) {
    if (spec::core::QCtrl::decode_word(v).reset) {  // drop the queue and end the running task without a token (RTL)
      reset_queue(queues_[q], true);
      uint32_t& reg = regs.at("Q_CTRL", q);
      auto stored = spec::core::QCtrl::decode_word(reg);
      stored.reset = 0;
      reg = stored.encode_word();
    }
  });
  regs.on_read("Q_STATUS", [this](uint32_t q, uint32_t) {
    const Queue& qu = queues_[q];
    spec::core::QStatus s;
    s.pending = static_cast<uint32_t>(qu.tasks.size());
    s.busy = qu.running;
    s.error = qu.last_error;
    s.done = qu.done & 0xFFFF;  // wrapping
    return s.encode_word();
  });
  regs.on_read("CORE_STATUS", [this](uint32_t, uint32_t) {
    spec::core::CoreStatus s;
    s.mvmexe_busy = queues_[kMvmexe].running;
    s.dwpu_busy = queues_[kDwpu].running;
    s.loadimc_busy = queues_[kLoadimc].running;
    s.barrier_wait = barrier_id >= 0;
    s.dma_busy = dma->busy();
    return s.encode_word();
  });
  regs.on_write("CORE_CTRL", [this](uint32_t, uint32_t, uint32_t v) {
    regs.at("CORE_CTRL") = 0;  // self-clearing
    if (spec::core::CoreCtrl::decode_word(v).soft_reset) soft_reset();
  });
  regs.on_read("IMC_STATUS", [this](uint32_t, uint32_t) {
    spec::core::ImcStatus s;
    s.matrix_id = imc.matrix_id() & 0xFF;
    s.valid_tiles = static_cast<uint32_t>(std::min<std::size_t>(imc.valid_tiles(), 255));
    s.stale = imc.stale_reads != 0;
    return s.encode_word();
  });
  regs.on_read("IMC_STALE_READS", [this](uint32_t, uint32_t) { return static_cast<uint32_t>(imc.stale_reads); });
  regs.on_read("PERF_BUSY",
               [this](uint32_t i, uint32_t) { return i == 11 ? static_cast<uint32_t>(cmdproc_busy_) : perf_[i].busy; });
  regs.on_read("PERF_STALL_IN", [this](uint32_t i, uint32_t) { return perf_[i].stall_in; });
  regs.on_read("PERF_STALL_OUT", [this](uint32_t i, uint32_t) { return perf_[i].stall_out; });
  regs.on_read("PERF_TASKS", [this](uint32_t i, uint32_t) { return perf_[i].tasks; });
  auto dbg = [this]() -> uint8_t* {
    const uint32_t a = regs.at("DBG_MEM_ADDR") & ~3u;
    if ((regs.at("DBG_MEM_SEL") & 3u) == 1) {
      const std::size_t tb = ref::kTileRows * num::kLanes;
      if (a / tb >= imc.tiles()) return nullptr;
      return reinterpret_cast<uint8_t*>(imc.tile(a / tb).data()) + a % tb;
    }
    return a + 4 <= l1.bytes().size() ? &l1.bytes()[a] : nullptr;
  };
  regs.on_read("DBG_MEM_DATA", [this, dbg](uint32_t, uint32_t) {
    uint32_t v = 0;
    if (uint8_t* p = dbg()) std::memcpy(&v, p, 4);
    regs.at("DBG_MEM_ADDR") += 4;
    return v;
  });
  regs.on_write("DBG_MEM_DATA", [this, dbg](uint32_t, uint32_t, uint32_t v) {
    if (uint8_t* p = dbg()) std::memcpy(p, &v, 4);
    regs.at("DBG_MEM_ADDR") += 4;
  });
}

void CoreTile::reset_queue(Queue& q, bool running_too) {
  while (q.tasks.size() > (q.running ? 1u : 0u)) q.tasks.pop_back();
  q.pf = {};  // the prefetch of a dropped task
  cancel_fetch(q);
  if (!running_too || !q.running) return;
  ++q.epoch;
  if (q.q == kMvmexe || q.q == kDwpu) {  // abort the datapath run (its units leave at once)
    Pipe* run = pipes_[q.q == kMvmexe ? 0 : 1].current;
    if (run) {
      run->reset = true;
      run->bt.abort();
    }
  }
  q.wake.notify(sc_core::SC_ZERO_TIME);
}

void CoreTile::soft_reset() {
  for (auto& q : queues_) {
    reset_queue(q, true);
    q.done = 0;
    q.last_error = false;
  }
  dma->reset();
  errors.reset();
  regs.at("WDOG_STATUS") = 0;
  regs.at("WDOG_WAITS") = 0;
  wdog_report_.clear();
  perf_ = {};
  cmdproc_busy_ = 0;
}

bool CoreTile::busy() const {
  return dma->busy() || std::any_of(queues_.begin(), queues_.end(), [](const Queue& q) { return !q.tasks.empty(); });
}

uint32_t CoreTile::cmd_word(uint32_t a) { return regs.at("CMD_MEM", 0, a); }

CoreTile::Fetch CoreTile::fetch(const Queue& q, uint32_t start, uint64_t p) {
  Fetch f;
  f.valid = true;
  f.p = p;
  f.start = start;
  const bool datapath = q.q == kMvmexe || q.q == kDwpu;
  const uint32_t fixed = q.q == kLoadimc ? spec::LoadimcDesc::kWords
                         : q.q == kCtrl  ? spec::BarrierDesc::kWords
                                         : static_cast<uint32_t>(L::program);
  if (uint64_t{start} + fixed > kCmdWords && !(datapath && start < kCmdWords)) {
    fetch_free_ = std::max(fetch_free_, p + 2);  // refused in the engine's first cycle
    return f;
  }
  uint32_t words = fixed;
  if (datapath) {
    words = std::max<uint32_t>(cmd_word(start) >> 16, 1);  // header.words
    if (uint64_t{start} + words > kCmdWords) {
      fetch_free_ = std::max(fetch_free_, p + 4);  // the header's length is known when word 0 arrived
      return f;
    }
  }
  f.words = words;
  f.w.assign(words + (datapath ? L::max_words : 0), 0);
  for (uint32_t i = 0; i < words; ++i) f.w[i] = cmd_word(start + i);
  // Only the words the device reads cross the port (docs/timing.md "Fetched words").
  const std::vector<bool> read = txn::queue_read_words(static_cast<spec::Queue>(q.q), std::span(f.w).first(words));
  for (uint32_t i = 0; i < words; ++i)
    if (read[i]) f.reads.push_back(i);
  fetch_free_ = std::max(fetch_free_, f.end());
  return f;
}

void CoreTile::ask_fetch(Queue& q, bool prefetch, uint32_t start, uint64_t ready) {
  fetch_requests_.push_back({q.q, prefetch, start, ready});
  q.pf_asked = prefetch;
  fetch_request_ev_.notify(sc_core::SC_ZERO_TIME);
}

void CoreTile::cancel_fetch(Queue& q) {
  std::erase_if(fetch_requests_, [&](const FetchRequest& r) { return r.q == q.q && r.prefetch; });
  q.pf_asked = false;
}

void CoreTile::fetch_thread() {
  for (;;) {
    while (fetch_requests_.empty()) sc_core::wait(fetch_request_ev_);
    uint64_t c = fetch_free_;
    uint64_t first = ~uint64_t{0};
    for (const auto& r : fetch_requests_) first = std::min(first, r.ready);
    c = std::max({c, first, now_cycles()});
    if (c > now_cycles()) {  // a request may come that is ready earlier
      sc_core::wait(static_cast<double>(c - now_cycles()), sc_core::SC_NS, fetch_request_ev_);
      continue;
    }
    // The requests of this cycle come from threads and host writes of the same cycle.
    sc_core::wait(sc_core::SC_ZERO_TIME);
    sc_core::wait(sc_core::SC_ZERO_TIME);
    auto best = fetch_requests_.end();
    for (auto it = fetch_requests_.begin(); it != fetch_requests_.end(); ++it)
      if (it->ready <= c && (best == fetch_requests_.end() || it->q < best->q)) best = it;
    if (best == fetch_requests_.end()) continue;
    const FetchRequest r = *best;
    fetch_requests_.erase(best);
    Queue& q = queues_[r.q];
    (r.prefetch ? q.pf : q.head) = fetch(q, r.start, c);
    if (r.prefetch) q.pf_asked = false;
    q.fetched.notify(sc_core::SC_ZERO_TIME);
  }
}

void CoreTile::try_prefetch(Queue& q, uint64_t earliest) {
  if (q.tasks.size() < 2 || q.pf.valid || q.pf_asked || q.head_checked > now_cycles()) return;
  const Task& next = q.tasks[1];
  ask_fetch(q, true, next.push.start, std::max({earliest, next.accepted + 1, q.head_checked}));
}

void CoreTile::cmd_mem_written(uint32_t word) {
  const uint64_t c = now_cycles();
  for (Queue& q : queues_) {
    Fetch& f = q.pf;
    if (!f.valid || f.words == 0 || word < f.start || word - f.start >= f.words) continue;
    const uint32_t k = word - f.start;
    if (k <= f.reading(c) && c >= f.p + 1) {  // a word the prefetch passed: dropped and fetched again
      f = {};
      try_prefetch(q, c + 1);
    } else if (k == 0) {  // the header (its length) before it was read: the fetch sees the new one
      f = fetch(q, f.start, f.p);
    } else {
      f.w[k] = cmd_word(word);  // read later: the new word
    }
  }
}

void CoreTile::queue_thread(Queue& q) {
  for (;;) {
    while (q.tasks.empty()) sc_core::wait(q.wake);
    const Task task = q.tasks.front();
    const uint32_t epoch = q.epoch;
    q.running = true;
    uint64_t t = 0, t_begin = 0;
    uint32_t bytes = 0, err_addr = 0;
    const ErrorCode code = run_task(q, task, t, t_begin, bytes, err_addr);
    sync_to(t);
    q.in_run = false;
    resource_ev_.notify(sc_core::SC_ZERO_TIME);
    if (q.epoch != epoch) {  // soft reset / queue reset while running: no token, no record
      q.head_checked = ~uint64_t{0};
      if (!q.tasks.empty()) q.tasks.pop_front();
      q.running = false;
      q.next_pick = t + 3;
      continue;
    }
    const uint32_t channel = spec::param::core_queue_channel_base + q.q;
    if (code != ErrorCode::NONE) errors.report({code, 0, channel, task.push.start, err_addr});
    spec::Token tok;
    tok.valid = 1;
    tok.error = code != ErrorCode::NONE;
    tok.code = code;
    tok.tag = task.push.tag;
    tok.row = row;
    tok.channel = channel;
    // A task that ends with an error always sends its token (docs/timing.md).
    const bool send = task.push.token || code != ErrorCode::NONE;
    const uint32_t tw = send ? tok.encode_word() : 0;
    tracer.emit(t, row, trace::Unit::CMDPROC, trace::Kind::TASK_DONE, task.push.start, bytes, 0, tw);
    // PERF_BUSY of the command processor: cycles in which some queue is not idle (FETCH from the
    // pick through S_TOKEN the cycle after TASK_DONE), a union over the queues like the RTL's.
    const uint64_t busy_end = t + 2;
    cmdproc_busy_ += busy_end - std::min(busy_end, std::max(t_begin, cmdproc_busy_until_));
    cmdproc_busy_until_ = std::max(cmdproc_busy_until_, busy_end);
    if (code == ErrorCode::NONE) ++perf_[spec::param::perf_units - 1].tasks;  // CMDPROC: tasks without error
    q.head_checked = ~uint64_t{0};
    q.tasks.pop_front();
    q.running = false;
    q.last_error = code != ErrorCode::NONE;
    ++q.done;
    // S_TOKEN the cycle after TASK_DONE, IDLE the next, FETCH of the next task the one after.
    q.next_pick = t + 3;
    if (send) {
      sync_to(t + 1);
      token_(tw, t + 1);
    }
  }
}

bool CoreTile::resources_free(const Queue& q) const {
  // MVMEXE and LoadIMC run together only when their IMC uses are apart (ax_imc_apart).
  const Queue &m = queues_[kMvmexe], &l = queues_[kLoadimc];
  if (q.q == kMvmexe || q.q == kLoadimc)
    return !(q.q == kMvmexe ? l : m).in_run || ref::imc_tasks_apart(m.has_mvm, m.mvm, l.li);
  // A barrier starts when every other queue is idle and empty (ax_cmdproc's can_start[QCTRL]).
  if (q.q == kCtrl)
    return std::all_of(queues_.begin(), queues_.begin() + kCtrl, [](const Queue& o) { return o.tasks.empty(); });
  return true;
}

ErrorCode CoreTile::run_task(Queue& q, const Task& task, uint64_t& t, uint64_t& t_begin, uint32_t& bytes,
                             uint32_t& err_addr) {
  const uint32_t start = task.push.start;
  // Descriptor fetch through the one CMD_MEM read port: the queue is in FETCH two cycles after
  // the push took effect; the engine picks it when free (p), reads one word per cycle from p + 1
  // (data a cycle later) and checks the descriptor the cycle after the last word (p + words + 2).
  // A task prefetched behind its predecessor (try_prefetch) is checked the cycle after that one
  // left S_TOKEN (TASK_DONE + 2), or when its prefetch ends if that is later.
  const bool datapath = q.q == kMvmexe || q.q == kDwpu;
  Fetch f;
  uint64_t t_ready = 0;
  if (q.pf.valid && q.pf.words > 0) {
    f = std::move(q.pf);
    t_ready = q.next_pick - 1;
  } else {  // not prefetched (or the port has not picked the prefetch yet): the head's own fetch
    cancel_fetch(q);
    q.head = {};
    ask_fetch(q, false, start, std::max({task.accepted + 2, q.next_pick, now_cycles()}));
    while (!q.head.valid) sc_core::wait(q.fetched);
    f = std::move(q.head);
    q.head = {};
  }
  q.pf = {};
  const uint64_t p = f.p;
  t_begin = p;
  const uint32_t words = f.words;
  if (words == 0) {  // runs past CMD_MEM: refused in the engine's first cycle, or once word 0 arrived
    t = p + ((datapath && start < kCmdWords) ? 3 : 1);
    return ErrorCode::CMD_RANGE;
  }
  const std::vector<uint32_t>& w = f.w;
  t = std::max(f.end(), t_ready);
  // Validation in the check cycle: a refused descriptor records only TASK_DONE.
  ErrorCode code = ErrorCode::NONE;
  spec::LoadimcDesc li{};
  spec::BarrierDesc bar{};
  if (datapath)
    code = prepare_datapath(q, w, words);
  else if (q.q == kLoadimc) {
    li = spec::LoadimcDesc::decode(w);
    q.li = li;
    if (li.magic != spec::magic::loadimc)
      code = ErrorCode::DESC_MAGIC;
    else if (li.d0_size == 0 || li.d1_size == 0)
      code = ErrorCode::DESC_RANGE;
  } else {
    bar = spec::BarrierDesc::decode(w);
    if (bar.magic != spec::magic::barrier)
      code = ErrorCode::DESC_MAGIC;
    else if (!(bar.core_mask >> core_ & 1u) || (bar.core_mask >> cores_) != 0)
      code = ErrorCode::BARRIER_MASK;
  }
  sync_to(t);
  // Past its fetch: the task behind may prefetch its descriptor from this cycle on.
  q.head_checked = t;
  try_prefetch(q, t);
  if (code != ErrorCode::NONE) return code;
  if (!resources_free(q)) {
    while (!resources_free(q)) sc_core::wait(resource_ev_);
    // The other task's S_RUN ended the cycle before (its TASK_DONE); a barrier sees the queue
    // idle two cycles after it (S_TOKEN, then S_IDLE).
    t = std::max(t, now_cycles() + (q.q == kCtrl ? 2 : 1));
  }
  q.in_run = true;
  tracer.emit(t, row, trace::Unit::CMDPROC, trace::Kind::TASK_START, start, 0, 0, task.push.encode_word());
  if (datapath) return run_datapath(q, task.push.repeat, t, bytes, err_addr);
  if (q.q == kLoadimc) {
    uint64_t busy = 0;
    for (uint32_t r = 0; r <= task.push.repeat; ++r) {
      if (r > 0) ++t;  // a repeat restarts the cycle after the run ended
      const uint64_t t0 = t;
      const ErrorCode c = loadimc_->run(li, t, bytes, err_addr);
      if (c != ErrorCode::NONE) return c;
      busy += t - 1 - t0;  // from the first read through the last row's write (lost banks included)
    }
    auto& pc = perf_[static_cast<unsigned>(spec::PerfUnit::LOADIMC)];
    ++pc.tasks;
    pc.busy += static_cast<uint32_t>(busy);
    return ErrorCode::NONE;
  }
  return run_barrier(bar, t);
}

ErrorCode CoreTile::run_barrier(const spec::BarrierDesc& b, uint64_t& t) {
  // Running (the other queues were idle and empty): arrive in the start cycle, and wait for the
  // release; done the cycle after (the RTL's S_RUN sees the release).
  sync_to(t);
  barrier_id = static_cast<int>(b.barrier_id);
  auto& rv = hub_.rendezvous[{b.barrier_id, b.core_mask}];
  const uint64_t generation = rv.generation;
  if (++rv.arrived == static_cast<unsigned>(std::popcount(b.core_mask))) {
    rv.arrived = 0;
    ++rv.generation;
    hub_.changed.notify(sc_core::SC_ZERO_TIME);
  }
  while (rv.generation == generation) sc_core::wait(hub_.changed);
  barrier_id = -1;
  t = std::max(t, now_cycles()) + 1;
  return ErrorCode::NONE;
}

ErrorCode CoreTile::prepare_datapath(Queue& q, std::span<const uint32_t> ws, uint32_t words) {
  const auto h = spec::DpHeader::decode(ws.first(spec::DpHeader::kWords));
  if (h.magic != spec::magic::datapath) return ErrorCode::DESC_MAGIC;
  const bool mvm = q.q == kMvmexe;
  // A descriptor of the other datapath kind: "descriptor magic does not match the queue".
  if (static_cast<unsigned>(h.kind) != q.q) return ErrorCode::DESC_MAGIC;
  if (!h.has_odr || !h.has_ifd0 || (h.has_ifd1 && !h.has_dpu)) return ErrorCode::DESC_UNITS;
  Pipeline& p = pipes_[mvm ? 0 : 1];
  p.header = h;
  if (mvm) q.has_mvm = h.has_main;
  try {
    if (words < spec::DatapathDesc::kFixedWords)
      ref::fail(ErrorCode::DESC_RANGE, "datapath descriptor shorter than its fixed part");
    // The generated decode(): every section as the device reads it (the checks below give the codes).
    const auto d = spec::DatapathDesc::decode(ws.first(words));
    p.ifd0->walks = ref::ifd_walks(d, 0, h.has_ifd1);  // validated, with their segments (§8.3)
    if (h.has_ifd1) p.ifd1->walks = ref::ifd_walks(d, 1, true);
    if (h.has_main && mvm) {
      p.mvm->desc = *d.mvm;
      ref::validate_mvm(p.mvm->desc);
      q.mvm = p.mvm->desc;
    }
    if (h.has_main && !mvm) {
      p.dwpu->desc = *d.dwpu;
      ref::validate_dwpu(p.dwpu->desc);
    }
    if (h.has_dpu) {
      const std::size_t n = std::size_t{d.dpu.init_len} + d.dpu.body_len;
      if (n > d.program.size()) ref::fail(ErrorCode::DESC_RANGE, "DPU program runs past the descriptor's words");
      p.dpu->program = ref::DpuProgram{d.dpu, {d.program.begin(), d.program.begin() + static_cast<std::ptrdiff_t>(n)}};
      p.dpu->cfg.has_in1 = h.has_ifd1;
      ref::validate_dpu(p.dpu->program, p.dpu->cfg);
    }
    p.odr->walk = d.odr;
    ref::validate_walk(p.odr->walk, ref::WalkRole::Odr);
    ref::validate_odr_kind(h.kind, p.odr->walk);
  } catch (const ref::RefError& e) { return e.code(); }
  return ErrorCode::NONE;
}

ErrorCode CoreTile::run_datapath(Queue& q, uint32_t repeat, uint64_t& t, uint32_t& bytes, uint32_t& err_addr) {
  const bool mvm = q.q == kMvmexe;
  Pipeline& p = pipes_[mvm ? 0 : 1];
  const spec::DpHeader& h = p.header;
  for (uint32_t r = 0; r <= repeat; ++r) {
    if (r > 0) ++t;  // a repeat restarts the cycle after the previous run ended
    Pipe pipe;
    p.current = &pipe;
    p.ifd0->out = h.has_main ? &pipe.ifd0 : (h.has_dpu ? &pipe.ifd0 : &pipe.ifd0);
    Stream* main_out = h.has_main ? &pipe.main : &pipe.ifd0;
    if (h.has_main) (mvm ? p.mvm->out : p.dwpu->out) = &pipe.main;
    p.dpu->in0 = main_out;
    p.ifd1->out = &pipe.ifd1;
    p.odr->in = h.has_dpu ? &pipe.dpu : main_out;
    p.odr->inline_ok = h.has_main && !h.has_dpu;  // behind the MVM / DWPU's thread (OdrUnit)
    p.ifd0->launch(pipe, t);
    if (h.has_ifd1) p.ifd1->launch(pipe, t);
    if (h.has_main) (mvm ? static_cast<Unit*>(p.mvm.get()) : static_cast<Unit*>(p.dwpu.get()))->launch(pipe, t);
    if (h.has_dpu) p.dpu->launch(pipe, t);
    p.odr->launch(pipe, t);
    bool fired = false;
    while (pipe.bt.running() > 0) {
      if (!pipe.bt.deadlocked()) {
        sc_core::wait(pipe.bt.done_ev | pipe.bt.deadlock_ev);
        continue;
      }
      const uint32_t limit = regs.at("WDOG_LIMIT");
      if (limit == 0 || fired) {  // watchdog off: hangs like the hardware
        sc_core::wait(pipe.bt.done_ev);
        continue;
      }
      const uint64_t fire_at = pipe.bt.last_progress() + limit, now = now_cycles();
      if (fire_at > now) {
        pipe.bt.watching = true;  // (every unblock notifies progress_ev now: BlockTracker::settle)
        sc_core::wait(static_cast<double>(fire_at - now), sc_core::SC_NS, pipe.bt.progress_ev | pipe.bt.done_ev);
        pipe.bt.watching = false;
        if (now_cycles() < fire_at) continue;  // woken by progress: not a deadlock
      }
      if (!pipe.bt.deadlocked()) continue;
      fired = true;
      regs.at("WDOG_STATUS") = 1u | (mvm ? 0u : 2u);
      regs.at("WDOG_WAITS") = pipe.bt.waits();
      wdog_report_ = watchdog_diagnostic(mvm, pipe.bt.waits(), now_cycles());
      pipe.err = ErrorCode::WATCHDOG;
      pipe.bt.abort();
    }
    p.current = nullptr;
    bytes += pipe.bytes;
    if (pipe.reset) return ErrorCode::NONE;  // soft reset: the caller drops the task
    // Done the cycle after the ODR's last write (the RTL's registered done).
    t = std::max({t, pipe.end + 1, fired ? now_cycles() : 0});
    if (pipe.err != ErrorCode::NONE) {
      err_addr = pipe.err_addr;
      return pipe.err;
    }
  }
  // PERF_TASKS: one per task (not per run) for each unit of the datapath, only when the task
  // ended without an error (a task with an error token is not counted).
  const unsigned base = mvm ? 0 : 5;
  const bool ran[5] = {true, h.has_ifd1 != 0, h.has_main != 0, h.has_dpu != 0, true};
  for (unsigned u = 0; u < 5; ++u)
    if (ran[u]) ++perf_[base + u].tasks;
  return ErrorCode::NONE;
}

}  // namespace axcore::tlm
