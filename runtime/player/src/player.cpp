#include "axcore/runtime/player.hpp"

#include <deque>
#include <map>
#include <optional>
#include <sstream>
#include <tuple>

#include "axcore/text/hex.hpp"
#include "axcore/txn/decode.hpp"
#include "axcore/txn/layout.hpp"

namespace axcore::runtime {
namespace {

using text::hex;

std::string device_text(const txn::Device& d) {
  std::ostringstream o;
  o << "devGen " << hex(d.dev_gen) << ", " << d.num_rows << " rows, " << d.num_cols << " columns, "
    << d.num_mem_tile_rows << " mem tile rows, TXN " << d.major << "." << d.minor;
  return o.str();
}

using ChanKey = std::tuple<uint32_t, uint32_t, uint32_t, uint32_t>;  // col, row, dir, channel
struct PushRec {
  uint32_t pos = 0, word = 0;
};

class Session {
 public:
  Session(device::Device& dev, const txn::Header& h, std::span<const ArgBinding> args, const PlayOptions& opt)
      : dev_(dev), header_(h), args_(args), opt_(opt), layout_(txn::axcore_layout()) {}

  void run(const txn::Decoded& d, PlayStats& st) {
    uint64_t n = 0;
    for (const txn::Op& op : d.ops) {
      ++n;
      try {
        std::visit([&](const auto& body) { apply(op, body, st); }, op.body);
      } catch (const PlayError&) { throw; } catch (const device::DeviceError& e) {
        throw PlayError(std::string(txn::to_string(op.opcode)) + " at word " + std::to_string(op.pos) + ": " + e.what(),
                        op.pos);
      }
      ++st.ops;
      if (opt_.progress && opt_.progress_every_ops && n % opt_.progress_every_ops == 0)
        opt_.progress({n, d.ops.size(), dev_.cycle(), st.waits});
    }
  }

 private:
  std::string channel_name(const ChanKey& k) const {
    const auto [col, row, dir, ch] = k;
    const auto q = layout_.queue_name(header_.tile_kind(row), dir ? txn::Dir::MM2S : txn::Dir::S2MM, ch);
    std::string s = "(" + std::to_string(col) + "," + std::to_string(row) + ") ";
    if (!q.empty()) return s + std::string(q) + " queue";
    return s + (dir ? "MM2S" : "S2MM") + " ch" + std::to_string(ch);
  }

  // The queue channel a register address pushes to, if it is a DMA or task queue register.
  std::optional<ChanKey> queue_of(uint64_t addr) const {
    const auto t = spec::decode_addr(addr);
    if (!t) return std::nullopt;  // above the register window: as the tracer, no tile register
    const uint32_t col = t->col, row = t->row;
    const txn::RegRole r = layout_.classify(header_.tile_kind(row), t->offset);
    if (r.kind == txn::RegRole::Kind::DMA_QUEUE) return ChanKey{col, row, r.dir == txn::Dir::MM2S ? 1u : 0u, r.channel};
    if (r.kind == txn::RegRole::Kind::TASK_QUEUE) return ChanKey{col, row, 0u, r.channel};
    return std::nullopt;
  }

  // Only a write32 pushes (the TXN tracer's rule, txn/trace.hpp). A maskwrite32 or blockwrite
  // reaching a queue register would start a task on the device that the stream's trace does not
  // show, so it is refused before the op touches the device.
  void refuse_queue_write(const txn::Op& op, uint64_t addr) const {
    if (const auto q = queue_of(addr))
      throw PlayError(std::string(txn::to_string(op.opcode)) + " at word " + std::to_string(op.pos) + " writes " +
                          hex(addr) + ", the queue register of " + channel_name(*q) +
                          ": only a write32 pushes a task (the TXN trace shows no push here); write the push word "
                          "with write32",
                      op.pos);
  }

  void apply(const txn::Op& op, const txn::Write32& w, PlayStats& st) {
    dev_.write32(w.addr, w.value);
    if (const auto q = queue_of(w.addr)) pushes_[*q].push_back({op.pos, w.value});
    ++st.writes;
  }
  void apply(const txn::Op& op, const txn::MaskWrite32& w, PlayStats& st) {
    refuse_queue_write(op, w.addr);
    dev_.mask_write32(w.addr, w.value, w.mask);
    ++st.mask_writes;
  }
  void apply(const txn::Op& op, const txn::BlockWrite& w, PlayStats& st) {
    for (size_t i = 0; i < w.data.size(); ++i) refuse_queue_write(op, uint64_t{w.addr} + 4 * i);
    dev_.block_write(w.addr, w.data);
    st.block_words += w.data.size();
  }
  void apply(const txn::Op& op, const txn::MaskPoll32& p, PlayStats& st) {
    try {
      dev_.poll32(p.addr, p.value, p.mask, opt_.poll_timeout_cycles);
    } catch (const device::TimeoutError& e) {
      throw PlayError("maskpoll32 at word " + std::to_string(op.pos) + ": " + e.what() + "\n" + status_report(dev_),
                      op.pos);
    }
    ++st.polls;
  }
  void apply(const txn::Op& op, const txn::DdrPatch& p, PlayStats& st) {
    const std::string at = "ddr_patch at word " + std::to_string(op.pos);
    if (p.arg_idx >= args_.size()) {
      std::string bound;
      for (size_t i = 0; i < args_.size(); ++i) bound += (i ? ", " : "") + std::to_string(i) + "=" + args_[i].name;
      throw PlayError(at + ": argument " + std::to_string(p.arg_idx) + " is not bound (" +
                          std::to_string(args_.size()) + " arguments" + (bound.empty() ? "" : ": " + bound) + ")",
                      op.pos);
    }
    const ArgBinding& a = args_[p.arg_idx];
    if (p.arg_plus >= a.bytes && !(p.arg_plus == 0 && a.bytes == 0))
      throw PlayError(at + ": offset " + hex(p.arg_plus) + " is past argument " + std::to_string(p.arg_idx) + " ('" +
                          a.name + "', " + std::to_string(a.bytes) + " bytes)",
                      op.pos);
    const uint64_t v = a.addr + p.arg_plus;
    dev_.write32(p.regaddr, static_cast<uint32_t>(v));
    dev_.write32(uint64_t{p.regaddr} + 4, static_cast<uint32_t>(v >> 32));
    ++st.patches;
  }
  void apply(const txn::Op& op, const txn::Tct& t, PlayStats& st) {
    const uint32_t dir = t.dir == txn::Dir::MM2S ? 1 : 0;
    for (uint32_t c = t.col; c < t.col + std::max(t.ncol, 1u); ++c)
      for (uint32_t r = t.row; r < t.row + std::max(t.nrow, 1u); ++r) wait(op, {c, r, dir, t.channel}, st);
    ++st.waits;
    if (opt_.progress) opt_.progress({st.ops + 1, 0, dev_.cycle(), st.waits});
  }
  void wait(const txn::Op& op, const ChanKey& k, PlayStats& st) {
    const auto [col, row, dir, ch] = k;
    auto& q = pushes_[k];
    std::optional<PushRec> push;
    if (!q.empty()) push = q.front();
    const std::string at = "tct at word " + std::to_string(op.pos);
    auto task = [&] {
      if (!push) return "no push to " + channel_name(k) + " precedes this wait (the stream never starts the task)";
      const auto p = spec::QueuePush::decode_word(push->word);
      return "the task pushed at word " + std::to_string(push->pos) + " to " + channel_name(k) + " (push " +
             hex(push->word) + ": start " + std::to_string(p.start) + ", repeat " + std::to_string(p.repeat) +
             ", tag " + std::to_string(p.tag) + (p.token ? "" : ", NO token requested") + ")";
    };
    uint32_t token = 0;
    try {
      token = dev_.wait_token(col, row, dir, ch, opt_.token_timeout_cycles);
    } catch (const device::TimeoutError&) {
      throw PlayError(at + ": no completion token within " + std::to_string(opt_.token_timeout_cycles) +
                          " cycles: " + task() + " never completed\n" + status_report(dev_),
                      op.pos);
    }
    if (!q.empty()) q.pop_front();
    const auto tok = spec::Token::decode_word(token);
    if (tok.error)
      throw PlayError(at + ": " + task() + " ended with error " + std::string(spec::to_string(tok.code)) + " (token " +
                          hex(token) + ")\n" + status_report(dev_),
                      op.pos);
    st.token_words.push_back(token);
    ++st.tokens;
  }
  void apply(const txn::Op&, const txn::Noop&, PlayStats& st) { ++st.noops; }
  void apply(const txn::Op&, const txn::Preempt&, PlayStats& st) { ++st.noops; }
  template <class Other>
  void apply(const txn::Op& op, const Other&, PlayStats&) {
    throw PlayError(std::string(txn::to_string(op.opcode)) + " at word " + std::to_string(op.pos) + ": axcore has no " +
                        (op.opcode == txn::Opcode::LOADPDI ? "PDIs to load" : "firmware support for this op"),
                    op.pos);
  }

  device::Device& dev_;
  txn::Header header_;
  std::span<const ArgBinding> args_;
  const PlayOptions& opt_;
  const txn::Layout& layout_;
  std::map<ChanKey, std::deque<PushRec>> pushes_;
};

}  // namespace

PlayStats play(device::Device& dev, std::span<const uint32_t> words, std::span<const ArgBinding> args,
               const PlayOptions& opt) {
  txn::Decoded d;
  try {
    d = txn::decode(words);
  } catch (const txn::DecodeError& e) {
    throw PlayError(std::string("TXN stream: ") + e.what(), static_cast<uint32_t>(e.word()));
  }
  const txn::Device want = txn::Device::axcore(dev.cores());
  if (!d.header.device.same_device(want) || d.header.device.major != want.major)
    throw PlayError("TXN stream is for another device: its header names " + device_text(d.header.device) + "; the " +
                        std::string(dev.backend()) + " device is axcore with " + std::to_string(dev.cores()) +
                        " core(s) (" + device_text(want) + ")",
                    0);
  PlayStats st;
  st.start_cycle = dev.cycle();
  Session(dev, d.header, args, opt).run(d, st);
  st.end_cycle = dev.cycle();
  return st;
}

}  // namespace axcore::runtime
