// Walk -> dma_bd chain, with the seed's "What a DMA can walk" rules and the engine limits.
#include <algorithm>

#include "axcore/tap/bd.hpp"

namespace axcore::tap {

const EngineLimits& engine_limits(Engine engine) {
  namespace p = spec::param;
  static const EngineLimits kSys{"SysDMA",
                                 "sysdma",
                                 p::sysdma_dims,
                                 p::sysdma_size_bits,
                                 p::sysdma_stride_bits,
                                 p::sysdma_padding != 0,
                                 p::sysdma_bds,
                                 p::dma_repeat_max,
                                 p::dma_pad_max};
  static const EngineLimits kMem{"MemDMA",
                                 "memdma",
                                 p::memdma_dims,
                                 p::memdma_size_bits,
                                 p::memdma_stride_bits,
                                 p::memdma_padding != 0,
                                 p::memdma_bds,
                                 p::dma_repeat_max,
                                 p::dma_pad_max};
  static const EngineLimits kCore{"CoreDMA",
                                  "coredma",
                                  p::coredma_dims,
                                  p::coredma_size_bits,
                                  p::coredma_stride_bits,
                                  p::coredma_padding != 0,
                                  p::coredma_bds,
                                  p::dma_repeat_max,
                                  p::dma_pad_max};
  switch (engine) {
    case Engine::kSysDma: return kSys;
    case Engine::kMemDma: return kMem;
    case Engine::kCoreDma: break;
  }
  return kCore;
}

namespace {

constexpr int64_t kIterSizeMax = (1 << 12) - 1;         // dma_bd.iter_size
constexpr int64_t kLengthMax = (int64_t{1} << 24) - 1;  // dma_bd.length

[[noreturn]] void fail(const std::string& message) { throw ValueError("dma_bd: " + message); }

std::string s(int64_t v) { return std::to_string(v); }

// A walk in words, outermost first, with per-dimension padding.
struct WordWalk {
  std::vector<int64_t> sizes, strides;
  std::vector<PadPair> pads;
  std::size_t rank() const { return sizes.size(); }
  std::size_t hw(std::size_t i) const { return rank() - 1 - i; }  // innermost-first number
};

class Lowering {
 public:
  Lowering(const TensorAccessPattern& p, unsigned bits, Engine engine, const LowerOptions& o)
      : engine_(engine), lim_(engine_limits(engine)), opt_(o), bits_(bits), bytes_(bits / 8) {
    if (bits != 8 && bits != 16 && bits != 32) {
      fail("element width " + s(bits) + " bits is not supported (elements are 8, 16 or 32 bits)");
    }
    if (p.is_symbolic()) {
      throw TypeError("dma_bd: lowering needs a concrete pattern, but " + p.str() +
                      " has dispatch-time values; bind() them first");
    }
    if (p.padding()) {
      if (!lim_.padding) {
        fail(std::string("the ") + lim_.name + " cannot pad (" + lim_.param_prefix +
             "_padding = 0); pad on an engine whose *_padding is 1");
      }
      if (o.direction == Direction::kS2mm) { fail("padding on an S2MM channel: only the emitting (MM2S) side pads"); }
    }
    pattern_ = p.coalesce_unpadded_pairs();
  }

  BdTask run() {
    check_granule();
    WordWalk w = to_words();
    fit_sizes(w);
    return assign(w);
  }

 private:
  std::string bytes_msg(const std::string& what, int64_t elements) const {
    return what + " is " + s(elements) + " elements * " + s(bytes_) + " bytes = " + s(elements * bytes_) +
           " bytes, which is not divisible by 4";
  }

  // Word granule and innermost-step rules. The shim checks every stride's granule first, the
  // mem and core tiles the innermost step first (the seed's two messages for one walk).
  void check_granule() const {
    const auto& sizes = pattern_.sizes();
    const auto& strides = pattern_.strides();
    std::size_t r = sizes.size(), inner = r - 1;
    auto strides_rule = [&] {
      for (std::size_t i = 0; i < r; ++i) {
        int64_t st = strides[i].value();
        if (i == inner && st == 1) continue;
        if (sizes[i].value() == 1) continue;  // a dimension of one step never strides
        if (st * bytes_ % 4 != 0) fail(bytes_msg("Stride " + s(static_cast<int64_t>(r - 1 - i)), st));
      }
    };
    auto inner_rule = [&] {
      if (bits_ < 32 && strides[inner].value() != 1) {
        fail("For <32b width datatypes, inner-most dim stride must be 1");
      }
    };
    if (engine_ == Engine::kSysDma) {
      strides_rule();
      inner_rule();
    } else {
      inner_rule();
      strides_rule();
    }
    if (sizes[inner].value() * bytes_ % 4 != 0) fail(bytes_msg("Size 0", sizes[inner].value()));
    if (opt_.base_address % 4 != 0) {
      fail("base address " + s(static_cast<int64_t>(opt_.base_address)) + " is not divisible by 4");
    }
    if (pattern_.offset().value() * bytes_ % 4 != 0) { fail(bytes_msg("Offset", pattern_.offset().value())); }
    if (pattern_.padding()) {
      auto [before, after] = pattern_.padding()->back();
      if (before * bytes_ % 4 != 0) fail(bytes_msg("Padding before of dim 0", before));
      if (after * bytes_ % 4 != 0) fail(bytes_msg("Padding after of dim 0", after));
    }
  }

  WordWalk to_words() const {
    WordWalk w;
    std::size_t r = static_cast<std::size_t>(pattern_.rank());
    for (std::size_t i = 0; i < r; ++i) {
      int64_t n = pattern_.sizes()[i].value(), st = pattern_.strides()[i].value();
      PadPair pad = pattern_.padding() ? (*pattern_.padding())[i] : PadPair{0, 0};
      // An outer (padded) dimension of one step keeps no stride: it never moves.
      int64_t word_stride = n == 1 && i + 1 < r ? 0 : st * bytes_ / 4;
      if (i + 1 == r && bits_ < 32) {  // innermost stride 1: a run of whole words
        n = n * bytes_ / 4;
        pad = {pad.first * bytes_ / 4, pad.second * bytes_ / 4};
        word_stride = 1;
      }
      w.sizes.push_back(n);
      w.strides.push_back(word_stride);
      w.pads.push_back(pad);
    }
    return w;
  }

  // A dimension too long for the size field is split into two that fit, when it has a divisor
  // that allows it and carries no padding.
  void fit_sizes(WordWalk& w) const {
    std::size_t i = 0;
    while (i < w.rank()) {
      int64_t n = w.sizes[i];
      if (n <= lim_.max_size()) {
        ++i;
        continue;
      }
      int64_t q = 0;
      if (w.pads[i] == PadPair{0, 0}) {
        for (int64_t d = lim_.max_size(); d > 1 && q == 0; --d)
          if (n % d == 0) q = d;
      }
      if (q == 0) {
        fail("Size " + s(static_cast<int64_t>(w.hw(i))) + " is " + s(n) + " words, which does not fit the " +
             lim_.name + "'s " + s(lim_.size_bits) + "-bit size field (max " + s(lim_.max_size()) + ")");
      }
      // Outer part at i (checked again on the next pass), inner part of q words at i + 1.
      auto at = w.sizes.begin() + static_cast<std::ptrdiff_t>(i);
      w.sizes[i] = q;
      w.sizes.insert(at, n / q);
      w.strides.insert(w.strides.begin() + static_cast<std::ptrdiff_t>(i), w.strides[i] * q);
      w.pads.insert(w.pads.begin() + static_cast<std::ptrdiff_t>(i), PadPair{0, 0});
    }
  }

  void check_stride(const WordWalk& w, std::size_t i) const {
    if (w.strides[i] > lim_.max_stride()) {
      fail("Stride " + s(static_cast<int64_t>(w.hw(i))) + " is " + s(w.strides[i]) + " words, which does not fit the " +
           lim_.name + "'s " + s(lim_.stride_bits) + "-bit stride field (max " + s(lim_.max_stride()) + ")");
    }
  }

  BdTask assign(const WordWalk& w) const {
    const std::size_t r = w.rank(), dims = lim_.dims;
    std::size_t outer = r > dims ? r - dims : 0;  // dimensions that do not fit one BD
    bool iterate = false;
    if (outer > 0 && opt_.use_repeat && w.sizes[0] - 1 <= lim_.repeat_max && w.sizes[0] <= kIterSizeMax &&
        w.strides[0] <= lim_.max_stride() && w.pads[0] == PadPair{0, 0}) {
      iterate = true;
    }
    std::size_t first_chain = iterate ? 1 : 0;
    int64_t chain_len = 1;
    for (std::size_t i = first_chain; i < outer; ++i) chain_len *= w.sizes[i];
    if (chain_len > 1 && opt_.single_bd && outer == 1 && opt_.use_repeat && w.sizes[0] - 1 > lim_.repeat_max) {
      fail("the walk needs " + s(static_cast<int64_t>(r)) + " dimensions, but one " + lim_.name + " BD holds " +
           s(dims) + " plus the repeat, and its outermost dimension of " + s(w.sizes[0]) +
           " runs exceeds the queue repeat (dma_repeat_max = " + s(lim_.repeat_max) + ", at most " +
           s(int64_t{lim_.repeat_max} + 1) + " runs); this transfer must fit one BD");
    }
    if (chain_len > 1 && opt_.single_bd) {
      fail("the walk needs " + s(static_cast<int64_t>(r)) + " dimensions, but one " + lim_.name + " BD holds " +
           s(dims) + (opt_.use_repeat ? " plus the repeat" : "") + ", and this transfer must fit one BD");
    }
    if (chain_len + opt_.first_bd > lim_.bds) {
      fail("the walk needs a chain of " + s(chain_len) + " BDs from BD " + s(opt_.first_bd) + ", but the " + lim_.name +
           " has " + s(lim_.bds));
    }
    for (std::size_t i = 0; i < r; ++i) {
      auto [before, after] = w.pads[i];
      if (i < outer && (before || after)) {
        fail("Dimension " + s(static_cast<int64_t>(w.hw(i))) + " is padded, but only the " + s(dims) +
             " dimensions of one " + lim_.name + " BD can pad");
      }
      if (before > lim_.pad_max) {
        fail("Padding before of dim " + s(static_cast<int64_t>(w.hw(i))) + " is " + s(before) +
             ", which exceeds dma_pad_max (" + s(lim_.pad_max) + ")");
      }
      if (after > lim_.pad_max) {
        fail("Padding after of dim " + s(static_cast<int64_t>(w.hw(i))) + " is " + s(after) +
             ", which exceeds dma_pad_max (" + s(lim_.pad_max) + ")");
      }
      if (i >= outer || (iterate && i == 0)) check_stride(w, i);
    }
    int64_t length = 1;
    for (std::size_t i = outer; i < r; ++i) length *= w.sizes[i];
    if (length > kLengthMax) {
      fail("Length is " + s(length) + " words, which does not fit the 24-bit length field (max " + s(kLengthMax) + ")");
    }

    spec::DmaBd proto;
    proto.length = static_cast<uint32_t>(length);
    proto.mem = opt_.mem;
    proto.core = opt_.core;
    proto.valid = 1;
    proto.pad_value = opt_.pad_value;
    uint32_t* size_f[] = {&proto.d0_size, &proto.d1_size, &proto.d2_size, &proto.d3_size};
    int32_t* stride_f[] = {&proto.d0_stride, &proto.d1_stride, &proto.d2_stride, &proto.d3_stride};
    uint32_t* before_f[] = {&proto.d0_pad_before, &proto.d1_pad_before, &proto.d2_pad_before, &proto.d3_pad_before};
    uint32_t* after_f[] = {&proto.d0_pad_after, &proto.d1_pad_after, &proto.d2_pad_after, &proto.d3_pad_after};
    for (std::size_t h = 0; h < 4; ++h) *size_f[h] = 1;
    for (std::size_t i = outer; i < r; ++i) {
      std::size_t h = w.hw(i);
      *size_f[h] = static_cast<uint32_t>(w.sizes[i]);
      *stride_f[h] = static_cast<int32_t>(w.strides[i]);
      *before_f[h] = static_cast<uint32_t>(w.pads[i].first);
      *after_f[h] = static_cast<uint32_t>(w.pads[i].second);
    }
    BdTask task{engine_, opt_.first_bd, 0, {}};
    if (iterate) {
      task.repeat = static_cast<uint32_t>(w.sizes[0] - 1);
      if (w.strides[0] != 0) {
        proto.iter_size = static_cast<uint32_t>(w.sizes[0]);
        proto.iter_stride = static_cast<int32_t>(w.strides[0]);
      }
    }
    uint64_t base =
        opt_.base_address + static_cast<uint64_t>(pattern_.offset().value()) * static_cast<uint64_t>(bytes_);
    std::vector<int64_t> idx(outer, 0);
    for (int64_t k = 0; k < chain_len; ++k) {
      int64_t words = 0;
      for (std::size_t i = first_chain; i < outer; ++i) words += idx[i] * w.strides[i];
      uint64_t addr = base + static_cast<uint64_t>(words) * 4;
      spec::DmaBd bd = proto;
      bd.addr_lo = static_cast<uint32_t>(addr);
      bd.addr_hi = static_cast<uint32_t>(addr >> 32);
      bool last = k + 1 == chain_len;
      bd.use_next = last ? 0 : 1;
      bd.next_bd = last ? 0 : opt_.first_bd + static_cast<uint32_t>(k) + 1;
      (void)bd.encode();  // every field fits: the checks above guarantee it
      task.bds.push_back(bd);
      for (std::size_t i = outer; i-- > first_chain;) {  // odometer over the chained dims
        if (++idx[i] < w.sizes[i]) break;
        idx[i] = 0;
      }
    }
    return task;
  }

  Engine engine_;
  const EngineLimits& lim_;
  LowerOptions opt_;
  int64_t bits_, bytes_;
  TensorAccessPattern pattern_ = TensorAccessPattern::full({1});
};

}  // namespace

BdTask lower_to_bds(const TensorAccessPattern& pattern, unsigned element_bits, Engine engine,
                    const LowerOptions& options) {
  return Lowering(pattern, element_bits, engine, options).run();
}

}  // namespace axcore::tap
